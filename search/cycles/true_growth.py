"""Growing true N-seat cycles (search/cycles/true_cycles.py) toward the standard deck.

Each method runs for a time budget and keeps every true cycle it meets in a `Growth`; the
lab's comparison (lab/true_cycles.py) gives each the same budget and compares the largest.

- `grow`: a pool of cycles by deck size, always working on the largest size with cycles not
  yet tried. A step takes up to `beam` of them and scores every state of each with one card of
  the standard deck's remainder put anywhere (`insertions`). If none is a larger true cycle:
  with `jumps`, that many random insertions of 2 to 4 cards into each (`jumps`); if still
  none, with `moves`, every state with one card moved anywhere, to any seat (`moves`), or
  changed to another value (`swaps`): cycles of the same size to grow from. With `backtrack`,
  when the largest size is used up the pool falls back to the next size down (its untried
  cycles); without, growth stops there (the plain beam that reached 29 and 37 cards before).
  With `jumps`, once every cycle is tried, jumps go on from the three largest sizes met.
- `hunt`: random even deals of random sub-decks of the standard deck, as the loop hunt plays
  them: the true cycles they fall into (what found 37 and 40 cards before); with
  `heavy_counts`, sub-decks of many numerals and few court cards, where the large ones are.

Everything is seeded (random.Random) and single-threaded unless told; `threads` goes to the
kernel.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from bmn.kernels.decks import STANDARD_COUNTS, deck_of, even_sizes
from bmn.search.cycles.true_cycles import Seated, TrueCycle, find_true_cycles


@dataclass
class Growth:
    """What a method met: every true cycle by key, the states scored, the largest over time."""

    cycles: dict[str, TrueCycle] = field(default_factory=dict)
    scored: int = 0
    history: list[tuple[float, int]] = field(default_factory=list)  # (seconds, cards) records
    seen: set[bytes | str] = field(default_factory=set)
    begin: float = field(default_factory=time.perf_counter)

    def elapsed(self) -> float:
        return time.perf_counter() - self.begin

    def best(self) -> TrueCycle | None:
        """The largest cycle met (the most balanced of the largest, then the longest period)."""
        if not self.cycles:
            return None
        return max(self.cycles.values(), key=_rank)

    def add(self, cycles: Iterable[TrueCycle]) -> list[TrueCycle]:
        """Keep the cycles new to this run; the new ones."""
        new = [c for c in cycles if c.key not in self.cycles]
        for c in new:
            if not self.history or c.cards > self.history[-1][1]:
                self.history.append((round(self.elapsed(), 1), c.cards))
            self.cycles[c.key] = c
        return new

    def score(self, candidates: Sequence[Seated], threads: int | None) -> list[TrueCycle]:
        """The new true cycles the candidates fall into."""
        self.scored += len(candidates)
        return self.add(find_true_cycles(candidates, self.seen, threads))


def _rank(c: TrueCycle) -> tuple[int, int, int]:
    hands = c.most_balanced()
    return c.cards, min(map(len, hands)) - max(map(len, hands)), c.period


def _left(cycle: TrueCycle) -> list[int]:
    """The card values the standard deck still has beyond the cycle's."""
    return [v for v, (n, c) in enumerate(zip(STANDARD_COUNTS, cycle.counts, strict=True)) if n > c]


def insertions(cycle: TrueCycle) -> list[Seated]:
    """Every state of the cycle with one card of the standard deck's remainder put anywhere."""
    out = []
    values = _left(cycle)
    for hands in cycle.states:
        for seat, hand in enumerate(hands):
            for at in range(len(hand) + 1):
                for v in values:
                    new = hand[:at] + (v,) + hand[at:]
                    out.append(hands[:seat] + (new,) + hands[seat + 1 :])
    return out


def moves(cycle: TrueCycle) -> list[Seated]:
    """Every state of the cycle with one card taken out and put anywhere else, in any seat
    (every seat keeping a card)."""
    out = []
    for hands in cycle.states:
        for seat, hand in enumerate(hands):
            if len(hand) == 1:
                continue
            for at in range(len(hand)):
                rest = hands[:seat] + (hand[:at] + hand[at + 1 :],) + hands[seat + 1 :]
                for to, other in enumerate(rest):
                    for put in range(len(other) + 1):
                        if to == seat and put == at:
                            continue
                        new = other[:put] + (hand[at],) + other[put:]
                        out.append(rest[:to] + (new,) + rest[to + 1 :])
    return out


def jumps(cycle: TrueCycle, rng: random.Random, n: int, most: int = 4) -> list[Seated]:
    """n random states of the cycle with 2 to `most` cards of the standard deck's remainder
    put in at random places (fewer when the remainder runs out)."""
    out = []
    for _ in range(n):
        hands = list(rng.choice(cycle.states))
        left = [v for v, (d, c) in enumerate(zip(STANDARD_COUNTS, cycle.counts, strict=True))
                for _ in range(d - c)]  # fmt: skip
        for v in rng.sample(left, min(len(left), rng.randint(2, most))):
            seat = rng.randrange(len(hands))
            at = rng.randint(0, len(hands[seat]))
            hands[seat] = hands[seat][:at] + (v,) + hands[seat][at:]
        out.append(tuple(hands))
    return out


def swaps(cycle: TrueCycle) -> list[Seated]:
    """Every state of the cycle with one card changed to another value the standard deck
    still holds (the deck changes, its size does not)."""
    out = []
    values = _left(cycle)
    for hands in cycle.states:
        for seat, hand in enumerate(hands):
            for at, old in enumerate(hand):
                for v in values:
                    if v != old:
                        new = hand[:at] + (v,) + hand[at + 1 :]
                        out.append(hands[:seat] + (new,) + hands[seat + 1 :])
    return out


@dataclass(frozen=True)
class GrowOptions:
    """How `grow` works: cycles taken a step, moves on a step that finds none larger, falling
    back to smaller sizes when the largest is used up, random insertions of 2 to 4 cards a cycle
    on a step that finds none larger, kernel threads."""

    beam: int = 50
    moves: bool = True
    jumps: int = 0
    backtrack: bool = True
    threads: int | None = 1


def grow(
    seeds: Iterable[TrueCycle],
    seconds: float,
    rng: random.Random,
    options: GrowOptions | None = None,
    growth: Growth | None = None,
    steps: int | None = None,
) -> Growth:
    """Grow true cycles from `seeds` for `seconds`, or `steps` steps (see the module's text)."""
    options = options or GrowOptions()
    growth = growth if growth is not None else Growth()
    pool: dict[int, list[TrueCycle]] = {}
    for c in seeds:
        growth.add([c])
        pool.setdefault(c.cards, []).append(c)
    done = 0
    while growth.elapsed() < seconds and (steps is None or done < steps):
        done += 1
        if not pool:  # every cycle tried: random jumps again from the largest, or stop
            if not options.jumps:
                break
            _jump_again(growth, pool, options, rng)
            continue
        size = max(pool)
        batch = _take(pool, size, options.beam, rng)
        grown = _step(growth, batch, options, rng, seconds)
        for c in grown:
            pool.setdefault(c.cards, []).append(c)
        if not options.backtrack:  # the frontier only: smaller sizes are given up
            pool = {k: v for k, v in pool.items() if k >= max(pool, default=0)}
    return growth


def _step(
    growth: Growth, batch: list[TrueCycle], options: GrowOptions, rng: random.Random, seconds: float
) -> list[TrueCycle]:
    """One step on a batch: insertions; if none larger, jumps; if none, moves and swaps."""
    grown = growth.score([s for c in batch for s in insertions(c)], options.threads)
    if not grown and options.jumps and growth.elapsed() < seconds:
        tries = [s for c in batch for s in jumps(c, rng, options.jumps)]
        grown = growth.score(tries, options.threads)
    if not grown and options.moves and growth.elapsed() < seconds:
        sideways = [s for c in batch for s in moves(c) + swaps(c)]
        grown = growth.score(sideways, options.threads)
    return grown


def _jump_again(
    growth: Growth, pool: dict[int, list[TrueCycle]], options: GrowOptions, rng: random.Random
) -> None:
    """Fresh random jumps from the cycles of the three largest sizes met; the cycles they
    find go into the pool."""
    sizes = sorted({c.cards for c in growth.cycles.values()})[-3:]
    top = [c for c in growth.cycles.values() if c.cards in sizes]
    picked = rng.sample(top, min(len(top), options.beam))
    tries = [s for c in picked for s in jumps(c, rng, options.jumps)]
    for c in growth.score(tries, options.threads):
        pool.setdefault(c.cards, []).append(c)


def _take(pool: dict[int, list[TrueCycle]], size: int, n: int, rng: random.Random) -> list:
    """Up to n untried cycles of `size`, drawn at random; the size leaves the pool when empty."""
    cycles = pool[size]
    rng.shuffle(cycles)
    batch, pool[size] = cycles[:n], cycles[n:]
    if not pool[size]:
        del pool[size]
    return batch


def random_counts(rng: random.Random, seats: int) -> tuple[int, ...]:
    """A random sub-deck of the standard deck, large enough for every seat to hold cards."""
    while True:
        counts = (rng.randint(0, 36),) + tuple(rng.randint(0, 4) for _ in range(4))
        if sum(counts[1:]) and sum(counts) >= 2 * seats:
            return counts


def heavy_counts(rng: random.Random, seats: int) -> tuple[int, ...]:
    """A random sub-deck of 24 to 36 numerals and `seats` - 1 to 2 * `seats` court cards (the
    large true cycles hunts find hold few court cards: 37 cards with 3, 40 with 4)."""
    courts = [0, 0, 0, 0]
    for _ in range(rng.randint(seats - 1, 2 * seats)):
        value = rng.randrange(4)
        courts[value] = min(4, courts[value] + 1)
    return (rng.randint(24, 36), *courts)


def hunt(
    seats: int,
    seconds: float,
    rng: random.Random,
    deals: int = 20_000,
    counts: Callable[[random.Random, int], tuple[int, ...]] = random_counts,
    threads: int | None = 1,
    growth: Growth | None = None,
    batches: int | None = None,
) -> Growth:
    """The true cycles random even deals of random sub-decks (drawn by `counts`) fall into,
    for `seconds` (or `batches` batches of `deals`, one sub-deck each)."""
    growth = growth if growth is not None else Growth()
    done = 0
    while growth.elapsed() < seconds and (batches is None or done < batches):
        done += 1
        deck = list(deck_of(counts(rng, seats)))
        sizes = even_sizes(len(deck), seats)
        batch = []
        for _ in range(deals):
            rng.shuffle(deck)
            batch.append(_cut(deck, sizes))
        growth.score(batch, threads)
    return growth


def _cut(cards: Sequence[int], sizes: Sequence[int]) -> Seated:
    ends = np.cumsum(sizes).tolist()
    return tuple(tuple(cards[e - n : e]) for n, e in zip(sizes, ends, strict=True))
