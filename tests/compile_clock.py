"""Numba's first compiles, timed apart from the tests.

On a cold cache most of a run's time is compiling (docs/development.md, "Tests"). A listener
on Numba's compile events sums the seconds of each compile a test starts (a callee's compile
inside its caller's is counted once, in the caller's); on pytest-xdist each worker sends its
sum to the controller, which prints them under the results.
"""

from __future__ import annotations

import os
import time

from numba.core import event

# BMN_COMPILE_LOG=FILE: each outermost compile also appends a line to FILE (seconds, the
# function, the test that asked for it), to see which tests a cold run spends its compiles on.
LOG = os.environ.get("BMN_COMPILE_LOG")


class CompileClock(event.Listener):
    """The compiles seen in this process and their seconds, outermost compiles only."""

    def __init__(self) -> None:
        self.compiles = 0
        self.seconds = 0.0
        self._depth = 0
        self._since = 0.0

    def on_start(self, _: event.Event) -> None:
        if self._depth == 0:
            self._since = time.perf_counter()
        self._depth += 1

    def on_end(self, e: event.Event) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.compiles += 1
            took = time.perf_counter() - self._since
            self.seconds += took
            if LOG:
                _log(took, e)


def _log(took: float, e: event.Event) -> None:
    dispatcher = (e.data or {}).get("dispatcher")
    func = getattr(dispatcher, "py_func", None)
    name = f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', '?')}"
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" ", 1)[0]
    with open(LOG, "a") as log:
        log.write(f"{took:.2f}\t{name}\t{test}\n")


def started() -> CompileClock:
    """A clock that hears every compile from now on."""
    clock = CompileClock()
    event.register("numba:compile", clock)
    return clock


def summary(figures: dict[str, tuple[int, float]]) -> str:
    """One line for the compiles of each process (its name: compiles, seconds)."""
    if not any(compiles for compiles, _ in figures.values()):
        return "numba compiles: none (every kernel came from the on-disk cache)"
    parts = ", ".join(f"{name} {n} in {s:.1f} s" for name, (n, s) in sorted(figures.items()))
    total = sum(s for _, s in figures.values())
    return f"numba compiles: {total:.1f} s of the run's process time ({parts})"
