"""The two-seat CPU kernel's own entry points, and the batch scorer's interface around kernels.

Its batches against the reference engine are test_oracle.py's, with every registered kernel.
Here: play_exact_at and play_fast_at (the search's per-deal signature), the Brent loop
figures, the fast path's cap, and kernels/score.py's functions around the kernels (arrays,
padding, threads, refusals, deals no kernel takes, reading lines of deals).
"""

import numpy as np
import pytest
import samples
from edge_cases import EDGE_CASES, every_deal
from hypothesis import strategies as st
from tiers import properties

from bmn.kernels.config import FINISHED, LOOP, UNDECIDED
from bmn.kernels.cpu.two import play_exact_at, play_fast_at, play_fast_even, play_fast_for
from bmn.kernels.deal import DealError, encode, format_deal, parse_deal
from bmn.kernels.dealer import random_deals, shuffled_deal
from bmn.kernels.reference import play
from bmn.kernels.results import Scores
from bmn.kernels.rng import seed_state
from bmn.kernels.score import score, score_parsed
from bmn.kernels.tables.reader import read_table
from bmn.kernels.tables.scored import score_lines

RANDOM_SEED = 20_251_129
RANDOM_DEALS = 3000
BIG_CAP = 100_000


def kernel_exact(deal) -> dict:
    """play_exact_at's tuple in the reference engine's dict form."""
    row, sizes = encode(deal)
    return samples.exact_as_reference(play_exact_at(row, 0, sizes))


def assert_entry_points_agree(deal) -> None:
    """play_exact_at gives the reference engine's result; play_fast_at its figures for a
    finished game, UNDECIDED for a loop."""
    want = play(deal).as_dict()
    assert kernel_exact(deal) == want, deal
    row, sizes = encode(deal)
    cards, tricks, code = play_fast_at(row, 0, sizes, BIG_CAP)
    if want["status"] == "finished":
        assert (cards, tricks, code) == (want["cards"], want["tricks"], want["winner"]), deal
    else:
        assert code == UNDECIDED and cards > BIG_CAP, deal


@pytest.fixture(scope="module")
def random_batch():
    deals, _ = random_deals(RANDOM_DEALS, seed_state(RANDOM_SEED))
    hands = [(tuple(map(int, row[:26])), tuple(map(int, row[26:]))) for row in deals]
    return deals, hands, [play(hand).as_dict() for hand in hands]


def test_entry_points_on_random_standard_deals(random_batch):
    deals, hands, want = random_batch
    assert play_fast_for((26, 26)) is play_fast_even and play_fast_for((27, 25)) is play_fast_at
    for row, hand, expected in zip(deals, hands, want, strict=True):
        assert kernel_exact(hand) == expected
        figures = (expected["cards"], expected["tricks"], expected["winner"])
        assert play_fast_at(row, 0, np.array([26, 26]), BIG_CAP) == figures
        assert play_fast_even(row, 0, np.array([26, 26]), BIG_CAP) == figures
    # spot check the population: random deals average about 255 cards
    assert 240 < np.mean([w["cards"] for w in want]) < 270


@pytest.mark.parametrize("case", EDGE_CASES[2], ids=[c.text[:32] for c in EDGE_CASES[2]])
def test_entry_points_on_the_edge_cases(case):
    assert_entry_points_agree(case.deal)


def test_entry_points_on_every_deal_of_up_to_four_cards():
    deals = list(every_deal(2, 4))
    assert [d for d in deals if kernel_exact(d) != play(d).as_dict()] == []


def test_published_loop_figures():
    row, sizes = encode(samples.LOOP_DEAL)
    assert play_exact_at(row, 0, sizes) == (LOOP, 474, 66, -1, 34, 4, 440, 62)


def test_fast_path_stops_at_the_cap():
    record = samples.RECORD_DEAL
    row, sizes = encode(record)
    assert play_fast_at(row, 0, sizes, BIG_CAP) == (8344, 1164, 1)
    cards, tricks, code = play_fast_at(row, 0, sizes, 1000)
    assert code == UNDECIDED and 1000 < cards < 1100 and tricks < 1164
    loop_row, _ = encode(samples.LOOP_DEAL)
    assert play_fast_at(loop_row, 0, sizes, 5000)[2] == UNDECIDED


hand = st.lists(st.integers(0, 4), max_size=32).map(tuple)


@properties(100, 400, hand, hand)
def test_bounded_random_hands(a, b):
    assert_entry_points_agree((a, b))


@properties(37, 150, st.lists(st.integers(0, 4), min_size=1, max_size=64), st.data())
def test_any_split_of_a_small_deck(cards, data):
    k = data.draw(st.integers(0, len(cards)))
    assert_entry_points_agree((tuple(cards[:k]), tuple(cards[k:])))


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
    scores = score_parsed(deals)
    assert [scores.as_dict(i) for i in range(len(deals))] == [play(d).as_dict() for d in deals]


def test_score_arrays_and_padding():
    deals = [parse_deal("-J/Q-"), samples.LOOP_DEAL]
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


def test_thread_counts_agree():
    # several of score's parallel chunks (PARALLEL_CHUNK deals each), so both threads take some
    deals, sizes = random_deals(20_000, seed_state(RANDOM_SEED + 1))
    one, two = score(deals, sizes, threads=1), score(deals, sizes, threads=2)
    for field in one.__dataclass_fields__:
        assert np.array_equal(getattr(one, field), getattr(two, field))


def test_score_refuses_malformed_arrays():
    with pytest.raises(DealError, match="penalty values"):
        score(np.full((1, 4), 7, dtype=np.uint8), np.array([[2, 2]]))
    with pytest.raises(DealError, match="add up"):
        score(np.zeros((1, 4), dtype=np.uint8), np.array([[3, 3]]))


@pytest.mark.parametrize(
    "line", ["-J/Q-", "j-/-q", "AS 10H QD/KC 2S 3S", "--K/J-/---", "./-J", "2 J/Q 3"]
)
def test_a_table_line_reads_as_parse_deal_reads_it(line):
    deal = parse_deal(line)
    (row,) = read_table([line])
    canonical, values, sizes = row.deal, row.values, row.sizes
    assert canonical == format_deal(deal)
    assert values == bytes(v for hand in deal for v in hand)
    assert sizes == tuple(len(hand) for hand in deal)


@pytest.mark.parametrize("line", ["/-J", "-J/Q-/", "-J//Q-"])
def test_a_table_line_with_a_hand_with_nothing_written_is_refused(line):
    """An empty hand is written '.' on purpose; nothing between separators is a slip."""
    with pytest.raises(DealError, match="is empty; .*write '.'"):
        list(read_table([line]))


def test_score_lines_batches_and_stops_at_a_bad_line():
    lines = ["-J/Q-\n", "\n", "# note\n", "--J-/J-\n", "J/Q\n", "oops\n", "Q/J\n"]
    batches = []
    with pytest.raises(DealError, match="line 6"):
        for batch in score_lines(lines, batch=2):
            batches.append(list(batch.rows()))
    assert [deal for rows in batches for deal, _ in rows] == ["-J/Q-", "--J-/J-", "J/Q"]
    assert [len(rows) for rows in batches] == [2, 1]
