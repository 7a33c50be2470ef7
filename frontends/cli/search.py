"""The search commands: `bmn search` (a run of any strategy, or a loop hunt, new or resumed)
and `bmn search-bench` (the strategies compared)."""

from __future__ import annotations

import contextlib
import json
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from bmn.frontends.cli.cluster import cluster_backend, cluster_options
from bmn.frontends.cli.options import (
    JSON_OPTION,
    KERNEL_OPTION,
    MAX_WORKERS,
    STORE_OPTION,
    StoreCommand,
    echo,
    flag,
    given,
    param,
    refuse,
)
from bmn.frontends.cli.values import SEED, Duration, NameList, SeedList, Whole
from bmn.frontends.output.measures import bench_table
from bmn.frontends.output.tables import fit_summary
from bmn.kernels.api import CudaUnavailable
from bmn.search.api import (
    CLUSTER_OPTIONS,
    SETTINGS,
    STRATEGIES,
    DeckValueError,
    NothingToResume,
    Refused,
    Request,
    RunNotFound,
    SearchOptionError,
    Setting,
    StoppedBeforeRun,
    Stopping,
    counted,
    start_request,
    start_run,
)

if TYPE_CHECKING:
    from bmn.records.api import Store
    from bmn.search.api import Backend, GrowSummary, LongestSummary, LoopHuntSummary, RunLoop


class SettingType(click.ParamType):
    """A run's setting as its declaration reads it (search/runs/settings.py): the value
    `bmn.search.search` would take, or click's usage error saying why not."""

    names = {"whole": "integer", "sizes": "sizes", "rank": "rank", "deck": "deck"}

    def __init__(self, setting: Setting):
        self.setting = setting
        self.name = self.names.get(setting.type, setting.type)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return self.setting.read(value)
        except Refused as err:
            self.fail(str(err), param, ctx)


# A metavar instead of click's list of choices, where that list is past a help line's width
# (the rule sets' names are listed in the help instead).
METAVARS = {"loop_deck": "DECK", "rules": "NAME"}


def _listed(setting: Setting) -> str:
    """The choices of a setting shown as NAME, for its help."""
    if setting.name not in METAVARS or not setting.choices:
        return ""
    return f" One of {', '.join(setting.choices)}."


def setting_options(command: Callable) -> Callable:
    """Every setting of a run as an option of `bmn search`, in the order declared: its type,
    default and help from the declaration."""
    for setting in reversed(tuple(SETTINGS.values())):
        kind: click.ParamType = (
            # a rule set's name in any case, as every command takes it
            click.Choice(setting.choices, case_sensitive=setting.type != "rules")
            if setting.choices
            else SettingType(setting)
        )
        if setting.name == "seed":
            kind = SEED  # the one seed rule of every command (settings.SEED_WORDS)
        names = [setting.option] if not setting.flag else [setting.option, setting.name]
        command = click.option(
            *names,
            type=kind,
            default=setting.default,
            show_default=setting.default is not None,
            metavar=METAVARS.get(setting.name),
            help=setting.help + _listed(setting),
        )(command)
    return command


@click.command(cls=StoreCommand)  # `bmn search night.sqlite`: refused with the --store to give
@setting_options
@STORE_OPTION
@click.option(
    "--resume",
    is_flag=False,
    flag_value="latest",
    default=None,
    metavar="[RUN]",
    help="Continue run RUN, or without a number the latest run not finished (interrupted, "
    "stopped or killed); its settings come from the store, so no other search setting may "
    "be given; a run another process is searching is refused.",
)
@cluster_options
@KERNEL_OPTION
@click.option("--quiet", is_flag=True, help="No progress display on stderr.")
@JSON_OPTION
@click.pass_context
def search(
    ctx: click.Context,
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
    every deal of at least --keep-above cards as it goes. Ctrl-C, SIGTERM or
    SIGHUP (the terminal closed; not under nohup) checkpoints and stops;
    `--resume` continues exactly where it stopped, even after a crash or `kill
    -9`. The same --seed and --iterations reproduce a run.
    Options that would do nothing together are refused, saying why: --patience
    is for climb, --history for lahc, --basin-states for the loop hunt, which
    takes no --strategy, --keep-above, --patience or --history;
    --grow-from is for --objective grow, which takes --basin-states too.
    --players 3 or 4 searches the standard deck dealt round three or four seats,
    with every strategy, on the CPU, and hunts loops round them (grow runs play
    two seats);
    --deck and --hand-sizes search any other deck, on the CPU (--strategy every
    on a GPU too, two seats).
    On the CPU the games are played several at a step in SIMD lanes where the CPU
    has wide vectors, else one at a time; the display says which, and --kernel
    forces it: a run scores the same deals either way, so one begun with either
    resumes exactly with the other.

    \b
    Examples:
      bmn search                          # one minute on every core
      bmn search --time 8h --store night.sqlite
      bmn search --strategy lahc --objective tricks --time 30m
      bmn search --iterations 100000000 --seed 42 --workers 2
      bmn search --players 3 --time 15m  # 18/17/17 cards, seat 0 first
      bmn search --deck 14,2,2,2,0 --strategy climb --time 1m   # 10/10 cards
      bmn search --resume                 # continue the latest unfinished run
      bmn search --objective loop --time 1h --workers 2
      bmn search --objective loop --deck standard --time 8h
      bmn search --objective grow --time 2m  # standard-deck cycles from pieces
      bmn search --strategy every --deck 14,2,2,2,0  # every deal of 20 cards
      bmn search --strategy every --deck 6,2,1,1,0 --objective loop --json
      bmn search --strategy every --deck standard --to-rank 1000000000
      bmn search --device cuda --time 8h   # walk or random on an NVIDIA GPU
      bmn search --strategy every --device cuda --deck 28,4,4,4,0 \\
          --to-rank 10000000000
      bmn search --cluster local --time 10m  # a Dask cluster on this machine
      bmn search --scheduler tcp://10.0.0.5:8786 --time 8h
      bmn search --scheduler-file ~/dask.json --resume

    On a Dask cluster (--scheduler, --scheduler-file, DASK_SCHEDULER_ADDRESS, or
    --cluster local) a search or loop hunt with the same seed, iterations and
    --workers finds what it finds on threads; this process stays the only writer of
    the store. A worker that dies costs nothing; if the whole cluster goes away the
    run is checkpointed and exits with status 1, to be resumed on a cluster or on
    threads. GPU and grow runs take no cluster.
    """
    from bmn.records.api import Store
    from bmn.search.api import BackendError

    asked = check_settings(ctx, resume, options)
    backend = None
    try:
        # A signal before the run begins (a cluster starting, the store opening, the kernels
        # compiling) stops at once; later ones stop the run after a checkpoint.
        with Stopping(store) as stopping:
            if asked.kind is None or asked.kind.on_backend:  # before a store: a cluster's
                backend = cluster_backend(scheduler, scheduler_file, cluster, options["workers"])
            stopping.check()  # problem makes no store, and Ctrl-C while it starts is kept
            with Store(store, create=resume is None) as db:
                job = open_run(db, asked, backend)  # --resume never makes a store
                try:
                    summary = run_with_signals(stopping, job, quiet)
                except BackendError as err:
                    raise click.ClickException(
                        f"{err}; run {job.run_id} is checkpointed, resume with: "
                        f"{resume_line(job.run_id, store)}"
                    ) from None
    except StoppedBeforeRun as stopped:
        said = "stopped before the search began: nothing was searched yet"
        if stopped.run is not None:
            said += f"; resume with: {resume_line(stopped.run, store)}"
        click.echo(said, err=True)
        raise SystemExit(130) from None
    finally:
        if backend is not None:
            backend.close()
    # the summary's sentences a line each, fitted to a terminal here (a pipe keeps a line each)
    said = json.dumps(summary.as_dict()) if as_json else fit_summary(summary.text())
    if summary.status != "interrupted":
        click.echo(said)
        return
    # Said first: a summary that cannot be written loses it.
    click.echo(f"stopped; resume with: {resume_line(summary.run, store)}", err=True)
    summary_after_stop(said)
    raise SystemExit(130)


def summary_after_stop(said: str) -> None:
    """The summary of a stopped run, where stdout may be gone with the terminal that hung up
    (EIO) or a reader that went away (EPIPE): the run is checkpointed and stopped, and its
    status is 130 whether or not the summary can be written."""
    # main.py's OutputError (a ClickException) or EPIPE: GuardedOutput tries no more after one
    with contextlib.suppress(click.ClickException, OSError):
        click.echo(said)


def resume_line(run: int, store: str) -> str:
    """The command that resumes a run, its store quoted for the shell."""
    return f"bmn search --resume {run} --store {shlex.quote(store)}"


def check_settings(ctx: click.Context, resume: str | None, options: dict) -> Request:
    """The run these options ask for, checked by the library before a store is opened (as
    `bmn.search.search` checks it): each option the run's kind does not take is refused,
    saying why (the registry of run kinds says what each takes); a bad deck is a bad value;
    a GPU run where CUDA cannot run is one line, exit 1. --resume takes no setting of a run."""
    names = [p.name for p in ctx.command.params]
    typed = {n for n in names if ctx.get_parameter_source(n) == ParameterSource.COMMANDLINE}
    chosen = {n for n in names if n in SETTINGS and given(ctx, n)}
    if resume is not None and chosen:
        name = min(chosen, key=names.index)
        raise click.UsageError(
            f"--resume takes its settings from the run; drop {flag(ctx, name)}", ctx
        )
    try:
        return start_request(options, chosen, resume, typed)
    except DeckValueError as err:
        raise click.BadParameter(err.why, ctx, param(ctx, err.option)) from None
    except SearchOptionError as err:
        if err.option == "resume":
            raise click.BadParameter(err.why, ctx, param(ctx, "resume")) from None
        refuse(ctx, err.option, err.why)
        raise  # refuse raised
    except CudaUnavailable as err:  # one line saying what is missing
        raise click.ClickException(str(err)) from None


def open_run(db: Store, asked: Request, backend: Backend | None) -> RunLoop:
    """The run asked for, new or resumed, made by the library (search/runs/start.py) as
    `bmn.search.search` makes it. A run the store does not hold is bad input, like a bad
    number (exit 2); so is plain --resume with no run to resume, unless the run is being
    searched (RunHeld: exit 1)."""
    ctx = click.get_current_context()
    try:
        return start_run(db, asked, backend)
    except RunNotFound as err:
        raise click.BadParameter(
            f"{err}; list the runs with: bmn records runs --store {shlex.quote(str(db.path))}",
            param_hint="--resume",
        ) from None
    except NothingToResume as err:
        raise click.BadParameter(err.why, param_hint="--resume") from None
    except SearchOptionError as err:
        if err.option in CLUSTER_OPTIONS:
            refuse(ctx, err.option, err.why)
        raise click.BadParameter(err.why, param_hint=flag(ctx, err.option)) from None
    except CudaUnavailable as err:  # a GPU run resumed where CUDA cannot run
        raise click.ClickException(str(err)) from None


@click.command(
    "search-bench",
    short_help="Compare search strategies: their speed and how often each reaches the far tail.",
)
@click.option(
    "--strategies",
    type=NameList(list(STRATEGIES), "strategy"),
    default=",".join(STRATEGIES),
    show_default=True,
    help="Comma-separated strategies to compare.",
)
@click.option(
    "--time",
    "seconds",
    type=Duration(),
    default="1m",
    show_default=True,
    help="Search time of each trial. A trial is one strategy on one seed, so the bench runs "
    "strategies x seeds trials (4 x 3 = 12 by default: 12 minutes) and takes that many times "
    "--time, plus compiling and the kernel's own speed; it says how many on stderr first.",
)
@click.option(
    "--seeds",
    type=SeedList(),
    default="1,2,3",
    show_default=True,
    help="Comma-separated seeds, each 0 to 2**63 - 1; every strategy runs once per seed.",
)
@click.option(
    "--workers",
    type=Whole(1, MAX_WORKERS),
    default=2,
    show_default=True,
    help="Worker threads for each trial, and for the kernel speed it is compared with.",
)
@JSON_OPTION
def search_bench(
    strategies: list[str], seconds: float, seeds: list[int], workers: int, as_json: bool
) -> None:
    """Compare search strategies: speed inside the search and how often each reaches the
    far tail (deals of 2,000 / 2,500 / 3,000+ cards), against the kernel's own speed.

    Each strategy runs once per seed for --time: the whole bench is strategies x seeds
    trials of --time each (by default 12 trials of a minute).

    \b
    Examples:
      bmn search-bench --time 20s --seeds 1     # 4 trials of 20 s
      bmn search-bench --strategies walk,random --time 10m --json  # 6 of 10 min
    """
    from bmn.frontends.output.measures import trial_line
    from bmn.kernels.api import cpu_bench as bench
    from bmn.search.api import SEARCH_BENCH_THRESHOLDS as THRESHOLDS
    from bmn.search.api import duration
    from bmn.search.api import search_bench_compare as compare
    from bmn.search.api import search_bench_table as table

    names, seed_list = strategies, seeds
    trials_n = len(names) * len(seed_list)
    each = f"{counted(len(names), 'strategy', 'strategies')} x {counted(len(seed_list), 'seed')}"
    click.echo(
        f"search-bench: {counted(trials_n, 'trial')} ({each}) of {duration(seconds)} each:"
        f" about {duration(trials_n * seconds)} of search, after the kernel's bench",
        err=True,
    )
    kernel = bench(2_000_000, workers).games_per_s
    on = counted(workers, "thread")
    click.echo(f"kernel (bmn bench) on {on}: {kernel:,.0f} games/s", err=True)
    trials = compare(
        names,
        seed_list,
        seconds,
        workers,
        lambda t: click.echo(
            trial_line(t.strategy, t.seed, t.rate, t.best_cards, t.tail), err=True
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


def run_with_signals(
    stopping: Stopping, job: RunLoop, quiet: bool
) -> LongestSummary | LoopHuntSummary | GrowSummary:
    """Run a search with its live display; SIGINT and SIGTERM stop it cleanly after a
    checkpoint (search/runs/start.py, as for `bmn.search.search`)."""
    from bmn.frontends.output.progress import Display

    with Display(quiet) as display:
        return stopping.run(job, display.update)


COMMANDS = [search, search_bench]
