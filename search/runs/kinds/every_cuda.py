"""Every deal of a deck on an NVIDIA GPU, as a kind of run: `bmn search --strategy every
--device cuda`.

The enumeration of search/runs/kinds/every_base.py with one stream, the GPU: each chunk is a
range of ranks scored by search/enumeration/cuda.py's kernel over every device thread (a contiguous
slice each, unranked once, then stepped), and what a chunk returns is what a CPU chunk of the same
ranks returns (the same deals visited, best deal, finds and loops), so the store, the
checkpoint (the next rank), resume, progress and summary are the CPU enumeration's. A GPU run
and a CPU run of the same range store the same results.

Every rule set that plays two seats (kernels/rules/sets.py): the kernel is compiled for it on
first use. Two seats, and decks whose ranks fit in 63 bits (the 40-card Italian deck's do, the
standard deck's do not). search/enumeration/cuda.py needs CUDA to import, so it is imported inside
the functions here.
"""

from __future__ import annotations

from dataclasses import dataclass

from bmn.kernels.decks import DeckInputError, counts_text
from bmn.kernels.ranks import arrangements
from bmn.search.runs.kinds.every_base import (
    CHUNK_FINDS,
    ChunkFinds,
    EveryBase,
    EveryOptions,
    EveryState,
    chunk_result,
)
from bmn.search.runs.kinds.every_shown import EveryProgress
from bmn.search.runs.kinds.on_gpu import OnGpu

MAX_RANKS = 2**63 - 1  # ranks are int64 on the device (search/enumeration/cuda.py)


def check_device_input(counts: tuple[int, ...], sizes: tuple[int, ...]) -> None:
    """What the GPU takes beyond every deal's deck, hands and ranks (every_base.check_input):
    two hands, ranks within 63 bits; DeckInputError naming the option otherwise."""
    if len(sizes) != 2:
        why = f"gives {len(sizes)} hands; the GPU enumeration plays two seats"
        raise DeckInputError("hand_sizes", why)
    total = arrangements(counts)
    if total > MAX_RANKS:
        raise DeckInputError(
            "deck",
            f"the deck {counts_text(counts)} has {total:.3g} deals; ranks on the GPU fit in 63"
            f" bits ({MAX_RANKS:.3g} deals at most): enumerate it on the CPU",
        )


@dataclass
class EveryCudaOptions(EveryOptions):
    """An enumeration on a GPU: one stream (the GPU), each chunk a launch over `device_threads`
    threads (0 when planned: every thread the GPU keeps resident, counted by the job's
    `prepare`)."""

    workers: int = 1
    device_threads: int = 0
    device: str = "cuda"

    def __post_init__(self) -> None:
        self.workers = 1  # the run loop's one stream: the GPU
        super().__post_init__()  # its deck, hands and ranks checked as every deal's
        check_device_input(self.counts, self.hand_sizes)


def cuda_every_chunk(
    stream: int, chunk: int, state: EveryState, options: EveryCudaOptions, iterations: int
) -> tuple[EveryState, ChunkFinds, int]:
    """One chunk (see bmn.search.backends.base): `iterations` ranks from `state.next` scored on
    the GPU; what every.every_chunk returns for the same ranks."""
    from bmn.search.enumeration.cuda import score_range

    objective = 1 if options.objective == "tricks" else 0
    seen = score_range(
        state.next, iterations, options.counts, options.hand_sizes, objective,
        options.keep_above, options.device_threads, CHUNK_FINDS, rules=options.rules,
    )  # fmt: skip
    return chunk_result(state, options, seen)


def warm_cuda_every(rules: str | None = None) -> None:
    """Compile (or load from the cache) the enumeration kernel under `rules` before the clock
    starts."""
    from bmn.search.enumeration.cuda import warm

    warm(rules)


@dataclass
class EveryCudaProgress(EveryProgress):
    """The enumeration's display, its one stream named as what it is: the GPU's threads."""

    device_threads: int = 0

    def setting(self) -> str:
        return (
            f"every deal of {self.deck}, hands {self.sizes}, on the GPU,"
            f" {self.device_threads:,} device threads"
        )


class EveryCudaJob(OnGpu, EveryBase):
    """One enumeration on the GPU: `RunLoop(store, EveryCudaJob, options)`, as every.EveryJob;
    its chunks run on a thread of this process that feeds the GPU."""

    kind = "every-cuda"
    options_type = EveryCudaOptions
    progress_type = EveryCudaProgress
    work = staticmethod(cuda_every_chunk)
    warm = staticmethod(warm_cuda_every)

    @staticmethod
    def resident(options: EveryCudaOptions) -> int:
        from bmn.search.enumeration.cuda import resident_threads

        return resident_threads(rules=options.rules)

    def new_progress(self) -> EveryCudaProgress:
        p = super().new_progress()
        p.device_threads = self.options.device_threads
        return p
