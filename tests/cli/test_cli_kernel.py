"""`bmn score`, `bmn bench` and `bmn selfcheck` through click's CliRunner."""

import json

import pytest
import samples

from bmn.kernels import reference
from bmn.kernels.cpu import choice
from bmn.kernels.deal import parse_deal
from bmn.kernels.reference import Result, play

DEALS = [
    samples.RECORD,
    samples.CASELLA,
    "AS 10H QD/KC 2S 3S",
    "--K/J-/---",
    "./-J",  # an empty hand is written '.', and printed so
]


def test_score_json_lines_match_play(bmn, tmp_path):
    path = tmp_path / "deals.txt"
    path.write_text("\n".join(["# a comment", DEALS[0], "", *DEALS[1:]]) + "\n")
    result = bmn("score", str(path), "--json", "--threads", "1", "--any-deck")  # of many decks
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == len(DEALS)
    for row, text in zip(rows, DEALS, strict=True):
        deal = parse_deal(text)
        written = ("".join("-JQKA"[v] for v in hand) or "." for hand in deal)
        assert row.pop("deal") == "/".join(written)
        assert row == {**play(deal).as_dict(), "rules": "bmn"}


def test_score_reads_stdin_with_text_lines(bmn):
    result = bmn("score", "-", input="-J/Q-\n" + DEALS[1] + "\n")
    assert result.exit_code == 0, result.output
    first, second = result.stdout.splitlines()
    assert first == "-J/Q- finished: 4 cards, 1 trick; seat 0 wins"
    assert second.startswith(DEALS[1] + " loop: never ends; state repeats at 474 cards")


def test_score_bad_line_keeps_results_before_it(bmn, failed):
    result = bmn("score", "--json", input="-J/Q-\nJ/Q\nnot a deal\nQ/J\n")
    assert [json.loads(line)["deal"] for line in result.stdout.splitlines()] == ["-J/Q-", "J/Q"]
    assert failed(result, 2, "line 3").startswith("Error: line 3: ")  # no usage hint
    assert result.stderr.startswith("warning: deal -J/Q- is not the standard 52-card deck")


def test_score_empty_input(bmn):
    result = bmn("score", input="")
    assert result.exit_code == 0 and result.stdout == ""


def test_bench_json(bmn):
    result = bmn("bench", "--deals", "3000", "--threads", "1", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {
        "games_per_s",
        "cards_per_s",
        "mean_cards",
        "mean_tricks",
        "threads",
        "deals",
        "players",
        "rules",
        "lanes_games_per_s",
        "scalar_games_per_s",
        "kernel",
    }
    assert (out["deals"], out["threads"], out["players"]) == (3000, 1, 2)
    assert 200 < out["mean_cards"] < 320 and 28 < out["mean_tricks"] < 45
    assert out["games_per_s"] > 0 and out["cards_per_s"] > out["games_per_s"]
    chosen = choice.chosen()
    assert out["kernel"] == chosen.as_dict()
    assert out["games_per_s"] == out[f"{chosen.engine}_games_per_s"]


@pytest.mark.parametrize("kernel", ["scalar", "lanes8"])
def test_bench_kernel_forces_the_choice_for_the_command_alone(bmn, kernel):
    before = choice.chosen()
    result = bmn("bench", "--deals", "2000", "--players", "4", "--kernel", kernel)
    assert result.exit_code == 0, result.output
    played = "scalar, a game at a time" if kernel == "scalar" else "lanes, 8 games a step"
    assert f"bmn plays {played}" in " ".join(result.stdout.split())
    assert "as --kernel or BMN_KERNEL asks" in " ".join(result.stdout.split())
    assert choice.chosen() == before


def test_bench_text_and_fixed_seed(bmn):
    first = bmn("bench", "--deals", "2000")
    assert first.exit_code == 0, first.output
    assert "games/s" in first.stdout
    a = json.loads(bmn("bench", "--deals", "2000", "--json").stdout)
    b = json.loads(bmn("bench", "--deals", "2000", "--json", "--seed", "9").stdout)
    c = json.loads(bmn("bench", "--deals", "2000", "--json").stdout)
    assert a["mean_cards"] == c["mean_cards"] != b["mean_cards"]


def test_selfcheck_ok(bmn):
    result = bmn("selfcheck", "--deals", "600", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("OK: kernel and reference agree on 600 random 2-player deals")


def test_selfcheck_reports_progress_into_a_pipe(bmn, monkeypatch):
    """Off a terminal (CliRunner's stderr is not one) a line after a batch once a line is due
    (here at every batch); stdout keeps only the result."""
    monkeypatch.setattr("bmn.frontends.cli.kernel.SELFCHECK_LOG_SECONDS", 0.0)
    result = bmn("selfcheck", "--deals", "600", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("checking: 600 of 600 deals (100%), ")
    assert result.stderr.rstrip().endswith(" elapsed")
    assert result.stdout.startswith("OK: kernel and reference agree on 600")


def test_selfcheck_reports_a_disagreement(bmn, monkeypatch):
    def wrong(deal, rules=None):
        right = play(deal, rules=rules)
        return Result(right.status, right.cards + 1, right.tricks, right.winner)

    monkeypatch.setattr(reference, "play", wrong)  # what the verifier plays: kernels/claims.py
    result = bmn("selfcheck", "--deals", "50")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("deal 0: ")
    kernel = json.loads(lines[1].split(":", 1)[1])
    ref = json.loads(lines[2].split(":", 1)[1])
    assert ref["cards"] == kernel["cards"] + 1
    assert "disagrees" in result.stderr


def test_a_first_compile_is_said_on_stderr_terminal_or_not(capsys):
    """A rule set's first `score` compiles for a minute: one line says so, as the search's
    panel does; a run that loads its kernels from the cache compiles nothing and says nothing."""
    from numba import njit

    from bmn.frontends.output.progress import compiling_said

    with compiling_said("rule set paulhus"):
        njit(lambda x: x + 1)(1)  # a compile, as a kernel's first use is
        njit(lambda x: x + 2)(1)
    said = capsys.readouterr().err.splitlines()
    assert said == ["compiling the kernels for rule set paulhus on this machine, once: a minute"
                    " or two"]  # fmt: skip
    with compiling_said("bmn's rules"):
        pass
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "command",
    [("score", "-"), ("records", "import", "{table}"), ("records", "merge", "{store}")],
)
def test_score_import_and_merge_say_a_first_compile(bmn, monkeypatch, tmp_path, command):
    from bmn.frontends.output import progress

    said = []
    real = progress.compiling_said

    def noted(what):
        said.append(what)
        return real(what)

    monkeypatch.setattr(progress, "compiling_said", noted)
    table = tmp_path / "t.txt"
    table.write_text("-J/Q-\n")
    store = tmp_path / "s.sqlite"
    from bmn.records.store import Store

    Store(store).close()
    args = [a.format(table=table, store=store) for a in command]
    if args[0] == "records":
        result = bmn(*args, "--store", tmp_path / "target.sqlite")
    else:
        result = bmn(*args, input="-J/Q-\n")
    assert result.exit_code == 0, result.output
    assert said, "no compile notice around the kernels' first use"
