"""The lane kernels at 8 and at 4 lanes against the scalar kernels and the reference engine; the
vector operations they are written in; the choice between them and the scalar kernels.

test_oracle.py meets the lane kernels (device "lanes" of kernels/score.py's registry) at the
chosen lane count under every rule set. Here each lane count plays: the fast path against the
scalar kernel's fast path (cards, tricks and code of every deal, under FAST_CAP and under a cap
that stops thousands of games part way, each on the scalar kernel's trick); whole batches
against the reference engine, the published records mixed among random deals (lanes holding
games of very different lengths); rows narrower than the 64-card load, near the batch's end.
The fast tier compiles one lane specialisation of each kind (two seats at 8 and 4 lanes, four
seats at 8); the other seat counts, lane counts and rule sets are in the slow tier.
"""

import numpy as np
import pytest
import samples
from edge_cases import EDGE_CASES, small_decks, standard_deals
from numba import njit
from tiers import sizes

from bmn.kernels.config import FAST_CAP, MAX_CARDS, UNDECIDED
from bmn.kernels.cpu import choice, nseat, two
from bmn.kernels.cpu.vectors import (
    any_lane,
    ctlz,
    cttz,
    extract,
    iota,
    lane_bits,
    lane_mask,
    select,
    splat,
    umin,
)
from bmn.kernels.deal import Deal, encode, format_deal
from bmn.kernels.dealer import random_deals
from bmn.kernels.reference import play
from bmn.kernels.results import Scores
from bmn.kernels.rng import seed_state
from bmn.kernels.score import LANES, kernel_for

SEED = 20_261_207
CAP = 300  # stops about a quarter of random standard games part way

# (seats, lanes): the fast tier's lane kernels, then the slow tier's.
QUICK = [(2, 8), (2, 4), (4, 8)]
WHOLE = [(3, 8), (3, 4), (4, 4)]
SHAPES = [pytest.param(shape, id=f"{shape[0]}seats-{shape[1]}lanes") for shape in QUICK] + [
    pytest.param(shape, id=f"{shape[0]}seats-{shape[1]}lanes", marks=pytest.mark.slow)
    for shape in WHOLE
]


def lane_kernel(seats: int, lanes: int, rules: str | None = None):
    kernel = kernel_for(seats, LANES, rules, lanes)
    assert kernel is not None
    return kernel


def scalar_fast(deals: np.ndarray, sizes: np.ndarray, cap: int) -> np.ndarray:
    """The scalar kernel's fast path on every deal: rows of (cards, tricks, code)."""
    seats = sizes.shape[1]
    flat = np.ascontiguousarray(deals).reshape(-1)
    width = deals.shape[1]
    out = np.zeros((len(deals), 3), dtype=np.int64)
    for i in range(len(deals)):
        hands = np.ascontiguousarray(sizes[i])
        if seats == 2:
            out[i] = two.fast_at(flat, i * width, hands[0], hands[1], cap)
        else:
            out[i] = nseat.play_fast_at(flat, i * width, hands, cap)
    return out


def batch(deals: list[Deal], seats: int, width: int = MAX_CARDS) -> tuple[np.ndarray, np.ndarray]:
    rows = np.zeros((len(deals), width), dtype=np.uint8)
    hands = np.zeros((len(deals), seats), dtype=np.int64)
    for i, deal in enumerate(deals):
        rows[i], hands[i] = encode(deal, width)
    return rows, hands


def assert_like_reference(
    kernel, deals: list[Deal], seats: int, width: int = MAX_CARDS, rules=None
):
    rows, hands = batch(deals, seats, width)
    out = Scores.empty(len(deals))
    kernel.score_rows(rows, hands, np.arange(len(deals)), out, FAST_CAP)
    bad = [
        format_deal(deal)
        for i, deal in enumerate(deals)
        if out.as_dict(i) != play(deal, rules=rules).as_dict()
    ]
    assert bad == []


# -- the vector operations ----------------------------------------------------------------------


def _operations(count: int):
    @njit
    def run(a_values, b_values, bits):
        a = splat(0, count)
        b = splat(0, count)
        for lane in range(count):
            on = lane_mask(np.uint64(1) << np.uint64(lane), count)
            a = select(on, a_values[lane], a)
            b = select(on, b_values[lane], b)
        lanes = iota(count)
        results = (
            a + b, a - b, a & b, a | b, a ^ b, a << (b & 63), a >> (b & 63),
            umin(a, b), cttz(a), ctlz(a), select(a < b, a, b + 1),
            select(lane_mask(bits, count), a, 7), lanes, a + 1, 3 - a,
        )  # fmt: skip
        out = np.zeros((len(results), count), dtype=np.uint64)
        for k in range(len(results)):
            for lane in range(count):
                out[k, lane] = extract(results[k], lane)
        masks = (
            lane_bits(a == b), lane_bits(a != b), lane_bits(a <= b), lane_bits(a > b),
            lane_bits(a >= b), lane_bits(~(a < b) & (a != b)), lane_bits((a < b) | (a == b)),
        )  # fmt: skip
        return out, masks, any_lane(a > b), any_lane(a > a)

    return run


@pytest.mark.parametrize("count", [8, 4])
def test_vector_operations_lane_by_lane(count):
    rng = np.random.default_rng(SEED)
    a = rng.integers(0, 1 << 63, count, dtype=np.uint64) >> rng.integers(0, 64, count).astype(
        np.uint64
    )
    a[0] = 0  # count-trailing-zeros and leading-zeros of zero: 64
    b = rng.integers(0, 1 << 63, count, dtype=np.uint64)
    b[1] = a[1]
    out, masks, some, none = _operations(count)(a, b, 0b101)
    m64 = np.uint64(63)
    with np.errstate(over="ignore"):
        expected = [
            a + b, a - b, a & b, a | b, a ^ b, a << (b & m64), a >> (b & m64),
            np.minimum(a, b),
            [64 if x == 0 else (int(x) & -int(x)).bit_length() - 1 for x in a],
            [64 - int(x).bit_length() for x in a],
            np.where(a < b, a, b + np.uint64(1)),
            np.where(np.isin(np.arange(count), [0, 2]), a, 7),
            np.arange(count), a + np.uint64(1), np.uint64(3) - a,
        ]  # fmt: skip
    for k, want in enumerate(expected):
        assert out[k].tolist() == np.asarray(want, dtype=np.uint64).tolist(), k
    bits = [sum(1 << i for i in range(count) if cond[i]) for cond in (
        a == b, a != b, a <= b, a > b, a >= b, a > b, a <= b
    )]  # fmt: skip
    assert list(masks) == bits
    assert some == bool((a > b).any()) and none is False


# -- the fast path against the scalar kernel's --------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("deals", sizes(4_000, 200_000))
def test_fast_path_matches_the_scalar_kernel(shape, deals):
    """Every deal's cards, tricks and winner; under CAP each capped game stopped on the scalar
    kernel's trick, with its figures there."""
    seats, lanes = shape
    rows, hands = random_deals(deals, seed_state(SEED + seats), seats)
    kernel = lane_kernel(seats, lanes)
    for cap in (FAST_CAP, CAP):
        got = np.stack(kernel.fast_rows(rows, hands, cap), axis=1)
        want = scalar_fast(rows, hands, cap)
        differ = np.flatnonzero((got != want).any(axis=1))
        assert differ.tolist() == [], (cap, got[differ[:3]], want[differ[:3]])
        if cap == CAP:
            assert (want[:, 2] == UNDECIDED).sum() > deals // 10  # the cap stops many games


@pytest.mark.parametrize("shape", SHAPES)
def test_records_among_random_deals(shape):
    """The published games (and the edge cases) scattered among random deals: lanes holding
    games of very different lengths, refilled at different steps."""
    seats, lanes = shape
    cases = [c.deal for c in EDGE_CASES[seats]]
    rng = np.random.default_rng(SEED)
    deals = standard_deals(300, seats, SEED) + cases
    order = rng.permutation(len(deals))
    assert_like_reference(lane_kernel(seats, lanes), [deals[i] for i in order], seats)


@pytest.mark.parametrize("shape", SHAPES)
def test_narrow_rows_near_the_end_of_the_batch(shape):
    """Rows as wide as their deals: the last deals lie closer than 64 bytes to the batch's end
    (read card by card there), and empty or lone hands go to the scalar answer."""
    seats, lanes = shape
    deals = small_decks(200, seats, SEED + 1)
    width = max(sum(map(len, d)) for d in deals)
    assert_like_reference(lane_kernel(seats, lanes), deals, seats, width)
    tiny = [tuple((4,) if s == 1 else () for s in range(seats))]  # one hand: no game in lanes
    tiny += [deal for deal in small_decks(100, seats, SEED + 2) if sum(map(len, deal)) <= 6]
    assert_like_reference(lane_kernel(seats, lanes), tiny, seats, 6)
    if seats == 2:  # a loop replayed exactly from a row 52 cards wide, the batch's last
        assert_like_reference(
            lane_kernel(seats, lanes), [samples.RECORD_DEAL, samples.LOOP_DEAL], 2, 52
        )


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["leodog896", "n1k06"])
def test_two_seat_rule_sets_at_four_lanes(rules):
    """The lane count and a rule set's flags are apart in the code (test_oracle.py meets every
    rule set's copy at eight lanes): one set that ends a game at once and counts battles, one
    that plays on into an empty hand, at four."""
    kernel = lane_kernel(2, 4, rules)
    deals = standard_deals(500, 2, SEED) + [c.deal for c in EDGE_CASES[2]]
    assert_like_reference(kernel, deals, 2, rules=rules)
    rows, hands = batch(deals, 2)
    got = np.stack(kernel.fast_rows(rows, hands, CAP), axis=1)
    want = scalar_fast_ruled(rows, hands, CAP, rules)
    assert np.array_equal(got, want)


def scalar_fast_ruled(rows: np.ndarray, hands: np.ndarray, cap: int, rules: str) -> np.ndarray:
    fast_at = kernel_for(2, "cpu", rules).fast_at
    flat = rows.reshape(-1)
    return np.array(
        [fast_at(flat, i * rows.shape[1], h[0], h[1], cap) for i, h in enumerate(hands)]
    )


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "lanes"), [(3, 4)])
def test_paulhus_reading_at_four_lanes(seats, lanes):
    deals = standard_deals(500, seats, SEED) + [c.deal for c in EDGE_CASES[seats]]
    assert_like_reference(lane_kernel(seats, lanes, "paulhus"), deals, seats, rules="paulhus")


# -- the choice ----------------------------------------------------------------------------------

AVX512 = ("znver4", {"sse2", "avx", "avx2", "avx512f", "avx512bw"})
AVX2 = ("haswell", {"sse2", "avx", "avx2"})
SSE2 = ("x86-64", {"sse2"})
ARM = ("neoverse-n1", {"neon"})


@pytest.mark.parametrize(
    ("cpu", "engine", "lanes", "bits"),
    [(AVX512, "lanes", 8, 512), (AVX2, "lanes", 4, 256), (SSE2, "scalar", 1, 128),
     (ARM, "scalar", 1, 128)],
)  # fmt: skip
def test_the_cpu_chooses(cpu, engine, lanes, bits):
    made = choice.choose(None, cpu)
    assert (made.engine, made.lanes, made.vector_bits, made.forced) == (engine, lanes, bits, False)
    assert made.cpu == cpu[0] and made.cpu in made.words()


def test_a_request_forces_the_choice():
    assert choice.choose("scalar", AVX512).engine == "scalar"
    assert choice.choose("SCALAR", AVX512).forced
    assert (choice.choose("lanes4", AVX512).lanes, choice.choose("lanes8", SSE2).lanes) == (4, 8)
    assert choice.choose("lanes", SSE2).engine == "lanes"
    assert choice.choose("auto", AVX2) == choice.choose(None, AVX2)
    assert choice.choose("lanes", AVX512).forced
    with pytest.raises(ValueError, match="unknown kernel 'simd'"):
        choice.choose("simd", AVX512)


def test_the_process_choice_reads_the_environment(monkeypatch):
    before = choice.chosen()
    try:
        monkeypatch.setenv(choice.ENV, "scalar")
        choice.chosen.cache_clear()
        assert choice.chosen().engine == "scalar" and choice.chosen().forced
        assert choice.force("lanes4").lanes == 4
    finally:
        monkeypatch.undo()
        choice.chosen.cache_clear()
    assert choice.chosen() == before


@pytest.mark.parametrize("shape", SHAPES)
def test_deals_of_many_court_cards(shape):
    """More court cards than a lane's queue of values holds (N seats: 31) go to the scalar
    kernel, in lanes among the others."""
    seats, lanes = shape
    rng = np.random.default_rng(SEED + 3)
    deals = []
    for courts in (28, 31, 32, 40, 48):
        cards = [
            int(v) for v in rng.permutation([1, 2, 3, 4] * (courts // 4) + [0] * (64 - courts))
        ]
        deals.append(tuple(tuple(cards[s::seats]) for s in range(seats)))
    deals += standard_deals(40, seats, SEED)
    assert_like_reference(lane_kernel(seats, lanes), deals, seats)
