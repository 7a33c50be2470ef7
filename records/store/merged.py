"""Another store's runs brought into this one (`records merge`): each run of a source with its
finds, bulk batches, checkpoints and cycles, written in one transaction, with where it came from
kept (the source store, the host it ran on, its number there).

A source is read through the same checks as every read of a store (values.py): a value of the
wrong type or out of range in any row it would bring (a run's games, seconds, seats, time
stamps, settings; a find's figures; a batch's blobs; a checkpoint's counters) makes the source
damaged, StoreDamaged in one line, and nothing is written. What a source's rows derive (a run's
best, a batch's best, a cycle's key and summary) is not taken from it: the caller replays the
snapshot (bmn.records.merge) and sets them from the replay before it is merged.

A run is known by what it was started with (started_at, seed, kind, strategy, objective, rules,
seats and settings), which no merge changes: merging a source twice, or a store merged from it,
adds nothing, and a run resumed since on its own machine brings its progress on the next merge.
A find is one find per run and deal, whoever brought it: a deal a run holds already (in a row or
in bulk, from this source or another copy of the run) is not stored again, so the same run
finished on two machines, its finds cut into batches at other points, merges to each find once.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np

from bmn.kernels.deal import encode, parse_deal
from bmn.records.store import bulk
from bmn.records.store.checkpoints import Checkpoints
from bmn.records.store.connection import sql_errors
from bmn.records.store.errors import RunHeld
from bmn.records.store.finds import FindRow, _batch, _find_row
from bmn.records.store.loops import LoopRow
from bmn.records.store.runs import Run, _to_json, holder_alive
from bmn.records.store.values import INT64_MAX, SIZES, Row

SAME_RUN = ("started_at", "seed", "kind", "strategy", "objective", "rules", "seats", "params")
_RUN = (
    *SAME_RUN,
    *("updated_at", "status", "games", "seconds", "best_deal", "best_cards", "best_tricks"),
    *("backend", "host", "origin_store", "origin_run"),
)
_PROGRESS = ("updated_at", "status", "games", "seconds")
_FIND = ("deal", "cards", "tricks", "status", "strategy", "found_at", "elapsed")
_BATCH = "id, run_id, stream, first_game, seats, count, strategy, found_at, elapsed, sizes"
_CHECKPOINT = ("worker", "saved_at", "state", "games", "seconds")

Best = tuple[str, int, int]  # a run's best: its deal, cards and tricks


@dataclass
class SourceBatch:
    """A bulk batch of a source as checked: its key in its run (stream, first game), hand
    sizes, label, time, and its finds' decks and figures (cards, tricks) decoded."""

    stream: int
    first_game: int
    sizes: tuple[int, ...]
    strategy: str
    found_at: str
    elapsed: float
    decks: np.ndarray
    figures: np.ndarray


@dataclass
class SourceRun:
    """One run of a source store, checked: the run, its finds kept as rows, its bulk batches
    and its checkpoints; `best`, set by the replay, is its best derived from what replayed."""

    run: Run
    finds: list[FindRow] = field(default_factory=list)
    batches: list[SourceBatch] = field(default_factory=list)
    checkpoints: list[tuple] = field(default_factory=list)
    best: Best | None = None

    @property
    def id(self) -> int:
        return self.run.id


@dataclass
class Snapshot:
    """Everything a source store holds that a merge brings: its runs and its cycles (each
    cycle's summary replaced by its replay's before the merge)."""

    path: str  # the source as the merge names it (absolute)
    runs: list[SourceRun]
    loops: list[LoopRow]


@dataclass
class Merged:
    """What one merge did, counted."""

    source: str
    runs_new: int = 0
    runs_known: int = 0  # already in the target (from this source or another copy of it)
    runs_advanced: int = 0  # known, and the source had searched further: its progress taken
    finds_new: int = 0  # rows and bulk alike
    finds_known: int = 0
    loops_new: int = 0
    loops_known: int = 0


def snapshot(source: Checkpoints, path: str) -> Snapshot:
    """Read every run, find, batch, checkpoint and cycle of `source` in one read transaction,
    each value checked (StoreDamaged, one line naming the row, for the first that is not what
    bmn writes, or a row of a run the store does not hold)."""
    db = source._db  # noqa: SLF001 (the store package's own connection)
    db.execute("BEGIN")
    try:
        runs = {run.id: SourceRun(run) for run in source.runs()}
        sql = (
            "SELECT id, deal, cards, tricks, status, run_id, found_at, strategy, elapsed"
            " FROM finds ORDER BY id"
        )
        for row in db.execute(sql).fetchall():
            find = _find_row(source.path, row)
            _of(runs, Row(source.path, "finds", row[0]), find.run).finds.append(find)
        for (batch_id,) in db.execute("SELECT id FROM find_batches ORDER BY id").fetchall():
            run_id, batch = _source_batch(source, batch_id)
            _of(runs, Row(source.path, "find_batches", batch_id), run_id).batches.append(batch)
        for row in db.execute(f"SELECT run_id, {', '.join(_CHECKPOINT)} FROM checkpoints"):
            r = Row(source.path, "checkpoints", f"of run {row[0]}, worker {row[1]}")
            checkpoint = (
                r.whole("worker", row[1]),
                r.stamp("saved_at", row[2]),
                r.blob("state", row[3]),
                r.whole("games", row[4]),
                r.number("seconds", row[5]),
            )
            _of(runs, r, row[0]).checkpoints.append(checkpoint)
        loops = source.loops()
        for loop in loops:
            _of(runs, Row(source.path, "loops", loop.key), loop.run)
    finally:
        db.execute("ROLLBACK")
    return Snapshot(path, list(runs.values()), loops)


def _of(runs: dict[int, SourceRun], row: Row, run_id: object) -> SourceRun:
    """The run a row belongs to; StoreDamaged for a row of a run the store does not hold."""
    run = runs.get(run_id) if isinstance(run_id, int) else None
    if run is None:
        raise row.bad("run_id", f"holds {run_id!r}, a run the store does not hold")
    return run


def _source_batch(source: Checkpoints, batch_id: int) -> tuple[int, SourceBatch]:
    """A batch of a source, every column checked and its blobs decoded (bulk.Batch.checked)."""
    db = source._db  # noqa: SLF001
    row = db.execute(f"SELECT {_BATCH} FROM find_batches WHERE id = ?", (batch_id,)).fetchone()
    _, run_id, stream, first, seats, count, strategy, found_at, elapsed, sizes = row
    r = Row(source.path, "find_batches", batch_id)
    sizes = r.text("sizes", sizes, shape=SIZES, what="hand sizes ('26/26')")
    hands = tuple(int(n) for n in sizes.split("/"))
    if r.whole("seats", seats, 2, 4) != len(hands):
        raise r.bad("seats", f"holds {seats}, where its hand sizes {sizes} deal {len(hands)}")
    checked = _batch(source.path, batch_id, _batch_row(db, batch_id))
    batch = SourceBatch(
        r.whole("stream", stream),
        r.whole("first_game", first, -INT64_MAX),
        hands,
        r.text("strategy", strategy),
        r.stamp("found_at", found_at),
        r.number("elapsed", elapsed),
        checked.decks(),
        checked.figures,
    )
    r.whole("count", count, 1)
    return r.whole("run_id", run_id, 1), batch


def _batch_row(db: sqlite3.Connection, batch_id: int) -> tuple:
    sql = (
        "SELECT run_id, strategy, found_at, elapsed, sizes, count, figures, decks"
        " FROM find_batches WHERE id = ?"
    )
    return db.execute(sql, (batch_id,)).fetchone()


class Merges(Checkpoints):
    """Bringing a snapshot of another store into this one."""

    @sql_errors
    def merge(self, snap: Snapshot) -> Merged:
        """Write `snap` into this store in one transaction: all of it, or (on any error, or a
        kill at any moment) none of it. RunHeld if a run it holds is being searched here."""
        tally = Merged(snap.path)
        with self.transaction() as db:
            mapped: dict[int, tuple[int, bool]] = {}
            for source in snap.runs:
                target, new = mapped[source.id] = self._merge_run(db, source, snap.path, tally)
                deals = _RunDeals(db, target)
                added = _insert_finds(db, target, source.finds, deals)
                added += _insert_batches(db, target, source, deals)
                tally.finds_new += added
                total = len(source.finds) + sum(len(b.decks) for b in source.batches)
                tally.finds_known += total - added
                _keep_best(db, target, source)
            for loop in snap.loops:
                self._merge_loop(db, loop, *mapped[loop.run], tally)
        return tally

    def _merge_loop(
        self, db: sqlite3.Connection, loop: LoopRow, target: int, new: bool, tally: Merged
    ) -> None:
        # A cycle is known by its key and rule set (an older source's are bmn's).
        cycle = (loop.key, loop.rules)
        known = db.execute(
            "SELECT id, found_at FROM loops WHERE key = ? AND rules = ?", cycle
        ).fetchone()
        # Times seen come with the run that first saw the cycle: a run merged before brought
        # them already.
        seen = loop.times_seen if new or known is None else 0
        added = self._add_loops(db, target, [(loop, seen)])
        tally.loops_new += added
        tally.loops_known += 1 - added
        # When it was first found is when the machine that found it found it (a new row was
        # stamped now), or the target's, if that was earlier; the run that found it first
        # goes with it.
        if known is None or _earlier(
            loop.found_at, Row(self.path, "loops", known[0]).stamp("found_at", known[1])
        ):
            db.execute(
                "UPDATE loops SET found_at = ?, run_id = ? WHERE key = ? AND rules = ?",
                (loop.found_at, target, *cycle),
            )

    def _merge_run(
        self, db: sqlite3.Connection, source: SourceRun, path: str, tally: Merged
    ) -> tuple[int, bool]:
        """The target's number for `source`'s run, and whether it is new here; a run known
        here takes the source's progress when the source searched it further."""
        values = _run_values(source, path)
        same = " AND ".join(f"{column} IS ?" for column in SAME_RUN)
        known = db.execute(
            f"SELECT id, games, holder, heartbeat_at FROM runs WHERE {same}",
            [values[column] for column in SAME_RUN],
        ).fetchone()
        if known is None:
            tally.runs_new += 1
            cursor = db.execute(
                f"INSERT INTO runs ({', '.join(_RUN)}) VALUES ({', '.join('?' * len(_RUN))})",
                [values[column] for column in _RUN],
            )
            target = int(cursor.lastrowid)
            _insert_checkpoints(db, target, source.checkpoints)
            return target, True
        target, games, holder, beat = known
        tally.runs_known += 1
        if source.run.games <= Row(self.path, "runs", target).whole("games", games):
            return target, False
        if holder_alive(holder, beat, time.time()):
            raise RunHeld(
                f"run {target} of record store {self.path} is being searched by {holder};"
                " merge after that search stops"
            )
        sets = ", ".join(f"{column} = ?" for column in _PROGRESS)
        db.execute(
            f"UPDATE runs SET {sets} WHERE id = ?", (*(values[c] for c in _PROGRESS), target)
        )
        db.execute("DELETE FROM checkpoints WHERE run_id = ?", (target,))
        _insert_checkpoints(db, target, source.checkpoints)
        tally.runs_advanced += 1
        return target, False


def _run_values(source: SourceRun, path: str) -> dict[str, Any]:
    """A source run's columns as the target stores them: its best the replay's, its settings
    written as every run's are, and where it came from."""
    run = source.run
    values = {column: getattr(run, column, None) for column in _RUN}
    values["params"] = _to_json(run.params)
    # A run still marked running in the source is not running here: no process holds it.
    values["status"] = "interrupted" if run.status == "running" else run.status
    deal, cards, tricks = source.best or (None, None, None)
    values.update(best_deal=deal, best_cards=cards, best_tricks=tricks)
    if run.origin_store is None:  # it ran in the source: the source is its origin
        values["origin_store"], values["origin_run"] = path, run.id
    return values


def _keep_best(db: sqlite3.Connection, target: int, source: SourceRun) -> None:
    """The target run's best: the better of its own and the source's (the same run searched on
    two machines holds the finds of both)."""
    if source.best is None:
        return
    row = db.execute(
        "SELECT best_deal, best_cards, best_tricks, objective FROM runs WHERE id = ?", (target,)
    ).fetchone()
    mine = None if row[0] is None else (row[0], row[1], row[2])
    if better(source.best, mine, row[3]):
        db.execute(
            "UPDATE runs SET best_deal = ?, best_cards = ?, best_tricks = ? WHERE id = ?",
            (*source.best, target),
        )


def better(a: Best | None, b: Best | None, objective: str) -> bool:
    """Whether best `a` beats `b` for a run of `objective` (tricks: tricks first)."""
    if a is None or b is None:
        return b is None and a is not None
    key = (lambda x: (x[2], x[1])) if objective == "tricks" else (lambda x: (x[1], x[2]))
    return key(a) > key(b)


def _earlier(a: str, b: str) -> bool:
    """Whether time stamp `a` comes before `b`: ISO-8601 text compared as times, not as text
    (a stamp to the second sorts after one to the millisecond of that second; one without a
    zone is taken for UTC)."""
    return _instant(a) < _instant(b)


def _instant(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


class _RunDeals:
    """The deals a target run holds, rows and batches alike, read once it is first asked
    (a new run holds none), and kept up to date as the merge adds to it: one find per run and
    deal. A deal is its hand sizes and its cards."""

    def __init__(self, db: sqlite3.Connection, run_id: int):
        self.db, self.run_id = db, run_id
        self._keys: set[bytes] | None = None

    def keys(self) -> set[bytes]:
        if self._keys is None:
            keys: set[bytes] = set()
            for (deal,) in self.db.execute(
                "SELECT deal FROM finds WHERE run_id = ?", (self.run_id,)
            ):
                keys.add(_key(*_deal_row(deal)))
            sql = "SELECT sizes, count, decks FROM find_batches WHERE run_id = ?"
            for sizes, count, blob in self.db.execute(sql, (self.run_id,)):
                width = sum(int(n) for n in sizes.split("/"))
                keys.update(_keys(sizes, bulk.unpack_decks(blob, count, width)))
            self._keys = keys
        return self._keys


def _deal_row(deal: str) -> tuple[str, np.ndarray]:
    row, sizes = encode(parse_deal(deal))
    return "/".join(str(int(n)) for n in sizes), row


def _key(sizes: str, row: np.ndarray) -> bytes:
    return sizes.encode() + b":" + row.tobytes()


def _keys(sizes: str, decks: np.ndarray) -> list[bytes]:
    head, width = sizes.encode() + b":", decks.shape[1]
    flat = np.ascontiguousarray(decks, dtype=np.uint8).tobytes()
    return [head + flat[i : i + width] for i in range(0, len(flat), width)] if width else []


def _insert_finds(
    db: sqlite3.Connection, run_id: int, finds: list[FindRow], deals: _RunDeals
) -> int:
    """The finds kept as rows, but for deals the run holds already; how many were new."""
    keys, new = deals.keys(), []
    for find in finds:
        key = _key(*_deal_row(find.deal))
        if key not in keys:
            keys.add(key)
            new.append(find)
    db.executemany(
        f"INSERT INTO finds (run_id, {', '.join(_FIND)}) VALUES (?, {', '.join('?' * len(_FIND))})",
        [(run_id, *(getattr(find, column) for column in _FIND)) for find in new],
    )
    return len(new)


def _insert_batches(
    db: sqlite3.Connection, run_id: int, source: SourceRun, deals: _RunDeals
) -> int:
    """A source run's batches, each holding the finds whose deals the run does not hold yet
    (none: the batch is not stored); a batch whose key (stream, first game) the run holds
    already, cut at other points by another sitting, is stored under a key no search writes
    (a first game below zero). Best figures are each batch's own, recomputed."""
    keys, added = deals.keys(), 0
    for batch in source.batches:
        sizes = "/".join(map(str, batch.sizes))
        fresh = []
        for i, key in enumerate(_keys(sizes, batch.decks)):
            if key not in keys:
                keys.add(key)
                fresh.append(i)
        if not fresh:
            continue
        first = _free_key(db, run_id, batch.stream, batch.first_game)
        kept = bulk.Bulk(
            batch.stream, first, batch.elapsed, batch.sizes,
            batch.decks[fresh], batch.figures[fresh],
        )  # fmt: skip
        values = {**bulk.pack(kept), "run_id": run_id, "strategy": batch.strategy}
        values["found_at"] = batch.found_at
        columns = ", ".join(values)
        db.execute(
            f"INSERT INTO find_batches ({columns}) VALUES ({', '.join(':' + c for c in values)})",
            values,
        )
        added += len(fresh)
    return added


def _free_key(db: sqlite3.Connection, run_id: int, stream: int, first: int) -> int:
    """`first`, or where the run's stream holds a batch there, the first game below all its
    batches' and below zero (a key no search writes)."""
    taken = "SELECT 1 FROM find_batches WHERE run_id = ? AND stream = ? AND first_game = ?"
    if db.execute(taken, (run_id, stream, first)).fetchone() is None:
        return first
    low = db.execute(
        "SELECT min(first_game) FROM find_batches WHERE run_id = ? AND stream = ?",
        (run_id, stream),
    ).fetchone()[0]
    return min(int(low), 0) - 1


def _insert_checkpoints(db: sqlite3.Connection, run_id: int, checkpoints: list[tuple]) -> None:
    db.executemany(
        f"INSERT INTO checkpoints (run_id, {', '.join(_CHECKPOINT)})"
        f" VALUES (?, {', '.join('?' * len(_CHECKPOINT))})",
        [(run_id, *checkpoint) for checkpoint in checkpoints],
    )
