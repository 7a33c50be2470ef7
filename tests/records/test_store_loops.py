"""The loops table of the record store (migration 2): one row per canonical cycle key."""

import sqlite3

import pytest
from old_stores import add_old_run, old_store
from samples import CASELLA

from bmn.records.store import SCHEMA_VERSION, Loop, Store, StoreError


def cycle(key: str = "0:-J/Q-", balanced: int = 18, complete: bool = True) -> Loop:
    return Loop(
        key=key,
        rotation_key="0:J/Q",
        deck="36,4,4,4,4",
        period_cards=440,
        period_tricks=62,
        cycle_states=62,
        balanced_states=0,
        balanced_deals=balanced,
        mirrored_balanced_deals=12,
        basin_states=2670,
        basin_complete=complete,
        example_deal=CASELLA,
        first_deal=CASELLA,
    )


@pytest.fixture
def db(tmp_path):
    with Store(tmp_path / "r.sqlite") as store:
        yield store


def test_version_one_store_gains_the_loops_table(tmp_path):
    path = tmp_path / "old.sqlite"
    conn = old_store(path, 1)  # a store, and a run, as the first release wrote them
    run = add_old_run(conn, "walk", "cards", seed=3)
    conn.close()
    with Store(path) as db:
        assert db.version == SCHEMA_VERSION == 8
        assert db.get_run(run).seed == 3 and db.loops() == []
        db.add_loops(run, [(cycle(), 1)])
        assert [row.key for row in db.loops()] == ["0:-J/Q-"]


def test_add_loops_inserts_once_then_counts(db):
    one = db.create_run(None, "loop", 1, {})
    two = db.create_run(None, "loop", 2, {})
    assert db.add_loops(one, [(cycle(), 3)]) == 1
    assert db.add_loops(two, [(cycle(balanced=0), 2)]) == 0  # same key: only counted
    assert db.add_loops(two, [(cycle("0:Q-/-J", 0, False), 1), (cycle(), 1)]) == 1
    rows = {row.key: row for row in db.loops()}
    a, b = rows["0:-J/Q-"], rows["0:Q-/-J"]
    assert (a.run, a.times_seen, a.balanced_deals, a.reachable) == (one, 6, 18, True)
    assert (b.run, b.times_seen, b.reachable) == (two, 1, None)  # basin cut, none found
    assert a.as_dict()["balanced_reachable"] is True and a.basin_complete is True
    assert [row.key for row in db.loops(two)] == ["0:Q-/-J"]
    assert [row.key for row in db.loops()] == ["0:-J/Q-", "0:Q-/-J"]


def test_no_balanced_deal_in_a_complete_basin_is_a_no(db):
    run = db.create_run(None, "loop", 1, {})
    db.add_loops(run, [(cycle(balanced=0, complete=True), 1)])
    assert db.loops()[0].reachable is False


def test_key_is_unique_in_the_schema(db):
    run = db.create_run(None, "loop", 1, {})
    db.add_loops(run, [(cycle(), 1)])
    with pytest.raises(sqlite3.IntegrityError):
        db._db.execute("INSERT INTO loops SELECT * FROM loops")


def test_unknown_run_and_failed_progress_store_nothing(db):
    with pytest.raises(StoreError, match="no run 9"):
        db.add_loops(9, [(cycle(), 1)])
    run = db.create_run(None, "loop", 1, {})
    with pytest.raises(ValueError, match="run status"):  # the run update fails last
        db.save_loop_progress(run, [(cycle(), 1)], (0, b"x", 10, 1.0), {"status": "bad"})
    assert db.loops() == [] and db.load_checkpoints(run) == {}
    assert db.save_loop_progress(run, [(cycle(), 1)], (0, b"x", 10, 1.0), {"games": 10}) == 1
    assert db.load_checkpoints(run) == {0: (b"x", 10, 1.0)} and db.get_run(run).games == 10
