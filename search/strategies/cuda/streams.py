"""A GPU search's streams as host arrays: the checkpoint of the device search (host.py).

Each stream is the device twin of a CPU search worker (search/strategies/worker.py): its
xoshiro256** state, its current deal, its best deal and its counters. Nothing here needs a GPU:
the arrays are made, saved and restored on the host.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from numba import njit

from bmn.kernels.config import JIT
from bmn.kernels.decks import STANDARD_DECK
from bmn.kernels.rng import shuffle
from bmn.search.strategies.worker import arrays_blob, blob_arrays

DECK = 52
HAND = 26

# Slots of a stream's counters.
GAMES, CURRENT, BEST, BEST_CARDS, BEST_TRICKS, IMPROVEMENTS, SUM_CARDS, SUM_TRICKS = range(8)
N_COUNTERS = 8
# Columns of a find's figures.
F_CARDS, F_TRICKS, F_STATUS, F_STREAM, F_GAME = range(5)


@dataclass
class Streams:
    """Every stream's state as host arrays, one row per stream (and per GPU thread)."""

    rng: np.ndarray  # uint64 (n, 4): xoshiro256** states
    deck: np.ndarray  # uint8 (n, 52): the current deal, hand 0 then hand 1
    best: np.ndarray  # uint8 (n, 52): the best deal the stream has scored
    counters: np.ndarray  # int64 (n, N_COUNTERS), slots named above

    def __len__(self) -> int:
        return len(self.rng)

    @classmethod
    def new(cls, seed: int, n: int, first: int = 0) -> Streams:
        """Streams first..first+n-1 of a seed, each as search/strategies/worker.new_worker(seed,
        stream): the generator of kernels/rng.seed_state(seed, stream) and a first shuffled
        deal."""
        rng = seed_states(seed, np.arange(first, first + n, dtype=np.uint64))
        deck = np.tile(np.array(STANDARD_DECK, dtype=np.uint8), (n, 1))
        _shuffle_rows(deck, rng)
        counters = np.zeros((n, N_COUNTERS), dtype=np.int64)
        counters[:, CURRENT] = counters[:, BEST] = -1  # nothing scored yet
        return cls(rng, deck, deck.copy(), counters)

    def copy(self) -> Streams:
        return Streams(*(getattr(self, f.name).copy() for f in fields(self)))

    def to_bytes(self) -> bytes:
        return arrays_blob(self)

    @classmethod
    def from_bytes(cls, blob: bytes) -> Streams:
        return cls(**blob_arrays(cls, blob))

    def best_stream(self) -> int:
        """The stream holding the best score (the first of equals)."""
        return int(np.argmax(self.counters[:, BEST]))


@dataclass
class LaunchFinds:
    """Deals of at least keep_above cards (and proven loops), in (stream, game) order."""

    decks: np.ndarray  # uint8 (n, 52)
    figures: np.ndarray  # int64 (n, 5): cards, tricks, status, stream, game (1-based)

    def __len__(self) -> int:
        return len(self.decks)


def seed_states(seed: int, streams: np.ndarray) -> np.ndarray:
    """kernels/rng.seed_state(seed, stream) for many streams at once, (n, 4) uint64."""
    mask = 2**64 - 1
    base = np.uint64((int(seed) * 0x9E3779B97F4A7C15) & mask)
    x = base + streams.astype(np.uint64) * np.uint64(0xD1B54A32D192ED03)  # arrays wrap silently
    state = np.empty((len(streams), 4), dtype=np.uint64)
    for i in range(4):  # splitmix64
        x = x + np.uint64(0x9E3779B97F4A7C15)
        z = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        state[:, i] = z ^ (z >> np.uint64(31))
    return state


@njit(**JIT)
def _shuffle_rows(decks: np.ndarray, rng: np.ndarray) -> None:
    for i in range(decks.shape[0]):
        shuffle(decks[i], rng[i])
