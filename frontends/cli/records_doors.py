"""`bmn records` commands that open the store to other files and programs: `merge` and
`import` bring finds in (each replayed first), `coverage` checks a split enumeration's parts,
`upgrade` brings an older store up to date, and `serve` shows it in a browser."""

from __future__ import annotations

import json

import click
from click.core import ParameterSource

from bmn.frontends.cli.deals import TABLE_ANY_DECK_OPTION, any_deck, table_deck_words
from bmn.frontends.cli.options import (
    CUT_OPTION,
    JSON_OPTION,
    NOTATION_OPTION,
    RULES_OPTION,
    STORE_OPTION,
    StoreCommand,
    echo,
    open_store,
)
from bmn.frontends.cli.values import Whole
from bmn.frontends.output.records import coverage_text, imported_line, merged_line
from bmn.kernels.api import RuleSet


@click.command(cls=StoreCommand)
@click.argument("named", required=False, metavar="[STORE]")
@STORE_OPTION
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on: 127.0.0.1 is this machine only; 0.0.0.0 shares the"
    " store with anyone who can reach this machine.",
)
@click.option(
    "--port",
    type=Whole(0, 65535),
    default=8001,
    show_default=True,
    help="The port to listen on (0: any free port).",
)
def serve(named: str | None, store: str, host: str, port: int) -> None:
    """Open the store in a web browser, read-only, on Datasette (the `serve` extra).

    Pages: the longest finds of each seat count (finds kept in bulk among them), runs,
    loops, the published records, and for any deal a page that replays it (its result, the
    picture of its course, the trick table, where the store found it, its rank among the
    published games); Datasette's table browser beside them. Nothing can change the store
    from the browser, and a search may write to it meanwhile. Prints the URL to open; Ctrl-C
    stops. STORE: the store, as an argument or with --store as every records command takes
    it; else the file named by BMN_STORE, else bmn-records.sqlite.

    \b
    Examples:
      bmn records serve night.sqlite
      bmn records serve --store night.sqlite --port 8080
      bmn records serve night.sqlite --host 0.0.0.0  # readable by the network
    """
    from bmn.frontends.serve import ServeError, check_datasette, check_store, listen, listening
    from bmn.frontends.serve.server import app, run

    store = _served_store(named, store)
    path = check_store(store)  # StoreError: one line, exit 1
    try:
        check_datasette()
        sock = listen(host, port)
    except ServeError as err:
        raise click.ClickException(str(err)) from None
    where = listening(sock, host)
    server = app(path)
    click.echo(where.url)
    click.echo(where.who_can_read(), err=True)
    run(server, sock)
    click.echo(f"stopped serving {store}", err=True)


def _served_store(named: str | None, store: str) -> str:
    """The store `serve` was given: as its argument, or as --store (or BMN_STORE) as every
    records command takes it; a usage error when the command line names two."""
    if named is None:
        return store
    ctx = click.get_current_context()
    if ctx.get_parameter_source("store") is ParameterSource.COMMANDLINE and store != named:
        raise click.UsageError(f"two stores named: {named} and --store {store}; serve one")
    return named


@click.command(cls=StoreCommand)
@STORE_OPTION
def upgrade(store: str) -> None:
    """Bring a store written by an older bmn up to this bmn's schema, in place.

    The other records commands read an older store as it is and never change it; a search
    on it, or this command, upgrades it (for `records serve`, which reads the file itself).
    Says what it did: upgraded from one schema version to this bmn's, or already current
    (a store already current is left as it is).

    \b
    Examples:
      bmn records upgrade --store night.sqlite
    """
    from bmn.records.api import Store

    with Store(store, create=False) as db:  # opening for writing runs the migrations it lacks
        before, after = db.found_version, db.version
    if before == after:
        click.echo(f"{store}: already current (schema version {after})")
    else:
        click.echo(f"{store}: upgraded from schema version {before} to {after}")


@click.command(cls=StoreCommand)
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...")
@STORE_OPTION
def merge(sources: tuple[str, ...], store: str) -> None:
    """Bring the runs, finds and cycles of other stores into --store, each replayed first.

    For stores made on several machines: copy each machine's store here, then merge them, and
    `records runs`, `top`, `compare`, `loops`, `plot` and `serve` see every machine's work
    (`records runs` says where each run ran). Nothing is taken on faith: every value a source
    brings is checked as every read of a store checks it, and every find and cycle is
    replayed under its rule set (the compiled kernel, and the reference engine for what is
    kept as a row, each run's best and each cycle) before anything is written; what a source
    derives (a run's best, a cycle's key and summary) comes from the replay, not the source.
    A source with an edited or damaged row, or a figure that does not replay, is refused in
    one line (exit 1), and nothing of it is written. Each source goes in as one transaction: a
    merge cut short leaves the target as it was before that source. Merging a source again
    adds only what it gained since (a run resumed there brings its progress); a find is one
    find per run and deal, whoever brought it, and a deal two machines both found is one
    find, seen by two runs. An unfinished run merged in can be resumed here: `bmn search
    --resume N --store TARGET`. Sources are only read (an older one through the migrations,
    in memory); the target is made if missing.

    \b
    Examples:
      bmn records merge laptop.sqlite desktop.sqlite --store all.sqlite
      bmn records runs --store all.sqlite
    """
    from bmn.frontends.output.progress import compiling_said
    from bmn.records.api import merging
    from bmn.search.api import settings_problem

    say = lambda line: click.echo(line, err=True)  # noqa: E731
    with compiling_said("every rule set its runs play"):
        for done in merging(sources, store, say=say, check=settings_problem):
            click.echo(merged_line(done))


@click.command(name="import", cls=StoreCommand)
@click.argument("table", type=click.Path(dir_okay=False), metavar="FILE")
@STORE_OPTION
@RULES_OPTION
@NOTATION_OPTION
@CUT_OPTION
@TABLE_ANY_DECK_OPTION
@click.option(
    "--skip-bad",
    is_flag=True,
    help="Store the rows that read and replay, and list the others on stderr (without it, one"
    " bad row stores nothing).",
)
def import_(
    table: str, store: str, rules: RuleSet, notation: str, players: int, skip_bad: bool
) -> None:
    """Store the deals another program found, each replayed under --rules first.

    FILE is a table of deals as `bmn score` reads it: bmn's own notation and exports, lines
    of `deal cards tricks`, JSON, exercism's canonical data, the peers' tables (N1k06's
    digits, acinnes's and ab0214's decks, LeoDog896's and pelagaletto2's deals: docs/peers.md)
    and deal numbers (--notation rank or camicia), read in bounded memory with a progress bar.
    Every deal is played by the compiled kernel and the reference engine under --rules; a row
    that is not a deal, deals a seat count the rule set does not play, is of another deck than
    the table's (unless --any-deck), or states a length (cards, tricks, status) its game does
    not have is named with its line, and nothing is stored unless every row reads and
    replays, or --skip-bad says to store the rest; where the figures are another rule set's,
    the line names it. The finds are stored with their replayed figures as finished runs of
    kind 'import' that name the file, one per seat count, rule set and deck; the same table
    imported again, under any name, adds nothing (and is said so before its replay). `records
    top`, `compare` and `runs` then show them beside bmn's own finds, decks and rule sets
    apart.

    \b
    Examples:
      bmn records import report.csv --rules n1k06 --store night.sqlite
      bmn records import canonical-data.json --rules exercism
      bmn records import numbers.txt --notation camicia --store night.sqlite
      bmn records import finds.csv --skip-bad
    """
    from bmn.frontends.cli.kernel import rules_words
    from bmn.frontends.output.progress import compiling_said, file_progress
    from bmn.records.api import ImportRefused, import_with_progress

    say = lambda line: click.echo(line, err=True)  # noqa: E731
    try:
        with file_progress(table, "importing") as advance, compiling_said(rules_words(rules)):
            done = import_with_progress(
                table, store, rules, notation, players, skip_bad, any_deck(), say, advance
            )
    except ImportRefused as err:
        raise bad_input(table_deck_words(str(err)) if err.decks else str(err)) from None
    except OSError as err:
        raise click.ClickException(f"could not read {table}: {err.strerror}") from None
    for line in done.skipped:
        click.echo(f"skipped: {line}", err=True)
    click.echo(imported_line(done))


def bad_input(message: str) -> click.ClickException:
    """Bad input (exit 2) with no usage hint: a table of deals with bad rows."""
    bad = click.ClickException(message)
    bad.exit_code = 2
    return bad


@click.command(cls=StoreCommand)
@STORE_OPTION
@JSON_OPTION
def coverage(store: str, as_json: bool) -> None:
    """Which ranks of each deck the store's enumerations visited: done, missing, overlapping.

    For an enumeration split by hand (`bmn search --strategy every --from-rank R --to-rank S`
    on each machine, the stores then merged with `records merge`): one block per deck, hand
    sizes, rule set and objective, with the ranks the runs visited, those no run visited,
    those two runs both visited, and the unfinished runs (resume them to finish): what an
    unfinished run's streams visited, by their checkpoints, counts as done. Ranks the store
    holds that are not whole numbers or run past the deck make the store damaged (exit 1).

    \b
    Examples:
      bmn records coverage --store all.sqlite
      bmn records coverage --json --store all.sqlite
    """
    from bmn.records.api import coverage as covered

    with open_store(store) as db:
        groups = covered(db)
    if as_json:
        echo(json.dumps([group.as_dict() for group in groups], indent=2))
    else:
        echo(coverage_text(groups))


# Added to `bmn records` beside its listings (frontends/cli/records.py).
DOORS = [serve, upgrade, merge, import_, coverage]
