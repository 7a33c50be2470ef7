"""Hill climbing with restarts: swap or move cards, keep equal or better deals, restart when stuck.

A move is (kind, a, b): kind 0 swaps positions a and b, kind 1 moves the card at a to b, and
kind -1 is no move (the first deal after a start or restart is scored as it is). A restart
comes after `patience` scored deals without an improvement.
"""

from __future__ import annotations

from numba import njit

from bmn.kernels.config import JIT
from bmn.kernels.rng import bounded, shuffle
from bmn.search.strategies.moves import move_card, swap_two
from bmn.search.strategies.worker import CURRENT, STALL


@njit(**JIT)
def propose(deck, rng, counters) -> tuple[int, int, int]:
    """A random swap or move, or none while the current deal is still unscored."""
    if counters[CURRENT] < 0:
        return -1, 0, 0
    if bounded(rng, 2) == 0:
        i, j = swap_two(deck, rng)
        return 0, i, j
    src = bounded(rng, deck.shape[0])
    dst = bounded(rng, deck.shape[0] - 1)
    if dst >= src:  # any position but its own
        dst += 1
    move_card(deck, src, dst)
    return 1, src, dst


@njit(**JIT)
def undo(deck, move) -> None:
    kind, a, b = move
    if kind == 0:
        deck[a], deck[b] = deck[b], deck[a]
    elif kind == 1:
        move_card(deck, b, a)


@njit(**JIT)
def speculate(deck, move) -> None:
    """The deal the next proposal starts from if this one is turned down: the current one
    (late acceptance's too). The lane-fed loop proposes ahead on that guess."""
    undo(deck, move)


@njit(**JIT)
def settle(deck, move, score, counters, history, patience, rng) -> None:
    """Keep a better deal; keep an equal one (sideways); undo a worse one; restart if stuck."""
    if move[0] < 0 or score > counters[CURRENT]:
        counters[CURRENT] = score
        counters[STALL] = 0
        return
    counters[STALL] += 1
    if score < counters[CURRENT]:
        undo(deck, move)
    if counters[STALL] >= patience:  # stuck on an optimum: start again from a new deal
        shuffle(deck, rng)
        counters[CURRENT] = -1
