"""The N-seat kernel's own entry points (2 to 4 seats), always against the reference engine.

Its batches (score_rows, as kernels/score.py registers it for three and four seats) are checked
with every other kernel in test_oracle.py. Here: the per-deal entry points (play_exact_at,
play_fast_at and its cap, play_limit_at and the card limit), its exact loop figures, and two
seats, which it plays too though the registry gives them to kernels/cpu/two.py.
"""

import numpy as np
import pytest
from edge_cases import BIASED, EDGE_CASES, SEAT_COUNTS, every_deal, split_deal, tiny_deck
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import CASELLA, exact_as_reference
from tiers import properties

from bmn.kernels.config import LOOP, UNDECIDED
from bmn.kernels.cpu.nseat import (
    NO_LIMIT,
    play_exact_at,
    play_fast_at,
    play_limit_at,
    score_rows,
)
from bmn.kernels.deal import decode, encode, parse_deal
from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import is_standard
from bmn.kernels.reference import play
from bmn.kernels.results import Scores
from bmn.kernels.rng import seed_state
from bmn.kernels.score import numba_threads

BIG_CAP = 1_000_000
RANDOM_SEEDS = {3: 20_251_203, 4: 20_251_204}
RANDOM_DEALS = 300


def batch(deals) -> tuple[np.ndarray, np.ndarray]:
    """Deals of one seat count as rows (width 64) and hand sizes."""
    rows = [encode(deal, 64) for deal in deals]
    return np.array([r for r, _ in rows]), np.array([s for _, s in rows])


def score_all(deals, cap: int = 20_000) -> Scores:
    rows, sizes = batch(deals)
    out = Scores.empty(len(deals))
    score_rows(rows, sizes, np.arange(len(deals)), out, cap)
    return out


def assert_entry_points_agree(deal, cap: int = 20_000) -> None:
    """play_exact_at, play_limit_at without a limit and play_fast_at at `cap` all give the
    reference engine's result (play_fast_at: or stop past the cap without a finish); so does
    score_rows for two seats (test_oracle.py checks it for the seat counts it is registered for).
    """
    want = play(deal).as_dict()
    if len(deal) == 2:
        with numba_threads(1):  # one deal: waking threads would cost more than the game
            assert score_all([deal], cap).as_dict(0) == want, deal
    row, sizes = encode(deal)
    assert exact_as_reference(play_exact_at(row, 0, sizes)) == want, deal
    assert exact_as_reference(play_limit_at(row, 0, sizes, NO_LIMIT)) == want, deal
    cards, tricks, code = play_fast_at(row, 0, sizes, cap)
    if code != UNDECIDED:  # finished (possibly in the trick that passed the cap)
        assert (cards, tricks, code) == (want["cards"], want["tricks"], want["winner"]), deal
    else:  # past the cap without a finish
        assert cards > cap and (want["status"] == "loop" or want["cards"] > cards), deal
    if want["status"] == "finished" and want["cards"] <= cap:
        assert code != UNDECIDED, deal


CASES = [(seats, c) for seats in SEAT_COUNTS for c in EDGE_CASES[seats]]


@pytest.mark.parametrize("case", [c for _, c in CASES], ids=[c.text[:32] for _, c in CASES])
def test_entry_points_on_the_edge_cases(case):
    assert_entry_points_agree(case.deal)
    assert_entry_points_agree(case.deal, cap=0)  # every game stopped after its first trick


def test_worked_loop_figures():
    row, sizes = encode(parse_deal(CASELLA))
    assert play_exact_at(row, 0, sizes) == (LOOP, 474, 66, -1, 34, 4, 440, 62)


def test_three_and_four_seat_cycles_are_exact():
    three = parse_deal("--QJ-/KJ-/J-")
    assert play(three).as_dict() == exact_as_reference((LOOP, 24, 6, -1, 0, 0, 24, 6))
    row, sizes = encode(three)
    assert play_exact_at(row, 0, sizes) == (LOOP, 24, 6, -1, 0, 0, 24, 6)
    behind = parse_deal("/--QJ-/KJ-/J-")  # the opening state cannot come back
    row, sizes = encode(behind)
    assert play_exact_at(row, 0, sizes)[5] == 1
    assert exact_as_reference(play_exact_at(row, 0, sizes)) == play(behind).as_dict()


def test_two_seats_in_batches():
    """Two seats, which the registry does not hand this kernel: the edge cases, every deal of
    up to four cards (a cap of 20: longer games are replayed exactly)."""
    deals = [c.deal for c in EDGE_CASES[2]]
    for cap in (20_000, 0):
        scores = score_all(deals, cap)
        assert [d for i, d in enumerate(deals) if scores.as_dict(i) != play(d).as_dict()] == []
    deals = list(every_deal(2, 4))
    scores = score_all(deals, cap=20)
    assert [d for i, d in enumerate(deals) if scores.as_dict(i) != play(d).as_dict()] == []


@pytest.mark.parametrize("seats", [3, 4])
def test_entry_points_on_one_buffer_of_random_deals(seats):
    deals, sizes = random_deals(RANDOM_DEALS, seed_state(RANDOM_SEEDS[seats]), seats)
    assert all(is_standard(decode(row, sizes[0])) for row in deals)
    flat = deals.reshape(-1)
    for i in range(0, len(deals), 10):  # the per-deal entry points at offsets into one buffer
        want = play(decode(deals[i], sizes[i])).as_dict()
        assert exact_as_reference(play_exact_at(flat, i * 52, sizes[i])) == want
        cards, tricks, code = play_fast_at(flat, i * 52, sizes[i], BIG_CAP)
        assert (cards, tricks, code) == (want["cards"], want["tricks"], want["winner"])


def test_fast_path_stops_past_the_cap():
    row, sizes = encode(parse_deal("---KKQ-AQJ----Q-Q-/AJ--J---A-JK-----/----------K--A---"))
    assert play_fast_at(row, 0, sizes, BIG_CAP) == (766, 116, 0)
    cards, tricks, code = play_fast_at(row, 0, sizes, 300)
    assert code == UNDECIDED and 300 < cards < 400 and tricks < 116
    loop_row, loop_sizes = encode(parse_deal("--QJ-/KJ-/J-"))
    assert play_fast_at(loop_row, 0, loop_sizes, 5000)[2] == UNDECIDED


LIMITED = [
    "--K/J-/---",
    "A--/-/K---",
    "Q/J/-/-",
    "--/-/",
    "-//",
    "//-",
    "/-J/Q-",
    "---KKQ-AQJ----Q-Q-/AJ--J---A-JK-----/----------K--A---",
    "-J-----------/K------K---K-/-QA--Q--AA-Q-/J-Q-JK---AJ--",
    "--QJ-/KJ-/J-",
    "/--QJ-/KJ-/J-",
    "-J-/--/J/-JJ-",
    CASELLA,
]


@pytest.mark.parametrize("text", LIMITED)
def test_card_limit(text):
    deal = parse_deal(text)
    row, sizes = encode(deal)
    full = play(deal)
    limits = {0, 1, 2, 3, 5, 8, 13, full.cards - 1, full.cards, full.cards + 1, 2 * full.cards}
    limits |= set(range(0, min(full.cards, 60), 3))
    for limit in sorted(x for x in limits if x >= 0):
        want = play(deal, limit=limit).as_dict()
        assert exact_as_reference(play_limit_at(row, 0, sizes, limit)) == want, limit


def test_card_limit_tie_has_no_winner():
    deal = parse_deal("-J/Q-/--")
    row, sizes = encode(deal)
    want = play(deal, limit=0)
    assert want.status == "limit" and want.winner is None
    assert exact_as_reference(play_limit_at(row, 0, sizes, 0)) == want.as_dict()


card = st.sampled_from(BIASED)


@properties(
    75,
    300,
    st.integers(2, 4),
    st.lists(card, min_size=1, max_size=64),
    st.lists(st.integers(0, 64), min_size=3, max_size=3),
)
def test_bounded_random_deals(seats, cards, cuts):
    assert_entry_points_agree(split_deal(cards, cuts, seats))


@st.composite
def looping_deals(draw) -> tuple:
    """3 or 4 seats, 8-12 cards of which two or three court cards, mostly jacks."""
    seats = draw(st.integers(3, 4))
    n = draw(st.integers(8, 12))
    places = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=3, unique=True))
    cards = tiny_deck(n, {at: draw(st.sampled_from((1, 1, 1, 2))) for at in places})
    return split_deal(cards, draw(st.lists(st.integers(0, n), min_size=3, max_size=3)), seats)


@properties(75, 300, looping_deals())
def test_tiny_decks_that_often_loop(deal):
    assert_entry_points_agree(deal)
    assert_entry_points_agree(deal, cap=0)


@settings(deadline=None, max_examples=100)
@given(
    st.integers(2, 4),
    st.lists(card, min_size=1, max_size=24),
    st.lists(st.integers(0, 24), min_size=3, max_size=3),
    st.integers(0, 400),
)
def test_bounded_card_limits(seats, cards, cuts, limit):
    deal = split_deal(cards, cuts, seats)
    row, sizes = encode(deal)
    got = exact_as_reference(play_limit_at(row, 0, sizes, limit))
    assert got == play(deal, limit=limit).as_dict()
