"""The `bmn` command line: parse options, call the library, format the results.

Heavy imports (numba, the kernels) happen inside commands so `bmn --help` stays instant.
Results go to stdout; progress and logs go to stderr.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Sequence
from contextlib import contextmanager

import click

from bmn.kernels.deal import DealError, format_deal, parse_deal
from bmn.records.store import StoreError

STORE_OPTION = click.option(
    "--store",
    type=click.Path(dir_okay=False),
    default="bmn-records.sqlite",
    envvar="BMN_STORE",
    show_default=True,
    help="The record store (SQLite file); env BMN_STORE.",
)
JSON_OPTION = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


class BmnGroup(click.Group):
    """Turns bmn's own errors into one clear line (exit 2); --debug shows tracebacks."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except DealError as err:
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            raise click.UsageError(str(err), ctx) from None
        except StoreError as err:  # a missing, foreign, newer, damaged or busy store: exit 1
            if ctx.obj and ctx.obj.get("debug"):
                traceback.print_exc()
            raise click.ClickException(str(err)) from None


@click.group(cls=BmnGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.version_option(package_name="bmn")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """bmn: find, verify and compare the longest games of Beggar-My-Neighbour.

    \b
    Examples:
      bmn play ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
      bmn deal --players 3 --seed 7
      bmn records published
    """
    ctx.obj = {"debug": debug}


def read_deal(hands: Sequence[str]):
    """Parse HAND... arguments, turning notation errors into a usage error."""
    try:
        return parse_deal(hands)
    except DealError as err:
        raise click.BadParameter(str(err), param_hint="HAND...") from None


# Hands in record notation start with '-', so unknown "options" are taken as hands.
HAND_COMMAND = {"ignore_unknown_options": True}


@cli.command(context_settings=HAND_COMMAND)
@click.argument("hands", nargs=-1, required=True, metavar="HAND...")
@JSON_OPTION
@click.option(
    "--limit-cards",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after this many cards; the seat holding most cards wins.",
)
@click.option("--trace", is_flag=True, help="Add a per-trick table (a 'trace' list with --json).")
def play(hands: tuple[str, ...], as_json: bool, limit_cards: int | None, trace: bool) -> None:
    """Play one deal with the reference engine and report its length.

    Hands are listed in seat order, top card first, as separate arguments or joined
    by '/'. Notations: record ('-' numeral, J Q K A), ranks (2-10, T), or with suits.

    \b
    Examples:
      bmn play ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
      bmn play '-J/Q-' --trace
      bmn play 'AS 10H QD' 'KC 2S 3S' --json
    """
    from bmn.kernels.reference import play as play_deal

    deal = read_deal(hands)
    result = play_deal(deal, limit=limit_cards, trace=trace)
    if as_json:
        out = result.as_dict()
        if trace:
            out["trace"] = [
                {"taker": t.taker, "cards": t.cards, "hand_sizes": list(t.hand_sizes)}
                for t in result.trace or ()
            ]
        click.echo(json.dumps(out))
        return
    click.echo(f"deal: {format_deal(deal)}")
    click.echo(describe(result))
    if trace:
        click.echo(trace_table(result.trace or (), len(deal)))


def describe(result) -> str:
    """One human summary line for a reference or kernel result."""
    if result.status == "loop":
        return (
            f"loop: never ends; state repeats at {result.cards} cards, {result.tricks} tricks; "
            f"cycle starts after {result.loop_start_cards} cards, {result.loop_start_tricks} "
            f"tricks; period {result.period_cards} cards, {result.period_tricks} tricks"
        )
    if result.status == "limit":
        who = "no seat (tie)" if result.winner is None else f"seat {result.winner}"
        return (
            f"limit: stopped at {result.cards} cards, {result.tricks} tricks; "
            f"{who} holds most cards"
        )
    return f"finished: {result.cards} cards, {result.tricks} tricks; seat {result.winner} wins"


def trace_table(trace, seats: int) -> str:
    """A plain per-trick table: trick number, taker, cards in the pile, hand sizes."""
    head = ["trick", "taker", "pile"] + [f"seat {s}" for s in range(seats)]
    rows = [head] + [
        [str(i), str(t.taker), str(t.cards)] + [str(n) for n in t.hand_sizes]
        for i, t in enumerate(trace, start=1)
    ]
    widths = [max(len(row[c]) for row in rows) for c in range(len(head))]
    return "\n".join(
        "  ".join(cell.rjust(w) for cell, w in zip(row, widths, strict=False)) for row in rows
    )


@cli.command()
@click.option(
    "--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Number of seats."
)
@click.option("--seed", type=int, default=None, help="Seed for a reproducible shuffle.")
def deal(players: int, seed: int | None) -> None:
    """Shuffle the standard deck and deal it, one card at a time from seat 0.

    Prints the deal in record notation, ready for `bmn play`.

    \b
    Examples:
      bmn deal
      bmn deal --players 4 --seed 1
      bmn play $(bmn deal --seed 3)
    """
    from bmn.kernels.deal import shuffled_deal

    click.echo(format_deal(shuffled_deal(players, seed)))


def figure_option(default: str | None):
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


def write_figure(draw, *args) -> None:
    """Call a plots.py drawing function; a file that cannot be written is a runtime failure."""
    try:
        draw(*args)
    except OSError as err:
        raise click.ClickException(f"cannot write the figure: {err}") from None


@cli.command(context_settings=HAND_COMMAND)
@click.argument("hands", nargs=-1, required=True, metavar="HAND...")
@figure_option(None)
def plot(hands: tuple[str, ...], output: str | None) -> None:
    """Draw the course of one game: every seat's hand size after each trick.

    The deal and its result go in the title; a loop's repeating cycle is shaded and its
    period labelled. Without -o the file is named after the deal. Prints the file name.

    \b
    Examples:
      bmn plot ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
      bmn plot '---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA' -o loop.svg
    """
    from bmn.search.plots import default_game_file, plot_game, trajectory

    deal = read_deal(hands)
    path = output or default_game_file(deal)
    check_figure(path)
    write_figure(plot_game, deal, trajectory(deal), path)
    click.echo(path)


@cli.command()
@click.option(
    "--deals",
    type=click.IntRange(min=1),
    default=None,
    help="How many random deals [default: 1,000,000 for 2 players; 20,000 for 3-4, slower].",
)
@click.option(
    "--players", type=click.IntRange(2, 4), default=2, show_default=True, help="Number of seats."
)
@click.option("--seed", type=int, default=None, help="Seed; drawn at random and shown if omitted.")
@figure_option(None)
@JSON_OPTION
def stats(deals: int | None, players: int, seed: int | None, output: str | None, as_json: bool):
    """Game length over random standard deals: percentiles, loops and the exponential tail.

    Deals are scored by the compiled kernels. Lengths are summarised over finished games;
    the tail above the 90th percentile is fitted by an exponential (tenfold rarer every X
    cards). With -o, also draws the histograms (log counts) with the fitted tails.

    \b
    Examples:
      bmn stats
      bmn stats --deals 100000 --seed 1 --json
      bmn stats --players 3 --deals 50000 -o lengths-3p.png
    """
    import secrets
    import sys

    from bmn.search.plots import plot_stats
    from bmn.search.stats import DEFAULT_DEALS, format_stats, length_stats, score_random

    if output:
        check_figure(output)
    n = deals or DEFAULT_DEALS[players]
    seed = secrets.randbits(63) if seed is None else seed
    with click.progressbar(length=n, label="scoring deals", file=sys.stderr) as bar:
        cards, tricks, status = score_random(n, players, seed, lambda k: bar.update(k - bar.pos))
    figures = {"players": players, "seed": seed, **length_stats(cards, tricks, status)}
    if output:
        done = status == 0
        title = f"{n:,} random standard deals, {players} players (seed {seed})"
        write_figure(plot_stats, cards[done], tricks[done], figures, title, output)
        click.echo(f"wrote {output}", err=True)
    click.echo(json.dumps(figures) if as_json else format_stats(figures))


@cli.command(context_settings=HAND_COMMAND)
@click.argument("hands", nargs=-1, required=True, metavar="HAND...")
@JSON_OPTION
def loop(hands: tuple[str, ...], as_json: bool) -> None:
    """Describe the cycle a non-terminating deal falls into.

    Prints where the cycle starts and its period (cards and tricks), every state on the
    cycle (each hand and the seat to lead, at each trick boundary, with the cards of the
    trick played from it), which states are balanced (hand sizes of an even deal, 26/26),
    and the cycle key: the smallest state string on the cycle, the same from any deal that
    falls into it. --json adds rotation_key, the key up to renumbering the seats (a cycle and
    its mirror image share it). A deal that finishes is reported as such, with its length
    (exit 0).

    \b
    Examples:
      bmn loop ---K---Q-KQAJ-----AAJ--J-- ----------Q----KQ-J-----KA
      bmn loop '---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA' --json
    """
    from bmn.kernels.loops import analyse, describe_loop

    deal = read_deal(hands)
    analysis = analyse(deal)
    if as_json:
        click.echo(json.dumps(analysis.as_dict()))
        return
    click.echo(f"deal: {format_deal(deal)}")
    click.echo(describe_loop(analysis))


def read_hand_sizes(text: str | None, deal) -> tuple[int, int]:
    """'26,26' for two hands whose sizes add up to the deal's cards; default: the deal's own."""
    if text is None:
        return len(deal[0]), len(deal[1])
    total = sum(len(hand) for hand in deal)
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if len(sizes) != 2 or min(sizes) < 1 or sum(sizes) != total:
        raise click.BadParameter(
            f"{text!r}: expected two sizes of at least 1 adding up to the deal's {total} cards,"
            " like 26,26",
            param_hint="--hand-sizes",
        )
    return sizes[0], sizes[1]


@cli.command(context_settings=HAND_COMMAND)
@click.argument("hands", nargs=-1, required=True, metavar="HAND...")
@click.option("--hand-sizes", default=None, help="Sizes of the deals to list, like 26,26.")
@click.option(
    "--max-depth", type=click.IntRange(min=0), default=None, help="Go back at most D tricks."
)
@click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="Visit at most this many states of the basin.",
)
@click.option(
    "--mirror",
    is_flag=True,
    help="Also list deals falling into the cycle with the seats swapped (marked 'mirrored').",
)
@JSON_OPTION
def preimages(
    hands: tuple[str, ...],
    hand_sizes: str | None,
    max_depth: int | None,
    max_states: int,
    mirror: bool,
    as_json: bool,
) -> None:
    """List the starting deals whose games fall into the same cycle as a looping deal.

    Plays backwards from every state of the cycle (two players), breadth first, and lists
    each deal found with seat 0 to lead and the requested hand sizes, with the tricks and
    cards it plays before entering the cycle. Every deal is confirmed by forward play before
    it is printed. The summary (on stderr with --json) says whether the whole basin of the
    cycle was searched. The default hand sizes are the given deal's. With --mirror, the
    deals falling into the same cycle with the seats swapped are listed too.

    \b
    Examples:
      bmn preimages ---K---Q-KQAJ-----AAJ--J-- ----------Q----KQ-J-----KA
      bmn preimages '---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA' --json
      bmn preimages --J--Q/J- --hand-sizes 4,4 --max-depth 20
    """
    from bmn.kernels.backward import BasinSearch, preimage_deals

    deal = read_deal(hands)
    if len(deal) != 2:
        raise click.BadParameter("backward play handles two hands", param_hint="HAND...")
    sizes = read_hand_sizes(hand_sizes, deal)
    report = BasinSearch()

    def progress(r: BasinSearch) -> None:
        click.echo(f"depth {r.depth}: {r.frontier:,} states; {r.states:,} visited", err=True)

    found = preimage_deals(deal, sizes, max_depth, max_states, report, progress, mirror)
    count = 0
    try:
        for item in found:
            count += 1
            text = f"{format_deal(item.deal)}  {item.pre_tricks} tricks, {item.pre_cards} cards"
            text += "  (mirrored)" if item.mirrored else ""
            click.echo(json.dumps(item.as_dict()) if as_json else text)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="HAND...") from None
    except RuntimeError as err:
        raise click.ClickException(str(err)) from None
    extent = "the whole basin" if report.complete else "stopped at a limit, basin not complete"
    summary = (
        f"{count} deals of sizes {sizes[0]}/{sizes[1]} fall into the cycle"
        f"{' or its mirror image' if mirror else ''}; "
        f"{report.states:,} basin states visited to depth {report.depth} ({extent})"
    )
    click.echo(summary, err=as_json)


class Duration(click.ParamType):
    """A length of time: 90s, 10m, 8h, 1h30m, or plain seconds."""

    name = "duration"
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}

    def convert(self, value, param, ctx) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        import re

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


@cli.command()
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
    help="Worker threads [default: every core].",
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
@click.option("--quiet", is_flag=True, help="No progress display on stderr.")
@JSON_OPTION
def search(resume: str | None, store: str, quiet: bool, as_json: bool, **options) -> None:
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
    """
    from bmn.records.store import Store

    with Store(store) as db:
        job = search_job(db, resume, options)
        summary = run_with_signals(job, quiet)
    click.echo(json.dumps(summary.as_dict()) if as_json else summary.text())
    if summary.status == "interrupted":
        click.echo(
            f"stopped; resume with: bmn search --resume {summary.run} --store {store}", err=True
        )
        raise SystemExit(130)


def search_job(db, resume: str | None, options: dict):
    """The search to run: a resumed run of either kind, a new loop hunt, or a new search."""
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
        return (LoopHunt if run.objective == "loop" else Search).resume(db, run.id)
    if options["objective"] == "loop":
        try:
            return LoopHunt(db, loop_options(options))
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--loop-deck") from None
    if options["seconds"] is None and options["iterations"] is None:
        options["seconds"] = 60.0
    chosen = {
        k: v
        for k, v in options.items()
        if v is not None and k in SearchOptions.__dataclass_fields__
    }
    return Search(db, SearchOptions(**chosen))


@cli.command("search-bench")
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
    head = f"{'strategy':<9}{'games/s':>12}{'vs bench':>9}{'best (median)':>15}"
    head += "".join(f"{f'>={t}/M':>10}{f'>={t}/min':>11}" for t in THRESHOLDS)
    click.echo(head)
    for row in rows:
        line = (
            f"{row['strategy']:<9}{row['rate']:>12,.0f}{row['rate_vs_bench']:>9.2f}"
            f"{row['best_cards_median']:>15,.0f}"
        )
        line += "".join(
            f"{row[f'per_million_{t}']:>10.2f}{row[f'per_minute_{t}']:>11.2f}" for t in THRESHOLDS
        )
        click.echo(line)


def resume_target(db, resume: str) -> int:
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


def run_with_signals(job, quiet: bool):
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


@cli.group()
def records() -> None:
    """The published record games and the record store."""


@records.command()
@JSON_OPTION
def published(as_json: bool) -> None:
    """Replay every published record game and compare with its published length.

    \b
    Example:
      bmn records published
    """
    from bmn.records.published import replay_published

    rows = replay_published()
    if as_json:
        click.echo(json.dumps([row.as_dict() for row in rows]))
        return
    click.echo(
        f"{'name':<18} {'year':>4} {'status':<8} {'cards':>6} {'replayed':>8} "
        f"{'tricks':>6} {'replayed':>8}"
    )
    for row in rows:
        mark = "" if row.matches else "  <-- differs"
        click.echo(
            f"{row.name:<18} {row.year:>4} {row.status:<8} {row.cards:>6} "
            f"{row.replayed_cards:>8} {row.tricks:>6} {row.replayed_tricks:>8}{mark}"
        )
    if all(row.matches for row in rows):
        click.echo(f"all {len(rows)} published games replay exactly", err=True)


@records.command("plot")
@click.argument("run_ids", nargs=-1, type=click.IntRange(min=1), metavar="[RUN]...")
@figure_option("bmn-progress.png")
@STORE_OPTION
def records_plot(run_ids: tuple[int, ...], output: str, store: str) -> None:
    """Draw the best cards found against elapsed time for runs in the store.

    All runs when none are named. The published record games are drawn as labelled
    dashed lines. Prints the file name.

    \b
    Examples:
      bmn records plot
      bmn records plot 3 4 -o progress.svg --store runs.sqlite
    """
    from bmn.records.published import published_games
    from bmn.records.store import Store, StoreError
    from bmn.search.plots import plot_records, store_progress

    check_figure(output)
    try:
        with Store(store, create=False) as db:
            missing = sorted(set(run_ids) - {run.id for run in db.runs()})
            if missing:
                raise click.BadParameter(
                    f"no run {', '.join(map(str, missing))} in {store}", param_hint="RUN"
                )
            series, seconds = store_progress(db, run_ids)
    except StoreError as err:
        raise click.ClickException(str(err)) from None
    published = [(game.name, game.cards) for game in published_games() if game.status == "finished"]
    write_figure(plot_records, series, published, output, seconds)
    click.echo(output)


THREADS_OPTION = click.option(
    "--threads", type=click.IntRange(min=1), default=None, help="Threads to use [default: all]."
)


@contextmanager
def byte_progress(source):
    """A progress bar on stderr (when it is a terminal) over the bytes of a file or stdin."""
    import os
    import stat
    import sys

    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    try:
        info = os.fstat(source.fileno())
        total = info.st_size if stat.S_ISREG(info.st_mode) else None
    except (OSError, ValueError, AttributeError):  # not a real file (tests, pipes)
        total = None
    columns = (TextColumn("scoring"), BarColumn(), TextColumn("{task.fields[lines]:,} deals"))
    console = Console(stderr=True)
    with Progress(
        *columns, TimeElapsedColumn(), console=console, disable=not sys.stderr.isatty()
    ) as bar:
        task = bar.add_task("scoring", total=total, lines=0)
        yield lambda nbytes, lines: bar.update(
            task, advance=nbytes, lines=bar.tasks[0].fields["lines"] + lines
        )


@cli.command()
@click.argument("source", type=click.File("r"), default="-", metavar="[FILE|-]")
@JSON_OPTION
@THREADS_OPTION
def score(source, as_json: bool, threads: int | None) -> None:
    """Score deals read one per line from FILE (or stdin) with the compiled kernel.

    Each line is a deal in any notation bmn reads, hands joined by '/'. Blank lines and
    lines starting with '#' are skipped. One result per deal, in input order: a text line, or
    with --json a JSON object per line with the keys of `bmn play --json` plus 'deal'
    (canonical notation). A bad line stops the run after every result before it, naming
    the line (exit 2).

    \b
    Examples:
      bmn score deals.txt --json > results.jsonl
      for s in 1 2 3; do bmn deal --seed $s; done | bmn score
    """
    from types import SimpleNamespace

    from bmn.kernels.score import LineError, score_lines

    with byte_progress(source) as advance:
        try:
            for batch in score_lines(source, threads):
                if as_json:
                    out = [json.dumps({"deal": d, **r}) for d, r in batch.rows()]
                else:
                    out = [f"{d} {describe(SimpleNamespace(**r))}" for d, r in batch.rows()]
                if out:
                    click.echo("\n".join(out))
                advance(batch.consumed, len(out))
        except LineError as err:
            bad = click.ClickException(str(err))
            bad.exit_code = 2
            raise bad from None


@cli.command()
@click.option(
    "--deals",
    type=click.IntRange(min=1),
    default=1_000_000,
    show_default=True,
    help="Random standard deals to score.",
)
@THREADS_OPTION
@click.option("--seed", type=int, default=None, help="Seed of the random deals [default: fixed].")
@JSON_OPTION
def bench(deals: int, threads: int | None, seed: int | None, as_json: bool) -> None:
    """Measure the compiled kernel's speed on random standard two-player deals.

    Deal generation and compilation happen before the clock starts.

    \b
    Examples:
      bmn bench
      taskset -c 1 bmn bench --threads 1 --json
    """
    from bmn.kernels.benchmark import DEFAULT_SEED
    from bmn.kernels.benchmark import bench as run_bench

    result = run_bench(deals, threads, DEFAULT_SEED if seed is None else seed)
    if as_json:
        keys = ("games_per_s", "cards_per_s", "mean_cards", "mean_tricks", "threads", "deals")
        click.echo(json.dumps({key: result.as_dict()[key] for key in keys}))
        return
    click.echo(
        f"{result.deals:,} deals on {result.threads} thread(s) in {result.seconds:.3f} s: "
        f"{result.games_per_s:,.0f} games/s, {result.cards_per_s:,.0f} cards/s; "
        f"mean {result.mean_cards:.2f} cards, {result.mean_tricks:.2f} tricks"
    )


@cli.command()
@click.option(
    "--deals",
    type=click.IntRange(min=1),
    default=200_000,
    show_default=True,
    help="Random standard deals to check.",
)
@click.option("--seed", type=int, default=None, help="Seed of the random deals [default: fixed].")
def selfcheck(deals: int, seed: int | None) -> None:
    """Check the compiled kernel against the reference engine on random standard deals.

    Stops at the first disagreement, prints the deal and both results, and exits 1.

    \b
    Examples:
      bmn selfcheck
      bmn selfcheck --deals 10000 --seed 7
    """
    import sys

    from bmn.kernels.benchmark import DEFAULT_SEED
    from bmn.kernels.benchmark import selfcheck as run_check

    seed = DEFAULT_SEED if seed is None else seed
    with click.progressbar(length=deals, label="checking", file=sys.stderr) as bar:
        bad = run_check(deals, seed, bar.update)
    if bad is not None:
        click.echo(f"deal {bad.index}: {format_deal(bad.deal)}")
        click.echo(f"kernel:    {json.dumps(bad.kernel)}")
        click.echo(f"reference: {json.dumps(bad.reference)}")
        raise click.ClickException("the kernel disagrees with the reference engine")
    click.echo(f"OK: kernel and reference agree on {deals:,} random deals (seed {seed})")


def open_store(path: str):
    """An existing store for reading; a missing or unusable one raises StoreError (exit 1)."""
    from bmn.records.store import Store

    return Store(path, create=False)


@records.command()
@click.option(
    "--by",
    type=click.Choice(["cards", "tricks"]),
    default="cards",
    show_default=True,
    help="Rank by cards laid or by tricks taken.",
)
@click.option(
    "-n",
    "count",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="How many deals to list.",
)
@click.option("--min-cards", type=click.IntRange(min=0), default=0, help="Only deals this long.")
@STORE_OPTION
@JSON_OPTION
def top(by: str, count: int, min_cards: int, store: str, as_json: bool) -> None:
    """The longest distinct deals found by any run in the store.

    A deal found by several runs is listed once, with the run that found it first.

    \b
    Examples:
      bmn records top
      bmn records top --by tricks -n 20
      bmn records top --min-cards 4000 --json --store night.sqlite
    """
    from bmn.records.report import top_json, top_text

    with open_store(store) as db:
        rows = db.top(by=by, n=count, min_cards=min_cards)
    click.echo(top_json(rows) if as_json else top_text(rows))


@records.command()
@STORE_OPTION
@JSON_OPTION
def loops(store: str, as_json: bool) -> None:
    """The cycles of non-terminating games found by `bmn search --objective loop`.

    One per canonical cycle key, in the order first found: the deck (counts of numerals,
    J, Q, K, A; 36,4,4,4,4 is the standard deck), the period (cards and tricks), whether a
    balanced starting deal (an even split, seat 0 first) reaches the cycle (yes / no / ?
    when the backward search stopped at its limit) with how many were found, how often
    hunts saw the cycle, an example deal (a balanced one when known) and the run that found
    it first.

    \b
    Examples:
      bmn records loops
      bmn records loops --json --store night.sqlite
    """
    from bmn.search.loophunt import loops_json, loops_text

    with open_store(store) as db:
        rows = db.loops()
    click.echo(loops_json(rows) if as_json else loops_text(rows))


@records.command()
@STORE_OPTION
@JSON_OPTION
def runs(store: str, as_json: bool) -> None:
    """Every search run in the store: strategy, status, games, time and best.

    \b
    Examples:
      bmn records runs
      bmn records runs --json --store night.sqlite
    """
    from bmn.records.report import runs_json, runs_text

    with open_store(store) as db:
        rows = db.runs()
    click.echo(runs_json(rows) if as_json else runs_text(rows))


@records.command(context_settings=HAND_COMMAND)
@click.argument("hands", nargs=-1, required=True, metavar="HAND...")
@STORE_OPTION
@JSON_OPTION
def show(hands: tuple[str, ...], store: str, as_json: bool) -> None:
    """Where a deal was found, and its result replayed with the reference engine.

    The deal may be in any notation, as separate hands or joined by '/'. Also says where
    it would rank among the published records.

    \b
    Examples:
      bmn records show ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
      bmn records show '-J/Q-' --json --store night.sqlite
    """
    from bmn.kernels.reference import play as play_deal
    from bmn.records.report import show_dict, show_text

    deal = read_deal(hands)
    with open_store(store) as db:
        finds = db.finds_for(format_deal(deal))
    result = play_deal(deal)
    shown = show_dict(format_deal(deal), result.as_dict(), finds)
    click.echo(json.dumps(shown) if as_json else show_text(shown, describe(result)))


@records.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json"]),
    default="csv",
    show_default=True,
    help="Output format.",
)
@STORE_OPTION
@JSON_OPTION
def export(fmt: str, store: str, as_json: bool) -> None:
    """Write every find in the store to stdout (--json is short for --format json).

    Columns: deal, cards, tricks, status, run, found_at, strategy, elapsed (seconds into
    the run when it was found).

    \b
    Examples:
      bmn records export > finds.csv
      bmn records export --format json --store night.sqlite
    """
    import sys

    from bmn.records.report import export_csv, export_json

    write = export_json if as_json or fmt == "json" else export_csv
    with open_store(store) as db:
        write(db.all_finds(), sys.stdout)


@records.command()
@click.option(
    "-n",
    "count",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="How many of the store's best deals to rank.",
)
@STORE_OPTION
@JSON_OPTION
def compare(count: int, store: str, as_json: bool) -> None:
    """The store's longest finished deals beside the published record games, by cards.

    Each find is ranked as if added to the published list ("would rank 4th of 10").

    \b
    Examples:
      bmn records compare
      bmn records compare -n 3 --json --store night.sqlite
    """
    from bmn.records.report import compare_json, compare_text, published_ranking

    with open_store(store) as db:
        rows = db.top(by="cards", n=count, status="finished")
    ranking = published_ranking()
    click.echo(compare_json(rows, ranking) if as_json else compare_text(rows, ranking))


def main() -> None:
    """Console entry point."""
    cli(prog_name="bmn")


if __name__ == "__main__":
    main()
