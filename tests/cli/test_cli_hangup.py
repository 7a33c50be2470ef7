"""SIGHUP (a terminal closed, an SSH session dropped) stops `bmn search` as SIGTERM does: a
checkpoint, status 130, the line to resume on stderr where it can still be written, and a run
that `--resume` continues; under `nohup` it is ignored.

The searches run in child processes that say down a pipe when their first chunk is committed
and then wait for the signal (children.py): a signal is never timed by a clock. The hang-up
of a real terminal is a pseudo-terminal, the child's controlling terminal and its stderr,
whose other end the test closes: the kernel sends the SIGHUP, and writes to it fail (EIO)."""

from __future__ import annotations

import json
import os
import pty
import shlex
import shutil
import signal
import subprocess
import sys

import children
import pytest
from children import HANG_SECONDS

from bmn.records.store import Store

ITERATIONS = 1_000_000  # the first chunk is 20,000 deals: the signal lands mid-run
SEARCH = ["search", "--iterations", ITERATIONS, "--seed", "7", "--workers", "1"]
SEARCH += ["--json", "--quiet"]
RESULTS = ("best_deal", "best_cards", "best_tricks", "games")


def bmn(*args: object) -> subprocess.CompletedProcess:
    """`bmn ARGS` (the console script's entry) run to its end."""
    command = [sys.executable, "-m", "bmn.frontends.cli", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=HANG_SECONDS)


def kept(path: os.PathLike[str]) -> int:
    """The games of run 1 as its stop left it: interrupted, released, with its checkpoint."""
    with Store(path) as store:
        run = store.get_run(1)
        assert (run.status, run.holder) == ("interrupted", None)
        assert 0 < run.games < ITERATIONS
        assert [games for _, games, _ in store.load_checkpoints(1).values()] == [run.games]
        return run.games


@pytest.mark.slow
def test_a_hangup_stops_a_search_as_sigterm_does_and_resume_continues_it(tmp_path, search_child):
    whole = bmn(*SEARCH, "--store", tmp_path / "whole.sqlite")  # the run never stopped
    assert whole.returncode == 0, whole.stderr
    said = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        path = tmp_path / f"{signum.name}.sqlite"  # the last, SIGHUP's, is resumed below
        child = search_child([*SEARCH, "--store", path], then="wait")
        child.committed()  # the handler is in place, and the run waits for the signal
        child.process.send_signal(signum)
        out, err = child.communicate()
        assert "Traceback" not in err, err
        resume = f"stopped; resume with: bmn search --resume 1 --store {shlex.quote(str(path))}"
        said[signum] = (child.returncode, json.loads(out)["status"], err.strip() == resume)
        assert kept(path)
    assert said[signal.SIGHUP] == said[signal.SIGTERM] == (130, "interrupted", True)
    resumed = bmn("search", "--resume", "1", "--store", path, "--json", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    got, expected = json.loads(resumed.stdout), json.loads(whole.stdout)
    assert got["status"] == "finished"
    assert [got[k] for k in RESULTS] == [expected[k] for k in RESULTS]  # exactly, from there


ON_A_TERMINAL = (
    "import os\n"
    "os.close(os.open(os.ttyname(2), os.O_RDWR))  # its controlling terminal, as a login's\n"
) + children.CHILD


def hung_up(path, stdout_on_the_terminal: bool) -> tuple[int, str | None]:
    """A search whose stderr (and stdout, if asked; else a pipe) is a terminal that goes away
    after the search's first commit: the kernel hangs it up (SIGHUP, and EIO on every write to
    it). Its exit status and what it wrote to the pipe (None with stdout on the terminal)."""
    master, terminal = pty.openpty()
    ready, write = os.pipe()
    args = [str(write), "wait", *map(str, SEARCH), "--store", str(path)]
    child = subprocess.Popen(
        [sys.executable, "-c", ON_A_TERMINAL, *args],
        stdin=subprocess.DEVNULL,
        stdout=terminal if stdout_on_the_terminal else subprocess.PIPE,
        stderr=terminal,
        text=True,
        pass_fds=[write],
        start_new_session=True,  # a session of its own, the terminal its controlling one
    )
    os.close(terminal)
    os.close(write)
    out = None
    try:
        assert os.read(ready, 16) == b"committed", child.communicate(timeout=HANG_SECONDS)
        os.close(master)  # the terminal goes away
        master = None
        out, _ = child.communicate(timeout=HANG_SECONDS)
    finally:
        os.close(ready)
        if master is not None:
            os.close(master)
        if child.poll() is None:
            child.kill()
            child.wait()
        if child.stdout is not None:
            child.stdout.close()
    return child.returncode, out


@pytest.mark.slow
def test_a_terminal_that_hangs_up_stops_a_search_after_a_checkpoint(tmp_path):
    """stderr on the terminal that went away: the resume line cannot be written (EIO), and the
    stop is clean all the same; the summary goes to stdout, a pipe here."""
    path = tmp_path / "t.sqlite"
    status, out = hung_up(path, stdout_on_the_terminal=False)
    assert (status, json.loads(out)["status"]) == (130, "interrupted")
    assert kept(path)


NOHUP = """
import signal, sys
from bmn.frontends.cli import stops
from bmn.search.runs import start

stops.install()  # the console script's first act
signal.raise_signal(signal.SIGHUP)
with start.Stopping(sys.argv[1]):  # as a search runs
    signal.raise_signal(signal.SIGHUP)
print("searched on")
"""


def test_a_search_started_under_nohup_ignores_hangups(tmp_path):
    nohup = shutil.which("nohup")
    if nohup is None:
        pytest.skip("no nohup on this machine")
    command = [sys.executable, "-c", NOHUP, str(tmp_path / "s.sqlite")]
    ignored = subprocess.run(
        [nohup, *command], capture_output=True, text=True, timeout=HANG_SECONDS
    )
    assert (ignored.returncode, ignored.stdout) == (0, "searched on\n"), ignored.stderr
    handled = subprocess.run(command, capture_output=True, text=True, timeout=HANG_SECONDS)
    assert handled.returncode != 0 and "KeyboardInterrupt" in handled.stderr, handled.stderr


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_stop_whose_stdout_is_gone_still_exits_130(tmp_path, search_child, signum):
    """stdout's reader gone before the stop (a closed pipe: EPIPE, as a dead terminal's EIO):
    the summary cannot be written, and the stopped run still exits 130, checkpointed, with
    its resume line on stderr and no traceback."""
    path = tmp_path / "gone.sqlite"
    child = search_child([*SEARCH, "--store", path], then="wait")
    child.committed()
    child.process.stdout.close()  # nobody reads the summary now
    child.process.send_signal(signum)
    err = child.process.stderr.read()
    assert child.process.wait(timeout=HANG_SECONDS) == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    resume = f"stopped; resume with: bmn search --resume 1 --store {shlex.quote(str(path))}"
    assert err.strip() == resume
    assert kept(path)


def test_a_search_on_a_terminal_that_hangs_up_exits_130_though_nothing_can_be_said(tmp_path):
    """stdout and stderr both on the terminal that went away: the summary and the resume
    line fail (EIO), and the hung-up search still exits 130 after its checkpoint."""
    path = tmp_path / "dead.sqlite"
    status, _ = hung_up(path, stdout_on_the_terminal=True)
    assert status == 130
    assert kept(path)
