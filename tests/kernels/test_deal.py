"""Deal notation: every notation names the same values; garbage gets DealError and nothing else."""

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tiers import properties

from bmn.kernels.deal import (
    DealError,
    decode,
    encode,
    format_deal,
    format_hand,
    parse_deal,
    parse_hand,
)
from bmn.kernels.dealer import shuffled_deal
from bmn.kernels.decks import STANDARD_DECK, is_standard

RANKS = {
    0: ["2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "t"],
    1: ["J", "j"],
    2: ["Q", "q"],
    3: ["K", "k"],
    4: ["A", "a"],
}
SUITS = ["", "S", "H", "D", "C", "s", "\u2660", "\u2665"]

hands = st.lists(st.integers(0, 4), max_size=30).map(tuple)


def test_record_notation():
    assert parse_hand("-JQKA") == (0, 1, 2, 3, 4)


def test_ranks_and_suits_name_the_same_values():
    assert parse_hand("AS 10H QD") == (4, 0, 2)
    assert parse_hand("as10hqd") == (4, 0, 2)
    assert parse_hand("2 T j, q; K") == (0, 0, 1, 2, 3)


def test_deal_joined_or_separate():
    assert parse_deal("-J/Q-") == parse_deal(["-J", "Q-"]) == ((0, 1), (2, 0))
    assert parse_deal(["-J/Q-", "K"]) == ((0, 1), (2, 0), (3,))


@properties(50, 200, hands, st.data())
def test_every_notation_round_trips(hand, data):
    assert parse_hand(format_hand(hand)) == hand
    words = [data.draw(st.sampled_from(RANKS[v])) + data.draw(st.sampled_from(SUITS)) for v in hand]
    sep = data.draw(st.sampled_from([" ", ",", ""]))
    if sep == "":  # joined ranks stay unambiguous only without a bare '1'
        assert parse_hand("".join(words)) == hand
    assert parse_hand(" ".join(words)) == hand


@properties(50, 200, st.lists(hands, min_size=2, max_size=4).filter(any))
def test_deal_format_round_trips(deal):
    deal = tuple(deal)
    assert parse_deal(format_deal(deal)) == deal


@given(st.text(max_size=40))
def test_garbage_raises_only_deal_error(text):
    with contextlib.suppress(DealError):
        parse_deal(text)


@pytest.mark.parametrize(
    "text, where",
    [
        ("--x-/-", "position 3"),
        ("1-/-", "position 1"),
        ("-/-/-/-/-", "2 to 4 hands"),
        ("//", "every hand is empty"),
        ("-/--Z", "hand 2"),
        ("-", "got 1"),
    ],
)
def test_errors_say_where(text, where):
    with pytest.raises(DealError, match=where):
        parse_deal(text)


def test_error_names_the_hand():
    with pytest.raises(DealError, match=r"hand 2 \('-B'\): unexpected 'B' at position 2"):
        parse_deal("--/-B")


@pytest.mark.parametrize("players, sizes", [(2, [26, 26]), (3, [18, 17, 17]), (4, [13] * 4)])
def test_shuffled_deals_are_standard(players, sizes):
    deal = shuffled_deal(players, seed=players)
    assert [len(h) for h in deal] == sizes
    assert is_standard(deal)
    assert sorted(v for h in deal for v in h) == list(STANDARD_DECK)


def test_is_standard_rejects_uneven_or_other_decks():
    deal = shuffled_deal(2, seed=1)
    assert not is_standard((deal[0] + deal[1][:1], deal[1][1:]))
    assert not is_standard((deal[0][:-1] + (4,), deal[1]))


def test_encode_decode():
    deal = ((1, 0, 2), (4,), ())
    row, sizes = encode(deal, width=8)
    assert row.tolist() == [1, 0, 2, 4, 0, 0, 0, 0]
    assert decode(row, sizes) == deal
    with pytest.raises(DealError):
        encode(deal, width=3)
