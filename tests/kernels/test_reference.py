"""The reference engine against the worked examples of docs/rules.md, the records, invariants."""

import pytest
import samples
from hypothesis import strategies as st
from tiers import properties

from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.dealer import shuffled_deal
from bmn.kernels.reference import play
from bmn.records.published import published_games

WORKED = [
    (samples.RECORD, "finished", 8344, 1164, 1),
    ("-J/Q-", "finished", 4, 1, 0),
    ("--K/J-/---", "finished", 10, 2, 1),
    ("A--/-/K---", "finished", 9, 2, 0),
    ("Q/J/-/-", "finished", 6, 3, 1),
    ("---KKQ-AQJ----Q-Q-/AJ--J---A-JK-----/----------K--A---", "finished", 766, 116, 0),
    ("-J-----------/K------K---K-/-QA--Q--AA-Q-/J-Q-JK---AJ--", "finished", 421, 55, 0),
]


@pytest.mark.parametrize("deal, status, cards, tricks, winner", WORKED)
def test_worked_examples(deal, status, cards, tricks, winner):
    result = play(parse_deal(deal))
    assert (result.status, result.cards, result.tricks, result.winner) == (
        status,
        cards,
        tricks,
        winner,
    )


def test_published_loop():
    result = play(samples.LOOP_DEAL)
    assert result.as_dict() == {
        "status": "loop",
        "cards": 474,
        "tricks": 66,
        "winner": None,
        "loop_start_cards": 34,
        "loop_start_tricks": 4,
        "period_cards": 440,
        "period_tricks": 62,
    }


@pytest.mark.parametrize("game", published_games(), ids=lambda g: g.name)
def test_published_records_reproduce(game):
    result = play(parse_deal([game.hand_1, game.hand_2]))
    assert (result.status, result.cards, result.tricks) == (game.status, game.cards, game.tricks)


def test_limit_stops_and_names_the_holder_of_most():
    full = play(samples.RECORD_DEAL)
    stopped = play(samples.RECORD_DEAL, limit=1000, trace=True)
    assert (stopped.status, stopped.cards) == ("limit", 1000)
    assert stopped.tricks < full.tricks
    sizes = stopped.trace[-1].hand_sizes
    assert stopped.winner in (None, 0, 1)
    exact = play(parse_deal("-J/Q-"), limit=4)
    assert (exact.status, exact.cards) == ("finished", 4)
    cut = play(parse_deal("-J/Q-"), limit=3)
    assert (cut.status, cut.cards, cut.tricks, cut.winner) == (
        "limit",
        3,
        0,
        1,
    )  # seat 1 still holds its numeral
    assert sum(sizes) <= 52


def test_empty_first_hand_is_out_on_its_first_turn():
    result = play(((), (0, 1)))
    assert (result.status, result.cards, result.tricks, result.winner) == ("finished", 0, 0, 1)


any_deal = (
    st.lists(st.lists(st.integers(0, 4), max_size=14).map(tuple), min_size=2, max_size=4)
    .filter(lambda d: any(d))
    .map(tuple)
)


@properties(50, 200, any_deal)
def test_cards_are_conserved_and_the_winner_holds_all(deal):
    total = sum(len(h) for h in deal)
    result = play(deal, trace=True)
    assert len(result.trace) == result.tricks
    for trick in result.trace:
        assert sum(trick.hand_sizes) == total
    assert sum(t.cards for t in result.trace) <= result.cards
    if result.status == "finished":
        assert result.trace == () or result.trace[-1].hand_sizes[result.winner] == total
    else:
        assert result.status == "loop"
        assert result.loop_start_cards + result.period_cards == result.cards
        assert result.loop_start_tricks + result.period_tricks == result.tricks


@properties(50, 200, st.integers(0, 2**32), st.sampled_from([2, 3, 4]))
def test_standard_deals_finish_or_loop(seed, players):
    result = play(shuffled_deal(players, seed), trace=True)
    assert result.status in ("finished", "loop")
    assert result.cards >= result.tricks
    if result.status == "finished":
        assert result.trace[-1].hand_sizes[result.winner] == 52


def test_shared_sample_deals_are_the_published_games():
    games = {game.name: game.deal for game in published_games()}
    assert games["Nessler 2022"] == samples.RECORD == format_deal(samples.RECORD_DEAL)
    assert games["Paulhus 1999"] == samples.PAULHUS
    assert games["Casella 2024"] == samples.CASELLA == format_deal(samples.LOOP_DEAL)
