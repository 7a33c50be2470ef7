"""`--device cuda`: the option the kernel and search commands share, and what they do on a GPU.

`bmn score`, `bench`, `selfcheck` and `search` take `--device cpu|cuda`. On cuda the commands
call this module: it says in one line what is missing when CUDA cannot run here (exit 1), and
refuses options that do nothing on a GPU (exit 2). Imports nothing heavy: numba's CUDA target
is loaded only once a command runs on cuda.
"""

from __future__ import annotations

import json

import click

from bmn.frontends.cli.options import check_report, given, refuse
from bmn.frontends.cli.values import Whole
from bmn.frontends.output.measures import bench_line
from bmn.kernels.api import DEFAULT, THREADS_PER_BLOCK, RuleSet
from bmn.search.api import DEVICES, MAX_DEVICE_THREADS

DEVICE_BENCH_DEALS = 10**9  # about a second at the GPU target (bench caps it at about 20 s)

DEVICE_OPTION = click.option(
    "--device",
    type=click.Choice(DEVICES),
    default="cpu",
    show_default=True,
    help="Where to play the games: cpu, or cuda (an NVIDIA GPU, with the bmn[cuda] extra).",
)
DEVICE_THREADS_OPTION = click.option(
    "--device-threads",
    type=Whole(1, MAX_DEVICE_THREADS),
    default=None,
    help=f"cuda only: GPU threads, each a stream of its own; 1 to {THREADS_PER_BLOCK} or a"
    f" multiple of {THREADS_PER_BLOCK} [default: every thread the GPU keeps resident].",
)


def require_cuda() -> None:
    """One line saying what is missing (exit 1) unless the CUDA kernel can run here."""
    from bmn.kernels.api import available

    missing = available()
    if missing is not None:
        raise click.ClickException(missing)


def check_device_threads(ctx: click.Context, device: str, threads: int | None) -> None:
    """Refuse --device-threads without cuda, or a count the GPU's blocks cannot hold."""
    if threads is None:
        return
    if device != "cuda":
        refuse(ctx, "device_threads", "is for --device cuda only")
    if threads > THREADS_PER_BLOCK and threads % THREADS_PER_BLOCK:
        refuse(
            ctx,
            "device_threads",
            f"must be 1 to {THREADS_PER_BLOCK} or a multiple of {THREADS_PER_BLOCK}"
            f" (whole blocks of {THREADS_PER_BLOCK} threads); got {threads:,}",
        )


def bench_on_device(
    device: str,
    deals: int,
    seed: int,
    device_threads: int | None,
    as_json: bool,
    rules: RuleSet,
) -> None:
    """`bmn bench --device cuda`: random standard deals made, played and counted on the GPU
    (`device` is checked here: --device-threads without cuda is refused)."""
    ctx = click.get_current_context()
    check_device_threads(ctx, device, device_threads)
    if given(ctx, "threads"):
        refuse(ctx, "threads", "sets CPU threads; with --device cuda use --device-threads")
    require_cuda()
    from bmn.frontends.output.progress import count_progress
    from bmn.kernels.api import gpu_name
    from bmn.search.api import gpu_bench

    n = deals if given(ctx, "deals") else DEVICE_BENCH_DEALS
    threads_per_block = min(device_threads or THREADS_PER_BLOCK, THREADS_PER_BLOCK)
    with count_progress(f"benchmarking {n:,} deals on the GPU", None):  # no steps to report
        result = gpu_bench(
            n,
            seed,
            mode="random",
            threads=device_threads,
            threads_per_block=threads_per_block,
            rules=rules,
        )
    games, seconds = result["games"], max(result["seconds"], 1e-9)
    figures = {
        "games_per_s": games / seconds,
        "cards_per_s": result["cards"] / seconds,
        "mean_cards": result["cards"] / games,
        "mean_tricks": result["tricks"] / games,
        "threads": result["threads"],
        "deals": games,
        "device": "cuda",
        "gpu": gpu_name(),
        "rules": rules.name,
    }
    if as_json:
        click.echo(json.dumps(figures))
        return
    where = f"{figures['threads']:,} GPU threads ({figures['gpu']})"
    click.echo(bench_line(f"{games:,} deals", where, seconds, figures, rules.name))


def selfcheck_on_device(deals: int, seed: int, rules: RuleSet) -> None:
    """`bmn selfcheck --device cuda`: the GPU against the CPU kernel on random deals."""
    require_cuda()
    from bmn.frontends.output.progress import count_progress
    from bmn.kernels.api import gpu_first_difference, gpu_name

    with count_progress("checking", deals) as bar:
        bad = gpu_first_difference(deals, seed, bar.advance, rules=rules)
    check_report(
        bad,
        ("cuda", "cpu kernel"),
        "the CUDA kernel disagrees with the CPU kernel",
        f"OK: the CUDA kernel ({gpu_name()}) and the CPU kernel agree on"
        f" {deals:,} random deals (seed {seed})"
        + ("" if rules.name == DEFAULT else f" under rule set {rules.name}"),
    )
