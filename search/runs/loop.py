"""The run loop: one loop for every kind of run, over any backend, holding the kind's job.

It creates or resumes a run, makes the kind's job (job.py) once the run is held, keeps chunks
in flight on a backend (bmn.search.backends.base), commits results as they arrive, keeps the
progress and the time remaining, and finishes the run as finished or interrupted. The job says
only what is its own: a stream's state, the work of one chunk, the size of the next chunk, and
what one commit writes.

Every store write happens here or in the job's hooks, in the process that runs the search; a
backend only runs chunks. The chunks of a stream are committed one at a time and in order, so
the checkpoint in the store is always a state the stream really passed through, with every
find before it: a crash or kill loses at most the chunks in flight, and a resumed run replays
them exactly.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.records.store import RunHeld, Store, StoreError, holder_name
from bmn.search.backends.base import Backend, BackendError, Result, Task
from bmn.search.backends.registry import get_backend
from bmn.search.runs.clock import SearchClock
from bmn.search.runs.job import Job, PastTime, RunContext, options_from_run, unreadable
from bmn.search.runs.progress import takes_start
from bmn.search.words import duration

POLL_SECONDS = 0.5  # the longest wait for a result, so signal handlers run promptly
STOP_POLL_SECONDS = 0.1  # how often a start under way looks for a stop
# The longest a held run's heartbeat goes unrefreshed (a holder on another host silent for the
# store's STALE_SECONDS, a minute, is taken for dead); commits refresh it too.
HEARTBEAT_SECONDS = 10.0
# The runs this process holds, by store file and run number, and the thread searching each: a
# store's lease names a process, so a second thread of the same one must be refused here (it
# would store every find twice), and a thread stopped before its run began releases only its own.
_HELD: dict[tuple[str, int], int] = {}
_HELD_LOCK = threading.Lock()


def _hold(store: Store, run_id: int) -> tuple[str, int]:
    """Note a run as held by this process; RunHeld if another of its threads holds it."""
    key = (os.path.realpath(store.path), run_id)
    with _HELD_LOCK:
        if key in _HELD:
            raise RunHeld(
                f"run {run_id} is being searched by this process already, in another thread;"
                " stop that search first"
            )
        _HELD[key] = threading.get_ident()
    return key


def forget(store: str | os.PathLike[str], run_id: int) -> None:
    """Note a run as no longer held by this process (released without its handler's run)."""
    with _HELD_LOCK:
        _HELD.pop((os.path.realpath(store), run_id), None)


def held_by_other_threads(store: str | os.PathLike[str]) -> set[int]:
    """The runs of `store` that other threads of this process are searching now."""
    path, me = os.path.realpath(store), threading.get_ident()
    with _HELD_LOCK:
        return {run for (where, run), thread in _HELD.items() if where == path and thread != me}


@contextlib.contextmanager
def watching_compiles() -> Iterator[threading.Event]:
    """An event set once numba compiles a function in this process while inside: a start that
    only loads its kernels from the cache compiles none (numba announces compiles, not loads)."""
    from numba.core import event

    seen = threading.Event()

    class Seen(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            seen.set()

        def on_end(self, ev: event.Event) -> None:
            pass

    listener = Seen()
    event.register("numba:compile", listener)
    try:
        yield seen
    finally:
        event.unregister("numba:compile", listener)


@dataclass
class Stream:
    """The loop's book of one stream for one session."""

    planned: int  # the stream's games once every chunk submitted is done
    rate: float | None = None  # games per second over its last chunk
    next_chunk: int = 0
    next_commit: int = 0
    in_flight: dict[int, int] = field(default_factory=dict)  # chunk -> iterations
    arrived: dict[int, Result] = field(default_factory=dict)  # done, waiting for a predecessor


@dataclass
class Lane:
    """Streams that take turns at one chunk slot of the backend (with more streams than it
    runs at once): time-sharing threads with a core would have every stream's chunk measured,
    sized and checkpointed at a sliver of the rate, and a run overrun its --time."""

    turns: deque[int]  # its streams, the next to submit first
    busy: set[int] = field(default_factory=set)  # those with chunks in flight (or were)


class RunLoop:
    """Create or resume a run of `job_type` (a kind's Job), then `run()` it until done or
    `stop` is set.

    `RunLoop(store, job_type, options)` makes a new run; `RunLoop.resume(store, job_type,
    run_id)` claims a stored one to continue it with its stored options. Chunks run on
    `backend`, threads of this process by default."""

    def __init__(
        self,
        store: Store,
        job_type: type[Job],
        options: Any,
        run_id: int | None = None,
        backend: Backend | None = None,
    ):
        self.store = store
        self.options = options
        self.stop = threading.Event()
        if backend is None:
            where = job_type.device
            backend = get_backend() if where is None else get_backend("threads", where=where)
        self.backend = backend
        self.holder = holder_name()  # the run's lease: this process holds it while it runs
        resuming = run_id is not None
        if run_id is None:
            run_id = store.create_run(
                options.strategy,
                options.objective,
                options.seed,
                asdict(options),
                seats=getattr(options, "players", 2),  # loop hunts, grow and GPU runs: two
                backend=self.backend.where,
                kind=job_type.kind,
                rules=getattr(options, "rules", DEFAULT_RULES),  # kinds with none play bmn's
            )
            self._held = _hold(store, run_id)
            spent = 0.0
        else:
            # First of all: RunHeld (naming the holder) if another live process, or another
            # thread of this one, searches it.
            self._held = _hold(store, run_id)
            try:
                run = store.claim_run(run_id, self.holder, backend=self.backend.where)
            except BaseException:
                self._unhold()
                raise
            spent = run.seconds or 0.0
        self.run_id = run_id
        self.context = RunContext(
            store, run_id, self.holder, spent, self.backend, self.stop, SearchClock()
        )
        # A signal while the job is made (its first compile) leaves the run held: the stop
        # that caught it releases this process's runs and names the run to resume.
        try:
            checkpoints = store.load_checkpoints(run_id) if resuming else {}
            self.job = self._made(job_type, checkpoints, resuming)
        except Exception:  # a damaged checkpoint (StoreDamaged): the run released as found;
            if not resuming:  # a new run's job that cannot be made: never left running
                self._mark_failed(run_id)
            store.release_run(run_id, self.holder)
            self._unhold()
            raise
        self._streams: list[Stream] = []
        self._dirty = False
        self._cores = 1  # how many chunks the backend runs at once, once started
        self._lanes: list[Lane] = []

    def _made(self, job_type: type[Job], checkpoints: dict, resuming: bool) -> Job:
        """The kind's job, whole before the loop asks it anything: made, its streams restored
        from the checkpoints, then its progress (and a resumed job told so)."""
        job = job_type(self.context, self.options)
        job.restore(checkpoints)
        job.progress = p = job.new_progress()
        o = self.options
        p.store, p.strategy, p.seed = str(self.store.path), o.strategy or "", o.seed
        p.workers, p.games, p.seconds = o.workers, job.games, self.context.spent
        p.done = job.done(p.games, p.seconds)
        p.compile_seconds = job.compile_seconds
        if resuming:
            share = "" if p.done is None else f", {p.done:.0%} done"
            p.resumed = f"after {duration(self.context.spent)} searched before{share}"
            job.resumed()
        return job

    @classmethod
    def resume(
        cls, store: Store, job_type: type[Job], run_id: int, backend: Backend | None = None
    ) -> RunLoop:
        """Run `run_id` of the store, with its stored options, to continue it; claimed for
        this process (RunHeld if another live process, or another thread of this one, is
        searching it)."""
        try:
            options = options_from_run(job_type.options_type, store.get_run(run_id))
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as err:
            raise unreadable(run_id, err) from None
        return cls(store, job_type, options, run_id, backend)

    @property
    def progress(self) -> Any:
        """The job's progress, as the display shows it."""
        return self.job.progress

    # -- the loop ------------------------------------------------------------------------------

    def run(self, on_progress: Callable[[Any], None] = lambda p: None):
        """Run until the iterations or time are used up, or `stop` is set; the summary.

        The run is released when this returns or raises: a run left 'running' by a crash
        then reads as interrupted. A BackendError (a cluster gone) commits what has come and
        marks the run interrupted, so `--resume` continues it on any backend; it is raised
        again for the user."""
        try:
            try:
                if not self._started(on_progress):
                    return self._stopped_while_starting()
                self.job.progress.backend = self._backend_text()
                return self._run(on_progress)
            except BackendError:
                self._lost(on_progress)
                raise
            except Exception:  # a bug or a damaged store: the run stays resumable, not running
                self._mark_failed(self.run_id)
                raise
            finally:
                self.context.clock.stop()
                self.backend.close()
        finally:
            self._release()

    def _lost(self, on_progress: Callable[[Any], None]) -> None:
        """The backend can run no more chunks: commit what it gave, and stop as interrupted."""
        self.stop.set()
        if self._dirty:
            self._commit(on_progress)
        self._finish()

    def _run(self, on_progress: Callable[[Any], None]):
        self.store.update_run(self.run_id, status="running")
        self.store.heartbeat(self.run_id, self.holder)
        self._saved = self._beaten = time.monotonic()
        self.context.clock.start()
        self._games_at_start = self.job.games
        self._dirty = False
        self._streams = [Stream(self.job.stream_games(s)) for s in range(self.job.streams)]
        # The backend runs `cores` chunks at once: stream s goes in lane s % lanes, whose
        # streams take turns (a threads backend runs each lane on a thread of its own).
        lanes = min(self.job.streams, self._cores)
        self._lanes = [Lane(deque(range(lane, self.job.streams, lanes))) for lane in range(lanes)]
        for stream in range(self.job.streams):
            self._top_up(stream)
        self._receive_all(on_progress)
        if self._dirty:
            self._commit(on_progress)
        summary = self._finish()
        on_progress(self.job.progress)  # the run's last word: its time and share done at the end
        return summary

    def _started(self, on_progress: Callable[[Any], None]) -> bool:
        """Start the backend (a first compile takes tens of seconds, holding the GIL for
        much of it) on a thread of its own while this one keeps the run's heartbeat fresh,
        shows the progress (what the start is doing, to a callback marked `starts_too`, as
        the display is) and watches `stop`, so a signal is acted on at once; True once
        started, False if `stop` came first (the start, which cannot be cut short, is left to
        end unseen: a backend's `close` may come before it ends). The start's own error is
        raised here."""
        show = on_progress if takes_start(on_progress) else lambda p: None
        with watching_compiles() as compiling:
            started = self._start_backend(show, compiling)
        self.job.progress.starting, self.job.progress.compiling = None, False
        return started

    def _start_backend(
        self, on_progress: Callable[[Any], None], compiling: threading.Event
    ) -> bool:
        done = threading.Event()
        failed: list[BaseException] = []

        def start() -> None:
            try:
                self.backend.start(self.job.streams, self.job.warm_call())
            except BaseException as err:  # raised again by the thread that waits
                failed.append(err)
            finally:
                done.set()

        threading.Thread(target=start, daemon=True, name="bmn-start").start()
        began = beaten = time.monotonic()
        p = self.job.progress
        p.starting = 0.0
        on_progress(p)  # at once: the display says the run is starting
        while not done.wait(STOP_POLL_SECONDS):
            if self.stop.is_set():
                return False
            p.starting, p.compiling = time.monotonic() - began, compiling.is_set()
            on_progress(p)
            if time.monotonic() - beaten >= HEARTBEAT_SECONDS:
                with contextlib.suppress(StoreError):  # a failing store: the first commit says
                    self.store.heartbeat(self.run_id, self.holder)
                beaten = time.monotonic()
        if failed:
            raise failed[0]
        self._cores = max(self.backend.default_streams(), 1)
        return True

    def _backend_text(self) -> str:
        """Where the chunks run, for the display, once the backend has started (in the job's
        words: a loop hunt scores a batch on threads of its own)."""
        return self.job.backend_text(f"{self.backend.where}: {self.backend.details()}")

    def _stopped_while_starting(self):
        """Stopped before a chunk was run: the run as it was, marked interrupted."""
        self.context.clock = SearchClock()  # this session searched for no time at all
        return self._finish()

    def _release(self) -> None:
        """Give the run up, keeping any error already on its way out (if this fails, the run
        reads as not held once this process exits)."""
        self._unhold()
        with contextlib.suppress(StoreError):
            self.store.release_run(self.run_id, self.holder)

    def _mark_failed(self, run_id: int) -> None:
        """A run whose work raised: marked interrupted (what it committed stays, and
        `--resume` goes on from there), keeping the error on its way out."""
        with contextlib.suppress(StoreError):
            self.store.update_run(run_id, status="interrupted")

    def _unhold(self) -> None:
        with _HELD_LOCK:
            _HELD.pop(self._held, None)

    def elapsed(self) -> float:
        """Seconds this session has searched (RunContext.elapsed)."""
        return self.context.elapsed()

    def _receive_all(self, on_progress: Callable[[Any], None]) -> None:
        cancelled = False
        while any(s.in_flight for s in self._streams):
            if (self.stop.is_set() or self.job.past_time()) and not cancelled:
                cancelled = True
                for stream, chunk in self.backend.cancel():
                    self._streams[stream].in_flight.pop(chunk, None)
                    self._streams[stream].arrived.pop(chunk, None)  # a cluster's race
                continue
            result = self.backend.next_result(POLL_SECONDS)
            if result is not None:
                self._receive(result, on_progress)
            if time.monotonic() - self._beaten >= HEARTBEAT_SECONDS:  # no commit for a while
                self.store.heartbeat(self.run_id, self.holder)
                self._beaten = time.monotonic()

    def _receive(self, result: Result, on_progress: Callable[[Any], None]) -> None:
        """Take a result in, committing the stream's chunks in order; refill the stream."""
        s = self._streams[result.stream]
        if result.chunk not in s.in_flight or result.chunk in s.arrived:
            return  # cancelled, or a second copy of a chunk already taken
        s.arrived[result.chunk] = result
        while s.next_commit in s.arrived:
            done = s.arrived.pop(s.next_commit)
            try:
                self.job.absorb(done)
            except PastTime:  # come in, or still being taken in, past the time: left out
                self._drop(done)
                return
            s.planned -= s.in_flight.pop(s.next_commit) - done.games  # a chunk may stop early
            s.next_commit += 1
            s.rate = done.games / max(done.seconds, 1e-3)
            self._dirty = True
            if self.job.commit_due(self._saved):
                self._commit(on_progress)
        self._top_up(result.stream)

    def _drop(self, result: Result) -> None:
        """A chunk come in past the time, and those of its stream waiting on an earlier one:
        left out of the run, as if never searched (the stream's state is the last taken)."""
        s = self._streams[result.stream]
        s.in_flight.pop(result.chunk, None)
        for chunk in s.arrived:
            s.in_flight.pop(chunk, None)
        s.arrived.clear()

    def _top_up(self, stream: int) -> None:
        """Submit chunks to the stream's lane until `in_flight` are queued there, the lane's
        streams are done, or stop is set; its streams take turns, a chunk each."""
        lane = self._lanes[stream % len(self._lanes)]
        while sum(len(s.in_flight) for s in self._busy(lane)) < self.job.in_flight:
            if self.stop.is_set() or not any(self._submit(lane) for _ in range(len(lane.turns))):
                return

    def _busy(self, lane: Lane) -> list[Stream]:
        """The lane's streams with chunks in flight."""
        lane.busy = {t for t in lane.busy if self._streams[t].in_flight}
        return [self._streams[t] for t in lane.busy]

    def _submit(self, lane: Lane) -> bool:
        """Submit a chunk of the lane's next stream, if it has one now; its turn passes."""
        stream = lane.turns[0]
        lane.turns.rotate(-1)
        s = self._streams[stream]
        if len(s.in_flight) >= self.job.in_flight:
            return False
        # Seconds of work queued ahead of it: the lane runs its chunks one at a time.
        ahead = sum(sum(t.in_flight.values()) / t.rate for t in self._busy(lane) if t.rate)
        n = self.job.chunk_size(stream, s.rate, s.planned, ahead)
        if n <= 0:
            return False
        state = None if s.in_flight else self.job.stream_state(stream)  # None: chained
        self.backend.submit(Task(self.job.work, stream, s.next_chunk, state, self.options, n))
        s.in_flight[s.next_chunk] = n
        s.next_chunk += 1
        s.planned += n
        lane.busy.add(stream)
        return True

    def _commit(self, on_progress: Callable[[Any], None]) -> None:
        """Everything absorbed since the last commit, in one transaction; then the progress."""
        elapsed = self.elapsed()
        seconds = self.context.spent + elapsed
        self.job.save(seconds)  # with holder=self.holder: the commit refreshes the heartbeat
        self._saved = self._beaten = time.monotonic()
        self._dirty = False
        p, o = self.job.progress, self.options
        p.games, p.seconds = self.job.games, seconds
        p.rate = (p.games - self._games_at_start) / max(elapsed, 1e-6)
        if o.seconds is not None:
            p.remaining = max(o.seconds - seconds, 0.0)
        elif o.iterations and p.rate:
            p.remaining = max(o.iterations - p.games, 0) / p.rate
        p.done = self.job.done(p.games, seconds)
        on_progress(p)

    def _finish(self) -> Any:
        """Mark the run finished or interrupted and summarise it."""
        self.job.finishing()
        seconds = self.context.spent + self.elapsed()
        status = self.job.status(seconds, self.stop.is_set())
        self.store.update_run(self.run_id, status=status, games=self.job.games, seconds=seconds)
        p = self.job.progress
        p.seconds, p.done = (
            seconds,
            1.0 if status == "finished" else self.job.done(p.games, seconds),
        )
        p.remaining = 0.0 if status == "finished" else p.remaining
        return self.job.summary(status, seconds)
