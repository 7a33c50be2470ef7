"""What `bmn records` lists, each listing declared once as its columns (columns.py renders
them as text, JSON and CSV): the finds of a list (`top`), looping finds, runs, cycles, the
standard-deck cycles, the store's finds (`export`), the published games and the finds ranked
among them (`compare`). The web page draws the same tables, with links.

Each column's role is said beside it (left, wrap, when it gives way), never as a tuple of
indices kept in step with a list of headings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import attrgetter, itemgetter
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from bmn.frontends.output.columns import Column, Listing, Shared
from bmn.kernels.api import DEFAULT as DEFAULT_RULES
from bmn.records.api import LOOP_KEYS, STANDARD_KEYS, TOP_KEYS
from bmn.search.api import format_duration, ordinal, short_time

if TYPE_CHECKING:
    from bmn.records.api import FindBlock, FindList, PublishedGame, Replayed, Run

ELAPSED_DECIMALS = 3  # an export's seconds into the run: to the millisecond, as a clock reads
TOP_ORDER = ("deal", "cards", "tricks", "status", "run", "found_at", "seats", "deck", "rules")


def _of(name: str) -> Any:
    """A numbered row's (place, row) field `name`."""
    return lambda numbered: getattr(numbered[1], name)


# -- finds: a ranked list, looping finds, every find ---------------------------------------


# A find's run, when it was found (giving way on a narrow terminal) and its deal, in the
# listings of rows (place, FindRow): `top` and `loops`.
_FOUND_BY_RUN = (
    Column("run", _of("run"), "run", cell=lambda n: str(n[1].run)),
    Column(
        "found_at",
        _of("found_at"),
        "found (UTC)",
        cell=lambda n: short_time(n[1].found_at),
        left=True,
        gives_way=1,
    ),
    Column("deal", _of("deal"), "deal", left=True),
)


def find_listing(found: FindList | None = None) -> Listing:
    """`records top`'s list of finished games of one seat count, deck and rule set (rows:
    (place, FindRow)); its seat count, deck and rule set in JSON. The time found gives way on
    a narrow terminal: 80 columns hold a 4-seat deal."""
    seats, deck, rules = (found.seats, found.deck, found.rules) if found else (None,) * 3
    return Listing(
        [
            Column(None, itemgetter(0), "#"),
            Column("cards", _of("cards"), "cards"),
            Column("tricks", _of("tricks"), "tricks"),
            *_FOUND_BY_RUN,
            Column("status", _of("status")),
            Column("seats", lambda n: seats),
            Column("deck", lambda n: deck),
            Column("rules", lambda n: rules),
        ],
        order=TOP_ORDER,
    )


def loop_listing() -> Listing:
    """Looping finds, in the order found: no cards to rank (rows: (place, FindRow)); in JSON
    their seat count (from the deal), and no deck or rule set (a loop is listed apart)."""
    return Listing(
        [
            Column("seats", lambda n: n[1].deal.count("/") + 1, "players"),
            *_FOUND_BY_RUN,
            Column("cards", _of("cards")),
            Column("tricks", _of("tricks")),
            Column("status", _of("status")),
            Column("deck", lambda n: None),
            Column("rules", lambda n: None),
        ],
        order=TOP_ORDER,
    )


def export_listing(rules: Mapping[int, str]) -> Listing:
    """`records export`: every find, the rule set its run played (`rules`, by run number; so
    `bmn score` replays each under its own) and its deal's deck as counts N,J,Q,K,A (which
    `bmn score` holds it to). Rows are FindBlocks: a store of millions streams."""

    def shared(name: str) -> Any:
        return lambda b: Shared(getattr(b, name))

    return Listing(
        [
            Column("deal", attrgetter("deal"), of_block=attrgetter("deals"), plain=True),
            Column("cards", attrgetter("cards"), of_block=attrgetter("cards"), plain=True),
            Column("tricks", attrgetter("tricks"), of_block=attrgetter("tricks"), plain=True),
            Column("status", attrgetter("status"), of_block=shared("status")),
            Column("run", attrgetter("run"), of_block=shared("run")),
            Column("found_at", attrgetter("found_at"), of_block=shared("found_at")),
            Column("strategy", attrgetter("strategy"), of_block=shared("strategy")),
            Column(
                "elapsed",
                lambda f: _elapsed(f.elapsed),
                of_block=lambda b: Shared(_elapsed(b.elapsed)),
            ),
            Column(
                "rules",
                lambda f: rules.get(f.run, DEFAULT_RULES),
                of_block=lambda b: Shared(rules.get(b.run, DEFAULT_RULES)),
            ),
            Column(
                "deck_counts",
                lambda f: ",".join(str(f.deal.count(c)) for c in "-JQKA"),
                of_block=_deck_counts,
                plain=True,
            ),
        ]
    )


def _deck_counts(block: FindBlock) -> list[str]:
    return block.deck_counts()


def _elapsed(seconds: float) -> float:
    """A find's seconds into its run as an export writes them: to the millisecond, not a
    float's 16 digits (the time a find is stamped with is no finer than that)."""
    return round(seconds, ELAPSED_DECIMALS) if isinstance(seconds, float) else seconds


# -- runs ----------------------------------------------------------------------------------

RUN_ORDER = (
    *("id", "started_at", "updated_at", "strategy", "objective", "seed", "params", "status"),
    *("games", "seconds", "best_deal", "best_cards", "best_tricks", "seats", "backend", "kind"),
    *("rules", "host", "origin_store", "origin_run"),
)


def _dash(value: Any) -> Any:
    return "-" if value is None else value


def run_listing() -> Listing:
    """`records runs`: every run. "search" is its strategy, or its kind where it has none
    (loop-hunt, grow, every), and its rule set where not bmn's. On a narrow terminal the time
    it started gives way first, then its objective; where it ran (the one column that says
    which machine, in a merged store) wraps at its spaces and stays."""
    text = {  # text columns whose cell is not their value
        "search": lambda r: r.found_by if r.rules == DEFAULT_RULES else f"{r.found_by}, {r.rules}",
        "time": lambda r: run_time(r.seconds),
    }
    data = [Column(key, attrgetter(key)) for key in RUN_ORDER]
    return Listing(
        [
            Column("id", attrgetter("id"), "run", cell=lambda r: str(r.id)),
            Column(None, text["search"], "search", left=True),
            Column("objective", attrgetter("objective"), "objective", left=True, gives_way=2),
            Column("seats", attrgetter("seats"), "players"),
            Column("status", attrgetter("status"), "status", left=True),
            Column("games", attrgetter("games"), "games"),
            Column("seconds", attrgetter("seconds"), "time", cell=text["time"]),
            Column(
                "best_cards",
                attrgetter("best_cards"),
                "best cards",
                cell=lambda r: _dash(r.best_cards),
            ),
            Column(
                "best_tricks",
                attrgetter("best_tricks"),
                "tricks",
                cell=lambda r: _dash(r.best_tricks),
            ),
            Column(
                "started_at",
                attrgetter("started_at"),
                "started (UTC)",
                cell=lambda r: short_time(r.started_at),
                left=True,
                gives_way=1,
            ),
            Column(None, ran_on, "ran on", left=True, wrap=True),
            *(c for c in data if c.key not in _RUN_SHOWN),
        ],
        order=RUN_ORDER,
    )


_RUN_SHOWN = {
    *("id", "objective", "seats", "status", "games", "seconds"),
    *("best_cards", "best_tricks", "started_at"),
}


def run_time(seconds: float) -> str:
    """A run's time in the runs table, to the second in one format whatever its length: 20s,
    3m00s, 1h02m, 3d04h (format_duration's, but whole seconds under a minute, not 20.0s)."""
    whole = round(seconds)
    return f"{whole}s" if whole < 60 else format_duration(whole)


def ran_on(run: Run) -> str:
    """Its backend; for a run merged in from another store, the host and that store's run;
    for an import, the file it read."""
    if run.kind == "import":
        return f"import of {run.params.get('file', 'a table')} on {run.host or 'a host unknown'}"
    if run.origin_store is None:
        return run.backend
    store = PurePath(run.origin_store).name
    return f"{run.backend} on {run.host or 'a host unknown'}, {store} run {run.origin_run}"


# -- cycles --------------------------------------------------------------------------------

LOOP_ORDER = LOOP_KEYS  # the JSON keys of a cycle (records/report.py: a contract)
REACH = {True: "yes", False: "no", None: "unknown"}  # a balanced deal reaches the cycle


def loop_listing_of(rules_column: bool) -> Listing:
    """`records loops`: one row per stored cycle (LoopRow), in the order first found. Whether a
    balanced deal reaches it: yes, no, or unknown (the basin search stopped at its limit).
    The rule set each was found under is a column where asked (`rules_column`): a key names a
    cycle under one rule set only, so it never gives way; on a narrow terminal the key, the
    times seen, the deck and the seats give way first, then the run and the balanced deals."""
    data = {key: Column(key, _loop_value(key)) for key in LOOP_ORDER}
    shown = {"run", "rules", "deck", "period_cards", "balanced_reachable", "times_seen"}
    shown |= {"example_deal", "key"}
    return Listing(
        [
            Column(
                "run",
                attrgetter("run"),
                "run",
                cell=lambda r: str(r.run),
                gives_way=5 if rules_column else 0,
            ),
            *([Column("rules", attrgetter("rules"), "rules", left=True)] if rules_column else []),
            Column("deck", attrgetter("deck"), "deck", left=True, gives_way=3),
            Column(
                None, lambda r: _loop_seats(r.seats, r.seats_out), "seats", left=True, gives_way=4
            ),
            Column(
                "period_cards",
                attrgetter("period_cards"),
                "period",
                cell=lambda r: f"{r.period_cards:,}c/{r.period_tricks:,}t",
            ),
            Column(
                "balanced_reachable",
                attrgetter("reachable"),
                "balanced",
                cell=lambda r: f"{REACH[r.reachable]} ({r.balanced_deals:,})",
                left=True,
                wrap=True,
                gives_way=6 if rules_column else 0,
            ),
            Column("times_seen", attrgetter("times_seen"), "seen", gives_way=2),
            Column("example_deal", attrgetter("example_deal"), "example deal", left=True),
            Column("key", attrgetter("key"), "cycle key", left=True, gives_way=1),
            *(c for key, c in data.items() if key not in shown),
        ],
        order=LOOP_ORDER,
    )


def _loop_value(key: str) -> Any:
    if key == "seats_out":
        return lambda r: list(r.seats_out)
    if key == "balanced_reachable":
        return attrgetter("reachable")
    return attrgetter(key)


def _loop_seats(seats: int, out: Sequence[int]) -> str:
    """A stored cycle's seats: '3' when every seat is in it, '2 of 3' for one left after seats
    went out."""
    return f"{seats - len(out)} of {seats}" if out else str(seats)


def standard_loop_listing(rules_column: bool) -> Listing:
    """`records loops --standard`: one row per standard-deck cycle and rule set (report.
    standard_loops' dicts); its rule set a column where asked."""
    keys = STANDARD_KEYS  # the JSON keys of a standard-deck cycle (records/report.py)
    shown = {"run", "rules", "period_cards", "split", "balanced", "deal", "rotation_key"}
    return Listing(
        [
            Column(
                "run",
                itemgetter("run"),
                "run",
                cell=lambda r: str(r["run"]),
                gives_way=3 if rules_column else 0,
            ),
            *([Column("rules", itemgetter("rules"), "rules", left=True)] if rules_column else []),
            Column(
                "period_cards",
                itemgetter("period_cards"),
                "period",
                cell=lambda r: f"{r['period_cards']:,}c/{r['period_tricks']:,}t",
            ),
            Column("split", itemgetter("split"), "deal split", gives_way=2),
            Column(
                "balanced",
                itemgetter("balanced"),
                "26/26",
                left=True,
                wrap=True,
                cell=lambda r: (
                    f"{'yes' if r['balanced'] else 'no'}"
                    f" ({r['balanced_deals']:,}+{r['mirrored_balanced_deals']:,})"
                ),
                gives_way=4 if rules_column else 0,
            ),
            Column("deal", itemgetter("deal"), "most balanced deal", left=True),
            Column(
                "rotation_key", itemgetter("rotation_key"), "seat-blind key", left=True, gives_way=1
            ),
            *(Column(key, itemgetter(key)) for key in keys if key not in shown),
        ],
        order=keys,
    )


# -- the published games, and finds ranked among them ---------------------------------------


def compare_listing() -> Listing:
    """`records compare`'s one list of published games and finds, longest first (rows:
    (cards, tricks, game, deal)). On a narrow terminal the tricks give way, so that a name
    needs fewer lines."""
    return Listing(
        [
            Column("cards", itemgetter(0), "cards"),
            Column("tricks", itemgetter(1), "tricks", gives_way=1),
            Column("game", itemgetter(2), "game", left=True, wrap=True),
            Column("deal", itemgetter(3), "deal", left=True),
        ]
    )


def compare_find_listing(ranking: Sequence[PublishedGame]) -> Listing:
    """`records compare --json`'s finds (FindRow), each with its rank among `ranking` (as if
    added to it) and the published game it is, if any."""
    from bmn.records.api import rank_among

    def ranked(key: str) -> Any:
        return lambda f: getattr(rank_among(f.deal, f.cards, ranking), key)

    return Listing(
        [
            *(Column(key, attrgetter(key)) for key in TOP_KEYS),
            Column("rank", ranked("rank")),
            Column("of", ranked("of")),
            Column("published", ranked("published")),
        ]
    )


def published_json(ranking: Sequence[PublishedGame]) -> list[dict[str, Any]]:
    """`records compare --json`'s published games, ranked."""
    listing = Listing(
        [
            Column("rank", itemgetter(0)),
            Column("name", lambda r: r[1].name),
            Column("year", lambda r: r[1].year),
            Column("deal", lambda r: r[1].deal),
            Column("cards", lambda r: r[1].cards),
            Column("tricks", lambda r: r[1].tricks),
        ]
    )
    return listing.dicts(enumerate(ranking, start=1))


def published_listing(rows: Sequence[Replayed]) -> Listing:
    """`bmn records published`: each record game, its deal, and whether it replays as
    published ('same', or the replay's figures). At 80 columns a deal is never split: the
    tricks, the replay and the status give way, in turn, and a
    name wraps at its spaces. A game that never ends is never shown as a length alone: when the
    status gives way its cards read `loop (474)`. Under another rule set its figures are what
    was asked for: they never give way (the published status and cards do) and say them whole,
    wrapped, with the status of a game that does not finish.

    A table with rows of another rule set than bmn's has a rules column after the name (the
    rule set each row's figures are of); where it gives way, a row's name says its rule set.
    The year is in JSON: in text the name says it ("Kleber 1999")."""
    ruled = any(r.rules != r.published_rules for r in rows)  # --rules: all under one set
    others = not all(r.published_rules == DEFAULT_RULES for r in rows)
    # Under --rules a row's own rule set goes with its published figures; else it outlasts
    # the replay's 'same', and only the status (folded into the cards) outlasts it.
    if ruled:
        order = {"tricks": 2, "rules": 3, "status": 4, "cards": 5}
    else:
        order = {"tricks": 2, "replayed": 3, "rules": 4, "status": 5}
    if not others:  # no rules column: the same order without it
        order = {k: v - (v > order["rules"]) for k, v in order.items() if k != "rules"}
    return Listing(
        [
            Column("name", attrgetter("name"), "name", left=True, wrap=True),
            Column("year", attrgetter("year")),  # in text, the name says it: "Kleber 1999"
            *(
                [
                    Column(
                        "rules",
                        attrgetter("published_rules"),
                        "rules",
                        left=True,
                        gives_way=order["rules"],
                        fold=("name", _named),
                    )
                ]
                if others
                else []
            ),
            Column(
                "status",
                attrgetter("status"),
                "status",
                left=True,
                gives_way=order["status"],
                fold=("cards", _endless),
            ),
            Column("cards", attrgetter("cards"), "cards", gives_way=order.get("cards", 0)),
            Column("tricks", attrgetter("tricks"), "tricks", gives_way=order["tricks"]),
            Column(
                None,
                lambda r: _replayed(r, ruled),
                rows[0].rules if ruled else "replayed",
                left=True,
                wrap=True,
                gives_way=order.get("replayed", 0),
            ),
            Column("deal", attrgetter("deal"), "deal", left=True),
        ]
    )


def _endless(row: Replayed) -> str | None:
    """A published status folded into its cards: a game that never ends is not a length."""
    return None if row.status == "finished" else f"{row.status} ({row.cards:,})"


def _named(row: Replayed) -> str | None:
    """A published rules column folded into the name: the name says its rule set."""
    if row.published_rules == DEFAULT_RULES or f"({row.published_rules})" in row.name:
        return None
    return f"{row.name} ({row.published_rules})"


def _replayed(row: Replayed, ruled: bool = False) -> str:
    figures = f"{row.replayed_cards:,} cards, {row.replayed_tricks:,} tricks"
    if ruled:  # every game under one rule set: the figures whole, a difference expected
        status = row.replayed_status
        if row.matches:
            status = "same" if status == "finished" else f"same ({status})"
        return f"{status}, {figures}"
    if row.matches:
        return "same"
    status = "" if row.replayed_status == row.status else f"{row.replayed_status}, "
    return f"{status}{figures}: differs"


def place(rank: int) -> str:
    """A find's place among the published games, as the compare list says it: '4th'."""
    return ordinal(rank)
