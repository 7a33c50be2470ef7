"""The `bmn` console script: SIGINT and SIGTERM handled from its first moment to its last,
then the command line.

Importing the command line takes about half a second (click, numpy, the store), and the
interpreter's exit about a tenth of a second more. A signal in either used to kill bmn without
a word (status 143, or -2). Here the handler is installed before any of it is imported
(stops.py): until the command's work is done and said, SIGTERM stops bmn as Ctrl-C does,
`Aborted!` and status 130 (a search installs its own handler, stop after a checkpoint, while it
runs); after it, bmn exits at once with the command's own status.
"""

from __future__ import annotations

import sys

from bmn.frontends.cli import stops


def main() -> None:
    """Console entry point."""
    try:
        stops.install()
        from bmn.frontends.cli.main import main as bmn

        bmn()  # exits with the command's status, once it is done and said (stops.finished)
    except KeyboardInterrupt:  # before the command line took over, or in its last steps
        stops.finished(stops.ABORTED)
        sys.stderr.write("Aborted!\n")
        sys.exit(stops.ABORTED)
