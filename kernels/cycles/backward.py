"""Backward play for two players: the states one trick earlier, a cycle's basin, preimage deals.

The trick function maps a trick-boundary state (two hands, the seat to lead) to the next one.
Its inverse: the new leader T took the pile, which lies at the bottom of T's hand in the order
laid. For a pile to end a trick it must end with a completed payment, so it ends with a chain
of court cards c_1 < ... < c_m, each lying inside the payment window of the one before, the
last one followed by exactly its value in numerals. Numerals of free play may come before c_1,
back to (not including) the court card before c_1. Every start s of the pile in that range
gives exactly one earlier state: the seat that laid c_1 is fixed by T and the chain's length, so
the seat that led is fixed by the parity of the free-play numerals before it; replaying the
rules tells which seat laid each card, and those cards go back on top of the hands. Each
candidate is confirmed by playing its trick forward.

Every state has one successor, so the states leading into a cycle form trees hanging off the
cycle: breadth-first search over predecessors visits each once, without a visited set.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from bmn.kernels import reference
from bmn.kernels.cycles.loops import BMN, LOOP, Reading, analyse, lay_trick, play_trick
from bmn.kernels.deal import Deal, Hand, format_deal
from bmn.kernels.decks import even_sizes
from bmn.kernels.rules.sets import RuleSet

# Internally a hand is bytes of penalty values (fast to slice, join and hash).
State2 = tuple[bytes, bytes, int]

# Backward play's cost per state grows steeply with the deck (measured on two-seat loops of a J
# against a court card: 100 cards 3 s for the whole basin, 200 cards 18 s, 400 cards past 2
# minutes, 1,000 cards hours), so `bmn preimages` and reaching_deals take two decks at most.
BACKWARD_MAX_CARDS = 104


def _forward(
    h0: bytes, h1: bytes, leader: int, reading: Reading = BMN
) -> tuple[State2, int] | None:
    """One two-player trick (the rules in loops.lay_trick); None if the game ends in it (a seat
    must lay and has none, or the trick leaves the other seat without cards: under a rule set
    that plays on, such a state can only finish, so it leads into no cycle)."""
    taker, laid, pile, out, last = lay_trick((h0, h1), leader, reading)
    if last or any(out):  # with two seats, one out is the game's end
        return None
    rest = [h0[laid[0] :], h1[laid[1] :]]
    if not rest[1 - taker]:
        return None
    rest[taker] += bytes(pile)
    return (rest[0], rest[1], taker), len(pile)


def _predecessors(
    h0: bytes, h1: bytes, taker: int, reading: Reading = BMN
) -> Iterator[tuple[State2, int]]:
    """Every confirmed (state, pile size) whose trick leads to (h0, h1, taker) under `reading`.

    The candidates are bmn's; every rule set's two-seat trick that leads to a state from which
    play goes on is bmn's trick: the readings part only where a hand empties (at once: the game
    ends; play on: the taker holds every card, and that game finishes), so confirming bmn's
    candidates under the rule set leaves exactly its predecessors."""
    mine, other = (h0, h1) if taker == 0 else (h1, h0)
    if not other:  # a trick leaving the other seat empty ends the game
        return
    courts = [p for p, v in enumerate(mine) if v]
    if not courts or courts[-1] + mine[courts[-1]] != len(mine) - 1:
        return
    chain = len(courts) - 1  # index in courts of c_1, the chain's first court card
    while chain > 0 and courts[chain] <= courts[chain - 1] + mine[courts[chain - 1]]:
        chain -= 1
    first_start = courts[chain - 1] + 1 if chain > 0 else 0
    for start in range(first_start, courts[-1] + 1):
        j = next(i for i in range(chain, len(courts)) if courts[i] >= start)
        seat_j = taker ^ ((len(courts) - 1 - j) & 1)
        leader = seat_j ^ ((courts[j] - start) & 1)
        state = _unplay(mine[start:], mine[:start], other, taker, leader)
        step = _forward(*state, reading)
        if step is not None and step[0] == (h0, h1, taker):
            yield state, len(mine) - start


def _unplay(pile: bytes, mine_rest: bytes, other: bytes, taker: int, leader: int) -> State2:
    """Put the pile's cards back on top of the hands that laid them, replaying from `leader`."""
    laid: list[list[int]] = [[], []]
    seat, paying = leader, False
    for card in pile:
        laid[seat].append(card)
        if card:
            seat, paying = 1 - seat, True
        elif not paying:
            seat = 1 - seat
    hands = [b"", b""]
    hands[taker] = bytes(laid[taker]) + mine_rest
    hands[1 - taker] = bytes(laid[1 - taker]) + other
    return hands[0], hands[1], leader


def _to_bytes(hands: Sequence[Sequence[int]], leader: int) -> State2:
    if len(hands) != 2:
        raise ValueError("backward play handles two players")
    return bytes(hands[0]), bytes(hands[1]), leader


@dataclass(frozen=True)
class BasinState:
    """A state leading into a cycle, with the tricks and cards it plays before entering it."""

    hands: tuple[Hand, Hand]
    leader: int
    pre_tricks: int
    pre_cards: int


@dataclass
class BasinSearch:
    """How far a basin search went: states visited, the depth reached, whether it was complete."""

    states: int = 0
    depth: int = 0
    frontier: int = 0
    complete: bool = False


Progress = Callable[[BasinSearch], None]


def basin(
    cycle: Sequence[tuple[Sequence[Sequence[int]], int]],
    max_depth: int | None = None,
    max_states: int | None = None,
    report: BasinSearch | None = None,
    progress: Progress | None = None,
    reading: Reading = BMN,
) -> Iterator[BasinState]:
    """Every state that leads into the cycle, breadth first (by tricks before the cycle), under
    a rule set's `reading`.

    The cycle's own states come first (depth 0). Stops after `max_depth` tricks back or
    `max_states` states; `report` (updated as the search goes) says whether the whole basin
    was visited, `progress` is called once per depth level.
    """
    on_cycle = {_to_bytes(hands, leader) for hands, leader in cycle}
    for (h0, h1, leader), depth, cards in breadth_first(
        sorted(on_cycle),
        lambda state: _predecessors(*state, reading),
        max_depth, max_states, report, progress,
    ):  # fmt: skip
        yield BasinState((tuple(h0), tuple(h1)), leader, depth, cards)


def breadth_first(
    cycle: Sequence[Hashable],
    predecessors: Callable[[Any], Iterable[tuple[Any, int]]],
    max_depth: int | None,
    max_states: int | None,
    report: BasinSearch | None,
    progress: Progress | None,
) -> Iterator[tuple[Any, int, int]]:
    """(state, depth, cards before the cycle) of every state that leads into a cycle (its own
    `cycle` states, in order, first), breadth first by tricks back: `predecessors(state)` gives
    each state a trick leads from into `state`, with that trick's cards. The one basin search
    of two seats and of three or four (backward_seats.py); limits and `report` as `basin`."""
    report = report if report is not None else BasinSearch()
    on_cycle = set(cycle)
    level = [(state, 0) for state in cycle]
    depth, cut = 0, False
    while level:
        report.depth, report.frontier = depth, len(level)
        if progress:
            progress(report)
        nxt: list[tuple[Any, int]] = []
        for state, cards in level:
            if max_states is not None and report.states >= max_states:
                return
            report.states += 1
            yield state, depth, cards
            prevs = [
                (prev, cards + pile)
                for prev, pile in predecessors(state)
                if depth > 0 or prev not in on_cycle
            ]
            if max_depth is not None and depth >= max_depth:
                cut = cut or bool(prevs)
            else:
                nxt.extend(prevs)
        level, depth = nxt, depth + 1
    report.complete = not cut


@dataclass(frozen=True)
class PreimageDeal:
    """A starting deal (seat 0 leads) whose game falls into the cycle, or, when `mirrored`, into
    the cycle with the seats swapped (the same cycle up to seat numbering). With 3 or 4 seats
    (backward_seats.py) `mirrored` means another seating of the cycle, and `cycle_key` names the
    seat-bound cycle the deal falls into; two-seat deals leave it None."""

    deal: Deal
    pre_tricks: int
    pre_cards: int
    mirrored: bool = False
    cycle_key: str | None = None

    def as_dict(self) -> dict:
        out: dict = {
            "deal": format_deal(self.deal),
            "pre_tricks": self.pre_tricks,
            "pre_cards": self.pre_cards,
        }
        if self.mirrored:
            out["mirrored"] = True
        if self.cycle_key is not None:
            out["cycle_key"] = self.cycle_key
        return out


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
    """The starting deals with the given hand sizes (default: the deal's own) whose games fall
    into the same cycle as `deal` under `rules` (None: bmn's), nearest the cycle first, each
    confirmed by forward play and the reference engine under those rules.

    With `mirror`, also the deals that fall into the cycle with the seats swapped: a state of
    the basin with seat 1 to lead, its hands swapped, is such a deal.
    Raises ValueError if the deal does not loop or has other than two hands.
    """
    if len(deal) != 2:
        raise ValueError("backward play handles two players")
    loop = analyse(deal, rules=rules)
    if loop.status != LOOP:
        raise ValueError(f"the deal does not loop: it finishes after {loop.cards} cards")
    sizes = tuple(hand_sizes) if hand_sizes is not None else tuple(len(h) for h in deal)
    reading = Reading.of(rules)
    cycle = [(s.hands, s.leader) for s in loop.states]
    members = {True: {_swap(hands, leader) for hands, leader in cycle}, False: set(cycle)}
    mirror = mirror and members[True] != members[False]  # a cycle may be its own mirror image
    for state in basin(cycle, max_depth, max_states, report, progress, reading):
        found = _as_deal(state, sizes, mirror)
        if found is None:
            continue
        if not _enters(found, members[found.mirrored], rules):
            raise RuntimeError(f"backward play is wrong for {format_deal(found.deal)}")
        yield found


def _swap(hands, leader: int):
    return (hands[1], hands[0]), 1 - leader


def _as_deal(state: BasinState, sizes: tuple[int, ...], mirror: bool) -> PreimageDeal | None:
    """The starting deal a basin state is, if its sizes match and seat 0 leads (or, mirrored,
    seat 1 leads)."""
    hands = state.hands
    if state.leader == 1 and mirror:
        hands, mirrored = (hands[1], hands[0]), True
    elif state.leader == 0:
        mirrored = False
    else:
        return None
    if tuple(len(h) for h in hands) != sizes:
        return None
    return PreimageDeal(hands, state.pre_tricks, state.pre_cards, mirrored)


def _enters(found: PreimageDeal, members: set, rules: str | RuleSet | None = None) -> bool:
    """Forward play confirms the deal reaches the cycle after exactly the stated tricks and cards,
    and the reference engine sees its loop start there (under `rules`)."""
    hands, leader, cards = found.deal, 0, 0
    reading = Reading.of(rules)
    for _ in range(found.pre_tricks):
        step = play_trick(hands, leader, reading)
        if step.finished:
            return False
        hands, leader, cards = step.hands, step.taker, cards + step.cards
    if (hands, leader) not in members or cards != found.pre_cards:
        return False
    ref = reference.play(found.deal, rules=rules)
    return (ref.status, ref.loop_start_tricks, ref.loop_start_cards) == (
        LOOP,
        found.pre_tricks,
        found.pre_cards,
    )


@dataclass(frozen=True)
class CycleSummary:
    """What a store needs to know about a cycle: its names, its period, and whether balanced
    starting deals (an even split, seat 0 first: 26/26) fall into it, as found by backward play."""

    key: str
    rotation_key: str
    period_cards: int
    period_tricks: int
    balanced_states: int
    balanced_deals: int
    mirrored_balanced_deals: int
    example: Deal | None
    basin_states: int
    basin_complete: bool

    def as_dict(self) -> dict:
        out = dict(self.__dict__)
        out["example"] = None if self.example is None else format_deal(self.example)
        return out


def summarise_cycle(
    deal: Sequence[Sequence[int]],
    max_depth: int | None = None,
    max_states: int | None = 100_000,
    rules: str | RuleSet | None = None,
) -> CycleSummary:
    """Describe the cycle a looping two-player deal falls into under `rules`, and count the
    balanced starting deals reaching it (exactly, and with the seats swapped) within the search
    limits (3 or 4 seats: backward_seats.summarise_cycle)."""
    return summarise_with(preimage_deals, deal, max_depth, max_states, rules)


def summarise_with(
    play_back: Callable[..., Iterator[PreimageDeal]],
    deal: Sequence[Sequence[int]],
    max_depth: int | None,
    max_states: int | None,
    rules: str | RuleSet | None = None,
) -> CycleSummary:
    """A cycle's summary under `rules`, its balanced starting deals (even hands round the
    table, seat 0 first) listed by `play_back` (this module's preimage_deals, or
    backward_seats')."""
    loop = analyse(deal, rules=rules)
    sizes = even_sizes(sum(len(h) for h in deal), len(deal))
    report = BasinSearch()
    found = list(play_back(deal, sizes, max_depth, max_states, report, mirror=True, rules=rules))
    exact = [p for p in found if not p.mirrored]
    pick = exact or found
    return CycleSummary(
        key=loop.key or "",
        rotation_key=loop.rotation_key or "",
        period_cards=loop.period_cards or 0,
        period_tricks=loop.period_tricks or 0,
        balanced_states=len(loop.balanced_states),
        balanced_deals=len(exact),
        mirrored_balanced_deals=len(found) - len(exact),
        example=pick[0].deal if pick else None,
        basin_states=report.states,
        basin_complete=report.complete,
    )
