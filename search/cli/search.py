"""The search commands: `bmn search` (a run of any strategy, or a loop hunt, new or resumed)
and `bmn search-bench` (the strategies compared)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from bmn.search.cli.device import DEVICE_OPTION, DEVICE_THREADS_OPTION, check_device_threads
from bmn.search.cli.options import (
    JSON_OPTION,
    MAX_WORKERS,
    STORE_OPTION,
    Duration,
    NameList,
    SeedList,
    Whole,
    cluster_backend,
    cluster_options,
    echo,
    flag,
    given,
    param,
    refuse,
    seed_option,
)
from bmn.search.output.text import bench_table
from bmn.search.runs import start
from bmn.search.runs.kinds import CLUSTER_OPTIONS, SETTINGS, RunKind
from bmn.search.strategies.registry import (
    CHOICES,
    DEFAULT_HISTORY,
    DEFAULT_PATIENCE,
    DEFAULT_STRATEGY,
    STRATEGIES,
    strategy_help,
)
from bmn.search.words import counted

MAX_HISTORY = 10_000_000  # lahc keeps this many scores per worker in memory


class DeckSpec(click.ParamType):
    """A deck: 'standard', 'mixed' (the loop hunt's) or counts N,J,Q,K,A; spaces dropped and
    counts written plainly, as the run stores it (' 36, 4,4,4,4 ' is '36,4,4,4,4')."""

    name = "deck"

    def convert(self, value, param, ctx) -> str:
        from bmn.kernels.deal import DealError
        from bmn.kernels.decks import counts_text, parse_counts

        text = "".join(str(value).split())
        if text.lower() in ("standard", "mixed"):
            return text.lower()
        try:
            return counts_text(parse_counts(text))
        except DealError as err:
            self.fail(f"{err}, or 'standard' (36,4,4,4,4)", param, ctx)


class HandSizes(click.ParamType):
    """Hand sizes A,B[,C[,D]]: seat 0's first, as many as seats."""

    name = "sizes"

    def convert(self, value, param, ctx) -> tuple[int, ...]:
        if isinstance(value, tuple):
            return value
        try:
            sizes = tuple(int(part) for part in str(value).replace(" ", "").split(","))
        except ValueError:
            sizes = ()
        if not 2 <= len(sizes) <= 4 or min(sizes) < 0:
            self.fail(f"{value!r}: expected 2 to 4 hand sizes >= 0, like 10,10", param, ctx)
        return sizes


class Rank(click.ParamType):
    """A rank of a deck's deals: a whole number >= 0, as large as the deck's (past 64 bits)."""

    name = "rank"

    def convert(self, value, param, ctx) -> int:
        text = str(value).strip().replace("_", "").replace(",", "")
        if not text.isdigit() or len(text) > 100:
            self.fail(f"{value!r} is not a rank: a whole number of at least 0", param, ctx)
        return int(text)


if TYPE_CHECKING:
    from bmn.records.store import Store
    from bmn.search.backends.base import Backend
    from bmn.search.runs.grow import GrowSummary
    from bmn.search.runs.handler import RunHandler
    from bmn.search.runs.longest_base import Summary
    from bmn.search.runs.loop_hunt import LoopSummary


@click.command()
@click.option(
    "--strategy",
    type=click.Choice(list(CHOICES)),
    default=DEFAULT_STRATEGY,
    show_default=True,
    help=strategy_help(),
)
@click.option(
    "--objective",
    type=click.Choice(["cards", "tricks", "loop", "grow"]),
    default="cards",
    show_default=True,
    help="What makes a deal better; loop: hunt non-terminating "
    "deals instead (random even deals of --loop-deck; every cycle found is stored "
    "once under its canonical key, with its period and whether a balanced deal "
    "reaches it, by backward play; see `bmn records loops`); grow: build standard-deck "
    "cycles from closed pieces (see --grow-from) and store each with its most balanced "
    "starting deal (see `bmn records loops --standard`).",
)
@click.option(
    "--time",
    "seconds",
    type=Duration(),
    default=None,
    help="How long to search: 90s, 10m, 8h, 1h30m, at most 365d [default: 1m, unless "
    "--iterations is given]. With --iterations too, the run stops at whichever comes first.",
)
@click.option(
    "--iterations",
    type=Whole(1),
    default=None,
    help="Score this many deals (reproducible with --seed); with --time too, the run stops "
    "at whichever comes first. grow: this many rounds (each: 200,000 random descents for "
    "closed pieces, then 8 standard deals assembled from them and judged).",
)
@click.option(
    "--workers",
    type=Whole(1, MAX_WORKERS),
    default=None,
    help=f"Search streams, at most {MAX_WORKERS:,}: threads, or tasks at once on a Dask "
    "cluster [default: every core, or every worker thread of the cluster]. grow: independent "
    "piece hunts, one per thread [default: 1; its work is mostly Python, so more threads "
    "gain little].",
)
@click.option(
    "--players",
    type=Whole(2, 4),
    default=2,
    show_default=True,
    help="Seats at the table, 2 to 4: the deck dealt one card at a time from seat 0 (the "
    "standard deck: 26/26, 18/17/17, 13 each); stored with the run.",
)
@seed_option("Seed, 0 to 2**63 - 1; drawn at random and stored with the run if omitted.")
@STORE_OPTION
@click.option(
    "--keep-above",
    type=Whole(0),
    default=3000,
    show_default=True,
    help="Store every deal of at least this many cards, not only the best (a threshold "
    "that keeps more than 20 a second, on two cores about 2,000 or less, is warned of).",
)
@click.option(
    "--patience",
    type=Whole(1),
    default=DEFAULT_PATIENCE,
    show_default=True,
    help="climb only: deals without improvement before a restart.",
)
@click.option(
    "--history",
    type=Whole(1, MAX_HISTORY),
    default=DEFAULT_HISTORY,
    show_default=True,
    help=f"lahc only: length of the late-acceptance history (at most {MAX_HISTORY:,}).",
)
@click.option(
    "--deck",
    type=DeckSpec(),
    default=None,
    help="The deck, 'standard' or counts N,J,Q,K,A of numerals and court cards like "
    "14,2,2,2,0 (two card values at least). walk, random, climb, lahc: the deck searched, on "
    "the CPU [default: standard]; every: the deck enumerated [default: standard]; grow: the deck "
    "whose cycles are built [default: standard]; loop: 'mixed' "
    "[default] (a random sub-deck of the standard deck per batch: measured to find the most "
    "cycles; full random deals almost never loop), 'standard' or counts like 36,1,1,0,0.",
)
@click.option(
    "--loop-deck",
    type=DeckSpec(),
    default=None,
    metavar="DECK",
    help="The first name of --deck, kept.",
)
@click.option(
    "--hand-sizes",
    type=HandSizes(),
    default=None,
    help="walk, random, climb, lahc, every: the hands, seat 0's first, adding up to the deck, "
    "like 10,10 or 7,7,6 [default: as even as possible, seat 0 first, over --players seats]; "
    "stored with the run. grow: the two hand "
    "sizes each cycle's stored starting deal comes nearest to [default: even].",
)
@click.option(
    "--from-rank",
    type=Rank(),
    default=None,
    help="every: the first rank visited [default: 0]. A deal's rank is its place in "
    "lexicographic order of its cards, seat 0's hand first, top card first, numeral < J < Q "
    "< K < A, from 0 (docs/searching.md).",
)
@click.option(
    "--to-rank",
    type=Rank(),
    default=None,
    help="every: the first rank not visited [default: the deck's number of deals]; ranks "
    "--from-rank to --to-rank - 1 are visited, so ranges split a deck by hand.",
)
@click.option(
    "--basin-states",
    type=Whole(1),
    default=None,
    help="loop, grow: backward-play states to visit per new cycle, in search of its most "
    "balanced starting deal [default: 20,000; grow: 100,000].",
)
@click.option(
    "--grow-from",
    type=click.Choice(["known", "descent"]),
    default=None,
    help="grow: 'known' [default]: start from the pieces of the known standard-deck cycles "
    "(the published one and the store's), recombined and mixed with new pieces; 'descent': "
    "from nothing but random descents.",
)
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
@DEVICE_OPTION
@DEVICE_THREADS_OPTION
@cluster_options
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
    every deal of at least --keep-above cards as it goes. Ctrl-C (or SIGTERM)
    checkpoints and stops; `--resume` continues exactly where it stopped, even
    after a crash or `kill -9`. The same --seed and --iterations reproduce a run.
    Options that would do nothing together are refused, saying why: --patience
    is for climb, --history for lahc, --loop-deck and --basin-states for the loop
    hunt, which takes no --strategy, --keep-above, --patience or --history;
    --grow-from is for --objective grow, which takes --basin-states too.
    --players 3 or 4 searches the standard deck dealt round three or four seats,
    with every strategy, on the CPU (loop hunts and grow runs play two seats);
    --deck and --hand-sizes search any other deck, on the CPU (--strategy every
    on a GPU too, two seats).

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
      bmn search --objective loop --loop-deck standard --time 8h
      bmn search --objective grow --time 2m      # standard-deck cycles from pieces
      bmn search --strategy every --deck 14,2,2,2,0   # every deal of a 20-card deck
      bmn search --strategy every --deck 6,2,1,1,0 --objective loop --json
      bmn search --strategy every --deck standard --from-rank 0 --to-rank 1000000000
      bmn search --device cuda --time 8h   # walk or random on an NVIDIA GPU
      bmn search --strategy every --device cuda --deck 28,4,4,4,0 --to-rank 10000000000
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
    from bmn.records.store import Store
    from bmn.search.backends.base import BackendError
    from bmn.search.runs.handler import resume_command

    kind = check_settings(ctx, resume, options)  # None: --resume, whose run says its kind
    if kind is not None and kind.device == "cuda":
        from bmn.search.cli.device import require_cuda

        require_cuda()  # before a store is made
    backend = None  # connected before a store is made: a cluster's problem makes no store
    if kind is None or kind.on_backend:
        backend = cluster_backend(scheduler, scheduler_file, cluster, options["workers"])
    try:
        # A signal before the run begins (the store opening, the kernels compiling) stops at
        # once; later ones stop the run after a checkpoint.
        with start.Stopping(store) as stopping, Store(store, create=resume is None) as db:
            if kind is None:  # --resume never makes a store
                job = resumed_run(db, resume, backend)
            else:
                job = new_run(db, kind, options, backend)
            try:
                summary = run_with_signals(stopping, job, quiet)
            except BackendError as err:
                raise click.ClickException(
                    f"{err}; run {job.run_id} is checkpointed, resume with: "
                    f"{resume_command(job.run_id, store)}"
                ) from None
    except start.StoppedBeforeRun as stopped:
        said = "stopped before the search began: nothing was searched yet"
        if stopped.run is not None:
            said += f"; resume with: bmn search --resume {stopped.run} --store {store}"
        click.echo(said, err=True)
        raise SystemExit(130) from None
    finally:
        if backend is not None:
            backend.close()
    if summary.status == "interrupted":  # said first: a summary that cannot be written loses it
        click.echo(
            f"stopped; resume with: bmn search --resume {summary.run} --store {store}", err=True
        )
    click.echo(json.dumps(summary.as_dict()) if as_json else summary.text())
    if summary.status == "interrupted":
        raise SystemExit(130)


RUN_NUMBER = Whole(1, what="a run number (see bmn records runs)")


def check_settings(ctx: click.Context, resume: str | None, options: dict) -> RunKind | None:
    """The kind of the new run these options ask for, after refusing every option it does not
    take, saying why (the registry of run kinds says what each takes); None with --resume,
    which takes no setting of a run."""
    if resume is not None:
        for name in (p.name for p in ctx.command.params):
            if name in SETTINGS and given(ctx, name):
                raise click.UsageError(
                    f"--resume takes its settings from the run; drop {flag(ctx, name)}", ctx
                )
        if resume != "latest":
            RUN_NUMBER.convert(resume, param(ctx, "resume"), ctx)  # not a number: exit 2
        return None
    names = [p.name for p in ctx.command.params]
    typed = {n for n in names if ctx.get_parameter_source(n) == ParameterSource.COMMANDLINE}
    o = options
    try:
        kind = start.check_new_run(
            o["objective"],
            o["device"],
            o["strategy"],
            o["players"],
            given={n for n in names if given(ctx, n)},
            typed=typed,
        )
    except start.SearchOptionError as err:
        refuse(ctx, err.option, err.why)
    if "device_threads" in kind.takes:
        check_device_threads(ctx, o["device"], o["device_threads"])  # whole blocks
    if "deck" in kind.takes:
        check_deck(ctx, kind, o)
    return kind


def check_deck(ctx: click.Context, kind: RunKind, o: dict) -> None:
    """--deck (or its first name --loop-deck), hand sizes and ranks, checked by the library
    before a store is made: a bad value is a bad parameter, a conflict a refusal."""
    settings = dict(o, players=o["players"] if given(ctx, "players") else None)
    try:
        start.check_deck(kind, settings)
    except start.DeckValueError as err:
        raise click.BadParameter(err.why, ctx, param(ctx, err.option)) from None
    except start.SearchOptionError as err:
        refuse(ctx, err.option, err.why)


def refuse_cluster(what: str) -> None:
    """A usage error if the command line names a Dask cluster for a run that takes none (a
    scheduler named only by DASK_SCHEDULER_ADDRESS is ignored for it)."""
    ctx = click.get_current_context()
    for name in CLUSTER_OPTIONS:
        if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE:
            refuse(ctx, name, f"runs on a Dask cluster; {what} runs on this machine")


def resumed_run(db: Store, resume: str, backend: Backend | None) -> RunHandler:
    """The stored run --resume names, made by the handler of its kind; a kind that runs on
    this machine only refuses a cluster named on the command line."""
    run_id, kind = resume_target(db, resume)  # a stored run of unknown kind: StoreError
    if not kind.on_backend:
        refuse_cluster(f"run {run_id}, {kind.what},")
    if kind.device == "cuda":
        from bmn.search.cli.device import require_cuda

        require_cuda()
    return start.resumed_run(db, run_id, kind, backend)


def new_run(db: Store, kind: RunKind, options: dict, backend: Backend | None) -> RunHandler:
    """A new run of `kind` from the command line's options, made by the library
    (search/runs/start.py) as `bmn.search.search` makes it; a value only the run's options
    can judge (a deck) is bad input."""
    try:
        return start.new_run(db, kind, options, backend)
    except start.SearchOptionError as err:
        raise click.BadParameter(err.why, param_hint=f"--{err.option.replace('_', '-')}") from None


@click.command("search-bench")
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
      bmn search-bench --strategies walk,random --time 10m --json   # 6 trials of 10 min
    """
    from bmn.kernels.benchmark import bench
    from bmn.search.runs.quality import THRESHOLDS, compare, table
    from bmn.search.words import duration

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


def resume_target(db: Store, resume: str) -> tuple[int, RunKind]:
    """The run to resume, and its kind: a number (already checked to be one), or the latest
    run not finished nor searched now (search/runs/start.py finds it).

    A run the store does not hold is bad input, like a bad number (exit 2); so is plain
    --resume with no run to resume, unless the run is being searched (RunHeld: exit 1)."""
    try:
        return start.stored_run(db, resume if resume == "latest" else int(resume))
    except start.RunNotFound as err:
        raise click.BadParameter(
            f"{err}; list the runs with: bmn records runs --store {db.path}",
            param_hint="--resume",
        ) from err
    except start.NothingToResume as err:
        raise click.BadParameter(err.why, param_hint="--resume") from None


def run_with_signals(
    stopping: start.Stopping, job: RunHandler, quiet: bool
) -> Summary | LoopSummary | GrowSummary:
    """Run a search with its live display; SIGINT and SIGTERM stop it cleanly after a
    checkpoint (search/runs/start.py, as for `bmn.search.search`)."""
    from bmn.search.output.progress import Display

    with Display(quiet) as display:
        return stopping.run(job, display.update)


COMMANDS = [search, search_bench]
