"""What bmn's commands share: options, parameter types, deal arguments, figures and stores.

Every number, seed and duration a command takes goes through one of the parameter types here,
so each kind of value follows one rule in every command: whole numbers fit in 64 bits (what the
store and the kernels hold), seeds are 0 <= seed < 2**63, durations are at most a year.

Imports nothing heavy: every command module imports this at `bmn --help` time.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from bmn.kernels.deal import Deal, DealError, parse_deal, parse_hand
from bmn.kernels.decks import not_standard_warning
from bmn.records.store import DEFAULT_PATH, INT64_MAX, Store
from bmn.search.output import tables as present
from bmn.search.runs.settings import (
    MAX_WORKERS,
    SEED_WORDS,
    Refused,
    read_duration,
    read_whole,
)

if TYPE_CHECKING:
    from bmn.search.backends.base import Backend

# -- numbers, seeds, durations -----------------------------------------------------------------

MAX_DEALS = 10**9  # deals scored in one command (bench holds them all in memory at once)


class Whole(click.ParamType):
    """A whole number from `low` to `high`; `high` is at most 2**63 - 1, the largest number
    the store and the compiled kernels hold, so no value can overflow past the command line.
    Read as a run's whole-number settings are (search/runs/settings.py)."""

    name = "integer"

    def __init__(self, low: int = 0, high: int = INT64_MAX, what: str | None = None):
        self.low, self.high, self.what = low, min(high, INT64_MAX), what

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            return read_whole(value, self.low, self.high, self.what)
        except Refused as err:
            self.fail(str(err), param, ctx)


class Seed(Whole):
    """A seed: one rule for every command, 0 <= seed < 2**63."""

    name = "seed"

    def __init__(self) -> None:
        super().__init__(0, INT64_MAX, SEED_WORDS)


SEED = Seed()


def seed_option(help: str) -> Callable[[Callable], Callable]:
    """--seed S, the same rule in every command that draws random deals."""
    return click.option("--seed", type=SEED, default=None, help=help)


def deals_option(default: int | None, help: str) -> Callable[[Callable], Callable]:
    """--deals N: how many random deals a command plays, at most MAX_DEALS."""
    shown = {"show_default": True} if default is not None else {}
    return click.option("--deals", type=Whole(1, MAX_DEALS), default=default, help=help, **shown)


class SeedList(click.ParamType):
    """Comma-separated seeds, each by the one seed rule: 1,2,3."""

    name = "seeds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> list[int]:
        if isinstance(value, list):
            return value
        parts = [part.strip() for part in str(value).split(",")]
        if not all(parts):
            self.fail(f"{value!r} is not a list of seeds like 1,2,3", param, ctx)
        return [SEED.convert(part, param, ctx) for part in parts]


class NameList(click.ParamType):
    """Comma-separated names, each one of `choices`: walk,random."""

    name = "names"

    def __init__(self, choices: Sequence[str], what: str):
        self.choices, self.what = list(choices), what

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> list[str]:
        if isinstance(value, list):
            return value
        names = [name.strip() for name in str(value).split(",") if name.strip()]
        unknown = [name for name in names if name not in self.choices]
        if unknown or not names:
            self.fail(
                f"unknown {self.what} {unknown[0] if unknown else '(none)'};"
                f" choose from {', '.join(self.choices)}",
                param,
                ctx,
            )
        return names


class Duration(click.ParamType):
    """A length of time: 90s, 10m, 8h, 1h30m, 2d, or plain seconds; positive, at most a year
    (read as a run's --time is: search/runs/settings.py)."""

    name = "duration"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            return read_duration(value)
        except Refused as err:
            self.fail(str(err), param, ctx)


# -- options every command family shares -----------------------------------------------------

STORE_OPTION = click.option(
    "--store",
    default=DEFAULT_PATH,
    envvar="BMN_STORE",
    show_default=True,
    metavar="FILE",
    help="The record store (SQLite file); env BMN_STORE.",
)
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
THREADS_OPTION = click.option(
    "--threads",
    type=Whole(1, MAX_WORKERS),
    default=None,
    help="Threads to use [default: all].",
)
# Seats at the table: the standard deck dealt one card at a time from seat 0 (26/26,
# 18/17/17, 13 each).
PLAYERS_OPTION = click.option(
    "--players",
    type=Whole(2, 4),
    default=2,
    show_default=True,
    help="Number of seats, 2 to 4; the deck is dealt one card at a time from seat 0.",
)
DEALS_HELP = f"at most {MAX_DEALS:,}"


def echo(*blocks: present.Block) -> None:
    """Print blocks on stdout: tables drawn by rich on a terminal, fitted to its width (see
    bmn.search.output.tables.terminal), plain text elsewhere."""
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

    from bmn.records.store import paths

    return paths.found(Path(path))


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


# -- deals on the command line ---------------------------------------------------------------

DASHES = "bmn.dashes"  # ctx.meta key: the arguments after a bare '--', when one was given


class HandCommand(click.Command):
    """A command whose arguments are hands. Hands in record notation start with '-', so an
    argument that is no option of the command is kept as a hand (read_deal sorts out the ones
    that are neither), and a bare '--' (click's end of options) is noted: before every hand
    it ends the options (`bmn play -- -J Q-`); after a hand it may be meant as a hand of two
    numerals, which click drops, so read_deal explains it."""

    def __init__(self, *args: Any, **kwargs: Any):
        settings = kwargs.setdefault("context_settings", {})
        settings.setdefault("ignore_unknown_options", True)
        super().__init__(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            ctx.meta[DASHES] = len(args) - args.index("--") - 1
        return super().parse_args(ctx, args)


HANDS_ARGUMENT = click.argument("hands", nargs=-1, required=True, metavar="HAND...")
# A long option as people type them: --json, --limit-cards, --hand-sizes=26,26.
_LONG_OPTION = re.compile(r"--[a-zA-Z]{2,}(-[a-zA-Z0-9]+)*(=.*)?", re.DOTALL)


def read_deal(hands: Sequence[str]) -> Deal:
    """Parse HAND... arguments: a usage error for notation errors, unknown options, a bare
    '--' and a suited card given twice; one warning on stderr for a deal that is not the
    standard 52-card deck."""
    ctx = click.get_current_context()
    after = ctx.meta.get(DASHES)  # the hands after a '--': hands, whatever they look like
    if after is not None and after != len(hands):  # a hand came before the '--'
        raise click.BadParameter(
            "a bare '--' is read as the end of options, not as a hand of two numerals;"
            " join the deal with '/' instead, as in '-J/--/Q-'",
            ctx,
            param_hint="HAND...",
        )
    for text in hands[: len(hands) - (after or 0)]:
        if text.startswith("-"):
            check_option(ctx, text)
    try:
        deal = parse_deal(hands, typed=True)  # an empty hand only as '.': no stray '/'
    except DealError as err:
        raise click.BadParameter(str(err), ctx, param_hint="HAND...") from err
    warn_if_not_standard(deal)
    return deal


def check_option(ctx: click.Context, text: str) -> None:
    """Refuse an argument that is not a hand but looks like an option: click's 'no such
    option', with the command's option it most resembles."""
    try:
        for part in text.split("/"):
            parse_hand(part)
        return  # a hand after all
    except DealError:
        pass
    name = text.split("=", 1)[0]
    options = [opt for p in ctx.command.get_params(ctx) for opt in (*p.opts, *p.secondary_opts)]
    if name == "--debug":
        raise click.NoSuchOption(name, ctx=ctx)  # the group explains where --debug goes
    if _LONG_OPTION.fullmatch(text) or difflib.get_close_matches(name, options):
        raise click.NoSuchOption(name, possibilities=options, ctx=ctx)


def warn_if_not_standard(deal: Deal) -> None:
    """One warning line on stderr, at most once per command."""
    warning = not_standard_warning([v for hand in deal for v in hand])
    ctx = click.get_current_context(silent=True)
    if warning is None or (ctx is not None and ctx.meta.get("bmn.warned")):
        return
    if ctx is not None:
        ctx.meta["bmn.warned"] = True
    click.echo(warning, err=True)


# -- figures ---------------------------------------------------------------------------------


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
    from bmn.search.output.plots import figure_format

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


class SchedulerAddress(click.ParamType):
    """A Dask scheduler's address: a scheme, a host and a port, tcp://host:8786 or
    tls://host:8786; anything else is bad input, refused before a connection is tried."""

    name = "address"
    pattern = re.compile(r"(tcp|tls|ucx|ws|wss)://([\w.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})", re.ASCII)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value).strip()
        if text.startswith(("http://", "https://")):
            self.fail(
                f"{text!r} is a dashboard link; give the scheduler, tcp://host:8786", param, ctx
            )
        found = self.pattern.fullmatch(text)
        if not found:
            self.fail(
                f"{text!r} is not a scheduler address: a scheme, a host and a port, like"
                " tcp://host:8786",
                param,
                ctx,
            )
        if not 1 <= int(found.group(3)) <= 65535:
            self.fail(f"{text!r}: a port is 1 to 65535, like tcp://host:8786", param, ctx)
        return text


def cluster_options(command: Callable) -> Callable:
    """--scheduler, --scheduler-file and --cluster: where a search's chunks run."""
    options = [
        click.option(
            "--scheduler",
            type=SchedulerAddress(),
            default=None,
            envvar="DASK_SCHEDULER_ADDRESS",
            help="Run on the Dask cluster of this scheduler (tcp://host:8786); env "
            "DASK_SCHEDULER_ADDRESS.",
        ),
        click.option(
            "--scheduler-file",
            type=click.Path(dir_okay=False),
            default=None,
            help="Run on the Dask cluster whose scheduler wrote this file "
            "(dask scheduler --scheduler-file PATH).",
        ),
        click.option(
            "--cluster",
            type=click.Choice(["local"]),
            default=None,
            help="local: start a Dask cluster on this machine (one single-thread worker "
            "process per stream, on 127.0.0.1 only) for its dashboard.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def cluster_backend(
    scheduler: str | None, scheduler_file: str | None, cluster: str | None, workers: int | None
) -> Backend | None:
    """The Dask backend the cluster options ask for, connected; None for threads (no
    option given). A scheduler named only by the environment gives way to an option."""
    ctx = click.get_current_context()
    if scheduler is not None and (scheduler_file or cluster):
        if ctx.get_parameter_source("scheduler") == ParameterSource.ENVIRONMENT:
            scheduler = None
        else:
            other = "--scheduler-file" if scheduler_file else "--cluster"
            raise click.UsageError(f"--scheduler and {other} name two clusters: give one")
    if scheduler_file and cluster:
        raise click.UsageError("--scheduler-file and --cluster name two clusters: give one")
    if scheduler is None and scheduler_file is None and cluster is None:
        return None
    from bmn.search.backends.base import BackendError
    from bmn.search.backends.registry import get_backend
    from bmn.search.backends.threads import default_workers

    try:
        from bmn.search.backends import (
            dask_cluster as dask_backend,  # BackendError without Dask installed
        )

        if not (ctx.obj or {}).get("debug"):  # Dask's log lines would break the display
            dask_backend.quiet_logs()
        if cluster == "local":
            local = min(workers or default_workers(), default_workers())
            return get_backend("dask", local=True, local_workers=local)
        return get_backend("dask", address=scheduler, scheduler_file=scheduler_file)
    except BackendError as err:
        raise click.ClickException(str(err)) from None
