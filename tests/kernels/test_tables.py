"""One reader of deal tables (kernels/tables.py): bmn's own exports, lines that state lengths,
JSON, the peers' published layouts, deal numbers; a number after a deal is never a card.

The stated lengths the peers' tables hold are their own published figures, which the reference
engine reproduces under the rule set named (tests/kernels/test_rulesets_reference.py); here
they show that the reader found each deal and figure in its row.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from samples import CASELLA, PAULHUS, RECORD

from bmn.kernels import reference
from bmn.kernels.claims import Stated
from bmn.kernels.deal import DealError, format_deal, parse_deal
from bmn.kernels.tables.lines import LineError
from bmn.kernels.tables.reader import read_table
from bmn.kernels.tables.scored import score_lines
from bmn.records.store import Find, Store

PEERS = Path(__file__).parents[1] / "data" / "peers"
KLEBER_CAMICIA = 497985732634057566415  # Kleber 1999 in camicia.dev's numbering (docs/rules.md)


def rows(lines, **how):
    return [row for row in read_table(lines, **how) if row is not None]


def agreeing(path: Path, rules: str, notation: str = "auto") -> tuple[int, int]:
    """(rows that agree, rows that state a length) of a peer's table under its rule set."""
    agree = stated = 0
    with path.open() as lines:
        for batch in score_lines(lines, rules=rules, notation=notation):
            for verdict in batch.verdicts:
                stated += bool(verdict.claim.stated)
                agree += bool(verdict.claim.stated) and verdict.agrees
    return agree, stated


@pytest.mark.parametrize(
    ("name", "rules", "notation", "count"),
    [
        ("n1k06_40.csv", "n1k06", "auto", 305),  # digits 0-3, cut in halves
        ("acinnes.csv", "acinnes", "auto", 26),  # 52 cards, no '/', in a 'deal' column
        ("leodog896.csv", "leodog896", "auto", 4),
        ("pelagaletto2.csv", "pelagaletto2", "auto", 5),
        ("ab0214.csv", "ab0214", "alternate", 3),  # digits dealt card by card
        ("exercism_camicia.csv", "exercism", "auto", 28),  # hand_a, hand_b columns
    ],
)
def test_every_peers_table_is_read_and_agrees_under_its_rule_set(name, rules, notation, count):
    assert agreeing(PEERS / name, rules, notation) == (count, count)


def test_a_peers_digits_are_its_deal_cut_in_halves():
    first = next(csv.DictReader((PEERS / "n1k06_40.csv").read_text().splitlines()))
    (row,) = rows([f"{first['deck']} {first['cards']}"])
    half = len(first["deck"]) // 2
    hands = [first["deck"][:half], first["deck"][half:]]
    assert row.deal == "/".join(h.translate(str.maketrans("01234", "-JQKA")) for h in hands)
    assert row.stated == Stated(cards=int(first["cards"]))


def test_exercisms_canonical_data_json_is_read_whole():
    """The exercise's JSON layout (cases, input.playerA/B, expected), made from its figures."""
    cases = [
        {
            "description": case["description"],
            "input": {"playerA": case["hand_a"], "playerB": case["hand_b"]},
            "expected": {k: case[k] for k in ("status", "cards", "tricks")},
        }
        for case in csv.DictReader((PEERS / "exercism_camicia.csv").read_text().splitlines())
    ]
    text = json.dumps({"exercise": "camicia", "cases": [{"cases": cases}]}, indent=2)
    found = rows(text.splitlines(keepends=True))
    assert len(found) == len(cases) == 28
    for row, case in zip(found, cases, strict=True):
        result = reference.play(parse_deal(row.deal), rules="exercism")
        stated = (row.stated.cards, row.stated.tricks, row.stated.status)
        assert stated == (result.cards, result.tricks, result.status), case
        assert row.where.startswith("item ")


def test_bmns_own_export_and_json_lines_read_back(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(RECORD, 8344, 1164), Find(CASELLA, 474, 66, "loop")])
        finds = list(db.all_finds())
        blocks = list(db.find_blocks())
    from io import StringIO

    from bmn.frontends.output.listings import export_listing

    listing = export_listing({run: "bmn"})
    for write in (listing.stream_csv, listing.stream_json):
        out = StringIO()
        write(blocks, out)
        read = rows(out.getvalue().splitlines(keepends=True))
        assert [(r.deal, r.stated) for r in read] == [
            (f.deal, Stated(f.cards, f.tricks, f.status)) for f in finds
        ]
    lines = [json.dumps({"deal": RECORD, "cards": 8344, "tricks": 1164, "status": "finished"})]
    assert rows(lines)[0].stated == Stated(8344, 1164, "finished")


@pytest.mark.parametrize(
    "line",
    [f"{PAULHUS},4791", f"{PAULHUS} 4791 670", f"{PAULHUS}\t4791", f"{PAULHUS} finished 4791"],
)
def test_a_deal_cards_line_states_its_length(line):
    (row,) = rows([line])
    assert row.deal == PAULHUS and row.stated.cards == 4791


def test_deal_numbers_are_read_in_either_order():
    (row,) = rows([f"{KLEBER_CAMICIA} 5790"], notation="camicia")
    assert reference.play(parse_deal(row.deal)).cards == row.stated.cards == 5790


def test_a_bad_row_names_its_line_after_the_rows_before_it():
    read = read_table(["deal,cards", f"{RECORD},8344", "", "-J/Q-,4,9", "-Z/Q-,2"])
    assert next(read).deal == RECORD
    with pytest.raises(LineError, match=r"^line 4: 3 fields where the header \(line 1\) has 2"):
        next(read)
    with pytest.raises(LineError, match="^line 2: status 'won' is not one of"):
        rows(["deal status", "-J/Q- won"])
    with pytest.raises(LineError, match="^line 2: the header names deal numbers but no deal"):
        rows(["rank,cards", "12,3"])


# Every deal bmn writes (record notation), then a separator and a number: read back as the same
# deal with that number as its stated cards, and refused as a deal wherever a deal is given.
HANDS = st.lists(st.text(alphabet="-JQKA", min_size=1, max_size=30), min_size=2, max_size=4)


@given(HANDS, st.sampled_from([" ", ",", "\t", ", ", " \t"]), st.integers(0, 10**6))
def test_a_number_after_a_written_deal_is_never_a_card(hands, separator, number):
    written = format_deal(parse_deal("/".join(hands)))
    line = f"{written}{separator}{number}"
    (row,) = rows([line])
    assert (row.deal, row.stated.cards) == (written, number)
    with pytest.raises(DealError, match=f"^{number} after the deal is not a card"):
        parse_deal(line, typed=True)
    with pytest.raises(DealError, match=f"^{number} after the deal is not a card"):
        parse_deal([*written.split("/"), str(number)], typed=True)


def test_a_numeral_after_ranks_is_a_card_unless_the_deck_is_whole():
    assert parse_deal("2 3 K/4 5 6", typed=True) == ((0, 0, 3), (0, 0, 0))
    record = RECORD.split("/")
    with pytest.raises(DealError, match="^8 after the deal is not a card"):
        parse_deal([*record, "8"], typed=True)


def test_play_refuses_the_number_in_one_line(bmn, failed):
    line = failed(bmn("play", f"{RECORD},8344"), 2, "8344 after the deal is not a card")
    assert RECORD in line


def an_n1k06_deal() -> tuple[str, object]:
    """A deal of N1k06's report whose game under its rule set is not bmn's game."""
    for row in rows((PEERS / "n1k06_40.csv").read_text().splitlines()):
        game = reference.play(parse_deal(row.deal), rules="n1k06")
        if (game.cards, game.status) != (reference.play(parse_deal(row.deal)).cards, game.status):
            return row.deal, game
    raise AssertionError("every deal plays alike")


def test_score_verifies_its_own_export(bmn, tmp_path):
    """Each find is replayed under its own run's rule set (the export's last column)."""
    path = tmp_path / "s.sqlite"
    deal, game = an_n1k06_deal()
    with Store(path) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(RECORD, 8344, 1164), Find(PAULHUS, 4791, 670)])
        other = db.create_run("walk", "cards", 2, {}, rules="n1k06")
        db.add_finds(other, [Find(deal, game.cards, game.tricks, game.status)])
    exported = bmn("records", "export", "--store", path)
    assert exported.stdout.splitlines()[0].endswith(",rules,deck_counts")
    checked = bmn("score", "-", input=exported.stdout)
    assert checked.exit_code == 0, checked.output
    assert checked.stdout.count("; agrees") == 3
    assert "3 lines state a length: 3 agree, 0 differ" in checked.stderr
    as_bmn = bmn("score", "-", input=exported.stdout.replace(",n1k06,", ",bmn,"))
    assert as_bmn.exit_code == 1 and "1 differ" in as_bmn.stderr
    in_json = bmn(
        "score", "-", "--json", input=bmn("records", "export", "--json", "--store", path).stdout
    )
    assert sorted(json.loads(line)["rules"] for line in in_json.stdout.splitlines()) == [
        "bmn",
        "bmn",
        "n1k06",
    ]
    wrong = bmn("score", "-", input=exported.stdout.replace(",8344,", ",8345,"))
    assert wrong.exit_code == 1
    assert "differs: stated 8,345 cards, replayed 8,344" in wrong.stdout
    assert "3 lines state a length: 2 agree, 1 differs" in wrong.stderr
