"""The compiled N-seat kernel (2 to 4 seats), always against the reference engine."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import exact_as_reference

from bmn.kernels.config import FINISHED, LOOP, UNDECIDED
from bmn.kernels.cpu.nseat import (
    NO_LIMIT,
    play_exact_at,
    play_fast_at,
    play_limit_at,
    random_deals,
    score_rows,
    standard_sizes,
)
from bmn.kernels.deal import decode, encode, is_standard, parse_deal
from bmn.kernels.reference import play
from bmn.kernels.results import Scores
from bmn.kernels.rng import seed_state

BIG_CAP = 1_000_000
RANDOM_SEEDS = {3: 20_251_203, 4: 20_251_204}
RANDOM_DEALS = 1500

# RULES.md's worked examples, with the figures it gives.
WORKED = [
    ("---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---", (FINISHED, 8344, 1164, 1)),
    ("-J/Q-", (FINISHED, 4, 1, 0)),
    ("--K/J-/---", (FINISHED, 10, 2, 1)),
    ("A--/-/K---", (FINISHED, 9, 2, 0)),
    ("Q/J/-/-", (FINISHED, 6, 3, 1)),
    ("---KKQ-AQJ----Q-Q-/AJ--J---A-JK-----/----------K--A---", (FINISHED, 766, 116, 0)),
    ("-J-----------/K------K---K-/-QA--Q--AA-Q-/J-Q-JK---AJ--", (FINISHED, 421, 55, 0)),
]
WORKED_LOOP = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"

# One deal for each branch of the rules, and the shapes a bit-queue could get wrong.
EDGE = [
    "A/--/-",  # seat 1 pays its last two cards and is out while paying
    "A/-/--",  # seat 1 runs out while paying, part paid: seat 0 takes the pile
    "J/-/-",  # the penalty paid with the payer's last card; seat 2 still holds one
    "--K/J-/---",  # seat 2 out while paying seat 1's J (RULES.md)
    "A--/-/K---",  # seat 1 out on an ordinary turn, the pile stays (RULES.md)
    "--/-/",  # seat 2 out on an ordinary turn, then seat 1: seat 0 is left with the pile
    "-/-/-",  # seats 1 and 2 run out in one trick of numerals
    "--/--/-/J",  # a seat out in free play, then a court card
    "Q/J/-/-",  # every court card a seat's last card (RULES.md)
    "---J/A---/-",  # a court card as a seat's last card
    "J/J/J",
    "J/J/J/J",
    "A/A/A/A",
    "-/-/-/-",
    "/-J/Q-",  # seat 0 holds nothing: out before a card is laid, seat 1 leads
    "//-J/Q-",
    "/J/-/",
    "-J//Q-",  # seat 1 empty at the start, out when first asked
    "-J/Q-//",
    "-//",  # one holder: it lays a card and every other seat goes out
    "/-/",
    "//-",  # the last seat holds everything: the others go out, no card is laid
    "///J",
    "J///",
    "/A//",
    "K/-/AAAA",
    "-" * 63 + "/J/",  # 64 cards, hands as unequal as they get
    "J" * 64 + "//",
    "//" + "-" * 64,
    "/" + "A" * 64 + "//",
    "-" * 16 + "/" + "-" * 16 + "/" + "-" * 16 + "/" + "-" * 16,
    "A" * 16 + "/" + "A" * 16 + "/" + "A" * 16 + "/" + "A" * 16,
    "J" * 21 + "/" + "Q" * 21 + "/" + "K" * 22,
    "-" * 62 + "/J/Q",
    "-" * 61 + "/A/K/Q",
]

# Deals that never end, found with the reference engine. Most 3- and 4-seat cycles keep only
# two or three seats holding cards; the last four keep all four.
LOOPS = [
    WORKED_LOOP,
    "--J-/J-",
    "/--J-/J-",  # seat 0 out before the first card: the cycle starts after trick 1
    "-JQ/-/--J-",
    "--QJ-/KJ-/J-",  # three seats, the cycle starts at the deal itself
    "/--QJ-/KJ-/J-",  # the same cycle behind an empty seat 0
    "J--K/-QJ-/J-",
    "-------J-/-JJ-----/-J-",
    "-J-/--/J/-JJ-",
    "--J/-Q-/----/---J-",
    "-J/---/-K-/----Q-----",
    "-Q/---/--Q--/-Q--",
    "-/------J-/--------J-/Q",
    "--J/--/JA/-",
    "---Q-/----Q/QQ---/--QK-",
    "---Q-/----Q/Q----/--QK-",
    "---A--/--Q---/----Q-/-----J",
    "-----Q-/--J----/Q-----------/----------J---",
]


def batch(deals) -> tuple[np.ndarray, np.ndarray]:
    """Deals of one seat count as rows (width 64) and hand sizes."""
    rows = [encode(deal, 64) for deal in deals]
    return np.array([r for r, _ in rows]), np.array([s for _, s in rows])


def score_all(deals, cap: int = 20_000) -> Scores:
    rows, sizes = batch(deals)
    out = Scores.empty(len(deals))
    score_rows(rows, sizes, np.arange(len(deals)), out, cap)
    return out


def assert_agrees(deal, cap: int = 20_000) -> None:
    """score_rows, play_exact_at and play_fast_at all give the reference engine's result."""
    want = play(deal).as_dict()
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


def split_deal(cards: list[int], cuts: list[int], seats: int) -> tuple:
    """Cards cut into `seats` hands at the cut points (taken modulo len + 1), seat 0 first."""
    ends = [0, *sorted(c % (len(cards) + 1) for c in cuts[: seats - 1]), len(cards)]
    return tuple(tuple(cards[ends[i] : ends[i + 1]]) for i in range(seats))


def tiny_deck(n: int, courts: dict[int, int]) -> list[int]:
    """n cards, numerals but for courts {position: value}: such decks often loop."""
    return [courts.get(at, 0) for at in range(n)]


@pytest.mark.parametrize(("text", "figures"), WORKED, ids=[w[0][:24] for w in WORKED])
def test_worked_examples(text, figures):
    deal = parse_deal(text)
    assert_agrees(deal)
    row, sizes = encode(deal)
    assert play_exact_at(row, 0, sizes)[:4] == figures


def test_worked_loop_figures():
    row, sizes = encode(parse_deal(WORKED_LOOP))
    assert play_exact_at(row, 0, sizes) == (LOOP, 474, 66, -1, 34, 4, 440, 62)


@pytest.mark.parametrize("text", EDGE)
def test_edge_cases(text):
    assert_agrees(parse_deal(text))


def test_no_cards_at_all():
    # parse_deal refuses it, but a batch row can hold it: every seat goes out, the last is left
    for seats in (2, 3, 4):
        deal = ((),) * seats
        assert_agrees(deal)


@pytest.mark.parametrize("text", LOOPS)
def test_loops(text):
    deal = parse_deal(text)
    assert play(deal).status == "loop"
    assert_agrees(deal)
    assert_agrees(deal, cap=0)  # every game replayed exactly from the first trick


@pytest.mark.parametrize("text", LOOPS[-4:])
def test_four_seat_cycles_keep_every_seat_holding(text):
    result = play(parse_deal(text), trace=True)
    cycle = result.trace[result.loop_start_tricks :]
    assert any(min(trick.hand_sizes) > 0 for trick in cycle)


def test_three_and_four_seat_cycles_are_exact():
    three = parse_deal("--QJ-/KJ-/J-")
    assert play(three).as_dict() == exact_as_reference((LOOP, 24, 6, -1, 0, 0, 24, 6))
    row, sizes = encode(three)
    assert play_exact_at(row, 0, sizes) == (LOOP, 24, 6, -1, 0, 0, 24, 6)
    behind = parse_deal("/--QJ-/KJ-/J-")  # the opening state cannot come back
    row, sizes = encode(behind)
    assert play_exact_at(row, 0, sizes)[5] == 1
    assert exact_as_reference(play_exact_at(row, 0, sizes)) == play(behind).as_dict()


def every_deal(seats: int, most: int):
    """Every deal of up to `most` cards (any values) over `seats` seats, each split."""
    for n in range(1, most + 1):
        for cards in itertools.product(range(5), repeat=n):
            for cuts in itertools.combinations_with_replacement(range(n + 1), seats - 1):
                ends = (0, *cuts, n)
                yield tuple(cards[ends[i] : ends[i + 1]] for i in range(seats))


@pytest.mark.parametrize(("seats", "most"), [(2, 4), (3, 4), (4, 3)])
def test_every_small_deal(seats, most):
    deals = list(every_deal(seats, most))
    scores = score_all(deals, cap=20)
    assert [d for i, d in enumerate(deals) if scores.as_dict(i) != play(d).as_dict()] == []


@pytest.fixture(scope="module", params=[3, 4])
def standard_batch(request):
    seats = request.param
    deals = random_deals(RANDOM_DEALS, seats, seed_state(RANDOM_SEEDS[seats]))
    sizes = np.tile(standard_sizes(seats), (RANDOM_DEALS, 1))
    return seats, deals, sizes


def test_random_standard_deals(standard_batch):
    seats, deals, sizes = standard_batch
    assert all(is_standard(decode(row, sizes[0])) for row in deals[:200])
    out = Scores.empty(len(deals))
    score_rows(deals, sizes, np.arange(len(deals)), out, 20_000)
    want = [play(decode(row, sizes[0])).as_dict() for row in deals]
    assert [i for i in range(len(deals)) if out.as_dict(i) != want[i]] == []
    for i in range(0, len(deals), 50):  # the per-deal entry points on the same buffer
        flat = deals.reshape(-1)
        assert exact_as_reference(play_exact_at(flat, i * 52, sizes[i])) == want[i]
        cards, tricks, code = play_fast_at(flat, i * 52, sizes[i], BIG_CAP)
        assert (cards, tricks, code) == (want[i]["cards"], want[i]["tricks"], want[i]["winner"])


def test_random_deals_are_reproducible():
    a = random_deals(20, 3, seed_state(5))
    assert np.array_equal(a, random_deals(20, 3, seed_state(5)))
    assert not np.array_equal(a, random_deals(20, 3, seed_state(6)))
    assert list(standard_sizes(3)) == [18, 17, 17] and list(standard_sizes(4)) == [13] * 4


def test_score_rows_writes_only_its_rows():
    deals = [parse_deal(text) for text in ("--K/J-/---", WORKED_LOOP[:-1] + "/-", "Q/J/-")]
    rows, sizes = batch(deals)
    out = Scores.empty(4)
    out.cards[:] = 99
    score_rows(rows, sizes, np.array([0, 2]), out, 20_000)
    assert out.as_dict(0) == play(deals[0]).as_dict()
    assert out.as_dict(2) == play(deals[2]).as_dict()
    assert out.cards[1] == 99 and out.cards[3] == 99


def test_fast_path_stops_past_the_cap():
    row, sizes = encode(parse_deal(WORKED[-2][0]))
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
    WORKED_LOOP,
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


@pytest.mark.parametrize("seats", [3, 4])
def test_seeded_tiny_decks_with_many_loops(seats):
    rng = np.random.default_rng(20_251_205 + seats)
    deals = []
    for _ in range(1500):  # 8-12 cards, two or three of them jacks
        n = int(rng.integers(8, 13))
        jacks = rng.choice(n, size=int(rng.integers(2, 4)), replace=False)
        cards = tiny_deck(n, {int(at): 1 for at in jacks})
        deals.append(split_deal(cards, [int(c) for c in rng.integers(0, n + 1, 3)], seats))
    scores = score_all(deals, cap=200)
    want = [play(deal).as_dict() for deal in deals]
    assert [d for i, d in enumerate(deals) if scores.as_dict(i) != want[i]] == []
    assert sum(w["status"] == "loop" for w in want) >= 60


card = st.sampled_from((0, 0, 0, 0, 0, 1, 2, 3, 4))


@settings(deadline=None, max_examples=300)
@given(
    st.integers(2, 4),
    st.lists(card, min_size=1, max_size=64),
    st.lists(st.integers(0, 64), min_size=3, max_size=3),
)
def test_bounded_random_deals(seats, cards, cuts):
    assert_agrees(split_deal(cards, cuts, seats))


@st.composite
def looping_deals(draw) -> tuple:
    """3 or 4 seats, 8-12 cards of which two or three court cards, mostly jacks."""
    seats = draw(st.integers(3, 4))
    n = draw(st.integers(8, 12))
    places = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=3, unique=True))
    cards = tiny_deck(n, {at: draw(st.sampled_from((1, 1, 1, 2))) for at in places})
    return split_deal(cards, draw(st.lists(st.integers(0, n), min_size=3, max_size=3)), seats)


@settings(deadline=None, max_examples=300)
@given(looping_deals())
def test_tiny_decks_that_often_loop(deal):
    assert_agrees(deal)
    assert_agrees(deal, cap=0)


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
