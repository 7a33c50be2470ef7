"""The longest-game search on an NVIDIA GPU, as a kind of run of the run handler.

The run handler (search/runs/handler.py) sees one stream: the GPU. Each of its chunks is a launch
(or a few) of search/strategies/cuda.py's search kernel over every device thread, and each device
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

search/strategies/cuda.py needs CUDA to import, so it is imported inside the functions here.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from bmn.kernels.config import STATUS_NAMES
from bmn.kernels.cuda.env import THREADS_PER_BLOCK
from bmn.kernels.deal import deal_text
from bmn.records.store import Find, Store
from bmn.search.backends.base import Backend, Result
from bmn.search.backends.registry import get_backend
from bmn.search.runs.handler import RunHandler
from bmn.search.runs.longest import COMMIT_FINDS, Progress, Summary, split_finds

if TYPE_CHECKING:
    from bmn.search.strategies.cuda import Finds, Streams

DEVICE_STRATEGIES = ("walk", "random")  # the strategies search/strategies/cuda.py plays
FIRST_ROUNDS = 16  # games per device stream in a run's first chunk, before its rate is known
CHUNK_SECONDS = 1.0
# A checkpoint holds about 200 bytes per device thread (tens of MB on a large GPU), so a GPU
# run commits less often than a CPU run: a crash loses at most this many seconds.
COMMIT_SECONDS = 10.0


@dataclass
class CudaSearchOptions:
    """Everything that defines a GPU run; stored with it so `--resume` needs nothing else."""

    strategy: str = "walk"
    objective: str = "cards"
    seconds: float | None = None
    iterations: int | None = None
    workers: int = THREADS_PER_BLOCK  # device threads: one search stream each
    seed: int = field(default_factory=lambda: secrets.randbits(62))
    keep_above: int = 3000
    device: str = "cuda"  # how `bmn search --resume` tells a GPU run from a CPU one

    def __post_init__(self) -> None:
        if self.strategy not in DEVICE_STRATEGIES:
            raise ValueError(
                f"strategy {self.strategy!r} does not run on the GPU; choose"
                f" {' or '.join(DEVICE_STRATEGIES)}"
            )
        block_size(self.workers)


@dataclass
class DeviceProgress(Progress):
    """The search's display, its streams named as what they are: GPU threads."""

    def setting(self) -> str:
        return f"{self.strategy} on the GPU, {self.workers:,} device threads, seed {self.seed}"


def block_size(streams: int) -> int:
    """Threads per block for `streams` device streams: all of them up to THREADS_PER_BLOCK,
    else THREADS_PER_BLOCK, which must then divide them (one stream per thread)."""
    if streams < 1 or (streams > THREADS_PER_BLOCK and streams % THREADS_PER_BLOCK):
        raise ValueError(
            f"{streams} device threads: expected 1 to {THREADS_PER_BLOCK} or a multiple of"
            f" {THREADS_PER_BLOCK}"
        )
    return min(streams, THREADS_PER_BLOCK)


def quotas(options: CudaSearchOptions) -> np.ndarray | None:
    """Each device stream's games over the whole run (None: until the time is up), split as
    the CPU search splits iterations between its workers."""
    if options.iterations is None:
        return None
    share, extra = divmod(options.iterations, options.workers)
    return share + (np.arange(options.workers) < extra)


def rounds(streams: Streams) -> int:
    """The rounds a run's streams have played: the most games of any stream (the others are
    there too, or at their quota)."""
    from bmn.search.strategies.cuda import GAMES

    return int(streams.counters[:, GAMES].max())


def cuda_chunk(
    stream: int, chunk: int, state: Streams, options: CudaSearchOptions, iterations: int
) -> tuple[Streams, Finds, int]:
    """One chunk of a GPU run (see bmn.search.backends.base): `iterations` more rounds, every device
    stream brought to the same count of games (or to its quota); the new streams (`state` is
    left untouched), their finds and the rounds played."""
    from bmn.search.strategies.cuda import DeviceSearch

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
    )
    finds = search.run_to(targets)
    return search.streams(), finds, iterations


def warm_cuda() -> None:
    """Compile (or load from the cache) both search kernels before the clock starts."""
    from bmn.search.strategies.cuda import MODES, NO_LIMIT, SIMULATED, DeviceSearch, Streams

    if SIMULATED:  # the simulator compiles nothing
        return
    for mode in MODES:
        streams = Streams.new(0, 32)
        DeviceSearch(streams, mode, keep_above=NO_LIMIT, threads_per_block=32).run(1)


class CudaSearch(RunHandler):
    """One GPU run: start it new or resume it, then `run()` until done or stopped.

    `CudaSearch(store, options, run_id=None, backend=None)`, as driver.Search.
    """

    options_type = CudaSearchOptions
    work = staticmethod(cuda_chunk)
    warm = staticmethod(warm_cuda)

    def __init__(
        self,
        store: Store,
        options: CudaSearchOptions,
        run_id: int | None = None,
        backend: Backend | None = None,
    ):
        self._run_best = -1  # the best score stored with the run
        # absorbed, not yet committed: (stream 0, games before the chunk, decks, meta)
        self._finds: list[tuple[int, int, np.ndarray, np.ndarray]] = []
        if backend is None:  # a thread of this process feeds the GPU: the run ran on the GPU
            backend = get_backend("threads", where="cuda")
        super().__init__(store, options, run_id, backend)

    @property
    def streams(self) -> int:
        return 1  # the GPU

    @property
    def games(self) -> int:
        from bmn.search.strategies.cuda import GAMES

        return int(self.state.counters[:, GAMES].sum())

    def commit_seconds(self) -> float:
        return COMMIT_SECONDS

    def commit_due(self) -> bool:
        return super().commit_due() or sum(len(f[2]) for f in self._finds) >= COMMIT_FINDS

    def _restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        from bmn.search.strategies.cuda import BEST, Streams

        if 0 in checkpoints:
            self.state = Streams.from_bytes(checkpoints[0][0])
        else:
            self.state = Streams.new(self.options.seed, self.options.workers)
        self._run_best = int(self.state.counters[:, BEST].max())  # committed with the run

    def _new_progress(self) -> DeviceProgress:
        """A new run's progress, or a resumed one's: its best, finds and improvements so far."""
        p = DeviceProgress(self.run_id, objective=self.options.objective)
        p.finds, p.improvements = self.store.run_tally(self.run_id, self.options.objective)
        best = self._best()
        if best is not None:
            p.best_deal, p.best_cards, p.best_tricks = best[1].deal, best[1].cards, best[1].tricks
        return p

    def _stream_games(self, stream: int) -> int:
        return rounds(self.state)

    def _state(self, stream: int) -> Streams:
        return self.state

    def _chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        """Rounds for the next chunk: about CHUNK_SECONDS of work, never past the quotas or
        the deadline."""
        quota = quotas(self.options)
        left = None if quota is None else int(quota.max()) - planned
        deadline = self.deadline()
        size = FIRST_ROUNDS if rate is None else max(1, int(rate * CHUNK_SECONDS))
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (ahead > 0 and remaining - ahead < CHUNK_SECONDS):
                return 0  # the last chunk is sized when it starts, on the time left then
            if rate is not None:
                size = min(size, int(rate * remaining) + 1)
        return size if left is None else max(min(size, left), 0)

    def _absorb(self, result: Result) -> None:
        from bmn.search.strategies.cuda import F_CARDS, F_STATUS, F_TRICKS

        meta = result.finds.figures[:, [F_CARDS, F_TRICKS, F_STATUS]]
        self._finds.append((0, self.games, result.finds.decks, meta))  # keyed by games before
        self.state = result.state

    def _save(self, seconds: float) -> None:
        """The streams' checkpoint, their finds and the run's totals in one transaction."""
        from bmn.search.strategies.cuda import HAND

        finds, bulks = split_finds(self._finds, self.options.strategy, (HAND, HAND), seconds)
        update = {"games": self.games, "seconds": seconds}
        p = self.progress
        best = self._best()
        if best is not None and best[0] > self._run_best:
            p.improvements += self._run_best >= 0  # the run's first best is no improvement
            self._run_best, find = best[0], replace(best[1], elapsed=seconds)
            finds.append(find)
            update.update(best_deal=find.deal, best_cards=find.cards, best_tricks=find.tricks)
            p.best_deal, p.best_cards, p.best_tricks = find.deal, find.cards, find.tricks
        checkpoint = (0, self.state.to_bytes(), self.games, seconds)
        p.finds += self.store.save_progress(
            self.run_id, [checkpoint], finds, update, holder=self.holder, bulks=bulks
        )
        self._finds = []

    def _best(self) -> tuple[int, Find] | None:
        """The best score of any stream and its deal as a find, replayed by the CPU kernel
        (its status too: a loop may score best); None before any game."""
        from bmn.kernels.score import score
        from bmn.search.strategies.cuda import BEST, HAND

        t = self.state.best_stream()
        if self.state.counters[t, BEST] < 0:
            return None
        row = self.state.best[t]
        got = score(row[None, :], np.array([[HAND, HAND]]))
        status = STATUS_NAMES[int(got.status[0])]
        find = Find(deal_text(row), int(got.cards[0]), int(got.tricks[0]), status,
                    self.options.strategy)  # fmt: skip
        return int(self.state.counters[t, BEST]), find

    def _summary(self, status: str, seconds: float) -> Summary:
        """The run's summary from the streams' states."""
        best = self._best()
        games, seed = self.games, self.options.seed
        if best is None:
            return Summary(self.run_id, status, "", -1, -1, games, seconds, seed)
        _, find = best
        return Summary(
            self.run_id, status, find.deal, find.cards, find.tricks, games, seconds, seed
        )
