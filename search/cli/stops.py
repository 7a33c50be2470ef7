"""SIGINT (Ctrl-C) and SIGTERM in the `bmn` console script, from its first moment to its last.

Until the command's work is done and said, the first signal raises KeyboardInterrupt, which
the command line turns into `Aborted!` and status 130 (a search installs its own handler while
it runs: stop after a checkpoint); a second one, should the first be swallowed or its
stopping hang, ends bmn at once the same way. Once the command has said its last word
(`finished`), a signal ends bmn at once with the command's own status: the results are out,
and the interpreter's exit (joining threads, atexit, freeing modules: a tenth of a second with
numba loaded) is all that is left of it. Python resets its handlers to the system default just
before it frees the modules, where either signal would kill bmn silently (143, or -2): the
last atexit function (registered first) ignores both signals for those last moments instead.

Imports nothing of bmn: entry.py installs the handler before the command line is imported.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
ABORTED = 130

_state: dict[str, int | None] = {"status": None, "signals": 0}


def install() -> None:
    """Handle both signals from now until the process ends (the console script's first act)."""
    _state.update(status=None, signals=0)
    for sig in STOP_SIGNALS:
        signal.signal(sig, _stop)
    atexit.register(_ignore)  # atexit runs last what was registered first


def finished(status: int) -> None:
    """The command's work is done and said: a signal from now on exits with `status`."""
    _state["status"] = status


def _stop(signum: int, frame: object) -> None:
    status = _state["status"]
    if status is None:
        _state["signals"] = (_state["signals"] or 0) + 1
        if _state["signals"] == 1:
            raise KeyboardInterrupt
        sys.stderr.write("\nAborted!\n")
        status = ABORTED
    for stream in (sys.stdout, sys.stderr):  # what the command said, still buffered
        with contextlib.suppress(Exception):  # closed, full or mid-write: nothing to do
            stream.flush()
    os._exit(status)


def _ignore() -> None:
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
