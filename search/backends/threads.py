"""The threads backend: every stream on a thread of this process, the default.

Compiled chunks release the GIL, so the streams run in parallel on the cores while the main
thread commits results. Each stream's thread takes its tasks in order from a queue of its own
and keeps its last result, the state a chained task (state None) starts from; with the next
chunk already queued, a thread never waits for the main thread between chunks.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable

from bmn.search.backends.base import Result, Task, run_task


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

    def default_streams(self) -> int:
        return default_workers()

    def details(self) -> str:
        threads, cores = len(self._threads), default_workers()
        return f"{threads} thread{'s' * (threads != 1)} on {cores} core{'s' * (cores != 1)}"

    def start(self, streams: int, warm: Callable[[], object]) -> None:
        warm()  # once: compiled code is shared by every thread
        self._results = queue.Queue()
        self._tasks = [queue.Queue() for _ in range(streams)]
        self._threads = [
            threading.Thread(target=self._serve, args=(tasks,), daemon=True, name=f"bmn-stream-{s}")
            for s, tasks in enumerate(self._tasks)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, task: Task) -> None:
        self._tasks[task.stream].put(task)

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
        self.cancel()
        for tasks in self._tasks:
            tasks.put(None)
        for thread in self._threads:
            thread.join()
        self._tasks, self._threads = [], []

    def _serve(self, tasks: queue.Queue[Task | None]) -> None:
        """A stream's thread: run its tasks in order until told to stop (None)."""
        previous = None
        while (task := tasks.get()) is not None:
            try:
                previous = run_task(task, previous)
            except Exception as err:  # the main thread raises it; this stream is over
                self._results.put(err)
                return
            self._results.put(previous)
