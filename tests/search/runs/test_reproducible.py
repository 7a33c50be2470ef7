"""Every stored row is reproducible: what an enumeration, a loop hunt or a search stores (its
finds, each cycle's first deal, example deal and counts, the run's figures and checkpoints) is
fixed by its settings alone: the same with 1, 2 or 3 workers (a search: its streams are a
setting), whatever order the streams' chunks come back in, and after a stop or a kill -9 and a
resume. Every row of every table is compared, less
the columns that say when or where it was written (stored_rows.py)."""

import json
import signal
from dataclasses import replace
from pathlib import Path

import children
import pytest
from stored_rows import LastStreamFirst, stored

from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import parse_deal
from bmn.kernels.ranks import rank_of
from bmn.records.store import Loop, Store
from bmn.search.runs.kinds import longest, loop_hunt
from bmn.search.runs.kinds.every import EveryJob, EveryOptions
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.kinds.loop_hunt import LoopHuntJob, LoopHuntOptions
from bmn.search.runs.loop import RunLoop

# Small decks whose cycles are each met by several deals, in several streams' ranks: 14 looping
# deals into 2 cycles at 2 seats, 22 into 7 at 3, 20 into 12 at 4.
DECKS = [("6,2,1,1,0", 2), ("9,3,0,0,0", 3), ("10,2,0,0,0", 4)]
BASIN = 50  # backward-play states a cycle: too few to finish a basin, so its example and
# counts depend on the deal it is summarised from


def enumerate_into(path: Path, deck: str, players: int, workers: int, backend=None) -> Path:
    """A whole enumeration with --objective loop into a store of its own."""
    options = EveryOptions(
        deck=deck, players=players, objective="loop", workers=workers, keep_above=0,
        basin_states=BASIN,
    )  # fmt: skip
    with Store(path) as store:
        assert RunLoop(store, EveryJob, options, backend=backend).run().status == "finished"
    return path


def check_first_deals(path: Path) -> None:
    """Each cycle's first deal is the deal of lowest rank among the run's looping finds that
    fall into it, and some cycle has more than one (or the test shows nothing)."""
    with Store(path) as store:
        loops = [f.deal for f in store.run_finds(1) if f.status == "loop"]
        rows = store.loops()
    lowest: dict[str, tuple[int, str]] = {}
    for deal in loops:
        hands = parse_deal(deal)
        rank = rank_of([card for hand in hands for card in hand])
        key = analyse(hands).key
        lowest[key] = min(lowest.get(key, (rank, deal)), (rank, deal))
    assert {row.key: row.first_deal for row in rows} == {k: d for k, (_, d) in lowest.items()}
    assert any(row.times_seen > 1 for row in rows)
    assert not all(row.basin_complete for row in rows)


@pytest.mark.parametrize(("deck", "players"), DECKS, ids=lambda v: str(v))
def test_an_enumeration_stores_the_same_rows_with_1_2_and_3_workers(tmp_path, deck, players):
    """Threads on one stream, and two and three streams handed back last stream first (a
    cycle met first in the highest ranks) or as threads do."""
    one = enumerate_into(tmp_path / "1.sqlite", deck, players, 1)
    check_first_deals(one)
    expected = stored(one, streams=False)
    for name, workers, backend in (
        ("2-last-first", 2, LastStreamFirst()),
        ("3-last-first", 3, LastStreamFirst()),
        ("3-threads", 3, None),
    ):
        path = enumerate_into(tmp_path / f"{name}.sqlite", deck, players, workers, backend)
        assert stored(path, streams=False) == expected, name


@pytest.mark.parametrize(("deck", "players"), DECKS, ids=lambda v: str(v))
def test_an_enumeration_stopped_and_resumed_stores_the_same_rows(
    tmp_path, small_chunks, deck, players
):
    """Stopped at its first commit (the last stream's first chunk), resumed on threads."""
    whole = stored(enumerate_into(tmp_path / "whole.sqlite", deck, players, 3))
    path = tmp_path / "resumed.sqlite"
    options = EveryOptions(
        deck=deck, players=players, objective="loop", workers=3, keep_above=0,
        basin_states=BASIN,
    )  # fmt: skip
    with Store(path) as store:
        job = RunLoop(store, EveryJob, options, backend=LastStreamFirst())
        assert job.run(lambda progress: job.stop.set()).status == "interrupted"
        assert RunLoop.resume(store, EveryJob, 1).run().status == "finished"
    check_first_deals(path)
    assert stored(path) == whole


LOOP_HUNTS = [("5,2,2,0,0", 2), ("9,3,0,0,0", 3)]


def hunt_into(path: Path, deck: str, players: int, workers: int, stop: bool = False) -> Path:
    """A loop hunt of 3 batches into a store of its own; with `stop`, stopped at its first
    commit and resumed."""
    options = LoopHuntOptions(
        iterations=50_000, workers=workers, seed=3, deck=deck, players=players
    )
    with Store(path) as store:
        job = RunLoop(store, LoopHuntJob, options)
        if stop:
            assert job.run(lambda progress: job.stop.set()).status == "interrupted"
            job = RunLoop.resume(store, LoopHuntJob, 1)
        assert job.run().status == "finished"
        assert store.loops()
    return path


@pytest.mark.parametrize(("deck", "players"), LOOP_HUNTS, ids=lambda v: str(v))
def test_a_loop_hunt_stores_the_same_rows_with_1_2_and_3_workers_and_a_resume(
    tmp_path, monkeypatch, deck, players
):
    monkeypatch.setattr(loop_hunt, "COMMIT_SECONDS", 0.0)  # a commit a batch: stop at the first
    expected = stored(hunt_into(tmp_path / "1.sqlite", deck, players, 1), streams=False)
    for workers in (2, 3):
        path = hunt_into(tmp_path / f"{workers}.sqlite", deck, players, workers)
        assert stored(path, streams=False) == expected, workers
    whole = stored(hunt_into(tmp_path / "whole.sqlite", deck, players, 2))
    assert stored(hunt_into(tmp_path / "stopped.sqlite", deck, players, 2, stop=True)) == whole


def test_a_longest_search_stores_the_same_rows_in_any_order_and_after_a_stop(tmp_path, monkeypatch):
    """Its streams draw from seeds of their own, so their number is a setting: the rows are
    the same on threads, handed back last stream first, and stopped at the first commit."""
    monkeypatch.setattr(longest, "CHUNK_SECONDS", 0.01)  # many chunks
    monkeypatch.setattr(longest, "COMMIT_SECONDS", 0.0)
    options = dict(strategy="walk", iterations=200_000, workers=3, seed=5, keep_above=1500)
    rows = []
    for name, backend in (("threads", None), ("last-first", LastStreamFirst()), ("stop", None)):
        with Store(tmp_path / f"{name}.sqlite") as store:
            job = RunLoop(store, LongestJob, LongestOptions(**options), backend=backend)
            if name == "stop":
                assert job.run(lambda progress, stop=job.stop: stop.set()).status == "interrupted"
                job = RunLoop.resume(store, LongestJob, 1)
            assert job.run().status == "finished"
        rows.append(stored(tmp_path / f"{name}.sqlite"))
    assert rows[0]["find_batches"] and rows[0] == rows[1] == rows[2]


def test_the_store_keeps_the_lowest_ranked_deal_offered_whatever_the_order(tmp_path):
    """add_loops: the offered deal of lower rank replaces the stored one, with its summary;
    one of higher rank only adds its times seen."""
    first, later = "----J/J-Q-K", "J--Q-/-K-J-"  # two deals of 6,2,1,1,0 into one cycle
    key = analyse(parse_deal(first)).key
    assert analyse(parse_deal(later)).key == key
    low = Loop(
        key=key, rotation_key=key, deck="6,2,1,1,0", period_cards=6, period_tricks=3,
        cycle_states=3, balanced_states=1, balanced_deals=2, mirrored_balanced_deals=0,
        basin_states=50, basin_complete=False, example_deal=first, first_deal=first,
    )  # fmt: skip
    high = replace(low, balanced_deals=0, basin_states=40, example_deal=later, first_deal=later)
    rows = []
    for offers in ([(high, 2), (low, 3)], [(low, 3), (high, 2)], [(low, 1), (high, 2), (low, 2)]):
        with Store(tmp_path / f"{len(rows)}.sqlite") as store:
            run = store.create_run("every", "loop", 0, {})
            for offer in offers:
                assert store.add_loops(run, [offer]) == (offer is offers[0])
            rows.append([replace(row, found_at="") for row in store.loops()])
    assert rows[0] == rows[1] == rows[2]
    (row,) = rows[0]
    assert (row.first_deal, row.example_deal, row.basin_states, row.balanced_deals) == (
        first, first, 50, 2,
    )  # fmt: skip
    assert (row.times_seen, row.reachable) == (5, True)


# -- a real kill -9 of a child process ---------------------------------------------------------

# The child's backend: every chunk in turn, the last stream's first (stored_rows.py), so its
# first commit holds the highest ranks of the deck.
LAST_FIRST = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from bmn.search.backends import registry
registry.BACKENDS["threads"] = "stored_rows:LastStreamFirst"
"""


def bmn_json(*args: object) -> dict:
    """`bmn ARGS --json` in a process of its own, its summary."""
    process = children.subprocess.run(
        [children.sys.executable, "-m", "bmn.frontends.cli", *map(str, args), "--json", "--quiet"],
        capture_output=True, text=True, timeout=children.HANG_SECONDS,
    )  # fmt: skip
    assert process.returncode == 0, process.stderr
    return json.loads(process.stdout)


def killed_and_resumed(search_child, monkeypatch, args: list, path: Path, reorder: bool) -> None:
    """`bmn ARGS` killed (SIGKILL) at its first commit, its threads mid-chunk, then resumed."""
    if reorder:
        monkeypatch.setattr(children, "CHILD", LAST_FIRST + children.CHILD)
    victim = search_child([*args, "--quiet", "--store", path], then="wait")
    victim.committed()
    victim.process.send_signal(signal.SIGKILL)
    victim.communicate()
    assert victim.returncode == -signal.SIGKILL
    with Store(path) as store:
        run = store.get_run(1)
        assert run.status != "finished" and run.games > 0  # its first commit, and no more
    assert bmn_json("search", "--resume", 1, "--store", path)["status"] == "finished"


@pytest.mark.slow
@pytest.mark.parametrize(("deck", "players"), DECKS[1:], ids=lambda v: str(v))
def test_an_enumeration_killed_and_resumed_stores_the_same_rows(
    tmp_path, search_child, monkeypatch, deck, players
):
    args = [
        "search", "--strategy", "every", "--deck", deck, "--players", players, "--objective",
        "loop", "--workers", 3, "--keep-above", 0, "--basin-states", BASIN,
    ]  # fmt: skip
    bmn_json(*args, "--store", tmp_path / "whole.sqlite")
    killed_and_resumed(search_child, monkeypatch, args, tmp_path / "k.sqlite", reorder=True)
    check_first_deals(tmp_path / "k.sqlite")
    assert stored(tmp_path / "k.sqlite") == stored(tmp_path / "whole.sqlite")


@pytest.mark.slow
def test_a_loop_hunt_killed_and_resumed_stores_the_same_rows(tmp_path, search_child, monkeypatch):
    args = [
        "search", "--objective", "loop", "--loop-deck", "9,3,0,0,0", "--players", 3,
        "--iterations", 60_000, "--seed", 3, "--workers", 2,
    ]  # fmt: skip
    bmn_json(*args, "--store", tmp_path / "whole.sqlite")
    killed_and_resumed(search_child, monkeypatch, args, tmp_path / "k.sqlite", reorder=False)
    assert stored(tmp_path / "k.sqlite") == stored(tmp_path / "whole.sqlite")
