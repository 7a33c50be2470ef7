"""A kind of run's job: what the run loop (loop.py) holds, and what it lends the job.

The loop does what every kind shares (leases, heartbeat, lanes, in-order commits, the clock);
a job says only what is its own: its streams' states, the work of one chunk, the size of the
next chunk, what one commit writes and what the run says when it ends. A kind of run is one
Job subclass in a module of its own (registered in registry.py): it names its options, makes
them from a new run's settings before any store exists (`plan`: its options' own checks, the
one check of a run's deck), completes them with what only a store or a backend knows
(`prepare`), and is made by the loop once the run is created or claimed, so the hooks are
called on a job that is whole.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from bmn.records.store import Run, Store, StoreError
from bmn.search.backends.base import Backend, Result
from bmn.search.runs.clock import SearchClock
from bmn.search.runs.progress import RunProgress


class PastTime(Exception):
    """Raised by a job's `absorb` that leaves a chunk out, untouched, when it comes in or is
    still being taken in once the run's time is up (`past_time`)."""


class RunOptions(Protocol):
    """The fields every kind of run's options has (they are stored with the run)."""

    @property
    def strategy(self) -> str | None: ...  # None for a kind that has none

    @property
    def objective(self) -> str: ...

    seconds: float | None
    iterations: int | None
    workers: int
    seed: int


# Option fields renamed since runs were first stored under the old name: old name -> new.
RENAMED = {"max_basin_states": "basin_states"}


def stored_params(params: dict[str, Any], renamed: dict[str, str] | None = None) -> dict[str, Any]:
    """A run's stored options by today's field names (a store written before a rename):
    RENAMED, and `renamed`, an options type's own (its RENAMED)."""
    names = {**RENAMED, **(renamed or {})}
    return {names.get(name, name): value for name, value in params.items()}


def options_from_run(cls: type, run: Run) -> Any:
    """A run's stored options as an options dataclass (unknown keys ignored)."""
    params = stored_params(run.params, getattr(cls, "RENAMED", None))
    return cls(**{k: v for k, v in params.items() if k in cls.__dataclass_fields__})


class OptionValueError(ValueError):
    """A value only a kind's options can judge (a deck's DeckInputError is another): `option`
    names the setting, as the command line's parameter ('device_threads')."""

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option


def rules_for(name: str, players: int) -> str:
    """A run's rule set by its own name (an alias resolved); OptionValueError ('rules') for a
    name no rule set has, or one not defined for `players` seats."""
    from bmn.kernels.rules.sets import rule_set

    try:
        chosen = rule_set(name)
    except ValueError as err:
        raise OptionValueError("rules", str(err)) from None
    if not chosen.plays(players):
        seats = chosen.seat_counts
        why = f"rule set {chosen.name} is defined for {seats} seats, not {players}"
        raise OptionValueError("rules", why)
    return chosen.name


def unreadable(run_id: int, err: BaseException) -> StoreError:
    """A stored run whose settings this bmn cannot read: never resumed (a store edited by
    hand, or written by a bmn that checked less)."""
    why = " ".join(str(err).split()) or type(err).__name__
    return StoreError(f"run {run_id} cannot be resumed: its stored settings cannot be read ({why})")


@dataclass
class RunContext:
    """What the loop lends its job: the store, the run and its lease, what it had searched
    before this session, the backend, the stop event and this session's clock."""

    store: Store
    run_id: int
    holder: str
    spent: float
    backend: Backend
    stop: threading.Event
    clock: SearchClock

    def elapsed(self) -> float:
        """Seconds this session has searched: since its clock started, less any time the
        process was stopped (SIGSTOP: see clock.py)."""
        return self.clock.seconds()


class Job:
    """One kind of run's own part, held by the run loop. Subclasses set the class attributes
    and implement the hooks below the line; the loop calls `restore` and then `new_progress`
    once the job is made."""

    kind: ClassVar[str]  # its name in the registry of run kinds (registry.py), stored with a run
    options_type: ClassVar[type]  # the options dataclass stored with the run
    in_flight: ClassVar[int] = 2  # chunks queued per stream: 2 hides the commit's latency
    # Where its chunks run without a backend given: None, the default backend; "cuda", a
    # thread of this process that feeds the GPU (the run is stored as run on the GPU).
    device: ClassVar[str | None] = None
    # About how long a first run's compile takes on a two-core machine (None: not measured).
    compile_seconds: ClassVar[float | None] = None
    # Its --workers are its streams: on a cluster, one per worker thread unless --workers.
    streams_per_worker: ClassVar[bool] = False
    progress: Any  # its RunProgress, set by the loop from new_progress()

    def __init__(self, run: RunContext, options: Any):
        self.run = run
        self.options = options

    # -- what the loop lends ----------------------------------------------------------------------

    @property
    def store(self) -> Store:
        return self.run.store

    @property
    def run_id(self) -> int:
        return self.run.run_id

    @property
    def holder(self) -> str:
        return self.run.holder

    @property
    def spent(self) -> float:
        """Seconds the run had searched before this session."""
        return self.run.spent

    def elapsed(self) -> float:
        return self.run.elapsed()

    def searched(self) -> float:
        """Seconds the run has searched in all: before this session, and in it."""
        return self.spent + self.elapsed()

    def seconds_left(self) -> float | None:
        """Seconds of the run's --time still to search (0 or less once it is up); None
        without a time limit."""
        if self.options.seconds is None:
            return None
        return self.options.seconds - self.searched()

    def deadline(self) -> float | None:
        """When this session's time is up (time.monotonic()), or None without a time limit."""
        left = self.seconds_left()
        return None if left is None else time.monotonic() + max(left, 0.0)

    # -- what the kind decides before a run exists ------------------------------------------------

    @classmethod
    def plan(cls, fields: dict[str, Any]) -> Any:
        """A new run's options from its fields (its settings by its options' names): the one
        check of its deck, hand sizes and ranks, made before any store exists. ValueError
        (DeckInputError naming the setting) for what the kind cannot take."""
        return cls.options_type(**fields)

    @classmethod
    def prepare(
        cls, options: Any, given: Collection[str], store: Store, backend: Backend | None
    ) -> None:
        """Complete a new run's options, in place, with what only the store, the backend or
        the device knows (the streams a cluster runs, the known cycles of a store, the
        threads a GPU keeps resident); `given`: the fields the user set. Here: a stream per
        worker thread of the cluster, for a kind whose --workers are its streams."""
        if cls.streams_per_worker and "workers" not in given and backend is not None:
            options.workers = backend.default_streams()

    # -- what the loop asks, with defaults --------------------------------------------------------

    def warm_call(self) -> Callable[[], object]:
        """The kernels' warm-up as the backend calls it, with no arguments (a kind whose
        kernels depend on its options binds them here, so it compiles only what it runs)."""
        return self.warm

    def backend_text(self, where: str) -> str:
        """Where the chunks run, for the display: `where` is the backend's own words."""
        return where

    def commit_seconds(self) -> float:
        """The least time between commits; 0 commits every chunk as it comes."""
        return 0.0

    def commit_due(self, saved: float) -> bool:
        """Whether to commit what was absorbed now, the last commit made at `saved`
        (time.monotonic()): once commit_seconds() have passed (a kind may also commit sooner,
        when much is waiting)."""
        return time.monotonic() - saved >= self.commit_seconds()

    def past_time(self) -> bool:
        """Whether the run's time is up and, the kind taking its chunks in at more cost than
        they took (a loop hunt summarising new cycles), what is still to come is dropped
        rather than taken in past the time. False for kinds whose chunks are sized to end
        with the time."""
        return False

    def done(self, games: int, seconds: float) -> float | None:
        """The share of the run used: of its iterations or its time, whichever runs out first."""
        o = self.options
        shares = [games / o.iterations] if o.iterations else []
        shares += [seconds / o.seconds] if o.seconds else []
        return min(max(shares), 1.0) if shares else None

    def complete(self, seconds: float) -> bool:
        """Whether the run has used all its iterations or all its time."""
        if self.options.iterations is not None:
            return self.games >= self.options.iterations
        return self.options.seconds is not None and seconds >= self.options.seconds

    def status(self, seconds: float, stopped: bool) -> str:
        """How the run ends: 'interrupted' when stopped before its end, else 'finished'."""
        return "interrupted" if stopped and not self.complete(seconds) else "finished"

    def resumed(self) -> None:
        """Called once on a resumed run's job, after its progress is made."""

    def finishing(self) -> None:
        """Called once when a session ends, before the run is marked and summarised."""

    # -- what each kind of run says ---------------------------------------------------------------

    @property
    def streams(self) -> int:
        """How many streams the run has."""
        raise NotImplementedError

    @property
    def games(self) -> int:
        """The run's games, as committed."""
        raise NotImplementedError

    @staticmethod
    def work(stream: int, chunk: int, state: Any, options: Any, iterations: int) -> Any:
        """One chunk (see bmn.search.backends.base): a module-level function, set as a class
        attribute."""
        raise NotImplementedError

    @staticmethod
    def warm() -> None:
        """Compile or load the kernels `work` runs: a module-level function too."""
        raise NotImplementedError

    def restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        """Set every stream's state from the run's checkpoints (none for a new run)."""
        raise NotImplementedError

    def new_progress(self) -> RunProgress:
        raise NotImplementedError

    def stream_games(self, stream: int) -> int:
        """A stream's games, as committed."""
        raise NotImplementedError

    def stream_state(self, stream: int) -> Any:
        """The state a stream's next chunk starts from, as committed."""
        raise NotImplementedError

    def chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        """Iterations for a stream's next chunk, given its rate, its games once the chunks
        queued are done, and the seconds of work queued ahead; 0: none for now (asked again
        when the stream's next result is in; with nothing in flight, the stream is done)."""
        raise NotImplementedError

    def absorb(self, result: Result) -> None:
        """Take a stream's next chunk into the run, in memory."""
        raise NotImplementedError

    def save(self, seconds: float) -> None:
        """Commit what was absorbed since the last commit in one transaction."""
        raise NotImplementedError

    def summary(self, status: str, seconds: float) -> Any:
        raise NotImplementedError
