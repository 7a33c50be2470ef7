"""Chunks, the unit of work of every search, and the interface of the backends that run them.

A run is cut into streams (a search's worker w draws from generator stream w) and each stream
into chunks. A chunk is a `Task`: a pure, module-level `work` function and its arguments,

    work(stream, chunk, state, options, iterations) -> (new state, finds, games)

deterministic and independent of where it runs, so a thread of this process and a worker of a
cluster compute the same thing, and picklable, so it can travel. `games` is how many iterations
it did: at most `iterations`, fewer when it stops early (a search chunk whose finds buffer is
full); the handler plans the rest into later chunks. `work` must not change the state it is
given: the state may be a result already handed back to the run.

A backend runs tasks and hands their results back; it writes nothing. The run loop
(bmn.search.runs.loop), in the process that owns the record store, decides every chunk, keeps
one or two of them in flight per stream and commits each result as it arrives. The contract a
backend keeps:
- the chunks of one stream run one after another, in the order submitted;
- a task whose `state` is None starts from the state its stream's previous chunk returned (so
  the next chunk can be queued before the previous one is back: a thread keeps the state, a
  cluster chains the task on the previous chunk's future);
- `next_result` raises the exception a task raised;
- results may arrive in any order and a result may arrive twice, or after its task was
  cancelled: the handler commits each chunk once, in order, and ignores the rest.

Backends are chosen by name in `BACKENDS` (registry.py), the one registry; each lives in a module
of its own (`threads.py`, `dask_cluster.py`), imported only when chosen, so an optional engine is
needed only by a user who asks for it. A backend that can no longer run chunks (a cluster
that cannot be reached, has gone away or runs another bmn) raises `BackendError`: the run
commits what it has, stops as interrupted, and the user gets one line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

# The state, options and finds are whatever the run's work function takes and returns: a
# search passes a WorkerState and LongestOptions, a loop hunt its generator state and options.


@dataclass(frozen=True)
class Task:
    """One chunk of one stream: `work(stream, chunk, state, options, iterations)`."""

    work: Callable[[int, int, Any, Any, int], tuple[Any, Any, int]]
    stream: int
    chunk: int  # numbered from 0 per stream and per session, in submission order
    state: Any  # None: the state the stream's previous chunk returned
    options: Any
    iterations: int

    @property
    def key(self) -> tuple[int, int]:
        return self.stream, self.chunk


@dataclass
class Result:
    """A chunk done: the stream's new state, what it found, and how much it did how fast."""

    stream: int
    chunk: int
    state: Any
    finds: Any
    games: int
    seconds: float  # time the work took where it ran: the stream's rate, for chunk sizes

    @property
    def key(self) -> tuple[int, int]:
        return self.stream, self.chunk


def run_task(task: Task, previous: Result | None = None) -> Result:
    """Run one chunk where this is called; `previous` is the stream's last result, the state
    of a task that has none of its own (a cluster backend passes the previous future)."""
    state = task.state if task.state is not None else getattr(previous, "state", None)
    if state is None:
        raise ValueError(f"chunk {task.chunk} of stream {task.stream} has no state to start from")
    start = time.perf_counter()
    new, finds, games = task.work(task.stream, task.chunk, state, task.options, task.iterations)
    return Result(task.stream, task.chunk, new, finds, games, time.perf_counter() - start)


class BackendError(RuntimeError):
    """A backend cannot run chunks any more; the message is one line for the user."""


class Backend(Protocol):
    """What the run handler needs from a way of running chunks."""

    name: str  # its name in BACKENDS
    where: str  # where chunks run, stored with the run: 'threads', 'dask tcp://host:8786'

    def details(self) -> str:
        """The size of what runs the chunks, for the display (after `start`): workers,
        threads, a dashboard link."""

    def default_streams(self) -> int:
        """Streams to run when the user names none: what the backend can run at once."""

    def start(self, streams: int, warm: Callable[[], object]) -> None:
        """Get ready to run `streams` streams; call `warm` (a module-level function that
        compiles or loads the kernels) wherever chunks will run, before the clock starts."""

    def submit(self, task: Task) -> None:
        """Queue a chunk; returns at once."""

    def next_result(self, timeout: float) -> Result | None:
        """The next chunk done, waiting at most `timeout` seconds (None if none is)."""

    def cancel(self) -> list[tuple[int, int]]:
        """Drop every chunk not yet started; their (stream, chunk) keys. Chunks running go
        on and their results still come (a stop then loses no work already under way)."""

    def close(self) -> None:
        """Drop what is queued, wait for what runs and release everything `start` took."""
