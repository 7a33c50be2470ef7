"""The longest-game search on an NVIDIA GPU, as a kind of run held by the run loop.

The run loop (search/runs/loop.py) sees one stream: the GPU. Each of its chunks is a launch
(or a few) of search/strategies/cuda/'s search kernel over every device thread, and each device
thread is a search stream of its own, the twin of a CPU worker: device stream t of a run
plays exactly the deals worker t of a CPU run with the same seed, strategy and stream count
plays (`bmn search --workers N`), so the two find the same best deal and the same long deals.

A chunk brings every device stream to the same count of games (its rounds; with --iterations
the last round is short for the streams past the remainder, as the CPU workers' quotas), so
where each stream stands depends on the rounds played, never on how they were cut into chunks:
the checkpoint, every device stream's state in one blob (generator, current and best deal,
counters), resumes a run exactly, and a seed with --iterations reproduces it. Finds (deals of
at least keep_above cards, and proven loops) come back from the device and are stored through
the same store call as the CPU search's; the run's best deal is stored as a find too.

search/strategies/cuda/ needs CUDA to import, so it is imported inside the functions here.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from bmn.kernels.config import STATUS_NAMES
from bmn.kernels.cuda.env import THREADS_PER_BLOCK
from bmn.kernels.deal import deal_text
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.records.store import Find
from bmn.search.backends.base import Result
from bmn.search.runs.chunks import sized_chunk, stream_quotas
from bmn.search.runs.job import OptionValueError, rules_for
from bmn.search.runs.kinds.longest_base import COMMIT_FINDS, LongestBase, LongestProgress, RunBest
from bmn.search.runs.kinds.on_gpu import OnGpu
from bmn.search.runs.registry import KINDS
from bmn.search.runs.settings import KEEP_ABOVE

if TYPE_CHECKING:
    from bmn.search.strategies.cuda.streams import LaunchFinds, Streams

DEVICE_STRATEGIES = KINDS["longest-cuda"].strategies  # what search/strategies/cuda/ plays
FIRST_ROUNDS = 16  # games per device stream in a run's first chunk, before its rate is known
CHUNK_SECONDS = 1.0
# A checkpoint holds about 200 bytes per device thread (tens of MB on a large GPU), so a GPU
# run commits less often than a CPU run: a crash loses at most this many seconds.
COMMIT_SECONDS = 10.0


@dataclass
class LongestCudaOptions:
    """Everything that defines a GPU run; stored with it so `--resume` needs nothing else."""

    strategy: str = "walk"
    objective: str = "cards"
    seconds: float | None = None
    iterations: int | None = None
    device_threads: int = THREADS_PER_BLOCK  # one search stream each
    rules: str = (
        DEFAULT_RULES  # a rule set's name (kernels/rules/sets.py); runs stored before: bmn's
    )
    seed: int = field(default_factory=lambda: secrets.randbits(62))
    keep_above: int = KEEP_ABOVE
    device: str = "cuda"  # stored with the run: how store migration 5 told a GPU run's kind

    def __post_init__(self) -> None:
        if self.strategy not in DEVICE_STRATEGIES:
            raise OptionValueError(
                "strategy",
                f"strategy {self.strategy!r} does not run on the GPU; choose"
                f" {' or '.join(DEVICE_STRATEGIES)}",
            )
        block_size(self.device_threads)
        self.rules = rules_for(self.rules, 2)

    # Stored as `workers` before it took --device-threads' own name.
    RENAMED: ClassVar[dict[str, str]] = {"workers": "device_threads"}

    @property
    def workers(self) -> int:
        """The run loop's streams: one a device thread."""
        return self.device_threads


@dataclass
class LongestCudaProgress(LongestProgress):
    """The search's display, its streams named as what they are: GPU threads."""

    def setting(self) -> str:
        return f"{self.strategy} on the GPU, {self.workers:,} device threads, seed {self.seed}"


def block_size(streams: int) -> int:
    """Threads per block for `streams` device streams: all of them up to THREADS_PER_BLOCK,
    else THREADS_PER_BLOCK, which must then divide them (one stream per thread)."""
    if streams < 1 or (streams > THREADS_PER_BLOCK and streams % THREADS_PER_BLOCK):
        raise OptionValueError(
            "device_threads",
            f"{streams} device threads: expected 1 to {THREADS_PER_BLOCK} or a multiple of"
            f" {THREADS_PER_BLOCK}",
        )
    return min(streams, THREADS_PER_BLOCK)


def quotas(options: LongestCudaOptions) -> np.ndarray | None:
    """Each device stream's games over the whole run (None: until the time is up), split as
    the CPU search splits iterations between its workers."""
    return stream_quotas(options.iterations, options.workers)


def rounds(streams: Streams) -> int:
    """The rounds a run's streams have played: the most games of any stream (the others are
    there too, or at their quota)."""
    from bmn.search.strategies.cuda.streams import GAMES

    return int(streams.counters[:, GAMES].max())


def cuda_chunk(
    stream: int, chunk: int, state: Streams, options: LongestCudaOptions, iterations: int
) -> tuple[Streams, LaunchFinds, int]:
    """One chunk of a GPU run (see bmn.search.backends.base): `iterations` more rounds, every device
    stream brought to the same count of games (or to its quota); the new streams (`state` is
    left untouched), their finds and the rounds played."""
    from bmn.search.strategies.cuda.host import DeviceSearch

    targets = np.full(len(state), rounds(state) + iterations, dtype=np.int64)
    quota = quotas(options)
    if quota is not None:
        targets = np.minimum(targets, quota)
    search = DeviceSearch(
        state,
        options.strategy,
        options.objective,
        options.keep_above,
        threads_per_block=block_size(options.workers),
        backlog=False,  # a set number of games per stream: reproducible
        rules=options.rules,
    )
    finds = search.run_to(targets)
    return search.streams(), finds, iterations


def warm_cuda(rules: str | None = None) -> None:
    """Compile (or load from the cache) both search kernels under `rules` before the clock
    starts."""
    from bmn.kernels.cuda.two import SIMULATED
    from bmn.search.strategies.cuda.host import NO_LIMIT, DeviceSearch
    from bmn.search.strategies.cuda.kernels import MODES
    from bmn.search.strategies.cuda.streams import Streams

    if SIMULATED:  # the simulator compiles nothing
        return
    for mode in MODES:
        streams = Streams.new(0, 32)
        DeviceSearch(streams, mode, keep_above=NO_LIMIT, threads_per_block=32, rules=rules).run(1)


class LongestCudaJob(OnGpu, LongestBase):
    """One GPU run: start it new or resume it, then `run()` until done or stopped.

    `RunLoop(store, LongestCudaJob, options)`, as longest.LongestJob. The run loop's one
    stream is the GPU; its quota (the loop's stream 0) is device stream 0's, the largest, so a
    chunk's rounds never pass it.
    """

    kind = "longest-cuda"
    options_type = LongestCudaOptions
    progress_type = LongestCudaProgress
    work = staticmethod(cuda_chunk)
    warm = staticmethod(warm_cuda)

    @staticmethod
    def resident(options: LongestCudaOptions) -> int:
        from bmn.search.strategies.cuda.host import resident_threads

        return resident_threads(mode=options.strategy, rules=options.rules)

    @property
    def streams(self) -> int:
        return 1  # the GPU

    @property
    def games(self) -> int:
        from bmn.search.strategies.cuda.streams import GAMES

        return int(self.state.counters[:, GAMES].sum())

    @property
    def seats(self) -> int:
        return 2

    def commit_seconds(self) -> float:
        return COMMIT_SECONDS

    def commit_due(self, saved: float) -> bool:
        return super().commit_due(saved) or sum(len(f[2]) for f in self._finds) >= COMMIT_FINDS

    def restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        from bmn.records.store.saved import array_state
        from bmn.search.strategies.cuda.streams import Streams

        self.state = Streams.new(self.options.seed, self.options.workers)
        if 0 in checkpoints:  # checked against a fresh state by the store (StoreDamaged)
            array_state(checkpoints[0][0], vars(self.state), permuted=("deck", "best"))
            self.state = Streams.from_bytes(checkpoints[0][0])

    def stream_games(self, stream: int) -> int:
        return rounds(self.state)

    def stream_state(self, stream: int) -> Streams:
        return self.state

    def _sized(
        self, rate: float | None, left: int | None, deadline: float | None, ahead: float
    ) -> int:
        """Rounds for the next chunk: about CHUNK_SECONDS of work."""
        return sized_chunk(
            rate, left, deadline, ahead, first=FIRST_ROUNDS, least=1, seconds=CHUNK_SECONDS
        )

    def _hand_sizes(self) -> tuple[int, ...]:
        from bmn.search.strategies.cuda.streams import HAND

        return (HAND, HAND)

    def absorb(self, result: Result) -> None:
        from bmn.search.strategies.cuda.streams import F_CARDS, F_STATUS, F_TRICKS

        meta = result.finds.figures[:, [F_CARDS, F_TRICKS, F_STATUS]]
        self._finds.append((0, self.games, result.finds.decks, meta))  # keyed by games before
        self.state = result.state

    def _checkpoint_rows(self, seconds: float) -> list[tuple[int, bytes, int, float]]:
        return [(0, self.state.to_bytes(), self.games, seconds)]

    def _best_finds(self, best: RunBest, seconds: float) -> list[Find]:
        """The run's best deal is stored as a find: the device keeps only long deals."""
        strategy = self.options.strategy
        return [Find(best.deal, best.cards, best.tricks, best.status, strategy, seconds)]

    def _best(self) -> RunBest | None:
        """The best score of any stream and its deal, replayed by the CPU kernel (its status
        too: a loop may score best); None before any game."""
        from bmn.kernels.score import score
        from bmn.search.strategies.cuda.streams import BEST, HAND

        t = self.state.best_stream()
        if self.state.counters[t, BEST] < 0:
            return None
        row = self.state.best[t]
        got = score(row[None, :], np.array([[HAND, HAND]]))
        status = STATUS_NAMES[int(got.status[0])]
        best = int(self.state.counters[t, BEST])
        return RunBest(best, deal_text(row), int(got.cards[0]), int(got.tricks[0]), status)
