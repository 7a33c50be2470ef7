"""The longest-game search: its options, its chunk of work, its commits and its summary.

Each stream (worker w, drawing from generator stream w and scoring a fixed share of the
iterations) advances by chunks of its strategy's compiled loop, about a second of work each
(`search_chunk`, run by a backend: threads of this process by default). The run handler
(bmn.search.run) commits every chunk as it comes, in the process that owns the store: the
worker's checkpoint, its finds and the run's totals in one transaction. A crash or kill loses
at most the chunks in flight, and a resumed run replays them exactly.
"""

from __future__ import annotations

import copy
import secrets
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from bmn.kernels.config import STATUS_NAMES
from bmn.kernels.deal import decode, format_deal
from bmn.records.store import Find, Run, Store
from bmn.search.chunks import Backend, Result
from bmn.search.evaluate import OBJECTIVES
from bmn.search.present import duration
from bmn.search.run import RunHandler, RunProgress, options_from_run
from bmn.search.strategies import DEFAULT_STRATEGY, run_chunk
from bmn.search.threads import default_workers
from bmn.search.worker import (
    BEST,
    BEST_CARDS,
    BEST_TRICKS,
    GAMES,
    HAND_SIZE,
    IMPROVEMENTS,
    Finds,
    WorkerState,
    new_worker,
)

CHUNK_SECONDS = 1.0
FIRST_CHUNK = 20_000


@dataclass
class SearchOptions:
    """Everything that defines a run; stored with it so `--resume` needs nothing else."""

    strategy: str = DEFAULT_STRATEGY
    objective: str = "cards"
    seconds: float | None = None
    iterations: int | None = None
    workers: int = field(default_factory=default_workers)
    seed: int = field(default_factory=lambda: secrets.randbits(62))
    keep_above: int = 3000
    patience: int = 20_000
    history: int = 30_000

    @classmethod
    def from_run(cls, run: Run) -> SearchOptions:
        return options_from_run(cls, run)


@dataclass
class Progress(RunProgress):
    """What the display shows; updated after every chunk committed."""

    best_cards: int = -1
    best_tricks: int = -1
    best_deal: str = ""
    improvements: int = 0
    finds: int = 0

    def title(self) -> str:
        return f"bmn search, run {self.run}"

    def rows(self) -> list[tuple[str, str]]:
        return [
            ("elapsed", duration(self.seconds)),
            ("remaining", duration(self.remaining)),
            ("games", f"{self.games:,}"),
            ("games/s", f"{self.rate:,.0f}"),
            ("best", f"{self.best_cards} cards, {self.best_tricks} tricks"),
            ("best deal", self.best_deal),
            ("improvements", str(self.improvements)),
            ("kept finds", str(self.finds)),
            ("backend", self.backend),
        ]

    def line(self) -> str:
        return (
            f"run {self.run} on {self.backend}: {duration(self.seconds)} elapsed, "
            f"{duration(self.remaining)} left, {self.games:,} games, {self.rate:,.0f} games/s, "
            f"best {self.best_cards} cards {self.best_tricks} tricks, {self.improvements} "
            f"improvements, {self.finds} kept"
        )


@dataclass
class Summary:
    run: int
    status: str
    best_deal: str
    best_cards: int
    best_tricks: int
    games: int
    seconds: float
    seed: int

    def as_dict(self) -> dict:
        return asdict(self)

    def text(self) -> str:
        return (
            f"run {self.run} ({self.status}): {self.games:,} games in {self.seconds:,.1f} s; "
            f"seed {self.seed}\nbest: {self.best_cards} cards, {self.best_tricks} tricks: "
            f"{self.best_deal}"
        )


def deal_text(row: np.ndarray) -> str:
    return format_deal(decode(row, (HAND_SIZE, HAND_SIZE)))


def best_of(states: list[WorkerState]) -> WorkerState | None:
    """The worker holding the best deal; ties go to the lowest worker, so runs reproduce."""
    scored = [s for s in states if s.counters[BEST] >= 0]
    return max(scored, key=lambda s: s.counters[BEST], default=None)


def search_chunk(
    stream: int, chunk: int, state: WorkerState, options: SearchOptions, iterations: int
) -> tuple[WorkerState, tuple[np.ndarray, np.ndarray], int]:
    """One chunk of a search (see bmn.search.chunks): up to `iterations` deals of the strategy
    from `state`, left untouched; the new state, the finds (rows of cards, rows of (cards,
    tricks, status)) and the deals scored. It stops early when its finds buffer fills, so
    every find is kept and a chunk's commit stays small; whatever the cut, a stream's deals and
    finds are the same."""
    state = copy.deepcopy(state)
    finds = Finds.empty()
    objective = OBJECTIVES.index(options.objective)
    done, n_finds = run_chunk(
        options.strategy, state, finds, iterations, objective, options.keep_above, options.patience
    )
    return state, (finds.decks[:n_finds].copy(), finds.meta[:n_finds].copy()), done


def warm_search() -> None:
    """Compile (or load from cache) the search loop: a zero-iteration chunk."""
    run_chunk("walk", new_worker(0, 0), Finds.empty(), 0, 0, 0, 1)


class Search(RunHandler):
    """One run of a search: start it new or resume it, then `run()` until done or stopped.

    `Search(store, options, run_id=None, backend=None)`: a new run, or run `run_id` resumed
    with its stored options (`Search.resume(store, run_id)`); chunks run on `backend`,
    threads of this process by default.
    """

    options_type = SearchOptions
    work = staticmethod(search_chunk)
    warm = staticmethod(warm_search)

    def __init__(
        self,
        store: Store,
        options: SearchOptions,
        run_id: int | None = None,
        backend: Backend | None = None,
    ):
        self._run_best = -1  # the best score stored with the run
        self._checkpoints: dict[int, WorkerState] = {}  # absorbed, not yet committed
        self._finds: list[tuple[np.ndarray, np.ndarray]] = []
        super().__init__(store, options, run_id, backend)

    @property
    def streams(self) -> int:
        return self.options.workers

    @property
    def games(self) -> int:
        return sum(int(s.counters[GAMES]) for s in self.states)

    def quota(self, worker: int) -> int | None:
        """How many deals this worker scores over the whole run (None: until time is up)."""
        total = self.options.iterations
        if total is None:
            return None
        share, extra = divmod(total, self.options.workers)
        return share + (worker < extra)

    def _fresh(self, worker: int) -> WorkerState:
        history = self.options.history if self.options.strategy == "lahc" else 1
        return new_worker(self.options.seed, worker, history)

    def _restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        self.states = [
            WorkerState.from_bytes(checkpoints[w][0]) if w in checkpoints else self._fresh(w)
            for w in range(self.options.workers)
        ]

    def _new_progress(self) -> Progress:
        return Progress(self.run_id)

    def _stream_games(self, stream: int) -> int:
        return int(self.states[stream].counters[GAMES])

    def _state(self, stream: int) -> WorkerState:
        return self.states[stream]

    def _chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        quota, deadline = self.quota(stream), self.deadline()
        left = None if quota is None else quota - planned
        if (
            deadline is not None
            and ahead > 0
            and deadline - ahead - time.monotonic() < CHUNK_SECONDS
        ):
            # The stream's last chunk: size it when it starts, on the time left then, rather
            # than on a guess of when the chunks ahead of it will end.
            return 0
        return chunk_size(rate, left, deadline)

    def _absorb(self, result: Result) -> None:
        self.states[result.stream] = self._checkpoints[result.stream] = result.state
        self._finds.append(result.finds)

    def _save(self, seconds: float) -> None:
        """The chunks' checkpoints, their finds and the run's totals in one transaction."""
        strategy = self.options.strategy
        finds = [
            Find(deal_text(row), int(c), int(t), STATUS_NAMES[s], strategy, seconds)
            for decks, meta in self._finds
            for row, (c, t, s) in zip(decks, meta, strict=True)
        ]
        checkpoints = [
            (w, state.to_bytes(), int(state.counters[GAMES]), seconds)
            for w, state in self._checkpoints.items()
        ]
        update = {"games": self.games, "seconds": seconds}
        leader = best_of(self.states)
        if leader is not None and leader.counters[BEST] > self._run_best:
            self._run_best = int(leader.counters[BEST])
            best = deal_text(leader.best)
            cards, tricks = int(leader.counters[BEST_CARDS]), int(leader.counters[BEST_TRICKS])
            update.update(best_deal=best, best_cards=cards, best_tricks=tricks)
            self.progress.best_deal, self.progress.best_cards = best, cards
            self.progress.best_tricks = tricks
        self.store.save_progress(self.run_id, checkpoints, finds, update)
        self._checkpoints, self._finds = {}, []
        self.progress.finds += len(finds)
        self.progress.improvements = sum(int(s.counters[IMPROVEMENTS]) for s in self.states)

    def _summary(self, status: str, seconds: float) -> Summary:
        """The run's summary from the workers' states."""
        games, seed = self.games, self.options.seed
        leader = best_of(self.states)
        if leader is None:
            return Summary(self.run_id, status, "", -1, -1, games, seconds, seed)
        return Summary(
            self.run_id,
            status,
            deal_text(leader.best),
            int(leader.counters[BEST_CARDS]),
            int(leader.counters[BEST_TRICKS]),
            games,
            seconds,
            seed,
        )


def chunk_size(rate: float | None, left: int | None, deadline: float | None) -> int:
    """Deals for the next chunk: about CHUNK_SECONDS of work, never past the quota or deadline."""
    size = FIRST_CHUNK if rate is None else max(1000, int(rate * CHUNK_SECONDS))
    if deadline is not None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return 0
        if rate is not None:
            size = min(size, int(rate * remaining) + 1)
    return size if left is None else min(size, left)
