"""Every deal of a deck, numbered: a deck as counts per penalty value, its arrangements, and the
rank of each arrangement.

A deal's card sequence is its hands concatenated, seat 0's hand first, each top card first (the
row every kernel scores). Its **rank** is its position, counting from 0, among every distinct
sequence of the deck's cards in lexicographic order, numeral < J < Q < K < A: rank 0 has every
numeral first and the aces last, the last rank (arrangements - 1) the reverse. Ranks of the
standard deck (6.5e20 sequences) exceed 64 bits, so ranking and unranking are Python ints,
done once per chunk; the enumeration itself steps from one sequence to the next in compiled code
(`next_arrangement`, the next permutation of a multiset), so no deal is unranked on its own.

A second numbering, **camicia's** (FraSanga/camicia, the numbers of camicia.dev), orders the
same sequences lexicographically with the symbols the other way round, A < K < Q < J < numeral:
its rank 0 is AAAAKKKK...---, and it deals the sequence's first half to the player who leads.
For sequences of one length, reversing the symbols' order reverses the lexicographic order
(the first place two sequences differ decides both, each the other way), so a sequence's
camicia rank is arrangements - 1 - its bmn rank: `rank_in` and `unrank_in` number a deal in
either order.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import factorial

import numpy as np
from numba import njit

from bmn.kernels.config import JIT
from bmn.kernels.deal import Deal, decode
from bmn.kernels.decks import STANDARD_COUNTS, counts_of, deck_of, even_sizes


def arrangements(counts: Sequence[int]) -> int:
    """How many distinct card sequences the deck has: the multinomial n! / (c0! c1! ... c4!)."""
    total = factorial(sum(counts))
    for n in counts:
        total //= factorial(n)
    return total


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


RANK_ORDERS = ("bmn", "camicia")  # numeral < J < Q < K < A; and A < K < Q < J < numeral


def rank_in(order: str, cards: Sequence[int]) -> int:
    """The rank of a card sequence among its deck's in `order` (one of RANK_ORDERS)."""
    rank = rank_of(cards)
    if _order(order) == "camicia":
        return arrangements(counts_of(cards)) - 1 - rank
    return rank


def unrank_in(order: str, rank: int, counts: Sequence[int]) -> np.ndarray:
    """The card sequence of `rank` in `order` (one of RANK_ORDERS); ValueError for a rank
    outside 0 to arrangements - 1."""
    if _order(order) == "camicia":
        total = arrangements(counts)
        if not 0 <= rank < total:
            raise ValueError(f"rank {rank} is outside the deck's 0 to {total - 1}")
        rank = total - 1 - rank
    return unrank(rank, counts)


def numbered_standard(order: str, rank: int, players: int) -> Deal:
    """The standard deal numbered `rank` in `order`, cut evenly into `players` hands, seat 0
    first; ValueError for camicia's numbers with other than two players, or a rank outside
    the deck's."""
    if _order(order) == "camicia" and players != 2:
        raise ValueError(f"camicia numbers two-player deals, not {players}")
    cards = unrank_in(order, rank, STANDARD_COUNTS)
    return decode(cards, even_sizes(len(cards), players))


def _order(order: str) -> str:
    if order not in RANK_ORDERS:
        raise ValueError(f"rank order {order!r} is not one of {', '.join(RANK_ORDERS)}")
    return order


def _multinomial(n: int, counts: Sequence[int]) -> int:
    """n! / prod(c!) for counts adding up to n."""
    total = factorial(n)
    for c in counts:
        total //= factorial(c)
    return total


def first_of(counts: Sequence[int]) -> np.ndarray:
    """The sequence of rank 0: the cards in value order."""
    return np.array(deck_of(counts), dtype=np.uint8)


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
