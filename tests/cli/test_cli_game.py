"""`bmn play`, `bmn deal` and `bmn records published` through click's CliRunner."""

import json

import pytest
import samples

from bmn.kernels.deal import parse_deal
from bmn.kernels.decks import is_standard

RECORD = samples.RECORD.split("/")
LOOP = samples.CASELLA.split("/")


def test_play_record_json(bmn):
    result = bmn("play", *RECORD, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "status": "finished",
        "cards": 8344,
        "tricks": 1164,
        "winner": 1,
    }


def test_play_loop_json(bmn):
    out = json.loads(bmn("play", "/".join(LOOP), "--json").stdout)
    assert (out["status"], out["cards"], out["tricks"]) == ("loop", 474, 66)
    assert (out["period_cards"], out["period_tricks"]) == (440, 62)
    assert (out["loop_start_cards"], out["loop_start_tricks"]) == (34, 4)


def test_play_human_summary_and_trace(bmn):
    result = bmn("play", "-J", "Q-", "--trace")
    assert result.exit_code == 0
    assert "finished: 4 cards, 1 trick; seat 0 wins" in result.stdout
    assert result.stdout.splitlines()[-1].split() == ["1", "0", "4", "4", "0"]


def test_play_limit(bmn):
    out = json.loads(bmn("play", *RECORD, "--limit-cards", "100", "--json").stdout)
    assert (out["status"], out["cards"]) == ("limit", 100)


@pytest.mark.parametrize(
    "args",
    [
        ["play", "--x-"],
        ["play", "-J"],
        ["play", "-J", "Q-", "--limit-cards", "0"],
        ["deal", "--players", "5"],
    ],
)
def test_bad_input_is_one_line_exit_2(bmn, failed, args):
    failed(bmn(*args), 2)


def test_deal_is_standard_and_seeded(bmn):
    first = bmn("deal", "--players", "3", "--seed", "5").stdout.strip()
    assert first == bmn("deal", "--players", "3", "--seed", "5").stdout.strip()
    assert is_standard(parse_deal(first))
    assert [len(h) for h in parse_deal(first)] == [18, 17, 17]


def test_deal_count_writes_that_many_deals_for_score(bmn, monkeypatch):
    """--count N: N standard deals, one per line, the first the seed's own deal; made a batch
    at a time (a batch of 3 here), so every batch continues the one generator."""
    lines = bmn("deal", "--count", "7", "--seed", "5").stdout.splitlines()
    assert len(lines) == 7 == len(set(lines))
    assert lines[0] == bmn("deal", "--seed", "5").stdout.strip()
    assert all(is_standard(parse_deal(line)) for line in lines)
    monkeypatch.setattr("bmn.search.cli.game.DEALS_AT_ONCE", 3)
    assert bmn("deal", "-n", "7", "--seed", "5").stdout.splitlines() == lines
    three = bmn("deal", "-n", "2", "--players", "3").stdout.splitlines()
    assert [[len(h) for h in parse_deal(line)] for line in three] == [[18, 17, 17]] * 2
    scored = bmn("score", "--json", input="\n".join(lines)).stdout.splitlines()
    assert [json.loads(row)["deal"] for row in scored] == lines


def test_records_published_all_match(bmn):
    result = bmn("records", "published", "--json")
    rows = json.loads(result.stdout)
    assert len(rows) == 10
    assert all(row["matches"] for row in rows)
    assert "differs" not in bmn("records", "published").stdout
