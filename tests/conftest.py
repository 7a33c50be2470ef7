"""Shared fixtures and hypothesis settings for the bmn test suite.

Shared deals (the published records, tiny decks) are plain constants in samples.py.
"""

import os
from collections.abc import Callable, Iterator

import children
import compile_clock
import pytest
from click.testing import CliRunner, Result
from errors import error_line
from hypothesis import HealthCheck, settings

from bmn.frontends.cli.main import cli
from bmn.records.store import Store

# The suite's tests of what bmn does with results (commands, stores, displays, runs) play on the
# scalar kernels, the lane kernels' checked twin: each compiled kernel costs seconds of a cold
# run, and both would be compiled for every path. The lane kernels are played by the tests that
# ask for them (tests/kernels/test_lanes.py, test_oracle.py's device "lanes",
# tests/search/strategies/test_lane_feed.py and the lane variants of the end-to-end tests);
# `BMN_KERNEL=lanes pytest` plays everything on them.
os.environ.setdefault("BMN_KERNEL", "scalar")

settings.register_profile(
    "bmn",
    deadline=None,
    derandomize=True,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "bmn"))


# This process's compiles (compile_clock.py), and on xdist's controller its workers'.
CLOCK = compile_clock.started()
WORKER_COMPILES: dict[str, tuple[int, float]] = {}


def pytest_sessionfinish(session: pytest.Session) -> None:
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: its figures go to the controller
        workeroutput["compiles"] = (CLOCK.compiles, CLOCK.seconds)


def pytest_testnodedown(node, error) -> None:
    compiles = getattr(node, "workeroutput", {}).get("compiles")
    if compiles is not None:
        WORKER_COMPILES[node.gateway.id] = tuple(compiles)


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    """Say how much of the run was Numba compiling, apart from the tests."""
    figures = WORKER_COMPILES or {"this process": (CLOCK.compiles, CLOCK.seconds)}
    terminalreporter.write_line(compile_clock.summary(figures))


@pytest.fixture
def bmn() -> Callable[..., Result]:
    """Run a bmn command in this process: `bmn("play", "-J/Q-", input=..., env=...)` gives
    click's Result (exit_code, stdout and stderr apart). Paths and numbers may be passed as
    they are."""

    def invoke(*args: object, input: str | None = None, env: dict | None = None) -> Result:
        args = [str(arg) for arg in args]
        return CliRunner().invoke(cli, args, input=input, env=env, prog_name="bmn")

    return invoke


@pytest.fixture
def failed() -> Callable[..., str]:
    """`failed(result, code, *texts)`: the error line of a failed command (see error_line),
    checked to contain each of `texts`."""

    def check(result: Result, code: int, *texts: str) -> str:
        line = error_line(result, code)
        for text in texts:
            assert text in line, (text, line)
        return line

    return check


@pytest.fixture
def scalar_kernels() -> Iterator[None]:
    """The scalar CPU kernels chosen for a test (kernels/cpu/choice.py), where it stands a
    scalar kernel's stand-in in: their twins in lanes play the same deals (test_lanes.py)."""
    from bmn.kernels.cpu import choice

    before = os.environ.get(choice.ENV)
    choice.force("scalar")
    yield
    choice.restore(before)


@pytest.fixture
def path(tmp_path):
    """Where a test's record store goes (not created)."""
    return tmp_path / "records.sqlite"


@pytest.fixture
def db(path):
    """An open record store at `path`."""
    with Store(path) as store:
        yield store


@pytest.fixture
def search_child():
    """`search_child(args, then="go on")`: `bmn ARGS` in a child process that says when it has
    committed its first chunk (children.py); killed if need be and reaped after the test."""
    started: list[children.Child] = []

    def start(args: list[object], then: str = "go on") -> children.Child:
        started.append(children.search_child(args, then))
        return started[-1]

    yield start
    for child in started:
        child.close()
