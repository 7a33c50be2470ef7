"""`bmn search --objective grow --players 3|4`: true cycles grown by the run loop, stored once
each with a deal that falls into them, each replayed by the reference engine as a cycle in
which every seat keeps cards; a run stopped and resumed goes on from its cycles."""

import json

import pytest

from bmn.kernels import reference
from bmn.kernels.deal import parse_deal
from bmn.records.store import Store
from bmn.search.cycles import true_run
from bmn.search.cycles.true_cycles import is_true_cycle, true_cycle
from bmn.search.runs.kinds.true_cycles import TrueCyclesJob, TrueCyclesOptions
from bmn.search.runs.loop import RunLoop

# True cycles the hunts found (docs/endless-games.md), 3 and 4 seats.
KNOWN = {
    3: ["J--/-J-/-J-", "------------J-/---Q---------/-A------J----"],
    4: [
        "--------J-/-K--------/------Q---/-------Q--",
        "--------A-/-J--------/A---------/--------J-",
    ],
}


@pytest.fixture(autouse=True)
def chunks(monkeypatch):
    """A chunk that finds, one at a time, the known true cycles of its seats (the hunt is
    timed: what a real chunk finds depends on the machine's speed; its own tests are
    tests/search/cycles). The run loop, the store and the resume are the real ones."""

    def chunk(state, seconds):
        deals = [d for d in KNOWN[state.seats] if d not in state.found][:1]
        new = [c for c in (true_cycle(parse_deal(d)) for d in deals) if c is not None]
        state.found += deals
        state.chunks += 1
        return new

    monkeypatch.setattr(true_run, "true_chunk", chunk)


def grown(path, **changes):
    options = TrueCyclesOptions(**{"iterations": 1, "chunk_seconds": 2.0, "seed": 3,
                                   "basin_states": 500, **changes})  # fmt: skip
    with Store(path) as db:
        summary = RunLoop(db, TrueCyclesJob, options).run()
        return summary, db.loops(summary.run), db.get_run(summary.run)


def test_every_cycle_stored_is_a_true_cycle_of_its_seats(tmp_path):
    summary, loops, run = grown(tmp_path / "s.sqlite", players=3, iterations=3)
    assert (run.kind, run.strategy, run.objective, run.seats) == ("true-cycles", None, "grow", 3)
    assert summary.cycles == len(loops) == 2 and summary.new_cycles == 2
    for row in loops:
        deal = parse_deal(row.example_deal)
        assert len(deal) == 3 and reference.play(deal).status == "loop"
        assert is_true_cycle(deal) and is_true_cycle(deal, rules="paulhus")
    largest = max(loops, key=lambda r: sum(map(int, r.deck.split(","))))
    assert summary.largest_deal == largest.example_deal


def test_a_stopped_run_resumes_from_its_cycles(tmp_path):
    store = tmp_path / "s.sqlite"
    first, loops, _ = grown(store, players=4, iterations=2)
    with Store(store) as db:
        db.update_run(first.run, status="stopped")
        state = json.loads(db.load_checkpoints(first.run)[0][0])["streams"][0]
        assert state["chunks"] == 2 and len(state["found"]) == len(loops) == 2
        job = RunLoop.resume(db, TrueCyclesJob, first.run)
        assert job.job.games == 2 and job.job.progress.cycles == 2


def test_the_command_line_refuses_what_it_does_not_take(bmn, failed, tmp_path):
    store = tmp_path / "s.sqlite"
    args = ("search", "--objective", "grow", "--players", "4", "--store", store)
    failed(bmn(*args, "--deck", "20,2,2,2,2"), 2, "--deck does nothing with --objective grow")
    failed(bmn(*args, "--rules", "paulhus"), 2, "--rules must play as bmn's rules here")
    assert not store.exists()


def test_a_cycle_two_streams_meet_is_summarised_once_and_counted_twice(tmp_path, monkeypatch):
    """Each stream's hunt finds both cycles: backward play summarises each key once; the
    store counts every meeting."""
    from bmn.search.runs.kinds import true_cycles

    summarised = []
    summarise = true_cycles.new_cycle

    def counted(deal, basin_states):
        summarised.append(deal)
        return summarise(deal, basin_states)

    monkeypatch.setattr(true_cycles, "new_cycle", counted)
    summary, loops, _ = grown(tmp_path / "s.sqlite", players=3, iterations=4, workers=2)
    assert summary.cycles == len(loops) == len(summarised) == 2
    assert sorted(row.times_seen for row in loops) == [2, 2]
