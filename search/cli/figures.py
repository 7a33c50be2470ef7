"""Figures a command draws: `-o FILE` (PNG or SVG), checked before any work, never over the
store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

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
