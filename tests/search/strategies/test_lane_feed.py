"""The searches and the enumeration fed by the lane kernels score exactly what the scalar loops
score: the same deals, finds, best deals, counters and generator states, however the run is
cut into chunks, whichever kernels a run starts or resumes with.

Each lane-fed run is compared with the same run on the scalar kernels (kernels/cpu/choice.py's
choice forced), which test_longest.py and the oracle check against the reference engine.
"""

import json
import os

import numpy as np
import pytest

from bmn.kernels.cpu import choice
from bmn.kernels.decks import deck_of, parse_deck
from bmn.records.store import Store
from bmn.search.enumeration.cpu import score_run
from bmn.search.runs.kinds import longest as driver
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.loop import RunLoop
from bmn.search.strategies.cpu import run_chunk
from bmn.search.strategies.registry import STRATEGIES
from bmn.search.strategies.worker import LoopFinds, new_worker

FIELDS = ("deck", "best", "rng", "counters", "history")


@pytest.fixture
def kernels():
    """Force the process's choice of CPU kernels for a test: `kernels("scalar")`."""
    before = os.environ.get(choice.ENV)
    yield choice.force
    choice.restore(before)


def searched(strategy, chunks, seats=2, deck="standard", seed=5, keep_above=1200, rules=None):
    """A worker's state and finds after chunks of these sizes."""
    counts = parse_deck(deck)
    cards = deck_of(counts)
    hands = tuple(len(cards) // seats + (s < len(cards) % seats) for s in range(seats))
    history = 300 if strategy == "lahc" else 1
    state = new_worker(seed, 2, history, hands, cards)
    finds = LoopFinds.empty(len(cards))
    kept = []
    for size in chunks:
        while size > 0:  # a chunk returns early when its finds buffer is full
            done, n_finds = run_chunk(strategy, state, finds, size, 0, keep_above, 400, rules)
            kept.append((finds.decks[:n_finds].copy(), finds.meta[:n_finds].copy()))
            size -= done
    return state, np.concatenate([d for d, _ in kept]), np.concatenate([m for _, m in kept])


def assert_same_search(kernels, *args, cut=(1, 3_333, 777), **kwargs):
    kernels("scalar")
    state, decks, meta = searched(*args, **kwargs)
    kernels("lanes")
    whole = args[1]
    for chunks in (whole, [*cut, sum(whole) - sum(cut)]):
        mine, my_decks, my_meta = searched(args[0], chunks, *args[2:], **kwargs)
        for name in FIELDS:
            assert np.array_equal(getattr(mine, name), getattr(state, name)), (name, chunks)
        assert np.array_equal(my_decks, decks) and np.array_equal(my_meta, meta), chunks


# The fast tier meets a strategy whose guesses always hold (walk) and one whose guesses fail
# (climb); random restart and late acceptance, whose blocks are made as those two's, the slow.
EVERY_STRATEGY = [
    pytest.param(strategy, games, id=f"{strategy}-{games}", marks=marks)
    for strategy in sorted(STRATEGIES)
    for games, marks in ((12_000, ()), (200_000, pytest.mark.slow))
    if games > 12_000 or strategy in ("walk", "climb")
]


@pytest.mark.parametrize(("strategy", "games"), EVERY_STRATEGY)
def test_every_strategy_scores_the_scalar_loops_deals(kernels, strategy, games):
    assert_same_search(kernels, strategy, [games])


@pytest.mark.parametrize("strategy", ["walk", "climb"])
def test_a_full_finds_buffer_mid_block(kernels, strategy):
    """About a third of random deals pass 300 cards: the finds buffer fills part way through
    a block, and the chunk returns with the state of its last deal kept."""
    assert_same_search(kernels, strategy, [20_000], keep_above=300)


@pytest.mark.parametrize(
    ("seats", "deck", "rules"),
    [
        (4, "standard", None),
        pytest.param(3, "standard", None, marks=pytest.mark.slow),
        pytest.param(3, "standard", "paulhus", marks=pytest.mark.slow),
        pytest.param(2, "14,2,2,2,0", "at-once", marks=pytest.mark.slow),
        pytest.param(2, "30,4,4,4,4", None, marks=pytest.mark.slow),
    ],
)
def test_other_seats_decks_and_rule_sets(kernels, seats, deck, rules):
    keep = 600 if deck == "standard" else 100
    for strategy in ("walk", "climb"):
        assert_same_search(
            kernels, strategy, [8_000], seats, deck, keep_above=keep, rules=rules, cut=(500,)
        )


@pytest.mark.parametrize(
    ("deck", "hands", "rules"),
    [
        ("14,2,2,2,0", (10, 10), None),
        ("6,2,1,1,1", (3, 3, 3, 2), None),
        pytest.param("8,2,2,1,0", (5, 4, 4), None, marks=pytest.mark.slow),
        pytest.param("8,2,2,1,0", (4, 5, 4), "paulhus", marks=pytest.mark.slow),
        pytest.param("14,2,2,2,0", (11, 9), "pelagaletto2", marks=pytest.mark.slow),
    ],
)
def test_the_enumeration_scores_the_scalar_loops_deals(kernels, deck, hands, rules):
    """Consecutive ranks from a start part way, a cap on the finds that stops a block part
    way, and the deck's last sequence."""
    cards = np.array(deck_of(parse_deck(deck)), dtype=np.uint8)
    runs = {}
    for kernel in ("scalar", "lanes"):
        kernels(kernel)
        runs[kernel] = [
            score_run(cards, np.array(hands), 30_000, 0, 60, rules=rules, max_finds=1_000),
            score_run(cards, np.array(hands), 10**9, 1, 10**6, rules=rules),
        ]
    for mine, theirs in zip(runs["lanes"], runs["scalar"], strict=True):
        assert (mine.done, mine.best_score, mine.best_offset) == (
            theirs.done,
            theirs.best_score,
            theirs.best_offset,
        )
        assert np.array_equal(mine.best, theirs.best)
        assert np.array_equal(mine.decks, theirs.decks) and np.array_equal(mine.meta, theirs.meta)


def finds_of(store, run):
    return {(f.deal, f.cards, f.tricks) for f in store.run_finds(run)}


def test_a_run_begun_on_the_scalar_kernel_resumes_on_the_lanes_exactly(
    tmp_path, monkeypatch, kernels
):
    """A run begun before the lanes (or on a machine without them) resumed where they are
    chosen stores what the run uninterrupted on the scalar kernel stores, and the other way."""
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.01)  # small chunks: the stop lands mid-run
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)
    options = dict(strategy="walk", iterations=200_000, workers=2, seed=11, keep_above=1800)
    keys = ("best_deal", "best_cards", "best_tricks", "games")
    kernels("scalar")
    with Store(tmp_path / "whole.sqlite") as store:
        whole = RunLoop(store, LongestJob, LongestOptions(**options)).run()
        whole_finds = finds_of(store, whole.run)
    assert len(whole_finds) >= 10
    for first, then in (("scalar", "lanes"), ("lanes", "scalar")):
        kernels(first)
        with Store(tmp_path / f"{first}.sqlite") as store:
            job = RunLoop(store, LongestJob, LongestOptions(**options))
            stopped = job.run(lambda progress, job=job: job.stop.set())
            assert stopped.status == "interrupted" and stopped.games < 200_000
            kernels(then)
            resumed = RunLoop.resume(store, LongestJob, stopped.run).run()
            assert [getattr(resumed, k) for k in keys] == [getattr(whole, k) for k in keys]
            assert finds_of(store, stopped.run) == whole_finds


def test_the_commands_give_the_same_figures_on_either_kernels(bmn, tmp_path, kernels):
    """`bmn search` and `bmn score` through the command line: the same figures, deal by deal,
    on the lanes and on the scalar kernel."""
    searched = {}
    for kernel in ("scalar", "lanes"):
        args = ["--iterations", 30_000, "--seed", 3, "--workers", 2, "--keep-above", 1500]
        result = bmn("search", *args, "--kernel", kernel, "--json", "--quiet",
                     "--store", tmp_path / f"{kernel}.sqlite")  # fmt: skip
        assert result.exit_code == 0, result.output
        searched[kernel] = json.loads(result.stdout)
    keys = ("best_deal", "best_cards", "best_tricks", "games")
    assert [searched["lanes"][k] for k in keys] == [searched["scalar"][k] for k in keys]
    deals = bmn("deal", "--count", 300, "--seed", 8, "--players", 4).stdout
    scored = {}
    for kernel in ("scalar", "lanes"):
        assert kernels(kernel).engine == kernel
        result = bmn("score", "--json", input=deals)
        assert result.exit_code == 0, result.output
        scored[kernel] = result.stdout
    assert scored["lanes"] == scored["scalar"] and len(scored["lanes"].splitlines()) == 300
