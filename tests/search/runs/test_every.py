"""Every deal of a deck (search/runs/kinds/every.py): the enumeration equals the reference
engine run over every deal; a range split any way, a resume after a stop and a Dask cluster give
the same run; bad input is one line, exit 2, and no store."""

import json
import os
import signal

import pytest
from children import HANG_SECONDS

from bmn.kernels import reference
from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import decode, format_deal
from bmn.kernels.ranks import arrangements, first_of, next_arrangement
from bmn.records.store import Store
from bmn.search.backends.threads import ThreadBackend
from bmn.search.runs.kinds import every_base as every
from bmn.search.runs.kinds.every import EveryJob, EveryOptions
from bmn.search.runs.loop import RunLoop

DECK = "6,2,1,1,0"  # 2,520 deals, 14 of them loop (5/5)
COUNTS = (6, 2, 1, 1, 0)


def reference_run(counts, sizes, first=0, end=None, objective="cards"):
    """The reference engine over ranks first to end - 1: every deal's figures, and the first
    longest finished game by the objective."""
    cards = first_of(counts)
    deals, rank = {}, 0
    end = arrangements(counts) if end is None else end
    while rank < end:
        if rank >= first:
            deal = decode(cards, sizes)
            deals[format_deal(deal)] = (reference.play(deal), rank)
        next_arrangement(cards)
        rank += 1
    column = "tricks" if objective == "tricks" else "cards"
    finished = [(getattr(r, column), -rank, d) for d, (r, rank) in deals.items()]
    finished = [f for f, (r, _) in zip(finished, deals.values(), strict=True) if r.status != "loop"]
    return deals, max(finished)


def enumerate_deck(path, backend=None, on_progress=lambda p: None, **changes):
    """A new enumeration into its own store: (summary, {deal: (cards, tricks, status)})."""
    options = {**dict(deck=DECK, keep_above=0, workers=2, objective="loop"), **changes}
    with Store(path) as store:
        summary = RunLoop(store, EveryJob, EveryOptions(**options), backend=backend).run(
            on_progress
        )
        finds = {f.deal: (f.cards, f.tricks, f.status) for f in store.run_finds(summary.run)}
        return summary, finds, store.loops()


def outcome(summary, finds) -> tuple:
    """What must not depend on how the range was cut or where it ran."""
    keys = ("best_deal", "best_cards", "best_tricks", "best_rank", "loops", "cycles", "deals")
    return tuple(getattr(summary, k) for k in keys), finds


@pytest.mark.parametrize("objective", ["cards", "tricks"])
def test_the_enumeration_equals_the_reference_over_every_deal(tmp_path, objective):
    summary, finds, _ = enumerate_deck(tmp_path / "e.sqlite", objective=objective)
    deals, (score, minus_rank, deal) = reference_run(COUNTS, (5, 5), objective=objective)
    assert summary.complete and summary.deals == len(deals) == 2520
    assert finds == {d: (r.cards, r.tricks, r.status) for d, (r, _) in deals.items()}
    assert summary.loops == sum(r.status == "loop" for r, _ in deals.values()) == 14
    assert (summary.best_deal, summary.best_rank) == (deal, -minus_rank)
    assert (summary.best_tricks if objective == "tricks" else summary.best_cards) == score


def test_three_seats_and_a_rank_range_equal_the_reference(tmp_path):
    summary, finds, _ = enumerate_deck(
        tmp_path / "e.sqlite", deck="5,2,1,1,0", hand_sizes=(4, 3, 2), from_rank=300,
        to_rank=1100, objective="cards",
    )  # fmt: skip
    deals, (_, minus_rank, deal) = reference_run((5, 2, 1, 1, 0), (4, 3, 2), 300, 1100)
    assert summary.deals == 800 and summary.complete
    assert finds == {d: (r.cards, r.tricks, r.status) for d, (r, _) in deals.items()}
    assert (summary.best_deal, summary.best_rank) == (deal, -minus_rank)


def test_every_cycle_is_stored_once_under_its_key_and_counted_seat_blind(tmp_path):
    summary, finds, loops = enumerate_deck(tmp_path / "e.sqlite")
    looping = [d for d, (_, _, status) in finds.items() if status == "loop"]
    keys = {analyse(decode_text(d)).key for d in looping}
    blind = {analyse(decode_text(d)).rotation_key for d in looping}
    assert {row.key for row in loops} == keys and len(keys) == summary.cycles
    assert summary.seat_blind_cycles == len(blind) and summary.new_cycles == len(keys)
    assert sum(row.times_seen for row in loops) == len(looping) == summary.loops
    for row in loops:  # each replays as a loop with the reference engine
        assert reference.play(decode_text(row.first_deal)).status == "loop"
        assert row.period_tricks > 0 and row.basin_states >= 1


def decode_text(deal: str):
    return tuple(tuple("-JQKA".index(c) for c in hand) for hand in deal.split("/"))


def test_a_range_split_any_way_gives_the_same_run(tmp_path, small_chunks):
    whole = outcome(*enumerate_deck(tmp_path / "w.sqlite")[:2])
    for workers, cut in [(1, 1), (3, 1260), (2, 2519), (5, 777)]:
        low = enumerate_deck(tmp_path / f"a{cut}.sqlite", workers=workers, to_rank=cut)
        high = enumerate_deck(tmp_path / f"b{cut}.sqlite", workers=workers, from_rank=cut)
        assert {**low[1], **high[1]} == whole[1]
        assert low[0].loops + high[0].loops == whole[0][4]
        assert low[0].deals + high[0].deals == 2520
        best = max((s.best_cards, -s.best_rank, s.best_deal) for s in (low[0], high[0]))
        assert best == (whole[0][1], -whole[0][3], whole[0][0])


def test_a_run_stopped_and_resumed_equals_an_uninterrupted_one(tmp_path, small_chunks):
    whole = outcome(*enumerate_deck(tmp_path / "w.sqlite")[:2])
    path = tmp_path / "r.sqlite"
    seen = []

    def stop_early(progress):
        seen.append(progress.games)
        if len(seen) == 3:
            job.stop.set()

    with Store(path) as store:
        options = EveryOptions(deck=DECK, keep_above=0, workers=2, objective="loop")
        job = RunLoop(store, EveryJob, options)
        stopped = job.run(stop_early)
        assert stopped.status == "interrupted" and 0 < stopped.deals < 2520
        resumed = RunLoop.resume(store, EveryJob, stopped.run).run()
        finds = {f.deal: (f.cards, f.tricks, f.status) for f in store.run_finds(stopped.run)}
        assert resumed.status == "finished" and resumed.complete
        assert outcome(resumed, finds) == whole
        assert store.get_run(stopped.run).games == 2520


def test_iterations_cap_the_deals_and_each_resume_visits_the_next_slice(
    tmp_path, small_chunks, monkeypatch
):
    """A range too big for one sitting: --iterations (or --time) ends a slice as 'stopped',
    and each --resume visits as many ranks again, until the range is done; the run then
    equals one made in one go."""
    from bmn.frontends.output import tables

    monkeypatch.setattr(tables, "stdout_is_terminal", lambda: True)  # fitted as bmn search does
    whole = outcome(*enumerate_deck(tmp_path / "w.sqlite")[:2])
    path = tmp_path / "i.sqlite"
    summary, finds, _ = enumerate_deck(path, iterations=1000, workers=2)
    assert summary.deals == 1000 and not summary.complete and summary.status == "stopped"
    text = tables.fit_summary(summary.text())  # the command on a line of its own, to copy
    assert f"resume goes on from the next rank:\n  bmn search --resume {summary.run}" in text
    assert all(len(line) <= 80 for line in text.splitlines() if not line.startswith("  bmn "))
    slices = [summary.deals]
    with Store(path) as store:
        while summary.status == "stopped":
            summary = RunLoop.resume(store, EveryJob, summary.run).run()
            slices.append(summary.deals)
        finds = {f.deal: (f.cards, f.tricks, f.status) for f in store.run_finds(summary.run)}
    assert slices == [1000, 2000, 2520] and summary.status == "finished" and summary.complete
    assert outcome(summary, finds) == whole


def test_the_command_line_resumes_a_stopped_slice_to_the_end(bmn, tmp_path):
    store = tmp_path / "s.sqlite"
    args = ["--quiet", "--json", "--store", store]
    first = bmn("search", "--strategy", "every", "--deck", DECK, "--iterations", 2000, *args)
    assert first.exit_code == 0, first.output  # a slice used up, not an interruption
    assert json.loads(first.stdout)["status"] == "stopped"
    rest = bmn("search", "--resume", *args)
    assert rest.exit_code == 0, rest.output
    summary = json.loads(rest.stdout)
    assert (summary["status"], summary["deals"], summary["complete"]) == ("finished", 2520, True)


def test_the_command_line_runs_a_deck_to_its_end_and_says_so_in_json(bmn, tmp_path):
    store = tmp_path / "c.sqlite"
    result = bmn(
        "search", "--strategy", "every", "--deck", " 6, 2,1,1,0 ", "--objective", "loop",
        "--workers", "2", "--quiet", "--json", "--store", store,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["deals"] == 2520 and summary["complete"] and summary["loops"] == 14
    assert summary["status"] == "finished" and summary["deck"] == "6,2,1,1,0"
    with Store(store) as db:
        run = db.get_run(summary["run"])
        assert run.kind == "every" and run.params["deck"] == "6,2,1,1,0"
        assert run.params["seconds"] is None  # no --time: until the deck is done
    exported = bmn("records", "export", "--store", store)
    assert exported.exit_code == 0 and exported.stdout.count("loop") >= 14


def test_the_loop_hunt_takes_deck_and_loop_deck_stored_without_spaces(bmn, tmp_path):
    for option in ("--deck", "--loop-deck"):
        store = tmp_path / f"{option}.sqlite"
        result = bmn(
            "search", "--objective", "loop", option, " 36,4,4,4,4 ", "--iterations", "100",
            "--workers", "1", "--quiet", "--store", store,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        with Store(store) as db:
            assert db.runs()[0].params["deck"] == "36,4,4,4,4"


@pytest.mark.parametrize(
    "args, message",
    [
        (["--deck", "60,4,4,0,0"], "the compiled kernels play at most 64 cards"),
        (["--deck", "14,2,2,2,0", "--hand-sizes", "10,9"], "add up to 19; the deck"),
        (["--deck", "14,2,2,2,0", "--hand-sizes", "10,10", "--players", "3"], "gives 2 hands"),
        (["--deck", DECK, "--from-rank", "2520"], "rank 2520 is outside the deck"),
        (["--deck", DECK, "--from-rank", "7", "--to-rank", "7"], "are empty"),
        (["--deck", DECK, "--to-rank", "2521"], "past the deck's last, 2,519"),
        (["--deck", "mixed"], "expected five counts"),
        (["--deck", "14,2,2"], "expected five counts"),
        (["--deck", DECK, "--loop-deck", DECK], "--loop-deck is the first name of --deck"),
        (["--hand-sizes", "26"], "expected 2 to 4 hand sizes"),
        (["--from-rank", "-1"], "is not a rank"),
        (["--patience", "9"], "--patience is for --strategy climb only; every does not"),
        # --device cuda enumerates on a GPU (tests/search/enumeration/test_enumeration_cuda.py): two
        # seats, ranks within 63 bits, device threads rather than CPU workers
        (["--device", "cuda"], "the deck 36,4,4,4,4 has 6.54e+20 deals; ranks on the GPU fit"),
        (["--device", "cuda", "--deck", DECK, "--hand-sizes", "4,3,3"], "plays two seats"),
        (["--device", "cuda", "--deck", DECK, "--players", "3"], "--players must be 2 with"),
        (["--device", "cuda", "--deck", DECK, "--workers", "2"], "--workers sets CPU threads"),
        (["--device", "cuda", "--deck", DECK, "--device-threads", "200"], "must be 1 to 128"),
        (["--grow-from", "known"], "--grow-from is for --objective grow only"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_no_store(bmn, failed, tmp_path, args, message):
    store = tmp_path / "bad.sqlite"
    result = bmn("search", "--strategy", "every", *args, "--store", store)
    failed(result, 2, message)
    assert not store.exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--from-rank", "5"], "--from-rank is for --strategy every only"),
        (["--objective", "loop", "--to-rank", "5"], "--to-rank is for --strategy every only"),
        # --deck and --hand-sizes serve every strategy on the CPU (tests/search/strategies/
        # test_any_deck.py); the GPU search deals the standard deck only.
        (["--device", "cuda", "--deck", DECK], "--deck is for the CPU search: --device cuda"),
        (["--device", "cuda", "--hand-sizes", "27,25"], "--hand-sizes is for the CPU search"),
    ],
)
def test_other_strategies_refuse_what_only_the_enumeration_takes(
    bmn, failed, tmp_path, args, message
):
    store = tmp_path / "bad.sqlite"
    failed(bmn("search", *args, "--store", store), 2, message)
    assert not store.exists()


def test_a_time_too_short_for_the_range_says_so_with_the_whole_time(tmp_path, monkeypatch):
    """A note, once the rate is measured: the whole range at that rate and the share covered."""
    monkeypatch.setattr(every, "COMMIT_SECONDS", 0.0)
    monkeypatch.setattr(every, "FIRST_CHUNK", 1000)
    notes = []
    with Store(tmp_path / "t.sqlite") as store:
        options = EveryOptions(deck="standard", seconds=0.5, workers=1)
        summary = RunLoop(store, EveryJob, options).run(lambda p: notes.extend(map(str, p.notes)))
    assert summary.status == "stopped" and not summary.complete
    assert summary.whole_range_seconds > 1e6
    assert any("653,534,134,886,878,245,000 deals of this range take about" in n for n in notes)
    assert any("resume goes on from the next rank" in n for n in notes)


# -- on a Dask cluster --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster():
    """Two single-thread worker processes, each under a nanny that restarts it if killed."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address="127.0.0.1:0", silence_logs=40,
    ) as cluster:  # fmt: skip
        yield cluster


def dask_backend(cluster):
    """A backend on the module's cluster, with both workers up (a run closes it)."""
    from bmn.search.backends.dask_cluster import DaskBackend

    backend = DaskBackend(cluster.scheduler_address)
    backend.client.wait_for_workers(2, timeout=HANG_SECONDS)
    return backend


@pytest.mark.slow
def test_a_dask_cluster_gives_the_threads_run_even_with_a_worker_killed(
    tmp_path, small_chunks, cluster
):
    on_threads = outcome(*enumerate_deck(tmp_path / "t.sqlite", ThreadBackend())[:2])
    on_dask = enumerate_deck(tmp_path / "d.sqlite", dask_backend(cluster))
    assert outcome(*on_dask[:2]) == on_threads
    backend = dask_backend(cluster)
    pids, killed = backend.client.run(os.getpid), []

    def kill_one(progress):
        if not killed:  # the first chunks are in; the next ones run on both workers
            os.kill(min(pids.values()), signal.SIGKILL)
            killed.append(progress.games)

    found = enumerate_deck(tmp_path / "k.sqlite", backend, kill_one)
    assert outcome(*found[:2]) == on_threads and 0 < killed[0] < 2520
