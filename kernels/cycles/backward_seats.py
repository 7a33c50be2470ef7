"""Backward play for 3 and 4 seats, seats going out included: a cycle's basin and its deals.

The two-seat inverse (backward.py) reads the pile's structure off the taker's hand. With more
seats the same pile ends the taker's hand, but who laid each card depends on which seats are in,
and a seat may go out during the trick (docs/rules.md, rules 5 and 6): a seat still in with
no cards goes out when it must lay one, on an ordinary turn (the pile stays) or while paying (the
last court card's seat takes the pile; under Paulhus's reading, the next seat still in pays
the rest). So a state with seat k out has predecessors with seat k still in, holding exactly the
cards it lays in that trick (none, or a few before it runs out).

For every start of the pile in the taker's hand (the range the two-seat inverse uses: a chain of
court cards, each inside the payment window of the one before), every seat that may have led and
every set of the state's out seats that were out already, `_replays` walks the trick's rules over
the pile, branching only where a seat going out in this trick is asked for a card (it lays the
next card, or it has none left and goes out), under the rule set's reading of a seat out while
paying (kernels/cycles/loops.Reading). Each candidate is rebuilt (the cards each seat laid
go back on top of its hand) and confirmed by playing its trick forward with loops.lay_trick, the
rules every forward step shares.

`predecessors` may be told which seats out may come back in (`returning`): the elimination
search (lab/cycles/elimination.py) lets one at a time.

Every state has one successor, so the states leading into a cycle form trees hanging off it, and
breadth-first search visits each once. A cycle's seat-blind name (loops.rotation_key) covers
every seating of the cycle among the seats still in (`seatings`): the deals listed seat-blind are
those falling into any of them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from bmn.kernels.cycles.backward import (
    BasinSearch,
    CycleSummary,
    PreimageDeal,
    Progress,
    _enters,
    breadth_first,
    summarise_with,
)
from bmn.kernels.cycles.backward import preimage_deals as two_seat_preimages
from bmn.kernels.cycles.loops import (
    BMN,
    LOOP,
    Reading,
    State,
    analyse,
    cycle_key,
    lay_trick,
    seats_in_state,
    turn,
)
from bmn.kernels.deal import Deal, Hand, format_deal
from bmn.kernels.rules.sets import RuleSet

# Internally a hand is bytes of penalty values, None once the seat is out.
Bytes = tuple[bytes | None, ...]
StateB = tuple[Bytes, int]


def forward(hands: Bytes, leader: int, reading: Reading = BMN) -> tuple[StateB, int] | None:
    """One trick (loops.lay_trick, under a rule set's `reading`): the next state and the cards
    laid; None if the game ends in it (one seat left, or the taker leaves every other seat
    without cards: under a rule set that plays on, such a state can only finish, so it leads
    into no cycle)."""
    taker, laid, pile, out, last = lay_trick(hands, leader, reading)
    if last:
        return None
    after = tuple(
        None if out[s] else hand[laid[s] :] + (bytes(pile) if s == taker else b"")  # type: ignore[index]
        for s, hand in enumerate(hands)
    )
    if not any(hand for s, hand in enumerate(after) if s != taker):
        return None
    return (after, taker), len(pile)


def _pile_starts(mine: bytes) -> range:
    """Where the taken pile may start in the taker's hand: it ends with the hand's last court
    card and at most its value in numerals (fewer when the payer went out), and before that a
    chain of court cards each inside the payment window of the one before, after free play."""
    courts = [p for p, v in enumerate(mine) if v]
    if not courts or len(mine) - 1 - courts[-1] > mine[courts[-1]]:
        return range(0)
    chain = len(courts) - 1
    while chain > 0 and courts[chain] <= courts[chain - 1] + mine[courts[chain - 1]]:
        chain -= 1
    return range(courts[chain - 1] + 1 if chain > 0 else 0, courts[-1] + 1)


def _next_in(out: Sequence[bool], seat: int) -> int:
    """The next seat after `seat` still in (a plain loop: this is backward play's inner step)."""
    n = len(out)
    seat = (seat + 1) % n
    while out[seat]:
        seat = (seat + 1) % n
    return seat


@dataclass(frozen=True)
class _Trick:
    """What a replay is asked to explain: the pile, its taker, the seats going out in it."""

    pile: bytes
    taker: int
    going: frozenset[int]
    next_pays: bool = False  # Paulhus's reading: a seat out while paying, the next pays on

    def ends(self, pos: int, layer: int, out: Sequence[bool]) -> bool:
        """The trick ends here as it must: its taker takes the whole pile, every going seat out."""
        return layer == self.taker and pos == len(self.pile) and all(out[g] for g in self.going)


def _replays(
    trick: _Trick, seat: int, out: tuple[bool, ...], laid: tuple[bytes, ...]
) -> Iterator[tuple[bytes, ...]]:
    """Every way the rules lay `trick.pile` from `seat` leading: the cards each seat laid."""
    yield from _walk(trick, 0, seat, -1, 0, out, laid)


def _walk(
    trick: _Trick,
    pos: int,
    seat: int,
    layer: int,
    owed: int,
    out: tuple[bool, ...],
    laid: tuple[bytes, ...],
) -> Iterator[tuple[bytes, ...]]:
    """The rules of loops.lay_trick over the pile from card `pos`, `seat` to lay."""
    while out.count(False) > 1:  # one seat left would end the game: no predecessor
        if seat in trick.going and not out[seat]:  # it may hold no more cards: out now
            gone = out[:seat] + (True,) + out[seat + 1 :]
            payer = _next_in(gone, seat)
            if layer >= 0 and trick.next_pays and (payer != layer or gone.count(False) == 1):
                yield from _walk(trick, pos, payer, layer, owed, gone, laid)  # pays the rest
            elif layer >= 0:  # out while paying: the court card's seat takes the pile
                if trick.ends(pos, layer, gone):
                    yield laid
            else:  # out on an ordinary turn: the pile stays
                yield from _walk(trick, pos, _next_in(gone, seat), layer, owed, gone, laid)
        if pos == len(trick.pile):
            return
        card = trick.pile[pos]
        laid = laid[:seat] + (laid[seat] + bytes((card,)),) + laid[seat + 1 :]
        pos += 1
        if card:  # a court card: the next seat pays
            seat, layer, owed = _next_in(out, seat), seat, card
        elif layer >= 0:  # a numeral paid towards the penalty
            owed -= 1
            if owed == 0:
                if trick.ends(pos, layer, out):
                    yield laid
                return
        else:  # a numeral on an ordinary turn
            seat = _next_in(out, seat)


def predecessors(
    hands: Bytes,
    taker: int,
    returning: Collection[int] | None = None,
    reading: Reading = BMN,
) -> Iterator[tuple[StateB, int]]:
    """Every confirmed (state, cards laid) whose trick leads to (hands, taker) under a rule
    set's `reading`. A seat out in `hands` may have been in and gone out in the trick; with
    `returning`, only those seats may (the others were out already)."""
    mine = hands[taker]
    if mine is None or not any(h for s, h in enumerate(hands) if s != taker):
        return  # a trick leaving no other seat any card ends the game
    out_now = [s for s, hand in enumerate(hands) if hand is None]
    stays = frozenset() if returning is None else frozenset(out_now) - frozenset(returning)
    found: set[StateB] = set()
    for start in _pile_starts(mine):
        for already in (a for a in _subsets(out_now) if stays <= a):
            going = frozenset(out_now) - already
            trick = _Trick(mine[start:], taker, going, reading.next_pays)
            out = tuple(s in already for s in range(len(hands)))
            for leader in (s for s in range(len(hands)) if not out[s]):
                for laid in _replays(trick, leader, out, (b"",) * len(hands)):
                    state = _rebuild(hands, trick, mine[:start], out, laid), leader
                    if state in found:
                        continue
                    step = forward(*state, reading)
                    if step is not None and step[0] == (hands, taker):
                        found.add(state)
                        yield state, len(trick.pile)


def _subsets(seats: list[int]) -> Iterator[frozenset[int]]:
    for k in range(len(seats) + 1):
        for chosen in combinations(seats, k):
            yield frozenset(chosen)


def _rebuild(
    hands: Bytes, trick: _Trick, kept: bytes, out: tuple[bool, ...], laid: tuple[bytes, ...]
) -> Bytes:
    """The hands before the trick: each seat's laid cards back on top of what it holds after
    (the taker's hand less the pile; a seat going out held only what it laid)."""
    before: list[bytes | None] = []
    for s, hand in enumerate(hands):
        if out[s]:
            before.append(None)
        elif s in trick.going:
            before.append(laid[s])
        else:
            before.append(laid[s] + (kept if s == trick.taker else hand))  # type: ignore[operator]
    return tuple(before)


@dataclass(frozen=True)
class SeatsBasinState:
    """A state leading into a cycle (None for a seat out), with the tricks and cards it plays
    before entering it."""

    hands: tuple[Hand | None, ...]
    leader: int
    pre_tricks: int
    pre_cards: int


def _to_bytes(hands: Sequence[Sequence[int] | None], leader: int) -> StateB:
    return tuple(None if h is None else bytes(h) for h in hands), leader


def _order(state: StateB) -> tuple:
    """A sort key for states (None sorts before any hand)."""
    hands, leader = state
    return leader, tuple((h is not None, h or b"") for h in hands)


def basin(
    cycles: Sequence[Sequence[State]],
    max_depth: int | None = None,
    max_states: int | None = None,
    report: BasinSearch | None = None,
    progress: Progress | None = None,
    reading: Reading = BMN,
) -> Iterator[SeatsBasinState]:
    """Every state that leads into any of the cycles under a rule set's `reading`, breadth
    first (by tricks before the cycle), the cycles' own states first; limits and report as
    backward.basin (one search: backward.breadth_first)."""
    on_cycle = {_to_bytes(hands, leader) for cycle in cycles for hands, leader in cycle}
    for (hands, leader), depth, cards in breadth_first(
        sorted(on_cycle, key=_order),
        lambda state: predecessors(*state, None, reading),
        max_depth, max_states, report, progress,
    ):  # fmt: skip
        as_tuples = tuple(None if h is None else tuple(h) for h in hands)
        yield SeatsBasinState(as_tuples, leader, depth, cards)


def seatings(cycle: Sequence[State]) -> list[list[State]]:
    """Every seating of the cycle among the seats still in, at a table of the same size: which
    seats are in, and where round them the play starts. Play skips out seats, so each is the
    same game, and all share one seat-blind key; the cycle itself comes first."""
    n = len(cycle[0][0])
    inner = [seats_in_state(hands, leader) for hands, leader in cycle]
    k = len(inner[0][0])
    found: dict[frozenset, list[State]] = {frozenset(cycle): list(cycle)}
    for seats in combinations(range(n), k):
        for shift in range(k):
            states = [_seat(hands, leader, seats, shift, n) for hands, leader in inner]
            found.setdefault(frozenset(states), states)
    return list(found.values())


def _seat(hands: tuple, leader: int, seats: tuple[int, ...], shift: int, n: int) -> State:
    """A state among k seats put at seats `seats` of n: seat seats[m] holds hand m + shift."""
    k = len(hands)
    out: list[Hand | None] = [None] * n
    for m, seat in enumerate(seats):
        out[seat] = hands[(m + shift) % k]
    return tuple(out), seats[(leader - shift) % k]


def play_back(deal: Sequence[Sequence[int]], *args: Any, **kwargs: Any) -> Iterator[PreimageDeal]:
    """The deals reaching `deal`'s cycle, by the search made for its seats (`preimage_deals`'s
    arguments): backward.py's for two seats, this module's for 3 or 4."""
    search = two_seat_preimages if len(deal) == 2 else preimage_deals
    return search(deal, *args, **kwargs)


def preimage_deals(
    deal: Sequence[Sequence[int]],
    hand_sizes: Sequence[int] | None = None,
    max_depth: int | None = None,
    max_states: int | None = None,
    report: BasinSearch | None = None,
    progress: Progress | None = None,
    mirror: bool = False,
    rules: str | RuleSet | None = None,
) -> Iterator[PreimageDeal]:
    """The starting deals (seat 0 leads, every seat in) with the given hand sizes (default: the
    deal's own) whose games fall into the same cycle as `deal` under `rules` (None: bmn's), of
    any number of seats, nearest the cycle first, each confirmed by forward play and the
    reference engine under those rules.

    With `mirror`, also the deals falling into another seating of the cycle (seats renumbered,
    or the cycle among the seats still in put at other seats: one seat-blind key), marked
    `mirrored`; each deal's `cycle_key` names the seat-bound cycle it falls into.
    ValueError if the deal does not loop.
    """
    loop = analyse(deal, rules=rules)
    if loop.status != LOOP or loop.key is None:
        raise ValueError(f"the deal does not loop: it finishes after {loop.cards} cards")
    sizes = tuple(hand_sizes) if hand_sizes is not None else tuple(len(h) for h in deal)
    reading = Reading.of(rules)
    own = [(s.hands, s.leader) for s in loop.states]
    cycles = _unturned(seatings(own)) if mirror else [own]
    members = _members(cycles)
    seen: set[Deal] = set()
    for state in basin(cycles, max_depth, max_states, report, progress, reading):
        found = _as_deal(state, sizes, members, loop.key, mirror, reading)
        if found is None or found.deal in seen:
            continue
        seen.add(found.deal)
        if not _enters(found, members.get(found.cycle_key or "", set()), rules):
            raise RuntimeError(f"backward play is wrong for {format_deal(found.deal)}")
        yield found


def _unturned(cycles: list[list[State]]) -> list[list[State]]:
    """One seating of each set that renumbering the seats round the table links: a deal found
    with seat l to lead is the same game as its turn to seat 0 leading (the two-seat path's
    mirror), so the basin of one seating serves them all."""
    kept: list[list[State]] = []
    known: set[frozenset] = set()
    for states in cycles:
        if frozenset(states) in known:
            continue
        kept.append(states)
        n = len(states[0][0])
        known.update(frozenset(turn(h, ld, r) for h, ld in states) for r in range(n))
    return kept


def _members(cycles: list[list[State]]) -> dict[str, set[State]]:
    """Every seat-bound cycle a deal may fall into, by key: the seatings and their turns."""
    out: dict[str, set[State]] = {}
    for states in cycles:
        for r in range(len(states[0][0])):
            turned = [turn(h, ld, r) for h, ld in states]
            out.setdefault(cycle_key(turned), set(turned))
    return out


def _as_deal(
    state: SeatsBasinState, sizes: tuple[int, ...], members: dict[str, set[State]], own: str,
    mirror: bool, reading: Reading = BMN,
) -> PreimageDeal | None:  # fmt: skip
    """The starting deal a basin state is, turned so its leader is seat 0 (seat-blind), if
    every seat is in and its sizes match; None otherwise."""
    if any(h is None for h in state.hands) or (state.leader and not mirror):
        return None
    hands, _ = turn(state.hands, state.leader, state.leader)
    if tuple(len(h) for h in hands) != sizes:  # type: ignore[arg-type]
        return None
    key = _key_reached(hands, state.pre_tricks, members, reading)
    deal: Deal = tuple(tuple(h) for h in hands)  # type: ignore[arg-type]
    return PreimageDeal(deal, state.pre_tricks, state.pre_cards, key != own, key)


def _key_reached(
    hands: tuple, pre_tricks: int, members: dict[str, set[State]], reading: Reading = BMN
) -> str:
    """The seat-bound key of the cycle a deal enters after `pre_tricks` tricks ('' if none of
    them: _enters then refuses it)."""
    state: State = (hands, 0)
    for _ in range(pre_tricks):
        step = _play(state, reading)
        if step is None:
            return ""
        state = step
    return next((key for key, states in members.items() if state in states), "")


def _play(state: State, reading: Reading = BMN) -> State | None:
    step = forward(*_to_bytes(*state), reading)
    if step is None:
        return None
    (hands, leader), _ = step
    return tuple(None if h is None else tuple(h) for h in hands), leader


def summarise_cycle(
    deal: Sequence[Sequence[int]],
    max_depth: int | None = None,
    max_states: int | None = 100_000,
    rules: str | RuleSet | None = None,
) -> CycleSummary:
    """backward.summarise_cycle for any number of seats: the cycle's names and period under
    `rules`, and the balanced starting deals (even hands round the table, seat 0 first)
    reaching it exactly or in another seating, within the search limits."""
    return summarise_with(preimage_deals, deal, max_depth, max_states, rules)
