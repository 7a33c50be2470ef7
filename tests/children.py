"""`bmn` in child processes, for tests that signal, kill or race a run: the test waits on
events (a pipe, the store), never on a clock.

`search_child(args, then=...)` starts `bmn ARGS` with one hook: the run commits its first chunk
as soon as that chunk is in, then says so down a pipe and does `then`:
- "go on": runs on;
- "wait": waits until a signal (SIGINT, SIGTERM) stops it, so a signal always finds it running
  after a commit, however fast the machine (SIGKILL ends it there, its worker threads mid-chunk);
- "kill PID": SIGKILLs process PID (a Dask scheduler) and runs on.
Chunks and commits do not change a run (its tests say so), so a child's run is any other's.

Every wait has a guard (HANG_SECONDS) that only a hang reaches.
"""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from collections.abc import Callable

HANG_SECONDS = 600.0  # a child or store that has not answered by then never will

CHILD = """
import os, signal, sys
from bmn.search.runs.job import Job
from bmn.search.runs.loop import RunLoop

commit, due = RunLoop._commit, Job.commit_due
pipe, then = int(sys.argv.pop(1)), sys.argv.pop(1)

def first_commit(self, on_progress):
    RunLoop._commit, Job.commit_due = commit, due
    commit(self, on_progress)
    if then.startswith("kill "):
        os.kill(int(then.split()[1]), signal.SIGKILL)
    os.write(pipe, b"committed")
    os.close(pipe)
    if then == "wait":
        self.stop.wait()  # set by bmn's SIGINT and SIGTERM handler

RunLoop._commit, Job.commit_due = first_commit, lambda self, saved: True
sys.argv[0] = "bmn"
from bmn.frontends.cli.main import main
main()
"""


class Child:
    """A `bmn` process whose first commit the test can wait for."""

    def __init__(self, args: list[str], then: str):
        read, write = os.pipe()
        command = [sys.executable, "-c", CHILD, str(write), then, *map(str, args)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, pass_fds=[write]
        )
        os.close(write)  # the child holds the only writer: its exit is end of file here
        self._pipe = read

    @property
    def pid(self) -> int:
        return self.process.pid

    def committed(self) -> None:
        """Return once the run has committed its first chunk; fail if the child ended first."""
        ready, _, _ = select.select([self._pipe], [], [], HANG_SECONDS)
        said = os.read(self._pipe, 16) if ready else b""
        if said != b"committed":
            self.process.kill()
            out, err = self.process.communicate()
            raise AssertionError(f"bmn ended before its first commit ({ready=}): {out}{err}")

    def communicate(self) -> tuple[str, str]:
        """Its stdout and stderr once it has ended."""
        return self.process.communicate(timeout=HANG_SECONDS)

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def close(self) -> None:
        """Kill it if it still runs, and reap it (the `search_child` fixture's teardown)."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=HANG_SECONDS)
        for stream in (self.process.stdout, self.process.stderr):
            stream.close()
        os.close(self._pipe)


def search_child(args: list[object], then: str = "go on") -> Child:
    """`bmn ARGS` (a search) that commits its first chunk at once and then does `then`;
    tests take it from the fixture of the same name, which reaps it."""
    assert then in ("go on", "wait") or then.startswith("kill "), then
    return Child([str(arg) for arg in args], then)


def wait_until(predicate: Callable[[], bool], what: str) -> None:
    """Poll `predicate` (the state of a store or a file another process writes) until true."""
    deadline = time.monotonic() + HANG_SECONDS
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} after {HANG_SECONDS:.0f} s")
        time.sleep(0.05)
