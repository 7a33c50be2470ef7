"""`bmn records loops` under rule sets: one row per cycle key and rule set, a rules column where
any listed cycle is not bmn's (kept at 80 columns), --rules NAME for one rule set's cycles,
`rules` in every --json row; a store of version 7 is read as it is, its cycles bmn's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from old_stores import add_old_cycle, add_old_run, old_store
from samples import CASELLA, stored_cycle

from bmn.frontends.output import tables
from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import parse_deal
from bmn.records.store import Store

SEEN = {"bmn": 2, "paulhus": 5}


def hunted(path: Path, seen: dict[str, int]) -> Path:
    """A loop hunt per rule set, each finding Casella's cycle `seen[rules]` times."""
    with Store(path) as db:
        for rules, times in seen.items():
            run = db.create_run(None, "loop", 1, {}, kind="loop-hunt", rules=rules)
            db.add_loops(run, [(stored_cycle(rules=rules), times)])
    return path


@pytest.fixture
def two(tmp_path) -> Path:
    return hunted(tmp_path / "two.sqlite", SEEN)


def listed(bmn, store: Path, *args: object) -> list[dict]:
    result = bmn("records", "loops", "--json", "--store", store, *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_one_key_under_two_rule_sets_is_two_rows_with_their_rules(bmn, two):
    rows = listed(bmn, two)
    assert [(r["rules"], r["times_seen"], r["run"]) for r in rows] == [
        ("bmn", 2, 1),
        ("paulhus", 5, 2),
    ]
    assert rows[0]["key"] == rows[1]["key"] == analyse(parse_deal(CASELLA)).key
    text = bmn("records", "loops", "--store", two).stdout.splitlines()
    assert text[0].split()[:2] == ["run", "rules"]
    assert [line.split()[:2] for line in text[1:]] == [["1", "bmn"], ["2", "paulhus"]]


def test_rules_lists_one_rule_sets_cycles_only(bmn, two):
    [row] = listed(bmn, two, "--rules", "paulhus")
    assert (row["rules"], row["times_seen"]) == ("paulhus", 5)
    text = bmn("records", "loops", "--rules", "PAULHUS", "--store", two).stdout.splitlines()
    assert len(text) == 2 and text[1].split()[:2] == ["2", "paulhus"]
    # an alias is the set it names (exercism's convention is bmn's); the list is bmn's only
    assert [r["rules"] for r in listed(bmn, two, "--rules", "exercism")] == ["bmn"]
    standard = bmn("records", "loops", "--standard", "--rules", "paulhus", "--json", "--store", two)
    assert [r["rules"] for r in json.loads(standard.stdout)] == ["paulhus"]


def test_a_rule_set_with_no_cycles_says_the_hunt_for_them(bmn, two):
    said = bmn("records", "loops", "--rules", "at-once", "--store", two)
    assert said.exit_code == 0 and said.stdout == (
        "no cycles under at-once's rules in the store;"
        " hunt with: bmn search --objective loop --rules at-once\n"
    )
    said = bmn("records", "loops", "--rules", "paulhus", "--players", 3, "--store", two)
    assert said.stdout == (
        "no cycles of 3-seat deals under paulhus's rules in the store;"
        " hunt with: bmn search --objective loop --players 3 --rules paulhus\n"
    )
    assert listed(bmn, two, "--rules", "at-once") == []


def test_an_unknown_rule_set_is_a_usage_error(bmn, failed, two):
    before = two.read_bytes()
    line = failed(bmn("records", "loops", "--rules", "paulus", "--store", two), 2, "'paulus'")
    assert line.startswith("Error: Invalid value for '--rules'") and "'paulhus'" in line
    assert two.read_bytes() == before


def test_the_rules_column_only_where_a_cycle_is_not_bmns(bmn, tmp_path):
    only = hunted(tmp_path / "bmn.sqlite", {"bmn": 1})
    head = bmn("records", "loops", "--store", only).stdout.splitlines()[0].split()
    assert head[:2] == ["run", "deck"] and "rules" not in head
    assert [r["rules"] for r in listed(bmn, only)] == ["bmn"]  # JSON names it always
    standard = bmn("records", "loops", "--standard", "--store", only).stdout.splitlines()
    assert "rules" not in standard[0].split()


@pytest.mark.parametrize("args", [[], ["--standard"]])
def test_the_rules_column_stays_at_80_columns(bmn, monkeypatch, two, args):
    """On a terminal 80 columns wide the rule set never gives way (the run and the balanced
    deals do), and the deal stays whole."""
    monkeypatch.setattr(tables, "stdout_is_terminal", lambda: True)
    result = bmn("records", "loops", *args, "--store", two, env={"COLUMNS": "80"})
    lines = result.stdout.splitlines()
    assert result.exit_code == 0 and all(len(line) <= 80 for line in lines), result.stdout
    assert lines[0].split()[0] == "rules"
    rows = [line.split() for line in lines if CASELLA in line]
    assert [row[0] for row in rows] == ["bmn", "paulhus"] and all(CASELLA in r for r in rows)
    said = " ".join(lines)
    assert "left out to fit 80 columns" in said and "run" in said.split("left out")[1]


def test_a_version_7_store_is_read_as_it_is_its_cycles_bmns(bmn, tmp_path):
    path = tmp_path / "v7.sqlite"
    conn = old_store(path, 7)
    add_old_cycle(conn, add_old_run(conn, None, "loop"), CASELLA, times_seen=3)
    conn.close()
    before = path.read_bytes()
    [row] = listed(bmn, path)
    assert (row["rules"], row["times_seen"]) == ("bmn", 3)
    assert [r["rules"] for r in listed(bmn, path, "--rules", "bmn")] == ["bmn"]
    assert listed(bmn, path, "--rules", "paulhus") == []
    assert path.read_bytes() == before  # read through an upgraded copy in memory
