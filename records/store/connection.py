"""The connection under every store: opening a file safely, one write transaction at a time,
and sqlite3's errors turned into one StoreError line naming the store.

WAL journal, short write transactions taken with BEGIN IMMEDIATE and a long busy timeout:
several searches can share one store; a writer waits its turn instead of failing.
synchronous=FULL: commits are rare (an improvement, a checkpoint every 30 s), so an fsync per
commit costs nothing measurable, and in exchange a find reported as stored survives even a
power cut, not only a crash or `kill -9` (which NORMAL already survives in WAL mode).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import wraps
from pathlib import Path
from typing import TypeVar

from bmn.records.store import paths, schema
from bmn.records.store.errors import StoreError

DEFAULT_PATH = "bmn-records.sqlite"
BUSY_TIMEOUT_MS = 30_000
FULL_BELOW = 1 << 20  # bytes free on a file system taken as full (a -shm index takes 32 KiB)
_Self = TypeVar("_Self", bound="Connection")


def sql_errors(method):
    """Turn sqlite3's errors into one StoreError line naming the store."""

    @wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as err:
            raise StoreError(explain(self.path, err)) from err

    return wrapper


def explain(path: Path, err: sqlite3.Error) -> str:
    """What an sqlite3 error means for the store at `path`, in one line."""
    text = str(err)
    if "locked" in text or "busy" in text:
        return f"record store {path} stayed busy for {BUSY_TIMEOUT_MS / 1000:g} s ({text})"
    if "full" in text or ("disk I/O" in text and disk_full(path)):
        return f"record store {path}: the disk is full ({text}); nothing stored was lost"
    if "same thread" in text:  # a ProgrammingError, which the branch below would call damage
        return f"record store {path} was opened in another thread: open it in this one too"
    if isinstance(err, sqlite3.DatabaseError) and not isinstance(err, sqlite3.OperationalError):
        return f"record store {path} is damaged or not a database ({text}); it was left as it is"
    return f"record store {path}: {text}"


def disk_full(path: Path) -> bool:
    """Whether the file system holding `path` has (about) no room left: SQLite says only
    "disk I/O error" when it cannot make the -shm index a WAL store is read through."""
    try:
        room = os.statvfs(Path(os.path.realpath(path)).parent)
    except (OSError, ValueError):
        return False
    return room.f_bavail * room.f_frsize < FULL_BELOW


def connect(path: Path, create: bool, read_only: bool = False) -> sqlite3.Connection:
    """A connection to the file at `path` (made if `create`), once paths.open_mode has found
    the path a regular file or nothing and its header is SQLite's; see paths.py for how a
    reader opens it without writing beside it."""
    mode = paths.open_mode(path, create, read_only)
    schema.check_header(path)
    uri = f"{path.absolute().as_uri()}?{mode}"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if read_only:
            conn.execute("PRAGMA query_only = ON")
    except sqlite3.Error as err:
        raise StoreError(explain(path, err)) from err
    return conn


def use_wal(db: sqlite3.Connection) -> None:
    """Switch a new store to WAL. SQLite answers 'locked' at once, without waiting, while
    another process is creating the same store, so wait here instead."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _identity(path: Path) -> tuple[int, int] | None:
    """The file at `path` as (device, inode); None where there is none."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


@contextmanager
def _in(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on `db`: all of it is committed, or none of it."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


class Connection:
    """An open store file, checked and brought up to date: what each part of Store builds on.

    Nothing is written to a file before schema.check_identity has found it a bmn store this code
    can read, or empty. A reader (`read_only`: the records commands) never writes at all: an
    older store is read from an upgraded copy in memory, the file left as it is."""

    def __init__(self, path: str | os.PathLike, create: bool = True, read_only: bool = False):
        self.path = Path(path)
        self._create = create and not read_only
        self._read_only = read_only
        self._conn: sqlite3.Connection | None = None
        beside = paths.beside(self.path)  # what lay beside the store: a failed open leaves it so
        made = self._create and not paths.found(self.path)
        self._conn = connect(self.path, self._create, read_only)
        self._file = _identity(self.path)  # what a write checks is still at the path
        try:
            self._open()
        except BaseException:
            self.close()
            paths.tidy(self.path, beside, self._file if made else None)
            raise

    @sql_errors
    def _open(self) -> None:
        empty = schema.check_identity(self._db, self.path)
        if empty and not self._create:
            raise StoreError(f"{self.path} is empty, not a bmn record store")
        self.found_version = self.version  # as the file was, before any upgrade (records upgrade)
        if self._read_only:
            if self.version != schema.SCHEMA_VERSION:
                self._read_upgraded_copy()
            return
        # Only now, with the file known to be ours or empty, may anything be written to it.
        use_wal(self._db)
        self._db.execute("PRAGMA synchronous = FULL")
        if self.version != schema.SCHEMA_VERSION:  # the usual case needs no write lock to open
            with self.transaction() as db:  # foreign keys off: a migration may copy a table
                schema.upgrade(db, self.path)
        self._db.execute("PRAGMA foreign_keys = ON")

    def _read_upgraded_copy(self) -> None:
        """Read an older store through a copy in memory brought up to date: a reader never
        migrates the file (a migration is a write). The next search on it upgrades it."""
        copy = sqlite3.connect(":memory:", isolation_level=None)
        try:
            self._db.backup(copy)
            with _in(copy) as db:
                schema.upgrade(db, self.path)
            copy.execute("PRAGMA query_only = ON")
        except BaseException:
            copy.close()
            raise
        self.close()
        self._conn = copy

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"record store {self.path} is closed")
        return self._conn

    @property
    def version(self) -> int:
        """The schema version: how many migrations have run."""
        return schema.version(self._db)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """One write transaction: all of it is committed, or none of it. StoreError if the
        file was deleted or replaced since it was opened: what is written would go to a file
        no one can open again (a search stops there instead of saying 'finished')."""
        if self._file is not None and _identity(self.path) != self._file:
            raise StoreError(
                f"record store {self.path} was deleted or replaced while in use: nothing more"
                " can be stored in it (what was stored went with the file)"
            )
        return _in(self._db)

    @sql_errors
    def check(self) -> list[str]:
        """SQLite's integrity check of the whole file: ['ok'] when sound."""
        return [row[0] for row in self._db.execute("PRAGMA integrity_check")]
