"""`bmn search --objective loop` and `bmn records loops`, against the reference engine."""

import json
from collections import Counter

import numpy as np
import pytest
from samples import LOOP_DEAL

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.decks import hunt_counts
from bmn.records.report import LOOP_KEYS
from bmn.records.store import Store
from bmn.search.runs.kinds import loop_hunt as loophunt
from bmn.search.runs.kinds.loop_hunt import LoopHuntJob, LoopHuntOptions, deck_of, random_batch
from bmn.search.runs.loop import RunLoop

# Five numerals, two jacks, two queens: two cycles (each the other's mirror image), period 3.
DECK = "5,2,2,0,0"
SEED, DEALS = 11, 3000


@pytest.fixture
def hunt(bmn):
    """`bmn search --objective loop` into a store, on one worker, without a display."""

    def run(store, *args):
        base = ["search", "--objective", "loop", "--store", store, "--quiet", "--workers", 1]
        return bmn(*base, *args)

    return run


def reference_loops(seed: int, n: int, batch: int = loophunt.BATCH) -> Counter:
    """The cycle of every looping deal among the hunt's deals (drawn in its batches), by the
    reference engine."""
    rng = np.random.default_rng(seed)
    drawn = [random_batch(rng, deck_of((5, 2, 2, 0, 0)), m, True) for m in cuts(n, batch)]
    keys = Counter()
    rows, sizes = np.concatenate([r for r, _ in drawn]), np.concatenate([s for _, s in drawn])
    for row, (n0, _) in zip(rows.tolist(), sizes.tolist(), strict=True):
        deal = (tuple(row[:n0]), tuple(row[n0:]))
        if reference.play(deal).status == LOOP:
            keys[analyse(deal).key] += 1
    return keys


def cuts(n: int, batch: int) -> list[int]:
    return [min(batch, n - done) for done in range(0, n, batch)]


def test_search_stores_each_cycle_once_as_the_reference_sees(hunt, bmn, tmp_path):
    store = tmp_path / "r.sqlite"
    result = hunt(
        store, "--iterations", str(DEALS), "--seed", str(SEED), "--loop-deck", DECK, "--json"
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    expected = reference_loops(SEED, DEALS)
    assert len(expected) == 2 and min(expected.values()) > 1  # each cycle from several deals
    assert summary["loops_found"] == sum(expected.values())
    assert (summary["distinct_cycles"], summary["new_cycles"], summary["games"]) == (2, 2, DEALS)
    listed = bmn("records", "loops", "--json", "--store", str(store))
    rows = json.loads(listed.stdout)
    assert {r["key"]: r["times_seen"] for r in rows} == dict(expected)
    for row in rows:
        assert tuple(row) == LOOP_KEYS
        ref = reference.play(parse_deal(row["example_deal"]))
        assert (ref.status, ref.period_tricks, ref.period_cards) == (LOOP, 3, 14)
        assert row["period_tricks"] == 3 and row["period_cards"] == 14
        assert analyse(parse_deal(row["example_deal"])).key == row["key"]
        assert row["balanced_reachable"] is True and row["deck"] == DECK
    with Store(store) as db:
        (run,) = db.runs()
    assert (run.kind, run.objective, run.strategy, run.status, run.games) == (
        "loop-hunt",
        "loop",
        None,
        "finished",
        DEALS,
    )


def test_a_second_hunt_recognises_the_known_cycles(hunt, bmn, tmp_path):
    store = tmp_path / "r.sqlite"
    for seed in (SEED, SEED + 1):
        result = hunt(
            store, "--iterations", "1000", "--seed", str(seed), "--loop-deck", DECK, "--json"
        )
        assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["new_cycles"] == 0
    with Store(store) as db:
        rows = db.loops()
    total = sum(reference_loops(s, 1000).total() for s in (SEED, SEED + 1))
    assert len(rows) == 2 and sum(r.times_seen for r in rows) == total
    text = bmn("records", "loops", "--store", str(store)).stdout
    assert all(r.key in text for r in rows)


def test_stop_and_resume_continue_exactly(tmp_path, monkeypatch):
    monkeypatch.setattr(loophunt, "BATCH", 500)
    monkeypatch.setattr(loophunt, "COMMIT_SECONDS", 0.0)
    options = LoopHuntOptions(iterations=DEALS, workers=1, seed=SEED, deck=DECK)
    with Store(tmp_path / "r.sqlite") as db:
        job = RunLoop(db, LoopHuntJob, options)
        first = job.run(lambda p: job.stop.set())  # SIGTERM's effect: stop after a batch
        assert (first.status, first.games) == ("interrupted", 500)
        second = RunLoop.resume(db, LoopHuntJob, first.run).run()
        assert (second.status, second.games) == ("finished", DEALS)
        assert (second.cycles, second.new_cycles) == (2, 2)
        seen = {r.key: r.times_seen for r in db.loops()}
    assert seen == dict(reference_loops(SEED, DEALS, batch=500))


def test_resume_of_a_loop_hunt_through_the_cli(hunt, bmn, tmp_path):
    store = tmp_path / "r.sqlite"
    hunt(store, "--iterations", "1000", "--seed", "1", "--loop-deck", DECK)
    result = bmn("search", "--resume", "1", "--store", str(store), "--quiet")  # it finished
    assert result.exit_code == 0, result.output
    assert "1,000 deals" in result.stdout


@pytest.mark.parametrize("deck", ["52", "36,4,4,4", "10,0,0,0,0", "36,4,4,4,-1", "60,4,4,4,4"])
def test_bad_deck_is_a_usage_error(hunt, tmp_path, deck):
    result = hunt(tmp_path / "r.sqlite", "--iterations", "10", "--loop-deck", deck)
    assert result.exit_code == 2 and "--loop-deck" in result.output
    with pytest.raises(ValueError):
        hunt_counts(deck)


def summarised_deck(deal) -> str:
    """The deck a hunt stores with the cycle of `deal`."""
    from bmn.search.runs.kinds.cycle_book import loop_record, new_cycle

    return loop_record(new_cycle(deal, 10)).deck


def test_published_deal_is_a_standard_deck_cycle():
    assert hunt_counts("standard") == (36, 4, 4, 4, 4)
    deal = LOOP_DEAL
    assert summarised_deck(deal) == "36,4,4,4,4" and format_deal(deal)


def test_search_display_can_show_a_hunt(tmp_path):
    from bmn.frontends.cli.search import run_with_signals
    from bmn.search.runs.start import Stopping

    assert "0 cycles (0 new to the store)" in loophunt.LoopHuntProgress(1).line()
    options = LoopHuntOptions(iterations=500, workers=1, seed=1, deck=DECK)
    path = tmp_path / "r.sqlite"
    with Stopping(path) as stopping, Store(path) as db:
        summary = run_with_signals(stopping, RunLoop(db, LoopHuntJob, options), quiet=False)
    assert summary.as_dict()["games"] == 500


def loops_stored(db) -> list:
    return sorted((r.key, r.times_seen, r.example_deal, r.basin_states) for r in db.loops())


def test_a_hunt_whose_time_runs_out_while_summarising_keeps_only_whole_batches(
    tmp_path, monkeypatch
):
    """Summarising a new cycle can take seconds where scoring its batch took milliseconds: once
    --time is up no new summary starts, the batch it was for is left out whole, and what the
    run keeps is what a run of that many --iterations keeps (the clock is the test's: its time
    runs out as the fifth new cycle is summarised)."""
    past, summaries = [False], []
    summarise = loophunt.new_cycle

    def summarising(deal, states, rules):
        summaries.append(deal)
        past[0] = past[0] or len(summaries) == 5
        return summarise(deal, states, rules)

    monkeypatch.setattr(loophunt, "new_cycle", summarising)
    monkeypatch.setattr(LoopHuntJob, "elapsed", lambda self: 1e9 if past[0] else 0.0)
    with Store(tmp_path / "timed.sqlite") as db:
        timed = RunLoop(db, LoopHuntJob, LoopHuntOptions(seconds=60, workers=1, seed=3)).run()
        kept = loops_stored(db)
        stored = db.get_run(timed.run)
    assert timed.status == "finished" and stored.games == timed.games
    assert timed.games % loophunt.BATCH == 0 and timed.games > 0
    # the fifth new cycle's batch held a sixth, never summarised: that batch is left out whole
    assert len(summaries) == 5 and timed.cycles == len(kept) == 4
    past[0] = False
    monkeypatch.setattr(loophunt, "new_cycle", summarise)
    with Store(tmp_path / "counted.sqlite") as db:
        counted = RunLoop(
            db, LoopHuntJob, LoopHuntOptions(iterations=timed.games, workers=1, seed=3)
        ).run()
        assert loops_stored(db) == kept
    assert (counted.loops, counted.cycles) == (timed.loops, len(kept))
