"""What bmn's commands share: the options every command family takes (--store, --json,
--threads, --players), printing results, opening a store, reading what was given on the
command line, and the figures a command draws (-o FILE, PNG or SVG). The kinds of value are
in values.py, deal arguments in deals.py and the cluster options in cluster.py.

Imports nothing heavy: every command module imports this at `bmn --help` time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from shlex import quote
from typing import Any

import click
from click.core import ParameterSource

from bmn.frontends.cli.values import MAX_COMMAND_DEALS, Whole
from bmn.frontends.output import tables as present
from bmn.kernels.api import ALIASES, DEFAULT, NOTATIONS, RULE_SETS, RuleSet, rule_names, rule_set
from bmn.records.api import DEFAULT_PATH, Store
from bmn.search.api import MAX_WORKERS

# -- options every command family shares -----------------------------------------------------


class StorePath(click.ParamType):
    """A store's file name: BMN_STORE names one store, whole (spaces and all), never a list."""

    name = "file"

    def convert(self, value, param, ctx) -> str:
        return str(value)

    def split_envvar_value(self, rv: str) -> tuple[str, ...]:
        return (rv,)


def _one_store(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> str:
    """--store, given once: click would keep the last of two and read that store alone, so
    each is collected (multiple=True) and more than one is a usage error (exit 2)."""
    if len(value) > 1:
        raise click.UsageError(f"--store given {len(value)} times; {_give_one(value)}", ctx)
    return value[0] if value else DEFAULT_PATH


def _give_one(stores: Sequence[str]) -> str:
    """The way out of naming several stores, a command to copy: one store, or one made of them."""
    named = " ".join(quote(store) for store in stores)
    merge = f"bmn records merge {named} --store all.sqlite"
    return f"give one store, or merge them into one first: {merge}"


STORE_OPTION = click.option(
    "--store",
    type=StorePath(),
    multiple=True,  # to see a second --store and refuse it; the command gets one path
    default=(DEFAULT_PATH,),
    callback=_one_store,
    envvar="BMN_STORE",
    show_default=True,
    metavar="FILE",
    help="The record store (SQLite file); env BMN_STORE.",
)


class StoreCommand(click.Command):
    """A command that takes its store as --store: a file named as an argument (`bmn records
    top night.sqlite`, as `records serve` reads it) is refused with the form to give, in one
    line; other extra arguments as click says them."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.allow_extra_args = True  # seen here, after the options, rather than by click
        rest = super().parse_args(ctx, args)
        extra = ctx.args
        if not extra:
            return rest
        many = "arguments" if len(extra) > 1 else "argument"
        if not all(map(_names_a_file, extra)):
            raise click.UsageError(f"Got unexpected extra {many} ({' '.join(extra)})", ctx)
        if len(extra) == 1:
            why = f"give the store as --store {quote(extra[0])}"
        else:
            why = f"a store is given as --store FILE; {_give_one(extra)}"
        raise click.UsageError(f"unexpected {many} {' '.join(map(quote, extra))}; {why}", ctx)


def _names_a_file(arg: str) -> bool:
    """Whether an argument reads as a file name: a suffix (.sqlite), a folder, or a file there."""
    import os
    from pathlib import PurePath

    return bool(PurePath(arg).suffix) or os.sep in arg or os.path.isfile(arg)


JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
THREADS_OPTION = click.option(
    "--threads",
    type=Whole(1, MAX_WORKERS),
    default=None,
    help="Threads to use [default: all].",
)


def _force_kernel(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """--kernel: make it the process's choice of CPU kernels before any is chosen for work
    (kernels/cpu/choice.py), and the choice before it again once the command is done."""
    if value is None:
        return
    from bmn.kernels.api import force_kernel

    ctx.call_on_close(force_kernel(value))


KERNEL_OPTION = click.option(
    "--kernel",
    type=click.Choice(["auto", "lanes", "lanes8", "lanes4", "scalar"], case_sensitive=False),
    default=None,
    callback=_force_kernel,
    expose_value=False,
    is_eager=True,
    help="The CPU kernels: lanes (several games a step in SIMD lanes; lanes8, lanes4 say how"
    " many), scalar (one game at a time) or auto, the CPU's choice [default: auto; env"
    " BMN_KERNEL]. Results are the same.",
)


# Seats at the table: the standard deck dealt one card at a time from seat 0 (26/26,
# 18/17/17, 13 each).
def players_option(help: str) -> Callable:
    """--players, 2 to 4 seats [default: 2], with what it means to the command."""
    return click.option("--players", type=Whole(2, 4), default=2, show_default=True, help=help)


PLAYERS_OPTION = players_option(
    "Number of seats, 2 to 4; the deck is dealt one card at a time from seat 0."
)
# How a table of deals is read (kernels/tables.py): `bmn score`, `bmn records import`.
NOTATION_OPTION = click.option(
    "--notation",
    type=click.Choice(NOTATIONS),
    default="auto",
    show_default=True,
    help="How deals are written: auto (any notation bmn reads; a field of 10+ digits 0-4 is"
    " N1k06's digits), digits (every deal field in digits 0-4), halves (a run of cards with"
    " no '/' cut into even hands, as acinnes and N1k06), alternate (a run dealt one card at a"
    " time round the seats, as ab0214), rank or camicia (a standard deal's number in bmn's"
    " or camicia.dev's order).",
)
CUT_OPTION = players_option(
    "The hands a deal written as one run of cards (no '/'), or a deal number, is cut into."
)


DEALS_HELP = f"at most {MAX_COMMAND_DEALS:,}"


class RulesChoice(click.Choice):
    """A rule set's name (kernels/rules/sets.py), any case; read as its RuleSet, so an alias
    ('exercism') is the set it names ('bmn')."""

    name = "rules"

    def __init__(self) -> None:
        super().__init__(rule_names(), case_sensitive=False)

    def convert(self, value, param, ctx) -> RuleSet:
        if isinstance(value, RuleSet):
            return value
        return rule_set(super().convert(value, param, ctx))


_NAMED = ("bmn", "paulhus", "at-once")  # the help says what these do; the rest are peers'
RULES_OPTION = click.option(
    "--rules",
    type=RulesChoice(),
    default=DEFAULT,
    show_default=True,
    metavar="NAME",
    help="The rule set to play: bmn's; paulhus (3-4 seats: a seat out while paying drops out);"
    " at-once (2 seats: a hand that empties ends the game); the peers' conventions"
    f" {', '.join(name for name in RULE_SETS if name not in _NAMED)}; aliases"
    f" {', '.join(ALIASES)}. See docs/rules.md.",
)


def rules_line(rules: RuleSet, seats: int | None = None) -> str | None:
    """A short line naming a rule set other than the default, None for the default; with
    `seats`, it says when the set plays those seats as another does (paulhus with 2)."""
    if rules.name == DEFAULT:
        return None
    same = rules.plays_as(seats) if seats is not None else rules.name
    alike = f" (with {seats} seats, as {same})" if same != rules.name else ""
    return f"rules: {rules.name}{alike}"


def check_seats(rules: RuleSet, seats: int, what: str = "this deal has") -> None:
    """A usage error (exit 2) for a rule set not defined for `seats` seats."""
    if not rules.plays(seats):
        raise click.BadParameter(
            f"rule set {rules.name!r} plays {rules.seat_counts} seats; {what} {seats}",
            param_hint="--rules",
        )


def check_report(bad: Any, sides: tuple[str, str], disagree: str, agree: str) -> None:
    """A selfcheck's end: its first disagreement, the deal and what each side (`sides`: the
    one checked, its oracle) made of it, then a runtime failure saying `disagree` (exit 1);
    or, where `bad` is None, the line `agree`."""
    if bad is None:
        click.echo(agree)
        return
    from bmn.kernels.api import format_deal

    width = max(len(side) for side in sides) + 1
    click.echo(f"deal {bad.index}: {format_deal(bad.deal)}")
    for side, result in zip(sides, (bad.kernel, bad.reference), strict=True):
        click.echo(f"{side + ':':<{width}} {json.dumps(result)}")
    raise click.ClickException(disagree)


def echo(*blocks: present.Block) -> None:
    """Print blocks on stdout: tables drawn by rich on a terminal, fitted to its width (see
    bmn.frontends.output.tables.terminal), plain text elsewhere."""
    if not present.stdout_is_terminal():
        click.echo(present.plain(blocks))
        return
    from rich.console import Console

    console = Console()
    for block in present.terminal(blocks, console.width):
        if isinstance(block, str):  # lines as written: a deal or a key is not rich markup
            click.echo(block)
        else:
            console.print(block)


def open_store(path: str) -> Store:
    """An existing store for reading; a missing or unusable one raises StoreError (exit 1).
    Reading writes nothing: no migration, no file beside the store (see records/store/paths.py)."""
    return Store(path, create=False, read_only=True)


def store_exists(path: str) -> bool:
    """Whether a store file is at the path; StoreError (exit 1) for a path that cannot be
    looked at (a name too long, a loop of links) or that names no regular file."""
    from pathlib import Path

    from bmn.records.api import store_found

    return store_found(Path(path))


def given(ctx: click.Context, name: str) -> bool:
    """Whether the user set parameter `name` (on the command line or in the environment),
    rather than leaving its default."""
    return ctx.get_parameter_source(name) in (
        ParameterSource.COMMANDLINE,
        ParameterSource.ENVIRONMENT,
    )


def param(ctx: click.Context, name: str) -> click.Parameter | None:
    """The command's parameter called `name`."""
    return next((p for p in ctx.command.params if p.name == name), None)


def flag(ctx: click.Context, name: str) -> str:
    """The option as the user writes it: 'seconds' -> '--time'."""
    found = param(ctx, name)
    return max(found.opts, key=len) if found is not None and found.opts else name


def refuse(ctx: click.Context, name: str, why: str) -> None:
    """A usage error for an option that conflicts with others or does nothing beside them."""
    raise click.UsageError(f"{flag(ctx, name)} {why}", ctx)


# -- figures a command draws: -o FILE (PNG or SVG), checked before any work, never over the store


def figure_option(default: str | None) -> Callable[[Callable], Callable]:
    """-o FILE for the drawing commands; the extension picks PNG or SVG."""
    return click.option(
        "-o",
        "--output",
        default=default,
        show_default=default is not None,
        metavar="FILE",
        callback=_named_figure,
        help="Image file to write, .png or .svg.",
    )


def _named_figure(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """One rule for -o in every drawing command: a name that is empty (or blank) names no file
    and is refused; to get the command's default, leave -o out."""
    if value is not None and not value.strip():
        raise click.BadParameter(
            f"{value!r} names no file; give a .png or .svg file, or leave -o out", ctx, param
        )
    return value


def check_figure(path: str) -> None:
    """A usage error unless the file name ends in .png or .svg."""
    from bmn.frontends.output.plots import figure_format

    try:
        figure_format(path)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="-o/--output") from err


def check_not_store(output: str, store: str) -> None:
    """A usage error for a figure file that is the store itself: drawing would destroy it."""
    import os

    try:
        same = os.path.samefile(output, store)
    except (OSError, ValueError):  # either is not there (or is no path): not the same file
        return
    if same:
        raise click.BadParameter(
            f"{output} is the record store (--store); drawing there would destroy it",
            param_hint="-o/--output",
        )


def write_figure(draw: Callable[..., object], *args: Any) -> None:
    """Call a plots.py drawing function; a file that cannot be written is a runtime failure."""
    try:
        draw(*args)
    except OSError as err:
        raise click.ClickException(f"cannot write the figure: {err}") from err
