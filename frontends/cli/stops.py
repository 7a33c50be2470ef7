"""SIGINT (Ctrl-C), SIGTERM and SIGHUP in the `bmn` console script, from its first moment to its
last.

Until the command's work is done and said, the first signal raises KeyboardInterrupt, which
the command line turns into `Aborted!` and status 130 (a search installs its own handler while
it runs: stop after a checkpoint); a second one, should the first be swallowed or its
stopping hang, ends bmn at once the same way. Once the command has said its last word
(`finished`), a signal ends bmn at once with the command's own status: the results are out,
and the interpreter's exit (joining threads, atexit, freeing modules: a tenth of a second with
numba loaded) is all that is left of it. Python resets its handlers to the system default just
before it frees the modules, where any of them would kill bmn silently (143, -2 or -1): the
last atexit function (registered first) ignores them for those last moments instead.

SIGHUP (the terminal closed, an SSH session dropped) is SIGTERM's twin, with one difference: a
bmn started with it ignored (`nohup bmn ...`) keeps ignoring it, as nohup asks. The terminal
that hung up may fail every write to it (EIO): nothing said here may raise.

Imports nothing of bmn: entry.py installs the handler before the command line is imported.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
ABORTED = 130

_state: dict[str, int | None] = {"status": None, "signals": 0}


def install() -> None:
    """Handle the signals from now until the process ends (the console script's first act)."""
    _state.update(status=None, signals=0)
    for sig in handled():
        signal.signal(sig, _stop)
    atexit.register(_ignore)  # atexit runs last what was registered first


def handled() -> tuple[int, ...]:
    """The signals that stop bmn, of STOP_SIGNALS: all of them but SIGHUP where this process
    was started with it ignored (nohup), which stays ignored (search/runs/start.py's Stopping
    asks the same)."""
    return tuple(s for s in STOP_SIGNALS if not ignored_hangup(s))


def ignored_hangup(sig: int) -> bool:
    """Whether `sig` is SIGHUP and ignored now (`nohup`, or a parent that set it so)."""
    return sig == signal.SIGHUP and signal.getsignal(sig) == signal.SIG_IGN


def finished(status: int) -> None:
    """The command's work is done and said: a signal from now on exits with `status`."""
    _state["status"] = status


def _stop(signum: int, frame: object) -> None:
    status = _state["status"]
    if status is None:
        _state["signals"] = (_state["signals"] or 0) + 1
        if _state["signals"] == 1:
            raise KeyboardInterrupt
        with contextlib.suppress(Exception):  # a terminal that hung up: EIO, nowhere to say it
            sys.stderr.write("\nAborted!\n")
        status = ABORTED
    for stream in (sys.stdout, sys.stderr):  # what the command said, still buffered
        with contextlib.suppress(Exception):  # closed, full or mid-write: nothing to do
            stream.flush()
    os._exit(status)


def _ignore() -> None:
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
