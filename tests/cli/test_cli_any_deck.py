"""A deal of the standard deck's 16 court cards with more or fewer than its 36 numerals (a card
dropped, a number read as numerals) is refused as the slip it usually is, unless --any-deck
says the deck is meant: on every command that takes a deal, and on each line of `bmn score`.
A deck plainly of its own (fewer court cards) is played as before."""

from __future__ import annotations

import json

import pytest
from samples import RECORD

from bmn.kernels.decks import unmeant_deck
from bmn.kernels.tables.scored import UnmeantDeckLine, score_lines

MORE = RECORD + "-"  # 53 cards: the record game and one more numeral
FEWER = RECORD[:-1]  # 51 cards: its last numeral dropped
SAID = {
    MORE: "53 cards: the standard deck's 16 court cards with 37 numerals, not 36",
    FEWER: "51 cards: the standard deck's 16 court cards with 35 numerals, not 36",
}
FLAG = "; give --any-deck if this deck is meant"
TABLE_FLAG = "; give --any-deck if the table holds several decks, or this deck is meant"
COMMANDS = [("play",), ("plot",), ("loop",), ("records", "show")]


@pytest.fixture(autouse=True)
def _here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # plot's default file, show's (missing) default store
    monkeypatch.delenv("BMN_STORE", raising=False)


def test_the_library_names_the_slip_in_its_own_words():
    values = ["-JQKA".index(c) for c in MORE if c != "/"]
    assert unmeant_deck(values) == SAID[MORE]
    assert unmeant_deck(values[:-2]) == SAID[FEWER]
    assert unmeant_deck(values[:-1]) is None  # the standard deck
    assert unmeant_deck([0, 0, 1, 1]) is None  # a deck of its own
    assert unmeant_deck([0] * 36 + [1, 2, 3, 4] * 8) is None  # two decks' court cards


@pytest.mark.parametrize("path", COMMANDS, ids=["/".join(p) for p in COMMANDS])
@pytest.mark.parametrize("deal", [MORE, FEWER], ids=["53", "51"])
def test_a_miscounted_standard_deck_is_refused_in_one_line(bmn, failed, tmp_path, path, deal):
    result = bmn(*path, deal)
    line = failed(result, 2, SAID[deal] + FLAG)
    assert line == f"Error: Invalid value for HAND...: {SAID[deal]}{FLAG}"
    assert result.stdout == "" and "not the standard" not in result.stderr
    assert list(tmp_path.iterdir()) == []  # no picture drawn, no store made


@pytest.mark.parametrize("path", COMMANDS, ids=["/".join(p) for p in COMMANDS])
def test_any_deck_plays_it_as_given_with_the_warning(bmn, path):
    result = bmn(*path, MORE, "--any-deck")
    assert result.exit_code == 0, result.output
    assert "warning: this deal is not the standard 52-card deck" in result.stderr
    assert "53 cards: 37 numerals, 4 J, 4 Q, 4 K, 4 A; playing it as given" in result.stderr


def test_preimages_refuses_it_too(bmn, failed):
    small = "--------------------------JQKA/JQKA-JQKA-JQKA"  # 16 court cards, 28 numerals
    said = "44 cards: the standard deck's 16 court cards with 28 numerals, not 36"
    failed(bmn("preimages", small), 2, said + FLAG)
    given = bmn("preimages", small, "--any-deck")  # read, and found not to loop
    assert "the deal does not loop" in failed(given, 2)


def test_play_json_with_any_deck_is_the_game(bmn):
    result = bmn("play", MORE, "--any-deck", "--json")
    assert json.loads(result.stdout)["status"] == "finished"


def test_a_deck_of_its_own_is_not_affected(bmn):
    for deal in ("J--/-J-/-J-", "-J/Q-", RECORD):
        assert bmn("play", deal).exit_code == 0, deal


def test_score_refuses_the_line_after_the_results_before_it(bmn, failed):
    table = f"{RECORD}\n-J/Q-\n{MORE}\n{RECORD}\n"
    result = bmn("score", input=table)
    failed(result, 2, f"Error: line 3: {SAID[MORE]}{TABLE_FLAG}")
    assert [line.split()[0] for line in result.stdout.splitlines()] == [RECORD, "-J/Q-"]
    every = bmn("score", "--any-deck", "--json", input=table)
    assert every.exit_code == 0, every.output
    assert [json.loads(line)["deal"] for line in every.stdout.splitlines()] == [
        RECORD,
        "-J/Q-",
        MORE,
        RECORD,
    ]


def test_the_library_scores_any_deck_unless_told_otherwise():
    lines = [RECORD, MORE]
    assert [len(b.deals) for b in score_lines(lines)] == [2]
    with pytest.raises(UnmeantDeckLine, match=f"^line 2: {SAID[MORE]}$"):
        list(score_lines(lines, any_deck=False))
