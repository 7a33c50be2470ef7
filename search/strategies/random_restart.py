"""Random restart: every deal scored is a fresh shuffle."""

from __future__ import annotations

from numba import njit

from bmn.kernels.config import JIT
from bmn.kernels.rng import shuffle
from bmn.search.strategies.worker import CURRENT


@njit(**JIT)
def propose(deck, rng, counters) -> tuple[int, int, int]:
    shuffle(deck, rng)
    return -1, 0, 0


@njit(**JIT)
def settle(deck, move, score, counters, history, patience, rng) -> None:
    counters[CURRENT] = score


@njit(**JIT)
def speculate(deck, move) -> None:
    """The deal the next proposal starts from, whatever the score: this one (shuffled again)."""
