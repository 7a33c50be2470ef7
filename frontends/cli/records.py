"""`bmn records`: the published record games, and what the record store holds."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection

import click

from bmn.frontends.cli.deals import (
    ANY_DECK_OPTION,
    HANDS_ARGUMENT,
    HandCommand,
    read_deal,
)
from bmn.frontends.cli.options import (
    JSON_OPTION,
    PLAYERS_OPTION,
    RULES_OPTION,
    STORE_OPTION,
    RulesChoice,
    StoreCommand,
    check_figure,
    check_not_store,
    check_seats,
    echo,
    figure_option,
    given,
    open_store,
    rules_line,
    store_exists,
    write_figure,
)
from bmn.frontends.cli.records_doors import DOORS
from bmn.frontends.cli.values import Whole, count_option
from bmn.frontends.output.games import describe
from bmn.frontends.output.records import (
    compare_text,
    cycles_held,
    loops_text,
    published_table,
    runs_text,
    show_text,
    standard_loops_text,
    top_text,
)
from bmn.kernels.api import RuleSet, format_deal, rule_names
from bmn.records.api import IMPORT_KIND


class RecordsGroup(click.Group):
    """`bmn records`: each command takes its store as --store (StoreCommand)."""

    command_class = StoreCommand


@click.group(cls=RecordsGroup)
def records() -> None:
    """The published record games and the record store.

    \b
    Examples:
      bmn records published
      bmn records top -n 20 --store night.sqlite
      bmn records compare --store night.sqlite
    """


# `records top`, `loops` and `export`: every seat count unless one is asked for.
PLAYERS_FILTER = click.option(
    "--players",
    type=Whole(2, 4),
    default=None,
    help="Only deals of this many seats, 2 to 4 [default: all].",
)


def listing(command: Callable) -> Callable:
    """The options of a command that lists what a store holds, of every seat count unless
    --players picks one: --players, --store and --json."""
    return PLAYERS_FILTER(STORE_OPTION(JSON_OPTION(command)))


@records.command()
@PLAYERS_OPTION
@click.option(
    "--rules",
    type=click.Choice(rule_names(), case_sensitive=False),
    default=None,
    metavar="NAME",  # click's list of the names is past a help line: they are in the help
    help="Replay every game under this rule set (docs/rules.md, 'Rule sets'), one of"
    f" {', '.join(rule_names())} [default: each game under the rule set its row claims].",
)
@JSON_OPTION
def published(players: int, rules: str | None, as_json: bool) -> None:
    """Replay every published record game and compare with its published length.

    Two players: the record games published since 1999. Three and four players: nobody
    published a table before bmn, so these are bmn's own longest finds, shipped with it.
    Each game is replayed under the rule set its row claims: bmn's, or for the endless
    3- and 4-player deals found under Paulhus's reading, paulhus (a rules column, and
    "published_rules" in JSON, say which). --rules replays every game under one rule set
    instead, to see which of them end otherwise there.

    \b
    Examples:
      bmn records published
      bmn records published --players 3 --json
      bmn records published --players 4 --rules paulhus
    """
    from bmn.kernels.api import rule_set
    from bmn.records.api import replay_published

    chosen = None if rules is None else rule_set(rules.lower()).name
    rows = replay_published(players, chosen)
    ruled = any(row.rules != row.published_rules for row in rows)  # not each under its own
    if as_json:
        click.echo(json.dumps([row.as_dict() for row in rows]))
        return
    if not rows:
        click.echo(f"the {players}-player table is empty")
        return
    echo(published_table(rows))
    same = sum(row.matches for row in rows)
    if ruled:
        click.echo(
            f"under {chosen}'s rules {same} of {len(rows)} games play as published", err=True
        )
    elif same == len(rows):
        mixed = len({row.rules for row in rows}) > 1
        own = ", each under the rule set it claims" if mixed else ""
        click.echo(f"all {len(rows)} {players}-player games replay exactly{own}", err=True)
    if not ruled and players > 2:
        _say_paulhus(players)


def _say_paulhus(players: int) -> None:
    """With 3 or 4 seats, how many of the table's games under bmn's rules end otherwise under
    Paulhus's reading of a seat out while paying. The command to see them is a line of its
    own, indented, so that an 80-column terminal never splits it."""
    from bmn.kernels.api import DEFAULT
    from bmn.records.api import replay_published

    bmn = [row for row in replay_published(players, "paulhus") if row.published_rules == DEFAULT]
    other = [row for row in bmn if not row.matches]
    if other:
        click.echo(
            f"{len(bmn)} games are bmn's rules; under paulhus's reading {len(other)} of them"
            " end otherwise:"
            f"\n  bmn records published --players {players} --rules paulhus",
            err=True,
        )


@records.command("plot")
@click.argument("run_ids", nargs=-1, type=Whole(1), metavar="[RUN]...")
@figure_option("bmn-progress.png")
@click.option(
    "--players",
    type=Whole(2, 4),
    default=None,
    help="Only runs of this many seats, 2 to 4 [default: the count most runs have].",
)
@STORE_OPTION
def records_plot(run_ids: tuple[int, ...], output: str, players: int | None, store: str) -> None:
    """Draw the best found so far against elapsed time for runs in the store.

    All runs when none are named. Runs searching for cards are drawn against the published
    record games (labelled dashed lines); runs searching for tricks get a panel of their
    own, against the published games' tricks. Runs of 3 or 4 players are drawn against
    bmn's own table for that many seats (`records published --players 3`). One plot holds
    the runs whose finds compare, of one seat count, deck and rule set: where the runs have
    several, the one most of them have is drawn, and a line on stderr names the runs of each
    other and the command that draws them. Only the standard deck under bmn's rules is drawn
    against the published games (the title names another deck or rule set). The legend names
    each run's strategy and objective (and players, past two). Loop hunts have no length to
    draw (`bmn records loops` lists their cycles), and imports no progress (another
    program's finds: `bmn records top` lists them): when nothing is left to draw, one line
    on stderr says so and no file is written. Prints the file name.

    \b
    Examples:
      bmn records plot
      bmn records plot 3 4 -o progress.svg --store runs.sqlite
      bmn records plot --players 3 -o three.png
    """
    from bmn.frontends.output.plots import plot_records, store_progress
    from bmn.kernels.api import DEFAULT
    from bmn.records.api import STANDARD_LABEL, published_games

    check_figure(output)
    check_not_store(output, store)
    with open_store(store) as db:
        missing = sorted(set(run_ids) - {run.id for run in db.runs()})
        if missing:
            raise click.BadParameter(
                f"no run {', '.join(map(str, missing))} in {store}", param_hint="RUN"
            )
        series = store_progress(db, run_ids, players)
        imports = [run.id for run in db.runs() if run.kind == IMPORT_KIND]
    if not any(len(s.values) for s in series):
        why = nothing_drawn(series, run_ids, store, players, imports)
        click.echo(f"nothing to plot: {why}", err=True)
        return
    series, notes = one_table(series, store)
    for note in notes:
        click.echo(note, err=True)
    seats, deck, rules = next(s.table for s in series if len(s.values))
    published, of = [], f"{deck}, {rules}'s rules: no published games to draw against"
    if deck == STANDARD_LABEL and rules == DEFAULT:  # the published games' own
        games = published_games(seats)
        published = [(g.name, g.cards, g.tricks) for g in games if g.status == "finished"]
        of = ""
    write_figure(plot_records, series, published, output, of)
    click.echo(output)


def one_table(series: list, store: str) -> tuple[list, list[str]]:
    """The runs whose finds compare with one another (one seat count, deck and rule set), with
    a line for each other such group the runs hold, naming its runs and the command that draws
    them: games of 2 and of 3 seats, or of two decks, are no yardstick for each other, and
    only the standard deck under bmn's rules is drawn against the published games. The group
    most runs with finds have (the fewest seats, then the standard deck and bmn's rules, on a
    tie)."""
    from collections import Counter

    from bmn.search.api import store_option

    counts = Counter(s.table for s in series if len(s.values))
    if len(counts) < 2:
        return series, []
    chosen = max(sorted(counts, key=_table_order), key=counts.__getitem__)
    notes = []
    for table in sorted(set(counts) - {chosen}, key=_table_order):
        runs = [s.run for s in series if s.table == table and len(s.values)]
        named = " ".join(map(str, runs))
        notes.append(
            f"not drawn, the runs of {_table_words(table)}:"
            f" bmn records plot {named}{store_option(store)}"
        )
    drawing = (
        f"drawing the runs of {_table_words(chosen)}: one seat count, deck and rule set a plot"
    )
    return [s for s in series if s.table == chosen], [drawing, *notes]


def _table_order(table: tuple[int, str, str]) -> tuple:
    from bmn.kernels.api import DEFAULT
    from bmn.records.api import STANDARD_LABEL

    seats, deck, rules = table
    return seats, deck != STANDARD_LABEL, rules != DEFAULT, deck, rules


def _table_words(table: tuple[int, str, str]) -> str:
    """'2 players, standard deck, bmn's rules'."""
    seats, deck, rules = table
    return f"{seats} players, {deck}, {rules}'s rules"


def _listed(numbers: list[int]) -> str:
    """'2', '2 and 3', '2, 3 and 4'."""
    words = list(map(str, numbers))
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def nothing_drawn(
    series: list,
    run_ids: tuple[int, ...],
    store: str,
    players: int | None = None,
    imports: Collection[int] = (),
) -> str:
    """Why `records plot` has nothing to draw (`imports`: the store's import runs)."""
    named = f"run {', '.join(map(str, run_ids))}"
    loops = f"list a loop hunt's cycles with: bmn records loops --store {store}"
    if series:
        return f"{named if run_ids else 'the store'} has no finished finds yet"
    if players is not None:
        which = f"{named} {'is' if len(run_ids) == 1 else 'are'} not" if run_ids else "no runs"
        return f"{which} of {players} players searching cards or tricks in the store"
    if run_ids and set(run_ids) <= set(imports):
        return (
            f"{named} imported another program's finds, which have no search progress to draw;"
            f" list them with: bmn records top --store {store}"
        )
    if not run_ids:
        return f"the store has no searches of cards or tricks yet ({loops})"
    return f"{named} hunted loops, which have no length to draw; {loops}"


@records.command()
@click.option(
    "--by",
    type=click.Choice(["cards", "tricks"]),
    default="cards",
    show_default=True,
    help="Rank by cards laid or by tricks taken.",
)
@count_option("How many deals to list.")
@click.option("--min-cards", type=Whole(0), default=0, help="Only deals this long.")
@listing
def top(
    by: str, count: int, min_cards: int, players: int | None, store: str, as_json: bool
) -> None:
    """The longest distinct deals found by any run in the store, for each seat count and deck.

    Only games of one seat count and one deck compare, so each has its own list (the
    standard deck first) of at most -n deals; --players picks one seat count. A deal found by
    several runs is listed once, with the run that found it first. Games that never end have
    no length to rank: they are listed apart, the first found first (not with --min-cards).
    A damaged find (a value no bmn writes) is left out, and a line on stderr says so.

    \b
    Examples:
      bmn records top
      bmn records top --by tricks -n 20
      bmn records top --min-cards 4000 --json --store night.sqlite
      bmn records top --players 3
    """
    from bmn.frontends.output.records import top_json
    from bmn.records.api import first_loops, top_lists

    with open_store(store) as db:
        db.skip_damaged = True  # a damaged find is left out of the lists, and said below
        lists = top_lists(db, by, count, min_cards, players)
        loops, looping = first_loops(db, count, players) if not min_cards else ([], 0)
        skipped = db.skipped
        empty = not (lists or loops or as_json)
        cycles = sum(players in (None, row.seats) for row in db.loops()) if empty else 0
    if skipped:
        rows = f"{len(skipped)} damaged row{'s' if len(skipped) > 1 else ''}"
        click.echo(f"warning: left out {rows} of the store: {skipped[0]}", err=True)
    if as_json:
        click.echo(top_json(lists, loops))
    else:
        echo(*top_text(lists, loops, looping, by, cycles_held(cycles, store)))


@records.command()
@click.option(
    "--standard",
    is_flag=True,
    help="Only the standard-deck cycles, one per seat-blind key and rule set, the most"
    " balanced first.",
)
@click.option(
    "--rules",
    type=RulesChoice(),
    default=None,
    metavar="NAME",
    help="Only the cycles found under this rule set (docs/rules.md, 'Rule sets') [default:"
    " every rule set's].",
)
@listing
def loops(
    standard: bool, rules: RuleSet | None, players: int | None, store: str, as_json: bool
) -> None:
    """The cycles of non-terminating games found by `bmn search --objective loop` or grow.

    One per canonical cycle key and rule set, in the order first found: the deck (counts of
    numerals, J, Q, K, A; 36,4,4,4,4 is the standard deck), the period (cards and tricks),
    whether a balanced starting deal (an even split, seat 0 first) reaches the cycle (yes /
    no / unknown when the backward search stopped at its limit) with how many were found, how
    often hunts saw the cycle, an example deal (a balanced one when known) and the run that
    found it first. The seats column: how many seats the deal was dealt to, or 'k of n' for a
    cycle of k seats left after the others went out (3 and 4 players: `bmn search --objective
    loop --players 3`); --players lists the cycles of deals of that many seats only.

    A key is a cycle under the rule set it was found under (`bmn search --objective loop
    --rules paulhus`): the same key under two rule sets is two games, listed apart, and a
    rules column names each one's where any is not bmn's (--json: `rules`, always); --rules
    lists one rule set's cycles only.

    With --standard, the standard-deck cycles only, one per seat-blind key (seats swapped
    is the same cycle) and rule set, most balanced first: the most balanced starting deal
    found (`deal`; it falls into the cycle: check with `bmn loop DEAL`), its hand sizes,
    whether a 26/26 deal reaches the cycle (with how many do, seats as given + seats
    swapped) and the period.

    \b
    Examples:
      bmn records loops
      bmn records loops --json --store night.sqlite
      bmn records loops --standard --json
      bmn records loops --players 3
      bmn records loops --rules paulhus --players 3
    """
    from bmn.frontends.output.records import loops_json, standard_loops_json
    from bmn.records.api import standard_loops

    with open_store(store) as db:
        rows = db.loops(rules=None if rules is None else rules.name)
    if players is not None:
        rows = [row for row in rows if row.seats == players]
    if not rows and not as_json and (players is not None or rules is not None):
        echo(_no_cycles(players, rules))
        return
    if standard:
        found = standard_loops(rows)
        echo(standard_loops_json(found) if as_json else standard_loops_text(found))
        return
    echo(loops_json(rows) if as_json else loops_text(rows))


def _no_cycles(players: int | None, rules: RuleSet | None) -> str:
    """`records loops` with none of the cycles asked for: the hunt that finds them."""
    of = f" of {players}-seat deals" if players is not None else ""
    under = f" under {rules.name}'s rules" if rules is not None else ""
    hunt = "bmn search --objective loop"
    hunt += f" --players {players}" if players is not None else ""
    hunt += f" --rules {rules.name}" if rules is not None else ""
    return f"no cycles{of}{under} in the store; hunt with: {hunt}"


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
    from bmn.frontends.output.records import runs_json

    with open_store(store) as db:
        rows = db.runs()
    echo(runs_json(rows) if as_json else runs_text(rows))


@records.command(cls=HandCommand)
@HANDS_ARGUMENT
@STORE_OPTION
@RULES_OPTION
@ANY_DECK_OPTION
@JSON_OPTION
def show(hands: tuple[str, ...], store: str, rules: RuleSet, as_json: bool) -> None:
    """Where a deal was found, and its result replayed with the reference engine.

    The deal may be in any notation, as separate hands or joined by '/'. Names the published
    game it is, if it is one (of any table: an endless one too), and says where it would rank
    among the published records. Without a store (none at --store) the deal is still replayed
    and ranked, and the store part says there is none ("store": null in JSON); a store that
    exists but cannot be used is an error (exit 1).

    --rules replays the deal under a rule set (docs/rules.md), named on a line of its own when
    it is not bmn's. Each find is held against its replay under the rule set its own run
    played (named beside it when it is not bmn's), whatever --rules says: an import of
    N1k06's figures agrees under n1k06's rules. The published tables are bmn's rules, so a
    deal replayed otherwise is not ranked among them.

    \b
    Examples:
      bmn records show ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
      bmn records show '-J/Q-' --json --store night.sqlite
      bmn records show --rules paulhus \\
          ---AJ--Q---------QAKQJJ-QK -----A----KJ-K--------A---
    """
    from bmn.kernels.api import play as play_deal
    from bmn.records.api import show_dict

    deal = read_deal(hands)
    check_seats(rules, len(deal))
    finds, run_rules = None, {}
    if store_exists(store):
        with open_store(store) as db:
            finds = db.finds_for(format_deal(deal))
            run_rules = {run: db.get_run(run).rules for run in {find.run for find in finds}}
    result = play_deal(deal, rules=rules)
    shown = show_dict(format_deal(deal), result.as_dict(), finds, store, rules.name, run_rules)
    if as_json:
        click.echo(json.dumps(shown))
        return
    named = rules_line(rules, len(deal))
    click.echo(show_text(shown, describe(result), store, named))


@records.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json"]),
    default="csv",
    show_default=True,
    help="Output format.",
)
@click.option("--min-cards", type=Whole(0), default=0, help="Only finds of this many cards.")
@listing
def export(fmt: str, min_cards: int, players: int | None, store: str, as_json: bool) -> None:
    """Write every find in the store to stdout (--json is short for --format json).

    Columns: deal, cards, tricks, status, run, found_at, strategy, elapsed (seconds into
    the run when it was found), rules (the rule set its run played), deck_counts (the counts
    N,J,Q,K,A of its deal's deck). Finds of every seat count unless --players picks one, of
    any length unless --min-cards sets one, oldest first. `bmn score` reads an export back,
    each find replayed under its own rule set and held to its deck: `bmn records export |
    bmn score -` verifies a whole store. A store of millions of finds streams out, its finds
    read a batch at a time (about a million a second).

    \b
    Examples:
      bmn records export > finds.csv
      bmn records export --min-cards 4000 --store night.sqlite
      bmn records export --format json --store night.sqlite
      bmn records export --players 4 > four.csv
      bmn records export --store night.sqlite | bmn score -
    """
    import sys

    from bmn.frontends.output.listings import export_listing

    if as_json and fmt == "csv" and given(click.get_current_context(), "fmt"):
        raise click.UsageError("--json is short for --format json; it conflicts with --format csv")
    with open_store(store) as db:
        listing = export_listing({run.id: run.rules for run in db.runs()})
        write = listing.stream_json if as_json or fmt == "json" else listing.stream_csv
        write(db.find_blocks(players, min_cards or None), sys.stdout)


@records.command()
@count_option("How many of the store's best deals to rank.")
@PLAYERS_OPTION
@STORE_OPTION
@JSON_OPTION
def compare(count: int, players: int, store: str, as_json: bool) -> None:
    """The store's longest finished deals beside the published record games, by cards.

    Each find is ranked as if added to the published list ("would rank 4th of 10"). Only
    finished games of --players seats and the standard deck dealt evenly compare with the
    published ones; one line says what else the store holds (other seat counts, other
    decks, loops). Nobody published 3- or 4-player records before bmn, so those tables
    start empty: 3 and 4 players rank among bmn's own table (its longest finds, `bmn
    records published --players 3`), and the text says so.

    \b
    Examples:
      bmn records compare
      bmn records compare -n 3 --json --store night.sqlite
      bmn records compare --players 3
    """
    from bmn.frontends.output.records import compare_json
    from bmn.records.api import comparable, published_ranking

    with open_store(store) as db:
        rows, left_out = comparable(db, count, players)
    ranking = published_ranking(players)
    if as_json:
        click.echo(compare_json(rows, ranking, players, left_out))
    else:
        echo(*compare_text(rows, ranking, players, left_out, store))


for door in DOORS:
    records.add_command(door)

COMMANDS = [records]
