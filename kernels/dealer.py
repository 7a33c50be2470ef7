"""Random deals: the one dealer, on the explicit generator state of kernels/rng.py.

Every random deal bmn makes (the bench, selfcheck, stats, the loop hunt, `bmn deal`, a search
worker's first deal) comes from `random_deals`, so a seed reproduces it and a checkpointed
generator state resumes it. Each deal is a fresh Fisher-Yates shuffle of the deck, so the deals
drawn in two calls are those of one call for both: batches can be cut anywhere.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import numpy as np
from numba import njit

from bmn.kernels.config import JIT, MAX_SEATS, MIN_SEATS
from bmn.kernels.deal import Deal, DealError, decode
from bmn.kernels.decks import STANDARD_DECK, even_sizes
from bmn.kernels.rng import seed_state, shuffle


@njit(**JIT)
def _shuffles(n: int, deck: np.ndarray, state: np.ndarray) -> np.ndarray:
    """n shuffles of deck, one per row; `state` advances."""
    out = np.empty((n, deck.shape[0]), dtype=np.uint8)
    for i in range(n):
        # Card by card: a row assignment brings numpy's shape-mismatch error into the
        # function, whose message formatting costs seconds of a first compile.
        for k in range(deck.shape[0]):
            out[i, k] = deck[k]
        shuffle(out[i], state)
    return out


@njit(**JIT)
def _deal_round(rows: np.ndarray, seats: int) -> None:
    """Each row, a deck top card first, dealt one card at a time from seat 0 round the table,
    rewritten in place as its hands in seat order (seat s gets cards s, s + seats, ...)."""
    deck = np.empty(rows.shape[1], dtype=np.uint8)
    for i in range(rows.shape[0]):
        for k in range(deck.shape[0]):  # card by card, as in _shuffles
            deck[k] = rows[i, k]
        at = 0
        for seat in range(seats):
            for k in range(seat, deck.shape[0], seats):
                rows[i, at] = deck[k]
                at += 1


def random_deals(
    n: int,
    state: np.ndarray,
    seats: int = 2,
    deck: Sequence[int] | np.ndarray = STANDARD_DECK,
    sizes: Sequence[int] | np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """n random deals of `deck` (penalty values), as rows and hand sizes for kernels/score.py.

    Without `sizes`, each shuffled deck is dealt one card at a time from seat 0 into `seats`
    hands (as even as possible, seat 0 first); with `sizes`, (S,) for every deal or (n, S) one
    row per deal, it is cut into hands of those sizes, seat 0 first. Returns (uint8 (n, W)
    rows: hands concatenated in seat order, int64 (n, S) hand sizes); `state` (a
    rng.seed_state array) advances.
    """
    cards = np.ascontiguousarray(deck, dtype=np.uint8)
    rows = _shuffles(n, cards, state)
    if sizes is None:
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise DealError(f"players must be {MIN_SEATS} to {MAX_SEATS}, got {seats}")
        _deal_round(rows, seats)
        sizes = even_sizes(len(cards), seats)
    hands = np.broadcast_to(np.asarray(sizes, dtype=np.int64), (n, np.shape(sizes)[-1]))
    if hands.size and (hands.min() < 0 or np.any(hands.sum(axis=1) != len(cards))):
        raise DealError(f"hand sizes must be >= 0 and add up to the {len(cards)} cards dealt")
    return rows, np.ascontiguousarray(hands)


def shuffled_deal(players: int = 2, seed: int | None = None) -> Deal:
    """Shuffle the standard deck and deal it round the table (seed None: a fresh seed)."""
    state = seed_state(secrets.randbits(64) if seed is None else seed)
    rows, sizes = random_deals(1, state, players)
    return decode(rows[0], sizes[0])
