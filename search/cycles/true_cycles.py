"""True N-seat cycles: cycles in which every seat keeps cards for ever, and how to name them.

A game *falls into a true cycle* when it loops (a trick-boundary state repeats) and, from the
cycle's first state on, every seat holds at least one card at every trick boundary. No seat
is then ever asked to lay a card it does not hold (a seat asked with none goes out and stays
out, so it would be empty at the next boundary), and that is the only point on which the
readings of the rules differ with 3 or 4 seats (kernels/rules/sets.py: who pays when a seat runs
out while paying, and when an empty seat is out). So a true cycle plays the same under every
reading. `is_true_cycle` is this definition on the reference engine's trace; `true_cycle`
gives the cycle itself (the kind ALL_IN of kernels/cycles/loops.analyse); `strict` also asks that no
seat's hand is ever empty in the middle of a trick (a seat laying its last card and taking the
pile), which the `at-once` reading of an empty hand would end.

`find_true_cycles` scores many candidate states at once with the compiled N-seat kernel
(kernels/score.py), names each loop by the kernel's cycle id, and analyses only the loops new
to the caller (the id's first word is the cycle's seats out: a reduced cycle costs nothing
more): the growth methods (search/cycles/true_growth.py) call it for every batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP, lay_trick, play_trick
from bmn.kernels.deal import Hand, format_hand
from bmn.kernels.decks import counts_of

# A trick-boundary state seated from its leader: seat 0 leads, every seat in.
Seated = tuple[Hand, ...]


def is_true_cycle(deal: Sequence[Sequence[int]], rules: str | None = None) -> bool:
    """Whether the deal's game loops with every seat holding cards at every trick boundary of
    the cycle, by the reference engine's trace (the hand sizes after every trick), under the
    rule set `rules` (None: bmn's)."""
    result = reference.play(deal, trace=True, rules=rules)
    if result.status != LOOP or result.trace is None:
        return False
    start, period = result.loop_start_tricks or 0, result.period_tricks or 0
    on_cycle = result.trace[start : start + period]
    return len(on_cycle) == period and all(min(t.hand_sizes) > 0 for t in on_cycle)


@dataclass(frozen=True)
class TrueCycle:
    """A true cycle: its seat-blind key and every state on it, seated from its leader, in play
    order (state i + 1 follows state i; the last is followed by the first)."""

    key: str  # the smallest state (seated from its leader): the same whatever the seating
    states: tuple[Seated, ...]

    @property
    def seats(self) -> int:
        return len(self.states[0])

    @property
    def cards(self) -> int:
        return sum(len(h) for h in self.states[0])

    @property
    def period(self) -> int:
        """Tricks until a state comes back seated from its leader: the cycle's period, or a
        fraction of it when the cycle returns with the seats rotated (J--/-J-/-J-: 1 of 3)."""
        return len(self.states)

    @property
    def counts(self) -> tuple[int, ...]:
        """The composition: numerals, J, Q, K, A."""
        return counts_of(v for h in self.states[0] for v in h)

    def most_balanced(self) -> Seated:
        """The state whose hands differ least in size (the first such in play order)."""
        return min(self.states, key=lambda s: max(map(len, s)) - min(map(len, s)))

    def text(self) -> str:
        """The most balanced state as a deal (seat 0 leads): it falls into the cycle at once."""
        return "/".join(format_hand(h) for h in self.most_balanced())


def true_cycle(deal: Sequence[Sequence[int]]) -> TrueCycle | None:
    """The true cycle the deal falls into, or None (it finishes, or a seat goes out first).

    Played trick by trick (loops.play_trick) to the first repeated state. States are kept
    seated from the leader, which renumbering the seats round the table leaves alone, so the
    smallest of them names the cycle seat-blind (as loops.rotation_key does, more cheaply)."""
    hands: Seated = tuple(tuple(int(v) for v in h) for h in deal)
    seen: dict[Seated, int] = {}
    path: list[Seated] = []
    while hands not in seen:
        if not all(hands):
            return None  # a seat with no cards goes out when next asked: not all in
        seen[hands] = len(path)
        path.append(hands)
        step = play_trick(hands, 0)
        if step.finished or any(h is None for h in step.hands):
            return None
        after = tuple(h for h in step.hands if h is not None)
        hands = after[step.taker :] + after[: step.taker]
    states = tuple(path[seen[hands] :])
    return TrueCycle("/".join(format_hand(h) for h in min(states)), states)


def strict(cycle: TrueCycle) -> bool:
    """Whether no seat's hand is ever empty on the cycle, in the middle of a trick too."""
    for hands in cycle.states:
        _, laid, _, _, _ = lay_trick(hands, 0)
        if any(n >= len(h) for n, h in zip(laid, hands, strict=True)):
            return False
    return True


def holds_under(deal: Sequence[Sequence[int]]) -> list[str]:
    """The rule sets bmn ships, of those that play the deal's seats, under which the deal falls
    into a true cycle (every one, for a deal on a true cycle)."""
    from bmn.kernels.rules.sets import RULE_SETS

    seats = len(deal)
    return [n for n, r in RULE_SETS.items() if r.plays(seats) and is_true_cycle(deal, n)]


def _rows(states: Sequence[Seated]) -> tuple[np.ndarray, np.ndarray]:
    """Candidates of one seat count as the kernel's rows (padded to the longest) and sizes."""
    flats = [sum(s, ()) for s in states]
    sizes = np.array([[len(h) for h in s] for s in states], dtype=np.int64)
    width = max(map(len, flats))
    if all(len(f) == width for f in flats):
        return np.array(flats, dtype=np.uint8), sizes
    rows = np.zeros((len(states), width), dtype=np.uint8)
    for i, flat in enumerate(flats):
        rows[i, : len(flat)] = flat
    return rows, sizes


def find_true_cycles(
    candidates: Sequence[Seated],
    seen: set[bytes | str],
    threads: int | None = 1,
    batch: int = 100_000,
) -> list[TrueCycle]:
    """The true cycles the candidate states (one seat count, seat 0 to lead, at most 64 cards)
    fall into, each once, in the order first met. `seen` takes every kernel cycle id met (true or
    not: seat-bound) and every true cycle's seat-blind key, and skips those it holds already.
    Loops into cycles with seats out are skipped."""
    from bmn.kernels.config import LOOP as LOOP_CODE  # compiled: imported when used
    from bmn.kernels.cpu.cycle_ids import cycle_ids
    from bmn.kernels.score import score

    found: list[TrueCycle] = []
    for part in range(0, len(candidates), batch):
        chunk = candidates[part : part + batch]
        rows, sizes = _rows(chunk)
        scores = score(rows, sizes, threads=threads)
        loops = np.flatnonzero(scores.status == LOOP_CODE)
        if not len(loops):
            continue
        start, period = scores.loop_start_tricks[loops], scores.period_tricks[loops]
        ids = cycle_ids(rows, sizes, loops, start, period)
        for i, cid in zip(loops.tolist(), ids, strict=True):
            name = cid.tobytes()
            if cid[0] or name in seen:  # word 0: the seats out on the cycle
                continue
            seen.add(name)
            cycle = true_cycle(chunk[i])
            if cycle is not None and cycle.key not in seen:
                seen.add(cycle.key)
                found.append(cycle)
    return found
