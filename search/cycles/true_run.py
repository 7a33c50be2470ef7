"""True N-seat cycles chunk by chunk, for a run loop: what a `bmn search` kind calls.

`TrueRunState` is everything a chunk depends on: the seats, the seed, how many chunks are done
and the cycles found so far (each as a deal on it, the most balanced state). It round-trips
through JSON, so a run can checkpoint after any chunk and resume. `true_chunk` runs one chunk
for a time budget: a hunt over numeral-heavy sub-decks (true_growth.heavy_counts) for half of
it, then growth with backtracking, moves, swaps and jumps (true_growth.grow) from the new
cycles and the largest known, for the rest; it returns the cycles new to the state, which it
adds. The method is the one lab/true_cycles.py measured best (docs/endless-games.md).
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field

from bmn.kernels.deal import parse_deal
from bmn.search.cycles.true_cycles import TrueCycle, true_cycle
from bmn.search.cycles.true_growth import GrowOptions, Growth, grow, heavy_counts, hunt


@dataclass
class TrueRunState:
    """A true-cycle run between chunks (JSON: as_dict / from_dict)."""

    seats: int
    seed: int = 0
    chunks: int = 0
    found: list[str] = field(default_factory=list)  # a deal on each cycle found, in order
    beam: int = 20
    jumps: int = 2000
    grow_from: int = 10  # the largest known cycles each chunk grows from besides its own

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TrueRunState:
        return cls(**data)

    def cycles(self) -> list[TrueCycle]:
        """The cycles found, replayed from their deals."""
        out = [true_cycle(parse_deal(text)) for text in self.found]
        return [c for c in out if c is not None]


def true_chunk(state: TrueRunState, seconds: float) -> list[TrueCycle]:
    """One chunk of `seconds`: the true cycles new to `state`, which it records."""
    rng = random.Random(f"{state.seed}:{state.chunks}")  # each chunk its own stream
    known = state.cycles()
    growth = Growth()
    growth.add(known)  # known cycles are not found again
    before = set(growth.cycles)
    hunt(state.seats, seconds / 2, rng, counts=heavy_counts, growth=growth)
    largest = sorted(known, key=lambda c: -c.cards)[: state.grow_from]
    seeds = [c for k, c in growth.cycles.items() if k not in before] + largest
    grow(seeds, seconds, rng, GrowOptions(beam=state.beam, jumps=state.jumps), growth)
    new = [c for k, c in growth.cycles.items() if k not in before]
    state.found += [c.text() for c in new]
    state.chunks += 1
    return new
