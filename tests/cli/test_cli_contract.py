"""bmn's error contract over every command: bad values for every option and argument end in
one error line (and at most a usage hint) with exit status 2, or 1 for a store or file bmn
cannot use; never a traceback. The commands are found by walking the click group, so a new
command or option is covered without a change here."""

from __future__ import annotations

import os
from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner
from errors import COMMANDS, error_line, parses
from hypothesis import given, settings
from hypothesis import strategies as st
from samples import PAULHUS

from bmn.records.store import Find, Store
from bmn.search.cli.main import cli

# Commands that run long: they get bounds that make them quick, and the options that set
# those bounds are tried only with values that fail validation.
BOUNDS = {
    ("search",): ["--iterations", "200", "--workers", "1", "--quiet", "--store", "s.sqlite"],
    ("stats",): ["--deals", "200"],
    ("bench",): ["--deals", "1000", "--threads", "1"],
    ("selfcheck",): ["--deals", "100"],
}
NOT_RUN = {
    ("search",): {"iterations", "workers"},
    ("stats",): {"deals"},
    ("bench",): {"deals"},
    ("selfcheck",): {"deals"},
    ("search-bench",): "every option",  # at least seconds of work in any bounds
    ("records", "serve"): {"store"},  # a store that opens is served until stopped
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
        path[0] == "records"
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
        error_line(result, result.exit_code)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Iterator[str]:
    """A working folder with a store of one run and one find; commands run inside it."""
    path = tmp_path_factory.mktemp("contract")
    with Store(path / "records.sqlite") as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(PAULHUS, 4791, 670, elapsed=1.0)])
        db.update_run(run, status="finished", games=10, seconds=1.0)
    before = os.getcwd()
    os.chdir(path)
    try:
        yield str(path)
    finally:
        os.chdir(before)


def test_every_command_and_option_is_found():
    assert {"play", "score", "search", "search-bench"} <= {p[0] for p in COMMANDS}
    assert ("records", "top") in COMMANDS and len(PARAMS) > 40


BAD = ["99999999999999999999999", str(2**63), "-1", "0", "garbage", "", "1e999", "--", "."]
BAD += ["records.sqlite", "x.png", "1,2"]


@pytest.mark.parametrize("path, name", PARAMS, ids=["/".join(p) + ":" + n for p, n in PARAMS])
def test_bad_values_for_every_parameter(folder, monkeypatch, path, name):
    monkeypatch.delenv("BMN_STORE", raising=False)
    for value in BAD:
        check(path, name, value)


TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=12)
VALUES = st.one_of(
    st.integers(min_value=2**63 - 2, max_value=10**30).map(str),
    st.integers(min_value=-(10**30), max_value=3).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    TEXT,
    st.sampled_from(["", " ", "²", "1_0", " 5 ", "-", "/", "x.png", "x.pdf", "1,2,,3", "8h8h"]),
)


@settings(max_examples=250, deadline=None)
@given(st.sampled_from(PARAMS), VALUES)
def test_generated_bad_values_never_crash(folder, param, value):
    path, name = param
    os.environ.pop("BMN_STORE", None)
    check(path, name, value)
