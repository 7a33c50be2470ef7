"""One way to read a table (kernels/tables/): `bmn score` and `bmn records import` cut a file
into lines and number them the same way, in bounded memory, read N1k06's report as published,
hold every deal to the table's deck, never read a number after a deal as cards, and give one
line and exit 2, never a traceback, for every hostile table a hostile pass tried."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from samples import RECORD

from bmn.kernels import reference
from bmn.kernels.deal import parse_deal
from bmn.kernels.tables.lines import LONGEST
from bmn.kernels.tables.reader import read_table
from bmn.records.store import Store

PEERS = Path(__file__).parents[1] / "data" / "peers"
REPORT = PEERS / "n1k06_report_all.txt"  # N1k06's own file, byte for byte
ONE_RUN = RECORD.replace("/", "")  # the record game's 52 cards in one run

# (what the table is, its bytes, what the error line says): each one line, exit 2.
HOSTILE = {
    "a Unicode digit after a deal": (f"{RECORD} ²\n".encode(), "line 1: hand 2"),
    "separators under notation rank": (b",,,\n", "line 1: no deal number"),
    "a CSV field past the csv module's limit": (
        b'deal,cards\n"' + b"-" * 200_000 + b'",4\n',
        "line 2: not a line of CSV",
    ),
    "a CSV header past the csv module's limit": (
        b'deal,"' + b"x" * 200_000 + b'"\n',
        "line 1: not a line of CSV",
    ),
    "JSON nested too deeply, a line": (b'{"deal": ' + b"[" * 100_000 + b"\n", "line 1"),
    "a JSON document nested too deeply": (b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested"),
    "a stated number of thousands of digits": (
        f"{RECORD} {'9' * 5000}\n".encode(),
        "past the largest figure bmn holds",
    ),
    "bare CR line ends": (f"{RECORD}\r{RECORD}\r".encode(), "line 1: a carriage return inside"),
    "a line past the reader's limit": (b"-" * (LONGEST + 10), "line 1: longer than 1,048,576"),
    "bytes that are not UTF-8": (f"{RECORD}\n".encode() + b"\xff\xfe\n", "line 2: not UTF-8"),
    "a form feed inside a line": (f"{RECORD}\n{RECORD[:9]}\f{RECORD[9:]}\n".encode(), "line 2"),
    "a U+2028 inside a line": (f"{RECORD}\n{RECORD[:9]}\u2028{RECORD[9:]}\n".encode(), "line 2"),
}
NOTATION = {"separators under notation rank": "rank"}


@pytest.mark.parametrize("name", HOSTILE)
def test_score_and_import_refuse_a_hostile_table_in_one_line(bmn, failed, tmp_path, name):
    data, said = HOSTILE[name]
    table = tmp_path / "table.txt"
    table.write_bytes(data)
    notation = ["--notation", NOTATION.get(name, "auto")]
    failed(bmn("score", table, *notation), 2, said)
    store = tmp_path / "s.sqlite"
    failed(bmn("records", "import", table, *notation, "--store", store), 2, said)
    assert not store.exists()  # nothing stored, not even a store made


@pytest.mark.parametrize("command", [("score",), ("records", "import")])
def test_a_file_that_never_ends_a_line_is_refused_at_the_reader_s_limit(bmn, failed, command):
    failed(bmn(*command, "/dev/zero"), 2, "line 1: longer than 1,048,576 bytes")


def test_the_library_reads_text_cut_at_line_feeds_as_a_file_is():
    rows = read_table_text(f"{RECORD[:9]}\f{RECORD[9:]}\n{RECORD}\n")
    assert isinstance(rows, str) and rows.startswith("line 1: ")  # the form feed is in it
    from bmn.kernels import read_table as library

    with pytest.raises(ValueError, match="^line 1: a carriage return inside"):
        library(f"{RECORD}\r{RECORD}\r")
    assert [row.line for row in library(f"{RECORD}\n\n# a note\n{RECORD}\n")] == [1, 4]


def read_table_text(text: str):
    from bmn.kernels import DealError
    from bmn.kernels import read_table as library

    try:
        return library(text)
    except DealError as err:
        return str(err)


@pytest.mark.parametrize("notation", ["halves", "alternate"])
@pytest.mark.parametrize("between", [" ", ","])
def test_a_number_after_a_one_run_deal_is_never_cards(notation, between):
    (row,) = [r for r in read_table([f"{ONE_RUN}{between}8344"], notation) if r is not None]
    assert len(row.values) == 52 and row.stated.cards == 8344


def test_n1k06s_report_scores_and_imports_as_published(bmn, tmp_path):
    """The report's Italian notes, its header and the ruler under it, read as N1k06 wrote
    them: the same rows as the CSV made of it (n1k06_40.csv), each agreeing under n1k06."""
    rows = [r for r in read_table(REPORT.read_text().splitlines(keepends=True)) if r]
    table = list(csv.DictReader((PEERS / "n1k06_40.csv").read_text().splitlines()))
    status = {"TERMINATA": "finished", "INFINITO": "loop"}
    assert [(r.deal, r.stated.cards, r.stated.status) for r in rows] == [
        (_deal(t["deck"]), int(t["cards"]), status[t["outcome"]]) for t in table
    ]
    scored = bmn("score", REPORT, "--rules", "n1k06")
    assert scored.exit_code == 0, scored.output
    assert "305 lines state a length: 305 agree, 0 differ" in scored.stderr
    store = tmp_path / "s.sqlite"
    imported = bmn("records", "import", REPORT, "--rules", "n1k06", "--store", store)
    assert imported.exit_code == 0, imported.output
    with Store(store, create=False, read_only=True) as db:
        (run,) = db.runs()
        held = (run.games, run.params["deck"], run.params["hand_sizes"])
        assert held == (305, "28,4,4,4,0", [20, 20])


def _deal(digits: str) -> str:
    (row,) = [r for r in read_table([digits]) if r is not None]
    return row.deal


def test_a_truncated_row_is_refused_unless_any_deck(bmn, failed, tmp_path):
    """39 of a row's 40 digits: not a 39-card deal without a word, in score or import."""
    lines = (PEERS / "n1k06_40.csv").read_text().splitlines()
    lines[5] = lines[5][:-1]  # its last digit cut off
    table = tmp_path / "cut.csv"
    table.write_text("\n".join(lines) + "\n")
    said = "line 6: a deal of 39 cards"
    failed(bmn("score", table, "--rules", "n1k06"), 2, said, "not of deck", "--any-deck")
    store = tmp_path / "s.sqlite"
    failed(bmn("records", "import", table, "--rules", "n1k06", "--store", store), 2, said)
    assert not store.exists()
    # Taken for a deck of its own, its stated figures are not its game's: refused for them
    any_deck = bmn("records", "import", table, "--rules", "n1k06", "--any-deck", "--store", store)
    failed(any_deck, 2, "line 6: ", "stated 4,133 cards, replayed 227")
    assert not store.exists()


def test_a_table_of_several_decks_from_its_first_two_deals_is_read_whole(bmn):
    """exercism's cases are a deck each: a table whose first two deals differ holds several."""
    result = bmn("score", PEERS / "exercism_camicia.csv", "--rules", "exercism")
    assert result.exit_code == 0, result.output


def test_a_renamed_copy_of_a_table_imported_before_adds_nothing(bmn, tmp_path):
    store = tmp_path / "s.sqlite"
    table = PEERS / "leodog896.csv"
    first = bmn("records", "import", table, "--rules", "leodog896", "--store", store)
    assert first.exit_code == 0, first.output
    copy = tmp_path / "renamed.csv"
    copy.write_bytes(table.read_bytes())
    before = store.read_bytes()
    again = bmn("records", "import", copy, "--rules", "leodog896", "--store", store)
    assert again.exit_code == 0, again.output
    assert again.stdout.strip() == "renamed.csv: imported before as run 1; nothing new"
    assert again.stderr.strip() == "renamed.csv: imported before as run 1; not replayed"
    assert store.read_bytes() == before
    other = bmn("records", "import", copy, "--rules", "pelagaletto2", "--store", store)
    assert other.exit_code == 2  # the same file under other rules is another table: replayed


def test_a_refused_import_names_the_rule_set_its_figures_are(bmn, failed):
    line = failed(bmn("records", "import", REPORT, "--store", "never.sqlite"), 2)
    assert line.endswith("(the figures are those of another rule set: give --rules n1k06)")


def test_every_row_replays_under_its_rule_set_by_the_oracle(tmp_path):
    """What an import stores is the reference engine's, whatever the table stated."""
    from bmn.records import import_table

    store = tmp_path / "s.sqlite"
    import_table(REPORT, store, rules="n1k06")
    with Store(store, create=False, read_only=True) as db:
        finds = list(db.all_finds())
    assert len(finds) == 305
    for find in finds[::25]:
        game = reference.play(parse_deal(find.deal), rules="n1k06")
        assert (find.cards, find.tricks, find.status) == (game.cards, game.tricks, game.status)


def test_score_json_states_what_the_verifier_judged(bmn):
    line = json.dumps({"deal": RECORD, "cards": 8344, "winner": 0})
    (out,) = [json.loads(x) for x in bmn("score", "--json", input=line + "\n").stdout.splitlines()]
    assert out["stated"] == {"cards": 8344, "winner": 0} and out["agrees"] is False
