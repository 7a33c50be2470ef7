"""Finds stored in bulk: the short finished games of one search chunk, packed in one row.

A low --keep-above makes every deal a search scores a find, millions a minute. An indexed
row each (the finds table) costs SQLite tens of microseconds a find, far more than the
kernel spends on a game, so a search stores the finds that finish in fewer than BULK_BELOW
cards (none is a record, and nobody ranks them one by one) as one row of the find_batches
table per chunk: the deals packed two cards a byte, each deal's cards and
tricks as two 16-bit numbers, about 30 bytes a find in all. The store reads them back as
finds like any other (top, show, export, a run's finds). Within a run a deal scored twice is
kept twice in bulk (a row of the finds table is kept once).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from bmn.kernels.deal import deal_texts

BULK_BELOW = 3000  # cards: a finished find shorter than this may go into bulk (the default
# --keep-above; 16-bit figures hold it)
FIGURES = np.dtype("<u2")  # cards, then tricks, of each find

CREATE = (
    """CREATE TABLE find_batches (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs (id),
        stream INTEGER NOT NULL,
        first_game INTEGER NOT NULL,
        sizes TEXT NOT NULL,
        seats INTEGER NOT NULL,
        strategy TEXT NOT NULL,
        found_at TEXT NOT NULL,
        elapsed REAL NOT NULL,
        count INTEGER NOT NULL,
        best_cards INTEGER NOT NULL,
        best_tricks INTEGER NOT NULL,
        figures BLOB NOT NULL,
        decks BLOB NOT NULL,
        UNIQUE (run_id, stream, first_game)
    )""",
    "CREATE INDEX find_batches_by_cards ON find_batches (best_cards DESC)",
    "CREATE INDEX find_batches_by_tricks ON find_batches (best_tricks DESC)",
)
# A batch's columns, in the order `Batch` takes them; the blobs last, so a query that does not
# ask for them never reads their pages.
COLUMNS = "run_id, strategy, found_at, elapsed, sizes, count, figures, decks"


@dataclass(frozen=True)
class Bulk:
    """Finds of one chunk of a stream, to be stored as a batch: `first_game` (the stream's
    games before the chunk) keys the batch in its run, so a batch stored twice is stored once."""

    stream: int
    first_game: int
    elapsed: float  # seconds into the run at the commit that stores it
    sizes: tuple[int, ...]
    decks: np.ndarray  # uint8[n, cards]: each deal, hands concatenated
    figures: np.ndarray  # [n, 2]: cards and tricks of each deal


def in_bulk(meta: np.ndarray, finished: int) -> np.ndarray:
    """Which finds (rows of cards, tricks, status) go into bulk: those that finish short."""
    return (meta[:, 2] == finished) & (meta[:, 0] < BULK_BELOW)


def pack_decks(decks: np.ndarray) -> bytes:
    """Rows of penalty values (0 to 4), two a byte, high nibble first (an odd row is padded)."""
    rows = np.asarray(decks, dtype=np.uint8)
    if rows.shape[1] % 2:
        rows = np.pad(rows, ((0, 0), (0, 1)))
    return ((rows[:, 0::2] << 4) | rows[:, 1::2]).tobytes()


def unpack_decks(blob: bytes, count: int, width: int) -> np.ndarray:
    """The inverse of pack_decks: `count` rows of `width` cards."""
    packed = np.frombuffer(blob, dtype=np.uint8).reshape(count, -1)
    rows = np.empty((count, packed.shape[1] * 2), dtype=np.uint8)
    rows[:, 0::2], rows[:, 1::2] = packed >> 4, packed & 15
    return rows[:, :width]


def insert(
    db: sqlite3.Connection, run_id: int, strategy: str, stamp: str, bulks: Sequence[Bulk]
) -> int:
    """Store `bulks` as batches of run `run_id`; returns how many finds were new."""
    rows = [
        (
            run_id,
            b.stream,
            b.first_game,
            "/".join(map(str, b.sizes)),
            len(b.sizes),
            strategy,
            stamp,
            b.elapsed,
            len(b.decks),
            int(b.figures[:, 0].max()),
            int(b.figures[:, 1].max()),
            b.figures.astype(FIGURES).tobytes(),
            pack_decks(b.decks),
        )
        for b in bulks
        if len(b.decks)
    ]
    added = 0
    for row in rows:  # one at a time: a batch already stored (INSERT OR IGNORE) adds nothing
        cursor = db.execute(
            "INSERT OR IGNORE INTO find_batches (run_id, stream, first_game, sizes, seats,"
            " strategy, found_at, elapsed, count, best_cards, best_tricks, figures, decks)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            row,
        )
        added += row[8] if cursor.rowcount == 1 else 0
    return added


@dataclass(frozen=True)
class Batch:
    """One stored batch, unpacked on demand."""

    run_id: int
    strategy: str
    found_at: str
    elapsed: float
    sizes: str
    count: int
    figures_blob: bytes
    decks_blob: bytes

    @property
    def figures(self) -> np.ndarray:
        """[count, 2] int64: cards and tricks."""
        return np.frombuffer(self.figures_blob, dtype=FIGURES).reshape(-1, 2).astype(np.int64)

    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(int(n) for n in self.sizes.split("/"))

    def decks(self) -> np.ndarray:
        return unpack_decks(self.decks_blob, self.count, sum(self.hand_sizes()))

    def rows(self, which: np.ndarray | None = None) -> list[tuple]:
        """Finds as tuples in the store's find column order (deal, cards, tricks, status,
        run, found_at, strategy, elapsed); `which` picks some (a mask or indices)."""
        figures, decks = self.figures, self.decks()
        if which is not None:
            figures, decks = figures[which], decks[which]
        texts = deal_texts(decks, self.hand_sizes())
        fixed = ("finished", self.run_id, self.found_at, self.strategy, self.elapsed)
        return [(deal, c, t, *fixed) for deal, (c, t) in zip(texts, figures.tolist(), strict=True)]


def batches(
    db: sqlite3.Connection, where: str = "1", params: Sequence = (), order: str = "id"
) -> Iterator[Batch]:
    """Stored batches matching an SQL condition, one at a time (a batch may hold a million
    finds: never all at once)."""
    sql = f"SELECT id FROM find_batches WHERE {where} ORDER BY {order}"
    for (batch_id,) in db.execute(sql, params).fetchall():
        row = db.execute(f"SELECT {COLUMNS} FROM find_batches WHERE id = ?", (batch_id,))
        yield Batch(*row.fetchone())
