"""The game commands: play, deal, loop, preimages and plot, one deal at a time."""

from __future__ import annotations

import json

import click

from bmn.frontends.cli.deals import ANY_DECK_OPTION, HANDS_ARGUMENT, HandCommand, read_deal
from bmn.frontends.cli.options import (
    JSON_OPTION,
    RULES_OPTION,
    check_figure,
    check_seats,
    echo,
    figure_option,
    given,
    refuse,
    rules_line,
    write_figure,
)
from bmn.frontends.cli.values import Whole, count_option, seed_option
from bmn.frontends.output.games import describe, describe_loop, trace_table
from bmn.kernels.api import DEFAULT, Deal, RuleSet, even_sizes, format_deal
from bmn.search.api import counted


@click.command(cls=HandCommand)
@HANDS_ARGUMENT
@JSON_OPTION
@click.option(
    "--limit-cards",
    type=Whole(1),
    default=None,
    help="Stop after this many cards; the seat holding most cards wins.",
)
@click.option("--trace", is_flag=True, help="Add a per-trick table (a 'trace' list with --json).")
@click.option(
    "--odds",
    is_flag=True,
    help="Add how rare the game is: one random deal in N (an 'odds' object with --json).",
)
@RULES_OPTION
@ANY_DECK_OPTION
def play(
    hands: tuple[str, ...],
    as_json: bool,
    limit_cards: int | None,
    trace: bool,
    odds: bool,
    rules: RuleSet,
) -> None:
    """Play one deal with the reference engine and report its length.

    Hands are listed in seat order, top card first, as separate arguments or joined
    by '/'. Notations: record ('-' numeral, J Q K A), ranks (2-10, T), or with suits; '.'
    is a hand of no cards (a hand with nothing written, as after a stray '/', is refused).
    A deal holds at most 1,000 cards, which keeps any game to seconds and megabytes.

    --odds adds how rare a game this long is: one random deal in N finishes at least as
    long, by cards and by tricks, from the fitted tail of random deals' lengths that a
    search's live display reads (an estimate: docs/searching.md). Only a finished game of
    the standard deck dealt evenly has odds ("odds": null in JSON otherwise).

    --rules plays the deal as a published engine does (docs/rules.md): a line names the rule
    set when it is not bmn's, and --json always carries "rules". The odds are bmn's rules'.

    \b
    Examples:
      bmn play ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
      bmn play '-J/Q-' --trace
      bmn play 'AS 10H QD' 'KC 2S 3S' --json
      bmn play $(bmn deal --seed 3) --odds
      bmn play $(bmn deal --players 3 --seed 5) --rules paulhus
      bmn play --rules leodog896 \\
          ---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---
    """
    from bmn.kernels.api import play as play_deal

    deal = read_deal(hands)
    check_seats(rules, len(deal))
    result = play_deal(deal, limit=limit_cards, trace=trace, rules=rules)
    if as_json:
        out = {**result.as_dict(), "rules": rules.name}
        if trace:
            out["trace"] = [
                {"taker": t.taker, "cards": t.cards, "hand_sizes": list(t.hand_sizes)}
                for t in result.trace or ()
            ]
        if odds:
            rare = _odds(deal, result, rules)
            out["odds"] = rare.as_dict() if not isinstance(rare, str) else None
        click.echo(json.dumps(out))
        return
    click.echo(f"deal: {format_deal(deal)}")
    if (line := rules_line(rules, len(deal))) is not None:
        click.echo(line)
    click.echo(describe(result))
    if odds:
        from bmn.frontends.output.wrap import fit, stdout_width
        from bmn.search.api import deal_odds_line

        rare = _odds(deal, result, rules)
        line = f"odds: none: {rare}" if isinstance(rare, str) else deal_odds_line(rare)
        click.echo(fit(line, stdout_width()))
    if trace:
        echo(trace_table(result.trace or (), len(deal)))


def _odds(deal: Deal, result, rules: RuleSet):
    """The deal's odds (measure/odds.deal_odds), or why it has none, in words."""
    from bmn.kernels.api import is_standard
    from bmn.search.api import deal_odds

    if rules.plays_as(len(deal)) != DEFAULT:
        return "the fitted tail is of random deals played by bmn's rules"
    if not is_standard(deal):
        return "the fitted tail is of random deals of the standard deck dealt evenly"
    if result.status != "finished":
        return "a game that does not finish has no length to compare"
    return deal_odds(len(deal), result.cards, result.tricks)


DEALS_AT_ONCE = 65_536  # deals made and printed together: memory stays small for any --count


class DealNumber(click.ParamType):
    """A deal's number (rank): ASCII digits, optionally grouped by ',' or '_' as camicia.dev
    and bmn print them; past 64 bits (the standard deck has 6.5e20 arrangements)."""

    name = "number"

    def convert(self, value, param, ctx) -> int:
        import re

        if isinstance(value, int):
            return value
        text = str(value).strip()
        if not re.fullmatch(r"[0-9]{1,3}([,_]?[0-9]{3})*|[0-9]{1,40}", text):
            self.fail(f"{text[:60]!r} is not a deal number (digits 0-9)", param, ctx)
        return int(text.replace(",", "").replace("_", ""))


@click.command()
@click.option("--players", type=Whole(2, 4), default=2, show_default=True, help="Number of seats.")
@seed_option("Seed for a reproducible shuffle (0 to 2**63 - 1).")
@count_option(
    "Deals to print, one per line (the first is the deal --seed alone gives).",
    1,
    ("--count", "-n"),
)
@click.option(
    "--rank",
    type=DealNumber(),
    default=None,
    help="The deal of this number instead of a shuffle (with --count, the numbers after it).",
)
@click.option(
    "--rank-order",
    type=click.Choice(("bmn", "camicia")),  # kernels/ranks.RANK_ORDERS (ranks imports numba)
    default=None,
    help="How --rank numbers deals: bmn's (numeral < J < Q < K < A) or camicia.dev's"
    " (A < K < Q < J < numeral; two players).  [default: bmn]",
)
def deal(
    players: int, seed: int | None, count: int, rank: int | None, rank_order: str | None
) -> None:
    """Shuffle the standard deck and deal it, one card at a time from seat 0.

    Prints the deal in record notation, ready for `bmn play`; with --count, that many
    deals, one per line, ready for `bmn score`. With --rank N, the deal numbered N instead:
    the standard deck's cards in the N-th arrangement (from 0) of --rank-order, cut into
    hands of 26/26 (18/17/17, 13 each), seat 0 first; camicia.dev numbers two-player deals
    this way in its own order, so --rank-order camicia gives the deal of a camicia number
    (docs/rules.md; `bmn records show DEAL` gives a deal's numbers).

    \b
    Examples:
      bmn deal
      bmn deal --players 4 --seed 1
      bmn play $(bmn deal --seed 3)
      bmn deal --count 1000 --seed 1 | bmn score --json
      bmn deal --rank 497985732634057566415 --rank-order camicia
    """
    ctx = click.get_current_context()
    if rank is None:
        if given(ctx, "rank_order"):
            refuse(ctx, "rank_order", "numbers the deal of --rank: give --rank N too")
        return _shuffled(players, seed, count)
    if seed is not None:
        refuse(ctx, "seed", "shuffles; --rank names one deal: give one or the other")
    order = rank_order or "bmn"
    if order == "camicia" and players != 2:
        why = "must be 2 with --rank-order camicia: camicia numbers two-player deals"
        refuse(ctx, "players", why)
    _ranked(players, rank, count, order)


def _shuffled(players: int, seed: int | None, count: int) -> None:
    """--count random deals, made and written DEALS_AT_ONCE at a time, the text in numpy."""
    import secrets

    from bmn.kernels.api import deal_texts, random_rows, seed_state

    # One generator for every deal: the first is shuffled_deal's for the same seed.
    state = seed_state(secrets.randbits(64) if seed is None else seed)
    for start in range(0, count, DEALS_AT_ONCE):
        rows, sizes = random_rows(min(DEALS_AT_ONCE, count - start), state, players)
        click.echo("\n".join(deal_texts(rows, sizes[0])))


def _ranked(players: int, rank: int, count: int, order: str) -> None:
    """The deals numbered rank to rank + count - 1 in `order`, cut into even hands."""
    from bmn.kernels.api import STANDARD_COUNTS, arrangements, decode, unrank_in

    total = arrangements(STANDARD_COUNTS)
    last = rank + count - 1
    if last >= total:
        hint = "--rank" if rank >= total else "--count"
        raise click.BadParameter(
            f"the standard deck's deals are numbered 0 to {total - 1:,}; {last:,} is past them",
            param_hint=hint,
        )
    sizes = even_sizes(sum(STANDARD_COUNTS), players)
    for number in range(rank, last + 1):
        click.echo(format_deal(decode(unrank_in(order, number, STANDARD_COUNTS), sizes)))


@click.command(cls=HandCommand)
@HANDS_ARGUMENT
@figure_option(None)
@RULES_OPTION
@ANY_DECK_OPTION
def plot(hands: tuple[str, ...], output: str | None, rules: RuleSet) -> None:
    """Draw the course of one game: every seat's hand size after each trick.

    The deal and its result go in the title; a loop's repeating cycle is shaded and its
    period labelled; with 3 or 4 players, a cross marks the trick after which a seat holds
    no cards (it is out when next asked for one). Without -o the file is
    bmn-plot-<8 hex digits>.png, the digits a digest of the deal, so the same deal always
    gets the same name. Prints the file name. --rules plays the game under a rule set
    (docs/rules.md), named in the title when it is not bmn's.

    \b
    Examples:
      bmn plot ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
      bmn plot '---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA' -o loop.svg
      bmn plot --rules leodog896 \\
          ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
    """
    from bmn.frontends.output.plots import default_game_file, plot_game, trajectory

    deal = read_deal(hands)
    check_seats(rules, len(deal))
    path = default_game_file(deal) if output is None else output
    check_figure(path)
    named = rules_line(rules, len(deal))
    write_figure(plot_game, deal, trajectory(deal, rules=rules.name), path, named)
    click.echo(path)


@click.command(cls=HandCommand)
@HANDS_ARGUMENT
@JSON_OPTION
@RULES_OPTION
@ANY_DECK_OPTION
def loop(hands: tuple[str, ...], as_json: bool, rules: RuleSet) -> None:
    """Describe the cycle a non-terminating deal falls into.

    Prints where the cycle starts and its period (cards and tricks), every state on the
    cycle (each hand and the seat to lead, at each trick boundary, with the cards of the
    trick played from it), which states are balanced (hand sizes of an even deal, 26/26),
    and the cycle key: the smallest state string on the cycle, the same from any deal that
    falls into it. --json adds rotation_key, the key up to renumbering the seats (a cycle and
    its mirror image share it). A deal that finishes is reported as such, with its length
    (exit 0).

    --rules plays the deal under a rule set (docs/rules.md, "Rule sets"): the cycle, its
    states and its figures are that rule set's own play, the reference engine's figures.

    \b
    Examples:
      bmn loop ---K---Q-KQAJ-----AAJ--J-- ----------Q----KQ-J-----KA
      bmn loop '---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA' --json
      bmn loop -J-------J---J----/-A-KKA--KQ-J--A--/--Q-Q----Q--KA--- \\
        --rules paulhus
    """
    from bmn.kernels.api import analyse

    deal = read_deal(hands)
    check_seats(rules, len(deal))
    analysis = analyse(deal, rules=rules)
    if as_json:
        click.echo(json.dumps({**analysis.as_dict(), "rules": rules.name}))
        return
    line = rules_line(rules, len(deal))
    echo(f"deal: {format_deal(deal)}", *([line] if line else []), *describe_loop(analysis))


SEATS_WORD = {2: "two", 3: "three", 4: "four"}


def read_hand_sizes(text: str | None, deal: Deal) -> tuple[int, ...]:
    """'26,26' (or '3,3,3' for three hands) for as many hands as the deal's, each of at least 1
    card, adding up to the deal's cards; default: the deal's own."""
    if text is None:
        return tuple(len(hand) for hand in deal)
    total, seats = sum(len(hand) for hand in deal), len(deal)
    from bmn.kernels.api import read_counts

    sizes = read_counts("".join(text.split())) or ()  # ASCII digits, as every number bmn reads
    if len(sizes) != seats or min(sizes) < 1 or sum(sizes) != total:
        example = ",".join(map(str, even_sizes(total, seats)))
        raise click.BadParameter(
            f"{text!r}: expected {SEATS_WORD[seats]} sizes of at least 1 adding up to the"
            f" deal's {total} cards, like {example}",
            param_hint="--hand-sizes",
        )
    return sizes


def check_backward_deal(deal: Deal) -> None:
    """Backward play takes deals of at most BACKWARD_MAX_CARDS cards: a usage error otherwise."""
    from bmn.kernels.api import BACKWARD_MAX_CARDS

    cards = sum(map(len, deal))
    if cards > BACKWARD_MAX_CARDS:
        raise click.BadParameter(
            f"backward play takes deals of at most {BACKWARD_MAX_CARDS} cards (two decks; its"
            f" cost grows steeply with the deck: 400 cards take minutes), this one has {cards:,}",
            param_hint="HAND...",
        )


@click.command(cls=HandCommand)
@HANDS_ARGUMENT
@click.option("--hand-sizes", default=None, help="Sizes of the deals to list, like 26,26.")
@click.option("--max-depth", type=Whole(0), default=None, help="Go back at most D tricks.")
@click.option(
    "--max-states",
    type=Whole(1),
    default=1_000_000,
    show_default=True,
    help="Visit at most this many states of the basin.",
)
@click.option(
    "--seat-bound",
    is_flag=True,
    help="Only the deals that reach the cycle with the same seats, not its mirror image.",
)
@RULES_OPTION
@JSON_OPTION
@ANY_DECK_OPTION
def preimages(
    hands: tuple[str, ...],
    hand_sizes: str | None,
    max_depth: int | None,
    max_states: int,
    seat_bound: bool,
    as_json: bool,
    rules: RuleSet,
) -> None:
    """List the starting deals whose games fall into the same cycle as a looping deal.

    Plays backwards from every state of the cycle (2 to 4 players, seats going out
    included), breadth first, and lists each deal found with seat 0 to lead and the
    requested hand sizes, with the tricks and cards it plays before entering the cycle.
    Every deal is confirmed by forward play before it is printed. The summary says whether
    the whole basin of the cycle was searched. The default hand sizes are the given deal's;
    a deal holds at most 104 cards (two decks: the cost grows steeply with the deck).
    --json prints one document when the search ends: the deals ("deals", each with
    "mirrored"), the summary's figures ("complete", "states", "depth") and the hand sizes;
    the summary line goes to stderr.

    The list is seat-blind by default: a deal whose game reaches the cycle with the seats
    swapped plays the same game, so it is listed too, marked 'mirrored' ("mirrored": true in
    JSON). --seat-bound lists only the deals reaching the cycle with the same seats. For the
    published loop that is 18 deals; seat-blind, the 30 of the published count. With 3 or 4
    hands, seat-blind means any seating of the cycle among the seats still in (seats
    renumbered round the table, or a cycle left after seats went out put at other seats:
    one seat-blind key); such deals are marked '(seats renumbered)', and in JSON each deal
    carries "cycle_key", the seat-bound key of the cycle it falls into.

    --rules plays forwards and backwards under a rule set (docs/rules.md, "Rule sets"):
    backward play undoes each rule set's tricks exactly, and every deal listed is confirmed
    by the reference engine under it.

    \b
    Examples:
      bmn preimages ---K---Q-KQAJ-----AAJ--J-- ----------Q----KQ-J-----KA
      bmn preimages '---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA' --json
      bmn preimages --J--Q/J- --hand-sizes 4,4 --max-depth 20 --seat-bound
      bmn preimages J--/-J-/-J- --hand-sizes 3,3,3
      bmn preimages J--/-J-/-J- --hand-sizes 3,3,3 --rules paulhus
    """
    from bmn.kernels.api import BasinSearch

    deal = read_deal(hands)
    check_seats(rules, len(deal))
    check_backward_deal(deal)
    sizes = read_hand_sizes(hand_sizes, deal)
    report = BasinSearch()
    rows, mirrored = _list_preimages(
        deal, sizes, (max_depth, max_states), seat_bound, as_json, report, rules
    )
    extent = "the whole basin" if report.complete else "stopped at a limit, basin not complete"
    if len(deal) == 2:
        which = (
            "the cycle" if seat_bound else f"the cycle or its mirror image ({mirrored} mirrored)"
        )
    else:
        which = (
            "the cycle" if seat_bound else f"the cycle or another seating ({mirrored} renumbered)"
        )
    summary = (
        f"{counted(len(rows), 'deal')} of sizes {'/'.join(map(str, sizes))}"
        f" {'falls' if len(rows) == 1 else 'fall'} into {which}; "
        f"{report.states:,} basin states visited to depth {report.depth} ({extent})"
    )
    if as_json:
        figures = {"complete": report.complete, "states": report.states, "depth": report.depth}
        whole = {"hand_sizes": list(sizes), "seat_bound": seat_bound, **figures}
        whole["rules"] = rules.name
        click.echo(json.dumps({"deals": rows, "mirrored": mirrored, **whole}))
    click.echo(summary, err=as_json)


def _list_preimages(
    deal: Deal,
    sizes: tuple[int, ...],
    limits: tuple[int | None, int],
    seat_bound: bool,
    as_json: bool,
    report,
    rules: RuleSet,
) -> tuple[list[dict], int]:
    """Run backward play (kernels/cycles/backward_seats.play_back), printing each deal as it
    is confirmed unless --json; the JSON rows and how many were mirrored."""
    from bmn.frontends.output.progress import count_progress, stderr_is_terminal
    from bmn.kernels.api import play_back

    terminal = stderr_is_terminal()

    def progress(r) -> None:
        if terminal:  # a bar up to --max-states; off a terminal, a log line per depth
            bar.reach(r.states)
        else:
            click.echo(f"depth {r.depth}: {r.frontier:,} states; {r.states:,} visited", err=True)

    max_depth, max_states = limits
    found = play_back(
        deal, sizes, max_depth, max_states, report, progress, not seat_bound, rules=rules
    )
    marker = "  (mirrored)" if len(deal) == 2 else "  (seats renumbered)"
    rows: list[dict] = []  # --json: printed as one document at the end
    mirrored = 0
    with count_progress("backward play", max_states, "states") as bar:
        try:
            for item in found:
                mirrored += item.mirrored
                rows.append({**item.as_dict(), "mirrored": item.mirrored})
                if not as_json:  # text streams: each deal as it is confirmed
                    text = f"{format_deal(item.deal)}  {counted(item.pre_tricks, 'trick')},"
                    text += f" {counted(item.pre_cards, 'card')}"
                    click.echo(text + (marker if item.mirrored else ""))
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="HAND...") from err
        except RuntimeError as err:
            raise click.ClickException(str(err)) from err
        if report.complete:  # the whole basin, before --max-states
            bar.finish(report.states)
    return rows, mirrored


COMMANDS = [play, deal, loop, preimages, plot]
