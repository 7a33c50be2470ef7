"""The threads backend: every stream on a thread of this process, the default.

Compiled chunks release the GIL, so the streams run in parallel on the cores while the main
thread commits results. There is one thread per core at most, each serving its share of the
streams (stream s on thread s % threads): it takes their tasks in order from a queue of its
own and keeps each stream's last result, the state a chained task (state None) starts from;
with the next chunks already queued, a thread never waits for the main thread between chunks.
More threads than cores would gain nothing and cost much: a thread the system pauses while it
holds the GIL (between compiled chunks) stalls every other, and with a thousand threads on two
cores such pauses stretched a 3 s search to 18 s.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable

from bmn.search.backends.base import Result, Task, run_task
from bmn.search.words import counted


def default_workers() -> int:
    """Every core this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


class ThreadBackend:
    """Streams on threads of this process (see the module's docstring)."""

    name = "threads"

    def __init__(self, where: str = "threads") -> None:
        self.where = where  # what a run stores as where it ran: a GPU run's thread says cuda
        self._tasks: list[queue.Queue[Task | None]] = []
        self._threads: list[threading.Thread] = []
        self._results: queue.Queue[Result | Exception] = queue.Queue()
        # A run stopped while the kernels compile closes the backend before `start` (on
        # another thread) is done: a start that sees a close since it began starts nothing.
        self._lock = threading.Lock()
        self._closes = 0

    def default_streams(self) -> int:
        return default_workers()

    def details(self) -> str:
        threads, cores = len(self._threads), default_workers()
        return f"{counted(threads, 'thread')} on {counted(cores, 'core')}"

    def start(self, streams: int, warm: Callable[[], object]) -> None:
        closes = self._closes
        warm()  # once: compiled code is shared by every thread
        with self._lock:
            if self._closes != closes:
                return
            self._results = queue.Queue()
            self._tasks = [queue.Queue() for _ in range(min(streams, default_workers()))]
            self._threads = [
                threading.Thread(target=self._serve, args=(t,), daemon=True, name=f"bmn-stream-{s}")
                for s, t in enumerate(self._tasks)
            ]
            for thread in self._threads:
                thread.start()

    def submit(self, task: Task) -> None:
        self._tasks[task.stream % len(self._tasks)].put(task)

    def next_result(self, timeout: float) -> Result | None:
        try:
            item = self._results.get(timeout=timeout)
        except queue.Empty:
            return None
        if isinstance(item, Exception):
            raise item
        return item

    def cancel(self) -> list[tuple[int, int]]:
        dropped = []
        for tasks in self._tasks:
            while True:  # get_nowait: each task goes either to its thread or here, never both
                try:
                    task = tasks.get_nowait()
                except queue.Empty:
                    break
                if task is not None:
                    dropped.append(task.key)
        return dropped

    def close(self) -> None:
        with self._lock:
            self._closes += 1
            self.cancel()
            tasks, threads = self._tasks, self._threads
            self._tasks, self._threads = [], []
        for queued in tasks:
            queued.put(None)
        for thread in threads:
            thread.join()

    def _serve(self, tasks: queue.Queue[Task | None]) -> None:
        """A thread: run its streams' tasks in order until told to stop (None)."""
        previous: dict[int, Result] = {}  # each stream's last result
        while (task := tasks.get()) is not None:
            try:
                result = run_task(task, previous.get(task.stream))
            except Exception as err:  # the main thread raises it; these streams are over
                self._results.put(err)
                return
            previous[task.stream] = result
            self._results.put(result)
