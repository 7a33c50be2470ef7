"""The `bmn` console script: SIGTERM handled from its first moment, then the command line.

Importing the command line takes about half a second (click, numpy, the store). Until now a
SIGTERM in that time killed bmn without a word (status 143); here, before any of it is
imported, SIGTERM is made to stop bmn as Ctrl-C does: `Aborted!` and status 130 until a
command runs, and a search installs its own handler (stop after a checkpoint) once it begins.
"""

from __future__ import annotations

import signal
import sys


def main() -> None:
    """Console entry point."""
    try:
        signal.signal(signal.SIGTERM, signal.default_int_handler)  # as Ctrl-C
        from bmn.search.cli.main import main as bmn
    except KeyboardInterrupt:
        sys.stderr.write("Aborted!\n")
        sys.exit(130)
    bmn()
