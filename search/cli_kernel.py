"""The kernel commands: score deals in bulk, measure and check the compiled kernel, and the
length statistics of random deals."""

from __future__ import annotations

import json

import click

from bmn.kernels.deal import format_deal
from bmn.search.cli_options import (
    JSON_OPTION,
    THREADS_OPTION,
    check_figure,
    figure_option,
    write_figure,
)
from bmn.search.present import describe, echo, format_stats


@click.command()
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
    from bmn.search.display import byte_progress

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


@click.command()
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
    from bmn.search.display import count_progress

    # A pulsing bar: dealing, compiling and the timed run report no steps.
    with count_progress(f"benchmarking {deals:,} deals", None):
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


@click.command()
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
    from bmn.kernels.benchmark import DEFAULT_SEED
    from bmn.kernels.benchmark import selfcheck as run_check
    from bmn.search.display import count_progress

    seed = DEFAULT_SEED if seed is None else seed
    with count_progress("checking", deals) as bar:
        bad = run_check(deals, seed, bar.advance)
    if bad is not None:
        click.echo(f"deal {bad.index}: {format_deal(bad.deal)}")
        click.echo(f"kernel:    {json.dumps(bad.kernel)}")
        click.echo(f"reference: {json.dumps(bad.reference)}")
        raise click.ClickException("the kernel disagrees with the reference engine")
    click.echo(f"OK: kernel and reference agree on {deals:,} random deals (seed {seed})")


@click.command()
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

    from bmn.search.display import count_progress
    from bmn.search.plots import plot_stats
    from bmn.search.stats import DEFAULT_DEALS, length_stats, score_random

    if output:
        check_figure(output)
    n = deals or DEFAULT_DEALS[players]
    seed = secrets.randbits(63) if seed is None else seed
    with count_progress("scoring", n) as bar:
        cards, tricks, status = score_random(n, players, seed, bar.reach)
    figures = {"players": players, "seed": seed, **length_stats(cards, tricks, status)}
    if output:
        done = status == 0
        title = f"{n:,} random standard deals, {players} players (seed {seed})"
        write_figure(plot_stats, cards[done], tricks[done], figures, title, output)
        click.echo(f"wrote {output}", err=True)
    if as_json:
        click.echo(json.dumps(figures))
    else:
        echo(*format_stats(figures))


COMMANDS = [score, bench, selfcheck, stats]
