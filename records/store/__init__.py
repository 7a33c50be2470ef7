"""The record store: one SQLite file holding runs, found deals, cycles and worker checkpoints.

It uses only the standard library's sqlite3, so reading a store needs nothing compiled. The
package owns the schema and every SQL statement: schema.py the migrations and the checks that
a file is a bmn store, connection.py opening and transactions, runs.py runs and their leases,
loops.py cycles; finds and checkpoints are still here.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from bmn.kernels.deal import encode, parse_deal
from bmn.records.store import bulk
from bmn.records.store.columns import INT64_MAX, canonical_deal, now, require
from bmn.records.store.connection import BUSY_TIMEOUT_MS, DEFAULT_PATH, sql_errors
from bmn.records.store.errors import RunHeld, StoreError
from bmn.records.store.loops import Loop, LoopRow, Loops
from bmn.records.store.runs import (
    OBJECTIVES,
    RUN_STATUSES,
    STALE_SECONDS,
    Run,
    Runs,
    holder_alive,
    holder_name,
)
from bmn.records.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, TABLES

__all__ = [
    "APPLICATION_ID",
    "BUSY_TIMEOUT_MS",
    "DEFAULT_PATH",
    "FIND_KEYS",
    "FIND_STATUSES",
    "INT64_MAX",
    "MIGRATIONS",
    "OBJECTIVES",
    "RUN_STATUSES",
    "SCHEMA_VERSION",
    "STALE_SECONDS",
    "TABLES",
    "TOP_KEYS",
    "Find",
    "FindRow",
    "Loop",
    "LoopRow",
    "Run",
    "RunHeld",
    "Store",
    "StoreError",
    "bulk",
    "canonical_deal",
    "holder_alive",
    "holder_name",
    "now",
]

FIND_STATUSES = ("finished", "loop")
_FIND_COLUMNS = "deal, cards, tricks, status, run_id, found_at, strategy, elapsed"
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
class FindRow:
    """A stored find: the deal, its result, which run found it, when, and how far into the run."""

    deal: str
    cards: int
    tricks: int
    status: str
    run: int
    found_at: str
    strategy: str = ""
    elapsed: float = 0.0

    def as_dict(self, keys: Sequence[str] | None = None) -> dict[str, Any]:
        out = asdict(self)
        return out if keys is None else {key: out[key] for key in keys}


FIND_KEYS = tuple(f.name for f in fields(FindRow))
TOP_KEYS = ("deal", "cards", "tricks", "status", "run", "found_at")


class Store(Runs, Loops):
    """A bmn record store in one SQLite file; opening checks it and brings its schema up to date.

    Writes are short transactions (BEGIN IMMEDIATE), so several processes can share a store.
    """

    # -- finds ---------------------------------------------------------------------------

    @sql_errors
    def add_finds(self, run_id: int, finds: Iterable[Find]) -> int:
        """Store finds of one run in one transaction; a deal the run already has is skipped.

        Returns how many rows were inserted.
        """
        with self.transaction() as db:
            return self._add_finds(db, run_id, finds)

    def _add_finds(self, db: sqlite3.Connection, run_id: int, finds: Iterable[Find]) -> int:
        row = db.execute("SELECT strategy FROM runs WHERE id = ?", (int(run_id),)).fetchone()
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

    @sql_errors
    def top(
        self,
        by: str = "cards",
        n: int = 10,
        min_cards: int = 0,
        status: str | None = None,
        seats: int | None = None,
    ) -> list[FindRow]:
        """The best distinct deals across all runs; a deal found by several runs is listed once,
        with the run that found it first. `status` ('finished' or 'loop') and `seats` filter."""
        if by not in _ORDER:
            raise ValueError(f"cannot rank by {by!r}; choose one of {', '.join(_ORDER)}")
        where = "cards >= :min_cards AND id = (SELECT min(id) FROM finds g WHERE g.deal = f.deal)"
        if status is not None:
            require(status, FIND_STATUSES, "find status")
            where += " AND status = :status"
        if seats is not None:
            where += " AND seats = :seats"
        sql = f"SELECT {_FIND_COLUMNS} FROM finds f WHERE {where} ORDER BY {_ORDER[by]} LIMIT :n"
        # SQLite integers are 64-bit: a bound past that selects nothing (or everything).
        min_cards = min(max(int(min_cards), -INT64_MAX), INT64_MAX)
        params = {"min_cards": min_cards, "status": status, "n": min(int(n), INT64_MAX)}
        params["seats"] = seats
        rows = [FindRow(*row) for row in self._db.execute(sql, params)]
        if status == "loop":  # bulk holds finished games only
            return rows
        return self._top_with_bulk(rows, by, int(params["n"]), min_cards, seats)

    def _top_with_bulk(
        self, rows: list[FindRow], by: str, n: int, min_cards: int, seats: int | None
    ) -> list[FindRow]:
        """`rows` (the best of the finds table) merged with the best finds stored in bulk.
        Batches are read best first and only while they can still place."""
        key = _RANK_KEY[by]
        best = sorted(rows, key=key)
        where, params = "best_cards >= ?", [min_cards]
        if seats is not None:
            where += " AND seats = ?"
            params.append(seats)
        for batch in bulk.batches(self._db, where, params, order=f"best_{by} DESC"):
            floor = _score(best[n - 1], by) if len(best) >= n else -1
            figures = batch.figures
            scores = figures[:, 0] if by == "cards" else figures[:, 1]
            if scores.max() < floor:
                break  # batches come best first: none after this one can place either
            which = (figures[:, 0] >= min_cards) & (scores >= floor)
            best = _first_found(best + [FindRow(*r) for r in batch.rows(which)])
            best = sorted(best, key=key)[:n]
        return best

    @sql_errors
    def finds_for(self, deal: str) -> list[FindRow]:
        """Every time a deal was found, by any run, earliest first."""
        deal = canonical_deal(deal)
        sql = f"SELECT {_FIND_COLUMNS} FROM finds WHERE deal = ? ORDER BY id"
        rows = [FindRow(*row) for row in self._db.execute(sql, (deal,))]
        wanted, sizes = encode(parse_deal(deal))
        for batch in bulk.batches(self._db, "sizes = ?", ("/".join(map(str, sizes)),)):
            (hits,) = np.nonzero((batch.decks() == wanted).all(axis=1))
            rows += [FindRow(*row) for row in batch.rows(hits)] if len(hits) else []
        return sorted(rows, key=lambda row: row.found_at)

    @sql_errors
    def run_finds(self, run_id: int) -> list[FindRow]:
        """A run's finds in the order it found them (by seconds into the run)."""
        sql = f"SELECT {_FIND_COLUMNS} FROM finds WHERE run_id = ? ORDER BY elapsed, id"
        rows = [FindRow(*row) for row in self._db.execute(sql, (int(run_id),))]
        for batch in bulk.batches(self._db, "run_id = ?", (int(run_id),), "elapsed, id"):
            rows += [FindRow(*row) for row in batch.rows()]
        return sorted(rows, key=lambda row: row.elapsed)  # stable: rows first at a tie

    @sql_errors
    def run_tally(self, run_id: int, by: str = "cards") -> tuple[int, int]:
        """A run's finds, and how often its best (by cards or tricks) rose: the finds of one
        commit share their `elapsed`, and a commit whose best beats every earlier one's is a
        rise (the first commit is not). What a resumed search's display carries on from."""
        if by not in _ORDER:
            raise ValueError(f"cannot rank by {by!r}; choose one of {', '.join(_ORDER)}")
        (finds,) = self._db.execute(
            "SELECT (SELECT count(*) FROM finds WHERE run_id = :run)"
            " + (SELECT coalesce(sum(count), 0) FROM find_batches WHERE run_id = :run)",
            {"run": int(run_id)},
        ).fetchone()
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
        if by not in _ORDER:
            raise ValueError(f"cannot rank by {by!r}; choose one of {', '.join(_ORDER)}")
        column = by  # one of _ORDER's keys, never user text
        rows = f"SELECT elapsed, {column} AS best FROM finds WHERE run_id = :run"
        batches = f"SELECT elapsed, best_{column} FROM find_batches WHERE run_id = :run"
        if status is not None:
            require(status, FIND_STATUSES, "find status")
            rows += " AND status = :status"
            batches += "" if status == "finished" else " AND 0"
        sql = f"SELECT elapsed, max(best) FROM ({rows} UNION ALL {batches}) GROUP BY elapsed"
        params = {"run": int(run_id), "status": status}
        return self._db.execute(sql + " ORDER BY elapsed", params).fetchall()

    def all_finds(self, batch: int = 1000, seats: int | None = None) -> Iterator[FindRow]:
        """Every stored find (of `seats` seats only, if given), oldest first, read in batches
        so a large store streams."""
        return heapq.merge(
            self._row_finds(batch, seats), self._bulk_finds(seats), key=lambda f: f.found_at
        )

    def _bulk_finds(self, seats: int | None) -> Iterator[FindRow]:
        where, params = ("1", ()) if seats is None else ("seats = ?", (seats,))
        for stored in bulk.batches(self._db, where, params):
            yield from (FindRow(*row) for row in stored.rows())

    def _row_finds(self, batch: int, seats: int | None) -> Iterator[FindRow]:
        last = 0
        while True:
            rows = self._find_batch(last, batch, seats)
            yield from (FindRow(*row[1:]) for row in rows)
            if len(rows) < batch:
                return
            last = rows[-1][0]

    @sql_errors
    def _find_batch(self, after: int, batch: int, seats: int | None = None) -> list[tuple]:
        where = "id > ?" if seats is None else "id > ? AND seats = ?"
        sql = f"SELECT id, {_FIND_COLUMNS} FROM finds WHERE {where} ORDER BY id LIMIT ?"
        params = (after, batch) if seats is None else (after, seats, batch)
        return self._db.execute(sql, params).fetchall()

    # -- checkpoints ---------------------------------------------------------------------

    @sql_errors
    def save_loop_progress(
        self,
        run_id: int,
        loops: Iterable[tuple[Loop, int]],
        checkpoint: tuple[int, bytes, int, float],
        run_update: dict[str, Any],
        holder: str | None = None,
    ) -> int:
        """A loop hunt's cycles, its checkpoint (worker, state, games, seconds) and a run
        update, atomically (with `holder`, the heartbeat too); returns how many were new."""
        with self.transaction() as db:
            new = self._add_loops(db, run_id, loops)
            self._save_checkpoints(db, run_id, [checkpoint])
            self._update_run(db, run_id, dict(run_update))
            self._beat(db, run_id, holder)
        return new

    def _save_checkpoints(
        self,
        db: sqlite3.Connection,
        run_id: int,
        checkpoints: Iterable[tuple[int, bytes, int, float]],
    ) -> None:
        stamp = now()
        db.executemany(
            "INSERT OR REPLACE INTO checkpoints (run_id, worker, saved_at, state, games, seconds)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (int(run_id), int(worker), stamp, bytes(state), int(games), float(seconds))
                for worker, state, games, seconds in checkpoints
            ],
        )

    @sql_errors
    def save_progress(
        self,
        run_id: int,
        checkpoints: Sequence[tuple[int, bytes, int, float]],
        finds: Iterable[Find],
        run_update: dict[str, Any],
        holder: str | None = None,
        bulks: Sequence[bulk.Bulk] = (),
    ) -> int:
        """Checkpoints (worker, state, games, seconds), finds (one by one, and `bulks` of
        short ones) and a run update, atomically; with `holder`, the run's heartbeat too.
        Returns how many finds were new to the run."""
        with self.transaction() as db:
            added = self._add_finds(db, run_id, finds)
            if bulks:
                strategy = self.get_run(run_id).strategy
                added += bulk.insert(db, int(run_id), strategy, now(), bulks)
            self._save_checkpoints(db, run_id, checkpoints)
            self._update_run(db, run_id, dict(run_update))
            self._beat(db, run_id, holder)
        return added

    @sql_errors
    def load_checkpoints(self, run_id: int) -> dict[int, tuple[bytes, int, float]]:
        """The latest checkpoint of each worker of a run: worker -> (state, games, seconds)."""
        rows = self._db.execute(
            "SELECT worker, state, games, seconds FROM checkpoints"
            " WHERE run_id = ? ORDER BY worker",
            (int(run_id),),
        )
        return {worker: (bytes(state), games, seconds) for worker, state, games, seconds in rows}


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
