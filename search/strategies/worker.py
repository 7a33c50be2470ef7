"""A search worker's whole state as plain arrays, so a chunk can run anywhere and resume exactly.

The arrays are everything a chunk reads and writes: the current deal, the best deal, the
generator state, counters, the late-acceptance history and the hand sizes the deal is cut
into. `to_bytes`/`from_bytes` make the checkpoint blob the record store keeps.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numba import types

from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import STANDARD_DECK, even_sizes
from bmn.kernels.rng import seed_state
from bmn.kernels.score import DEAL, DEALS, NUMBERS, PLAY_EXACT, PLAY_FAST, SIZES

DECK_SIZE = len(STANDARD_DECK)
STANDARD_SIZES = even_sizes(DECK_SIZE, 2)  # 26/26: the two-player search
LOOP_FINDS = 4096  # finds one compiled loop may report before it returns early

# Slots of the counters array.
GAMES, CURRENT, BEST, BEST_CARDS, BEST_TRICKS, STALL, IMPROVEMENTS, STEP = range(8)
N_COUNTERS = 8

_I64 = types.int64
# A strategy's compiled chunk takes these (strategies/cpu.py; strategies/lanes.py adds its
# blocks' after them): the worker's arrays, its settings, the finds buffers, the kernel.
CHUNK_ARGUMENTS = (
    DEAL,  # deck
    DEAL,  # best
    types.Array(types.uint64, 1, "C"),  # rng
    SIZES,  # counters
    SIZES,  # history
    _I64,  # iterations
    _I64,  # objective
    _I64,  # keep_above
    _I64,  # patience
    DEALS,  # finds_decks
    NUMBERS,  # finds_meta
    SIZES,  # sizes
    PLAY_FAST,
    PLAY_EXACT,
)


@dataclass
class WorkerState:
    """One worker's search state; every field is a numpy array."""

    deck: np.ndarray  # uint8[n]: the current deal, hands concatenated in seat order
    best: np.ndarray  # uint8[n]: the best finished deal this worker has scored
    rng: np.ndarray  # uint64[4]: the generator state
    counters: np.ndarray  # int64[N_COUNTERS], slots named above
    history: np.ndarray  # int64[L]: late-acceptance history (length 1 when unused)
    sizes: np.ndarray  # int64[S]: hand sizes, seat 0 first (checkpoints before them: 26/26)

    def to_bytes(self) -> bytes:
        return arrays_blob(self)

    @classmethod
    def from_bytes(cls, blob: bytes) -> WorkerState:
        arrays = blob_arrays(cls, blob)
        arrays.setdefault("sizes", np.array(STANDARD_SIZES, dtype=np.int64))
        return cls(**arrays)


def arrays_blob(state: Any) -> bytes:
    """A checkpoint blob of a state whose every field is a numpy array (a CPU worker's, a GPU
    search's streams): every array, named, in numpy's own format."""
    buffer = io.BytesIO()
    np.savez(buffer, **{f.name: getattr(state, f.name) for f in fields(state)})
    return buffer.getvalue()


def blob_arrays(cls: type, blob: bytes) -> dict[str, np.ndarray]:
    """The arrays of `cls`'s fields that a checkpoint blob holds, by name (arrays_blob's)."""
    with np.load(io.BytesIO(blob)) as data:
        return {f.name: data[f.name].copy() for f in fields(cls) if f.name in data}


def new_worker(
    seed: int,
    worker: int,
    history: int = 1,
    sizes: Sequence[int] = STANDARD_SIZES,
    deck: Sequence[int] | np.ndarray = STANDARD_DECK,
) -> WorkerState:
    """A fresh worker: its own generator stream and a shuffled first deal, not yet scored.

    The deal is `deck` (penalty values; the standard deck by default) shuffled and cut into
    hands of `sizes`, seat 0 first. Every later deal is a permutation of it, so a worker
    searches the deck it starts with.
    """
    rng = seed_state(seed, stream=worker)
    rows, hands = random_deals(1, rng, deck=deck, sizes=sizes)
    deck = rows[0]
    counters = np.zeros(N_COUNTERS, dtype=np.int64)
    counters[CURRENT] = counters[BEST] = -1  # nothing scored yet
    scores = np.full(max(history, 1), -1, np.int64)
    return WorkerState(deck, deck.copy(), rng, counters, scores, hands[0].copy())


@dataclass
class LoopFinds:
    """Deals a chunk found worth keeping: rows of deck cards and their (cards, tricks, status)."""

    decks: np.ndarray  # uint8[LOOP_FINDS, width]
    meta: np.ndarray  # int64[LOOP_FINDS, 3]

    @classmethod
    def empty(cls, width: int = DECK_SIZE) -> LoopFinds:
        return cls(np.zeros((LOOP_FINDS, width), np.uint8), np.zeros((LOOP_FINDS, 3), np.int64))
