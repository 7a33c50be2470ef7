"""Stores as older bmn releases wrote them, for the tests that upgrade them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bmn.records.store import Store, schema

STAMP = "2026-01-01T00:00:00Z"


def old_store(path: Path, version: int) -> sqlite3.Connection:
    """A new store at schema `version` (its first migrations only), opened with plain sqlite3
    so the test can write rows as that release did; the caller closes it."""
    with pytest.MonkeyPatch.context() as old:
        old.setattr(schema, "MIGRATIONS", schema.MIGRATIONS[:version])
        old.setattr(schema, "SCHEMA_VERSION", version)
        with Store(path) as db:
            assert db.version == version
    return sqlite3.connect(path, isolation_level=None)


def add_old_run(
    conn: sqlite3.Connection, strategy: str, objective: str, seed: int = 1, params: str = "{}"
) -> int:
    """A run row with only the columns the first release wrote; its number."""
    return conn.execute(
        "INSERT INTO runs (started_at, updated_at, strategy, objective, seed, params)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (STAMP, STAMP, strategy, objective, seed, params),
    ).lastrowid
