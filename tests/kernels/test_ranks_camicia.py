"""Deal numbers in FraSanga/camicia's order (kernels/ranks.py's rank_in and unrank_in): the
numbers and deals below were printed by camicia's own getNthPermutation
(tools/worker/core/permutation.cpp at c463eb7, compiled with a ten-line main that reads ranks
and writes each deck, its '2' as '-'), the first ten of them also in its own test data
(tests/test_data_gen.hpp). Camicia deals the first 26 cards to the player who leads, as bmn's
hands concatenated, seat 0 first, so the sequence is the deal."""

import itertools

import pytest

from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.decks import STANDARD_COUNTS, deck_of
from bmn.kernels.ranks import arrangements, rank_in, rank_of, unrank_in

# (camicia's number, its deck) from camicia's code; the first the lowest, then the highest,
# three record games (Kleber 1999, Collins 2006, the Casella 2024 loop), then random numbers.
CAMICIA = [
    (0, "AAAAKKKKQQQQJJJJ------------------------------------"),
    (1, "AAAAKKKKQQQQJJJ-J-----------------------------------"),
    (2, "AAAAKKKKQQQQJJJ--J----------------------------------"),
    (35, "AAAAKKKKQQQQJJJ-----------------------------------J-"),
    (1000, "AAAAKKKKQQQQJ-J---------J---------J-----------------"),
    (653534134886878244999, "------------------------------------JJJJQQQQKKKKAAAA"),
    (653534134886878244998, "------------------------------------JJJJQQQQKKKAKAAA"),
    (497985732634057566415, "---JQ---K-A----A-J-K---QK--J-----------AJQA----K---Q"),
    (20134883549310237992, "A-QK------Q----KA-----J----JAK----A--Q----J---QJ--K-"),
    (472460898658889399111, "---K---Q-KQAJ-----AAJ--J------------Q----KQ-J-----KA"),
    (401167001483652678251, "--Q-A--QK------Q---K--KKJ---JJ--------Q--A--A----J-A"),
    (334883090491208079601, "-J---J-----Q----A------Q-J--A-J--Q-KQ---AK-K----A-K-"),
    (312959573387412606775, "-JK------Q-K-Q-A----JAJ---K-----A-K-Q-Q-A----J------"),
    (328351431341578912756, "-J--K----A-QK---QJQA---J-K--------Q--------KJ-A----A"),
    (124522308652943963276, "Q-J-J-----JQ--K-KA--A-J-----------A-------K-K-A--Q-Q"),
    (110888469259639024905, "QQ-----A--Q-A----A---KK-A--J-------J-----K----JQJK--"),
    (433411367245707224359, "--J--Q----J-QQK---Q-AK--A-J---------K--A----JA-K----"),
    (387846841195768915866, "--K----KJQ--K-------J---QK-QJ-----QA-J-------A--A-A-"),
    (64493010026627222678, "KJ-----Q-Q---K-----QK--A-A------A-------JK-J-AJ---Q-"),
    (185918490895369521117, "J---K-Q--K--A----AKAJQ-J-A---------Q------K----J-Q--"),
]


def cards(text):
    return tuple("-JQKA".index(c) for c in text)


@pytest.mark.parametrize(("number", "deck"), CAMICIA)
def test_camicia_number_to_deal_and_back(number, deck):
    assert "".join("-JQKA"[v] for v in unrank_in("camicia", number, STANDARD_COUNTS)) == deck
    assert rank_in("camicia", cards(deck)) == number


def test_the_published_kleber_deal_is_camicias_number():
    """A deal as bmn writes it (two hands) is camicia's deck cut in halves."""
    kleber = parse_deal("---JQ---K-A----A-J-K---QK-/-J-----------AJQA----K---Q")
    assert rank_in("camicia", [v for hand in kleber for v in hand]) == 497985732634057566415
    deck = unrank_in("camicia", 497985732634057566415, STANDARD_COUNTS)
    assert format_deal((tuple(deck[:26]), tuple(deck[26:]))) == format_deal(kleber)


@pytest.mark.parametrize("counts", [(3, 1, 1, 1, 0), (2, 2, 0, 1, 1), (1, 1, 1, 1, 1)])
def test_camicia_order_is_lexicographic_with_aces_first(counts):
    """Every arrangement of small decks, sorted with A < K < Q < J < numeral, as camicia does."""
    every = sorted(set(itertools.permutations(deck_of(counts))), key=lambda s: [-v for v in s])
    for number, seq in enumerate(every):
        assert rank_in("camicia", seq) == number
        assert tuple(unrank_in("camicia", number, counts)) == seq
        assert rank_in("bmn", seq) == rank_of(seq) == arrangements(counts) - 1 - number


def test_a_number_past_the_deck_and_an_unknown_order_are_refused():
    with pytest.raises(ValueError, match="outside the deck's 0 to 653534134886878244999"):
        unrank_in("camicia", 653534134886878245000, STANDARD_COUNTS)
    with pytest.raises(ValueError, match="outside"):
        unrank_in("camicia", -1, STANDARD_COUNTS)
    with pytest.raises(ValueError, match="not one of bmn, camicia"):
        rank_in("lexicographic", (0, 1))


def test_the_library_numbers_deals_both_ways():
    """bmn.kernels.deal_number and numbered_deal: camicia's numbers above, and bmn's order for
    2 to 4 seats; the orders the library and the command line name are ranks.py's."""
    import bmn.kernels as game
    from bmn.frontends.cli.game import deal as deal_command
    from bmn.kernels import api
    from bmn.kernels.ranks import RANK_ORDERS

    for number, deck in CAMICIA[5:12]:
        dealt = game.numbered_deal(number, "camicia")
        assert format_deal(dealt) == f"{deck[:26]}/{deck[26:]}"
        assert game.deal_number(dealt, "camicia") == number
        assert game.deal_number(dealt) == arrangements(STANDARD_COUNTS) - 1 - number
    for players in (2, 3, 4):
        dealt = game.numbered_deal(123_456_789_012_345, players=players)
        assert [len(h) for h in dealt] == {2: [26, 26], 3: [18, 17, 17], 4: [13] * 4}[players]
        assert game.deal_number(dealt) == 123_456_789_012_345
    orders = next(p for p in deal_command.params if p.name == "rank_order").type.choices
    assert api.RANK_ORDERS == RANK_ORDERS == tuple(orders)
    for bad in (lambda: game.deal_number("-J/Q-"), lambda: game.numbered_deal(-1)):
        with pytest.raises(game.DealError):
            bad()
    with pytest.raises(game.DealError, match="camicia numbers two-player deals"):
        game.deal_number(game.numbered_deal(0, players=3), "camicia")
