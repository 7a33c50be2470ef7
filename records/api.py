"""The record store and the published records as a library: what `bmn.records` exports
(docs/library.md walks through it).

`open_store` opens a store to read: its runs, its longest finds, every find of a deal, every
find streamed oldest first, its cycles; each as a typed record (Run, FindRow, LoopRow, frozen
dataclasses with `as_dict()`), its time stamps as datetimes in UTC (the store keeps them as
ISO-8601 text, which the command line shows). The published record games come back as
PublishedGame and, replayed by the reference engine, as Replayed. Reading needs nothing
compiled. Bad arguments raise QueryError (a ValueError), a bad deal DealError, a store that
cannot be used StoreError (StoreDamaged, a StoreError, for a value the store should not hold,
naming its table, row and column).

>>> max(game.cards for game in published_games())
8344
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bmn.kernels.arguments import is_whole, shown
from bmn.kernels.deal import DealError, parse_deal
from bmn.kernels.exports import front_door
from bmn.kernels.rules.sets import rule_set
from bmn.records.imported import Imported, ImportRefused
from bmn.records.published import FILES, PublishedGame, Replayed
from bmn.records.store import (
    DEFAULT_PATH,
    INT64_MAX,
    FindRow,
    LoopRow,
    Merged,
    MergeRefused,
    QueryError,
    Run,
    RunHeld,
    RunNotFound,
    StoreDamaged,
    StoreError,
)

if TYPE_CHECKING:
    from bmn.records.store import Store

__all__ = [
    "DEFAULT_PATH",
    "FindRow",
    "ImportRefused",
    "Imported",
    "LoopRow",
    "MergeRefused",
    "Merged",
    "PublishedGame",
    "QueryError",
    "Replayed",
    "Run",
    "RunHeld",
    "RunNotFound",
    "StoreDamaged",
    "StoreError",
    "StoreReader",
    "import_table",
    "merge_stores",
    "open_store",
    "published_games",
    "replay_published",
]

RANKS = ("cards", "tricks")  # what `top` ranks by
STATUSES = ("finished", "loop")  # what a find's status is
SEATS = (2, 3, 4)


class StoreReader:
    """A bmn record store opened to read (open_store makes one); close it, or use `with`.

    Every read is one snapshot of the store, so a search may write to it meanwhile.
    """

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_PATH):
        from bmn.records.store import Store

        self.path = _store_path(path)
        self._store: Store = Store(self.path, create=False, read_only=True)  # writes nothing

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> StoreReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def runs(self) -> list[Run[datetime]]:
        """Every run, oldest first."""
        return [_dated_run(run) for run in self._store.runs()]

    def run(self, run_id: int) -> Run[datetime]:
        """One run by number; RunNotFound if the store holds none."""
        return _dated_run(self._store.get_run(self._run_id(run_id)))

    def latest_run(self) -> Run[datetime] | None:
        """The most recently started run; None in a store without runs."""
        run = self._store.latest_run()
        return None if run is None else _dated_run(run)

    def top(
        self,
        n: int = 10,
        *,
        by: str = "cards",
        seats: int | None = None,
        status: str | None = None,
        min_cards: int = 0,
    ) -> list[FindRow[datetime]]:
        """The `n` longest distinct deals of every run, ranked `by` cards or tricks, as
        `bmn records top` lists them; only deals of `seats` seats, of `status` ('finished' or
        'loop'), of at least `min_cards` cards, if given."""
        _choice(by, "rank by", RANKS)
        if status is not None:
            _choice(status, "status is", STATUSES)
        n, min_cards = _whole(n, "n"), _whole(min_cards, "min_cards")
        finds = self._store.top(by, n, min_cards, status, _seats(seats))
        return [_dated(find, "found_at") for find in finds]

    def finds_of(self, deal: str) -> list[FindRow[datetime]]:
        """Every time a deal (in any notation bmn reads) was found, by any run, earliest
        first; DealError for a deal bmn cannot read."""
        if not isinstance(deal, str):
            raise DealError(f"a deal here is text ('-J/Q-'), got {shown(deal)}")
        parse_deal(deal, typed=True)  # DealError as `bmn play` says it, before any query
        return [_dated(find, "found_at") for find in self._store.finds_for(deal)]

    def run_finds(self, run_id: int) -> list[FindRow[datetime]]:
        """A run's finds in the order it found them; RunNotFound if there is no such run."""
        finds = self._store.run_finds(self._run_id(run_id))
        return [_dated(find, "found_at") for find in finds]

    def all_finds(self, seats: int | None = None) -> Iterator[FindRow[datetime]]:
        """Every find (of `seats` seats only, if given), oldest first, read a page at a time:
        a store of millions of finds streams."""
        finds = self._store.all_finds(seats=_seats(seats))  # checked now, not when first read
        return (_dated(find, "found_at") for find in finds)

    def loops(self, run: int | None = None) -> list[LoopRow[datetime]]:
        """Every cycle of a never-ending game the store holds (or those `run` found first),
        in the order found."""
        loops = self._store.loops(None if run is None else self._run_id(run))
        return [_dated(loop, "found_at") for loop in loops]

    def _run_id(self, run_id: object) -> int:
        """`run_id`, once the store is known to hold it."""
        number = _whole(run_id, "a run number", low=None)
        if not any(run.id == number for run in self._store.runs()):
            raise RunNotFound(f"no run {number} in record store {self.path}")
        return number


def open_store(path: str | os.PathLike[str] = DEFAULT_PATH) -> StoreReader:
    """Open a bmn record store to read. StoreError (one line saying why) for a missing file
    (StoreMissing, a StoreError, its `path` the file that is not there), a file that is not a
    bmn store, one from a newer bmn, or a damaged one.

    >>> open_store("no-such-store.sqlite")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bmn.records.store.errors.StoreMissing: no record store at no-such-store.sqlite; ...
    """
    return StoreReader(path)


def merge_stores(
    sources: Sequence[str | os.PathLike[str]],
    target: str | os.PathLike[str] = DEFAULT_PATH,
) -> list[Merged]:
    """Bring the runs, finds and cycles of each source store into `target` (made if missing),
    each replayed first, one transaction per source; what `bmn records merge` does. Returns what
    each merge did (runs and finds new and already there). MergeRefused (a StoreError) for a
    source whose finds or cycles do not replay, nothing of it written; StoreError for a store
    that cannot be used, or a target that is a source."""
    if isinstance(sources, (str, os.PathLike)):
        raise QueryError("sources is a list of stores: give [path], not a path")
    from bmn.records.merge import merging  # compiles the kernels: on first use

    return list(merging([_store_path(s) for s in sources], _store_path(target)))


def import_table(
    path: str | os.PathLike[str],
    target: str | os.PathLike[str] = DEFAULT_PATH,
    rules: str = "bmn",
    notation: str = "auto",
    players: int = 2,
    skip_bad: bool = False,
    any_deck: bool = False,
) -> Imported:
    """Store the deals of a table another program wrote (a file: bmn's notation, the peers'
    layouts, deal numbers; notation and players as `bmn.kernels.read_table` takes them) in
    `target` as the finds of an import run, each replayed under `rules` first; what `bmn
    records import` does. ImportRefused (a ValueError) for a table whose rows do not read or
    do not replay, nothing stored (unless `skip_bad`: the rest is stored, the bad rows listed
    in the result's `skipped`); OSError for a file that cannot be read. Every deal is of the
    table's deck (its first deal's) unless `any_deck`: one of another is a bad row."""
    from bmn.records.imported import import_table as imported

    return imported(path, _store_path(target), rules, notation, players, skip_bad, any_deck)


def published_games(players: int = 2) -> list[PublishedGame]:
    """The published record games for `players` seats (2: the record games published since
    1999; 3 and 4: bmn's own longest finds), in the order found, each with the rule set its
    figures are of (`rules`).

    >>> published_games(3)[0].hands[0][:6]
    '--A-JQ'
    """
    from bmn.records.published import published_games as table

    return table(_players(players))


def replay_published(players: int = 2, rules: str | None = None) -> list[Replayed]:
    """Every published game beside what the reference engine gives for it (`matches`): each
    under the rule set its row claims (`published_rules`: bmn's, or paulhus for the endless
    3- and 4-player deals found under Paulhus's reading), or every one under `rules` (a rule
    set's name) when given; `rules` on each is the rule set it was replayed under.

    >>> all(game.matches for game in replay_published())
    True
    >>> sorted({game.published_rules for game in replay_published(3)})
    ['bmn', 'paulhus']
    """
    from bmn.records.published import replay_published as replay

    try:
        chosen = None if rules is None else rule_set(rules).name
    except ValueError as err:
        raise DealError(str(err)) from None
    return replay(_players(players), chosen)


def _players(players: int) -> int:
    if not is_whole(players) or players not in FILES:
        raise DealError(f"players must be {min(FILES)} to {max(FILES)}, got {shown(players)}")
    return int(players)


def _store_path(path: object) -> Path:
    """A store's path, or StoreError: a path is text or os.PathLike, and holds no NUL."""
    if not isinstance(path, (str, os.PathLike)) or not isinstance(os.fspath(path), str):
        raise StoreError(f"a store's path is text or a path, got {type(path).__name__}")
    if "\0" in os.fspath(path):
        raise StoreError(f"a store's path cannot hold a NUL character: {os.fspath(path)!r}")
    return Path(path)


def _whole(value: object, name: str, low: int | None = 0) -> int:
    """A whole number (Python or numpy; not a bool) the store's columns can hold."""
    if not is_whole(value):
        raise QueryError(f"{name} must be a whole number, got {shown(value)}")
    number = int(value)  # type: ignore[call-overload]  # is_whole: an int or numpy integer
    if (low is not None and number < low) or abs(number) > INT64_MAX:
        span = f"at least {low} and " if low is not None else ""
        raise QueryError(f"{name} must be {span}at most 2**63 - 1, got {number:,}")
    return number


def _choice(value: object, phrase: str, allowed: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise QueryError(f"{phrase} one of {', '.join(allowed)}, not {shown(value)}")


def _seats(seats: object) -> int | None:
    if seats is None:
        return None
    if not is_whole(seats) or seats not in SEATS:
        raise QueryError(f"seats is one of 2, 3, 4 or None, not {shown(seats)}")
    return int(seats)  # type: ignore[call-overload]  # is_whole: an int or numpy integer


def _dated_run(run: Run[str]) -> Run[datetime]:
    return _dated(run, "started_at", "updated_at")


def _dated(row: Any, *names: str) -> Any:
    """A stored row with its time stamps (ISO-8601 UTC text) as datetimes in UTC."""
    return replace(row, **{name: _stamp(getattr(row, name)) for name in names})


def _stamp(text: str) -> datetime:
    try:  # bmn writes '2026-12-02T02:00:54.123Z'; Python 3.10 reads no 'Z'
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError, AttributeError):
        raise StoreError(f"a time stamp the store holds is not ISO-8601: {text!r}") from None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=timezone.utc)  # the store's is UTC


# -- the front ends' door (not the library) -------------------------------------------------
# What bmn.frontends takes from bmn.records beyond __all__: the front ends import the engine only
# from its api modules (tests/test_layers.py), and each name here is imported from its module
# when first asked for (kernels/exports.py). Not in __all__, nor in dir(bmn.records).
FRONT_ENDS, __getattr__ = front_door(
    __name__,
    {
        "coverage": "Coverage coverage",
        "imported": "import_with_progress=import_table",
        "merge": "merging",
        "report": (
            "comparable deal_numbers FindList finds_judged first_loops LeftOut LOOP_KEYS "
            "published_ranking Rank rank_among run_deck run_rules show_dict STANDARD_KEYS "
            "STANDARD_LABEL standard_loops top_lists"
        ),
        "store": "IMPORT_KIND INT64_MAX SCHEMA_VERSION Store StoreMissing TOP_KEYS",
        "store.connection": "connect_store=connect explain_query=explain",
        "store.finds": "FindBlock",
        "store.paths": "STORE_BESIDE=BESIDE store_found=found store_open_mode=open_mode",
        "store.schema": "check_store_identity=check_identity store_version=version",
    },
)
