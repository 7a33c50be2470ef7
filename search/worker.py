"""A search worker's whole state as plain arrays, so a chunk can run anywhere and resume exactly.

The arrays are everything a chunk reads and writes: the current deal, the best deal, the
generator state, counters and the late-acceptance history. `to_bytes`/`from_bytes` make the
checkpoint blob the record store keeps.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, fields

import numpy as np

from bmn.kernels.deal import STANDARD_DECK
from bmn.kernels.rng import seed_state, shuffle

DECK_SIZE = 52
HAND_SIZE = 26
MAX_FINDS = 256  # finds one chunk may report before it returns early

# Slots of the counters array.
GAMES, CURRENT, BEST, BEST_CARDS, BEST_TRICKS, STALL, IMPROVEMENTS, STEP = range(8)
N_COUNTERS = 8


@dataclass
class WorkerState:
    """One worker's search state; every field is a numpy array."""

    deck: np.ndarray  # uint8[52]: the current deal, hand 0 then hand 1
    best: np.ndarray  # uint8[52]: the best deal this worker has scored
    rng: np.ndarray  # uint64[4]: the generator state
    counters: np.ndarray  # int64[N_COUNTERS], slots named above
    history: np.ndarray  # int64[L]: late-acceptance history (length 1 when unused)

    def to_bytes(self) -> bytes:
        """The checkpoint blob: every array, named, in numpy's own format."""
        buffer = io.BytesIO()
        np.savez(buffer, **{f.name: getattr(self, f.name) for f in fields(self)})
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, blob: bytes) -> WorkerState:
        with np.load(io.BytesIO(blob)) as data:
            return cls(**{f.name: data[f.name].copy() for f in fields(cls)})


def new_worker(seed: int, worker: int, history: int = 1) -> WorkerState:
    """A fresh worker: its own generator stream and a shuffled first deal, not yet scored."""
    rng = seed_state(seed, stream=worker)
    deck = np.array(STANDARD_DECK, dtype=np.uint8)
    shuffle(deck, rng)
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    counters[CURRENT] = counters[BEST] = -1  # nothing scored yet
    return WorkerState(deck, deck.copy(), rng, counters, np.full(max(history, 1), -1, np.int64))


@dataclass
class Finds:
    """Deals a chunk found worth keeping: rows of 52 cards and their (cards, tricks, status)."""

    decks: np.ndarray  # uint8[MAX_FINDS, 52]
    meta: np.ndarray  # int64[MAX_FINDS, 3]

    @classmethod
    def empty(cls) -> Finds:
        return cls(np.zeros((MAX_FINDS, DECK_SIZE), np.uint8), np.zeros((MAX_FINDS, 3), np.int64))
