"""One-swap random walk: swap two cards of different value, score, always move on.

Neighbouring deals are almost unrelated in length, so the walk samples like random restart
while saving the cost of a full shuffle per deal.
"""

from __future__ import annotations

from numba import njit

from bmn.kernels.config import JIT
from bmn.search.strategies.moves import swap_two
from bmn.search.strategies.worker import CURRENT


@njit(**JIT)
def propose(deck, rng, counters) -> tuple[int, int, int]:
    i, j = swap_two(deck, rng)
    return 0, i, j


@njit(**JIT)
def settle(deck, move, score, counters, history, patience, rng) -> None:
    counters[CURRENT] = score


@njit(**JIT)
def speculate(deck, move) -> None:
    """The deal the next proposal starts from, whatever the score: this one (the walk moves on)."""
