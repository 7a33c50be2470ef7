"""Every deal of a deck, numbered: a deck as counts per penalty value, its arrangements, and the
rank of each arrangement.

A deal's card sequence is its hands concatenated, seat 0's hand first, each top card first (the
row every kernel scores). Its **rank** is its position, counting from 0, among every distinct
sequence of the deck's cards in lexicographic order, numeral < J < Q < K < A: rank 0 has every
numeral first and the aces last, the last rank (arrangements - 1) the reverse. Ranks of the
standard deck (6.5e20 sequences) exceed 64 bits, so ranking and unranking are Python ints,
done once per chunk; the enumeration itself steps from one sequence to the next in compiled code
(`next_arrangement`, the next permutation of a multiset), so no deal is unranked on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import factorial

import numpy as np
from numba import njit

from bmn.kernels.config import JIT
from bmn.kernels.deal import (
    MAX_SEATS,
    MIN_SEATS,
    STANDARD_COUNTS,
    VALUE_SYMBOL,
    Counts,
    DealError,
    counts_of,
    counts_text,
    deck_of,
    even_sizes,
    parse_counts,
)

MAX_CARDS = 64  # the compiled kernels' limit: one uint64 mask per hand (kernels/score.py)
MAX_HAND = 63  # a hand's mask keeps a sentinel bit past its bottom card


class DeckInputError(DealError):
    """A deck, hand sizes or rank range a run cannot take; `option` names the setting
    ('deck', 'hand_sizes', 'from_rank', 'to_rank') as the command line's parameter."""

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option


def check_deck(
    deck: str, hand_sizes: Sequence[int] | None, players: int = 2
) -> tuple[Counts, tuple[int, ...]]:
    """A run's deck counts and hand sizes: 'standard' or 'N,J,Q,K,A', dealt into `hand_sizes`
    or as evenly as possible over `players`, seat 0 first. DeckInputError naming the option
    otherwise (a bad default split is the deck's fault)."""
    try:
        counts = parse_deck(deck)
    except DealError as err:
        standard = f"or 'standard' ({counts_text(STANDARD_COUNTS)})"
        raise DeckInputError("deck", f"{err}, {standard}") from None
    sizes = hand_sizes or even_sizes(sum(counts), players)
    try:
        return counts, check_hand_sizes(counts, sizes)
    except DealError as err:
        raise DeckInputError("hand_sizes" if hand_sizes else "deck", str(err)) from None


def parse_deck(text: str) -> Counts:
    """A deck option as counts of numerals, J, Q, K, A: 'standard' or 'N,J,Q,K,A' (spaces
    anywhere ignored). DealError (a ValueError) for anything else or a deck of no card."""
    spec = "".join(text.split()).lower()
    if spec == "standard":
        return STANDARD_COUNTS
    counts = parse_counts(spec)
    if sum(counts) == 0:
        raise DealError(f"{text!r}: the deck has no card")
    return counts


def deck_spec(text: str) -> str:
    """A deck option as stored with a run: 'standard', or the counts without spaces."""
    counts = parse_deck(text)
    return "standard" if "".join(text.split()).lower() == "standard" else counts_text(counts)


def arrangements(counts: Sequence[int]) -> int:
    """How many distinct card sequences the deck has: the multinomial n! / (c0! c1! ... c4!)."""
    total = factorial(sum(counts))
    for n in counts:
        total //= factorial(n)
    return total


def check_hand_sizes(counts: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...]:
    """The hand sizes, checked against the deck and the compiled kernels; DealError naming
    what is wrong otherwise."""
    sizes = tuple(int(n) for n in sizes)
    cards = sum(counts)
    if not MIN_SEATS <= len(sizes) <= MAX_SEATS:
        raise DealError(f"{len(sizes)} hand sizes given: a deal has {MIN_SEATS} to {MAX_SEATS}")
    if min(sizes) < 0 or sum(sizes) != cards:
        raise DealError(
            f"hand sizes {','.join(map(str, sizes))} add up to {sum(sizes)}; the deck"
            f" {counts_text(counts)} has {cards} cards"
        )
    if cards > MAX_CARDS or max(sizes) > MAX_HAND:
        raise DealError(
            f"the deck {counts_text(counts)} has {cards} cards; the compiled kernels play at most"
            f" {MAX_CARDS} cards, {MAX_HAND} in one hand"
        )
    return sizes


def rank_of(cards: Sequence[int]) -> int:
    """The rank of a card sequence (penalty values, hands concatenated) among its deck's."""
    left = list(counts_of(cards))
    n = len(cards)
    rank = 0
    for card in cards:
        # Sequences that put a smaller card here come first: count them, card value by value.
        for smaller in range(int(card)):
            if left[smaller]:
                left[smaller] -= 1
                rank += _multinomial(n - 1, left)
                left[smaller] += 1
        left[card] -= 1
        n -= 1
    return rank


def unrank(rank: int, counts: Sequence[int]) -> np.ndarray:
    """The card sequence of `rank` among the deck's (uint8 penalty values); ValueError for a
    rank outside 0 to arrangements - 1."""
    total = arrangements(counts)
    if not 0 <= rank < total:
        raise ValueError(f"rank {rank} is outside the deck's 0 to {total - 1}")
    left = list(counts)
    n = sum(counts)
    out = np.empty(n, dtype=np.uint8)
    for at in range(n):
        for value in range(len(left)):
            if not left[value]:
                continue
            left[value] -= 1
            block = _multinomial(n - at - 1, left)
            if rank < block:
                out[at] = value
                break
            rank -= block
            left[value] += 1
    return out


def _multinomial(n: int, counts: Sequence[int]) -> int:
    """n! / prod(c!) for counts adding up to n."""
    total = factorial(n)
    for c in counts:
        total //= factorial(c)
    return total


def first_of(counts: Sequence[int]) -> np.ndarray:
    """The sequence of rank 0: the cards in value order."""
    return np.array(deck_of(counts), dtype=np.uint8)


def describe(counts: Sequence[int]) -> str:
    """A deck in words: '20 cards (14 numerals, 2 J, 2 Q, 2 K)'."""
    parts = [f"{counts[0]} numerals"] + [
        f"{n} {VALUE_SYMBOL[v]}" for v, n in enumerate(counts) if v and n
    ]
    return f"{sum(counts)} cards ({', '.join(parts)})"


@njit(**JIT)
def next_arrangement(cards: np.ndarray) -> bool:
    """Step `cards` in place to the next sequence in lexicographic order (the next permutation
    of a multiset); False, leaving it unchanged, when it is the last."""
    n = cards.shape[0]
    i = n - 2
    while i >= 0 and cards[i] >= cards[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while cards[j] <= cards[i]:
        j -= 1
    v = cards[i]
    cards[i] = cards[j]
    cards[j] = v
    lo, hi = i + 1, n - 1
    while lo < hi:  # the suffix was in descending order: reversed, it is the smallest
        v = cards[lo]
        cards[lo] = cards[hi]
        cards[hi] = v
        lo += 1
        hi -= 1
    return True
