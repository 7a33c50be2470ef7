"""Cycles under rule sets (schema migration 8): a cycle is known by its key and the rule set it
was found under, so the same key under two rule sets is two rows, counted apart, kept apart by
`records merge`; a store of version 7 upgrades (and merges) with its cycles as bmn's."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from old_stores import STAMP, add_old_cycle, add_old_run, old_store
from samples import CASELLA, hunted_cycle

from bmn.records import merge_stores
from bmn.records.store import Loop, MergeRefused, Store, schema

BMN_ONLY = "----J/J-Q-K"  # loops under bmn's rules; under at-once a hand empties and it ends
SEEN_BY_RULES = {"bmn": 2, "paulhus": 5}


def cycle_of(deal: str, rules: str = "bmn") -> Loop:
    """The cycle `deal` falls into under `rules`, as a hunt under them stores it (its basin
    searched over 10 states)."""
    return hunted_cycle(deal, rules, basin_states=10)


def hunted(path: Path, seen: dict[str, int] = SEEN_BY_RULES) -> Path:
    """A store with a loop hunt per rule set, each finding Casella's cycle `seen[rules]` times."""
    with Store(path) as db:
        for rules, times in seen.items():
            run = db.create_run(None, "loop", 1, {}, kind="loop-hunt", rules=rules)
            db.add_loops(run, [(cycle_of(CASELLA, rules), times)])
            db.update_run(run, status="finished")
    return path


def by_rules(path: Path) -> dict[str, tuple[str, int, int]]:
    with Store(path, create=False, read_only=True) as db:
        return {row.rules: (row.key, row.run, row.times_seen) for row in db.loops()}


# -- the store ------------------------------------------------------------------------------


def test_one_key_under_two_rule_sets_is_two_rows_counted_apart(tmp_path):
    path = hunted(tmp_path / "r.sqlite")
    key = cycle_of(CASELLA).key
    assert by_rules(path) == {"bmn": (key, 1, 2), "paulhus": (key, 2, 5)}
    with Store(path) as db:
        assert db.add_loops(1, [(cycle_of(CASELLA), 3)]) == 0  # bmn's again: only counted
        assert db.add_loops(1, [(cycle_of(CASELLA, "at-once"), 1)]) == 1  # a third game
        assert [row.rules for row in db.loops(rules="paulhus")] == ["paulhus"]
        assert [row.rules for row in db.loops(run_id=1, rules="at-once")] == ["at-once"]
        assert db.loops(run_id=2, rules="bmn") == []
        assert db.loops()[0].as_dict()["rules"] == "bmn"
    assert {r: seen for r, (_, _, seen) in by_rules(path).items()} == {
        "bmn": 5,
        "paulhus": 5,
        "at-once": 1,
    }


def test_a_deal_earlier_in_rank_order_replaces_only_its_own_rule_sets_row(tmp_path):
    path = hunted(tmp_path / "r.sqlite")
    later = replace(cycle_of(CASELLA), first_deal="-" * 26 + "/" + "-" * 26, balanced_deals=7)
    with Store(path) as db:
        db.add_loops(1, [(later, 1)])
        rows = {row.rules: row for row in db.loops()}
    assert rows["bmn"].balanced_deals == 7
    assert rows["paulhus"].balanced_deals == cycle_of(CASELLA, "paulhus").balanced_deals
    assert rows["paulhus"].first_deal == CASELLA


def test_the_schema_holds_a_key_once_per_rule_set(tmp_path):
    path = hunted(tmp_path / "r.sqlite", {"bmn": 1})
    conn = sqlite3.connect(path)
    copy = (
        "INSERT INTO loops (key, rotation_key, deck, period_cards, period_tricks, cycle_states,"
        " balanced_states, balanced_deals, mirrored_balanced_deals, basin_states,"
        " basin_complete, example_deal, first_deal, run_id, found_at, rules)"
        " SELECT key, rotation_key, deck, period_cards, period_tricks, cycle_states,"
        " balanced_states, balanced_deals, mirrored_balanced_deals, basin_states,"
        " basin_complete, example_deal, first_deal, run_id, found_at, ? FROM loops"
    )
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE constraint failed: loops.key"):
        conn.execute(copy, ("bmn",))
    conn.execute(copy, ("paulhus",))  # the same key under another rule set: another row
    assert conn.execute("SELECT count(*), count(DISTINCT key) FROM loops").fetchone() == (2, 1)
    conn.close()


# -- a store of version 7 --------------------------------------------------------------------


def version_7_store(path: Path) -> tuple[int, dict]:
    """A store as bmn wrote it at schema version 7, its one run and one cycle (as a row)."""
    conn = old_store(path, 7)
    run = add_old_run(conn, None, "loop")
    conn.execute("UPDATE runs SET kind = 'loop-hunt', status = 'finished' WHERE id = ?", (run,))
    row = add_old_cycle(conn, run, CASELLA, times_seen=4)
    conn.close()
    return run, row


def test_a_version_7_store_upgrades_with_its_cycles_as_bmns(tmp_path):
    path = tmp_path / "v7.sqlite"
    run, row = version_7_store(path)
    with sqlite3.connect(path) as conn:
        assert schema._mismatch(conn, 7) is None  # the shape checks read it as version 7
    conn.close()
    with Store(path) as db:
        assert db.version == schema.SCHEMA_VERSION == 8
        [loop] = db.loops()
        assert loop.rules == "bmn" and (loop.key, loop.run, loop.times_seen) == (
            row["key"],
            run,
            4,
        )
        assert (loop.balanced_deals, loop.basin_states, loop.found_at) == (18, 2670, STAMP)
        db.add_loops(run, [(cycle_of(CASELLA, "paulhus"), 1), (cycle_of(CASELLA), 1)])
        assert {r.rules: r.times_seen for r in db.loops()} == {"bmn": 5, "paulhus": 1}
    conn = sqlite3.connect(path)
    assert schema._mismatch(conn, 8) is None
    table = conn.execute("SELECT sql FROM sqlite_schema WHERE name = 'loops'").fetchone()[0]
    assert "UNIQUE (key, rules)" in table and "loops_8" not in table
    conn.close()


def test_the_shape_checks_know_the_rules_column_is_version_8s(tmp_path):
    shapes = schema.shapes()
    assert "rules" in shapes[8]["loops"] and "rules" not in shapes[7]["loops"]
    assert shapes[8]["loops"] - shapes[7]["loops"] == {"rules"}  # every other column kept
    path = tmp_path / "v7.sqlite"
    version_7_store(path)
    conn = sqlite3.connect(path)
    conn.execute("ALTER TABLE loops ADD COLUMN rules TEXT")  # a column no version 7 had
    assert schema._mismatch(conn, 7) == "table loops has column(s) rules of a later version"
    conn.close()


# -- records merge -------------------------------------------------------------------------


def test_merge_keeps_one_key_of_two_rule_sets_apart(tmp_path):
    source, target = hunted(tmp_path / "a.sqlite"), tmp_path / "t.sqlite"
    hunted(target, {"paulhus": 1})  # the target knows paulhus's cycle already, from elsewhere
    with sqlite3.connect(target) as conn:  # and found it first: its run stays the finder
        conn.execute("UPDATE loops SET found_at = '2020-01-01T00:00:00.000Z'")
    conn.close()
    [merged] = merge_stores([source], target)
    assert (merged.loops_new, merged.loops_known) == (1, 1)
    key = cycle_of(CASELLA).key
    # bmn's is new here; paulhus's adds the source's sightings to the target's own
    assert by_rules(target) == {"paulhus": (key, 1, 6), "bmn": (key, 2, 2)}
    merge_stores([source], target)  # again: nothing new, nothing counted twice
    assert by_rules(target) == {"paulhus": (key, 1, 6), "bmn": (key, 2, 2)}


def test_a_version_7_source_merges_its_cycles_as_bmns(tmp_path):
    source, target = tmp_path / "v7.sqlite", tmp_path / "t.sqlite"
    _, row = version_7_store(source)
    before = source.read_bytes()
    hunted(target, {"paulhus": 1})
    [merged] = merge_stores([source], target)
    assert (merged.runs_new, merged.loops_new) == (1, 1)
    assert by_rules(target) == {"paulhus": (row["key"], 1, 1), "bmn": (row["key"], 2, 4)}
    assert source.read_bytes() == before  # read through the migrations in memory only


def test_merge_replays_a_cycle_under_its_own_rule_set(tmp_path):
    """A cycle stored as at-once's, by a run of bmn's, is replayed under at-once, where its
    deal does not loop: refused, nothing written."""
    source, target = tmp_path / "a.sqlite", tmp_path / "t.sqlite"
    with Store(source) as db:
        run = db.create_run(None, "loop", 1, {}, kind="loop-hunt")
        claimed = replace(cycle_of(BMN_ONLY), rules="at-once")  # bmn's cycle, said at-once's
        db.add_loops(run, [(cycle_of(BMN_ONLY), 1), (claimed, 1)])
    with pytest.raises(MergeRefused) as refused:
        list(merge_stores([source], target))
    [problem] = refused.value.problems
    assert problem.startswith(f"cycle of deal {BMN_ONLY}: stored loop, replayed finished;")
    assert "stored a period of" in problem and "replayed no cycle" in problem
    assert not target.exists() or by_rules(target) == {}


def test_merge_refuses_a_cycle_of_a_rule_set_it_does_not_know(tmp_path):
    source = hunted(tmp_path / "a.sqlite", {"bmn": 1})
    with sqlite3.connect(source) as conn:
        conn.execute("UPDATE loops SET rules = 'nope'")
    conn.close()
    with pytest.raises(MergeRefused) as refused:
        list(merge_stores([source], tmp_path / "t.sqlite"))
    said = f"cycle of deal {CASELLA} is of rule set 'nope', unknown to this bmn"
    assert refused.value.problems == [said]
