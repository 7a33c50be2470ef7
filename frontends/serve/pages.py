"""What each page of `bmn records serve` shows, built from a store and the reference engine.

Nothing here imports Datasette (plugin.py turns these into pages), so each page's content can
be tested on its own. The tables are those `bmn records` prints (bmn.frontends.output.records), with
links added: a deal links to the page that replays it, a run to its row on the runs page.

Finds are read through the store's own reader (bmn.records.store), which merges the finds kept
one row each with those packed in bulk, so a page lists both alike. Where a run ran is said in
`bmn records runs`' words ("ran on": its backend, and for a run merged in from another store the
host it ran on and the store and run it came from), on the runs page and beside each find of a
deal's page.
"""

from __future__ import annotations

import functools
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from bmn.frontends.output.games import describe, trace_table
from bmn.frontends.output.listings import ran_on
from bmn.frontends.output.records import (
    describe_rank,
    find_table,
    loop_table,
    loops_text,
    ranking_note,
    runs_text,
)
from bmn.frontends.output.tables import Block, Table, cell_text
from bmn.kernels.api import (
    DEFAULT,
    HANDS_JOINED,
    RULE_SETS,
    Deal,
    DealError,
    RuleSet,
    format_deal,
    is_standard,
    parse_typed,
    rule_set,
)
from bmn.records.api import FindRow, Run, Store, published_games, published_ranking, rank_among
from bmn.search.api import format_duration, short_time

PREFIX = "/-/bmn"  # where bmn's pages live beside Datasette's own (its top page is "/")
SEATS = (2, 3, 4)
RANKS = ("cards", "tricks")
TOP_DEFAULT, TOP_MOST = 20, 1000  # finds a list shows: by default, and at most
# What one deal's page may cost. A 1,000-card deal can play for hundreds of thousands of
# cards, and the reference engine keeps every state it has seen: unbounded, its page took
# 17 s, 6.4 MB of HTML and 870 MB. Every standard-deck game ends (or loops) far sooner.
REPLAY_CARDS = 50_000  # cards of play replayed (`bmn play --limit-cards`), page and picture
TRICKS_SHOWN = 2_000  # rows of the trick table
PICTURE_CARDS = 208  # a deal's cards for its picture (four decks: the title grows with it)


def deal_url(deal: str, rules: str = DEFAULT) -> str:
    return f"{PREFIX}/deal?{urlencode(_deal_query(deal, rules))}"


def picture_url(deal: str, rules: str = DEFAULT) -> str:
    return f"{PREFIX}/trajectory.png?{urlencode(_deal_query(deal, rules))}"


def _deal_query(deal: str, rules: str) -> dict[str, str]:
    """A deal's query, naming a rule set other than bmn's (so a link to bmn's stays short)."""
    return {"deal": deal} | ({} if rules == DEFAULT else {"rules": rules})


def finds_url(seats: int, by: str = "cards", n: int = TOP_DEFAULT) -> str:
    return f"{PREFIX}/finds?{urlencode({'seats': seats, 'by': by, 'n': n})}"


def run_url(run: object) -> str:
    return f"{PREFIX}/runs#run-{run}"


class SnapshotReader(Store):
    """The store's reads over a connection opened elsewhere, read-only (Datasette's, with
    `mode=ro`): Store's own reads (its SQL, bulk finds merged with rows) and nothing that opens,
    upgrades or writes. serve checked the file before any page is asked for (server.py).

    `snapshot` runs a page's reads in one read transaction: with the store's WAL journal they
    all see the store as one commit left it, while a search goes on writing to it."""

    def __init__(self, conn: sqlite3.Connection, path: str | Path):
        # Not Connection.__init__: that opens (and may upgrade) a file; this only reads one.
        self._conn = conn
        self.path = Path(path)

    def close(self) -> None:
        """The connection is its opener's to close."""

    def snapshot(self, read: Callable[[Store], object]) -> object:
        db = self._db
        db.execute("BEGIN")  # deferred: a read snapshot, taking no write lock
        try:
            return read(self)
        finally:
            db.execute("ROLLBACK")


# -- tables with links ---------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    text: str
    href: str | None = None
    id: str | None = None  # an anchor (a run's row)


@dataclass(frozen=True)
class LinkedTable:
    """A text table of bmn.frontends.output for a page: its cells, some of them links."""

    head: Sequence[str]
    rows: Sequence[Sequence[Cell]]
    left: frozenset[int]


DEAL_COLUMNS = ("deal", "example deal", "best deal")


def linked(
    table: Block, links: Mapping[str, Callable[[str], str]] | None = None
) -> LinkedTable | str:
    """`table` with its deal columns linked to their replays and the columns named in `links`
    linked by those functions of the cell's text; a line of text (nothing to list) stays so."""
    if isinstance(table, str):
        return table
    how = {name: deal_url for name in DEAL_COLUMNS} | dict(links or {})
    head = [str(name) for name in table.head]
    rows = [
        [
            Cell(
                cell_text(cell),
                how[name](str(cell)) if name in how and cell not in ("", "-") else None,
            )
            for name, cell in zip(head, row, strict=True)
        ]
        for row in table.rows
    ]
    return LinkedTable(head, rows, frozenset(table.left))


def _anchored(
    table: LinkedTable | str, column: str, anchor: Callable[[str], str]
) -> LinkedTable | str:
    """Give each row's cell in `column` an anchor id, so a link can point at that row."""
    if isinstance(table, str):
        return table
    at = list(table.head).index(column)
    rows = [
        [Cell(c.text, c.href, anchor(c.text)) if i == at else c for i, c in enumerate(row)]
        for row in table.rows
    ]
    return LinkedTable(table.head, rows, table.left)


# -- the lists -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DeckList:
    """The longest finished games of one seat count and one deck: only these compare."""

    deck: str  # in words: 'standard deck', 'deck 14,2,2,2,0 dealt 10/10'
    table: LinkedTable | str
    id: str  # the table's element id


@dataclass(frozen=True)
class Longest:
    """The longest finds of one seat count, a list for each deck (the standard deck first)."""

    seats: int
    by: str
    n: int
    decks: list[DeckList]
    more: str  # the page listing more of them


def longest(
    store: Store, seats: int, by: str = "cards", n: int = TOP_DEFAULT, id: str = "finds"
) -> Longest:
    """The `n` longest finished games of `seats` seats, deck by deck; the standard deck's
    table has the element id `id`, the others `id-1`, `id-2`, ..."""
    from bmn.records.api import top_lists

    decks = [
        DeckList(found.label, _top_table(found.rows), id if i == 0 else f"{id}-{i}")
        for i, found in enumerate(top_lists(store, by, n, seats=seats))
    ]
    return Longest(seats, by, n, decks, finds_url(seats, by, min(n * 5, TOP_MOST)))


def _top_table(rows: Sequence[FindRow]) -> LinkedTable | str:
    return linked(find_table(rows), {"run": run_url})


@dataclass(frozen=True)
class Overview:
    """The top page: the longest finished games of each seat count the store holds any of,
    then the games that never end (not ranked: the first found), and how many cycles."""

    lists: list[Longest]
    loops: LinkedTable | str
    looping: int  # looping deals in the store
    cycles: int  # distinct cycles in the store (loop hunts and grow runs)


def overview(store: Store, by: str = "cards", n: int = 10) -> Overview:
    from bmn.records.api import first_loops

    lists = [
        found for seats in SEATS if (found := longest(store, seats, by, n, f"top-{seats}")).decks
    ]
    loops, looping = first_loops(store, n)
    table = linked(loop_table(loops), {"run": run_url}) if loops else "no looping deals"
    return Overview(lists, table, looping, len(store.loops()))


def runs(store: Store) -> LinkedTable | str:
    """Every run, as `bmn records runs` lists them, with each run's best deal."""
    found = store.runs()
    table = runs_text(found)
    if isinstance(table, str):
        return table
    best = [run.best_deal or "-" for run in found]
    rows = [[*row, deal] for row, deal in zip(table.rows, best, strict=True)]
    table = Table([*table.head, "best deal"], rows, {*table.left, len(table.head)})
    return _anchored(linked(table), "run", lambda run: f"run-{run}")


def loops(store: Store) -> LinkedTable | str:
    """Every cycle of a never-ending game, as `bmn records loops` lists them, each with the rule
    set it was found under (a column always: a page has the room), its example deal linked to
    its replay under that rule set."""
    found = store.loops()
    table = linked(loops_text(found, rules=True), {"run": run_url})
    if isinstance(table, str):
        return table
    at = list(table.head).index("example deal")
    rows = [
        [Cell(c.text, deal_url(c.text, cycle.rules)) if i == at else c for i, c in enumerate(row)]
        for row, cycle in zip(table.rows, found, strict=True)
    ]
    return LinkedTable(table.head, rows, table.left)


def published(players: int) -> LinkedTable | str:
    """A table of published record games (bmn's own for 3 and 4 players), each with the rule
    set its figures are of (a column always: a page has the room), its deal linked to its
    replay under that rule set."""
    games = published_games(players)
    if not games:
        return f"the {players}-player table is empty"
    head = ["name", "year", "rules", "status", "cards", "tricks", "deal", "note"]
    # A year is a name, not a count: 1999, never 1,999 (cell_text groups a whole number).
    rows = [
        [g.name, str(g.year), g.rules, g.status, g.cards, g.tricks, g.deal, g.note] for g in games
    ]
    table = linked(Table(head, rows, left=(0, 2, 3, 6, 7)))
    if isinstance(table, str):
        return table
    at = head.index("deal")
    ruled = [
        [Cell(c.text, deal_url(c.text, game.rules)) if i == at else c for i, c in enumerate(row)]
        for row, game in zip(table.rows, games, strict=True)
    ]
    return LinkedTable(table.head, ruled, table.left)


# -- one deal ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Replay:
    """One deal replayed by the reference engine, where the store found it, and its rank."""

    deal: str
    hands: Sequence[str]
    rules: RuleSet  # the rule set it was played under
    result: object  # the reference engine's Result, traced
    summary: str  # `bmn play`'s line
    rank: str | None  # among the published games that finish, or None (not comparable)
    rank_note: str
    numbers: str | None  # the deal's numbers (bmn's order, camicia.dev's): standard deals only
    finds: LinkedTable | str
    tricks: LinkedTable | str
    picture: str | None  # the URL of its trajectory picture; None past PICTURE_CARDS
    bounds: Mapping[str, str]  # a note for each part the page's bounds cut: result, tricks, picture


def read_deal(text: str) -> Deal:
    """A deal as the page's form takes it: hands joined by '/', or, in a text with no '/',
    separated by spaces as `bmn play` takes them (the README's deals); read by `bmn play`'s
    rules (DealError), its refusals worded for the form, not the command line."""
    hands = text if "/" in text else text.split()
    try:
        return parse_typed(hands, typed=True)
    except DealError as err:
        message = str(err).replace(_ARGUMENTS_WORDS, _FORM_WORDS)
        raise DealError(message) from None


# parse_deal's advice for the wrong number of hands, in the library's words and the form's
_ARGUMENTS_WORDS = HANDS_JOINED  # the library's words (kernels/deal.py)
_FORM_WORDS = "separate the hands with '/' (or with spaces, when no hand has a space in it)"


RULE_NAMES = tuple(RULE_SETS)  # the form's choices: the sets, not their aliases


def read_rules(name: str, deal: Deal) -> RuleSet:
    """The rule set named, any case (its aliases too), that plays the deal's seats; DealError
    otherwise, in the form's words."""
    try:
        rules = rule_set(name.strip().lower() or DEFAULT)
    except ValueError:
        raise DealError(f"rules is one of {', '.join(RULE_NAMES)}, not {name[:60]!r}") from None
    if not rules.plays(len(deal)):
        seats = " or ".join(map(str, rules.players or ()))
        raise DealError(f"rule set {rules.name!r} plays {seats} seats; this deal has {len(deal)}")
    return rules


def replay(store: Store | None, deal_text: str, rules_name: str = DEFAULT) -> Replay:
    """Replay `deal_text` (read_deal's; DealError otherwise) under a rule set (read_rules'),
    within the page's bounds (REPLAY_CARDS, TRICKS_SHOWN, PICTURE_CARDS), each one it reaches
    said in `bounds`. It is ranked against the published games only where it plays as bmn's
    rules do (theirs are bmn's figures); each of the store's finds is judged under the rule set
    its own run played."""
    from bmn.frontends.output.records import numbers_line
    from bmn.kernels.api import play
    from bmn.records.api import deal_numbers

    deal = read_deal(deal_text)
    rules = read_rules(rules_name, deal)
    text = format_deal(deal)
    result = play(deal, limit=REPLAY_CARDS, trace=True, rules=rules)
    seats = len(deal)
    as_bmn = rules.plays_as(seats) == DEFAULT
    rank, note = None, "ranked only when it finishes with the standard deck dealt evenly"
    if not as_bmn:
        note = "ranked only under bmn's rules: the published games' figures are theirs"
    elif result.status == "finished" and is_standard(deal):
        ranking = published_ranking(seats)
        place = rank_among(text, result.cards, ranking)
        rank = describe_rank(place, result.cards, ranking, seats)
        note = ranking_note(ranking, seats)
    finds = store.finds_for(text) if store is not None else []
    runs = {run: store.get_run(run) for run in {f.run for f in finds}} if finds else {}
    return Replay(
        deal=text,
        hands=text.split("/"),
        rules=rules,
        result=result,
        summary=describe(result),
        rank=rank,
        rank_note=note,
        numbers=numbers_line(deal_numbers(deal), seats) if is_standard(deal) else None,
        finds=found_table(deal, finds, runs),
        tricks=linked(trace_table((result.trace or ())[:TRICKS_SHOWN], seats)),
        picture=picture_url(text, rules.name) if _pictured(deal) else None,
        bounds=_bounds(deal, result),
    )


def _pictured(deal: Sequence[Sequence[int]]) -> bool:
    return sum(map(len, deal)) <= PICTURE_CARDS


def _bounds(deal: Sequence[Sequence[int]], result: Any) -> dict[str, str]:
    """What the page leaves to the command line, and why: what one request may cost."""
    notes = {}
    if result.status == "limit":
        notes["result"] = (
            f"This page plays at most {REPLAY_CARDS:,} cards of a game:"
            " bmn play DEAL (the deal above) plays it to its end."
        )
    if result.tricks > TRICKS_SHOWN:
        notes["tricks"] = (
            f"The first {TRICKS_SHOWN:,} tricks of {result.tricks:,}:"
            " bmn play DEAL --trace lists them all."
        )
    if not _pictured(deal):
        notes["picture"] = (
            f"No picture for a deal of more than {PICTURE_CARDS} cards (this one has"
            f" {sum(map(len, deal)):,}): bmn plot DEAL draws it."
        )
    return notes


def found_table(deal: Deal, finds: Sequence[FindRow], runs: Mapping[int, Run]) -> LinkedTable | str:
    """Every time the store found the deal, with what it stored, each held by the one verifier
    against its replay under the rule set its own run played (named in its column: a find is
    judged by its own rules, whichever the page replays under), and where that run ran (`runs`:
    each find's run, by number)."""
    from bmn.records.api import finds_judged

    if not finds:
        return "not in the store"
    head = ["run", "strategy", "ran on", "found (UTC)", "into the run", "cards", "tricks"]
    head += ["status", "rules", "replayed"]
    judged = finds_judged(deal, finds, {run: r.rules for run, r in runs.items()})
    rows = [
        [f.run, f.strategy, ran_on(runs[f.run]), short_time(f.found_at)]
        + [format_duration(f.elapsed), f.cards, f.tricks, f.status, said["rules"]]
        + ["agrees" if said["agrees"] else f"differs: {said['differs']}"]
        for f, said in zip(finds, judged, strict=True)
    ]
    return linked(Table(head, rows, left=(1, 2, 3, 7, 8, 9)), {"run": run_url})


def trajectory_png(deal_text: str, rules_name: str = DEFAULT) -> bytes:
    """The deal's trajectory picture (`bmn plot`'s, up to REPLAY_CARDS) under a rule set
    (read_rules') as PNG bytes; DealError past PICTURE_CARDS."""
    deal = read_deal(deal_text)
    rules = read_rules(rules_name, deal)
    if not _pictured(deal):
        raise DealError(f"no picture for a deal of more than {PICTURE_CARDS} cards")
    return _trajectory_png(format_deal(deal), rules.name)


_PLOTTING = threading.Lock()  # pyplot keeps global state: one picture at a time


@functools.lru_cache(maxsize=32)  # a page and its reloads ask for the same picture
def _trajectory_png(deal_text: str, rules: str) -> bytes:
    from bmn.frontends.output.plots import plot_game, trajectory

    deal = parse_typed(deal_text)
    with _PLOTTING, tempfile.TemporaryDirectory(prefix="bmn-serve-") as folder:
        path = Path(folder) / "trajectory.png"  # plot_game writes files: a name says the format
        plot_game(deal, trajectory(deal, limit=REPLAY_CARDS, rules=rules), path)
        return path.read_bytes()
