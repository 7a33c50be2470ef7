"""Numbers, seeds and durations on the command line: one parameter type for each kind of value,
so each follows one rule in every command: whole numbers fit in 64 bits (what the store and
the kernels hold), seeds are 0 <= seed < 2**63, durations are at most a year."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from bmn.records.api import INT64_MAX
from bmn.search.api import SEED_WORDS, Refused, read_duration, read_whole

# -- numbers, seeds, durations -----------------------------------------------------------------

MAX_COMMAND_DEALS = 10**9  # deals scored in one command (bench holds them all in memory at once)


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
    """--deals N: how many random deals a command plays, at most MAX_COMMAND_DEALS."""
    shown = {"show_default": True} if default is not None else {}
    return click.option(
        "--deals", type=Whole(1, MAX_COMMAND_DEALS), default=default, help=help, **shown
    )


def count_option(
    help: str, default: int = 10, names: tuple[str, ...] = ("-n", "count")
) -> Callable[[Callable], Callable]:
    """-n N: how many deals a command prints or lists, 1 or more."""
    return click.option(*names, type=Whole(1), default=default, show_default=True, help=help)


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
