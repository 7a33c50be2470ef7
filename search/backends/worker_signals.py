"""A Dask preload for the worker processes of `--cluster local`: Ctrl-C at a terminal, and
the SIGHUP of a terminal that closed, reach every process of its group, and the search stops
its workers itself after a checkpoint, so a worker ignores SIGINT (instead of printing a
traceback of its own before the resume line) and SIGHUP (instead of dying mid-chunk)."""

from __future__ import annotations

import signal
import threading
from typing import Any


def dask_setup(worker: Any) -> None:
    """Dask calls this in each worker process as it starts."""
    if threading.current_thread() is threading.main_thread():  # where a handler can be set
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
