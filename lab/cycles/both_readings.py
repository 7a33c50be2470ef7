"""Endless deals under both readings of a seat out while paying: bmn's (the court card's seat
takes the pile) and Paulhus's (the seat drops out and the next seat still in pays the rest).

The two readings part only at a trick in which a seat goes out while paying and a seat other
than the court card's still holds cards (kernels/rules/sets.py, `out_while_paying`; else the game
ends at that trick under both, and two seats play alike under every reading). So a deal whose
game, under bmn's rules, reaches its two-seat cycle without such a trick plays trick for trick
alike under both, and never ends under either. The converse fails: a deal may part the
readings and still loop under both, into other cycles (the `filter` route finds those).

`search` is the elimination search (lab/cycles/elimination.py: backward, best first, from a
two-seat cycle as the other seats come back in), told to refuse a predecessor whose trick has a
seat going out while paying (`alike=True`): a seat goes out only on an ordinary turn, and every
deal it builds plays alike under both readings. With `alike=False` it is the elimination search
itself (the same states in the same order), the route that filters its finds afterwards.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bmn.kernels import reference
from bmn.kernels.cycles.loops import Reading, lay_trick
from bmn.kernels.deal import Deal
from lab.cycles.elimination import Reach, State, imbalance, predecessors, seated

READINGS = ("bmn", "paulhus")


@dataclass
class BothReach(Reach):
    """elimination.Reach, and whether the search visited every state it could reach (then the
    deals are every one falling into the cycle this way, not those found in the time)."""

    complete: bool = False


def parts_readings(hands: Sequence[Sequence[int] | None], leader: int) -> bool:
    """Whether the trick from this state, played by bmn's rules, is one the readings play
    differently: a seat goes out while paying (the last court card is followed by fewer
    numerals than its value) and a seat other than the taker still holds cards, so that under
    Paulhus's reading a seat lays more (else both readings end the game at this trick)."""
    taker, laid, pile, out, last = lay_trick(hands, leader)
    if last:
        return False
    courts = [p for p, v in enumerate(pile) if v]
    if len(pile) - 1 - courts[-1] >= pile[courts[-1]]:
        return False  # the penalty paid in full
    held = (s for s, h in enumerate(hands) if not out[s] and s != taker)
    return any(len(hands[s]) > laid[s] for s in held)  # type: ignore[arg-type]


def plays_alike(deal: Sequence[Sequence[int]]) -> bool:
    """Whether the deal's game, under bmn's rules, never has a trick that parts the readings
    before it ends or repeats (then both readings play it trick for trick alike)."""
    hands: tuple = tuple(tuple(h) for h in deal)
    leader, seen = 0, set()
    while (hands, leader) not in seen:
        seen.add((hands, leader))
        if parts_readings(hands, leader):
            return False
        taker, laid, pile, out, last = lay_trick(hands, leader)
        if last:
            return True
        hands = tuple(
            None if out[s] else h[laid[s] :] + (tuple(pile) if s == taker else ())
            for s, h in enumerate(hands)
        )
        if not any(h for s, h in enumerate(hands) if s != taker):
            return True
        leader = taker
    return True


def outcomes(deal: Deal) -> dict[str, reference.Result]:
    """The reference engine's game of the deal under each reading."""
    return {rules: reference.play(deal, rules=rules) for rules in READINGS}


def search(
    cycle: Sequence[tuple[Sequence[Sequence[int]], int]],
    seats: int,
    sizes: Sequence[int],
    seconds: float,
    max_states: int | None = None,
    two_seat_basin: Sequence[tuple[Sequence[Sequence[int]], int]] = (),
    alike: bool = True,
    rules: str = "bmn",
) -> BothReach:
    """elimination.search, refusing (with `alike`) every predecessor whose trick parts the
    readings, so each deal found plays alike under both; `Reach.deals` as there. `rules`: the
    reading backward play undoes (bmn's, or Paulhus's: then, without `alike`, every deal found
    loops under Paulhus's reading, whether or not it does under bmn's)."""
    reading = Reading.of(rules)
    begin = time.perf_counter()
    reach = BothReach()
    heap: list[tuple[int, int, State]] = []
    seen: set[State] = set()
    order = itertools.count()
    for state in _starts(cycle, two_seat_basin, seats):
        if state not in seen:
            seen.add(state)
            heapq.heappush(heap, (imbalance(*state, sizes), next(order), state))
    while heap:
        if time.perf_counter() - begin > seconds or (max_states and reach.states >= max_states):
            break
        gap, _, (hands, leader) = heapq.heappop(heap)
        reach.states += 1
        if gap < reach.best_gap:
            reach.best_gap, reach.best = gap, (hands, leader)
        if gap == 0:
            if seated(hands, leader) not in reach.deals:
                reach.deals.append(seated(hands, leader))
            continue
        outs = [s for s, h in enumerate(hands) if h is None]
        for extra in outs or [None]:
            for prev in predecessors(hands, leader, extra, reading):
                if prev in seen or (alike and parts_readings(*prev)):
                    continue
                seen.add(prev)
                heapq.heappush(heap, (imbalance(*prev, sizes), next(order), prev))
    reach.complete = not heap
    reach.seconds = time.perf_counter() - begin
    return reach


def _starts(
    cycle: Sequence[tuple[Sequence[Sequence[int]], int]],
    basin: Sequence[tuple[Sequence[Sequence[int]], int]],
    seats: int,
) -> list[State]:
    """The two-seat states at any two seats either way round, the other seats out (as
    elimination.search seeds its search)."""
    out: list[State] = []
    for hands2, leader2 in [*cycle, *basin]:
        for a, b in itertools.permutations(range(seats), 2):
            hands: list[bytes | None] = [None] * seats
            hands[a], hands[b] = bytes(hands2[0]), bytes(hands2[1])
            out.append((tuple(hands), a if leader2 == 0 else b))
    return out
