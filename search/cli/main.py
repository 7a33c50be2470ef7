"""The `bmn` command line: the group, its error mapping and the entry point.

The commands live in one module per family beside this one, each registered here with
`add_command`: game.py (play, deal, loop, preimages, plot), kernel.py (score, bench,
selfcheck, stats), search.py (search, search-bench), records.py (the `records` group) and
device.py (what `--device cuda` does). What they share (options, parameter types, reading a
deal, `echo`) is in options.py; the text they print is built in bmn.search.output. Heavy
imports (numba, the kernels) happen inside commands so `bmn --help` stays instant. Results go
to stdout; progress and logs go to stderr.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

import click

from bmn.kernels.deal import DealError
from bmn.records.store import StoreError
from bmn.search.cli import game, kernel, records, search


class BmnGroup(click.Group):
    """The error contract of every command, in one place.

    An error is one line on stderr, `Error: <what is wrong>`, then for a usage error one hint
    line, `Try 'bmn CMD --help' for help.`; nothing else (click's own usage errors print the
    usage and a blank line first). Exit status: 2 for bad input (options, arguments, deals,
    files of deals), 1 for a store or file bmn cannot use; see the README's table. bmn's own
    errors are mapped here; --debug prints the traceback behind any error.
    """

    def main(self, args: Any = None, *pos: Any, standalone_mode: bool = True, **kw: Any) -> Any:
        if not standalone_mode:
            return super().main(args, *pos, standalone_mode=False, **kw)
        try:
            code = super().main(args, *pos, standalone_mode=False, **kw)
        except click.ClickException as err:
            show_error(err)
            sys.exit(err.exit_code)
        except click.Abort:  # Ctrl-C outside a search (which checkpoints and exits 130 itself)
            click.echo("Aborted!", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)  # an int: click's exit (--help, --version)

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
            raise click.UsageError(str(err), ctx) from None
        except StoreError as err:  # a missing, foreign, newer, damaged or busy store: exit 1
            if debug():
                traceback.print_exc()
            raise click.ClickException(str(err)) from None
        except MemoryError:
            if debug():
                traceback.print_exc()
            raise click.ClickException(
                "out of memory: ask for less (fewer deals or states)"
            ) from None


def show_error(err: click.ClickException) -> None:
    """The one line of an error, and for a usage error the line that says where help is."""
    message = " ".join(err.format_message().split())
    click.echo(f"Error: {message}", err=True)
    ctx = getattr(err, "ctx", None)
    usage = isinstance(err, click.UsageError) and ctx is not None
    if usage and ctx.command.get_help_option(ctx) is not None:
        click.echo(f"Try '{ctx.command_path} --help' for help.", err=True)


@click.group(cls=BmnGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.version_option(package_name="bmn")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """bmn: find, verify and compare the longest games of Beggar-My-Neighbour.

    \b
    Examples:
      bmn play ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
      bmn deal --players 3 --seed 7
      bmn records published
    """
    ctx.obj = {"debug": debug}


for family in (game, kernel, search, records):
    for command in family.COMMANDS:
        cli.add_command(command)


def main() -> None:
    """Console entry point."""
    cli(prog_name="bmn")


if __name__ == "__main__":
    main()
