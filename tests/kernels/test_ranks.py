"""Ranks of a deck's deals (kernels/ranks.py): rank and unrank are inverses, the first and last
ranks are the sorted and reversed decks, the count is the multinomial, and the compiled step
walks exactly itertools' sorted order of the distinct arrangements."""

import itertools
from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bmn.kernels.deal import DealError
from bmn.kernels.decks import (
    STANDARD_COUNTS,
    check_hand_sizes,
    deck_of,
    deck_spec,
    even_sizes,
    parse_deck,
)
from bmn.kernels.ranks import arrangements, first_of, next_arrangement, rank_of, unrank

SMALL = [(3, 1, 1, 1, 0), (2, 2, 0, 1, 1), (4, 0, 0, 0, 2), (1, 1, 1, 1, 1), (0, 0, 3, 0, 0)]


def sorted_arrangements(counts):
    return sorted(set(itertools.permutations(deck_of(counts))))


@pytest.mark.parametrize("counts", SMALL)
def test_rank_is_the_place_in_sorted_order_and_unrank_its_inverse(counts):
    every = sorted_arrangements(counts)
    assert len(every) == arrangements(counts)
    for rank, cards in enumerate(every):
        assert rank_of(cards) == rank
        assert tuple(unrank(rank, counts)) == cards


@pytest.mark.parametrize("counts", SMALL)
def test_the_compiled_step_walks_sorted_order_and_stops_at_the_last(counts):
    cards = first_of(counts)
    walked = [tuple(cards)]
    while next_arrangement(cards):
        walked.append(tuple(cards))
    assert walked == sorted_arrangements(counts)
    assert tuple(cards) == walked[-1]  # the last stays put


def test_the_standard_deck_first_and_last_ranks_and_its_count():
    total = arrangements(STANDARD_COUNTS)
    assert total == comb(52, 16) * comb(16, 4) * comb(12, 4) * comb(8, 4) == 653534134886878245000
    assert total > 2**63  # Python ints: past what 64 bits hold
    first, last = unrank(0, STANDARD_COUNTS), unrank(total - 1, STANDARD_COUNTS)
    assert tuple(first) == deck_of(STANDARD_COUNTS)
    assert tuple(last) == tuple(reversed(deck_of(STANDARD_COUNTS)))
    assert rank_of(first) == 0 and rank_of(last) == total - 1
    for bad in (-1, total):
        with pytest.raises(ValueError, match="outside the deck"):
            unrank(bad, STANDARD_COUNTS)


@given(st.integers(0, arrangements(STANDARD_COUNTS) - 1))
def test_standard_ranks_go_there_and_back(rank):
    cards = unrank(rank, STANDARD_COUNTS)
    assert rank_of(cards) == rank
    step = cards.copy()
    if next_arrangement(step):  # the next sequence is the next rank
        assert rank_of(step) == rank + 1


def test_decks_hand_sizes_and_their_refusals():
    assert parse_deck(" standard ") == STANDARD_COUNTS
    assert deck_spec(" 36, 4,4,4,4 ") == "36,4,4,4,4" and deck_spec("Standard") == "standard"
    assert even_sizes(20, 2) == (10, 10) and even_sizes(52, 3) == (18, 17, 17)
    assert check_hand_sizes((14, 2, 2, 2, 0), [12, 8]) == (12, 8)
    for text in ("14,2,2,2", "a,b,c,d,e", "0,0,0,0,0", "mixed"):
        with pytest.raises(DealError):
            parse_deck(text)
    for counts, sizes, message in [
        ((14, 2, 2, 2, 0), (10, 9), "add up to 19; the deck 14,2,2,2,0 has 20 cards"),
        ((60, 4, 4, 0, 0), (34, 34), "at most 64 cards"),
        ((14, 2, 2, 2, 0), (20,), "a deal has 2 to 4"),
    ]:
        with pytest.raises(DealError, match=message):
            check_hand_sizes(counts, sizes)


def test_unrank_returns_penalty_value_rows():
    row = unrank(5, (3, 1, 1, 1, 0))
    assert row.dtype == np.uint8 and row.shape == (6,)
