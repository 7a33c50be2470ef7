"""The record store: one SQLite file holding runs, found deals and worker checkpoints.

This module owns the schema, the migrations and every SQL statement. It uses only the
standard library's sqlite3, so reading a store needs nothing compiled.

Safety rules, each for a reason:
- WAL journal, short write transactions taken with BEGIN IMMEDIATE and a long busy timeout:
  several searches can share one store; a writer waits its turn instead of failing.
- synchronous=FULL: commits are rare (an improvement, a checkpoint every 30 s), so an fsync per
  commit costs nothing measurable, and in exchange a find reported as stored survives even a
  power cut, not only a crash or `kill -9` (which NORMAL already survives in WAL mode).
- A file is checked before anything is written to it: not SQLite, another program's database,
  a newer schema or a damaged file each raise StoreError and leave the file untouched.
"""

from __future__ import annotations

import heapq
import json
import os
import re
import socket
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from datetime import datetime, timezone
from functools import wraps
from pathlib import Path
from typing import Any

import numpy as np

from bmn.kernels.deal import encode, parse_deal
from bmn.records.store import bulk

# PRAGMA application_id of every bmn store: b"bmn1" read as a big-endian integer.
APPLICATION_ID = int.from_bytes(b"bmn1", "big")
DEFAULT_PATH = "bmn-records.sqlite"
BUSY_TIMEOUT_MS = 30_000
SQLITE_MAGIC = b"SQLite format 3\x00"

OBJECTIVES = ("cards", "tricks", "loop")
RUN_STATUSES = ("running", "stopped", "finished", "interrupted")
FIND_STATUSES = ("finished", "loop")
TABLES = ("runs", "finds", "checkpoints")
INT64_MAX = 2**63 - 1
_CANONICAL = re.compile(r"[-JQKA]*(/[-JQKA]*){1,3}")

# Ordered migrations: PRAGMA user_version counts how many have run. Each is a list of
# statements run one by one inside a single transaction (executescript would commit early).
# Never edit a released migration; append a new one.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            strategy TEXT NOT NULL,
            objective TEXT NOT NULL CHECK (objective IN ('cards', 'tricks', 'loop')),
            seed INTEGER NOT NULL,
            params TEXT NOT NULL DEFAULT '{}',
            status TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'stopped', 'finished', 'interrupted')),
            games INTEGER NOT NULL DEFAULT 0,
            seconds REAL NOT NULL DEFAULT 0,
            best_deal TEXT,
            best_cards INTEGER,
            best_tricks INTEGER
        )""",
        """CREATE TABLE finds (
            id INTEGER PRIMARY KEY,
            deal TEXT NOT NULL,
            cards INTEGER NOT NULL,
            tricks INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('finished', 'loop')),
            run_id INTEGER NOT NULL REFERENCES runs (id),
            strategy TEXT NOT NULL,
            found_at TEXT NOT NULL,
            elapsed REAL NOT NULL,
            UNIQUE (deal, run_id)
        )""",
        "CREATE INDEX finds_by_cards ON finds (cards DESC, tricks DESC)",
        "CREATE INDEX finds_by_tricks ON finds (tricks DESC, cards DESC)",
        "CREATE INDEX finds_by_run ON finds (run_id, elapsed)",
        """CREATE TABLE checkpoints (
            run_id INTEGER NOT NULL REFERENCES runs (id),
            worker INTEGER NOT NULL,
            saved_at TEXT NOT NULL,
            state BLOB NOT NULL,
            games INTEGER NOT NULL,
            seconds REAL NOT NULL,
            PRIMARY KEY (run_id, worker)
        )""",
    ),
    (  # 2: the cycles of non-terminating games, one row per canonical cycle key
        """CREATE TABLE loops (
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL UNIQUE,
            rotation_key TEXT NOT NULL,
            deck TEXT NOT NULL,
            period_cards INTEGER NOT NULL,
            period_tricks INTEGER NOT NULL,
            cycle_states INTEGER NOT NULL,
            balanced_states INTEGER NOT NULL,
            balanced_reachable INTEGER,
            balanced_deals INTEGER NOT NULL,
            mirrored_balanced_deals INTEGER NOT NULL,
            basin_states INTEGER NOT NULL,
            basin_complete INTEGER NOT NULL,
            example_deal TEXT NOT NULL,
            first_deal TEXT NOT NULL,
            run_id INTEGER NOT NULL REFERENCES runs (id),
            found_at TEXT NOT NULL,
            times_seen INTEGER NOT NULL DEFAULT 1
        )""",
    ),
    (  # 3: seats per run and find, where a run ran, and who holds a run (a lease)
        "ALTER TABLE runs ADD COLUMN seats INTEGER NOT NULL DEFAULT 2",
        "ALTER TABLE runs ADD COLUMN backend TEXT NOT NULL DEFAULT 'threads'",
        "ALTER TABLE runs ADD COLUMN holder TEXT",
        "ALTER TABLE runs ADD COLUMN heartbeat_at REAL",
        # Derived from the deal text (hands joined by '/'), so it can never disagree with it.
        "ALTER TABLE finds ADD COLUMN seats INTEGER GENERATED ALWAYS AS"
        " (length(deal) - length(replace(deal, '/', '')) + 1) VIRTUAL",
        "CREATE INDEX finds_by_seats ON finds (seats, cards DESC, tricks DESC)",
    ),
    bulk.CREATE,  # 4: short finished finds of a search, packed a chunk's to a row
    (  # 5: the kind of run (bmn.search.runs.kinds), inferred for older runs as bmn did before
        "ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'longest'",
        "UPDATE runs SET kind = CASE"
        " WHEN strategy = 'grow' THEN 'grow'"
        " WHEN params LIKE '%\"device\": \"cuda\"%' THEN 'longest-cuda'"
        " WHEN objective = 'loop' THEN 'loop-hunt'"
        " ELSE 'longest' END",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)

_RUN_COLUMNS = (
    "id, started_at, updated_at, strategy, objective, seed, params, status,"
    " games, seconds, best_deal, best_cards, best_tricks, seats, backend, holder, heartbeat_at,"
    " kind"
)
# A run's holder refreshes its heartbeat with every commit (about once a second, and at least
# every few seconds while compiling); one silent for this long has died.
STALE_SECONDS = 60.0
_FIND_COLUMNS = "deal, cards, tricks, status, run_id, found_at, strategy, elapsed"
_ORDER = {"cards": "cards DESC, tricks DESC, deal", "tricks": "tricks DESC, cards DESC, deal"}
_RANK_KEY = {  # Python's order of _ORDER
    "cards": lambda f: (-f.cards, -f.tricks, f.deal),
    "tricks": lambda f: (-f.tricks, -f.cards, f.deal),
}
_RUN_FIELDS = ("status", "games", "seconds", "best_deal", "best_cards", "best_tricks")


class StoreError(Exception):
    """The store cannot be used: missing, not a bmn store, newer, damaged, busy or full."""


class RunHeld(StoreError):
    """Another live process holds the run (is searching it now)."""


@dataclass(frozen=True)
class Run:
    """One search run, as stored."""

    id: int
    started_at: str
    updated_at: str
    strategy: str
    objective: str
    seed: int
    params: dict[str, Any]
    status: str
    games: int
    seconds: float
    best_deal: str | None
    best_cards: int | None
    best_tricks: int | None
    seats: int = 2
    backend: str = "threads"
    holder: str | None = None
    heartbeat_at: float | None = None
    kind: str = "longest"  # its kind in bmn.search.runs.kinds

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["holder"], out["heartbeat_at"]  # lease bookkeeping, not part of the run
        return out


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


@dataclass(frozen=True)
class Loop:
    """A cycle of a non-terminating game, to be stored under its canonical key.

    `deck` names the cards (counts of numerals, J, Q, K, A: '36,4,4,4,4' is the standard
    deck); balanced deals are starting deals split evenly, seat 0 first, found by backward
    play within `basin_states` states (`basin_complete` when that was the whole basin)."""

    key: str
    rotation_key: str
    deck: str
    period_cards: int
    period_tricks: int
    cycle_states: int
    balanced_states: int
    balanced_deals: int
    mirrored_balanced_deals: int
    basin_states: int
    basin_complete: bool
    example_deal: str
    first_deal: str

    @property
    def balanced_reachable(self) -> bool | None:
        """True if a balanced deal reaches the cycle, False if none does, None if unknown (the
        basin search stopped at its limit without finding one)."""
        if self.balanced_deals:
            return True
        return False if self.basin_complete else None


@dataclass(frozen=True)
class LoopRow(Loop):
    """A stored cycle: the run that first found it, when, and how often hunts have seen it."""

    reachable: bool | None = None
    run: int = 0
    found_at: str = ""
    times_seen: int = 0

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["balanced_reachable"] = out.pop("reachable")
        return out


_LOOP_FIELDS = tuple(f.name for f in fields(Loop))
_LOOP_COLUMNS = ", ".join(_LOOP_FIELDS) + ", balanced_reachable, run_id, found_at, times_seen"
TOP_KEYS = ("deal", "cards", "tricks", "status", "run", "found_at")


def now() -> str:
    """The current time as ISO-8601 UTC text, to the millisecond."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def holder_name() -> str:
    """This process as a run holder: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


def holder_alive(holder: str | None, heartbeat_at: float | None, at: float | None = None) -> bool:
    """Whether a run's holder is still searching it.

    A holder on this host is alive exactly while its process is; one elsewhere while its
    heartbeat is younger than STALE_SECONDS.
    """
    if not holder or heartbeat_at is None:
        return False
    host, _, pid = holder.rpartition(":")
    if host == socket.gethostname() and pid.isdigit():
        return _process_alive(int(pid))
    return (time.time() if at is None else at) - heartbeat_at < STALE_SECONDS


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


def canonical_deal(text: str) -> str:
    """A deal in record notation with hands joined by '/', whatever notation it came in."""
    if _CANONICAL.fullmatch(text) and text.strip(
        "/"
    ):  # the usual case, from the search: skip the parser
        return text
    from bmn.kernels.deal import format_deal, parse_deal

    return format_deal(parse_deal(text))


def _sql_errors(method):
    """Turn sqlite3's errors into one StoreError line naming the store."""

    @wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as err:
            raise StoreError(_explain(self.path, err)) from err

    return wrapper


def _explain(path: Path, err: sqlite3.Error) -> str:
    text = str(err)
    if "locked" in text or "busy" in text:
        return f"record store {path} stayed busy for {BUSY_TIMEOUT_MS / 1000:g} s ({text})"
    if "full" in text:
        return f"record store {path}: the disk is full ({text}); nothing stored was lost"
    if isinstance(err, sqlite3.DatabaseError) and not isinstance(err, sqlite3.OperationalError):
        return f"record store {path} is damaged or not a database ({text}); it was left as it is"
    return f"record store {path}: {text}"


class Store:
    """A bmn record store in one SQLite file; opening checks it and brings its schema up to date.

    Writes are short transactions (BEGIN IMMEDIATE), so several processes can share a store.
    """

    def __init__(self, path: str | os.PathLike, create: bool = True):
        self.path = Path(path)
        self._create = create
        self._conn: sqlite3.Connection | None = None
        self._conn = self._connect(create)
        try:
            self._open()
        except BaseException:
            self.close()
            raise

    # -- opening -------------------------------------------------------------------------

    def _connect(self, create: bool) -> sqlite3.Connection:
        if not create and not self.path.exists():
            raise StoreError(
                f"no record store at {self.path}; run `bmn search` to make one,"
                " or point --store / BMN_STORE at an existing store"
            )
        if self.path.is_dir():
            raise StoreError(f"record store {self.path} is a directory, not a file")
        _check_header(self.path)
        uri = self.path.absolute().as_uri() + ("?mode=rwc" if create else "?mode=rw")
        try:
            conn = sqlite3.connect(
                uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000
            )
        except sqlite3.Error as err:
            raise StoreError(_explain(self.path, err)) from err
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return conn

    @_sql_errors
    def _open(self) -> None:
        empty = self._check_identity()
        if empty and not self._create:
            raise StoreError(f"{self.path} is empty, not a bmn record store")
        # Only now, with the file known to be ours or empty, may anything be written to it.
        self._use_wal()
        self._db.execute("PRAGMA synchronous = FULL")
        self._db.execute("PRAGMA foreign_keys = ON")
        self._migrate()

    def _use_wal(self) -> None:
        """Switch a new store to WAL. SQLite answers 'locked' at once, without waiting, while
        another process is creating the same store, so wait here instead."""
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self._db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _check_identity(self) -> bool:
        """Raise StoreError unless this is a bmn store this code can read; True if empty."""
        if self._db.in_transaction:
            return self._identity()
        self._db.execute("BEGIN")  # one read snapshot, even while another process creates it
        try:
            return self._identity()
        finally:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")  # it only read

    def _identity(self) -> bool:
        app_id = self._db.execute("PRAGMA application_id").fetchone()[0]
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        tables = {
            row[0]
            for row in self._db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")
        }
        if app_id == 0 and version == 0 and not tables:
            return True
        if app_id != APPLICATION_ID:
            names = ", ".join(sorted(tables)) or "none"
            raise StoreError(
                f"{self.path} is an SQLite database but not a bmn record store"
                f" (application_id {app_id}, tables: {names}); it was left as it is"
            )
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"record store {self.path} has schema version {version}, newer than this bmn"
                f" understands ({SCHEMA_VERSION}); upgrade bmn to read it"
            )
        missing = [name for name in TABLES if name not in tables] if version >= 1 else []
        if missing:
            raise StoreError(
                f"record store {self.path} is damaged: missing table(s) {', '.join(missing)}"
            )
        # A page-level scan (about 0.1 s for 200,000 finds) catches a truncated or scrambled
        # file before anything is written to it.
        problems = [row[0] for row in self._db.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            raise StoreError(
                f"record store {self.path} is damaged ({'; '.join(problems)}); it was left as it is"
            )
        return False

    def _migrate(self) -> None:
        if self.version == SCHEMA_VERSION:  # the usual case: no write lock needed to open
            return
        with self.transaction():
            self._check_identity()  # again: another process may have created or upgraded it
            version = self.version
            for statements in MIGRATIONS[version:]:
                for statement in statements:
                    self._db.execute(statement)
            if version < SCHEMA_VERSION:
                self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # -- plumbing ------------------------------------------------------------------------

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"record store {self.path} is closed")
        return self._conn

    @property
    def version(self) -> int:
        """The schema version: how many migrations have run."""
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it is committed, or none of it."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    @_sql_errors
    def check(self) -> list[str]:
        """SQLite's integrity check of the whole file: ['ok'] when sound."""
        return [row[0] for row in self._db.execute("PRAGMA integrity_check")]

    # -- runs ----------------------------------------------------------------------------

    @_sql_errors
    def create_run(
        self,
        strategy: str,
        objective: str,
        seed: int,
        params: dict,
        *,
        seats: int = 2,
        backend: str = "threads",
        kind: str = "longest",
    ) -> int:
        """Record a new run of `kind` with status 'running', held by this process; returns its
        number."""
        _require(objective, OBJECTIVES, "objective")
        if not -(2**63) <= int(seed) <= INT64_MAX:
            raise ValueError(f"seed {seed} does not fit in a signed 64-bit integer")
        stamp = now()
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO runs (started_at, updated_at, strategy, objective, seed, params,"
                " seats, backend, holder, heartbeat_at, kind)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    stamp,
                    stamp,
                    strategy,
                    objective,
                    int(seed),
                    _to_json(params),
                    int(seats),
                    backend,
                    holder_name(),
                    time.time(),
                    kind,
                ),
            )
        return int(cursor.lastrowid)

    @_sql_errors
    def claim_run(self, run_id: int, holder: str, backend: str | None = None) -> Run:
        """Take a run for `holder` (to resume it); RunHeld if a live process holds it.

        The check and the claim are one write transaction, so of two processes claiming at
        once exactly one succeeds."""
        with self.transaction() as db:
            row = db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (int(run_id),))
            row = row.fetchone()
            if row is None:
                raise StoreError(f"no run {run_id} in record store {self.path}")
            run = _run(row)
            if run.holder not in (None, holder) and holder_alive(run.holder, run.heartbeat_at):
                age = time.time() - (run.heartbeat_at or 0.0)
                raise RunHeld(
                    f"run {run_id} is being searched by {run.holder} (last heard from"
                    f" {age:.0f} s ago); stop that search first"
                )
            values = {"holder": holder, "hb": time.time(), "id": int(run_id)}
            sets = "holder = :holder, heartbeat_at = :hb"
            if backend is not None:
                sets += ", backend = :backend"
                values["backend"] = backend
            db.execute(f"UPDATE runs SET {sets} WHERE id = :id", values)
        return self.get_run(run_id)

    @_sql_errors
    def heartbeat(self, run_id: int, holder: str) -> None:
        """Refresh a held run's heartbeat (commits through save_progress do this too)."""
        with self.transaction() as db:
            self._beat(db, run_id, holder)

    @_sql_errors
    def release_run(self, run_id: int, holder: str) -> None:
        """Give a run up: it is no longer held by anyone."""
        with self.transaction() as db:
            db.execute(
                "UPDATE runs SET holder = NULL, heartbeat_at = NULL WHERE id = ? AND holder = ?",
                (int(run_id), holder),
            )

    def _beat(self, db: sqlite3.Connection, run_id: int, holder: str | None) -> None:
        if holder is not None:
            db.execute(
                "UPDATE runs SET heartbeat_at = ? WHERE id = ? AND holder = ?",
                (time.time(), int(run_id), holder),
            )

    @_sql_errors
    def update_run(
        self,
        run_id: int,
        *,
        status: str | None = None,
        games: int | None = None,
        seconds: float | None = None,
        best_deal: str | None = None,
        best_cards: int | None = None,
        best_tricks: int | None = None,
    ) -> None:
        """Set the given columns of a run (None leaves a column as it is)."""
        values = dict(
            status=status,
            games=games,
            seconds=seconds,
            best_deal=best_deal,
            best_cards=best_cards,
            best_tricks=best_tricks,
        )
        with self.transaction() as db:
            self._update_run(db, run_id, values)

    def _update_run(self, db: sqlite3.Connection, run_id: int, values: dict[str, Any]) -> None:
        unknown = set(values) - set(_RUN_FIELDS)
        if unknown:
            raise ValueError(f"not a run column: {', '.join(sorted(unknown))}")
        given = {key: _plain(value) for key, value in values.items() if value is not None}
        if "status" in given:
            _require(given["status"], RUN_STATUSES, "run status")
        if "best_deal" in given:
            given["best_deal"] = canonical_deal(given["best_deal"])
        sets = "".join(f", {key} = :{key}" for key in given)  # keys come from _RUN_FIELDS only
        cursor = db.execute(
            f"UPDATE runs SET updated_at = :updated_at{sets} WHERE id = :id",
            {**given, "updated_at": now(), "id": int(run_id)},
        )
        if cursor.rowcount != 1:
            raise StoreError(f"no run {run_id} in record store {self.path}")

    @_sql_errors
    def get_run(self, run_id: int) -> Run:
        """One run by number; StoreError if there is none."""
        row = self._db.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (int(run_id),)
        ).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id} in record store {self.path}")
        return _run(row)

    @_sql_errors
    def latest_run(self) -> Run | None:
        """The most recently started run, or None in a store without runs."""
        row = self._db.execute(
            f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else _run(row)

    def latest_unfinished_run(self) -> Run | None:
        """The most recently started run that is not finished (and not held by a live
        process), or None."""
        for run in reversed(self.runs()):
            if run.status in ("interrupted", "stopped"):
                return run
        return None

    @_sql_errors
    def runs(self) -> list[Run]:
        """Every run, oldest first."""
        return [
            _run(row) for row in self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id")
        ]

    # -- finds ---------------------------------------------------------------------------

    @_sql_errors
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

    @_sql_errors
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
            _require(status, FIND_STATUSES, "find status")
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

    @_sql_errors
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

    @_sql_errors
    def run_finds(self, run_id: int) -> list[FindRow]:
        """A run's finds in the order it found them (by seconds into the run)."""
        sql = f"SELECT {_FIND_COLUMNS} FROM finds WHERE run_id = ? ORDER BY elapsed, id"
        rows = [FindRow(*row) for row in self._db.execute(sql, (int(run_id),))]
        for batch in bulk.batches(self._db, "run_id = ?", (int(run_id),), "elapsed, id"):
            rows += [FindRow(*row) for row in batch.rows()]
        return sorted(rows, key=lambda row: row.elapsed)  # stable: rows first at a tie

    @_sql_errors
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

    @_sql_errors
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
            _require(status, FIND_STATUSES, "find status")
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

    @_sql_errors
    def _find_batch(self, after: int, batch: int, seats: int | None = None) -> list[tuple]:
        where = "id > ?" if seats is None else "id > ? AND seats = ?"
        sql = f"SELECT id, {_FIND_COLUMNS} FROM finds WHERE {where} ORDER BY id LIMIT ?"
        params = (after, batch) if seats is None else (after, seats, batch)
        return self._db.execute(sql, params).fetchall()

    # -- loops ---------------------------------------------------------------------------

    @_sql_errors
    def add_loops(self, run_id: int, loops: Iterable[tuple[Loop, int]]) -> int:
        """Store cycles found by a run, (cycle, times seen) pairs, in one transaction: a cycle
        whose key is known only adds its times seen. Returns how many cycles were new."""
        with self.transaction() as db:
            return self._add_loops(db, run_id, loops)

    @_sql_errors
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

    def _add_loops(
        self, db: sqlite3.Connection, run_id: int, loops: Iterable[tuple[Loop, int]]
    ) -> int:
        stamp = now()
        new = 0
        if db.execute("SELECT 1 FROM runs WHERE id = ?", (int(run_id),)).fetchone() is None:
            raise StoreError(f"no run {run_id} in record store {self.path}")
        for loop, seen in loops:
            cursor = db.execute(
                "UPDATE loops SET times_seen = times_seen + ? WHERE key = ?",
                (int(seen), loop.key),
            )
            if cursor.rowcount:
                continue
            values = [_plain(getattr(loop, name)) for name in _LOOP_FIELDS]
            values[_LOOP_FIELDS.index("example_deal")] = canonical_deal(loop.example_deal)
            values[_LOOP_FIELDS.index("first_deal")] = canonical_deal(loop.first_deal)
            db.execute(
                f"INSERT INTO loops ({_LOOP_COLUMNS}) VALUES"
                f" ({', '.join('?' * (len(_LOOP_FIELDS) + 4))})",
                (*values, loop.balanced_reachable, int(run_id), stamp, int(seen)),
            )
            new += 1
        return new

    @_sql_errors
    def loops(self, run_id: int | None = None) -> list[LoopRow]:
        """Every stored cycle (or those a run found first), in the order first found."""
        where, params = ("WHERE run_id = ?", (int(run_id),)) if run_id is not None else ("", ())
        sql = f"SELECT {_LOOP_COLUMNS} FROM loops {where} ORDER BY id"
        return [_loop_row(row) for row in self._db.execute(sql, params)]

    # -- checkpoints ---------------------------------------------------------------------

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

    @_sql_errors
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

    @_sql_errors
    def load_checkpoints(self, run_id: int) -> dict[int, tuple[bytes, int, float]]:
        """The latest checkpoint of each worker of a run: worker -> (state, games, seconds)."""
        rows = self._db.execute(
            "SELECT worker, state, games, seconds FROM checkpoints"
            " WHERE run_id = ? ORDER BY worker",
            (int(run_id),),
        )
        return {worker: (bytes(state), games, seconds) for worker, state, games, seconds in rows}


def _check_header(path: Path) -> None:
    """Refuse, before SQLite touches it, a file that is not an SQLite database at all."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        return
    except OSError as err:
        raise StoreError(f"cannot read record store {path}: {err.strerror}") from err
    if head and head != SQLITE_MAGIC:
        raise StoreError(f"{path} is not an SQLite database (nor a bmn record store)")


def _require(value: str, allowed: Sequence[str], what: str) -> None:
    if value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(allowed)}, got {value!r}")


def _plain(value: Any) -> Any:
    """Numpy scalars and the like as plain Python numbers, which sqlite3 can bind."""
    return value.item() if hasattr(value, "item") else value


def _to_json(params: dict) -> str:
    def default(value: Any) -> Any:
        if hasattr(value, "tolist"):
            return value.tolist()
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        raise TypeError(f"run parameter of type {type(value).__name__} is not JSON")

    return json.dumps(params, sort_keys=True, default=default)


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
    _require(find.status, FIND_STATUSES, "find status")
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


def _run(row: tuple) -> Run:
    """A run from its row; a run still marked running whose holder died reads as interrupted."""
    (id_, started, updated, strategy, objective, seed, params, status, *rest) = row
    games, seconds, best_deal, best_cards, best_tricks, seats, backend, holder, beat, kind = rest
    if status == "running" and not holder_alive(holder, beat):
        status = "interrupted"
    return Run(
        id_,
        started,
        updated,
        strategy,
        objective,
        seed,
        json.loads(params),
        status,
        games,
        seconds,
        best_deal,
        best_cards,
        best_tricks,
        seats,
        backend,
        holder,
        beat,
        kind,
    )


def _loop_row(row: tuple) -> LoopRow:
    n = len(_LOOP_FIELDS)
    values = dict(zip(_LOOP_FIELDS, row[:n], strict=True))
    values["basin_complete"] = bool(values["basin_complete"])
    reachable, run, found_at, seen = row[n:]
    return LoopRow(
        **values,
        reachable=None if reachable is None else bool(reachable),
        run=run,
        found_at=found_at,
        times_seen=seen,
    )
