"""Progress on stderr: a running search's live panel (log lines when stderr is not a terminal)
and the byte progress bar of `bmn score`.

`Display` shows a run's progress through one typed view (`RunView`: what every run's progress
has, search/runs/progress.py); a longest-game run's view has the odds of a longer game
(bmn.search.measure.odds), shown as a row of the panel and a log line after each line, and
read by the run's summary too, so they are computed once."""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any, Protocol

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from bmn.search.api import duration, odds_row, starts_too

if TYPE_CHECKING:
    from bmn.search.api import Odds

LOG_EVERY = 30.0  # seconds between log lines when stderr is not a terminal
# The live panel's columns, or the terminal's if fewer: one width from the start (compiling)
# to the end, not a panel that grows with its rows; a 4-seat deal's row fits it whole.
PANEL_COLUMNS = 100


class RunView(Protocol):
    """What the display reads of a run's progress (runs/progress.py's RunProgress is one)."""

    run: int
    store: str
    notes: list  # warnings, each shown once (text, or words the command line says)
    starting: float | None  # seconds into the start; None once the run runs
    compiling: bool
    done: float | None  # the share of the run used, or None

    def heading(self) -> str: ...
    def header(self) -> Any: ...  # text, or said.py's Words (the resume command in it)
    def hint(self) -> Any: ...
    def setting(self) -> str: ...
    def starting_text(self) -> str: ...
    def rows(self) -> list[tuple[str, str]]: ...
    def line(self) -> str: ...
    def odds(self) -> Odds | None: ...


class Display:
    """Shows progress; use as a context manager and pass `update` to the run loop.

    On a terminal, a live panel: the title, a bar of the share of --time or --iterations used
    (for a progress object whose `done` is not None), its rows, and its `hint()` below. Off a
    terminal, its `header()` once, then a `line()` every LOG_EVERY seconds. A progress
    object's `notes` (warnings) are printed once each, even with `quiet`. `say` puts what
    names a setting or a command (said.py's Words) in the front end's words: the command
    line's by default, the library passes Python's."""

    def __init__(self, quiet: bool = False, say: Callable[[Any], str] = str):
        self.console = Console(stderr=True)
        self.quiet = quiet
        self.say = say
        self.live: Live | None = None
        self._last_log = 0.0
        self._start_logged = 0.0
        self._headed = False
        self._noted = 0

    def __enter__(self) -> Display:
        if not self.quiet and self.console.is_terminal:
            self._echo = no_echo(sys.stdin)
            self._echo.__enter__()
            self.live = Live(console=self.console, refresh_per_second=2, transient=False)
            self.live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.live is not None:
            self.live.__exit__(None, None, None)
            self._echo.__exit__(None, None, None)

    @starts_too
    def update(self, p: RunView) -> None:
        for note in p.notes[self._noted :]:
            self._print(self.say(note))
            self._noted += 1
        if self.quiet:
            return
        if self.live is not None:
            self.live.update(self._panel(p))
            return
        if p.starting is not None:
            self._log_start(p)
            return
        if not self._headed:  # once started: it names the backend
            self._headed = True
            self._print(self.say(p.header()))
        if time.monotonic() - self._last_log >= LOG_EVERY:
            self._last_log = time.monotonic()
            self._print(p.line())
            odds = p.odds()
            if odds is not None:
                self._print(f"run {p.run} odds: {odds_row(odds)}")

    def _log_start(self, p: RunView) -> None:
        """While a run starts: a line once it is seen to compile (a cache load is quick and
        says nothing), then one every LOG_EVERY seconds until it runs."""
        if p.compiling and time.monotonic() - self._start_logged >= LOG_EVERY:
            self._start_logged = time.monotonic()
            self._print(f"{p.heading()}: {p.starting_text()}")

    def _print(self, text: str) -> None:
        if self.live is not None:  # above the live panel
            self.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=sys.stderr, flush=True)

    def _panel(self, p: RunView) -> Table:
        width = min(self.console.width, PANEL_COLUMNS)
        table = Table(title=p.heading(), show_header=False, width=width)
        if p.starting is not None:  # nothing to count yet
            table.add_row("store", p.store)
            table.add_row("run", p.setting())
            table.add_row("starting", p.starting_text())
            table.add_row("Ctrl-C", "stops at once; nothing is searched yet", style="dim")
            return table
        if p.done is not None:
            table.add_row("progress", progress_bar(p.done, color=_colored(self.console)))
        for label, value in p.rows():
            table.add_row(label, value)
        odds = p.odds()
        if odds is not None:
            table.add_row("odds", odds_row(odds, lines=True))
        # Under the table, the panel's whole width: the command to copy on a line of its own.
        table.caption = _own_line(self.say(p.hint()))
        table.caption_justify, table.caption_style = "left", "dim"
        return table


def _own_line(hint: str) -> str:
    """How to stop and resume, the command to copy on a line of its own: a cell or a line
    wraps at spaces, and a command split over two lines cannot be copied."""
    said, colon, command = hint.partition(": bmn ")
    return f"{said}:\nbmn {command}" if colon else hint


@contextmanager
def no_echo(stream: IO) -> Iterator[None]:
    """The terminal on `stream` echoes nothing typed meanwhile, Ctrl-C's '^C' included: an
    echo lands below the live panel, and when the panel is as wide as the terminal it takes a
    line of its own, so the next refresh redraws one line low and leaves the title above it
    twice. Nothing is done where `stream` is no terminal."""
    try:
        import termios

        fd = stream.fileno()
        before = termios.tcgetattr(fd)
    except (ImportError, OSError, ValueError, AttributeError):  # not a terminal, or Windows
        yield
        return
    quiet = list(before)
    quiet[3] &= ~(termios.ECHO | termios.ECHOCTL)  # the local modes
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, before)


def progress_bar(done: float, width: int = 32, color: bool = True) -> Text:
    """A bar and its percentage, for a panel's row. Without colour (NO_COLOR, or a terminal
    with none) the part still to go is a thin line, not the done part's heavy one in another
    colour, which would read as a full bar."""
    filled = round(done * width)
    bar = Text("━" * filled, style="bar.complete")
    bar.append(("━" if color else "─") * (width - filled), style="bar.back")
    bar.append(f" {done:.0%}")
    return bar


def _colored(console: Console) -> bool:
    """Whether `console` draws colours: NO_COLOR set, or no colour system, says not."""
    return not console.no_color and console.color_system is not None


@contextmanager
def file_progress(path: str, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr (when it is a terminal) over the bytes of the file at `path`
    (its size unknown for a pipe or a device); yields `reach(nbytes read so far)`."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

    try:
        info = os.stat(path)
        total = info.st_size if stat.S_ISREG(info.st_mode) else None
    except OSError:
        total = None
    columns = (TextColumn(label), BarColumn(), DownloadColumn())
    console = Console(stderr=True)
    with Progress(
        *columns, _clock("elapsed"), console=console, disable=not sys.stderr.isatty()
    ) as bar:
        task = bar.add_task(label, total=total)
        yield lambda nbytes: bar.update(task, completed=nbytes)


@contextmanager
def byte_progress(source: IO) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr (when it is a terminal) over the bytes of a file or stdin;
    yields `advance(nbytes, lines)`."""
    from rich.progress import BarColumn, Progress, TextColumn

    try:
        info = os.fstat(source.fileno())
        total = info.st_size if stat.S_ISREG(info.st_mode) else None
    except (OSError, ValueError, AttributeError):  # not a real file (tests, pipes)
        total = None
    columns = (TextColumn("scoring"), BarColumn(), TextColumn("{task.fields[lines]:,} deals"))
    console = Console(stderr=True)
    with Progress(
        *columns, _clock("elapsed"), console=console, disable=not sys.stderr.isatty()
    ) as bar:
        task = bar.add_task("scoring", total=total, lines=0)
        yield lambda nbytes, lines: bar.update(
            task, advance=nbytes, lines=bar.tasks[0].fields["lines"] + lines
        )


@contextmanager
def compiling_said(what: str) -> Iterator[None]:
    """One line on stderr, terminal or not, when numba starts compiling inside: a first run
    of `what` (a rule set's kernels) compiles for a minute or more, which would otherwise pass
    in silence; a run that loads them from the cache says nothing."""
    from numba.core import event

    said = False

    class Said(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            nonlocal said
            if not said:
                said = True
                line = f"compiling the kernels for {what} on this machine, once: a minute or two"
                print(line, file=sys.stderr, flush=True)

        def on_end(self, ev: event.Event) -> None:
            pass

    listener = Said()
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)


def _clock(which: str):
    """A rich column of a task's elapsed or remaining time, written as the panel writes it
    (search/words.py: duration), '-' while unknown."""
    from rich.progress import ProgressColumn

    class Clock(ProgressColumn):
        def render(self, task) -> Text:
            seconds = task.elapsed if which == "elapsed" else task.time_remaining
            return Text(duration(seconds), style=f"progress.{which}")

    return Clock()


def stderr_is_terminal() -> bool:
    """Whether progress bars may be drawn: stderr is a terminal (tests patch this)."""
    return Console(stderr=True).is_terminal


@contextmanager
def count_progress(
    label: str, total: int | None, unit: str = "deals", log_every: float | None = None
) -> Iterator[Bar | LogBar]:
    """A progress bar on stderr over `total` items (None: of unknown length, a pulsing bar
    with the time), drawn only when stderr is a terminal; off a terminal, a line every
    `log_every` seconds if given, else nothing; never anything on stdout. Yields a bar:
    `advance(n)`, or `reach(done)`."""
    if log_every is not None and not stderr_is_terminal():
        yield LogBar(label, total, unit, log_every)
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

    columns = [TextColumn(label), BarColumn()]
    if total is not None:
        # Counts and clocks as the search panel and the tables write them: 1,100,000 of
        # 5,000,000 deals, 0m02s.
        counts = TextColumn(f"{{task.completed:,.0f}} of {{task.total:,.0f}} {unit}")
        columns += [TaskProgressColumn(), counts, _clock("elapsed"), TextColumn("elapsed,")]
        columns += [_clock("remaining"), TextColumn("left")]
    else:
        columns.append(_clock("elapsed"))
    console = Console(stderr=True, force_terminal=True) if stderr_is_terminal() else None
    # No redirection: rich would send what the command prints on stdout through the bar's
    # console, to stderr.
    with Progress(
        *columns,
        console=console,
        disable=console is None,
        redirect_stdout=False,
        redirect_stderr=False,
    ) as progress:
        yield Bar(progress, progress.add_task(label, total=total))


class LogBar:
    """A bar's progress as log lines on stderr, for a pipe: 'checking: 40,960 of 200,000
    deals (20%), 0m12s elapsed', at most one every `every` seconds."""

    def __init__(self, label: str, total: int | None, unit: str, every: float) -> None:
        self.label, self.total, self.unit, self.every = label, total, unit, every
        self.done = 0
        self._start = self._logged = time.monotonic()

    def advance(self, n: int) -> None:
        self.reach(self.done + n)

    def reach(self, done: int) -> None:
        self.done = done
        if time.monotonic() - self._logged >= self.every:
            self._logged = time.monotonic()
            of = "" if self.total is None else f" of {self.total:,}"
            share = "" if not self.total else f" ({done / self.total:.0%})"
            elapsed = duration(time.monotonic() - self._start)
            line = f"{self.label}: {done:,}{of} {self.unit}{share}, {elapsed} elapsed"
            print(line, file=sys.stderr, flush=True)

    def finish(self, done: int) -> None:
        self.done = done


class Bar:
    """One bar of a rich Progress: `advance(n)` items more, or `reach(done)` items in all."""

    def __init__(self, progress, task) -> None:
        self._progress, self._task = progress, task

    def advance(self, n: int) -> None:
        self._progress.update(self._task, advance=n)

    def reach(self, done: int) -> None:
        self._progress.update(self._task, completed=done)

    def finish(self, done: int) -> None:
        """The work ended after `done` items, short of the total: a full bar."""
        self._progress.update(self._task, total=done, completed=done)
