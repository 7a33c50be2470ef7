"""The `bmn` command line: parse options, call the library, format the results.

Heavy imports (numba, the kernels) happen inside commands so `bmn --help` stays instant.
Results go to stdout; progress and logs go to stderr.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Sequence

import click

from bmn.kernels.deal import DealError, format_deal, parse_deal

STORE_OPTION = click.option(
    "--store",
    type=click.Path(dir_okay=False),
    default="bmn-records.sqlite",
    envvar="BMN_STORE",
    show_default=True,
    help="The record store (SQLite file); env BMN_STORE.",
)
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


class BmnGroup(click.Group):
    """Turns bmn's own errors into one clear line (exit 2); --debug shows tracebacks."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except DealError as err:
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            raise click.UsageError(str(err), ctx) from None


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


def read_deal(hands: Sequence[str]):
    """Parse HAND... arguments, turning notation errors into a usage error."""
    try:
        return parse_deal(hands)
    except DealError as err:
        raise click.BadParameter(str(err), param_hint="HAND...") from None


# Hands in record notation start with '-', so unknown "options" are taken as hands.
HAND_COMMAND = {"ignore_unknown_options": True}


@cli.command(context_settings=HAND_COMMAND)
@click.argument("hands", nargs=-1, required=True, metavar="HAND...")
@JSON_OPTION
@click.option(
    "--limit-cards",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after this many cards; the seat holding most cards wins.",
)
@click.option("--trace", is_flag=True, help="Add a per-trick table (a 'trace' list with --json).")
def play(hands: tuple[str, ...], as_json: bool, limit_cards: int | None, trace: bool) -> None:
    """Play one deal with the reference engine and report its length.

    Hands are listed in seat order, top card first, as separate arguments or joined
    by '/'. Notations: record ('-' numeral, J Q K A), ranks (2-10, T), or with suits.

    \b
    Examples:
      bmn play ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
      bmn play '-J/Q-' --trace
      bmn play 'AS 10H QD' 'KC 2S 3S' --json
    """
    from bmn.kernels.reference import play as play_deal

    deal = read_deal(hands)
    result = play_deal(deal, limit=limit_cards, trace=trace)
    if as_json:
        out = result.as_dict()
        if trace:
            out["trace"] = [
                {"taker": t.taker, "cards": t.cards, "hand_sizes": list(t.hand_sizes)}
                for t in result.trace or ()
            ]
        click.echo(json.dumps(out))
        return
    click.echo(f"deal: {format_deal(deal)}")
    click.echo(describe(result))
    if trace:
        click.echo(trace_table(result.trace or (), len(deal)))


def describe(result) -> str:
    """One human summary line for a reference or kernel result."""
    if result.status == "loop":
        return (
            f"loop: never ends; state repeats at {result.cards} cards, {result.tricks} tricks; "
            f"cycle starts after {result.loop_start_cards} cards, {result.loop_start_tricks} "
            f"tricks; period {result.period_cards} cards, {result.period_tricks} tricks"
        )
    if result.status == "limit":
        who = "no seat (tie)" if result.winner is None else f"seat {result.winner}"
        return (
            f"limit: stopped at {result.cards} cards, {result.tricks} tricks; "
            f"{who} holds most cards"
        )
    return f"finished: {result.cards} cards, {result.tricks} tricks; seat {result.winner} wins"


def trace_table(trace, seats: int) -> str:
    """A plain per-trick table: trick number, taker, cards in the pile, hand sizes."""
    head = ["trick", "taker", "pile"] + [f"seat {s}" for s in range(seats)]
    rows = [head] + [
        [str(i), str(t.taker), str(t.cards)] + [str(n) for n in t.hand_sizes]
        for i, t in enumerate(trace, start=1)
    ]
    widths = [max(len(row[c]) for row in rows) for c in range(len(head))]
    return "\n".join(
        "  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=False)) for row in rows
    )


@cli.command()
@click.option(
    "--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Number of seats."
)
@click.option("--seed", type=int, default=None, help="Seed for a reproducible shuffle.")
def deal(players: int, seed: int | None) -> None:
    """Shuffle the standard deck and deal it, one card at a time from seat 0.

    Prints the deal in record notation, ready for `bmn play`.

    \b
    Examples:
      bmn deal
      bmn deal --players 4 --seed 1
      bmn play $(bmn deal --seed 3)
    """
    from bmn.kernels.deal import shuffled_deal

    click.echo(format_deal(shuffled_deal(players, seed)))


@cli.group()
def records() -> None:
    """The published record games and the record store."""


@records.command()
@JSON_OPTION
def published(as_json: bool) -> None:
    """Replay every published record game and compare with its published length.

    \b
    Example:
      bmn records published
    """
    from bmn.records.published import replay_published

    rows = replay_published()
    if as_json:
        click.echo(json.dumps([row.as_dict() for row in rows]))
        return
    click.echo(
        f"{'name':<18} {'year':>4} {'status':<8} {'cards':>6} {'replayed':>8} "
        f"{'tricks':>6} {'replayed':>8}"
    )
    for row in rows:
        mark = "" if row.matches else "  <-- differs"
        click.echo(
            f"{row.name:<18} {row.year:>4} {row.status:<8} {row.cards:>6} "
            f"{row.replayed_cards:>8} {row.tricks:>6} {row.replayed_tricks:>8}{mark}"
        )
    if all(row.matches for row in rows):
        click.echo(f"all {len(rows)} published games replay exactly", err=True)


def main() -> None:
    """Console entry point."""
    cli(prog_name="bmn")
