"""The search commands: `bmn search` (a run of any strategy, or a loop hunt, new or resumed)
and `bmn search-bench` (the strategies compared)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from bmn.search.cli_options import (
    JSON_OPTION,
    STORE_OPTION,
    Duration,
    cluster_backend,
    cluster_options,
)
from bmn.search.present import bench_table, echo

if TYPE_CHECKING:
    from bmn.records.store import Store
    from bmn.search.chunks import Backend
    from bmn.search.driver import Search, Summary
    from bmn.search.loophunt import LoopHunt, LoopSummary


@click.command()
@click.option(
    "--strategy",
    type=click.Choice(["walk", "random", "climb", "lahc"]),
    default="walk",
    show_default=True,
    help="walk: one-swap random walk; random: fresh shuffles; climb: hill climbing "
    "with restarts; lahc: late-acceptance hill climbing.",
)
@click.option(
    "--objective",
    type=click.Choice(["cards", "tricks", "loop"]),
    default="cards",
    show_default=True,
    help="What makes a deal better; loop: hunt non-terminating "
    "deals instead (random even deals of --loop-deck; every cycle found is stored "
    "once under its canonical key, with its period and whether a balanced deal "
    "reaches it, by backward play; see `bmn records loops`).",
)
@click.option(
    "--time",
    "seconds",
    type=Duration(),
    default=None,
    help="How long to search: 90s, 10m, 8h, 1h30m [default: 1m].",
)
@click.option(
    "--iterations",
    type=click.IntRange(min=1),
    default=None,
    help="Score exactly this many deals (reproducible with --seed) instead of --time.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Search streams: threads, or tasks at once on a cluster [default: every core, "
    "or every worker thread of the cluster].",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=None,
    help="Seed; drawn at random and stored with the run if omitted.",
)
@STORE_OPTION
@click.option(
    "--keep-above",
    type=click.IntRange(min=0),
    default=3000,
    show_default=True,
    help="Store every deal of at least this many cards, not only the best.",
)
@click.option(
    "--patience",
    type=click.IntRange(min=1),
    default=20_000,
    show_default=True,
    help="climb: deals without improvement before a restart.",
)
@click.option(
    "--history",
    type=click.IntRange(min=1),
    default=30_000,
    show_default=True,
    help="lahc: length of the late-acceptance history.",
)
@click.option(
    "--loop-deck",
    default=None,
    metavar="DECK",
    help="loop: 'mixed' [default] (a random sub-deck of the standard deck per batch: "
    "measured to find the most cycles; full random deals almost never loop), "
    "'standard', or counts N,J,Q,K,A like 36,1,1,0,0.",
)
@click.option(
    "--basin-states",
    type=click.IntRange(min=1),
    default=None,
    help="loop: backward-play states to visit per new cycle [default: 20,000].",
)
@click.option(
    "--resume",
    is_flag=False,
    flag_value="latest",
    default=None,
    metavar="[RUN]",
    help="Continue an interrupted run (the latest if no number is given).",
)
@cluster_options
@click.option("--quiet", is_flag=True, help="No progress display on stderr.")
@JSON_OPTION
def search(
    resume: str | None,
    store: str,
    quiet: bool,
    as_json: bool,
    scheduler: str | None,
    scheduler_file: str | None,
    cluster: str | None,
    **options,
) -> None:
    """Search for the longest games and keep the finds in the record store.

    Runs on every core, shows progress on stderr and stores every improvement and
    every deal of at least --keep-above cards as it goes. Ctrl-C (or SIGTERM)
    checkpoints and stops; `--resume` continues exactly where it stopped, even
    after a crash or `kill -9`. The same --seed and --iterations reproduce a run.

    \b
    Examples:
      bmn search                          # one minute on every core
      bmn search --time 8h --store night.sqlite
      bmn search --strategy lahc --objective tricks --time 30m
      bmn search --iterations 100000000 --seed 42 --workers 2
      bmn search --resume                 # continue the latest run
      bmn search --objective loop --time 1h --workers 2
      bmn search --objective loop --loop-deck standard --time 8h
      bmn search --cluster local --time 10m  # a Dask cluster on this machine
      bmn search --scheduler tcp://10.0.0.5:8786 --time 8h
      bmn search --scheduler-file ~/dask.json --resume

    On a Dask cluster (--scheduler, --scheduler-file, DASK_SCHEDULER_ADDRESS, or
    --cluster local) the same seed, iterations and --workers give the same finds as on
    threads; this process stays the only writer of the store. A worker that dies
    costs nothing; if the whole cluster goes away the run is checkpointed and exits
    with status 1, to be resumed on a cluster or on threads.
    """
    from bmn.records.store import Store
    from bmn.search.chunks import BackendError

    backend = cluster_backend(scheduler, scheduler_file, cluster, options["workers"])
    try:
        with Store(store) as db:
            job = search_job(db, resume, options, backend)
            try:
                summary = run_with_signals(job, quiet)
            except BackendError as err:
                raise click.ClickException(
                    f"{err}; run {job.run_id} is checkpointed, resume with: "
                    f"bmn search --resume {job.run_id} --store {store}"
                ) from None
    finally:
        if backend is not None:
            backend.close()
    click.echo(json.dumps(summary.as_dict()) if as_json else summary.text())
    if summary.status == "interrupted":
        click.echo(
            f"stopped; resume with: bmn search --resume {summary.run} --store {store}", err=True
        )
        raise SystemExit(130)


def search_job(
    db: Store, resume: str | None, options: dict, backend: Backend | None = None
) -> Search | LoopHunt:
    """The search to run: a resumed run of either kind, a new loop hunt, or a new search;
    its chunks on `backend` (threads of this process when None)."""
    from bmn.search.driver import Search, SearchOptions
    from bmn.search.loophunt import LoopHunt, loop_options

    if resume is not None:
        given = [
            name
            for name in ("seconds", "iterations", "workers", "seed")
            if options[name] is not None
        ]
        if given:
            raise click.UsageError(
                f"--resume takes its settings from the run; drop "
                f"--{given[0].replace('seconds', 'time')}"
            )
        run = db.get_run(resume_target(db, resume))
        return (LoopHunt if run.objective == "loop" else Search).resume(db, run.id, backend)
    if options["objective"] == "loop":
        try:
            return LoopHunt(db, loop_options(options), backend=backend)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--loop-deck") from None
    if options["seconds"] is None and options["iterations"] is None:
        options["seconds"] = 60.0
    if options["workers"] is None and backend is not None:
        options["workers"] = backend.default_streams()
    chosen = {
        k: v
        for k, v in options.items()
        if v is not None and k in SearchOptions.__dataclass_fields__
    }
    return Search(db, SearchOptions(**chosen), backend=backend)


@click.command("search-bench")
@click.option(
    "--strategies",
    default="walk,random,climb,lahc",
    show_default=True,
    help="Comma-separated strategies to compare.",
)
@click.option(
    "--time",
    "seconds",
    type=Duration(),
    default="1m",
    show_default=True,
    help="Search time per strategy and seed.",
)
@click.option("--seeds", default="1,2,3", show_default=True, help="Comma-separated seeds.")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True)
@JSON_OPTION
def search_bench(strategies: str, seconds: float, seeds: str, workers: int, as_json: bool) -> None:
    """Compare search strategies: speed inside the search and how often each reaches the
    far tail (deals of 2,000 / 2,500 / 3,000+ cards), against the kernel's own speed.

    \b
    Examples:
      bmn search-bench --time 20s --seeds 1
      bmn search-bench --strategies walk,random --time 10m --json
    """
    from bmn.kernels.benchmark import bench
    from bmn.search.quality import THRESHOLDS, compare, table
    from bmn.search.strategies import STRATEGIES

    names = [name.strip() for name in strategies.split(",") if name.strip()]
    unknown = [name for name in names if name not in STRATEGIES]
    if unknown or not names:
        raise click.BadParameter(
            f"unknown strategy {unknown[0] if unknown else '(none)'}; "
            f"choose from {', '.join(STRATEGIES)}",
            param_hint="--strategies",
        )
    try:
        seed_list = [int(seed) for seed in seeds.split(",")]
    except ValueError:
        raise click.BadParameter(
            f"{seeds!r} is not a list of seeds", param_hint="--seeds"
        ) from None
    kernel = bench(2_000_000, workers).games_per_s
    click.echo(f"kernel (bmn bench) on {workers} threads: {kernel:,.0f} games/s", err=True)
    trials = compare(
        names,
        seed_list,
        seconds,
        workers,
        lambda t: click.echo(
            f"{t.strategy} seed {t.seed}: {t.rate:,.0f} games/s, "
            f"best {t.best_cards}, tail {t.tail}",
            err=True,
        ),
    )
    rows = table(trials, kernel)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "kernel_games_per_s": kernel,
                    "seconds": seconds,
                    "workers": workers,
                    "strategies": rows,
                }
            )
        )
        return
    echo(bench_table(rows, THRESHOLDS))


def resume_target(db: Store, resume: str) -> int:
    """The run to resume: a number, or the latest run."""
    if resume == "latest":
        run = db.latest_run()
        if run is None:
            raise click.UsageError("no run to resume in this store")
        return run.id
    if not resume.isdigit():
        raise click.BadParameter(f"{resume!r} is not a run number", param_hint="--resume")
    db.get_run(int(resume))  # a clear error if there is no such run
    return int(resume)


def run_with_signals(job: Search | LoopHunt, quiet: bool) -> Summary | LoopSummary:
    """Run a search; SIGINT and SIGTERM stop it cleanly after a checkpoint."""
    import signal

    from bmn.search.display import Display

    def stop(signum, frame):
        job.stop.set()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with Display(quiet) as display:
            return job.run(display.update)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


COMMANDS = [search, search_bench]
