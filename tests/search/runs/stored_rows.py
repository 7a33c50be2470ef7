"""Helpers for tests that a run's stored rows are reproducible: every row of a store as a
comparable value, and a backend that hands chunks back in the worst order for a run that
trusts arrival (the streams of highest ranks first)."""

import json
import sqlite3
from pathlib import Path

from bmn.records.store import bulk
from bmn.search.backends.base import Result, Task, run_task

# Columns that say when (timings) or where (backend, holder) a row was written, and row ids
# (the order rows were written in): left out of the comparison.
WHEN_AND_WHERE = {
    "id",
    "started_at",
    "updated_at",
    "seconds",
    "found_at",
    "elapsed",
    "saved_at",
    "heartbeat_at",
    "holder",
    "backend",
}


def stored(path: Path, streams: bool = True) -> dict[str, list]:
    """Every row of every table of the store at `path`, less WHEN_AND_WHERE, each table's rows
    sorted, a batch of finds as the finds it holds. With `streams` false, what depends on how
    many streams ran is left out too: the checkpoints (one per stream) and the run's workers."""
    db = sqlite3.connect(path)
    try:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        out = {t: _rows(db, t, streams) for t in tables if streams or t != "checkpoints"}
    finally:
        db.close()
    return out


def _rows(db: sqlite3.Connection, table: str, streams: bool) -> list:
    rows = []
    cursor = db.execute(f"SELECT * FROM {table}")  # a name read from sqlite_master
    names = [column[0] for column in cursor.description]
    for row in map(dict, (zip(names, values, strict=True) for values in cursor)):
        values = {k: v for k, v in row.items() if k not in WHEN_AND_WHERE}
        if table == "runs":
            params = json.loads(values["params"])
            if not streams:
                params.pop("workers")
            values["params"] = params
        if table == "find_batches":  # a chunk's short finds: the chunk depends on the cut
            rows += [(values["run_id"], find) for find in _batch_finds(row)]
            continue
        rows.append(sorted(values.items()))
    return sorted(rows, key=repr)


def _batch_finds(row: dict) -> list[tuple]:
    batch = bulk.Batch(
        row["run_id"], row["strategy"], "", 0.0, row["sizes"], row["count"], row["figures"],
        row["decks"],
    )  # fmt: skip
    return [(deal, cards, tricks, row["sizes"]) for deal, cards, tricks, *_ in batch.rows()]


class LastStreamFirst:
    """A backend that runs every chunk queued, in this thread, when a result is asked for, and
    hands the results back highest stream first (each stream's in order): a looping deal of
    the highest ranks is met first, which threads do now and then by chance."""

    name = where = "last-stream-first"

    def default_streams(self) -> int:
        return 1

    def details(self) -> str:
        return "every chunk in turn, the last stream's first"

    def start(self, streams, warm) -> None:
        warm()
        self.queued: list[Task] = []
        self.last: dict[int, Result] = {}  # each stream's latest result, its next chunk's state
        self.done: list[Result] = []

    def submit(self, task: Task) -> None:
        self.queued.append(task)

    def next_result(self, timeout: float) -> Result | None:
        if not self.done:
            for task in sorted(self.queued, key=lambda t: t.key):
                self.done.append(run_task(task, self.last.get(task.stream)))
                self.last[task.stream] = self.done[-1]
            self.queued = []
            self.done.sort(key=lambda r: (r.stream, -r.chunk))  # popped from the end
        return self.done.pop() if self.done else None

    def cancel(self) -> list[tuple[int, int]]:
        dropped = [task.key for task in self.queued]
        self.queued = []
        return dropped

    def close(self) -> None:
        self.cancel()
