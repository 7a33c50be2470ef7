"""The compiled two-player kernel and the batch scorer, always against the reference engine."""

import itertools

import numpy as np
import pytest
import samples
from hypothesis import given, settings
from hypothesis import strategies as st

from bmn.kernels.config import FINISHED, LOOP, UNDECIDED
from bmn.kernels.cpu.two import play_exact_at, play_fast_at
from bmn.kernels.deal import (
    DealError,
    encode,
    format_deal,
    parse_deal,
    shuffled_deal,
)
from bmn.kernels.dealer import random_deals
from bmn.kernels.lines import read_line, score_lines
from bmn.kernels.reference import play
from bmn.kernels.results import Scores
from bmn.kernels.rng import seed_state
from bmn.kernels.score import score, score_deals
from bmn.records.published import published_games

RANDOM_SEED = 20_251_129
RANDOM_DEALS = 20_000

# Small decks that never end, found by enumerating tiny deals with the reference engine.
LOOPS = [
    samples.CASELLA,
    "--J-/J-",
    "-J/--J-",
    "J--/-J-",
    "--J---------/-------J--",
    "----J-------J/-Q-----------",
    "--K--A-J--/A-JA-K-AA-",
    "-----J-/---------J------",
]

ADVERSARIAL = [
    "/-J",  # seat 0 cannot lead: seat 1 wins, no cards, no trick
    "/J",
    "-J/",  # seat 1 cannot answer the first card
    "A/",
    "-/-",
    "J/-",  # seat 1 runs out while paying
    "-/J",
    "A/---",  # seat 1 pays its last card: the penalty is paid and the game ends
    "A/----",
    "A/--",  # out while paying, part paid
    "---J/A---",  # a court card as a player's last card
    "-J/Q-",
    "J/Q",
    "Q/J",
    "K/AAAA",
    "-" * 63 + "/J",  # 64 cards, hands as unequal as they get
    "J" * 64 + "/",
    "/" + "-" * 64,
    "J" * 32 + "/" + "-" * 32,
    "A" * 32 + "/" + "A" * 32,
    "-" * 32 + "/" + "-" * 32,
    samples.RECORD,  # 8,344 cards
    "------------A-QK--J-----KQA/-AJ---Q-K----J-AQ-KJ-----",  # a standard deck split 27/25
    "-----------A-QK--J-----KQA/-AJ---Q-K----J-AQ-KJ-----",  # one numeral short: 26/25
]


def kernel_exact(deal) -> dict:
    """play_exact_at's tuple in the reference engine's dict form."""
    row, sizes = encode(deal)
    return samples.exact_as_reference(play_exact_at(row, 0, sizes))


def assert_agrees(deal) -> None:
    """Batch scorer and play_exact_at both give the reference engine's result for a deal."""
    want = play(deal).as_dict()
    assert score_deals([deal]).as_dict(0) == want, deal
    if len(deal) == 2 and sum(map(len, deal)) <= 64:
        assert kernel_exact(deal) == want, deal


@pytest.fixture(scope="module")
def random_batch():
    deals, _ = random_deals(RANDOM_DEALS, seed_state(RANDOM_SEED))
    hands = [(tuple(map(int, row[:26])), tuple(map(int, row[26:]))) for row in deals]
    return deals, hands, [play(hand).as_dict() for hand in hands]


def test_random_standard_deals_match_reference(random_batch):
    deals, _, want = random_batch
    scores = score(deals, np.full((len(deals), 2), 26))
    got = [scores.as_dict(i) for i in range(len(deals))]
    assert [i for i in range(len(deals)) if got[i] != want[i]] == []
    # spot check the population: random deals average about 255 cards
    assert 240 < scores.cards.mean() < 270


def test_exact_and_fast_paths_match_reference(random_batch):
    deals, hands, want = random_batch
    for row, hand, expected in list(zip(deals, hands, want, strict=True))[:3000]:
        assert kernel_exact(hand) == expected
        cards, tricks, code = play_fast_at(row, 0, np.array([26, 26]), 100_000)
        assert (cards, tricks, code) == (expected["cards"], expected["tricks"], expected["winner"])


@pytest.mark.parametrize("game", published_games(), ids=lambda g: g.name)
def test_published_records(game):
    deal = parse_deal([game.hand_1, game.hand_2])
    assert_agrees(deal)
    result = score_deals([deal]).as_dict(0)
    assert (result["status"], result["cards"], result["tricks"]) == (
        game.status,
        game.cards,
        game.tricks,
    )


def test_published_loop_figures():
    scores = score_deals([parse_deal(LOOPS[0])])
    assert scores.as_dict(0) == {
        "status": "loop",
        "cards": 474,
        "tricks": 66,
        "winner": None,
        "loop_start_cards": 34,
        "loop_start_tricks": 4,
        "period_cards": 440,
        "period_tricks": 62,
    }


@pytest.mark.parametrize("text", LOOPS)
def test_small_loops(text):
    deal = parse_deal(text)
    assert play(deal).status == "loop"
    assert_agrees(deal)


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_adversarial_deals(text):
    assert_agrees(parse_deal(text))


def test_every_deal_of_up_to_five_cards():
    deals = [
        (seq[:k], seq[k:])
        for n in range(1, 6)
        for seq in itertools.product(range(5), repeat=n)
        for k in range(n + 1)
    ]
    scores = score_deals(deals)
    bad = [d for i, d in enumerate(deals) if scores.as_dict(i) != play(d).as_dict()]
    assert bad == []
    assert [d for d in deals[:400] if kernel_exact(d) != play(d).as_dict()] == []


def test_fast_path_stops_at_the_cap():
    record = samples.RECORD_DEAL
    row, sizes = encode(record)
    assert play_fast_at(row, 0, sizes, 100_000) == (8344, 1164, 1)
    cards, tricks, code = play_fast_at(row, 0, sizes, 1000)
    assert code == UNDECIDED and 1000 < cards < 1100 and tricks < 1164
    loop_row, _ = encode(parse_deal(LOOPS[0]))
    assert play_fast_at(loop_row, 0, sizes, 5000)[2] == UNDECIDED


hand = st.lists(st.integers(0, 4), max_size=32).map(tuple)


@settings(deadline=None, max_examples=400)
@given(hand, hand)
def test_bounded_random_hands(a, b):
    if a or b:
        assert_agrees((a, b))


@settings(deadline=None, max_examples=150)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=64), st.data())
def test_any_split_of_a_small_deck(cards, data):
    k = data.draw(st.integers(0, len(cards)))
    assert_agrees((tuple(cards[:k]), tuple(cards[k:])))


def test_general_path_three_four_seats_and_big_decks():
    deals = [
        parse_deal("--K/J-/---"),
        parse_deal("A--/-/K---"),
        parse_deal("Q/J/-/-"),
        parse_deal("-J-----------/K------K---K-/-QA--Q--AA-Q-/J-Q-JK---AJ--"),
        shuffled_deal(3, seed=5),
        shuffled_deal(4, seed=6),
        (tuple([0] * 40 + [1, 2, 3, 4] * 5), tuple([0] * 30 + [4, 3, 2, 1] * 5)),  # 110 cards
        parse_deal("-J/Q-"),
    ]
    scores = score_deals(deals)
    assert [scores.as_dict(i) for i in range(len(deals))] == [play(d).as_dict() for d in deals]


def test_score_arrays_and_padding():
    deals = [parse_deal("-J/Q-"), parse_deal(LOOPS[0])]
    rows = np.zeros((2, 60), dtype=np.uint8)
    sizes = np.zeros((2, 2), dtype=np.int64)
    for i, deal in enumerate(deals):
        rows[i], sizes[i] = encode(deal, 60)
    scores = score(rows, sizes, threads=1)
    assert isinstance(scores, Scores) and len(scores) == 2
    assert scores.status.tolist() == [FINISHED, LOOP]
    assert scores.winner.tolist() == [0, -1]
    assert scores.cards.tolist() == [4, 474]
    assert scores.period_cards.tolist() == [-1, 440]
    assert scores.loop_start_tricks.tolist() == [-1, 4]


def test_thread_counts_agree(random_batch):
    deals, _, _ = random_batch
    sizes = np.full((len(deals), 2), 26)
    one, two = score(deals, sizes, threads=1), score(deals, sizes, threads=2)
    for field in one.__dataclass_fields__:
        assert np.array_equal(getattr(one, field), getattr(two, field))


def test_score_refuses_malformed_arrays():
    with pytest.raises(DealError, match="penalty values"):
        score(np.full((1, 4), 7, dtype=np.uint8), np.array([[2, 2]]))
    with pytest.raises(DealError, match="add up"):
        score(np.zeros((1, 4), dtype=np.uint8), np.array([[3, 3]]))


@pytest.mark.parametrize(
    "line", ["-J/Q-", "j-/-q", "AS 10H QD/KC 2S 3S", "--K/J-/---", "/-J", "2 J/Q 3"]
)
def test_read_line_matches_parse_deal(line):
    deal = parse_deal(line)
    canonical, values, sizes = read_line(line)
    assert canonical == format_deal(deal)
    assert values == bytes(v for hand in deal for v in hand)
    assert sizes == tuple(len(hand) for hand in deal)


def test_score_lines_batches_and_stops_at_a_bad_line():
    lines = ["-J/Q-\n", "\n", "# note\n", "--J-/J-\n", "J/Q\n", "oops\n", "Q/J\n"]
    batches = []
    with pytest.raises(DealError, match="line 6"):
        for batch in score_lines(lines, batch=2):
            batches.append(list(batch.rows()))
    assert [deal for rows in batches for deal, _ in rows] == ["-J/Q-", "--J-/J-", "J/Q"]
    assert [len(rows) for rows in batches] == [2, 1]
