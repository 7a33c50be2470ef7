"""What bmn's commands share: options, parameter types, deal arguments, figures and stores.

Imports nothing heavy: every command module imports this at `bmn --help` time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from bmn.kernels.deal import Deal, DealError, parse_deal
from bmn.records.store import DEFAULT_PATH, Store

if TYPE_CHECKING:
    from bmn.search.chunks import Backend

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


class SchedulerAddress(click.ParamType):
    """A Dask scheduler's address: tcp://host:8786, tls://host:8786, or host:port."""

    name = "address"
    pattern = re.compile(r"((tcp|tls|ucx|ws|wss)://)?([\w.-]+|\[[0-9a-fA-F:]+\])(:\d{1,5})?")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value).strip()
        if text.startswith(("http://", "https://")):
            self.fail(
                f"{text!r} is a dashboard link; give the scheduler, tcp://host:8786", param, ctx
            )
        if not self.pattern.fullmatch(text):
            self.fail(f"{text!r} is not a scheduler address; use e.g. tcp://host:8786", param, ctx)
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
        if ctx.get_parameter_source("scheduler") == click.core.ParameterSource.ENVIRONMENT:
            scheduler = None
        else:
            other = "--scheduler-file" if scheduler_file else "--cluster"
            raise click.UsageError(f"--scheduler and {other} name two clusters: give one")
    if scheduler_file and cluster:
        raise click.UsageError("--scheduler-file and --cluster name two clusters: give one")
    if scheduler is None and scheduler_file is None and cluster is None:
        return None
    from bmn.search.chunks import BackendError, get_backend
    from bmn.search.threads import default_workers

    try:
        from bmn.search import dask_backend  # BackendError without Dask installed

        if not (ctx.obj or {}).get("debug"):  # Dask's log lines would break the display
            dask_backend.quiet_logs()
        if cluster == "local":
            local = min(workers or default_workers(), default_workers())
            return get_backend("dask", local=True, local_workers=local)
        return get_backend("dask", address=scheduler, scheduler_file=scheduler_file)
    except BackendError as err:
        raise click.ClickException(str(err)) from None
