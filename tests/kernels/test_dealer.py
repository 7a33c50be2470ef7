"""The one random dealer (kernels/dealer.py): dealing round the table, cuts, any deck, seeds."""

import numpy as np
import pytest

from bmn.kernels.deal import DealError, decode
from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import (
    STANDARD_COUNTS,
    STANDARD_COUNTS_TEXT,
    STANDARD_DECK,
    counts_of,
    counts_text,
    deck_of,
    is_standard,
    parse_counts,
)
from bmn.kernels.rng import integers, seed_state


def deal_round(deck, players: int) -> tuple:
    """The rule in plain Python: one card at a time round the table, seat 0 first."""
    return tuple(tuple(int(v) for v in deck[seat::players]) for seat in range(players))


@pytest.mark.parametrize("players, sizes", [(2, [26, 26]), (3, [18, 17, 17]), (4, [13] * 4)])
def test_standard_deals_are_standard_and_reproducible(players, sizes):
    rows, hands = random_deals(200, seed_state(5), players)
    assert rows.shape == (200, 52) and rows.dtype == np.uint8
    assert hands.shape == (200, players) and hands.dtype == np.int64
    assert (hands == sizes).all()
    assert all(is_standard(decode(row, sizes)) for row in rows)
    again, _ = random_deals(200, seed_state(5), players)
    assert np.array_equal(rows, again)
    assert not np.array_equal(rows, random_deals(200, seed_state(6), players)[0])
    assert len({row.tobytes() for row in rows}) == 200


@pytest.mark.parametrize("players", [2, 3, 4])
def test_dealing_round_is_one_card_at_a_time(players):
    """The same generator draws give the same decks: cut whole, then dealt round by the rule."""
    decks, _ = random_deals(100, seed_state(8), sizes=(52,) + (0,) * (players - 1))
    rows, sizes = random_deals(100, seed_state(8), players)
    for deck, row, hands in zip(decks, rows, sizes, strict=True):
        assert decode(row, hands) == deal_round(deck, players)


def test_batches_can_be_cut_anywhere():
    state = seed_state(3)
    whole, _ = random_deals(30, state.copy(), 3)
    parts = [random_deals(n, state, 3)[0] for n in (1, 12, 0, 17)]
    assert np.array_equal(whole, np.concatenate(parts))


def test_any_deck_and_cuts():
    deck = (0, 0, 0, 1, 2, 3, 4)
    rows, sizes = random_deals(500, seed_state(1), 3, deck=deck)
    assert (sizes == (3, 2, 2)).all()
    assert all(sorted(row) == list(deck) for row in rows.tolist())
    cuts = np.array([[k, 7 - k] for k in range(7)] * 10)
    rows, sizes = random_deals(70, seed_state(1), deck=deck, sizes=cuts)
    assert np.array_equal(sizes, cuts)
    assert all(sorted(row) == list(deck) for row in rows.tolist())


def test_every_position_is_shuffled():
    """Each position's mean penalty value is the deck's (40/52), within five standard errors."""
    rows, _ = random_deals(20_000, seed_state(2024))
    values = np.array(STANDARD_DECK, dtype=float)
    error = values.std() / np.sqrt(len(rows))
    assert np.abs(rows.mean(axis=0) - values.mean()).max() < 5 * error


def test_bad_sizes_and_seats_are_refused():
    with pytest.raises(DealError, match="add up to the 52 cards"):
        random_deals(3, seed_state(1), sizes=(26, 25))
    with pytest.raises(DealError, match="players must be 2 to 4"):
        random_deals(3, seed_state(1), 5)


def test_integers_stay_in_range_and_reproduce():
    draws = integers(seed_state(4), 10_000, 1, 9)
    assert draws.min() == 1 and draws.max() == 8
    assert np.array_equal(draws, integers(seed_state(4), 10_000, 1, 9))
    counts = np.bincount(draws, minlength=9)[1:]
    assert np.abs(counts - 1250).max() < 5 * np.sqrt(1250)


def test_loop_hunt_batches_draw_from_a_generator_state():
    from bmn.search.runs.kinds.loop_hunt import random_batch

    deck = np.array((0, 0, 0, 0, 0, 1, 1, 2, 2), dtype=np.uint8)
    rows, sizes = random_batch(seed_state(9), deck, 2000, even=False)
    assert all(sorted(row) == sorted(deck) for row in rows.tolist())
    assert (sizes.sum(axis=1) == 9).all() and set(sizes[:, 0]) == set(range(1, 9))
    again = random_batch(seed_state(9), deck, 2000, even=False)
    assert np.array_equal(rows, again[0]) and np.array_equal(sizes, again[1])
    even = random_batch(seed_state(9), deck, 50, even=True)[1]
    assert (even == (5, 4)).all()


def test_one_helper_for_deck_compositions():
    assert deck_of(STANDARD_COUNTS) == STANDARD_DECK and counts_of(STANDARD_DECK) == (
        36,
        4,
        4,
        4,
        4,
    )
    assert parse_counts(STANDARD_COUNTS_TEXT) == STANDARD_COUNTS
    assert STANDARD_COUNTS_TEXT == counts_text(STANDARD_COUNTS) == "36,4,4,4,4"
    assert counts_of(bytes([0, 4, 4, 1])) == (1, 1, 0, 0, 2)  # a piece's bytes count too
    for bad in ("36,4,4,4", "36,4,4,4,-1", "a,4,4,4,4", ""):
        with pytest.raises(DealError, match="five counts"):
            parse_counts(bad)


def test_any_deck_deals_its_composition():
    counts = (5, 2, 0, 1, 3)
    rows, sizes = random_deals(50, seed_state(4), 3, deck=deck_of(counts))
    assert all(counts_of(row) == counts for row in rows) and sizes.sum(axis=1).tolist() == [11] * 50
