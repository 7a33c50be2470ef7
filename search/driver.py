"""The run driver: workers in threads, compiled chunks, checkpoints and finds into the store.

Each worker thread runs its strategy's compiled chunk (about a second of work, the GIL
released) and hands the result to the main thread, which commits the worker's checkpoint, its
finds and the run's totals in one transaction. A crash or kill loses at most the chunks in
flight, and a resumed run replays them exactly: worker w always draws from generator stream w
and runs a fixed share of the iterations.
"""

from __future__ import annotations

import os
import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from bmn.kernels.config import STATUS_NAMES
from bmn.kernels.deal import decode, format_deal
from bmn.records.store import Find, Run, Store
from bmn.search.evaluate import OBJECTIVES
from bmn.search.present import duration
from bmn.search.strategies import DEFAULT_STRATEGY, run_chunk
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


def default_workers() -> int:
    """Every core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


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
class Progress:
    """What the display shows; updated by the main thread after every chunk."""

    run: int
    games: int = 0
    seconds: float = 0.0
    rate: float = 0.0
    best_cards: int = -1
    best_tricks: int = -1
    best_deal: str = ""
    improvements: int = 0
    finds: int = 0
    remaining: float | None = None

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
        ]

    def line(self) -> str:
        return (
            f"run {self.run}: {duration(self.seconds)} elapsed, {duration(self.remaining)} "
            f"left, {self.games:,} games, {self.rate:,.0f} games/s, best {self.best_cards} "
            f"cards {self.best_tricks} tricks, {self.improvements} improvements, "
            f"{self.finds} kept"
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


def options_from_run(cls: type, run: Run):
    """A run's stored options as an options dataclass (unknown keys ignored)."""
    return cls(**{k: v for k, v in run.params.items() if k in cls.__dataclass_fields__})


def deal_text(row: np.ndarray) -> str:
    return format_deal(decode(row, (HAND_SIZE, HAND_SIZE)))


def best_of(states: list[WorkerState]) -> WorkerState | None:
    """The worker holding the best deal; ties go to the lowest worker, so runs reproduce."""
    scored = [s for s in states if s.counters[BEST] >= 0]
    return max(scored, key=lambda s: s.counters[BEST], default=None)


class Search:
    """One run of a search: start it new or resume it, then `run()` until done or stopped."""

    def __init__(self, store: Store, options: SearchOptions, run_id: int | None = None):
        self.store = store
        self.options = options
        self.stop = threading.Event()
        if run_id is None:
            self.run_id = store.create_run(
                options.strategy, options.objective, options.seed, asdict(options)
            )
            self.spent = 0.0
            self.states = [self._fresh(w) for w in range(options.workers)]
        else:
            self.run_id = run_id
            self.spent = store.get_run(run_id).seconds or 0.0
            saved = store.load_checkpoints(run_id)
            self.states = [
                WorkerState.from_bytes(saved[w][0]) if w in saved else self._fresh(w)
                for w in range(options.workers)
            ]
        self.progress = Progress(self.run_id)
        self._run_best = -1
        self._games_at_start = sum(int(s.counters[GAMES]) for s in self.states)

    @classmethod
    def resume(cls, store: Store, run_id: int) -> Search:
        return cls(store, SearchOptions.from_run(store.get_run(run_id)), run_id)

    def _fresh(self, worker: int) -> WorkerState:
        history = self.options.history if self.options.strategy == "lahc" else 1
        return new_worker(self.options.seed, worker, history)

    def quota(self, worker: int) -> int | None:
        """How many deals this worker scores over the whole run (None: until time is up)."""
        total = self.options.iterations
        if total is None:
            return None
        share, extra = divmod(total, self.options.workers)
        return share + (worker < extra)

    def run(self, on_progress: Callable[[Progress], None] = lambda p: None) -> Summary:
        """Search until the iterations or time are used up, or `stop` is set."""
        self._compile()
        self.store.update_run(self.run_id, status="running")
        start = time.monotonic()
        results: queue.Queue = queue.Queue()
        threads = [
            threading.Thread(target=self._work, args=(w, start, results), daemon=True)
            for w in range(self.options.workers)
        ]
        for thread in threads:
            thread.start()
        live = len(threads)
        while live:
            try:  # a timeout, so signal handlers run promptly in this thread
                item = results.get(timeout=0.5)
            except queue.Empty:
                continue
            if item is None:
                live -= 1
                continue
            self._commit(*item, elapsed=time.monotonic() - start)
            on_progress(self.progress)
        return self._finish(time.monotonic() - start)

    def _compile(self) -> None:
        """Compile (or load from cache) before the clock starts: a zero-iteration chunk."""
        run_chunk(self.options.strategy, new_worker(0, 0), Finds.empty(), 0, 0, 0, 1)

    def _deadline(self, start: float) -> float | None:
        if self.options.seconds is None:
            return None
        return start + max(self.options.seconds - self.spent, 0.0)

    def _work(self, worker: int, start: float, results: queue.Queue) -> None:
        """A worker thread: run chunks and hand each result to the main thread."""
        state, finds, o = self.states[worker], Finds.empty(), self.options
        quota, deadline = self.quota(worker), self._deadline(start)
        objective = OBJECTIVES.index(o.objective)
        rate = None  # this worker's deals per second over its last chunk
        try:
            while not self.stop.is_set():
                left = None if quota is None else quota - int(state.counters[GAMES])
                n = chunk_size(rate, left, deadline)
                if n == 0:
                    break
                t0 = time.monotonic()
                done, n_finds = run_chunk(
                    o.strategy, state, finds, n, objective, o.keep_above, o.patience
                )
                rate = done / max(time.monotonic() - t0, 1e-3)
                results.put(
                    (
                        worker,
                        state.to_bytes(),
                        finds.decks[:n_finds].copy(),
                        finds.meta[:n_finds].copy(),
                    )
                )
        finally:
            results.put(None)

    def _commit(
        self, worker: int, blob: bytes, decks: np.ndarray, meta: np.ndarray, elapsed: float
    ) -> None:
        """Store one chunk's checkpoint, finds and the run's totals in one transaction."""
        seconds = self.spent + elapsed
        state = self.states[worker]
        strategy = self.options.strategy
        finds = [
            Find(deal_text(row), int(c), int(t), STATUS_NAMES[s], strategy, seconds)
            for row, (c, t, s) in zip(decks, meta, strict=True)
        ]
        update = {"games": sum(int(s.counters[GAMES]) for s in self.states), "seconds": seconds}
        leader = best_of(self.states)
        if leader is not None and leader.counters[BEST] > self._run_best:
            self._run_best = int(leader.counters[BEST])
            best = deal_text(leader.best)
            cards, tricks = int(leader.counters[BEST_CARDS]), int(leader.counters[BEST_TRICKS])
            update.update(best_deal=best, best_cards=cards, best_tricks=tricks)
            self.progress.best_deal, self.progress.best_cards = best, cards
            self.progress.best_tricks = tricks
        self.store.save_progress(
            self.run_id, [(worker, blob, int(state.counters[GAMES]), seconds)], finds, update
        )
        p = self.progress
        p.games, p.seconds, p.finds = update["games"], seconds, p.finds + len(decks)
        p.rate = (p.games - self._games_at_start) / max(elapsed, 1e-6)
        p.improvements = sum(int(s.counters[IMPROVEMENTS]) for s in self.states)
        if self.options.seconds is not None:
            p.remaining = max(self.options.seconds - seconds, 0.0)
        elif self.options.iterations and p.rate:
            p.remaining = max(self.options.iterations - p.games, 0) / p.rate

    def _complete(self, seconds: float) -> bool:
        """Whether the run has used all its iterations or all its time."""
        if self.options.iterations is not None:
            return all(int(s.counters[GAMES]) >= self.quota(w) for w, s in enumerate(self.states))
        return self.options.seconds is not None and seconds >= self.options.seconds

    def _finish(self, elapsed: float) -> Summary:
        """Mark the run finished or interrupted and summarise it from the workers' states."""
        seconds = self.spent + elapsed
        status = "interrupted" if self.stop.is_set() and not self._complete(seconds) else "finished"
        games = sum(int(s.counters[GAMES]) for s in self.states)
        self.store.update_run(self.run_id, status=status, games=games, seconds=seconds)
        leader = best_of(self.states)
        if leader is None:
            return Summary(self.run_id, status, "", -1, -1, games, seconds, self.options.seed)
        return Summary(
            self.run_id,
            status,
            deal_text(leader.best),
            int(leader.counters[BEST_CARDS]),
            int(leader.counters[BEST_TRICKS]),
            games,
            seconds,
            self.options.seed,
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
