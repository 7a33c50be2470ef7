"""Worker checkpoints, and the commits of a search's progress that save them: each checkpoint
together with the finds (or cycles) found since the last and the run's figures, atomically, so
a resumed search never repeats or loses a find."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from bmn.records.store import bulk, saved
from bmn.records.store.connection import sql_errors
from bmn.records.store.finds import Find, Finds
from bmn.records.store.loops import Loop, Loops
from bmn.records.store.runs import Runs
from bmn.records.store.values import Row, now

Checkpoint = tuple[int, bytes, int, float]  # worker, state, games, seconds
MOST_WORKERS = 2**20  # a worker number past this is no search's (every keeps its totals past them)


class Checkpoints(Runs, Finds, Loops):
    """The checkpoints table, and the progress commits that span runs, finds and loops."""

    @sql_errors
    def save_progress(
        self,
        run_id: int,
        checkpoints: Sequence[Checkpoint],
        finds: Iterable[Find],
        run_update: dict[str, Any],
        holder: str | None = None,
        bulks: Sequence[bulk.Bulk] = (),
        loops: Iterable[tuple[Loop, int]] = (),
    ) -> int:
        """Checkpoints (worker, state, games, seconds), finds (one by one, and `bulks` of
        short ones), cycles ((cycle, times seen), as add_loops) and a run update, atomically;
        with `holder`, the run's heartbeat too. Returns how many finds were new to the run."""
        with self.transaction() as db:
            added = self._add_finds(db, run_id, finds)
            self._add_loops(db, run_id, loops)
            if bulks:
                added += self._add_bulks(db, run_id, self.get_run(run_id).found_by, bulks)
            self._save_checkpoints(db, run_id, checkpoints)
            self._update_run(db, run_id, dict(run_update))
            self._beat(db, run_id, holder)
        return added

    @sql_errors
    def save_loop_progress(
        self,
        run_id: int,
        loops: Iterable[tuple[Loop, int]],
        checkpoint: Checkpoint,
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
        self, db: sqlite3.Connection, run_id: int, checkpoints: Iterable[Checkpoint]
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
    def load_checkpoints(self, run_id: int) -> dict[int, tuple[bytes, int, float]]:
        """The latest checkpoint of each worker of a run: worker -> (state, games, seconds),
        each value checked; the state a saved.Saved, which the kind of run decodes with
        saved.json_state or saved.array_state, checked against its shape."""
        rows = self._db.execute(
            "SELECT worker, state, games, seconds FROM checkpoints"
            " WHERE run_id = ? ORDER BY worker",
            (int(run_id),),
        ).fetchall()  # done before a row can fail: a statement left open keeps -wal, -shm
        out = {}
        for worker, state, games, seconds in rows:
            r = Row(self.path, "checkpoints", f"of run {run_id}, worker {worker}")
            worker = r.whole("worker", worker, 0, MOST_WORKERS)
            r.blob("state", state)
            out[worker] = (
                saved.saved(state, self.path, run_id, worker),
                r.whole("games", games),
                r.number("seconds", seconds),
            )
        return out
