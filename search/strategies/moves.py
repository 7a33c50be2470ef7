"""Compiled pieces every strategy shares: keep finds, track the best deal, the moves (swap two
cards, move one).

A deal is scored by a kernel's per-deal functions (the interface in kernels/cpu/two.py), passed
in as first-class functions (kernels/score.py's types and score_deck): a search over 3 or 4 seats
passes another kernel's functions and hand sizes, and the same compiled loop runs it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bmn.kernels.config import FINISHED, INLINE_JIT, JIT, LOOP
from bmn.kernels.rng import cpu_lemire, lemire
from bmn.kernels.rules.targets import compile_for
from bmn.search.strategies.worker import BEST, BEST_CARDS, BEST_TRICKS, IMPROVEMENTS

OBJECTIVES = ("cards", "tricks")


@njit(**JIT)
def record(
    deck, score, cards, tricks, status, keep_above, best, counters, finds_decks, finds_meta, n_finds
) -> int:
    """Track this worker's best deal and keep finds; returns the new count of finds.

    A find is every improvement on the worker's best, every deal of at least `keep_above`
    cards and every loop. Improvements depend only on the worker's own sequence, so the
    finds of a resumed run are exactly those of an uninterrupted one. The best is the longest
    finished game, as the enumeration's (search/enumeration/cpu.py): a loop's figures say
    where it repeats, not how long it is, and small decks loop often.
    """
    improved = status == FINISHED and score > counters[BEST]
    # Rows copied card by card here: a slice assignment brings numpy's shape-mismatch error
    # into the function, whose message formatting costs seconds of a first compile.
    if improved:
        for k in range(deck.shape[0]):
            best[k] = deck[k]
        counters[BEST] = score
        counters[BEST_CARDS] = cards
        counters[BEST_TRICKS] = tricks
        counters[IMPROVEMENTS] += 1
    if (improved or cards >= keep_above or status == LOOP) and n_finds < finds_meta.shape[0]:
        for k in range(deck.shape[0]):
            finds_decks[n_finds, k] = deck[k]
        finds_meta[n_finds, 0] = cards
        finds_meta[n_finds, 1] = tricks
        finds_meta[n_finds, 2] = status
        n_finds += 1
    return n_finds


def swap_distinct(deck, s0, s1, s2, s3):
    """Swap two cards of different value: (the positions, the next generator state). The deck
    holds two values at least (a search refuses a deck of one value: it has a single deal).

    Plain Python, compiled here for the CPU and by search/strategies/cuda/kernels.py for the
    GPU, so a device stream makes exactly a CPU worker's moves.
    """
    n = deck.shape[0]
    i, s0, s1, s2, s3 = lemire(n, s0, s1, s2, s3)
    j, s0, s1, s2, s3 = lemire(n, s0, s1, s2, s3)
    while deck[i] == deck[j]:
        j, s0, s1, s2, s3 = lemire(n, s0, s1, s2, s3)
    v = deck[i]
    deck[i] = deck[j]
    deck[j] = v
    return i, j, s0, s1, s2, s3


(_swap_distinct,) = compile_for((swap_distinct,), njit(**INLINE_JIT), lemire=cpu_lemire)


@njit(**JIT)
def swap_two(deck: np.ndarray, rng: np.ndarray) -> tuple[int, int]:
    """Swap two cards of different value; returns the positions (swap again to undo)."""
    i, j, s0, s1, s2, s3 = _swap_distinct(deck, rng[0], rng[1], rng[2], rng[3])
    rng[0], rng[1], rng[2], rng[3] = s0, s1, s2, s3
    return i, j


@njit(**JIT)
def move_card(deck: np.ndarray, src: int, dst: int) -> None:
    """Take the card at `src` out and put it back at `dst`, shifting the cards between."""
    card = deck[src]
    if src < dst:
        for k in range(src, dst):
            deck[k] = deck[k + 1]
    else:
        for k in range(src, dst, -1):
            deck[k] = deck[k - 1]
    deck[dst] = card
