"""The `bmn` command line: the group, its error mapping and the entry point.

The commands live in one module per family, each registered here with `add_command`:
cli_game (play, deal, loop, preimages, plot), cli_kernel (score, bench, selfcheck, stats),
cli_search (search, search-bench) and cli_records (the `records` group). What they share
(options, parameter types, reading a deal) is in cli_options; how they print text is in
present. Heavy imports (numba, the kernels) happen inside commands so `bmn --help` stays
instant. Results go to stdout; progress and logs go to stderr.
"""

from __future__ import annotations

import traceback
from typing import Any

import click

from bmn.kernels.deal import DealError
from bmn.records.store import StoreError
from bmn.search import cli_game, cli_kernel, cli_records, cli_search


class BmnGroup(click.Group):
    """Turns bmn's own errors into one clear line (exit 2); --debug shows tracebacks."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except DealError as err:
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            raise click.UsageError(str(err), ctx) from None
        except StoreError as err:  # a missing, foreign, newer, damaged or busy store: exit 1
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            raise click.ClickException(str(err)) from None


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


for family in (cli_game, cli_kernel, cli_search, cli_records):
    for command in family.COMMANDS:
        cli.add_command(command)


def main() -> None:
    """Console entry point."""
    cli(prog_name="bmn")


if __name__ == "__main__":
    main()
