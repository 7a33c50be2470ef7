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


def add_old_cycle(conn: sqlite3.Connection, run_id: int, deal: str, times_seen: int = 1) -> dict:
    """The cycle `deal` falls into under bmn's rules, as a row of the loops table before
    schema version 8 (no rule set: every cycle was bmn's); the row's values."""
    from samples import hunted_cycle

    cycle = hunted_cycle(deal)  # as a hunt found it (its basin: 2,670 states, the whole)
    row = {
        **{"key": cycle.key, "rotation_key": cycle.rotation_key, "deck": cycle.deck},
        **{"period_cards": cycle.period_cards, "period_tricks": cycle.period_tricks},
        **{"cycle_states": cycle.cycle_states, "balanced_states": cycle.balanced_states},
        **{"balanced_reachable": 1, "balanced_deals": cycle.balanced_deals},
        **{"mirrored_balanced_deals": cycle.mirrored_balanced_deals},
        **{"basin_states": cycle.basin_states, "basin_complete": int(cycle.basin_complete)},
        **{"example_deal": cycle.example_deal, "first_deal": deal, "run_id": run_id},
        **{"found_at": STAMP, "times_seen": times_seen},
    }
    conn.execute(
        f"INSERT INTO loops ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        list(row.values()),
    )
    return row


def tamper_first_batch(path) -> None:
    """One more card on the first find of the first bulk batch (a find that does not replay),
    as a hand edit of the blob would leave it."""
    import struct

    conn = sqlite3.connect(path)
    batch, figures = conn.execute("SELECT id, figures FROM find_batches LIMIT 1").fetchone()
    data = bytearray(figures)
    struct.pack_into("<H", data, 0, struct.unpack_from("<H", data, 0)[0] + 1)
    conn.execute("UPDATE find_batches SET figures = ? WHERE id = ?", (bytes(data), batch))
    conn.commit()
    conn.close()
