"""Every deal of a deck, in rank order, on the CPU: the run behind `bmn search --strategy
every` (what it shares with the GPU enumeration, every_cuda.py, is in every_base.py).

Each stream walks its slice of ranks in chunks of about a second, each chunk a rank range
(`every_chunk`: one unrank, then compiled steps, search/enumeration/cpu.py)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from bmn.kernels.ranks import unrank
from bmn.search.runs.kinds.every_base import (
    CHUNK_FINDS,
    ChunkFinds,
    EveryBase,
    EveryOptions,
    EveryState,
    chunk_result,
)
from bmn.search.runs.kinds.every_shown import EveryProgress
from bmn.search.runs.progress import cpu_kernels


def every_chunk(
    stream: int, chunk: int, state: EveryState, options: EveryOptions, iterations: int
) -> tuple[EveryState, ChunkFinds, int]:
    """One chunk (see bmn.search.backends.base): `iterations` ranks from `state.next`, one
    unrank, then compiled steps; the stream's new state, what it kept, the deals visited."""
    from bmn.search.enumeration.cpu import score_run

    sizes = np.array(options.hand_sizes, dtype=np.int64)
    objective = 1 if options.objective == "tricks" else 0
    start = unrank(state.next, options.counts)
    seen = score_run(
        start, sizes, iterations, objective, options.keep_above, CHUNK_FINDS, options.rules
    )
    return chunk_result(state, options, seen)


def warm_every(rules: str | None = None, seats: int | None = None) -> None:
    """Compile (or load from cache) the enumeration loop for `seats` seats (None: every seat
    count), under `rules`."""
    from bmn.search.enumeration.cpu import warm_visit

    warm_visit(rules, seats)


class EveryJob(EveryBase):
    """One enumeration on the CPU: its streams are --workers slices of the range."""

    kind = "every"
    work = staticmethod(every_chunk)
    warm = staticmethod(warm_every)
    streams_per_worker = True  # one per core, or per worker thread of a cluster

    def warm_call(self) -> Callable[[], object]:
        return functools.partial(self.warm, self.options.rules, self.options.players)

    def new_progress(self) -> EveryProgress:
        p = super().new_progress()
        p.kernel = cpu_kernels(self.run.backend.name)
        return p
