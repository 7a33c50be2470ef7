"""What bmn's commands share: options, parameter types, deal arguments, figures and stores.

Imports nothing heavy: every command module imports this at `bmn --help` time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import click

from bmn.kernels.deal import Deal, DealError, parse_deal
from bmn.records.store import DEFAULT_PATH, Store

STORE_OPTION = click.option(
    "--store",
    type=click.Path(dir_okay=False),
    default=DEFAULT_PATH,
    envvar="BMN_STORE",
    show_default=True,
    help="The record store (SQLite file); env BMN_STORE.",
)
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
THREADS_OPTION = click.option(
    "--threads", type=click.IntRange(min=1), default=None, help="Threads to use [default: all]."
)


def read_deal(hands: Sequence[str]) -> Deal:
    """Parse HAND... arguments, turning notation errors into a usage error."""
    try:
        return parse_deal(hands)
    except DealError as err:
        raise click.BadParameter(str(err), param_hint="HAND...") from None


# Hands in record notation start with '-', so unknown "options" are taken as hands.
HAND_COMMAND = {"ignore_unknown_options": True}
HANDS_ARGUMENT = click.argument("hands", nargs=-1, required=True, metavar="HAND...")


def figure_option(default: str | None) -> Callable[[Callable], Callable]:
    """-o FILE for the drawing commands; the extension picks PNG or SVG."""
    return click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=False),
        default=default,
        show_default=default is not None,
        help="Image file to write, .png or .svg.",
    )


def check_figure(path: str) -> None:
    """A usage error unless the file name ends in .png or .svg."""
    from bmn.search.plots import figure_format

    try:
        figure_format(path)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="-o/--output") from None


def write_figure(draw: Callable[..., object], *args: Any) -> None:
    """Call a plots.py drawing function; a file that cannot be written is a runtime failure."""
    try:
        draw(*args)
    except OSError as err:
        raise click.ClickException(f"cannot write the figure: {err}") from None


class Duration(click.ParamType):
    """A length of time: 90s, 10m, 8h, 1h30m, or plain seconds."""

    name = "duration"
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        text = value.strip().lower()
        parts = re.fullmatch(r"((\d+(\.\d+)?)([smhd]))+", text)
        if text.replace(".", "", 1).isdigit():
            seconds = float(text)
        elif parts:
            seconds = sum(
                float(n) * self.units[u] for n, _, u in re.findall(r"(\d+(\.\d+)?)([smhd])", text)
            )
        else:
            self.fail(f"{value!r} is not a duration; use e.g. 90s, 10m, 8h or 1h30m", param, ctx)
        if seconds <= 0:
            self.fail(f"{value!r}: a duration must be positive", param, ctx)
        return seconds


def open_store(path: str) -> Store:
    """An existing store for reading; a missing or unusable one raises StoreError (exit 1)."""
    return Store(path, create=False)
