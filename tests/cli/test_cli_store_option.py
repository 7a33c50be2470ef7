"""One store a command: `--store` given twice is refused (click kept the last and read that store
alone), on every records command and on `bmn search`; a store given as an argument is refused
with the form to give (`records serve` alone takes one); BMN_STORE still names one store."""

from __future__ import annotations

import json

import pytest
from errors import COMMANDS, error_line, parses
from samples import CASELLA, PAULHUS, RECORD

from bmn.records.store import Find, Store

STORE_COMMANDS = sorted(
    path for path, command in COMMANDS.items() if any(p.name == "store" for p in command.params)
)
# What each needs besides its store, to reach the store option.
NEEDS = {
    ("records", "show"): [RECORD],
    ("records", "merge"): ["c.sqlite"],
    ("records", "import"): ["deals.txt"],
}


@pytest.fixture
def two(tmp_path, monkeypatch):
    """Two real stores in the current folder: a.sqlite finds Paulhus 1999, b.sqlite Nessler
    2022 and Casella's loop."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("BMN_STORE", raising=False)
    for name, finds in (
        ("a.sqlite", [Find(PAULHUS, 4791, 670)]),
        ("b.sqlite", [Find(RECORD, 8344, 1164), Find(CASELLA, 474, 66, "loop")]),
        ("c.sqlite", []),
    ):
        with Store(tmp_path / name) as db:
            db.add_finds(db.create_run("walk", "cards", 1, {}), finds)
    (tmp_path / "deals.txt").write_text(f"{PAULHUS}\n")
    return tmp_path


def runs_in(path) -> list[int]:
    with Store(path, create=False, read_only=True) as db:
        return [run.id for run in db.runs()]


def test_every_records_command_and_search_take_a_store():
    assert ("search",) in STORE_COMMANDS and ("records", "top") in STORE_COMMANDS
    assert len([path for path in STORE_COMMANDS if path[0] == "records"]) >= 12


@pytest.mark.parametrize("path", STORE_COMMANDS, ids=["/".join(p) for p in STORE_COMMANDS])
def test_store_given_twice_is_refused_in_one_line(bmn, two, path):
    args = [*path, *NEEDS.get(path, []), "--store", "a.sqlite", "--store", "b.sqlite"]
    # After the stores, so that the stores are read first: were they let through, a search
    # would stop at once, and a server would be refused its port rather than serve.
    args += {("search",): ["--time", "1s"], ("records", "serve"): ["--port", "70000"]}.get(path, [])
    result = bmn(*args)
    line = error_line(result, 2)
    assert line == (
        "Error: --store given 2 times; give one store, or merge them into one first:"
        " bmn records merge a.sqlite b.sqlite --store all.sqlite"
    )
    assert result.stdout == ""
    assert runs_in(two / "a.sqlite") == [1] and runs_in(two / "b.sqlite") == [1]  # untouched
    assert not (two / "all.sqlite").exists()


def test_records_top_with_two_stores_shows_neither(bmn, two):
    """It showed b's finds alone, saying nothing of a."""
    result = bmn("records", "top", "--store", "a.sqlite", "--store", "b.sqlite", "--json")
    error_line(result, 2)
    assert RECORD not in result.output and PAULHUS not in result.stdout
    each = [
        json.loads(bmn("records", "top", "--json", "--store", f"{s}.sqlite").stdout) for s in "ab"
    ]
    assert [[row["deal"] for row in rows] for rows in each] == [[PAULHUS], [RECORD, CASELLA]]


def test_the_same_store_twice_is_refused_too(bmn, two):
    result = bmn("records", "runs", "--store", "a.sqlite", "--store", "a.sqlite")
    assert "--store given 2 times" in error_line(result, 2)


def test_one_store_from_the_environment_spaces_and_all(bmn, two):
    """BMN_STORE names one store whole: a path with spaces is not split into several."""
    folder = two / "my stores"
    folder.mkdir()
    (two / "a.sqlite").rename(folder / "night one.sqlite")
    env = {"BMN_STORE": str(folder / "night one.sqlite")}
    rows = json.loads(bmn("records", "top", "--json", env=env).stdout)
    assert [row["deal"] for row in rows] == [PAULHUS]
    given = bmn("records", "top", "--json", "--store", "b.sqlite", env=env)  # --store wins
    assert [row["deal"] for row in json.loads(given.stdout)] == [RECORD, CASELLA]


def test_the_store_option_reads_as_before_in_help(bmn):
    for path in (("records", "top"), ("search",)):
        text = " ".join(bmn(*path, "--help").stdout.split())
        assert "--store FILE The record store (SQLite file); env BMN_STORE." in text
        assert "[default: bmn-records.sqlite]" in text


def test_merge_takes_several_sources_and_one_store(bmn, two):
    result = bmn("records", "merge", "a.sqlite", "b.sqlite", "--store", "all.sqlite")
    assert result.exit_code == 0, result.output
    rows = json.loads(bmn("records", "top", "--json", "--store", "all.sqlite").stdout)
    assert {row["deal"] for row in rows} == {PAULHUS, RECORD, CASELLA}


def test_a_store_given_as_an_argument_says_to_give_it_as_store(bmn, two):
    """`records serve night.sqlite` is the documented form; `records top night.sqlite` said only
    'Got unexpected extra argument'."""
    line = error_line(bmn("records", "top", "a.sqlite"), 2)
    assert line == "Error: unexpected argument a.sqlite; give the store as --store a.sqlite"
    line = error_line(bmn("records", "compare", "-n", "3", "b.sqlite", "--json"), 2)
    assert line.endswith("give the store as --store b.sqlite")
    line = error_line(bmn("records", "runs", "a.sqlite", "b.sqlite"), 2)
    assert line.startswith("Error: unexpected arguments a.sqlite b.sqlite;")
    assert line.endswith("bmn records merge a.sqlite b.sqlite --store all.sqlite")
    line = error_line(bmn("records", "import", "deals.txt", "a.sqlite"), 2)
    assert line.endswith("give the store as --store a.sqlite")
    assert runs_in(two / "a.sqlite") == [1]  # nothing imported
    line = error_line(bmn("search", "a.sqlite", "--time", "1s"), 2)
    assert line == "Error: unexpected argument a.sqlite; give the store as --store a.sqlite"
    assert runs_in(two / "a.sqlite") == [1] and not (two / "bmn-records.sqlite").exists()


def test_other_extra_arguments_are_said_as_click_says_them(bmn, two):
    line = error_line(bmn("records", "top", "5"), 2)
    assert line == "Error: Got unexpected extra argument (5)"


def test_serve_alone_takes_its_store_as_an_argument():
    assert parses(["records", "serve", "night.sqlite"])
    assert not parses(["records", "loops", "night.sqlite"])
    assert parses(["records", "loops", "--store", "night.sqlite"])
