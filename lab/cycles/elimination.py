"""The elimination search: from a two-seat cycle back to a 3- or 4-seat starting deal whose
game falls into it once the other seats go out.

The route to an endless 3-player deal through a two-seat cycle: a seat goes out and the other
two fall into a known two-seat cycle. Playing backwards from the cycle's states with the third
seat out, one trick back that seat may have been in (docs/rules.md, rules 5 and 6: asked to lay
and holding nothing, it goes out; out while paying, the last court card's seat takes the pile),
and from there on backwards every seat is in.

The steps back are N-seat backward play (kernels/cycles/backward_seats.predecessors), asked to
let one named seat out come back in at a time (`predecessors`). `search` is a bounded
best-first search from a two-seat cycle towards a starting deal of the given hand sizes
(18/17/17: seat 0 to lead), keeping the most balanced state reached.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from bmn.kernels.cycles.backward_seats import predecessors as seats_predecessors
from bmn.kernels.cycles.loops import BMN, Reading

Hands = tuple[bytes | None, ...]
State = tuple[Hands, int]  # every hand (None: out) and the seat to lead


def predecessors(
    hands: Hands, taker: int, extra: int | None = None, reading: Reading = BMN
) -> Iterator[State]:
    """Every state whose trick leads to (hands, taker) under a rule set's `reading` (bmn's by
    default), confirmed by forward play. Seats out in `hands` stay out, except `extra` (out in
    `hands`), which may have been in and gone out in the trick (its hand then the cards it
    laid). The leader holds cards: it took the trick before, or leads a starting deal."""
    returning = () if extra is None else (extra,)
    for (before, leader), _ in seats_predecessors(hands, taker, returning, reading):
        if before[leader]:
            yield before, leader


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
