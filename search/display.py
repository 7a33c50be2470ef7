"""Progress of a running search on stderr: a live panel on a terminal, log lines otherwise.

Works with any progress object that has `title()`, `rows()` (label, value pairs for the
panel) and `line()` (one log line)."""

from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.live import Live
from rich.table import Table

LOG_EVERY = 30.0  # seconds between log lines when stderr is not a terminal


def duration(seconds: float | None) -> str:
    """1h02m03s style; '-' when unknown."""
    if seconds is None:
        return "-"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


class Display:
    """Shows progress; use as a context manager and pass `update` to the driver."""

    def __init__(self, quiet: bool = False):
        self.console = Console(stderr=True)
        self.quiet = quiet
        self.live: Live | None = None
        self._last_log = 0.0

    def __enter__(self) -> Display:
        if not self.quiet and self.console.is_terminal:
            self.live = Live(console=self.console, refresh_per_second=2, transient=False)
            self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.__exit__(None, None, None)

    def update(self, p) -> None:
        if self.quiet:
            return
        if self.live is not None:
            self.live.update(self._panel(p))
        elif time.monotonic() - self._last_log >= LOG_EVERY:
            self._last_log = time.monotonic()
            print(p.line(), file=sys.stderr, flush=True)

    def _panel(self, p) -> Table:
        table = Table(title=p.title(), show_header=False, min_width=48)
        for label, value in p.rows():
            table.add_row(label, value)
        return table
