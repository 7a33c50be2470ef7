"""The record store: one SQLite file holding runs, found deals, cycles and worker checkpoints.

It uses only the standard library's sqlite3, so reading a store needs nothing compiled. The
package owns the schema and every SQL statement; `Store` is built from one part per concern:
- schema.py: the migrations, SCHEMA_VERSION, and the checks that a file is a bmn store;
- paths.py: the store path checked before SQLite touches it, and how a reader opens it;
- connection.py: opening a file, write transactions, sqlite3 errors as StoreError (errors.py);
- runs.py: runs and their leases (holder, heartbeat); loops.py: cycles of endless games;
- finds.py: finds stored one row each or in bulk (bulk.py packs those), read through one reader;
- checkpoints.py: worker checkpoints and the progress commits that save them with finds;
- merged.py: another store's runs, finds and cycles brought in (`records merge`);
- imported.py: another program's finds, stored as one import run (`records import`);
- values.py: values as the columns keep them (time stamps, deal notation, plain numbers), and
  every value read back checked (StoreDamaged naming table, row and column);
- saved.py: checkpoint states decoded and checked against the shape each kind of run writes.

Safety rules (connection.py and schema.py say why):
- WAL journal, BEGIN IMMEDIATE write transactions (one per public method) and a long busy
  timeout, so several searches share a store; synchronous=FULL, so a stored find survives a
  power cut.
- A file is checked before anything is written to it: no regular file, not SQLite, another
  program's database, a newer schema, a version its tables contradict or a damaged file each
  raise StoreError and leave the file untouched.
- A reader (read_only: the records commands) writes nothing: no migration (an older store is
  read from an upgraded copy in memory), no file left beside the store.
- Migrations are appended, never edited: a released one's SQL stays byte for byte.
"""

from __future__ import annotations

from bmn.records.store import bulk
from bmn.records.store.connection import BUSY_TIMEOUT_MS, DEFAULT_PATH
from bmn.records.store.errors import (
    MergeRefused,
    QueryError,
    RunHeld,
    RunNotFound,
    StoreDamaged,
    StoreError,
    StoreMissing,
)
from bmn.records.store.finds import FIND_KEYS, FIND_STATUSES, TOP_KEYS, Find, FindRow
from bmn.records.store.imported import IMPORT_KIND, Imports, Stored
from bmn.records.store.loops import Loop, LoopRow, deal_order
from bmn.records.store.merged import Merged, Snapshot
from bmn.records.store.runs import (
    OBJECTIVES,
    RUN_STATUSES,
    STALE_SECONDS,
    Run,
    holder_alive,
    holder_name,
)
from bmn.records.store.schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, TABLES
from bmn.records.store.values import INT64_MAX, canonical_deal, now

__all__ = [
    "APPLICATION_ID",
    "BUSY_TIMEOUT_MS",
    "DEFAULT_PATH",
    "FIND_KEYS",
    "FIND_STATUSES",
    "IMPORT_KIND",
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
    "MergeRefused",
    "Merged",
    "QueryError",
    "Run",
    "RunHeld",
    "RunNotFound",
    "Snapshot",
    "Stored",
    "Store",
    "StoreDamaged",
    "StoreError",
    "StoreMissing",
    "bulk",
    "canonical_deal",
    "deal_order",
    "holder_alive",
    "holder_name",
    "now",
]


class Store(Imports):
    """A bmn record store in one SQLite file; opening checks it and brings its schema up to date.

    Writes are short transactions (BEGIN IMMEDIATE), so several processes can share a store.
    Its methods come from runs.py, finds.py, loops.py, checkpoints.py, merged.py and
    imported.py, over connection.py.
    """
