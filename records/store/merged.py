"""Another store's runs brought into this one (`records merge`): each run of a source with its
finds, bulk batches, checkpoints and cycles, written in one transaction, with where it came from
kept (the source store, the host it ran on, its number there).

A run is known by what it was started with (started_at, seed, kind, strategy, objective, rules,
seats and settings), which no merge changes: merging a source twice, or a store merged from it,
adds nothing, and a run resumed since on its own machine brings its progress on the next merge.
The caller replays what a snapshot holds before it is merged (bmn.records.merge)."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from bmn.records.store.checked import Row
from bmn.records.store.checkpoints import Checkpoints
from bmn.records.store.connection import sql_errors
from bmn.records.store.errors import RunHeld
from bmn.records.store.loops import LoopRow
from bmn.records.store.runs import holder_alive

SAME_RUN = ("started_at", "seed", "kind", "strategy", "objective", "rules", "seats", "params")
_RUN = (
    *SAME_RUN,
    *("updated_at", "status", "games", "seconds", "best_deal", "best_cards", "best_tricks"),
    *("backend", "host", "origin_store", "origin_run"),
)
_PROGRESS = ("updated_at", "status", "games", "seconds", "best_deal", "best_cards", "best_tricks")
FIND = ("deal", "cards", "tricks", "status", "strategy", "found_at", "elapsed")
BATCH = (
    *("stream", "first_game", "sizes", "seats", "strategy", "found_at", "elapsed", "count"),
    *("best_cards", "best_tricks", "figures", "decks"),
)
_CHECKPOINT = ("worker", "saved_at", "state", "games", "seconds")


@dataclass
class SourceRun:
    """One run of a source store as its rows hold it: the run's columns (`row`), its finds
    (FIND's columns), its bulk batches (BATCH's) and its checkpoints."""

    id: int
    row: dict[str, Any]
    finds: list[tuple] = field(default_factory=list)
    batches: list[dict[str, Any]] = field(default_factory=list)
    checkpoints: list[tuple] = field(default_factory=list)


@dataclass
class Snapshot:
    """Everything a source store holds that a merge brings: its runs and its cycles."""

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
    """Read every run, find, batch, checkpoint and cycle of `source` (one read transaction)."""
    db = source._db  # noqa: SLF001 (the store package's own connection)
    db.execute("BEGIN")
    try:
        runs = {
            row[0]: SourceRun(row[0], dict(zip(_RUN, row[1:], strict=True)))
            for row in db.execute(f"SELECT id, {', '.join(_RUN)} FROM runs ORDER BY id")
        }
        for row in db.execute(f"SELECT run_id, {', '.join(FIND)} FROM finds ORDER BY id"):
            _of(runs, row[0]).finds.append(row[1:])
        for row in db.execute(f"SELECT run_id, {', '.join(BATCH)} FROM find_batches ORDER BY id"):
            _of(runs, row[0]).batches.append(dict(zip(BATCH, row[1:], strict=True)))
        for row in db.execute(f"SELECT run_id, {', '.join(_CHECKPOINT)} FROM checkpoints"):
            _of(runs, row[0]).checkpoints.append(row[1:])
        loops = source.loops()
    finally:
        db.execute("ROLLBACK")
    return Snapshot(path, list(runs.values()), loops)


def _of(runs: dict[int, SourceRun], run_id: int) -> SourceRun:
    """The run a row belongs to (foreign keys hold in a sound store; a stray row gets a run of
    its own so that the replay names it rather than a KeyError)."""
    return runs.setdefault(run_id, SourceRun(run_id, {}))


class Merges(Checkpoints):
    """Bringing a snapshot of another store into this one."""

    @sql_errors
    def merge(self, snap: Snapshot) -> Merged:
        """Write `snap` into this store in one transaction: all of it, or (on any error, or a
        kill at any moment) none of it. RunHeld if a run it holds is being searched here."""
        tally = Merged(snap.path)
        with self.transaction() as db:
            mapped: dict[int, tuple[int, bool]] = {}
            for run in snap.runs:
                target, new = mapped[run.id] = self._merge_run(db, run, snap.path, tally)
                added = _insert_finds(db, target, run.finds)
                added += _insert_batches(db, target, run.batches)
                tally.finds_new += added
                total = len(run.finds) + sum(b["count"] for b in run.batches)
                tally.finds_known += total - added
            for loop in snap.loops:
                target, new = mapped[loop.run]  # the replay refused a cycle of no run
                # A cycle is known by its key and rule set (an older source's are bmn's).
                cycle = (loop.key, loop.rules)
                known = db.execute(
                    "SELECT id, found_at FROM loops WHERE key = ? AND rules = ?", cycle
                ).fetchone()
                # Times seen come with the run that first saw the cycle: a run merged before
                # brought them already.
                seen = loop.times_seen if new or known is None else 0
                added = self._add_loops(db, target, [(loop, seen)])
                tally.loops_new += added
                tally.loops_known += 1 - added
                # When it was first found is when the machine that found it found it (a new
                # row was stamped now), or the target's, if that was earlier; the run that
                # found it first goes with it.
                if known is None or _earlier(
                    loop.found_at, Row(self.path, "loops", known[0]).stamp("found_at", known[1])
                ):
                    db.execute(
                        "UPDATE loops SET found_at = ?, run_id = ? WHERE key = ? AND rules = ?",
                        (loop.found_at, target, *cycle),
                    )
        return tally

    def _merge_run(
        self, db: sqlite3.Connection, run: SourceRun, path: str, tally: Merged
    ) -> tuple[int, bool]:
        """The target's number for `run`, and whether it is new here; a run known here takes
        the source's progress when the source searched it further."""
        same = " AND ".join(f"{column} IS ?" for column in SAME_RUN)
        known = db.execute(
            f"SELECT id, games, holder, heartbeat_at FROM runs WHERE {same}",
            [run.row[column] for column in SAME_RUN],
        ).fetchone()
        if known is None:
            tally.runs_new += 1
            return self._insert_run(db, run, path), True
        target, games, holder, beat = known
        tally.runs_known += 1
        if run.row["games"] <= games:
            return target, False
        if holder_alive(holder, beat, time.time()):
            raise RunHeld(
                f"run {target} of record store {self.path} is being searched by {holder};"
                " merge after that search stops"
            )
        sets = ", ".join(f"{column} = ?" for column in _PROGRESS)
        values = [_status(run.row) if c == "status" else run.row[c] for c in _PROGRESS]
        db.execute(f"UPDATE runs SET {sets} WHERE id = ?", (*values, target))
        db.execute("DELETE FROM checkpoints WHERE run_id = ?", (target,))
        _insert_checkpoints(db, target, run.checkpoints)
        tally.runs_advanced += 1
        return target, False

    def _insert_run(self, db: sqlite3.Connection, run: SourceRun, path: str) -> int:
        row = dict(run.row, status=_status(run.row))
        if row["origin_store"] is None:  # it ran in the source: the source is its origin
            row["origin_store"], row["origin_run"] = path, run.id
        cursor = db.execute(
            f"INSERT INTO runs ({', '.join(_RUN)}) VALUES ({', '.join('?' * len(_RUN))})",
            [row[column] for column in _RUN],
        )
        target = int(cursor.lastrowid)
        _insert_checkpoints(db, target, run.checkpoints)
        return target


def _earlier(a: str, b: str) -> bool:
    """Whether time stamp `a` comes before `b`: ISO-8601 text compared as times, not as text
    (a stamp to the second sorts after one to the millisecond of that second; one without a
    zone is taken for UTC)."""
    return _instant(a) < _instant(b)


def _instant(stamp: str) -> datetime:
    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def _status(row: dict[str, Any]) -> str:
    """A run still marked running in the source is not running here: no process holds it."""
    return "interrupted" if row["status"] == "running" else row["status"]


def _insert_finds(db: sqlite3.Connection, run_id: int, finds: list[tuple]) -> int:
    before = db.total_changes
    db.executemany(
        f"INSERT OR IGNORE INTO finds (run_id, {', '.join(FIND)})"
        f" VALUES (?, {', '.join('?' * len(FIND))})",
        [(run_id, *find) for find in finds],
    )
    return db.total_changes - before


def _insert_batches(db: sqlite3.Connection, run_id: int, batches: list[dict[str, Any]]) -> int:
    sql = (
        f"INSERT OR IGNORE INTO find_batches (run_id, {', '.join(BATCH)})"
        f" VALUES (:run_id, {', '.join(':' + c for c in BATCH)})"
    )
    added = 0
    for batch in batches:
        added += batch["count"] if db.execute(sql, {**batch, "run_id": run_id}).rowcount else 0
    return added


def _insert_checkpoints(db: sqlite3.Connection, run_id: int, checkpoints: list[tuple]) -> None:
    db.executemany(
        f"INSERT INTO checkpoints (run_id, {', '.join(_CHECKPOINT)})"
        f" VALUES (?, {', '.join('?' * len(_CHECKPOINT))})",
        [(run_id, *checkpoint) for checkpoint in checkpoints],
    )
