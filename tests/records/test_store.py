"""The record store: schema and migrations, refusing files that are not ours, transactions,
and safety under concurrent writers and `kill -9`."""

import hashlib
import json
import multiprocessing
import os
import signal
import sqlite3
import sys

import numpy as np
import pytest
from samples import CASELLA, PAULHUS, RECORD

from bmn.records.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    TABLES,
    Find,
    Store,
    StoreError,
    connection,
    schema,
)


def random_deal(rng: np.random.Generator) -> str:
    deck = rng.permutation(np.array(list("-" * 36 + "JQKA" * 4)))
    return "".join(deck[:26]) + "/" + "".join(deck[26:])


def raw(path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def refuses(path, match: str, create: bool = True) -> None:
    """Opening raises StoreError matching `match` and leaves every byte of the file alone."""
    before = path.read_bytes()
    with pytest.raises(StoreError, match=match):
        Store(path, create=create)
    assert path.read_bytes() == before


# -- schema and migrations ----------------------------------------------------------------


def test_new_store_schema_and_settings(path):
    Store(path).close()
    conn = raw(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_schema")}
    assert {*TABLES, "find_batches"} <= names


def test_connection_pragmas(db):
    conn = db._db
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_reopen_keeps_data(path):
    with Store(path) as db:
        run = db.create_run("walk", "cards", 5, {"workers": 2})
        db.add_finds(run, [Find(RECORD, 8344, 1164, elapsed=1.5)])
    with Store(path, create=False) as db:
        assert db.version == SCHEMA_VERSION
        assert db.get_run(run).params == {"workers": 2}
        assert [row.deal for row in db.top()] == [RECORD]


# sha256 of each released migration's statements as JSON: a store upgraded by any release must
# hold the same schema, so a released migration's SQL never changes, not even in whitespace.
RELEASED = (
    "2c2b0e398451470c",
    "1dd155fe527a4858",
    "e1b635d5dde4da78",
    "ca5e2b2e3c1e1fe3",
    "541f8d7beb82f0cc",
)


def test_released_migrations_keep_their_sql_byte_for_byte():
    digests = [hashlib.sha256(json.dumps(m).encode()).hexdigest()[:16] for m in schema.MIGRATIONS]
    assert tuple(digests[: len(RELEASED)]) == RELEASED
    assert SCHEMA_VERSION == len(schema.MIGRATIONS) >= len(RELEASED)


def test_later_migration_runs_once_and_is_recorded(path, monkeypatch):
    with Store(path) as db:
        run = db.create_run("walk", "cards", 5, {})
    extra = ("CREATE TABLE extra (id INTEGER PRIMARY KEY, deal TEXT NOT NULL)",)
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS + (extra,))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    for _ in range(2):  # the second open must not run it again
        with Store(path) as db:
            assert db.version == SCHEMA_VERSION + 1
            assert db.get_run(run).strategy == "walk"
    assert raw(path).execute("SELECT count(*) FROM extra").fetchone()[0] == 0


def test_failed_migration_changes_nothing(path, monkeypatch):
    Store(path).close()
    bad = ("CREATE TABLE ok_table (x)", "CREATE TABLE runs (x)")  # the second one fails
    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS + (bad,))
    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError, match="already exists"):
        Store(path)
    conn = raw(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert (
        conn.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'ok_table'").fetchone()[0]
        == 0
    )


# -- files that are not a usable bmn store -------------------------------------------------


def test_refuses_newer_version(path):
    Store(path).close()
    raw(path).execute("PRAGMA user_version = 99")
    refuses(path, "schema version 99, newer")


def test_refuses_foreign_sqlite_database(path):
    conn = raw(path)
    conn.execute("CREATE TABLE people (name TEXT)")
    conn.execute("INSERT INTO people VALUES ('ada')")
    conn.close()
    refuses(path, "not a bmn record store .*people")


def test_refuses_lookalike_without_application_id(path):
    conn = raw(path)
    for table in TABLES:
        conn.execute(f"CREATE TABLE {table} (x)")
    conn.close()
    refuses(path, "not a bmn record store")


@pytest.mark.parametrize(
    "content", [os.urandom(8192), b"deal,cards\n--J/Q-,4\n", b"SQLite format 3\x00" + b"\x00" * 40]
)
def test_refuses_files_that_are_not_sqlite(path, content):
    path.write_bytes(content)
    refuses(path, "not an SQLite database|damaged")


def filled_store(path, finds: int = 2000) -> None:
    rng = np.random.default_rng(7)
    with Store(path) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(random_deal(rng), 3000 + i, 400) for i in range(finds)])


def test_refuses_truncated_store(path):
    filled_store(path)
    data = path.read_bytes()
    assert len(data) > 100_000 and not path.with_name(path.name + "-wal").exists()
    path.write_bytes(data[: len(data) // 2])
    refuses(path, "damaged")


def test_refuses_scrambled_page(path):
    filled_store(path)
    data = bytearray(path.read_bytes())
    middle = len(data) // 2 // 4096 * 4096
    data[middle : middle + 4096] = np.random.default_rng(3).bytes(4096)
    path.write_bytes(bytes(data))
    refuses(path, "damaged")


def test_missing_or_empty_file_without_create(path):
    with pytest.raises(StoreError, match="no record store"):
        Store(path, create=False)
    assert not path.exists()
    path.write_bytes(b"")
    refuses(path, "empty", create=False)
    with Store(path) as db:  # creating over an empty file is fine: there was nothing to lose
        assert db.version == SCHEMA_VERSION


def test_busy_store_times_out_with_store_error(db, monkeypatch):
    run = db.create_run("walk", "cards", 1, {})
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_MS", 200)
    other = raw(db.path)
    other.execute("BEGIN IMMEDIATE")
    try:
        with Store(db.path) as second, pytest.raises(StoreError, match="busy"):
            second.add_finds(run, [Find(RECORD, 8344, 1164)])
    finally:
        other.execute("ROLLBACK")
    assert db.add_finds(run, [Find(RECORD, 8344, 1164)]) == 1


# -- runs, finds, checkpoints ----------------------------------------------------------------


def test_runs_round_trip(db):
    first = db.create_run("walk", "cards", 42, {"time": "8h", "workers": np.int64(2)})
    second = db.create_run("climb", "tricks", -3, {})
    run = db.get_run(first)
    assert (run.strategy, run.objective, run.seed, run.status) == ("walk", "cards", 42, "running")
    assert run.params == {"time": "8h", "workers": 2}
    assert (run.games, run.seconds, run.best_deal) == (0, 0.0, None)
    assert run.started_at.endswith("Z") and "T" in run.started_at
    db.update_run(first, games=np.int64(1000), seconds=12.5)
    db.update_run(first, status="finished", best_deal=RECORD, best_cards=8344, best_tricks=1164)
    run = db.get_run(first)
    assert (run.games, run.seconds, run.status) == (1000, 12.5, "finished")
    assert (run.best_deal, run.best_cards, run.best_tricks) == (RECORD, 8344, 1164)
    assert run.updated_at >= run.started_at
    assert db.latest_run().id == second
    assert [r.id for r in db.runs()] == [first, second]


def test_run_errors(db):
    assert db.latest_run() is None
    with pytest.raises(StoreError, match="no run 9"):
        db.get_run(9)
    with pytest.raises(StoreError, match="no run 9"):
        db.update_run(9, games=1)
    with pytest.raises(StoreError, match="no run 9"):
        db.add_finds(9, [Find(RECORD, 8344, 1164)])
    with pytest.raises(ValueError, match="objective"):
        db.create_run("walk", "length", 1, {})
    run = db.create_run("walk", "cards", 1, {})
    with pytest.raises(ValueError, match="status"):
        db.update_run(run, status="paused")
    assert db.get_run(run).status == "running"


def test_add_finds_dedupes_per_run_and_canonicalises(db):
    one = db.create_run("walk", "cards", 1, {})
    two = db.create_run("climb", "cards", 2, {})
    hand = "AS 10H QD K 2 3 4 5 6 7 8 9 10 J 2 3 4 5 6 7 8 9 10 Q K"
    other = "AH 10S QC K 2 3 4 5 6 7 8 9 10 J 2 3 4 5 6 7 8 9 10 Q K"  # no suited card twice
    canonical = "A-QK" + "-" * 9 + "J" + "-" * 9 + "QK"
    finds = [Find(RECORD, 8344, 1164, elapsed=2.0), Find(RECORD, 8344, 1164, elapsed=3.0)]
    assert db.add_finds(one, finds) == 1
    assert db.add_finds(one, [Find(RECORD, 8344, 1164)]) == 0
    assert db.add_finds(two, [Find(RECORD, 8344, 1164, strategy="other", elapsed=9.0)]) == 1
    assert db.add_finds(one, [Find(f"{hand}/{other}", np.int64(10), 2, elapsed=1.0)]) == 1
    rows = db.finds_for(RECORD.replace("-", "2"))
    assert [(r.run, r.strategy, r.elapsed) for r in rows] == [
        (one, "walk", 2.0),
        (two, "other", 9.0),
    ]
    assert [r.deal for r in db.run_finds(one)] == [f"{canonical}/{canonical}", RECORD]
    assert len(list(db.all_finds())) == 3


def test_top_lists_distinct_deals_ranked(db):
    one = db.create_run("walk", "cards", 1, {})
    two = db.create_run("walk", "cards", 2, {})
    db.add_finds(one, [Find(PAULHUS, 4791, 670), Find(CASELLA, 474, 66, "loop")])
    db.add_finds(two, [Find(PAULHUS, 4791, 670), Find(RECORD, 8344, 1164), Find("-J/Q-", 4, 1)])
    top = db.top()
    assert [(r.deal, r.run) for r in top] == [
        (RECORD, two),
        (PAULHUS, one),
        (CASELLA, one),
        ("-J/Q-", two),
    ]
    assert [r.deal for r in db.top(by="tricks", n=2)] == [RECORD, PAULHUS]
    assert [r.deal for r in db.top(min_cards=474)] == [RECORD, PAULHUS, CASELLA]
    assert [r.deal for r in db.top(status="loop")] == [CASELLA]
    with pytest.raises(ValueError):
        db.top(by="length")


def test_run_finds_in_elapsed_order(db):
    run = db.create_run("walk", "cards", 1, {})
    db.add_finds(
        run, [Find(RECORD, 8344, 1164, elapsed=30.0), Find(PAULHUS, 4791, 670, elapsed=2.0)]
    )
    db.add_finds(run, [Find("-J/Q-", 4, 1, elapsed=10.0)])
    assert [r.elapsed for r in db.run_finds(run)] == [2.0, 10.0, 30.0]
    assert [r.deal for r in db.all_finds(batch=2)] == [RECORD, PAULHUS, "-J/Q-"]


def test_checkpoints_replace_per_worker(db):
    run = db.create_run("walk", "cards", 1, {})
    state = np.arange(4, dtype=np.uint64)
    db.save_progress(run, [(0, state.tobytes(), 100, 1.0), (1, b"\x00\xff", 50, 1.0)], [], {})
    db.save_progress(run, [(0, (state + 1).tobytes(), 200, 2.0)], [], {})
    saved = db.load_checkpoints(run)
    assert saved == {0: ((state + 1).tobytes(), 200, 2.0), 1: (b"\x00\xff", 50, 1.0)}
    assert np.array_equal(np.frombuffer(saved[0][0], np.uint64), state + 1)
    assert db.load_checkpoints(run + 1) == {}


def test_save_progress_is_atomic(db):
    run = db.create_run("walk", "cards", 1, {})
    db.save_progress(run, [(0, b"a", 10, 1.0)], [Find(PAULHUS, 4791, 670)], {"games": 10})
    with pytest.raises(ValueError, match="status"):  # fails after the finds and checkpoints
        db.save_progress(
            run, [(0, b"b", 20, 2.0)], [Find(RECORD, 8344, 1164)], {"games": 20, "status": "x"}
        )
    assert db.load_checkpoints(run) == {0: (b"a", 10, 1.0)}
    assert [r.deal for r in db.top()] == [PAULHUS]
    assert db.get_run(run).games == 10
    db.save_progress(
        run,
        [(0, b"b", 20, 2.0), (1, b"c", 5, 2.0)],
        [Find(RECORD, 8344, 1164)],
        {"games": 25, "best_deal": RECORD, "best_cards": 8344},
    )
    assert db.load_checkpoints(run) == {0: (b"b", 20, 2.0), 1: (b"c", 5, 2.0)}
    assert [r.deal for r in db.top()] == [RECORD, PAULHUS]
    assert (db.get_run(run).games, db.get_run(run).best_cards) == (25, 8344)


# -- several processes, and kill -9 ----------------------------------------------------------


def _writer(path: str, seed: int, barrier) -> None:
    rng = np.random.default_rng(seed)
    deals = [random_deal(rng) for _ in range(200)]
    barrier.wait()
    with Store(path) as db:  # both processes create the same new store at once
        run = db.create_run("walk", "cards", seed, {})
        for i in range(0, 200, 2):  # 100 small transactions of 2 finds
            db.add_finds(run, [Find(d, 3000 + seed, 400, elapsed=i) for d in deals[i : i + 2]])


def test_two_processes_writing_at_once_lose_nothing(path):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(str(path), s, barrier)) for s in (1, 2)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
    assert [proc.exitcode for proc in procs] == [0, 0]
    with Store(path) as db:
        assert len(list(db.all_finds())) == 400
        assert sorted(len(db.run_finds(run.id)) for run in db.runs()) == [200, 200]
        assert len(db.top(n=1000, min_cards=3002)) == 200
        assert db.check() == ["ok"]


def _committer(path: str, run: int, conn) -> None:
    rng = np.random.default_rng(11)
    with Store(path) as db:
        for i in range(1_000_000):  # until killed
            db.add_finds(
                run, [Find(random_deal(rng), 3000, 400), Find(random_deal(rng), 3001, 400)]
            )
            conn.send(2 * (i + 1))


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_kill_9_loses_nothing_committed(path):
    with Store(path) as db:
        run = db.create_run("walk", "cards", 1, {})
    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_committer, args=(str(path), run, child))
    proc.start()
    committed = 0
    while committed < 100:
        committed = parent.recv()
    os.kill(proc.pid, signal.SIGKILL)
    proc.join(10)
    assert proc.exitcode == -signal.SIGKILL
    while parent.poll():
        committed = parent.recv()
    with Store(path) as db:
        assert db.check() == ["ok"]
        # Every reported commit is there; at most one more commit finished unreported.
        assert len(list(db.all_finds())) in (committed, committed + 2)
