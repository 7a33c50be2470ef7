"""Run ownership in the store: one live holder per run, dead holders recognised, seats and
backends kept with every run, and a version-2 store upgraded in place without losing a row."""

import multiprocessing
import time

import pytest
from old_stores import add_old_run, old_store

from bmn.records.store import (
    SCHEMA_VERSION,
    Find,
    RunHeld,
    Store,
    StoreError,
    holder_alive,
    holder_name,
    runs,
)

RECORD = "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---"
THREE = "-J------/K-------/--Q-----"


def _create_and_exit(path: str, queue) -> None:
    """In a child process: create a run (held by the child) and exit without releasing it."""
    with Store(path) as store:
        queue.put(store.create_run("walk", "cards", 1, {}))


def test_new_run_is_held_by_its_creator(db):
    run = db.get_run(db.create_run("walk", "cards", 1, {}, seats=3, backend="dask"))
    assert run.holder == holder_name() and run.status == "running"
    assert (run.seats, run.backend) == (3, "dask")
    assert "holder" not in run.as_dict() and run.as_dict()["seats"] == 3


def test_second_live_holder_is_refused_naming_the_first(db):
    run = db.create_run("walk", "cards", 1, {})
    with pytest.raises(RunHeld, match=f"run {run} is being searched by {holder_name()}"):
        db.claim_run(run, "otherhost:1")
    db.claim_run(run, holder_name())  # the holder itself may claim again
    db.release_run(run, holder_name())
    assert db.claim_run(run, "otherhost:1").holder == "otherhost:1"


def test_dead_holder_on_this_host_reads_as_interrupted_and_can_be_claimed(path):
    queue = multiprocessing.get_context("spawn").Queue()
    child = multiprocessing.get_context("spawn").Process(
        target=_create_and_exit, args=(str(path), queue)
    )
    child.start()
    run = queue.get(timeout=60)
    child.join(timeout=60)
    with Store(path) as db:
        assert db.get_run(run).status == "interrupted"
        assert db.latest_unfinished_run().id == run
        assert db.claim_run(run, holder_name()).status == "running"


def test_holder_elsewhere_is_alive_until_its_heartbeat_is_stale(db, monkeypatch):
    beat = time.time()
    assert holder_alive("far-away-host:12", beat)
    assert not holder_alive("far-away-host:12", beat - runs.STALE_SECONDS - 1)
    assert not holder_alive(None, beat)
    run = db.create_run("walk", "cards", 1, {})
    db.release_run(run, holder_name())
    db.claim_run(run, "far-away-host:12")
    with pytest.raises(RunHeld, match="far-away-host:12"):
        db.claim_run(run, holder_name())
    monkeypatch.setattr(runs, "STALE_SECONDS", -1.0)
    assert db.get_run(run).status == "interrupted"
    assert db.claim_run(run, holder_name()).holder == holder_name()


def test_progress_refreshes_the_heartbeat(db):
    run = db.create_run("walk", "cards", 1, {})
    before = db.get_run(run).heartbeat_at
    time.sleep(0.01)
    db.save_progress(run, [(0, b"state", 10, 1.0)], [], {"games": 10}, holder=holder_name())
    assert db.get_run(run).heartbeat_at > before
    db.save_progress(run, [(0, b"state", 20, 2.0)], [], {"games": 20}, holder="someone:else")
    assert db.get_run(run).games == 20  # a commit from a non-holder beats nothing


def test_latest_unfinished_skips_finished_and_live_runs(db):
    assert db.latest_unfinished_run() is None
    first = db.create_run("walk", "cards", 1, {})
    db.update_run(first, status="interrupted")
    second = db.create_run("walk", "cards", 2, {})
    db.update_run(second, status="finished")
    db.create_run("walk", "cards", 3, {})  # running, held by this live process
    assert db.latest_unfinished_run().id == first


def test_finds_know_their_seats(db):
    two = db.create_run("walk", "cards", 1, {})
    three = db.create_run("walk", "cards", 1, {}, seats=3)
    db.add_finds(two, [Find(RECORD, 8344, 1164)])
    db.add_finds(three, [Find(THREE, 40, 5)])
    assert [r.deal for r in db.top(seats=3)] == [THREE]
    assert [r.deal for r in db.top(seats=2)] == [RECORD]
    assert len(db.top()) == 2


def test_min_cards_past_64_bits_selects_nothing_without_error(db):
    run = db.create_run("walk", "cards", 1, {})
    db.add_finds(run, [Find(RECORD, 8344, 1164)])
    assert db.top(min_cards=10**30) == []
    assert len(db.top(min_cards=-(10**30))) == 1


def test_version_two_store_upgrades_keeping_every_row(path):
    # Rows as version-2 code wrote them: no seats, no backend, no holder; a run left running.
    conn = old_store(path, 2)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    add_old_run(conn, "walk", "cards")
    conn.execute(
        "INSERT INTO finds (deal, cards, tricks, status, run_id, strategy, found_at, elapsed)"
        f" VALUES ('{RECORD}', 8344, 1164, 'finished', 1, 'walk', '2026-01-01T00:00:00Z', 1.0)"
    )
    conn.close()
    with Store(path) as db:
        assert db.version == SCHEMA_VERSION == 8
        (row,) = db.top(seats=2)
        assert (row.deal, row.cards) == (RECORD, 8344)
        old = db.get_run(1)
        assert (old.seats, old.backend, old.holder) == (2, "threads", None)
        assert old.status == "interrupted"  # marked running by a v2 process long gone


def test_claim_unknown_run(db):
    with pytest.raises(StoreError, match="no run 7"):
        db.claim_run(7, holder_name())


def test_version_four_store_learns_each_runs_kind_from_what_it_stored(path):
    # Runs as version-4 code stored them: the kind was read from strategy, params and objective.
    conn = old_store(path, 4)
    for strategy, objective, params in [
        ("walk", "cards", "{}"),
        ("walk", "tricks", '{"device": "cuda", "workers": 8}'),
        ("random", "loop", "{}"),
        ("grow", "loop", "{}"),
        ("lahc", "tricks", '{"device": "cpu"}'),
    ]:
        add_old_run(conn, strategy, objective, params=params)
    conn.close()
    with Store(path) as db:
        assert db.version == SCHEMA_VERSION
        kinds = [run.kind for run in db.runs()]
        assert kinds == ["longest", "longest-cuda", "loop-hunt", "grow", "longest"]
        assert db.get_run(db.create_run("walk", "loop", 1, {}, kind="loop-hunt")).kind == (
            "loop-hunt"
        )
