"""Finds: the deals runs found, stored one row each in the finds table or, the short finished
games of a search, packed a chunk's to a row of find_batches (bulk.py packs and unpacks them).

FindReader is the one place that reads both tables: every read of finds names the finds it
wants as a Which, and goes through one of FindReader's methods, which merge rows and batches.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Generic

import numpy as np

from bmn.kernels.deal import deal_texts, encode, parse_deal
from bmn.records.store import bulk
from bmn.records.store.connection import Connection, sql_errors
from bmn.records.store.errors import QueryError, StoreDamaged, StoreError
from bmn.records.store.values import INT64_MAX, SIZES, Row, Stamp, canonical_deal, now, require

FIND_STATUSES = ("finished", "loop")
_FIND_COLUMNS = "deal, cards, tricks, status, run_id, found_at, strategy, elapsed"
# A batch's columns, in the order bulk.Batch takes them; the blobs last, so a query that does not
# ask for them never reads their pages.
_BATCH_COLUMNS = "run_id, strategy, found_at, elapsed, sizes, count, figures, decks"
_BATCH_INSERT = (  # the columns a batch is stored with: the run's, and bulk.pack's
    *("run_id", "stream", "first_game", "sizes", "seats", "strategy", "found_at", "elapsed"),
    *("count", "best_cards", "best_tricks", "figures", "decks"),
)
_ORDER = {"cards": "cards DESC, tricks DESC, deal", "tricks": "tricks DESC, cards DESC, deal"}
_RANK_KEY = {  # Python's order of _ORDER
    "cards": lambda f: (-f.cards, -f.tricks, f.deal),
    "tricks": lambda f: (-f.tricks, -f.cards, f.deal),
}


@dataclass(frozen=True)
class Find:
    """A deal a run found, to be stored; strategy None means the run's own strategy."""

    deal: str
    cards: int
    tricks: int
    status: str = "finished"
    strategy: str | None = None
    elapsed: float = 0.0


@dataclass(frozen=True)
class FindRow(Generic[Stamp]):
    """A stored find: the deal, its result, which run found it, when, and how far into the run."""

    deal: str
    cards: int
    tricks: int
    status: str
    run: int
    found_at: Stamp
    strategy: str = ""
    elapsed: float = 0.0

    def as_dict(self, keys: Sequence[str] | None = None) -> dict[str, Any]:
        """Field name to value; only `keys` (field names), in their order, if given. (Its
        values are plain numbers and text: read as they are, not copied as asdict would, which
        cost a listing of a million finds most of its time.)"""
        if keys is None:
            return {key: getattr(self, key) for key in FIND_KEYS}
        if not isinstance(keys, (list, tuple)) or not all(k in FIND_KEYS for k in keys):
            raise QueryError(f"keys are names of FindRow's fields ({', '.join(FIND_KEYS)})")
        return {key: getattr(self, key) for key in keys}


@dataclass(frozen=True)
class FindBlock:
    """Finds read together, as columns: one row of the finds table, or the finds of one bulk
    batch, which share their status, run, time stamp, strategy and time into the run. A large
    store is listed a block at a time (records export: a million finds a second, where a
    FindRow apiece would be a tenth of that)."""

    deals: list[str]
    cards: list[int]
    tricks: list[int]
    status: str
    run: int
    found_at: str
    strategy: str
    elapsed: float
    decks: np.ndarray | None = None  # a batch's deals as rows of card values (counted fast)

    def __len__(self) -> int:
        return len(self.deals)

    def rows(self) -> Iterator[FindRow]:
        fixed = (self.status, self.run, self.found_at, self.strategy, self.elapsed)
        for deal, cards, tricks in zip(self.deals, self.cards, self.tricks, strict=True):
            yield FindRow(deal, cards, tricks, *fixed)

    def deck_counts(self) -> list[str]:
        """Each find's deck, as counts N,J,Q,K,A ('36,4,4,4,4')."""
        if self.decks is None:
            return [",".join(str(deal.count(c)) for c in "-JQKA") for deal in self.deals]
        counts = np.stack([(self.decks == v).sum(axis=1) for v in range(5)], axis=1)
        kinds, which = np.unique(counts, axis=0, return_inverse=True)
        texts = [",".join(map(str, kind)) for kind in kinds.tolist()]
        return [texts[i] for i in which.reshape(-1).tolist()]


FIND_KEYS = tuple(f.name for f in fields(FindRow))
TOP_KEYS = ("deal", "cards", "tricks", "status", "run", "found_at")


@dataclass(frozen=True)
class Which:
    """Which finds to read; each field given narrows them. One filter for both tables: an SQL
    condition on the finds table, one on find_batches (the batches that may hold a match), and
    the finds of a batch that match where SQL cannot look inside it (`picks`)."""

    run: int | None = None
    deal: str | None = None  # in record notation (canonical_deal)
    seats: int | None = None
    min_cards: int | None = None
    status: str | None = None

    @property
    def exact(self) -> bool:
        """Whether SQL alone picks the finds of a batch (it counts and ranks them whole)."""
        return self.deal is None and self.min_cards is None

    def params(self) -> dict[str, Any]:
        """The values both conditions name."""
        values = asdict(self)
        if self.deal is not None:
            values["sizes"] = "/".join(map(str, encode(parse_deal(self.deal))[1]))
        return values

    def rows_where(self) -> str:
        return " AND ".join(rows for rows, _ in self._terms()) or "1"

    def batches_where(self) -> str:
        return " AND ".join(batches for _, batches in self._terms()) or "1"

    def _terms(self) -> list[tuple[str, str]]:
        """(condition on finds, condition on find_batches) for each field given."""
        terms = []
        if self.run is not None:
            terms.append(("run_id = :run", "run_id = :run"))
        if self.deal is not None:
            terms.append(("deal = :deal", "sizes = :sizes"))
        if self.seats is not None:
            terms.append(("seats = :seats", "seats = :seats"))
        if self.min_cards is not None:
            terms.append(("cards >= :min_cards", "best_cards >= :min_cards"))
        if self.status is not None:  # bulk holds finished games only
            terms.append(("status = :status", "1" if self.status == "finished" else "0"))
        return terms

    def picks(self, batch: bulk.Batch) -> np.ndarray | None:
        """Which finds of a batch match (a mask), or None for all of them."""
        mask = None
        if self.min_cards is not None:
            mask = batch.figures[:, 0] >= self.min_cards
        if self.deal is not None:
            wanted, _ = encode(parse_deal(self.deal))
            same = (batch.decks() == wanted).all(axis=1)
            mask = same if mask is None else mask & same
        return mask


class FindReader(Connection):
    """Reads finds, rows and batches alike, the only code that knows they live in two tables.

    With `skip_damaged` set (`records top`), a damaged find row or batch is left out of what
    the reads return, and its error line kept in `skipped` for the caller to say; otherwise
    it raises StoreDamaged, as every other read does."""

    skip_damaged = False
    skipped: tuple[str, ...] = ()  # each damaged row left out, once

    def _finds(self, rows: Iterable[tuple]) -> list[FindRow]:
        """Rows of the finds table (their id first) as finds, each checked."""
        found = []
        for row in rows:
            try:
                found.append(_find_row(self.path, row))
            except StoreDamaged as err:
                self._skip(err)
        return found

    def _skip(self, err: StoreDamaged) -> None:
        if not self.skip_damaged:
            raise err
        if str(err) not in self.skipped:
            self.skipped += (str(err),)

    def _collect(self, which: Which, order: str, key: Callable[[FindRow], Any]) -> list[FindRow]:
        """Every find `which` picks: rows, then batches' finds, each read in SQL `order`, then
        sorted (stably, so rows come first at a tie) by `key`."""
        sql = f"SELECT id, {_FIND_COLUMNS} FROM finds WHERE {which.rows_where()} ORDER BY {order}"
        rows = self._db.execute(sql, which.params()).fetchall()  # done before a row can fail
        found = self._finds(rows)
        for batch in self._batches(which, order):
            found += _batch_finds(batch, which.picks(batch))
        return sorted(found, key=key)

    def _best(self, which: Which, by: str, n: int) -> list[FindRow]:
        """The best `n` distinct deals `which` picks, ranked `by`, each as first found. Batches
        are read best first and only while they can still place."""
        first = "id = (SELECT min(id) FROM finds g WHERE g.deal = f.deal)"
        sql = (
            f"SELECT id, {_FIND_COLUMNS} FROM finds f WHERE {which.rows_where()} AND {first}"
            f" ORDER BY {_ORDER[by]} LIMIT :n"
        )
        key = _RANK_KEY[by]
        rows = self._db.execute(sql, {**which.params(), "n": n}).fetchall()
        best = sorted(self._finds(rows), key=key)
        pool = list(best)  # the candidates: ranked again once they are twice n, and at the end
        floor = _score(best[n - 1], by) if len(best) >= n else -1
        for batch in self._batches(which, order=f"best_{by} DESC"):
            figures = batch.figures
            scores = figures[:, 0] if by == "cards" else figures[:, 1]
            if scores.max() < floor:
                break  # batches come best first: none after this one can place either
            picked = scores >= floor
            matching = which.picks(batch)
            pool += _batch_finds(batch, picked if matching is None else picked & matching)
            if len(pool) >= 2 * n:
                pool = sorted(_first_found(pool), key=key)[:n]
                floor = _score(pool[n - 1], by) if len(pool) >= n else -1
        return sorted(_first_found(pool), key=key)[:n]

    def _count(self, which: Which) -> int:
        """How many finds `which` picks, read in one statement (one snapshot)."""
        assert which.exact, "a batch counts whole"
        sql = (
            f"SELECT (SELECT count(*) FROM finds WHERE {which.rows_where()})"
            " + (SELECT coalesce(sum(count), 0) FROM find_batches"
            f" WHERE {which.batches_where()})"
        )
        return self._db.execute(sql, which.params()).fetchone()[0]

    def _bests(self, which: Which, by: str) -> list[tuple]:
        """(elapsed, best `by`) of each commit's finds `which` picks, in order."""
        assert which.exact, "a batch ranks whole"
        column = by  # one of _ORDER's keys, never user text
        rows = f"SELECT elapsed, {column} AS best FROM finds WHERE {which.rows_where()}"
        batches = f"SELECT elapsed, best_{column} FROM find_batches WHERE {which.batches_where()}"
        sql = f"SELECT elapsed, max(best) FROM ({rows} UNION ALL {batches}) GROUP BY elapsed"
        self._check_bests(which, column)
        return self._db.execute(sql + " ORDER BY elapsed", which.params()).fetchall()

    def _check_bests(self, which: Which, column: str) -> None:
        """StoreDamaged naming the first row whose figure or time `_bests` would read is not
        what a commit writes (SQL's max() would rank a text above every number)."""
        odd = (
            "typeof({c}) != 'integer' OR {c} < 0"
            " OR typeof(elapsed) NOT IN ('integer', 'real') OR abs(elapsed) > 1e300"
        )
        rows = f"SELECT 'finds', id, elapsed, {column} FROM finds WHERE {which.rows_where()}"
        batches = (
            f"SELECT 'find_batches', id, elapsed, best_{column} FROM find_batches"
            f" WHERE {which.batches_where()} AND ({odd.format(c='best_' + column)})"
        )
        sql = f"{rows} AND ({odd.format(c=column)}) UNION ALL {batches} LIMIT 1"
        found = self._db.execute(sql, which.params()).fetchone()
        if found is not None:
            table, row_id, elapsed, best = found
            row = Row(self.path, table, row_id)
            row.number("elapsed", elapsed)
            row.whole(column if table == "finds" else f"best_{column}", best)

    def _stream(self, which: Which, page: int) -> Iterator[FindRow]:
        """Every find `which` picks, oldest first, read a page of rows and a batch at a time."""
        return (row for block in self._blocks(which, page) for row in block.rows())

    def _blocks(self, which: Which, page: int) -> Iterator[FindBlock]:
        """Every find `which` picks as blocks, oldest first: each row of the finds table a
        block, each batch's picked finds another."""
        rows = (_row_block(find) for find in self._row_pages(which, page))
        batches = (
            block
            for batch in self._batches(which)
            if (block := _batch_block(batch, which.picks(batch))) is not None
        )
        return heapq.merge(rows, batches, key=lambda b: b.found_at)

    def _row_pages(self, which: Which, page: int) -> Iterator[FindRow]:
        last = 0
        while True:
            rows = self._row_page(which, last, page)
            yield from self._finds(rows)
            if len(rows) < page:
                return
            last = rows[-1][0]

    @sql_errors
    def _row_page(self, which: Which, after: int, page: int) -> list[tuple]:
        sql = (
            f"SELECT id, {_FIND_COLUMNS} FROM finds WHERE id > :after AND {which.rows_where()}"
            " ORDER BY id LIMIT :page"
        )
        return self._db.execute(sql, {**which.params(), "after": after, "page": page}).fetchall()

    def _batches(self, which: Which, order: str = "id") -> Iterator[bulk.Batch]:
        """The batches that may hold finds `which` picks, one at a time (a batch may hold a
        million finds: never all at once)."""
        for batch_id in self._batch_ids(which, order):
            try:
                batch = self._batch(batch_id)
            except StoreDamaged as err:
                self._skip(err)
                continue
            yield batch

    @sql_errors
    def _batch_ids(self, which: Which, order: str) -> list[int]:
        sql = f"SELECT id FROM find_batches WHERE {which.batches_where()} ORDER BY {order}"
        return [batch_id for (batch_id,) in self._db.execute(sql, which.params())]

    @sql_errors
    def _batch(self, batch_id: int) -> bulk.Batch:
        sql = f"SELECT {_BATCH_COLUMNS} FROM find_batches WHERE id = ?"
        return _batch(self.path, batch_id, self._db.execute(sql, (batch_id,)).fetchall()[0])


class Finds(FindReader):
    """Storing a run's finds, one row each or in bulk, and the reads of finds callers ask for."""

    @sql_errors
    def add_finds(self, run_id: int, finds: Iterable[Find]) -> int:
        """Store finds of one run in one transaction; a deal the run already has is skipped.

        Returns how many rows were inserted.
        """
        with self.transaction() as db:
            return self._add_finds(db, run_id, finds)

    def _add_finds(self, db: sqlite3.Connection, run_id: int, finds: Iterable[Find]) -> int:
        row = db.execute(  # a find is labelled with its run's strategy, or its kind
            "SELECT coalesce(strategy, kind) FROM runs WHERE id = ?", (int(run_id),)
        ).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id} in record store {self.path}")
        stamp = now()
        rows = [_find_params(find, int(run_id), row[0], stamp) for find in finds]
        before = db.total_changes
        db.executemany(
            "INSERT OR IGNORE INTO finds"
            " (deal, cards, tricks, status, run_id, strategy, found_at, elapsed)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        return db.total_changes - before

    def _add_bulks(
        self, db: sqlite3.Connection, run_id: int, strategy: str, bulks: Sequence[bulk.Bulk]
    ) -> int:
        """Store `bulks` as batches of a run; returns how many finds were new."""
        stamp = now()
        values = [
            {**bulk.pack(b), "run_id": int(run_id), "strategy": strategy, "found_at": stamp}
            for b in bulks
            if len(b.decks)
        ]
        columns, names = ", ".join(_BATCH_INSERT), ", ".join(f":{c}" for c in _BATCH_INSERT)
        sql = f"INSERT OR IGNORE INTO find_batches ({columns}) VALUES ({names})"
        added = 0
        for row in values:  # one at a time: a batch already stored (INSERT OR IGNORE) adds nothing
            added += row["count"] if db.execute(sql, row).rowcount == 1 else 0
        return added

    @sql_errors
    def top(
        self,
        by: str = "cards",
        n: int = 10,
        min_cards: int = 0,
        status: str | None = None,
        seats: int | None = None,
        run: int | None = None,
    ) -> list[FindRow]:
        """The best distinct deals across all runs; a deal found by several runs is listed once,
        with the run that found it first. `status` ('finished' or 'loop'), `seats` and `run`
        (one run's finds) filter."""
        _check_rank(by)
        if status is not None:
            require(status, FIND_STATUSES, "find status")
        # SQLite integers are 64-bit: a bound past that selects nothing (or everything).
        min_cards = min(max(int(min_cards), -INT64_MAX), INT64_MAX)
        run = None if run is None else int(run)
        which = Which(run=run, seats=seats, min_cards=min_cards, status=status)
        return self._best(which, by, min(int(n), INT64_MAX))

    @sql_errors
    def finds_for(self, deal: str) -> list[FindRow]:
        """Every time a deal was found, by any run, earliest first."""
        which = Which(deal=canonical_deal(deal))
        return self._collect(which, "id", key=lambda row: row.found_at)

    @sql_errors
    def run_finds(self, run_id: int) -> list[FindRow]:
        """A run's finds in the order it found them (by seconds into the run)."""
        return self._collect(Which(run=int(run_id)), "elapsed, id", key=lambda row: row.elapsed)

    @sql_errors
    def run_tally(self, run_id: int, by: str = "cards") -> tuple[int, int]:
        """A run's finds, and how often its best (by cards or tricks) rose: the finds of one
        commit share their `elapsed`, and a commit whose best beats every earlier one's is a
        rise (the first commit is not). What a resumed search's display carries on from."""
        _check_rank(by)
        finds = self._count(Which(run=int(run_id)))
        rises, high = 0, None
        for _, best in self.run_bests(run_id, by):
            rises += high is not None and best > high
            high = best if high is None else max(high, best)
        return finds, rises

    @sql_errors
    def run_bests(self, run_id: int, by: str = "cards", status: str | None = None) -> list[tuple]:
        """The best (by cards or tricks) of each commit of a run, as (elapsed, best) in order:
        all a picture of the best against time needs, without reading every find. `status`
        ('finished' or 'loop') counts those finds only (bulk holds finished ones)."""
        _check_rank(by)
        if status is not None:
            require(status, FIND_STATUSES, "find status")
        return self._bests(Which(run=int(run_id), status=status), by)

    def all_finds(
        self, batch: int = 1000, seats: int | None = None, status: str | None = None
    ) -> Iterator[FindRow]:
        """Every stored find (of `seats` seats, of `status`, if given), oldest first, read in
        batches so a large store streams."""
        if status is not None:
            require(status, FIND_STATUSES, "find status")
        return self._stream(Which(seats=seats, status=status), batch)

    def find_blocks(
        self, seats: int | None = None, min_cards: int | None = None, page: int = 1000
    ) -> Iterator[FindBlock]:
        """Every stored find (of `seats` seats, of at least `min_cards` cards, if given),
        oldest first, as blocks of columns (FindBlock): what a listing of a whole store reads,
        in memory no larger than a page of rows or a batch."""
        if min_cards is not None:
            min_cards = min(max(int(min_cards), -INT64_MAX), INT64_MAX)
        return self._blocks(Which(seats=seats, min_cards=min_cards), page)

    @sql_errors
    def count_finds(
        self, run: int | None = None, seats: int | None = None, status: str | None = None
    ) -> int:
        """How many finds (in rows and in bulk alike) a run, a seat count or a status holds."""
        if status is not None:
            require(status, FIND_STATUSES, "find status")
        run = None if run is None else int(run)
        return self._count(Which(run=run, seats=seats, status=status))


def _check_rank(by: str) -> None:
    if by not in _ORDER:
        raise ValueError(f"cannot rank by {by!r}; choose one of {', '.join(_ORDER)}")


def _row_block(find: FindRow) -> FindBlock:
    return FindBlock(
        [find.deal], [find.cards], [find.tricks],
        find.status, find.run, find.found_at, find.strategy, find.elapsed,
    )  # fmt: skip


def _batch_block(batch: bulk.Batch, picked: np.ndarray | None) -> FindBlock | None:
    """A batch's finds, or those `picked` (a mask; None picks all), as a block; None for none."""
    if picked is not None and not picked.any():
        return None  # not even unpacked
    figures, decks = batch.figures, batch.decks()
    if picked is not None:
        figures, decks = figures[picked], decks[picked]
    deals = deal_texts(decks, batch.hand_sizes())
    cards, tricks = figures[:, 0].tolist(), figures[:, 1].tolist()
    fixed = (batch.run_id, batch.found_at, batch.strategy, batch.elapsed)
    return FindBlock(deals, cards, tricks, "finished", *fixed, decks)


def _batch_finds(batch: bulk.Batch, picked: np.ndarray | None) -> list[FindRow]:
    """The finds of a batch, or those `picked` (a mask; None picks all)."""
    if picked is not None and not picked.any():
        return []  # not even unpacked
    return [FindRow(*row) for row in batch.rows(picked)]


def _find_row(path: Path, row: tuple) -> FindRow:
    """A find from its row of the finds table (its id first), each value checked."""
    id_, deal, cards, tricks, status, run, found_at, strategy, elapsed = row
    r = Row(path, "finds", id_)
    return FindRow(
        r.deal("deal", deal),
        r.whole("cards", cards),
        r.whole("tricks", tricks),
        r.text("status", status, FIND_STATUSES),
        r.whole("run_id", run, 1),
        r.stamp("found_at", found_at),
        r.text("strategy", strategy),
        r.number("elapsed", elapsed),
    )


def _batch(path: Path, batch_id: int, row: tuple) -> bulk.Batch:
    """A batch from its row of find_batches, each value checked, its blobs' sizes among them
    (bulk.Batch.checked): a count of 10**9 never makes a billion rows."""
    r = Row(path, "find_batches", batch_id)
    run, strategy, found_at, elapsed, sizes, count, figures, decks = row
    return bulk.Batch(
        r.whole("run_id", run, 1),
        r.text("strategy", strategy),
        r.stamp("found_at", found_at),
        r.number("elapsed", elapsed),
        r.text("sizes", sizes, shape=SIZES, what="hand sizes ('26/26')"),
        r.whole("count", count, 1),
        r.blob("figures", figures),
        r.blob("decks", decks),
    ).checked(r)


def _score(find: FindRow, by: str) -> int:
    return find.cards if by == "cards" else find.tricks


def _first_found(finds: Iterable[FindRow]) -> list[FindRow]:
    """One find per deal: the one found first (by time, then run), as `top` lists a deal."""
    first: dict[str, FindRow] = {}
    for find in finds:
        known = first.get(find.deal)
        if known is None or (find.found_at, find.run) < (known.found_at, known.run):
            first[find.deal] = find
    return list(first.values())


def _find_params(find: Find, run_id: int, run_strategy: str, stamp: str) -> tuple:
    require(find.status, FIND_STATUSES, "find status")
    return (
        canonical_deal(find.deal),
        int(find.cards),
        int(find.tricks),
        find.status,
        run_id,
        find.strategy or run_strategy,
        stamp,
        float(find.elapsed),
    )
