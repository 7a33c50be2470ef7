"""`bmn play`, `bmn deal` and `bmn records published` through click's CliRunner."""

import json

import pytest
from click.testing import CliRunner

from bmn.kernels.deal import is_standard, parse_deal
from bmn.search.cli import cli

RECORD = ["---AJ--Q---------QAKQJJ-QK", "-----A----KJ-K--------A---"]
LOOP = ["---K---Q-KQAJ-----AAJ--J--", "----------Q----KQ-J-----KA"]


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_play_record_json():
    result = run("play", *RECORD, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "status": "finished",
        "cards": 8344,
        "tricks": 1164,
        "winner": 1,
    }


def test_play_loop_json():
    out = json.loads(run("play", "/".join(LOOP), "--json").stdout)
    assert (out["status"], out["cards"], out["tricks"]) == ("loop", 474, 66)
    assert (out["period_cards"], out["period_tricks"]) == (440, 62)
    assert (out["loop_start_cards"], out["loop_start_tricks"]) == (34, 4)


def test_play_human_summary_and_trace():
    result = run("play", "-J", "Q-", "--trace")
    assert result.exit_code == 0
    assert "finished: 4 cards, 1 tricks; seat 0 wins" in result.stdout
    assert result.stdout.splitlines()[-1].split() == ["1", "0", "4", "4", "0"]


def test_play_limit():
    out = json.loads(run("play", *RECORD, "--limit-cards", "100", "--json").stdout)
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
def test_bad_input_is_one_line_exit_2(args):
    result = run(*args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert result.stderr.strip().splitlines()[-1].startswith("Error:")


def test_deal_is_standard_and_seeded():
    first = run("deal", "--players", "3", "--seed", "5").stdout.strip()
    assert first == run("deal", "--players", "3", "--seed", "5").stdout.strip()
    assert is_standard(parse_deal(first))
    assert [len(h) for h in parse_deal(first)] == [18, 17, 17]


def test_records_published_all_match():
    result = run("records", "published", "--json")
    rows = json.loads(result.stdout)
    assert len(rows) == 10
    assert all(row["matches"] for row in rows)
    assert "differs" not in run("records", "published").stdout


def test_every_command_has_help():
    def walk(group, path):
        for name, cmd in group.commands.items():
            yield path + [name], cmd
            if hasattr(cmd, "commands"):
                yield from walk(cmd, path + [name])

    for path, cmd in walk(cli, []):
        assert cmd.help, f"bmn {' '.join(path)} has no help text"
        assert run(*path, "--help").exit_code == 0
