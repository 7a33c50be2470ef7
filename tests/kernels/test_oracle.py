"""Every registered kernel against the reference engine, field by field, exactly.

The suite is parametrised over kernels/score.py's registry itself: each (seats, device) entry of
`KERNELS` is scored on the shared edge cases for its seat count (edge_cases.py), on every deal of
a few cards, on seeded random deals (standard decks dealt round the table, small decks cut
anywhere, tiny decks that often loop) and, on the CPU, on hypothesis's bounded deals. Each batch
goes through `score` (the fast path at FAST_CAP) and through the kernel's own
`score_rows(deals, sizes, rows, out, cap)` at small caps, which send games to the exact path
part way or from the first trick.

Adding a kernel: register it in kernels/score.py (`KERNELS[(seats, device)] = "module"`); this
suite picks it up. A device whose kernels run under Numba's CUDA simulator goes in
SIMULATED_DEVICES: its entries run only in a child interpreter with the simulator on (one test
here, test_simulated_kernels, as tests/simulator.py explains), on the smaller batches of its
BUDGETS line. Tests of a kernel's own entry points stay in its own file (test_two.py, ...).
The lane kernels are registered as device "lanes" and met here at the chosen lane count
(kernels/cpu/choice.py; 8 where the CPU does not choose lanes); test_lanes.py plays them at 8
and 4 lanes against the scalar kernels.

Tiers: `-m "not slow"` runs every check on a quick sample; `-m slow` runs the big batches and
the larger exhaustive decks, and the simulator child (which runs both tiers of its entries).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields

import numpy as np
import pytest
from edge_cases import (
    BIASED,
    EDGE_CASES,
    FULL_TABLE_LOOPS,
    SEAT_COUNTS,
    every_deal,
    looping_decks,
    small_decks,
    split_deal,
    standard_deals,
    tiny_deck,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from simulator import SIMULATED, run_under_simulator

from bmn.kernels.config import MAX_CARDS
from bmn.kernels.deal import Deal, encode, format_deal, parse_deal
from bmn.kernels.reference import play
from bmn.kernels.results import Scores
from bmn.kernels.rules.flags import differences
from bmn.kernels.rules.sets import AT_TRICKS, DEFAULT, NO_LOOPS, RULE_SETS
from bmn.kernels.score import KERNELS, LANES, kernel_for, numba_threads, score

# Devices whose kernels run under Numba's CUDA simulator, in the child interpreter only.
SIMULATED_DEVICES = {"cuda"}


@dataclass(frozen=True)
class Budget:
    """How much of each check a device's kernels get."""

    fewer_cards: int  # exhaustive decks this many cards smaller than EVERY_DEAL's
    share: float  # this share of the seeded random deals
    examples: bool  # hypothesis (one call per example: too slow under the simulator)
    # The batches' first pass: None, through `score` (FAST_CAP); or score_rows at this cap, which
    # spares the simulator playing each loop to 20,000 cards (the edge cases still use `score`).
    cap: int | None


BUDGETS = {"cpu": Budget(0, 1.0, True, None), "simulator": Budget(1, 0.05, False, 2_000)}

# The slow tier's share of random deals for a rule set other than the default: its kernel is
# the default's with a few trick rules frozen otherwise, and test_each_rule_set_changes_some_
# edge_case shows the batches meet them; a quarter still plays thousands of games through them.
RULED_SHARE = 0.25
# Every deal of up to this many cards (the fast tier; the slow tier, one card more).
EVERY_DEAL = {2: 5, 3: 4, 4: 3}
# Seeded random deals per check: (fast tier, slow tier).
STANDARD = {2: (300, 20_000), 3: (300, 5_000), 4: (300, 5_000)}
SMALL_DECKS = (300, 5_000)
LOOPING_DECKS = (1_500, 15_000)
# About one of these decks in 22 loops with two seats, one in 14 with three or four: at least
# one in this many must, or the generator has stopped making loops.
LOOP_EVERY = {2: 40, 3: 25, 4: 25}
SEEDS = {"standard": 20_251_129, "small": 20_251_301, "looping": 20_251_205}
# Caps for score_rows beside score's FAST_CAP: games past them are replayed exactly.
SMALL_CAPS = (24, 0)
# Batches this big run on numba's threads; smaller ones (a hypothesis example) on one, since
# waking threads for one deal costs far more than the deal on a busy machine.
PARALLEL_FROM = 64

# The entries this process scores: the simulated ones only in the simulator's child, each
# under every rule set (kernels/rules/sets.py) that plays its seat count unlike the default and
# looks for loops (the reference engine needs a limit for one that does not): a rule set that
# plays it alike runs the same compiled code (test_rule_sets_alike_share_a_kernel).
ENTRIES = sorted(key for key in KERNELS if (key[1] in SIMULATED_DEVICES) == SIMULATED)
KEYS = [
    (seats, device, name)
    for seats, device in ENTRIES
    for name, rules in RULE_SETS.items()
    if rules.plays(seats)
    and rules.loops != NO_LOOPS
    and (name == DEFAULT or differences(rules, seats) or rules.loops != AT_TRICKS)
]


def key_id(key: tuple[int, str, str]) -> str:
    return f"{key[0]}-{key[1]}-{key[2]}"


TIERS = ("fast", "slow")


def tiered(keys: list[tuple[int, str, str]]) -> list:
    """(key, tier) for every key: the fast tier, and the slow one marked slow. A rule set
    other than the default meets these batches in the slow tier only on the CPU (the fast
    tier checks its copy on the edge cases, test_edge_cases). Under the simulator it gets the
    fast tier's batch only: its copy differs from the default's only in the trick rules,
    which the CPU's slow tier covers. So does a rule set's copy of the lane kernels: the
    scalar kernel's copy meets the whole batches (and test_lanes.py the lanes' copies at four
    lanes)."""
    return [
        pytest.param(key, tier, id=f"{key_id(key)}-{TIERS[tier]}", marks=tier_marks(key, tier))
        for key in keys
        for tier in (0, 1)
        if not (tier and key[1] in (*SIMULATED_DEVICES, LANES) and key[2] != DEFAULT)
    ]


def tier_marks(key: tuple[int, str, str], tier: int) -> list:
    """The slow mark for the slow tier, and for a rule set's batches on the CPU (and the
    three-seat lane kernel's: lanes_slow)."""
    on_cpu_ruled = key[2] != DEFAULT and key[1] not in SIMULATED_DEVICES
    return [pytest.mark.slow] if tier or on_cpu_ruled or lanes_slow(key) else []


def per_key(keys: list[tuple[int, str, str]]) -> list:
    """Every key once: a rule set's copy of the lane kernels in the slow tier only (each is
    seconds of a first compile; the scalar kernels' copies, which they share their rules with
    through kernels/rules/copies.py, stay in the fast tier)."""
    return [pytest.param(key, id=key_id(key), marks=lane_copy_marks(key)) for key in keys]


def lane_copy_marks(key: tuple[int, str, str]) -> list:
    return [pytest.mark.slow] if lanes_slow(key) else []


def lanes_slow(key: tuple[int, str, str]) -> bool:
    """Whether a lane kernel's checks are the slow tier's: a rule set's copy, and the
    three-seat one (a copy of the four-seat kernel with a seat fewer, test_lanes.py's too),
    so that the fast tier compiles one lane kernel of each kind."""
    return key[1] == LANES and (key[2] != DEFAULT or key[0] == 3)


def budget(key: tuple[int, str, str]) -> Budget:
    return BUDGETS["simulator" if key[1] in SIMULATED_DEVICES else "cpu"]


def how_many(key: tuple[int, str, str], counts: tuple[int, int], tier: int) -> int:
    ruled = RULED_SHARE if tier and key[2] != DEFAULT else 1.0
    return max(1, round(counts[tier] * budget(key).share * ruled))


def batch(deals: list[Deal], seats: int) -> tuple[np.ndarray, np.ndarray]:
    """Deals as rows 64 cards wide (zero padded) and their hand sizes, (N, seats)."""
    rows = np.zeros((len(deals), MAX_CARDS), dtype=np.uint8)
    sizes = np.zeros((len(deals), seats), dtype=np.int64)
    for i, deal in enumerate(deals):
        rows[i], sizes[i] = encode(deal, MAX_CARDS)
    return rows, sizes


def reference_scores(deals: list[Deal], rules: str = DEFAULT) -> Scores:
    """The reference engine's figures, played once per process for a batch and rule set: the
    kernels registered for one seat count meet the same batches (read only)."""
    return _reference_scores(tuple(deals), rules)


@functools.lru_cache(maxsize=16)
def _reference_scores(deals: tuple[Deal, ...], rules: str) -> Scores:
    want = Scores.empty(len(deals))
    for i, deal in enumerate(deals):
        want._set_from(i, play(deal, rules=rules))
    return want


def assert_agrees(
    key: tuple[int, str, str],
    deals: list[Deal],
    whys: list[str] | None = None,
    full: bool = False,
) -> None:
    """The kernel registered as `key` (seats, device) gives the reference engine's figures
    under `key`'s rule set for every deal, in every field of Scores: through `score` (or
    score_rows at its budget's cap, unless `full`) and through its score_rows at each of
    SMALL_CAPS."""
    seats, device, rules = key
    assert all(len(deal) == seats for deal in deals)
    want = reference_scores(deals, rules)
    rows, sizes = batch(deals, seats)
    threads = None if len(deals) >= PARALLEL_FROM else 1
    kernel = kernel_for(seats, device, rules)
    assert kernel is not None, f"no compiled kernel plays rule set {rules!r}"
    first = None if full else budget(key).cap
    runs = {}
    if first is None:
        runs["score"] = score(rows, sizes, threads, device, rules)
    for cap in SMALL_CAPS if first is None else (first, *SMALL_CAPS):
        out = Scores.empty(len(deals))
        with numba_threads(threads):
            kernel.score_rows(rows, sizes, np.arange(len(deals)), out, cap)
        runs[f"score_rows cap {cap}"] = out
    bad = []
    for how, got in runs.items():
        for name in (f.name for f in fields(Scores)):
            mine, theirs = getattr(got, name), getattr(want, name)
            for i in np.flatnonzero(mine != theirs):
                why = f" ({whys[i]})" if whys else ""
                bad.append(f"{how}: {format_deal(deals[i])}{why}: {name} {mine[i]} != {theirs[i]}")
    assert not bad, f"{len(bad)} differences:\n" + "\n".join(bad[:30])


# -- the shared lists themselves (this process only) ------------------------------------------


def parent_only(test):
    test.__test__ = not SIMULATED
    return test


@parent_only
def test_every_seat_count_has_a_list_of_kernel_sized_deals():
    assert sorted(EDGE_CASES) == list(SEAT_COUNTS)
    assert {seats for seats, _ in KERNELS} <= set(SEAT_COUNTS)
    for seats, cases in EDGE_CASES.items():
        assert all(len(c.deal) == seats and c.why for c in cases)
        assert max(sum(map(len, c.deal)) for c in cases) <= MAX_CARDS
        assert len({c.text for c in cases}) == len(cases)  # no deal listed twice


KNOWN = [c for seats in SEAT_COUNTS for c in EDGE_CASES[seats] if c.known]


@parent_only
@pytest.mark.parametrize("case", KNOWN, ids=[c.text[:24] for c in KNOWN])
def test_the_reference_gives_the_published_figures(case):
    result = play(case.deal).as_dict()
    assert {name: result[name] for name in case.known} == case.known


@parent_only
@pytest.mark.parametrize("text", FULL_TABLE_LOOPS)
def test_four_seat_cycles_that_keep_every_seat_holding(text):
    result = play(parse_deal(text), trace=True)
    cycle = result.trace[result.loop_start_tricks :]
    assert any(min(trick.hand_sizes) > 0 for trick in cycle)


@parent_only
@pytest.mark.slow  # a child interpreter: the slow tier, whatever the tiers of the checks in it
@pytest.mark.parametrize("tiers", ["all"] if KERNELS.keys() - set(KEYS) else [])
def test_simulated_kernels(tiers):
    """This file's checks of the SIMULATED_DEVICES entries, both tiers, in a child interpreter
    with the simulator on (on one core: tests/simulator.py)."""
    run_under_simulator(__file__)


# -- rule sets ----------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e[0]}-{e[1]}")
def test_rule_sets_alike_share_a_kernel(entry):
    """Rule sets that play these seats alike (kernels/rules/flags.py) run the same compiled
    code, the default's included, and rule sets that play them otherwise run code of their own:
    a rule set costs compile time only where it differs."""
    seats, device = entry
    ruled = [rules for rules in RULE_SETS.values() if rules.plays(seats)]
    for a in ruled:
        for b in ruled:
            same = kernel_for(seats, device, a) is kernel_for(seats, device, b)
            assert same == (differences(a, seats) == differences(b, seats)), (a.name, b.name)


@parent_only
@pytest.mark.parametrize("key", [k for k in KEYS if k[2] != DEFAULT], ids=key_id)
def test_each_rule_set_changes_some_edge_case(key):
    """The edge cases tell each rule set from the default: the checks above could fail."""
    deals = [c.deal for c in EDGE_CASES[key[0]]]
    assert any(play(deal, rules=key[2]) != play(deal) for deal in deals)


# -- every registered kernel ------------------------------------------------------------------


@pytest.mark.parametrize("key", per_key(KEYS))
def test_edge_cases(key):
    cases = EDGE_CASES[key[0]]
    assert_agrees(key, [c.deal for c in cases], [c.why for c in cases], full=True)


@pytest.mark.parametrize("key", per_key(KEYS))
def test_score_rows_writes_only_its_rows(key):
    seats, device, rules = key
    deals = [c.deal for c in EDGE_CASES[seats]]
    rows, sizes = batch(deals, seats)
    out = Scores.empty(len(deals))
    for array in out.arrays():
        array[:] = 7
    picked = np.arange(0, len(deals), 2)
    kernel_for(seats, device, rules).score_rows(rows, sizes, picked, out, 24)
    for i, deal in enumerate(deals):
        if i % 2:
            assert [int(array[i]) for array in out.arrays()] == [7] * 8, format_deal(deal)
        else:
            assert out.as_dict(i) == play(deal, rules=rules).as_dict(), format_deal(deal)


@pytest.mark.parametrize(("key", "tier"), tiered(KEYS))
def test_every_small_deal(key, tier):
    most = EVERY_DEAL[key[0]] + tier - budget(key).fewer_cards
    assert_agrees(key, list(every_deal(key[0], most)))


@pytest.mark.parametrize(("key", "tier"), tiered(KEYS))
def test_standard_deals(key, tier):
    seats = key[0]
    seed = SEEDS["standard"] + seats
    print(f"seed {seed}")
    assert_agrees(key, standard_deals(how_many(key, STANDARD[seats], tier), seats, seed))


@pytest.mark.parametrize(("key", "tier"), tiered(KEYS))
def test_small_decks_cut_anywhere(key, tier):
    seats = key[0]
    seed = SEEDS["small"] + seats
    print(f"seed {seed}")
    assert_agrees(key, small_decks(how_many(key, SMALL_DECKS, tier), seats, seed))


@pytest.mark.parametrize(("key", "tier"), tiered(KEYS))
def test_tiny_decks_with_many_loops(key, tier):
    seats = key[0]
    seed = SEEDS["looping"] + seats
    print(f"seed {seed}")
    deals = looping_decks(how_many(key, LOOPING_DECKS, tier), seats, seed)
    assert_agrees(key, deals)
    loops = sum(play(deal).status == "loop" for deal in deals)  # bmn's: the generator's check
    assert loops >= len(deals) // LOOP_EVERY[seats]


# -- hypothesis, on the devices that can afford one call per example ---------------------------
# Each example is a batch of one to six deals: more deals for the same number of calls, and a
# failure still shrinks to one deal. Slow tier: the fast tier's seeded random deals above cover
# the same kinds of deal on a quick sample.

# A rule set's copy of the lane kernels: the scalar kernel's copy meets these (as tiered says).
HYPOTHESIS_KEYS = [
    key for key in KEYS if budget(key).examples and not (key[1] == LANES and key[2] != DEFAULT)
]
EXAMPLES = 150


def with_examples(test):
    """Collected only where some kernel here gets hypothesis (none in the simulator's child)."""
    test.__test__ = bool(HYPOTHESIS_KEYS)
    return test


def deals_of(deal: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(deal, min_size=1, max_size=6)


def any_hands(seats: int) -> st.SearchStrategy:
    """`seats` hands of any cards, each at most MAX_CARDS // seats long."""
    hand = st.lists(st.integers(0, 4), max_size=MAX_CARDS // seats).map(tuple)
    return st.tuples(*[hand] * seats)


@st.composite
def split_decks(draw, seats: int) -> Deal:
    """Up to 64 cards, numerals weighted, cut anywhere."""
    cards = draw(st.lists(st.sampled_from(BIASED), min_size=1, max_size=MAX_CARDS))
    return split_deal(
        cards, draw(st.lists(st.integers(0, MAX_CARDS), min_size=3, max_size=3)), seats
    )


@st.composite
def looping_deals(draw, seats: int) -> Deal:
    """8-12 cards of which two or three court cards, mostly jacks, cut anywhere."""
    n = draw(st.integers(8, 12))
    places = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=3, unique=True))
    cards = tiny_deck(n, {at: draw(st.sampled_from((1, 1, 1, 2))) for at in places})
    return split_deal(cards, draw(st.lists(st.integers(0, n), min_size=3, max_size=3)), seats)


@with_examples
@pytest.mark.slow
@pytest.mark.parametrize("key", HYPOTHESIS_KEYS, ids=key_id)
@settings(deadline=None, max_examples=EXAMPLES)
@given(data=st.data())
def test_bounded_hands(key, data):
    assert_agrees(key, data.draw(deals_of(any_hands(key[0]))))


@with_examples
@pytest.mark.slow
@pytest.mark.parametrize("key", HYPOTHESIS_KEYS, ids=key_id)
@settings(deadline=None, max_examples=EXAMPLES)
@given(data=st.data())
def test_any_split_of_a_small_deck(key, data):
    assert_agrees(key, data.draw(deals_of(split_decks(key[0]))))


@with_examples
@pytest.mark.slow
@pytest.mark.parametrize("key", HYPOTHESIS_KEYS, ids=key_id)
@settings(deadline=None, max_examples=EXAMPLES)
@given(data=st.data())
def test_tiny_decks_that_often_loop(key, data):
    assert_agrees(key, data.draw(deals_of(looping_deals(key[0]))))
