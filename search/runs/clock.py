"""A run's search time: wall time while the process runs, not while it is stopped.

A run's `seconds` (its --time, its rate, the store's record of it) are time spent searching.
Wall time would count the hours a process stopped with SIGSTOP (Ctrl-Z, a debugger, a
suspended laptop) spends doing nothing; process CPU time would count every thread (and none
of a Dask cluster's). So a ticking thread measures wall time in short steps and caps each:
a step longer than CAP_SECONDS can only be a process that did not run, and counts as
CAP_SECONDS. The search's own threads never hold the GIL for long (the kernels release it),
so the ticks come on time while the process runs.
"""

from __future__ import annotations

import threading
import time

TICK_SECONDS = 0.05
CAP_SECONDS = 1.0  # twenty ticks late: the process was stopped


class SearchClock:
    """Seconds searched since `start()`, each tick's wall time capped at CAP_SECONDS."""

    def __init__(self) -> None:
        self._counted = 0.0
        self._last = time.monotonic()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start counting from zero now."""
        self.stop()
        with self._lock:
            self._counted, self._last = 0.0, time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._tick, daemon=True, name="bmn-clock")
        self._thread.start()

    def stop(self) -> None:
        """Stop counting (the time so far is kept)."""
        if self._thread is not None:
            self._done.set()
            self._thread.join()
            self._thread = None

    def seconds(self) -> float:
        """The seconds counted, up to now."""
        with self._lock:
            if self._thread is None:  # not started, or stopped: what was counted
                return self._counted
            return self._counted + min(time.monotonic() - self._last, CAP_SECONDS)

    def _tick(self) -> None:
        while not self._done.wait(TICK_SECONDS):
            self._add()
        self._add()

    def _add(self) -> None:
        with self._lock:
            now = time.monotonic()
            self._counted += min(now - self._last, CAP_SECONDS)
            self._last = now
