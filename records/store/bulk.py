"""Finds stored in bulk: the short finished games of one search chunk, packed in one row.

A low --keep-above makes every deal a search scores a find, millions a minute. An indexed
row each (the finds table) costs SQLite tens of microseconds a find, far more than the
kernel spends on a game, so a search stores the finds that finish in fewer than BULK_BELOW
cards (none is a record, and nobody ranks them one by one) as one row of the find_batches
table per chunk: the deals packed two cards a byte, each deal's cards and
tricks as two 16-bit numbers, about 30 bytes a find in all. The store reads them back as
finds like any other (top, show, export, a run's finds). Within a run a deal scored twice is
kept twice in bulk (a row of the finds table is kept once).

This module packs and unpacks only; finds.py stores and reads the batches (the store's SQL).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bmn.kernels.deal import deal_texts

if TYPE_CHECKING:
    from bmn.records.store.values import Row

BULK_BELOW = 3000  # cards: a finished find shorter than this may go into bulk (the default
# --keep-above; 16-bit figures hold it)
FIGURES = np.dtype("<u2")  # cards, then tricks, of each find


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


def pack(b: Bulk) -> dict[str, Any]:
    """A bulk's values for its row of find_batches (all but the run's: run_id, strategy and
    found_at), the figures and decks packed into blobs."""
    return {
        "stream": b.stream,
        "first_game": b.first_game,
        "sizes": "/".join(map(str, b.sizes)),
        "seats": len(b.sizes),
        "elapsed": b.elapsed,
        "count": len(b.decks),
        "best_cards": int(b.figures[:, 0].max()),
        "best_tricks": int(b.figures[:, 1].max()),
        "figures": b.figures.astype(FIGURES).tobytes(),
        "decks": pack_decks(b.decks),
    }


@dataclass(frozen=True)
class Batch:
    """One stored batch, as its row of find_batches holds it, unpacked on demand."""

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

    def checked(self, row: Row) -> Batch:
        """This batch, once its blobs are found to hold `count` finds of its hand sizes and
        its deals only card values 0 to 4 (StoreDamaged from `row` otherwise)."""
        width = sum(self.hand_sizes())
        row.blob("figures", self.figures_blob, self.count * FIGURES.itemsize * 2)
        row.blob("decks", self.decks_blob, self.count * ((width + 1) // 2))
        nibbles = np.frombuffer(self.decks_blob, dtype=np.uint8)
        if len(nibbles) and max(int((nibbles >> 4).max()), int((nibbles & 15).max())) > 4:
            raise row.bad("decks", "holds a card value past 4 (an ace)")
        return self

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
