"""Late-acceptance hill climbing: accept a deal no worse than the current one or than the
current score `L` steps ago (history length L), so the search can cross shallow valleys.

Moves are hill climbing's (search/strategies/climb.py)."""

from __future__ import annotations

from numba import njit

from bmn.kernels.config import JIT
from bmn.search.strategies.climb import undo
from bmn.search.strategies.worker import CURRENT, STEP


@njit(**JIT)
def settle(deck, move, score, counters, history, patience, rng) -> None:
    if move[0] < 0:  # the first deal fills the history
        history[:] = score
        counters[CURRENT] = score
        return
    slot = counters[STEP] % history.shape[0]
    if score >= counters[CURRENT] or score >= history[slot]:
        counters[CURRENT] = score
    else:
        undo(deck, move)
    history[slot] = counters[CURRENT]
    counters[STEP] += 1
