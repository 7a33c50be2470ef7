"""The `bmn` command line: the group, its error mapping and the entry point.

The commands live in one module per family beside this one, each registered here with
`add_command`: game.py (play, deal, loop, preimages, plot), kernel.py (score, bench,
selfcheck, stats), search.py (search, search-bench), records.py (the `records` group) and
device.py (what `--device cuda` does). What they share (options, parameter types, reading a
deal, `echo`) is in options.py; the text they print is built in bmn.frontends.output. Heavy
imports (numba, the kernels) happen inside commands so `bmn --help` stays instant. Results go
to stdout; progress and logs go to stderr.
"""

from __future__ import annotations

import contextlib
import errno
import re
import sys
import traceback
from typing import Any

import click

from bmn.frontends.cli import deals, game, kernel, records, search, stops
from bmn.kernels.api import DealError
from bmn.records.api import StoreError, StoreMissing


class BmnGroup(click.Group):
    """The error contract of every command, in one place.

    An error is one line on stderr, `Error: <what is wrong>`, then for a usage error one hint
    line, `Try 'bmn CMD --help' for help.`; nothing else (click's own usage errors print the
    usage and a blank line first). Exit status: 2 for bad input (options, arguments, deals,
    files of deals), 1 for a store or file bmn cannot use, or results that cannot be written
    (stdout on a full disk); see the README's table. bmn's own errors are mapped here; --debug
    prints the traceback behind any error. A bare group (`bmn`, `bmn records`) prints its help,
    as --help does.
    """

    def main(self, args: Any = None, *pos: Any, standalone_mode: bool = True, **kw: Any) -> Any:
        if not standalone_mode:
            return super().main(args, *pos, standalone_mode=False, **kw)
        out = sys.stdout = GuardedOutput(sys.stdout)
        log = sys.stderr = GuardedOutput(sys.stderr, quiet=True)
        try:
            code = self.run(args, *pos, **kw)
            code = code if isinstance(code, int) else 0  # an int: click's exit (--help)
            out.flush()  # results still buffered fail here, inside the contract
        except click.ClickException as err:
            show_error(err)
            code = err.exit_code
        except click.Abort:  # Ctrl-C outside a search (which checkpoints and exits 130 itself)
            click.echo("Aborted!", err=True)
            code = 130
        except BrokenPipeError:  # the reader went away (`| head -1`): quiet, as click does it
            out.close_quietly()
            code = 1
        except SystemExit as done:  # a command's own status (a search interrupted: 130)
            if not isinstance(done.code, int | None):
                raise
            code = done.code or 0
        finally:
            sys.stdout = out.stream if out.usable else out
            sys.stderr = log.stream if log.usable else log
        stops.finished(code)  # done and said: a signal from here on exits with this status
        sys.exit(code)

    def run(self, *args: Any, **kw: Any) -> Any:
        """click's main, but a bare group (`bmn`, `bmn records`) prints its help on stdout
        and exits 0, as --help does, not click's usage error."""
        try:
            return super().main(*args, standalone_mode=False, **kw)
        except click.exceptions.NoArgsIsHelpError as err:
            click.echo(err.ctx.get_help())
            return 0

    def invoke(self, ctx: click.Context) -> Any:
        def debug() -> bool:  # set by the group's callback, inside super().invoke
            return bool(ctx.obj and ctx.obj.get("debug"))

        try:
            return super().invoke(ctx)
        except click.NoSuchOption as err:
            if debug():
                traceback.print_exc()
            if err.option_name != "--debug":
                raise
            path = (err.ctx or ctx).command_path.split(" ", 1)
            raise click.UsageError(
                f"--debug is an option of bmn itself: put it before the command,"
                f" as in '{path[0]} --debug {path[-1]} ...'",
                err.ctx,
            ) from None
        except click.ClickException as err:
            if debug():
                traceback.print_exception(err.__cause__ or err.__context__ or err)
            raise
        except DealError as err:
            if debug():
                traceback.print_exc()
            raise click.UsageError(deals.in_cli_words(str(err)), ctx) from None
        except StoreError as err:  # a missing, foreign, newer, damaged or busy store: exit 1
            if debug():
                traceback.print_exc()
            raise click.ClickException(store_words(err)) from None
        except MemoryError:
            if debug():
                traceback.print_exc()
            raise click.ClickException(
                "out of memory: ask for less (fewer deals or states)"
            ) from None
        except OSError as err:  # a file that cannot be read (`bmn score /proc/self/mem`)
            if isinstance(err, BrokenPipeError):
                raise  # the reader went away: main ends quietly
            if debug():
                traceback.print_exc()
            where = f" {err.filename}" if err.filename else ""
            raise click.ClickException(
                f"could not read or write{where}: {err.strerror or err}"
            ) from None


def store_words(err: StoreError) -> str:
    """A store's refusal as the command line says it: a missing store is named with --store."""
    if isinstance(err, StoreMissing):
        return (
            f"no record store at {err.path}; run `bmn search` to make one,"
            " or point --store / BMN_STORE at an existing store"
        )
    return str(err)


class OutputError(click.ClickException):
    """Results that could not be written: stdout on a full disk, /dev/full, an I/O error."""

    def __init__(self, err: OSError):
        super().__init__(f"could not write the output: {err.strerror or err}")


class GuardedOutput:
    """sys.stdout (or, `quiet`, sys.stderr) while a command runs, so every command keeps the
    error contract when what it prints cannot be written. On stdout a write or flush that
    fails raises OutputError (one line, exit 1; anything stored was committed before its
    results were printed); a closed pipe (EPIPE) is passed on as it is, and click ends
    quietly, as `bmn ... | head -1` expects. On stderr (warnings, progress, the error line)
    a failure is dropped: there is nowhere to say it, and the results still go to stdout.
    After one failure nothing more is tried, so the interpreter's flush at exit adds no
    second error. A character the stream's encoding cannot write (`PYTHONIOENCODING=latin-1`
    and a store named with a euro sign) is escaped, `\\u20ac`, on stdout as Python does on
    stderr, rather than end a command in UnicodeEncodeError after its run is stored.
    Everything else is the stream's own."""

    def __init__(self, stream: Any, quiet: bool = False):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            with contextlib.suppress(OSError, ValueError):  # closed or failing: said on write
                stream.reconfigure(errors="backslashreplace")
        self.stream = stream
        self.quiet = quiet
        self.usable = True

    def write(self, text: Any) -> int:
        if not self.usable or text == "":  # click probes the stream with write(""): no-op
            return len(text)
        if self.stream is None:  # started with the descriptor closed (`bmn ... >&-`)
            if not isinstance(text, str):  # click's probe for a binary stream: a text one
                raise TypeError("write() argument must be str")
            self.usable = False
            if self.quiet:
                return len(text)
            raise OutputError(OSError(errno.EBADF, "stdout is closed"))
        return self._guarded(self.stream.write, text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.usable and self.stream is not None:
            self._guarded(self.stream.flush)

    def close_quietly(self) -> None:
        self.usable = False

    def _guarded(self, call: Any, *args: Any) -> Any:
        try:
            return call(*args)
        except OSError as err:
            self.usable = False
            if self.quiet:
                return None
            if err.errno == errno.EPIPE:
                raise
            raise OutputError(err) from err

    def isatty(self) -> bool:
        return self.stream is not None and self.stream.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


LONGEST_ERROR = 1_000  # characters of an error line: what is wrong, not the whole input


def show_error(err: click.ClickException) -> None:
    """The one line of an error, and for a usage error the line that says where help is."""
    message = " ".join(err.format_message().split())
    if len(message) > LONGEST_ERROR:  # a value echoed back whole (an argument can be 128 KB)
        cut = message[: LONGEST_ERROR - 100]
        message = f"{cut}... ({len(message) - len(cut):,} more characters) ...{message[-80:]}"
    from bmn.frontends.output.wrap import fit, stderr_width

    click.echo(fit(f"Error: {message}", stderr_width()), err=True)
    ctx = getattr(err, "ctx", None)
    usage = isinstance(err, click.UsageError) and ctx is not None
    if usage and ctx.command.get_help_option(ctx) is not None:
        click.echo(f"Try '{ctx.command_path} --help' for help.", err=True)


@click.group(cls=BmnGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--debug",
    is_flag=True,
    help="Print the traceback behind an error, before its Error line (bmn's own option: it"
    " goes before the command).",
)
@click.version_option(package_name="bmn")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """bmn: find, verify and compare the longest games of Beggar-My-Neighbour.

    \b
    Examples:
      bmn play ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
      bmn deal --players 3 --seed 7
      bmn records published
      bmn --debug play -X/Q-    # exit 2: a bad card, and the traceback behind it
    """
    ctx.obj = {"debug": debug}


for family in (game, kernel, search, records):
    for command in family.COMMANDS:
        cli.add_command(command)


def name_the_command(command: click.Command) -> None:
    """Give click's own parsing errors (an option missing its value, a flag given one) the
    command they are about, as its other usage errors have, so that the `Try` line names it;
    for `command` and every command under it."""
    parse = command.parse_args

    def parse_args(ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return parse(ctx, args)
        except click.UsageError as err:
            if err.ctx is None:
                err.ctx = ctx
            raise

    command.parse_args = parse_args  # type: ignore[method-assign]
    for sub in getattr(command, "commands", {}).values():
        name_the_command(sub)


name_the_command(cli)


def summarise(command: click.Command) -> None:
    """Give `command` and every command under it a summary for its group's --help: the first
    sentence of its help, whole (click cuts its own at the width left, mid-sentence, '...')."""
    if command.short_help is None and command.help:
        paragraph = " ".join(command.help.split("\n\n")[0].split())
        command.short_help = re.split(r"(?<=\.)\s", paragraph, maxsplit=1)[0]
    for sub in getattr(command, "commands", {}).values():
        summarise(sub)


for family in (game, kernel, search, records):
    for command in family.COMMANDS:
        summarise(command)


def main() -> None:
    """Console entry point."""
    cli(prog_name="bmn")


if __name__ == "__main__":
    main()
