"""Backward play with seats that go out: the states one trick before a 3- or 4-seat state, where
a seat out in that state may still have been in, holding a few cards, and gone out in the trick.

The route to an endless 3-player deal through a two-seat cycle: a seat goes out and the other
two fall into a known two-seat cycle. Playing backwards from the cycle's states with the third
seat out, one trick back that seat may have been in (docs/rules.md, rules 5 and 6: asked to lay
and holding nothing, it goes out; out while paying, the last court card's seat takes the pile),
and from there on backwards every seat is in.

`predecessors` finds the states one trick back by unplaying the pile: the taker's last L cards
are the pile, in the order laid; replaying the rules from each possible leader says which seat
laid each card (a seat out in the later state may lay some and then go out when asked for one
more: each way is tried), and those cards go back on top of their hands. Every candidate is
confirmed by playing its trick forward (kernels/cycles/loops.lay_trick). Any number of seats;
general N-seat backward play lives in kernels/cycles (this one is for the elimination search).

`search` is a bounded best-first search from a two-seat cycle towards a starting deal of the
given hand sizes (18/17/17: seat 0 to lead), keeping the most balanced state reached.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from bmn.kernels.cycles.loops import lay_trick

Hands = tuple[bytes | None, ...]
State = tuple[Hands, int]  # every hand (None: out) and the seat to lead


def forward(hands: Hands, leader: int) -> State | None:
    """The state after one trick (lay_trick's rules); None if the game ends in it."""
    taker, laid, pile, out, last = lay_trick(hands, leader)
    if last:
        return None
    after = tuple(
        None if out[s] else bytes(h[n:]) + (bytes(pile) if s == taker else b"")
        for s, (h, n) in enumerate(zip(hands, laid, strict=True))
    )
    if not any(h for s, h in enumerate(after) if s != taker):  # every other seat empty: over
        return None
    return after, taker


def _next_in(live: Sequence[bool], seat: int) -> int:
    n = len(live)
    for step in range(1, n + 1):
        if live[(seat + step) % n]:
            return (seat + step) % n
    return seat


def _unplay(
    pile: bytes, leader: int, live: list[bool], extra: int | None, taker: int
) -> Iterator[tuple[tuple[tuple[int, ...], ...], int | None]]:
    """Every way the pile can have been laid from `leader` with the seats `live` in the game,
    ending with `taker` taking it: (the cards each seat laid, the seat that went out or None).
    Only `extra` may go out: at each of its turns it either lays the card or holds nothing."""
    n = len(pile)
    empty: tuple[tuple[int, ...], ...] = tuple(() for _ in live)
    stack = [(0, leader, -1, 0, tuple(live), empty, None)]
    while stack:
        i, seat, layer, owed, alive, laid, gone = stack.pop()
        if seat == extra and gone is None and i > 0:  # the leader holds cards: not before
            without = list(alive)
            without[seat] = False
            if layer < 0:  # out on an ordinary turn: the turn passes on, the pile stays
                stack.append((i, _next_in(without, seat), layer, owed, tuple(without), laid, seat))
            elif i == n and layer == taker:  # out while paying: the layer takes the pile
                yield laid, seat
        if i == n:
            continue
        card = pile[i]
        more = laid[:seat] + (laid[seat] + (card,),) + laid[seat + 1 :]
        if card:  # a court card: the next seat pays
            stack.append((i + 1, _next_in(alive, seat), seat, card, alive, more, gone))
        elif layer < 0:  # a numeral on an ordinary turn
            stack.append((i + 1, _next_in(alive, seat), layer, owed, alive, more, gone))
        elif owed > 1:  # a numeral paid towards the penalty
            stack.append((i + 1, seat, layer, owed - 1, alive, more, gone))
        elif i == n - 1 and layer == taker:  # the penalty paid: the layer takes the pile
            yield more, gone


def predecessors(hands: Hands, taker: int, extra: int | None = None) -> Iterator[State]:
    """Every state whose trick leads to (hands, taker), confirmed by forward play. Seats out in
    `hands` stay out, except `extra` (out in `hands`), which may have been in and gone out in
    the trick (its hand then the cards it laid)."""
    mine = hands[taker]
    if not mine:
        return
    courts = [p for p, v in enumerate(mine) if v]
    if not courts:
        return
    last = courts[-1]
    trailing = len(mine) - 1 - last
    if trailing > mine[last]:  # a pile ends at a paid penalty, or a payer out while paying
        return
    live_after = [h is not None for h in hands]
    options = [None] if extra is None or hands[extra] is not None else [None, extra]
    seen: set[State] = set()
    for start in range(last, -1, -1):
        pile = mine[start:]
        for gone in options:
            live = list(live_after)
            if gone is not None:
                live[gone] = True
            for leader in (s for s in range(len(hands)) if live[s]):
                for laid, went in _unplay(pile, leader, live, gone, taker):
                    if went != gone or not laid[leader]:
                        continue
                    before = []
                    for s, h in enumerate(hands):
                        if s == went:
                            before.append(bytes(laid[s]))
                        elif h is None:
                            before.append(None)
                        else:
                            rest = h[:start] if s == taker else h
                            before.append(bytes(laid[s]) + rest)
                    state = (tuple(before), leader)
                    if state not in seen and forward(*state) == (hands, taker):
                        seen.add(state)
                        yield state


def seated(hands: Hands, leader: int) -> State:
    """The state with its seats renumbered round the table so that the leader is seat 0 (the
    same game): a starting deal if every seat is in."""
    return hands[leader:] + hands[:leader], 0


def imbalance(hands: Hands, leader: int, sizes: Sequence[int]) -> int:
    """How far the state, seated from its leader, is from a deal of `sizes`: the cards to move
    (the sum of the differences of hand sizes, halved, rounded up), plus 1,000 for each seat
    out (a seat out counts as holding nothing)."""
    turned, _ = seated(hands, leader)
    out = sum(h is None for h in turned)
    moved = sum(abs(len(h or ()) - n) for h, n in zip(turned, sizes, strict=True))
    return 1000 * out + (moved + 1) // 2


@dataclass
class Reach:
    """How far a search got: states visited, the most balanced state seen, a deal if found."""

    states: int = 0
    best: State | None = None
    best_gap: int = 1 << 30
    deals: list[State] = field(default_factory=list)
    seconds: float = 0.0

    def sizes(self) -> tuple[int, ...]:
        if self.best is None:
            return ()
        turned, _ = seated(*self.best)
        return tuple(-1 if h is None else len(h) for h in turned)


def search(
    cycle: Sequence[tuple[Sequence[Sequence[int]], int]],
    seats: int,
    sizes: Sequence[int],
    seconds: float,
    max_states: int | None = None,
    two_seat_basin: Sequence[tuple[Sequence[Sequence[int]], int]] = (),
) -> Reach:
    """Best-first backward search from a two-seat cycle (its states, and any further states of
    its basin) for a `seats`-seat starting deal of `sizes` that falls into it, or its mirror
    image, after the other seats go out; states nearest a deal of `sizes` first. Bounded by
    `seconds` and `max_states`. With 4 seats, the seats out go back in one at a time."""
    begin = time.perf_counter()
    reach = Reach()
    heap: list[tuple[int, int, int, State]] = []
    seen: set[State] = set()
    order = 0
    for hands2, leader2 in [*cycle, *two_seat_basin]:
        # The two hands at any two seats, either way round (the cycle and its mirror image: one
        # cycle seat-blind), the other seats out.
        for a, b in itertools.permutations(range(seats), 2):
            hands: list[bytes | None] = [None] * seats
            hands[a], hands[b] = bytes(hands2[0]), bytes(hands2[1])
            state = (tuple(hands), a if leader2 == 0 else b)
            if state not in seen:
                seen.add(state)
                order += 1
                heapq.heappush(heap, (imbalance(*state, sizes), order, 0, state))
    while heap:
        if time.perf_counter() - begin > seconds or (max_states and reach.states >= max_states):
            break
        gap, _, depth, (hands, leader) = heapq.heappop(heap)
        reach.states += 1
        if gap < reach.best_gap:
            reach.best_gap, reach.best = gap, (hands, leader)
        if gap == 0:
            if seated(hands, leader) not in reach.deals:  # one deal, reached from a rotation
                reach.deals.append(seated(hands, leader))
            continue
        outs = [s for s, h in enumerate(hands) if h is None]
        for extra in outs or [None]:
            for prev in predecessors(hands, leader, extra):
                if prev not in seen:
                    seen.add(prev)
                    order += 1
                    heapq.heappush(heap, (imbalance(*prev, sizes), order, depth + 1, prev))
    reach.seconds = time.perf_counter() - begin
    return reach
