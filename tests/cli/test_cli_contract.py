"""bmn's error contract over every command: bad values for every option and argument end in
one error line (and at most a usage hint) with exit status 2, or 1 for a store or file bmn
cannot use; never a traceback. Results that cannot be written (stdout on a full disk) are one
error line, exit 1, for every command; every --json output parses. The commands are found by
walking the click group, so a new command or option is covered without a change here."""

from __future__ import annotations

import errno
import io
import json
import os
import sys
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner
from errors import COMMANDS, error_line, parses
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import PAULHUS
from tiers import sizes

from bmn.frontends.cli.main import cli
from bmn.records.store import Find, Store

# Commands that run long: they get bounds that make them quick, and the options that set
# those bounds are tried only with values that fail validation.
BOUNDS = {
    ("search",): ["--iterations", "200", "--workers", "1", "--quiet", "--store", "s.sqlite"],
    ("records", "merge"): ["records.sqlite", "--store", "merged.sqlite"],
    ("records", "import"): ["table.txt", "--store", "imported.sqlite"],
    ("stats",): ["--deals", "200"],
    ("bench",): ["--deals", "1000", "--threads", "1"],
    ("selfcheck",): ["--deals", "100"],
}
NOT_RUN = {
    ("search",): {"iterations", "workers"},
    ("stats",): {"deals"},
    ("bench",): {"deals"},
    ("selfcheck",): {"deals"},
    ("deal",): {"count"},  # up to 2**63 - 1 deals, printed for as long as that takes
    ("search-bench",): "every option",  # at least seconds of work in any bounds
    # A store that opens is served until stopped: any value that parses (a store named as the
    # argument or by --store, a free port, a host of this machine) would serve.
    ("records", "serve"): "every option",
}
HAND = "-J/Q-"


PARAMS = [
    (path, param.name)
    for path, command in COMMANDS.items()
    for param in command.params
    if not (isinstance(param, click.Option) and param.is_flag)
]


def base_args(path: tuple[str, ...]) -> list[str]:
    """Arguments that make the command run, quickly, on the test's files."""
    command = COMMANDS[path]
    args = list(BOUNDS.get(path, []))
    if any(p.name == "hands" for p in command.params):
        args.insert(0, HAND)
    if any(p.name == "store" and isinstance(p, click.Option) for p in command.params) and (
        path[0] == "records" and "--store" not in args
    ):
        args += ["--store", "records.sqlite"]
    return args


def with_value(path: tuple[str, ...], name: str, value: str) -> list[str]:
    """The command line with `value` given to parameter `name` (after the bounds, so it wins)."""
    param = next(p for p in COMMANDS[path].params if p.name == name)
    args = base_args(path)
    if isinstance(param, click.Argument):
        if name == "hands":
            args.remove(HAND)
        return [*path, *args, value]
    return [*path, *args, f"{max(param.opts, key=len)}={value}"]


def check(path: tuple[str, ...], name: str, value: str) -> None:
    """Run the command with the value and hold it to the contract."""
    args = with_value(path, name, value)
    skip = NOT_RUN.get(path, ())
    if (skip == "every option" or name in skip) and parses(args):
        return  # a valid value for a long run: not run here
    result = CliRunner().invoke(cli, args, input=f"{HAND}\n", prog_name="bmn")
    assert "Traceback" not in result.output, (args, result.output)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        repr(result.exception),
    )
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output)
    if result.exit_code:
        line = error_line(result, result.exit_code)
        assert len(line) < 1_200, (args[:2], len(line))  # the error, not the value echoed whole


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Iterator[str]:
    """A working folder with a store of one run and one find; commands run inside it."""
    path = tmp_path_factory.mktemp("contract")
    with Store(path / "records.sqlite") as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(PAULHUS, 4791, 670, elapsed=1.0)])
        db.update_run(run, status="finished", games=10, seconds=1.0)
    (path / "table.txt").write_text(f"{PAULHUS} 4791\n")  # for `records import`
    before = os.getcwd()
    os.chdir(path)
    try:
        yield str(path)
    finally:
        os.chdir(before)


def test_every_command_and_option_is_found():
    assert {"play", "score", "search", "search-bench"} <= {p[0] for p in COMMANDS}
    assert ("records", "top") in COMMANDS and len(PARAMS) > 40


# Out of range, garbage, empty and huge in the fast tier; the rest (values that may well run a
# command: '0', a file's name) in the slow tier too.
QUICK_BAD = ["99999999999999999999999", "-1", "garbage", "", "x" * 100_000]  # up to 128 KB
BAD = [*QUICK_BAD, str(2**63), "0", "1e999", "--", ".", "records.sqlite", "x.png", "1,2"]


@pytest.mark.parametrize("values", sizes(QUICK_BAD, BAD))
@pytest.mark.parametrize("path, name", PARAMS, ids=["/".join(p) + ":" + n for p, n in PARAMS])
def test_bad_values_for_every_parameter(folder, monkeypatch, path, name, values):
    monkeypatch.delenv("BMN_STORE", raising=False)
    for value in values:
        check(path, name, value)


TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=12)
VALUES = st.one_of(
    st.integers(min_value=2**63 - 2, max_value=10**30).map(str),
    st.integers(min_value=-(10**30), max_value=3).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    TEXT,
    st.sampled_from(["", " ", "²", "1_0", " 5 ", "-", "/", "x.png", "x.pdf", "1,2,,3", "8h8h"]),
)


@pytest.mark.parametrize("examples", sizes(40, 250))
def test_generated_bad_values_never_crash(folder, examples):
    @settings(max_examples=examples, deadline=None)
    @given(st.sampled_from(PARAMS), VALUES)
    def never_crash(param, value):
        path, name = param
        os.environ.pop("BMN_STORE", None)
        check(path, name, value)

    never_crash()


# -- output that cannot be written, and --json, for every command ------------------------------

# Commands that run until stopped, or for seconds at least: not run by the walks below.
NOT_WALKED = {("records", "serve"), ("search-bench",)}
WALKED = [path for path in COMMANDS if path not in NOT_WALKED]


class FullDevice(io.RawIOBase):
    """Where stdout goes in these tests: every write fails as on a full disk (/dev/full),
    until `full` is cleared (so closing it afterwards raises nothing)."""

    full = True

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if self.full:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return len(data)


def run_to_full_device(args: list[str], stdin: str = "") -> tuple[object, str]:
    """Run `bmn ARGS` in this process with stdout on a full device: (exit status, stderr)."""
    device = FullDevice()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(device), encoding="utf-8")
    sys.stderr = stderr = io.StringIO()
    code: object = 0
    try:
        cli.main(args, prog_name="bmn")
    except SystemExit as exit:
        code = exit.code
    finally:
        written, (sys.stdin, sys.stdout, sys.stderr) = sys.stdout, saved
        device.full = False
        written.close()
    return code, stderr.getvalue()


LOOPING = "--J--Q/J-"  # a loop whose basin holds 4 deals of 4/4 cards and none of 1/7


def walk_args(path: tuple[str, ...], *extra: str) -> list[str]:
    """A command line of the command that runs, quickly, and prints results."""
    if path == ("preimages",):
        return ["preimages", LOOPING, "--hand-sizes", "4,4", *extra]
    return [*path, *base_args(path), *extra]


@pytest.mark.parametrize("path", WALKED, ids=["/".join(p) for p in WALKED])
def test_results_that_cannot_be_written_are_one_error_line(folder, monkeypatch, path):
    """stdout on a full disk: every command says so in one line, exit 1, no traceback (the
    issue's `bmn play -J/Q- > /dev/full`, `records top --json`, `records export`, `search`)."""
    monkeypatch.delenv("BMN_STORE", raising=False)
    variants = [walk_args(path)]
    if any(p.name == "as_json" for p in COMMANDS[path].params):
        variants.append(walk_args(path, "--json"))
    for args in variants:
        code, stderr = run_to_full_device(args, stdin=f"{HAND}\n")
        assert "Traceback" not in stderr, (args, stderr)
        lines = stderr.strip().splitlines()
        assert code == 1 and lines, (args, code, stderr)
        assert lines[-1] == "Error: could not write the output: No space left on device", args
        assert sum(line.startswith("Error:") for line in lines) == 1, stderr


def test_a_search_whose_summary_cannot_be_written_keeps_its_run(folder, monkeypatch):
    monkeypatch.delenv("BMN_STORE", raising=False)
    store = os.path.join(folder, "full.sqlite")
    args = ["search", "--iterations", "200", "--workers", "1", "--quiet", "--store", store]
    code, stderr = run_to_full_device(args)
    assert code == 1 and "could not write the output" in stderr
    with Store(store, create=False) as db:
        (run,) = db.runs()
        assert run.status == "finished" and db.top(n=1)


def test_help_that_cannot_be_written_is_one_error_line():
    for args in ([], ["--help"], ["records"], ["play", "--help"], ["--version"]):
        code, stderr = run_to_full_device(args)
        assert code == 1, (args, code)
        assert stderr == "Error: could not write the output: No space left on device\n", args


def test_a_failing_stderr_loses_the_warning_not_the_result(monkeypatch):
    """Warnings and progress that cannot be written are dropped; the result is printed."""
    out = io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, io.TextIOWrapper(io.BufferedWriter(FullDevice()))
    try:
        with pytest.raises(SystemExit) as exit:
            cli.main(["play", "-J/Q-"], prog_name="bmn")  # not the standard deck: a warning
    finally:
        broken, (sys.stdout, sys.stderr) = sys.stderr, saved
        broken.buffer.raw.full = False
    assert exit.value.code == 0
    assert out.getvalue() == "deal: -J/Q-\nfinished: 4 cards, 1 trick; seat 0 wins\n"


JSON_COMMANDS = [p for p in WALKED if any(q.name == "as_json" for q in COMMANDS[p].params)]
JSON_LINES = {("score",)}  # a stream of any length: one object per deal, as each batch is scored


@pytest.mark.parametrize("path", JSON_COMMANDS, ids=["/".join(p) for p in JSON_COMMANDS])
@pytest.mark.parametrize("store", ["records.sqlite", "empty.sqlite"])
def test_every_json_output_parses(folder, monkeypatch, path, store):
    """--json is one JSON document in every command but `score` (JSON Lines, documented),
    with finds and with none (an empty store; preimages that find no deal)."""
    monkeypatch.delenv("BMN_STORE", raising=False)
    if not os.path.exists("empty.sqlite"):
        Store("empty.sqlite").close()
    args = [arg if arg != "records.sqlite" else store for arg in walk_args(path, "--json")]
    if path == ("preimages",):  # a loop whose basin holds no deal of these sizes
        args = ["preimages", LOOPING, "--hand-sizes", "1,7", "--json"]
    result = CliRunner().invoke(cli, args, input=f"{HAND}\n{HAND}\n", prog_name="bmn")
    assert result.exit_code == 0, (args, result.output)
    if path in JSON_LINES:
        assert [json.loads(line) for line in result.stdout.splitlines()]
        return
    document = json.loads(result.stdout)
    if path == ("preimages",):
        assert document["deals"] == [] and document["complete"] in (True, False)
