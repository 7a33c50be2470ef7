"""Where a search runs: the Dask options (`--scheduler`, `--scheduler-file`, `--cluster local`)
and the backend they name."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

if TYPE_CHECKING:
    from bmn.search.api import Backend


class SchedulerAddress(click.ParamType):
    """A Dask scheduler's address: a scheme, a host and a port, tcp://host:8786 or
    tls://host:8786; anything else is bad input, refused before a connection is tried."""

    name = "address"
    pattern = re.compile(r"(tcp|tls|ucx|ws|wss)://([\w.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})", re.ASCII)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        text = str(value).strip()
        why = address_problem(text)
        if why is not None:
            self.fail(why, param, ctx)
        return text


def address_problem(text: str) -> str | None:
    """What is wrong with a scheduler address, in the words both --scheduler and a scheduler
    file's refusal use; None for one that may be tried."""
    if text.startswith(("http://", "https://")):
        return f"{text!r} is a dashboard link; give the scheduler, tcp://host:8786"
    found = SchedulerAddress.pattern.fullmatch(text)
    if not found:
        return (
            f"{text!r} is not a scheduler address: a scheme, a host and a port, like"
            " tcp://host:8786"
        )
    if not 1 <= int(found.group(3)) <= 65535:
        return f"{text!r}: a port is 1 to 65535, like tcp://host:8786"
    return None


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
    from bmn.search.api import BackendError, default_workers, get_backend

    try:
        from bmn.search.api import (  # BackendError without Dask installed
            quiet_dask_logs,
            read_scheduler_file,
        )

        if not (ctx.obj or {}).get("debug"):  # Dask's log lines would break the display
            quiet_dask_logs()
        if cluster == "local":
            local = min(workers or default_workers(), default_workers())
            return get_backend("dask", local=True, local_workers=local)
        if scheduler_file is not None:  # its address refused as --scheduler's would be
            scheduler = read_scheduler_file(scheduler_file)
            why = address_problem(scheduler)
            if why is not None:
                raise BackendError(f"scheduler file {scheduler_file}: {why}")
        return get_backend("dask", address=scheduler)
    except BackendError as err:
        raise click.ClickException(str(err)) from None
