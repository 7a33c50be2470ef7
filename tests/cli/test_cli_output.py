"""What bmn's commands print, where the error contract meets the shell: bare groups, -o, deals
a person mistypes or a hostile one writes, --json documents, and `score` on a live stream.
The walks over every command (a full stdout, --json parsing) are in test_cli_contract.py."""

from __future__ import annotations

import io
import os
import select
import subprocess
import sys

import pytest
from click.testing import CliRunner
from errors import COMMANDS
from samples import RECORD
from test_cli_contract import walk_args

from bmn.frontends.cli.main import cli
from bmn.kernels.config import MAX_DEAL_CARDS
from bmn.kernels.deal import DealError, format_deal, parse_deal, parse_hand
from bmn.kernels.tables.lines import TableLines
from bmn.kernels.tables.scored import INPUT_PAUSED, score_lines

HANG_SECONDS = 600.0  # only a hang reaches this guard; no test waits on a clock otherwise


@pytest.mark.parametrize("group", [[], ["records"]])
def test_a_bare_group_prints_its_help_as_help_does(bmn, group):
    bare, helped = bmn(*group), bmn(*group, "--help")
    assert bare.exit_code == 0 and bare.stderr == ""
    assert bare.stdout == helped.stdout and bare.stdout.startswith("Usage: bmn")


DRAWING = [
    path for path, command in COMMANDS.items() if "output" in {p.name for p in command.params}
]


@pytest.mark.parametrize("path", DRAWING, ids=["/".join(p) for p in DRAWING])
@pytest.mark.parametrize("name", ["", " "])
def test_an_empty_figure_name_is_refused_by_every_drawing_command(
    bmn, failed, tmp_path, monkeypatch, path, name
):
    """One rule for -o '': it names no file, so every drawing command refuses it (plot used to
    write a default-named file, stats to draw nothing, records plot to fail later)."""
    monkeypatch.chdir(tmp_path)
    failed(bmn(*walk_args(path), "-o", name), 2, "-o", "names no file")
    assert list(tmp_path.iterdir()) == []


# -- deals as people write them ------------------------------------------------------------


def test_a_trailing_slash_is_refused_not_read_as_an_empty_seat(bmn, failed):
    line = failed(bmn("play", "-J/Q-/"), 2, "hand 3 is empty", "drop the '/'", "'-J/Q-/.'")
    assert "deal of 2 hands ('-J/Q-')" in line
    failed(bmn("play", "-J", "Q-", ""), 2, "hand 3 is empty", "write '.'")
    failed(bmn("play", "-J//Q-"), 2, "hand 2 is empty", "'-J/./Q-'")
    failed(bmn("score", input="-J/Q-\n-J/Q-/\n"), 2, "line 2: hand 3 is empty")


def test_an_empty_hand_written_on_purpose_is_played_and_printed_back(bmn):
    result = bmn("play", "-J/Q-/.", "--json")
    assert result.exit_code == 0, result.output
    assert bmn("play", "-J/Q-/.").stdout.startswith("deal: -J/Q-/.\n")
    assert bmn("play", "-J", "Q-", ".").stdout == bmn("play", "-J/Q-/.").stdout
    scored = bmn("score", "--json", input="./-J\n")
    assert scored.exit_code == 0 and '"deal": "./-J"' in scored.stdout


@pytest.mark.parametrize("text", ["./-J", "-J/./Q-", "-J/Q-/.", "-//", "J/", "//-"])
def test_every_deal_bmn_prints_reads_back_as_typed(text):
    deal = parse_deal(text)  # the library reads the older form, an empty text, too
    assert parse_deal(format_deal(deal), typed=True) == deal


def test_a_deal_past_the_card_bound_is_refused_cheaply(bmn, failed):
    """The issue's hostile deal (120,000 numerals and a J against a Q) ran past 10 minutes and
    19 GB; a deal holds at most MAX_DEAL_CARDS, refused in one line, exit 2, before play."""
    hostile = "-" * 120_000 + "J"
    failed(bmn("play", hostile, "Q"), 2, f"at most {MAX_DEAL_CARDS:,} cards")
    failed(bmn("score", input=f"{hostile}/Q\n"), 2, "line 1:", "has 120,002 cards")
    failed(bmn("score", input=f"{'10H ' * 2000}/Q\n"), 2, "line 1:", "at most 1,000 cards")
    # the parser stops at the bound: the bad character far behind it is never reached
    with pytest.raises(DealError, match="at most 1,000 cards"):
        parse_hand("-" * 10**6 + "x")
    with pytest.raises(DealError, match="at most 1,000 cards"):
        parse_deal(["-" * 600, "-" * 401])


def test_a_deal_at_the_card_bound_is_played(bmn):
    edge = "-" * (MAX_DEAL_CARDS - 1) + "/J"
    result = bmn("play", edge, "--json")
    assert result.exit_code == 0, result.output
    assert bmn("score", input=edge + "\n").exit_code == 0


def test_the_warning_for_a_long_deal_does_not_echo_it(bmn):
    long = "-" * 900 + "/" + "J" * 99
    result = bmn("score", input=long + "\n")
    assert result.exit_code == 0
    (warning,) = result.stderr.splitlines()
    assert len(warning) < 300 and "(1,000 characters)" in warning


# -- score on a live stream ----------------------------------------------------------------


def test_score_lines_scores_what_has_come_when_the_input_pauses():
    batches = list(score_lines(["-J/Q-", INPUT_PAUSED, INPUT_PAUSED, "Q-/-J", "-J/Q-"]))
    assert [b.deals for b in batches] == [["-J/Q-"], ["Q-/-J", "-J/Q-"]]


def test_text_lines_say_when_a_pipe_has_no_more_input_yet():
    read, write = os.pipe()
    with os.fdopen(read, "rb") as source, os.fdopen(write, "wb", buffering=0) as writer:
        lines = iter(TableLines(source, pauses=True))
        writer.write(b"-J/Q-\nQ-/-J\n")  # two lines, then the writer pauses (stays open)
        assert [next(lines), next(lines), next(lines)] == ["-J/Q-\n", "Q-/-J\n", INPUT_PAUSED]
        writer.write(b"--/J-")  # a line without its end: nothing to score until it ends
        assert next(lines) is INPUT_PAUSED
        writer.write(b"\n")
        assert [next(lines), next(lines)] == ["--/J-\n", INPUT_PAUSED]
        writer.close()
        assert list(lines) == []


def bmn_child(*args: str, **popen) -> subprocess.Popen:
    command = [sys.executable, "-m", "bmn.frontends.cli", *args]
    return subprocess.Popen(command, text=True, **popen)


def read_line(stream) -> str:
    """The next line of a child's output, or a failure if none comes (a hang)."""
    ready, _, _ = select.select([stream], [], [], HANG_SECONDS)
    assert ready, "no output from the child"
    return stream.readline()


@pytest.mark.slow
def test_score_answers_each_line_of_a_slow_fifo(tmp_path):
    """A FIFO fed one line at a time gets each result while it stays open (score used to wait
    for 65,536 lines or the end of input)."""
    fifo = tmp_path / "deals"
    os.mkfifo(fifo)
    child = bmn_child("score", str(fifo), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        with open(fifo, "w") as feed:
            for deal, result in [("-J/Q-", "finished: 4 cards"), (RECORD, "8,344 cards")]:
                feed.write(deal + "\n")
                feed.flush()
                line = read_line(child.stdout)  # the feed is still open: no end of input
                assert line.startswith(deal) and result in line
        assert child.stdout.read() == "" and child.wait(HANG_SECONDS) == 0
    finally:
        child.kill()
        child.wait()
        child.stdout.close()


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [["play", "-J/Q-"], ["records", "published", "--json"], ["deal", "--seed", "1"]],
)
def test_a_full_device_as_stdout_is_one_error_line(args):
    with open("/dev/full", "w") as full:
        child = bmn_child(*args, stdout=full, stderr=subprocess.PIPE)
        _, stderr = child.communicate(timeout=HANG_SECONDS)
    assert child.returncode == 1, stderr
    assert stderr.splitlines()[-1] == "Error: could not write the output: No space left on device"
    assert "Traceback" not in stderr and "Exception ignored" not in stderr


@pytest.mark.slow
def test_a_reader_that_goes_away_ends_it_quietly():
    """`bmn records published | head -0`: the pipe is closed before bmn writes."""
    read, write = os.pipe()
    os.close(read)
    with os.fdopen(write, "w") as closed:
        child = bmn_child("records", "published", stdout=closed, stderr=subprocess.PIPE)
        _, stderr = child.communicate(timeout=HANG_SECONDS)
    assert "Error" not in stderr and "Traceback" not in stderr and "Exception" not in stderr
    assert child.returncode == 1  # click's convention for a closed pipe


# -- what the hunt found beyond the list ---------------------------------------------


def run_without(stream: str, args: list[str]) -> tuple[object, str]:
    """`bmn ARGS` started with stdin or stdout closed (`<&-`, `>&-`: Python makes it None)."""
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(), io.StringIO(), io.StringIO()
    setattr(sys, stream, None)
    stderr, code = sys.stderr, None
    try:
        cli.main(args, prog_name="bmn")
    except SystemExit as exit:
        code = exit.code
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return code, stderr.getvalue()


def test_a_closed_stdout_is_output_that_cannot_be_written():
    """`bmn play -J/Q- >&-` printed nothing and exited 0 (then a traceback, with the guard)."""
    for args in (["play", "-J/Q-"], ["records", "published", "--json"]):
        code, stderr = run_without("stdout", args)
        assert code == 1 and stderr.splitlines()[-1] == (
            "Error: could not write the output: stdout is closed"
        )


def test_a_closed_stdin_is_bad_input_for_score():
    """`bmn score <&-` was a traceback from click ('not able to determine binary stream')."""
    code, stderr = run_without("stdin", ["score"])
    assert code == 2 and "stdin is closed: give a FILE of deals" in stderr
    assert "Traceback" not in stderr


def test_a_line_with_no_end_in_sight_is_refused(bmn, failed):
    """A line past a megabyte is no deal of 1,000 cards: refused before it is all in memory."""
    failed(bmn("score", input="-J/Q-\n" + "-" * (1 << 21)), 2, "line 2: longer than 1,048,576")


def test_backward_play_takes_at_most_two_decks(bmn, failed):
    """preimages on a 998-card loop ran for hours (16 s a state at depth 1): refused."""
    failed(bmn("preimages", "-" * 199 + "J/K"), 2, "at most 104 cards", "has 201")


# -- an output that cannot encode a character -------------------------------------------------

EURO_STORE = "st\u20acre.sqlite"  # a euro sign: no character of latin-1
ENUMERATION = ["search", "--strategy", "every", "--deck", "6,2,2,0,0", "--objective", "loop"]


def test_a_character_the_output_cannot_encode_is_escaped(tmp_path, monkeypatch):
    """An enumeration's summary names its store; on a latin-1 stdout the euro sign ended the
    command in UnicodeEncodeError after its run was stored."""
    monkeypatch.chdir(tmp_path)
    args = [*ENUMERATION, "--workers", "1", "--store", EURO_STORE]
    result = CliRunner(charset="latin-1").invoke(cli, args, prog_name="bmn")
    assert result.exit_code == 0, result.output
    assert "bmn records loops --store 'st\\u20acre.sqlite'" in result.stdout
    assert "st\\u20acre.sqlite" in result.stderr  # as the child's stderr escapes it below


@pytest.mark.slow
def test_a_latin_1_terminal_gets_the_store_escaped(tmp_path):
    """The same in a real process, with PYTHONIOENCODING=latin-1 (stderr escapes by default)."""
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    args = [*ENUMERATION, "--workers", "1", "--store", EURO_STORE]
    child = bmn_child(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    out, err = child.communicate(timeout=HANG_SECONDS)
    assert child.returncode == 0 and "Traceback" not in err, err
    assert "bmn records loops --store 'st\\u20acre.sqlite'" in out
