"""The search strategies and the longest-game run: finds checked by the reference engine, exact
resumes."""

import json
import signal
import subprocess
import sys

import numpy as np
import pytest
from children import HANG_SECONDS

from bmn.kernels.deal import decode, parse_deal
from bmn.kernels.reference import play
from bmn.records.store import Store
from bmn.search.runs.kinds import longest as driver
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.loop import RunLoop
from bmn.search.strategies.cpu import run_chunk
from bmn.search.strategies.registry import STRATEGIES
from bmn.search.strategies.worker import BEST, BEST_CARDS, BEST_TRICKS, GAMES, LoopFinds, new_worker

SIZES = (26, 26)


def run_chunks(strategy, iterations, sizes, seed=1, keep_above=10_000, objective=0):
    """Run one worker for `iterations` deals cut into chunks of the given sizes."""
    state = new_worker(seed, 0, history=500 if strategy == "lahc" else 1)
    finds = LoopFinds.empty()
    kept = []
    done = 0
    for size in sizes:
        target = min(done + size, iterations)
        while done < target:  # a chunk returns early when its finds buffer is full
            n, n_finds = run_chunk(
                strategy, state, finds, target - done, objective, keep_above, 300
            )
            done += n
            kept += [(decode(finds.decks[i], SIZES), tuple(finds.meta[i])) for i in range(n_finds)]
    assert done == iterations
    return state, kept


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_strategy_improves_and_reports_true_lengths(strategy):
    start = new_worker(1, 0)
    first = play(decode(start.deck, SIZES)).cards
    state, kept = run_chunks(strategy, 20_000, [20_000], keep_above=1500)
    best = play(decode(state.best, SIZES))
    assert state.counters[GAMES] == 20_000
    assert best.cards == state.counters[BEST] == state.counters[BEST_CARDS] > first
    assert best.tricks == state.counters[BEST_TRICKS]
    assert any(cards >= 1500 for _, (cards, _, _) in kept)
    running = -1  # finds are improvements on the best so far, or deals of 1,500+ cards
    for deal, (cards, tricks, status) in kept:
        result = play(deal)
        assert (result.cards, result.tricks, status) == (cards, tricks, 0)
        assert cards >= 1500 or cards > running
        running = max(running, cards)
    assert running == best.cards


def test_tricks_objective_scores_tricks():
    state, _ = run_chunks("walk", 5_000, [5_000], objective=1)
    best = play(decode(state.best, SIZES))
    assert state.counters[BEST] == best.tricks == state.counters[BEST_TRICKS]


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_chunking_does_not_change_the_run(strategy):
    whole, kept_whole = run_chunks(strategy, 12_000, [12_000], keep_above=1200)
    cut, kept_cut = run_chunks(strategy, 12_000, [1, 4_999, 3_000, 4_000], keep_above=1200)
    for name in ("deck", "best", "rng", "counters", "history"):
        assert np.array_equal(getattr(whole, name), getattr(cut, name)), name
    assert kept_whole == kept_cut


def test_checkpoint_blob_round_trips():
    state, _ = run_chunks("lahc", 1_000, [1_000])
    again = type(state).from_bytes(state.to_bytes())
    for name in ("deck", "best", "rng", "counters", "history"):
        assert np.array_equal(getattr(state, name), getattr(again, name))


def finds_of(store, run):
    return {(f.deal, f.cards, f.tricks) for f in store.run_finds(run)}


def test_interrupted_and_resumed_run_equals_uninterrupted(tmp_path, monkeypatch):
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.01)  # small chunks: the stop lands mid-run
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)  # a commit per chunk: stop at the first
    options = dict(strategy="walk", iterations=300_000, workers=2, seed=9, keep_above=2000)
    with Store(tmp_path / "a.sqlite") as store:
        whole = RunLoop(store, LongestJob, LongestOptions(**options)).run()
        whole_finds = finds_of(store, whole.run)
    assert len(whole_finds) >= 10  # 38: finds on both sides of the stop to compare
    with Store(tmp_path / "b.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**options))
        first = job.run(lambda progress: job.stop.set())
        assert first.status == "interrupted" and first.games < 300_000
        resumed = RunLoop.resume(store, LongestJob, first.run).run()
        assert store.get_run(first.run).status == "finished"
        resumed_finds = finds_of(store, first.run)
    keys = ("best_deal", "best_cards", "best_tricks", "games")
    assert [getattr(resumed, k) for k in keys] == [getattr(whole, k) for k in keys]
    assert resumed_finds == whole_finds


def spawn(*args, **kwargs):
    """`bmn ARGS...` in a process of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", "bmn.frontends.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


SEARCH = [
    "search",
    "--iterations",
    "4000000",
    "--seed",
    "4",
    "--workers",
    "2",
    "--keep-above",
    "2500",
    "--json",
    "--quiet",
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "kernels",
    [("scalar", "scalar", "lanes"), ("scalar", "lanes", "lanes")],
    ids=["begun-on-scalar-resumed-on-lanes", "on-lanes"],
)
def test_kill_9_then_resume_equals_uninterrupted(tmp_path, search_child, monkeypatch, kernels):
    """Killed at its first commit, while its threads are mid-chunk (the child waits there, so
    the kill cannot come after the end); the run uninterrupted, the run killed and its resume
    each on the CPU kernels `kernels` names (kernels/cpu/choice.py): the same deals whichever."""
    monkeypatch.setenv("BMN_KERNEL", kernels[0])
    whole = spawn(*SEARCH, "--store", str(tmp_path / "whole.sqlite"))
    out, err = whole.communicate(timeout=HANG_SECONDS)
    assert whole.returncode == 0, err
    path = tmp_path / "killed.sqlite"
    monkeypatch.setenv("BMN_KERNEL", kernels[1])
    victim = search_child([*SEARCH, "--store", path], then="wait")
    victim.committed()
    victim.process.send_signal(signal.SIGKILL)
    victim.communicate()
    assert victim.returncode == -signal.SIGKILL
    with Store(path) as store:
        assert 0 < store.get_run(1).games < 4_000_000
    monkeypatch.setenv("BMN_KERNEL", kernels[2])
    resumed = spawn("search", "--resume", "--json", "--quiet", "--store", str(path))
    again, err = resumed.communicate(timeout=HANG_SECONDS)
    assert resumed.returncode == 0, err
    expected, got = json.loads(out), json.loads(again)
    for key in ("best_deal", "best_cards", "best_tricks", "games"):
        assert got[key] == expected[key], key
    with Store(path) as store, Store(tmp_path / "whole.sqlite") as reference_store:
        assert finds_of(store, 1) == finds_of(reference_store, 1)
        assert store.check() == ["ok"]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=lambda sig: sig.name)
def test_a_signal_checkpoints_and_says_how_to_resume(tmp_path, search_child, sig):
    path = tmp_path / "t.sqlite"
    job = search_child([*SEARCH, "--store", path], then="wait")
    job.committed()  # the signal handler is in place, and the run waits for it
    job.process.send_signal(sig)
    out, err = job.communicate()
    assert job.returncode == 130, err
    assert f"bmn search --resume 1 --store {path}" in err
    assert json.loads(out)["status"] == "interrupted"
    with Store(path) as store:
        assert store.get_run(1).status == "interrupted"
        assert 0 < store.get_run(1).games < 4_000_000
        assert store.load_checkpoints(1)


@pytest.mark.slow
def test_two_searches_share_one_store(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    args = [
        "search",
        "--iterations",
        "300000",
        "--workers",
        "1",
        "--keep-above",
        "1500",
        "--json",
        "--quiet",
        "--store",
        path,
    ]
    jobs = [spawn(*args, "--seed", str(seed)) for seed in (1, 2)]
    results = [job.communicate(timeout=HANG_SECONDS) for job in jobs]
    assert [job.returncode for job in jobs] == [0, 0], results
    with Store(path) as store:
        assert sorted(run.status for run in store.runs()) == ["finished", "finished"]
        for run in (1, 2):
            finds = store.run_finds(run)
            assert finds
            for find in finds[:20]:
                assert play(parse_deal(find.deal)).cards == find.cards
        assert store.check() == ["ok"]


def test_search_cli_json_and_store(bmn, tmp_path):
    path = str(tmp_path / "s.sqlite")
    result = bmn(
        "search",
        "--iterations",
        "50000",
        "--seed",
        "1",
        "--workers",
        "2",
        "--store",
        path,
        "--json",
        "--quiet",
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) >= {"run", "best_deal", "best_cards", "best_tricks", "games", "seconds"}
    assert out["games"] == 50_000
    assert play(parse_deal(out["best_deal"])).cards == out["best_cards"]
    with Store(path) as store:
        assert store.top(n=1)[0].cards == out["best_cards"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--time", "5x"], "not a duration"),
        (["--time", "0"], "positive"),
        (["--strategy", "magic"], "magic"),
        (["--resume", "--seed", "3"], "--resume takes its settings"),
        (["--workers", "0"], "0"),
        (["--resume", "abc"], "not a run number"),
    ],
)
def test_bad_search_options(bmn, tmp_path, args, message):
    path = str(tmp_path / "bad.sqlite")
    bmn("search", "--iterations", "10", "--store", path, "--quiet")
    result = bmn("search", "--store", path, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_resume_of_missing_run_fails_cleanly(bmn, failed, tmp_path):
    """A run the store does not hold is bad input, like a run number that is no number."""
    path = tmp_path / "e.sqlite"
    bmn("search", "--iterations", "10", "--store", path, "--quiet")
    failed(bmn("search", "--resume", "7", "--store", path), 2, "no run 7", "bmn records runs")
    failed(bmn("search", "--resume", "abc", "--store", path), 2, "'abc' is not a run number")


@pytest.fixture(autouse=True)
def _no_inherited_store(monkeypatch):
    monkeypatch.delenv("BMN_STORE", raising=False)
    monkeypatch.setenv("PYTHONUNBUFFERED", "1")


@pytest.mark.slow
def test_search_bench_compares_strategies(bmn):
    result = bmn(
        "search-bench",
        "--strategies",
        "walk,climb",
        "--time",
        "1s",
        "--seeds",
        "1",
        "--workers",
        "1",
        "--json",
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [row["strategy"] for row in out["strategies"]] == ["walk", "climb"]
    for row in out["strategies"]:
        assert row["rate"] > 0 and row["rate_vs_bench"] > 0
        assert row["per_million_2000"] >= row["per_million_2500"] >= row["per_million_3000"]
    bad = bmn("search-bench", "--strategies", "magic")
    assert bad.exit_code == 2 and "unknown strategy magic" in bad.stderr


def test_search_refuses_a_foreign_store_and_leaves_it_alone(bmn, tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_bytes(b"these are my notes, not a bmn store\n" * 100)
    before = path.read_bytes()
    result = bmn("search", "--iterations", "10", "--store", str(path))
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    assert path.read_bytes() == before
