"""How the search and the batch scorer choose a kernel: the registry, hand sizes, the cache."""

import io
import os
import subprocess
import sys
import types

import numpy as np
import pytest

from bmn.kernels import reference
from bmn.kernels.config import FINISHED, LIMIT, LOOP, STATUS_CODES, STATUS_NAMES
from bmn.kernels.cpu import two
from bmn.kernels.deal import decode, encode, parse_deal
from bmn.kernels.decks import STANDARD_DECK
from bmn.kernels.score import KERNELS, kernel_for, score
from bmn.search.strategies.cpu import run_chunk
from bmn.search.strategies.registry import STRATEGIES, history_length, strategy_help
from bmn.search.strategies.worker import BEST, LOOP_FINDS, LoopFinds, WorkerState, new_worker


@pytest.mark.parametrize("sizes", [(26, 26), (27, 25), (20, 32)])
def test_search_scores_deals_cut_at_the_workers_sizes(sizes):
    """With --keep-above 0 every deal scored is a find: each checked by the reference engine."""
    state = new_worker(3, 0, sizes=sizes)
    assert tuple(state.sizes) == sizes and sorted(state.deck) == list(STANDARD_DECK)
    finds = LoopFinds.empty()
    done, n_finds = run_chunk("walk", state, finds, 10_000, 0, 0, 100)
    assert done == n_finds == LOOP_FINDS
    # every 16th of the full buffer: the reference engine is slow for thousands
    for row, (cards, tricks, status) in zip(finds.decks[::16], finds.meta[::16], strict=True):
        want = reference.play(decode(row, sizes))
        assert (cards, tricks, STATUS_NAMES[status]) == (want.cards, want.tricks, want.status)
    assert state.counters[BEST] == max(finds.meta[:, 0])


def test_per_deal_kernel_agrees_with_reference_at_any_sizes():
    deals = [
        "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---",
        "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA",  # a loop past a small cap
        "------------A-QK--J-----KQA/-AJ---Q-K----J-AQ-KJ-----",
        "-J/Q-",
        "/-J",
        "A/",
        "-" * 63 + "/J",
    ]
    for text in deals:
        deal = parse_deal(text)
        row, sizes = encode(deal)
        want = reference.play(deal)
        cards, tricks, code = two.play_fast_at(row, 0, sizes, 100_000)
        status = two.play_exact_at(row, 0, sizes)
        if want.status == "finished":
            assert (cards, tricks, code) == (want.cards, want.tricks, want.winner)
        assert STATUS_NAMES[status[0]] == want.status and status[1:3] == (want.cards, want.tricks)


def test_worker_state_keeps_its_sizes_and_reads_old_checkpoints():
    state = new_worker(5, 1, history=7, sizes=(27, 25))
    again = WorkerState.from_bytes(state.to_bytes())
    assert tuple(again.sizes) == (27, 25) and again.history.shape == (7,)
    buffer = io.BytesIO()  # a checkpoint written before workers kept their sizes
    np.savez(buffer, deck=state.deck, best=state.best, rng=state.rng, counters=state.counters,
             history=state.history)  # fmt: skip
    old = WorkerState.from_bytes(buffer.getvalue())
    assert old.sizes.dtype == np.int64 and tuple(old.sizes) == (26, 26)
    assert np.array_equal(old.deck, state.deck)


def test_a_seat_count_without_a_compiled_kernel_is_refused():
    state = new_worker(5, 0, sizes=(11, 11, 10, 10, 10))
    with pytest.raises(ValueError, match="no compiled kernel plays 5 seats"):
        run_chunk("walk", state, LoopFinds.empty(), 10, 0, 0, 100)


def test_strategy_registry():
    assert [history_length(name, 500) for name in STRATEGIES] == [1, 1, 1, 500]
    assert [name for name, s in STRATEGIES.items() if s.patience] == ["climb"]
    assert all(f"{name}: {s.description}" in strategy_help() for name, s in STRATEGIES.items())


def test_status_registry_matches_the_reference():
    names = (reference.FINISHED, reference.LOOP, reference.LIMIT)
    assert names == STATUS_NAMES
    assert [STATUS_CODES[name] for name in names] == [FINISHED, LOOP, LIMIT]


def test_registry_sends_each_kernel_only_the_deals_it_takes(monkeypatch, scalar_kernels):
    """A kernel registered for 3 seats gets the 3-seat deals of at most 64 cards; the
    reference scores the others."""
    seen = []

    def score_rows(deals, sizes, rows, out, cap):
        seen.extend(rows.tolist())
        for i in rows:  # this stand-in kernel plays each deal with the reference engine
            out._set_from(i, reference.play(decode(deals[i], sizes[i])))

    stand_in = types.SimpleNamespace(score_rows=score_rows)
    stand_in.for_rules = lambda rules: stand_in  # plays every rule set as bmn's (the interface)
    monkeypatch.setitem(KERNELS, (3, "cpu"), stand_in)
    assert kernel_for(3) is KERNELS[(3, "cpu")] and kernel_for(2, "tpu") is None
    monkeypatch.setitem(KERNELS, (2, "test"), "bmn.kernels.cpu.two")  # by name: imported when asked
    assert kernel_for(2, "test") is two
    texts = ["--K/J-/---", "A--/-/K---", "-" * 30 + "/" + "J" * 30 + "/" + "-" * 5]
    deals = [parse_deal(t) for t in texts]
    rows = np.zeros((3, 65), dtype=np.uint8)
    sizes = np.zeros((3, 3), dtype=np.int64)
    for i, deal in enumerate(deals):
        rows[i], sizes[i] = encode(deal, 65)
    got = score(rows, sizes)
    assert seen == [0, 1]  # the 65-card deal is the reference's
    assert [got.as_dict(i) for i in range(3)] == [reference.play(d).as_dict() for d in deals]


@pytest.mark.slow
def test_the_search_loop_loads_from_the_cache():
    """Passing the kernel's functions in must not cost a compile in every process (numba caches
    no function that takes a plain dispatcher): a second process finds the loop cached."""
    code = (
        "from bmn.search.strategies.cpu import chunk, run_chunk\n"
        "from bmn.search.strategies.worker import LoopFinds, new_worker\n"
        "run_chunk('walk', new_worker(1, 0), LoopFinds.empty(), 10, 0, 0, 1)\n"
        "loop = chunk('walk')\n"
        "print(sum(loop.stats.cache_hits.values()), sum(loop.stats.cache_misses.values()))"
    )
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)]
    runs.append(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True))
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr
    assert runs[1].stdout.split() == ["1", "0"]


@pytest.mark.slow
@pytest.mark.parametrize("kernel", ["scalar", "lanes"])
def test_a_walk_compiles_only_its_own_strategy_and_seats(tmp_path, kernel):
    """A two-seat walk's start (warm_search), with an empty cache, compiles its own loop and
    the two-seat kernel's 26/26 path only (and its lane kernel's block where lanes are chosen):
    no other strategy's steps, no N-seat kernel, not the loop of the kernels not chosen (a first
    run compiles for tens of seconds, each function its share). Read from the cache it fills."""
    code = "from bmn.search.runs.kinds.longest import warm_search\nwarm_search('walk', 2)"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "BMN_KERNEL": kernel}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    cached = {path.name.split("-")[0] for path in tmp_path.rglob("*.nbi")}
    lanes = kernel == "lanes"  # a walk in lanes plays every deal there: no 26/26 path
    loop = "lanes._lanes_chunk_walk" if lanes else "cpu._chunk_walk"
    wanted = {loop, "walk.propose", "two.play_exact_at"}
    assert wanted | ({"lanes.play_block"} if lanes else {"two.play_fast_even"}) <= cached
    others = ("nseat", "lanes_nseat", "climb.", "lahc.", "random_restart.", "two.play_fast_at")
    others += ("cpu._chunk_", "lanes._lanes_chunk_", "lanes._score_rows", "lanes._total_cards")
    others += ("two.play_fast_even", "two.fast_at") if lanes else ()
    assert [name for name in cached if name.startswith(others) and name != loop] == []
