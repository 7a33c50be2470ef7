"""The kernel commands: score deals in bulk, measure and check the compiled kernel, and the
length statistics of random deals."""

from __future__ import annotations

import json

import click

from bmn.frontends.cli.deals import TABLE_ANY_DECK_OPTION, any_deck, table_deck_words
from bmn.frontends.cli.device import DEVICE_OPTION, DEVICE_THREADS_OPTION
from bmn.frontends.cli.options import (
    CUT_OPTION,
    JSON_OPTION,
    KERNEL_OPTION,
    NOTATION_OPTION,
    PLAYERS_OPTION,
    RULES_OPTION,
    THREADS_OPTION,
    check_figure,
    check_report,
    check_seats,
    echo,
    figure_option,
    rules_line,
    write_figure,
)
from bmn.frontends.cli.values import deals_option, seed_option
from bmn.frontends.output.games import describe
from bmn.frontends.output.measures import bench_line, format_stats, kernels_line
from bmn.kernels.api import DEFAULT, STANDARD_COUNTS, VALUE_SYMBOL, RuleSet, shorten


class DealFile(click.File):
    """A file of deals, or '-' for stdin; a closed stdin (`bmn score <&-`) is bad input, and
    a file that cannot be opened (missing, a directory, not allowed) is a file bmn cannot
    use, exit 1 (the README's table), as one that cannot be read is."""

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except RuntimeError:  # click finds no stdin to read
            self.fail("stdin is closed: give a FILE of deals, or the deals on stdin", param, ctx)
        except click.BadParameter as err:
            failed = err.__context__
            if not isinstance(failed, OSError):
                raise
            name = click.format_filename(value)
            raise click.ClickException(f"could not read {name}: {failed.strerror}") from None


@click.command()
@click.argument("source", type=DealFile("rb"), default="-", metavar="[FILE|-]")
@JSON_OPTION
@THREADS_OPTION
@DEVICE_OPTION
@RULES_OPTION
@NOTATION_OPTION
@CUT_OPTION
@TABLE_ANY_DECK_OPTION
def score(
    source,
    as_json: bool,
    threads: int | None,
    device: str,
    rules: RuleSet,
    notation: str,
    players: int,
) -> None:
    """Score a table of deals from FILE (or stdin) with the compiled kernel.

    A table is one deal per line in any notation bmn reads, hands joined by '/', in UTF-8,
    and may state each game's length: bmn's own `records export` (CSV or JSON), `deal,cards`
    or `deal cards tricks` lines, JSON lines (`bmn score --json`), exercism's canonical-data
    JSON and the peers' tables (docs/peers.md). The deal is found by its column's name (deal,
    deck, hand_a...) or its shape. A number after a deal is a stated length, never a card.
    Blank lines and lines starting with '#' are skipped.

    One result per deal, in input order: a text line, or with --json a JSON object per line
    with the keys of `bmn play --json` plus 'deal' (canonical notation). Where a line states
    cards, tricks, a status, a winner or a period, the result ends in `agrees` or `differs:
    stated 2,411 cards, replayed 2,410` (with --json, 'stated' and 'agrees'), and a last line
    on stderr counts both: exit 1 if any differs. Results are printed every 65,536 deals, and
    whenever the input pauses, so a live stream gets each result as soon as its line has come.
    A bad line stops the run after every result before it, naming the line (exit 2): one bmn
    cannot read, a line past 1 MiB, and a deal of another deck than the table's (the deck its
    first two deals share; a card dropped, a digit cut off, a number read as cards) or of the
    standard deck's 16 court cards with other than 36 numerals, unless --any-deck says several
    decks are meant. The first deal that is not the standard 52-card deck gets one warning on
    stderr, and a rule set's first compile (a minute or two) one line.

    --rules plays every deal under a rule set (docs/rules.md): a line on stderr names it when
    it is not bmn's, each --json object carries "rules", and a deal of a seat count the rule
    set does not play is a bad line. A rule set the GPU kernel does not play is played by the
    CPU's kernels.

    \b
    Examples:
      bmn records export | bmn score -          # verify a whole store
      bmn score deals.txt --json > results.jsonl
      bmn deal --count 1000 --seed 1 | bmn score --rules at-once
      bmn score report.csv --rules n1k06        # N1k06's digits, its rules
      bmn score numbers.txt --notation camicia  # camicia.dev deal numbers
    """
    from bmn.frontends.output.progress import byte_progress, compiling_said
    from bmn.kernels.api import LineError, TableLines, UnmeantDeckLine, score_lines

    if device == "cuda":
        from bmn.frontends.cli.device import require_cuda

        require_cuda()
    lines = TableLines(source, pauses=True)
    if (line := rules_line(rules)) is not None:
        click.echo(line, err=True)
    tally = Tally()
    warned = False
    with byte_progress(source) as advance, compiling_said(rules_words(rules)):
        try:
            batches = score_lines(
                lines,
                threads,
                device=device,
                rules=rules,
                notation=notation,
                players=players,
                any_deck=any_deck(),
            )
            for batch in batches:
                warned = warned or warn_not_standard(batch.deals)
                out = tally.lines(batch, as_json)
                if out:
                    click.echo("\n".join(out))
                advance(batch.consumed, len(out))
        except LineError as err:
            tally.say()
            said = table_deck_words(str(err)) if isinstance(err, UnmeantDeckLine) else str(err)
            raise bad_lines(said) from err
    if tally.say():
        raise SystemExit(1)


class Tally:
    """Results written as `score` prints them, and the count of stated lengths that agree
    and differ."""

    def __init__(self) -> None:
        self.agree = 0
        self.differ = 0

    def lines(self, batch, as_json: bool) -> list[str]:
        """A batch's lines: text, or JSON objects naming the rule set each was played under;
        each line that states a length ends in its verdict (kernels/claims.py words it)."""
        from types import SimpleNamespace

        out = []
        for deal, verdict in zip(batch.deals, batch.verdicts, strict=True):
            result, stated = verdict.result.as_dict(), verdict.claim.stated
            if stated:
                self.agree += verdict.agrees
                self.differ += not verdict.agrees
            if as_json:
                said = {"stated": stated.as_dict(), "agrees": verdict.agrees} if stated else {}
                rules = verdict.claim.rules
                out.append(json.dumps({"deal": deal, **result, "rules": rules, **said}))
                continue
            judged = ""
            if stated:
                judged = "; agrees" if verdict.agrees else f"; differs: {verdict.words()}"
            out.append(f"{deal} {describe(SimpleNamespace(**result))}{judged}")
        return out

    def say(self) -> bool:
        """The count on stderr, if any line stated a length; True if any differs."""
        if self.agree or self.differ:
            click.echo(stated_count(self.agree, self.differ), err=True)
        return bool(self.differ)


def stated_count(agree: int, differ: int) -> str:
    """'3 lines state a length: 2 agree, 1 differs'."""
    total = agree + differ
    lines = "1 line states" if total == 1 else f"{total:,} lines state"
    agreeing = f"{agree:,} {'agrees' if agree == 1 else 'agree'}"
    return f"{lines} a length: {agreeing}, {differ:,} {'differs' if differ == 1 else 'differ'}"


def bad_lines(message: str) -> click.ClickException:
    """A bad line of a deal file: bad input (exit 2), but no usage hint."""
    bad = click.ClickException(message)
    bad.exit_code = 2
    return bad


def rules_words(rules: RuleSet) -> str:
    """A rule set as the compile notice names it: "bmn's rules", "rule set paulhus"."""
    return "bmn's rules" if rules.name == DEFAULT else f"rule set {rules.name}"


def warn_not_standard(deals: list[str]) -> bool:
    """One warning on stderr for the first deal that is not the standard deck; True once
    said."""
    from bmn.frontends.output.wrap import fit, stderr_width
    from bmn.kernels.api import not_standard_warning

    for deal in deals:  # canonical notation: counting symbols is enough, and fast
        if all(deal.count(c) == n for c, n in _STANDARD_COUNTS) and len(deal) <= 55:
            continue
        values = ["-JQKA".index(c) for c in deal if c in "-JQKA"]  # not '/' or '.'
        warning = not_standard_warning(values, f"deal {shorten(deal)}", "scoring")
        click.echo(fit(warning, stderr_width()), err=True)
        return True
    return False


_STANDARD_COUNTS = tuple(zip(VALUE_SYMBOL, STANDARD_COUNTS, strict=True))  # ("-", 36), ...


@click.command()
@deals_option(1_000_000, "Random standard deals to score (all held in memory: 52 bytes each).")
@THREADS_OPTION
@PLAYERS_OPTION
@seed_option("Seed of the random deals, 0 to 2**63 - 1 [default: fixed].")
@JSON_OPTION
@DEVICE_OPTION
@DEVICE_THREADS_OPTION
@RULES_OPTION
@KERNEL_OPTION
def bench(
    deals: int,
    threads: int | None,
    players: int,
    seed: int | None,
    as_json: bool,
    device: str,
    device_threads: int | None,
    rules: RuleSet,
) -> None:
    """Measure the compiled kernel's speed on random standard deals.

    Two players time the two-seat kernel, three and four the N-seat kernel (hands dealt one
    card at a time from seat 0: 18/17/17, 13 each). Deal generation and compilation happen
    before the clock starts. With --device cuda (two players) the deals are made and played
    on the GPU (1,000,000,000 unless --deals says otherwise, fewer if they would take more
    than about 20 s).

    --rules times the kernel compiled for a rule set (docs/rules.md); its compilation, too,
    happens before the clock starts, on the GPU too.

    On the CPU both kernels are timed, the one bmn plays first: the lanes (several games a
    step in SIMD lanes, where the CPU has wide vectors) and the scalar kernel (one game at a
    time); a second line gives both rates and the choice (--kernel forces it).

    \b
    Examples:
      bmn bench
      taskset -c 1 bmn bench --threads 1 --json
      taskset -c 1 bmn bench --players 3 --threads 1 --deals 300000
      bmn bench --players 3 --rules paulhus --deals 300000
      bmn bench --device cuda --json
    """
    from bmn.frontends.output.progress import compiling_said, count_progress
    from bmn.kernels.api import BENCH_SEED as DEFAULT_SEED
    from bmn.kernels.api import cpu_bench as run_bench

    check_seats(rules, players, "--players is")
    if device == "cuda" or device_threads is not None:
        from bmn.frontends.cli.device import bench_on_device

        two_seats_only(players, device)
        seed = DEFAULT_SEED if seed is None else seed
        return bench_on_device(device, deals, seed, device_threads, as_json, rules)
    # A pulsing bar: dealing, compiling and the timed run report no steps.
    seed = DEFAULT_SEED if seed is None else seed
    from bmn.kernels.api import chosen

    choice = chosen()
    with count_progress(f"benchmarking {deals:,} deals", None), compiling_said(rules_words(rules)):
        try:
            result = run_bench(deals, threads, seed, players, rules)
            other_kernel = "scalar" if choice.uses_lanes else "lanes"
            other = run_bench(deals, threads, seed, players, rules, other_kernel)
        except ValueError as err:  # no compiled kernel plays the rule set with these seats
            raise click.ClickException(str(err)) from None
    if as_json:
        keys = ("games_per_s", "cards_per_s", "mean_cards", "mean_tricks", "threads", "deals")
        figures = {key: result.as_dict()[key] for key in (*keys, "players")}
        rates = {f"{r.kernel}_games_per_s": r.games_per_s for r in (result, other)}
        kernel = choice.as_dict()
        click.echo(json.dumps({**figures, "rules": rules.name, **rates, "kernel": kernel}))
        return
    deals_text = f"{result.deals:,} {players}-player deals"
    where = f"{result.threads} thread{'' if result.threads == 1 else 's'}"
    click.echo(bench_line(deals_text, where, result.seconds, result.as_dict(), rules.name))
    both = (result.as_dict(), other.as_dict(), choice.words(), choice.forced)
    click.echo(kernels_line(*both))


SELFCHECK_LOG_SECONDS = 5.0  # between progress lines off a terminal


@click.command()
@deals_option(200_000, "Random standard deals to check.")
@PLAYERS_OPTION
@seed_option("Seed of the random deals, 0 to 2**63 - 1 [default: fixed].")
@DEVICE_OPTION
@RULES_OPTION
def selfcheck(deals: int, players: int, seed: int | None, device: str, rules: RuleSet) -> None:
    """Check the compiled kernel against the reference engine on random standard deals.

    Two players check the two-seat kernel, three and four the N-seat kernel. Stops at the
    first disagreement, prints the deal and both results, and exits 1. The reference engine
    plays about a thousand deals a second (fewer with more seats), so the default 200,000
    take minutes: about 3 for two players, 4 to 5 for three, 7 for four (two cores, with the
    kernels compiled); --deals 10000 takes seconds. Progress shows on stderr: a bar on a
    terminal, else a line every few seconds. With --device cuda
    (two players), checks the GPU's kernel against the CPU kernel (which this command checks
    against the reference), so millions of deals take seconds.

    --rules checks the kernel compiled for a rule set against the reference engine playing
    the same rule set (docs/rules.md); on the GPU, the GPU's copy against the CPU's.

    \b
    Examples:
      bmn selfcheck
      bmn selfcheck --deals 10000 --seed 7
      bmn selfcheck --players 4 --deals 50000
      bmn selfcheck --players 3 --deals 20000 --rules paulhus
      bmn selfcheck --device cuda --deals 1000000
    """
    from bmn.frontends.output.progress import compiling_said, count_progress
    from bmn.kernels.api import BENCH_SEED as DEFAULT_SEED
    from bmn.kernels.api import cpu_selfcheck as run_check

    seed = DEFAULT_SEED if seed is None else seed
    check_seats(rules, players, "--players is")
    named = "" if rules.name == DEFAULT else f" under rule set {rules.name}"
    if device == "cuda":
        from bmn.frontends.cli.device import selfcheck_on_device

        two_seats_only(players, device)
        return selfcheck_on_device(deals, seed, rules)
    checking = count_progress("checking", deals, log_every=SELFCHECK_LOG_SECONDS)
    with checking as bar, compiling_said(rules_words(rules)):
        bad = run_check(deals, seed, bar.advance, players=players, rules=rules)
    check_report(
        bad,
        ("kernel", "reference"),
        "the kernel disagrees with the reference engine",
        f"OK: kernel and reference agree on {deals:,} random {players}-player deals"
        f" (seed {seed}){named}",
    )


@click.command()
@deals_option(None, "How many random deals [default: 1,000,000].")
@PLAYERS_OPTION
@seed_option("Seed, 0 to 2**63 - 1; drawn at random and shown if omitted.")
@figure_option(None)
@JSON_OPTION
@RULES_OPTION
def stats(
    deals: int | None,
    players: int,
    seed: int | None,
    output: str | None,
    as_json: bool,
    rules: RuleSet,
):
    """Game length over random standard deals: percentiles, loops and the exponential tail.

    Deals are scored by the compiled kernels. Lengths are summarised over finished games;
    the tail above the 90th percentile is fitted by an exponential (tenfold rarer every X
    cards). With -o, also draws the histograms (log counts) with the fitted tails.

    --rules plays the deals under a rule set (docs/rules.md): a line names it when it is not
    bmn's (and so does the figure's title), and --json carries "rules".

    \b
    Examples:
      bmn stats
      bmn stats --deals 100000 --seed 1 --json
      bmn stats --players 3 --deals 50000 -o lengths-3p.png
      bmn stats --players 3 --deals 50000 --rules paulhus
    """
    import secrets

    from bmn.frontends.output.plots import plot_stats
    from bmn.frontends.output.progress import compiling_said, count_progress
    from bmn.search.api import DEFAULT_DEALS, length_stats, score_random

    check_seats(rules, players, "--players is")
    if output is not None:
        check_figure(output)
    n = deals or DEFAULT_DEALS[players]
    seed = secrets.randbits(63) if seed is None else seed
    with count_progress("scoring", n) as bar, compiling_said(rules_words(rules)):
        cards, tricks, status = score_random(n, players, seed, bar.reach, rules)
    figures = {"players": players, "seed": seed, "rules": rules.name}
    figures.update(length_stats(cards, tricks, status))
    if output is not None:
        done = status == 0
        named = "" if rules.name == DEFAULT else f", {rules.name}'s rules"
        title = f"{n:,} random standard deals, {players} players{named} (seed {seed})"
        write_figure(plot_stats, cards[done], tricks[done], figures, title, output)
        click.echo(f"wrote {output}", err=True)
    if as_json:
        click.echo(json.dumps(figures))
    else:
        line = rules_line(rules, players)
        echo(*([line] if line else []), *format_stats(figures))


def two_seats_only(players: int, device: str) -> None:
    """Refuse 3 or 4 players on the GPU, whose kernel plays two seats."""
    if players != 2 and device == "cuda":
        from bmn.frontends.cli.options import refuse

        why = "must be 2 with --device cuda: the GPU kernel plays two seats"
        refuse(click.get_current_context(), "players", why)


COMMANDS = [score, bench, selfcheck, stats]
