"""SIGINT, SIGTERM and SIGHUP at any moment of the `bmn` console script: status 130 and
`Aborted!` while the command works, the command's own status once its work is done and said,
never killed silently (143, -2 or -1). A search stopped by SIGHUP: test_cli_hangup.py.

Each test runs the real console script (entry.py) in a child process and signals it at a
point the child announces down a pipe, then lets it go on: a signal is never timed by a clock.
The moments: `command` (the command has begun: 130), and the interpreter's exit after the
command's last word (its own status): `atexit` (another library's exit function, which runs
before bmn's own) and `teardown` (an object freed with the modules, after Python has reset its
signal handlers)."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys

import pytest
from children import HANG_SECONDS

RECORD = ["---AJ--Q---------QAKQJJ-QK", "-----A----KJ-K--------A---"]

CHILD = """
import atexit, os, sys
ready, go, phase = int(sys.argv.pop(1)), int(sys.argv.pop(1)), sys.argv.pop(1)

class Moment:
    # says it has come, then waits for the test to have sent its signal
    def __init__(self):
        self.write, self.read, self.close = os.write, os.read, os.close
        self.came = False

    def __call__(self):
        if self.came:
            return
        self.came = True
        self.write(ready, b"now")
        self.close(ready)
        self.read(go, 1)

    def __del__(self):
        if phase == "teardown":
            self()

moment = Moment()  # freed with the modules, at the very end
from bmn.frontends.cli import stops
install = stops.install

def install_then_hook():
    install()
    if phase == "atexit":
        atexit.register(moment)  # registered after bmn's own: runs before it
    if phase == "command":  # once the command line is parsed
        import click
        invoke = click.Command.invoke
        click.Command.invoke = lambda self, ctx: (moment(), invoke(self, ctx))[1]

stops.install = install_then_hook
sys.argv[0] = "bmn"
from bmn.frontends.cli.entry import main
main()
"""


def signalled(args: list[object], phase: str, signum: int) -> tuple[int, str, str]:
    """`bmn ARGS` signalled with `signum` at `phase`: its status, stdout and stderr."""
    ready, ready_w = os.pipe()
    go_r, go = os.pipe()
    command = [sys.executable, "-c", CHILD, str(ready_w), str(go_r), phase, *map(str, args)]
    child = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        pass_fds=[ready_w, go_r],
    )
    os.close(ready_w)
    os.close(go_r)
    try:
        came, _, _ = select.select([ready], [], [], HANG_SECONDS)
        said = os.read(ready, 8) if came else b""
        assert said == b"now", child.communicate()
        child.send_signal(signum)
        # Let it go on; a child that has ended at the signal already reads nothing more
        # (under load it may end before this write: the pipe is then broken, not the test).
        with contextlib.suppress(BrokenPipeError):
            os.write(go, b"!")
        out, err = child.communicate(timeout=HANG_SECONDS)
    finally:
        os.close(ready)
        os.close(go)
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, out, err


PHASES = [(p, s) for p in ("atexit", "teardown") for s in (signal.SIGINT, signal.SIGTERM)]
IDS = [f"{phase}-{sig.name}" for phase, sig in PHASES]
HANGUPS = [(phase, signal.SIGHUP) for phase in ("atexit", "teardown")]  # SIGTERM's twin
HANGUP_IDS = [f"{phase}-SIGHUP" for phase, _ in HANGUPS]


@pytest.fixture(scope="module")
def searched(tmp_path_factory) -> str:
    """A store with a finished run, made by a child process."""
    store = str(tmp_path_factory.mktemp("signals") / "s.sqlite")
    args = ["search", "--time", "1s", "--workers", "1", "--store", store]
    done = subprocess.run(
        [sys.executable, "-m", "bmn.frontends.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert done.returncode == 0, done.stderr
    return store


def said(bmn, args: list[str]) -> str:
    """What the command prints, run in this process without a signal."""
    result = bmn(*args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.slow
@pytest.mark.parametrize("phase, signum", PHASES + HANGUPS, ids=IDS + HANGUP_IDS)
def test_a_signal_after_play_has_said_all_exits_0(bmn, phase, signum):
    status, out, err = signalled(["play", *RECORD], phase, signum)
    assert (status, out, err) == (0, said(bmn, ["play", *RECORD]), "")


@pytest.mark.slow
@pytest.mark.parametrize("phase, signum", PHASES, ids=IDS)
def test_a_signal_after_records_runs_has_said_all_exits_0(bmn, searched, phase, signum):
    args = ["records", "runs", "--store", searched]
    status, out, err = signalled(args, phase, signum)
    assert (status, out, err) == (0, said(bmn, args), "")


@pytest.mark.slow
@pytest.mark.parametrize("phase, signum", PHASES[::3], ids=IDS[::3])
def test_a_signal_after_a_finished_search_exits_0(tmp_path, phase, signum):
    args = ["search", "--time", "1s", "--workers", "1", "--store", tmp_path / "s.sqlite"]
    status, out, err = signalled(args, phase, signum)
    assert status == 0 and "Traceback" not in err and "Exception ignored" not in err, err
    assert out.startswith("run 1 (finished): ") and "\nodds (" in out, out  # all of it


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_after_an_error_keeps_its_status(signum):
    status, out, err = signalled(["play", "--jsno", *RECORD], "teardown", signum)
    assert (status, out) == (2, "")
    assert err.splitlines()[-2].startswith("Error: No such option '--jsno'"), err


@pytest.mark.slow
@pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"]
)
@pytest.mark.parametrize("command", ["play", "records runs"])
def test_a_signal_while_a_command_works_is_130_aborted(searched, command, signum):
    args = ["play", *RECORD] if command == "play" else ["records", "runs", "--store", searched]
    status, out, err = signalled(args, "command", signum)
    assert (status, out, err.strip()) == (130, "", "Aborted!")


SWALLOWS = """
import os, signal, sys
from bmn.frontends.cli import stops
ready = int(sys.argv[1])
stops.install()
for said in (b"1", b"2"):
    try:
        os.write(ready, said)
        signal.pause()
    except KeyboardInterrupt:
        pass  # code that swallows it (Dask's, as a cluster starts)
"""


@pytest.mark.slow
def test_a_second_signal_ends_a_command_that_swallowed_the_first():
    ready, write = os.pipe()
    command = [sys.executable, "-c", SWALLOWS, str(write)]
    child = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, pass_fds=[write])
    os.close(write)
    try:
        for said, signum in ((b"1", signal.SIGINT), (b"2", signal.SIGTERM)):
            assert os.read(ready, 1) == said
            child.send_signal(signum)
        _, err = child.communicate(timeout=HANG_SECONDS)
    finally:
        os.close(ready)
        if child.poll() is None:
            child.kill()
            child.wait()
    assert (child.returncode, err.strip()) == (130, "Aborted!")
