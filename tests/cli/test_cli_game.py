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
        "rules": "bmn",
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
    monkeypatch.setattr("bmn.frontends.cli.game.DEALS_AT_ONCE", 3)
    assert bmn("deal", "-n", "7", "--seed", "5").stdout.splitlines() == lines
    three = bmn("deal", "-n", "2", "--players", "3").stdout.splitlines()
    assert [[len(h) for h in parse_deal(line)] for line in three] == [[18, 17, 17]] * 2
    scored = bmn("score", "--json", input="\n".join(lines)).stdout.splitlines()
    assert [json.loads(row)["deal"] for row in scored] == lines


@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_count_is_each_deal_as_format_deal_writes_it(bmn, monkeypatch, players):
    """The deals are written in numpy a batch at a time: the text of each is format_deal's."""
    from bmn.kernels.deal import decode, format_deal
    from bmn.kernels.dealer import random_deals
    from bmn.kernels.rng import seed_state

    monkeypatch.setattr("bmn.frontends.cli.game.DEALS_AT_ONCE", 4)
    rows, sizes = random_deals(9, seed_state(11), players)
    made = [format_deal(decode(r, s)) for r, s in zip(rows, sizes, strict=True)]
    assert bmn("deal", "-n", 9, "--seed", 11, "--players", players).stdout == "\n".join(made) + "\n"


def test_deal_rank_in_camicias_order_and_bmns(bmn):
    """--rank N --rank-order camicia: the deal of camicia.dev's number N (Kleber 1999's, from
    camicia's own test data); bmn's order numbers from numerals first."""
    out = bmn("deal", "--rank", "497,985,732,634,057,566,415", "--rank-order", "camicia")
    assert out.stdout == samples_kleber() + "\n"
    first = bmn("deal", "--rank", 0, "-n", 2, "--players", 4).stdout.splitlines()
    assert first == ["-------------/-------------/----------JJJ/JQQQQKKKKAAAA",
                     "-------------/-------------/----------JJJ/JQQQQKKKAKAAA"]  # fmt: skip
    shown = json.loads(bmn("records", "show", samples_kleber(), "--json").stdout)
    assert shown["numbers"] == {"bmn": "155548402252820678584", "camicia": "497985732634057566415"}


def samples_kleber():
    return "---JQ---K-A----A-J-K---QK-/-J-----------AJQA----K---Q"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--rank", "653534134886878245000"], "numbered 0 to 653,534,134,886,878,244,999"),
        (["--rank", "653534134886878244999", "-n", "2"], "--count"),
        (["--rank", "1", "--seed", "3"], "--seed"),
        (["--rank-order", "camicia"], "give --rank N too"),
        (["--rank", "1", "--rank-order", "camicia", "--players", "3"], "two-player"),
        (["--rank", "١"], "not a deal number"),
        (["--rank", "-1"], "not a deal number"),
    ],
)
def test_deal_rank_refusals(bmn, failed, args, says):
    failed(bmn("deal", *args), 2, says)


def test_records_published_all_match(bmn):
    result = bmn("records", "published", "--json")
    rows = json.loads(result.stdout)
    assert len(rows) == 10
    assert all(row["matches"] for row in rows)
    assert "differs" not in bmn("records", "published").stdout
