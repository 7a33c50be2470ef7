"""`bmn records import FILE --rules NAME`: another program's finds, each replayed by the kernel
and the reference engine under the rule set named, stored as one import run; a bad row names
its line and stores nothing unless --skip-bad."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest
from samples import CASELLA, PAULHUS, RECORD

import bmn.records as records
from bmn.kernels import reference
from bmn.kernels.deal import parse_deal
from bmn.kernels.rules.sets import rule_set
from bmn.records.report import UNRECORDED_IMPORT
from bmn.records.store import Find, Store

PEERS = Path(__file__).parents[1] / "data" / "peers"


def stored(path: Path) -> tuple[list, set]:
    with Store(path, create=False, read_only=True) as db:
        runs = db.runs()
        finds = {(f.deal, f.cards, f.tricks, f.status, f.run) for f in db.all_finds()}
    return runs, finds


@pytest.mark.parametrize(
    ("name", "rules", "notation", "count"),
    [
        ("n1k06_40.csv", "n1k06", "auto", 305),
        ("leodog896.csv", "leodog896", "auto", 4),
        ("ab0214.csv", "ab0214", "alternate", 3),
        ("exercism_camicia.csv", "exercism", "auto", 28),
    ],
)
def test_a_peers_table_is_stored_as_an_import_run_a_deck_with_replayed_figures(
    bmn, tmp_path, name, rules, notation, count
):
    store = tmp_path / "s.sqlite"
    args = ["records", "import", PEERS / name, "--rules", rules, "--notation", notation]
    result = bmn(*args, "--store", store, "--any-deck")  # exercism's cases: a deck each, some
    assert result.exit_code == 0, result.output
    runs, finds = stored(store)
    assert result.stdout.startswith(f"{name}: {run_numbers([run.id for run in runs])}; finds ")
    decks = {deck_of_deal(deal) for deal, *_ in finds}
    assert len(runs) == len(decks)  # one run a deck: each knows what it holds
    for run in runs:
        assert (run.kind, run.rules, run.status, run.params["file"]) == (
            "import",
            rule_set(rules).name,  # an alias is stored as the set it names
            "finished",
            name,
        )
        assert run.found_by == "import" and run.params["sha256"]
        held = {deck_of_deal(deal) for deal, *_, at in finds if at == run.id}
        assert held == {run.params["deck"]}
    assert sum(run.games for run in runs) == count
    assert len({deal for deal, *_ in finds}) == len(finds) <= count  # a deal given twice is one
    for deal, cards, tricks, status, _ in finds:  # the oracle's figures, whatever the table said
        game = reference.play(parse_deal(deal), rules=rules)
        assert (cards, tricks, status) == (game.cards, game.tricks, game.status)
    again = bmn(*args, "--store", store)
    said = f"{name}: imported before as {run_numbers([run.id for run in runs])}; nothing new"
    assert again.stdout.strip() == said
    assert stored(store) == (runs, finds)


def deck_of_deal(deal: str) -> str:
    return ",".join(str(deal.count(symbol)) for symbol in "-JQKA")


def run_numbers(runs: list[int]) -> str:
    return f"run {runs[0]}" if len(runs) == 1 else f"runs {runs[0]} to {runs[-1]}"


def test_figures_of_another_rule_set_are_refused_and_nothing_is_stored(bmn, failed, tmp_path):
    store = tmp_path / "s.sqlite"
    line = failed(
        bmn("records", "import", PEERS / "n1k06_40.csv", "--store", store),
        2,
        "n1k06_40.csv: not imported, nothing stored: line ",
        "cards, replayed",
        "give --rules",
    )
    assert "and 65 more" in line  # every row is checked, the first five named
    assert not store.exists()


def test_bad_rows_name_their_lines_and_skip_bad_stores_the_rest(bmn, failed, tmp_path):
    table = tmp_path / "mixed.txt"
    table.write_text(f"{RECORD} 8344\n-Z/Q-\n{PAULHUS},4790\n{CASELLA} loop\n-J/Q-/--\n")
    store = tmp_path / "s.sqlite"
    line = failed(bmn("records", "import", table, "--rules", "at-once", "--store", store), 2)
    assert "line 2: hand 1" in line  # not a deal
    assert "line 3: " in line and "stated 4,790 cards, replayed 4,791" in line
    assert "line 5: a deal of 3 hands; rule set 'at-once' plays 2 seats" in line
    assert not store.exists()
    kept = bmn("records", "import", table, "--rules", "at-once", "--store", store, "--skip-bad")
    assert kept.exit_code == 0, kept.output
    assert kept.stdout.strip() == "mixed.txt: run 1; finds 2 new, 0 given twice, 3 skipped"
    assert kept.stderr.count("skipped: line ") == 3
    _, finds = stored(store)
    assert {deal for deal, *_ in finds} == {RECORD, CASELLA}


def test_exercisms_json_and_camicia_numbers_are_imported(tmp_path):
    cases = [
        {
            "input": {"playerA": c["hand_a"], "playerB": c["hand_b"]},
            "expected": {"cards": int(c["cards"])},
        }
        for c in csv.DictReader((PEERS / "exercism_camicia.csv").read_text().splitlines())
    ]
    data = tmp_path / "canonical-data.json"
    data.write_text(json.dumps({"exercise": "camicia", "cases": cases}, indent=2))
    store = tmp_path / "s.sqlite"
    done = records.import_table(data, store, rules="exercism", any_deck=True)
    assert (done.rows, done.skipped, len(done.runs)) == (28, [], 14)  # 14 decks, a run each
    numbers = tmp_path / "numbers.txt"
    numbers.write_text("497985732634057566415 5790\n")  # Kleber 1999, camicia.dev's number
    done = records.import_table(numbers, store, notation="camicia")
    _, finds = stored(store)
    assert any(run == done.runs[0] and cards == 5790 for _, cards, _, _, run in finds)


def test_a_stores_export_imports_back_as_the_same_finds(bmn, tmp_path):
    source, target = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    with Store(source) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(RECORD, 8344, 1164), Find(CASELLA, 474, 66, "loop")])
    for fmt in ("csv", "json"):
        exported = tmp_path / f"finds.{fmt}"
        exported.write_text(bmn("records", "export", "--format", fmt, "--store", source).stdout)
        assert bmn("records", "import", exported, "--store", target).exit_code == 0
    _, before = stored(source)
    _, after = stored(target)
    assert {f[:4] for f in after} == {f[:4] for f in before}


def test_an_export_of_several_rule_sets_imports_as_a_run_of_each(bmn, tmp_path):
    source, target = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    table = [row for row in csv.DictReader((PEERS / "n1k06_40.csv").read_text().splitlines())]
    exported = tmp_path / "n1k06.csv"
    exported.write_text(
        "\n".join(["deck,cards", *(f"{r['deck']},{r['cards']}" for r in table[:3])])
    )
    records.import_table(exported, source, rules="n1k06")
    with Store(source) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(RECORD, 8344, 1164)])
    everything = tmp_path / "all.csv"
    everything.write_text(bmn("records", "export", "--store", source).stdout)
    result = bmn("records", "import", everything, "--store", target)  # no --rules: each row's
    assert result.exit_code == 0, result.output
    runs, finds = stored(target)
    assert sorted(run.rules for run in runs) == ["bmn", "n1k06"]
    assert {f[:4] for f in finds} == {f[:4] for f in stored(source)[1]}


def test_bad_input_gets_one_line(bmn, failed, tmp_path):
    store = tmp_path / "s.sqlite"
    Store(store).close()
    failed(bmn("records", "import", tmp_path / "none.csv"), 1, "could not read", "none.csv")
    failed(bmn("records", "import", store, "--store", tmp_path / "t.sqlite"), 2, "a SQLite file")
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(b"SQLite format 3\0" + bytes(200))
    table = tmp_path / "t.txt"
    table.write_text(f"{RECORD}\n")
    failed(bmn("records", "import", table, "--store", damaged), 1, "damaged.sqlite")
    assert damaged.read_bytes() == b"SQLite format 3\0" + bytes(200)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    failed(bmn("records", "import", empty, "--store", store), 2, "no deals in it")
    failed(bmn("records", "import", empty, "--rules", "nope"), 2, "--rules")
    with pytest.raises(records.ImportRefused) as refused:
        records.import_table(empty, store)
    assert refused.value.problems == ["no deals in it"]


def test_an_import_from_before_runs_kept_their_deck_is_never_the_standard_deck(bmn, tmp_path):
    """40-card deals imported by an older bmn (no deck in the run's settings) were called the
    standard deck and ranked among the records: now listed apart, and importing the table
    again stores it with its decks."""
    store = tmp_path / "s.sqlite"
    table = tmp_path / "n1k06.csv"
    table.write_text("\n".join((PEERS / "n1k06_40.csv").read_text().splitlines()[:4]) + "\n")
    assert bmn("records", "import", table, "--rules", "n1k06", "--store", store).exit_code == 0
    with sqlite3.connect(store) as conn:  # as bmn stored an import before it kept decks
        conn.execute("UPDATE runs SET params = json_remove(params, '$.deck', '$.hand_sizes')")
    conn.close()
    (listed,) = json.loads(bmn("records", "top", "--json", "--store", store).stdout)[:1]
    assert listed["deck"] == UNRECORDED_IMPORT and listed["rules"] == "n1k06"
    compared = json.loads(bmn("records", "compare", "--json", "--store", store).stdout)
    assert compared["finds"] == []
    again = bmn("records", "import", table, "--rules", "n1k06", "--store", store)
    assert again.exit_code == 0 and again.stdout.startswith("n1k06.csv: run 2; finds 3 new")
