"""`bmn search` and its neighbours keep the command line's error contract where they broke
it: click's own usage errors (an option missing its value, a flag given one, an unknown
option) end with the Try line in every command; values the declaration refuses are exit 2;
a file that cannot be read, a store deleted mid-search and a refused scheduler are one line,
exit 1; the resume line is quoted for the shell; SIGTERM as soon as bmn starts says so."""

from __future__ import annotations

import json
import os
import shlex
import signal
import socket
import subprocess
import sys

import click
import pytest
from children import HANG_SECONDS
from errors import COMMANDS, error_line

from bmn.frontends.cli.search import resume_line
from bmn.search.runs.job import Job
from bmn.search.runs.loop import RunLoop

OPTIONS = [
    (path, option)
    for path, command in COMMANDS.items()
    for option in command.params
    if isinstance(option, click.Option) and not option.hidden
]


def try_line(result, path) -> None:
    """Exit 2, one error line, and the Try line naming the command."""
    error_line(result, 2)
    assert result.stderr.splitlines()[-1] == f"Try 'bmn {' '.join(path)} --help' for help."


@pytest.mark.parametrize(
    "path, option", OPTIONS, ids=[f"{' '.join(p)} {o.name}" for p, o in OPTIONS]
)
def test_clicks_own_usage_errors_have_the_try_line(bmn, path, option):
    name = max(option.opts, key=len)
    if option.is_flag:
        try_line(bmn(*path, f"{name}=yes"), path)  # a flag given a value
    elif (path, option.name) != (("search",), "resume"):  # alone it means the latest run
        try_line(bmn(*path, name), path)  # an option missing its value
    try_line(bmn(*path, "--no-such-option-at-all"), path)


@pytest.mark.parametrize(
    "args, words",
    [
        (["--strategy", "every", "--deck", "6,2,1,1,0", "--from-rank", "²"], "is not a rank"),
        (["--deck", f"{2**64},4,4,4,4"], "the compiled kernels play at most 64 cards"),
        (["--strategy", "every", "--deck", "6,2,1,1,0", "--basin-states", "9"],
         "--basin-states does nothing with --strategy every --objective cards"),
        (["--scheduler", "tcp://127.0.0.1:99999"], "a port is 1 to 65535"),
        (["--scheduler", "127.0.0.1"], "is not a scheduler address"),
    ],
)  # fmt: skip
def test_values_the_declaration_refuses_are_usage_errors(bmn, failed, tmp_path, args, words):
    store = tmp_path / "s.sqlite"
    failed(bmn("search", *args, "--store", store), 2, words)
    assert not store.exists()


def test_a_refused_scheduler_is_said_to_be_refused(bmn, failed, tmp_path):
    with socket.socket() as free:  # a port nothing listens on once closed
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    result = bmn("search", "--scheduler", f"tcp://127.0.0.1:{port}", "--store", tmp_path / "s")
    failed(result, 1, "connection refused")


@pytest.mark.parametrize(
    "address", ["nonsense", "http://host:8787/status", "tcp://host:0", "tcp://host:8786/x"]
)
def test_a_scheduler_file_with_a_bad_address_says_what_scheduler_says(
    bmn, failed, tmp_path, address
):
    """The address is refused in --scheduler's words (it was tried, and called 'not a Dask
    scheduler'); the file is one bmn cannot use: exit 1, nothing stored."""
    given = bmn("search", "--scheduler", address, "--store", tmp_path / "s.sqlite")
    why = given.stderr.splitlines()[0].removeprefix("Error: Invalid value for '--scheduler': ")
    file = tmp_path / "dask.json"
    file.write_text(json.dumps({"address": address}))
    result = bmn("search", "--scheduler-file", file, "--store", tmp_path / "s.sqlite")
    assert failed(result, 1) == f"Error: scheduler file {file}: {why}"
    file.write_text(json.dumps({"address": 8786}))
    result = bmn("search", "--scheduler-file", file, "--store", tmp_path / "s.sqlite")
    failed(result, 1, "is not a Dask scheduler file (its address is int, not text)")
    assert not (tmp_path / "s.sqlite").exists()


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="Linux's /proc")
def test_a_file_that_cannot_be_read_is_one_line(bmn, failed):
    failed(bmn("score", "/proc/self/mem"), 1, "could not read")


def test_a_file_that_cannot_be_opened_is_a_file_bmn_cannot_use(bmn, failed, tmp_path):
    """Exit 1, as the README's table gives for a file bmn cannot use (it was click's 2)."""
    missing, folder = tmp_path / "missing.txt", tmp_path
    line = failed(bmn("score", missing), 1)
    assert line == f"Error: could not read {missing}: No such file or directory"
    assert failed(bmn("score", folder), 1) == f"Error: could not read {folder}: Is a directory"


def test_a_store_deleted_during_a_search_stops_it(bmn, failed, tmp_path, monkeypatch):
    store = tmp_path / "s.sqlite"
    commit = RunLoop._commit

    def then_delete(self, on_progress):  # every chunk commits; the first then loses its file
        commit(self, on_progress)
        for path in tmp_path.iterdir():
            path.unlink()

    monkeypatch.setattr(RunLoop, "_commit", then_delete)
    monkeypatch.setattr(Job, "commit_due", lambda self, saved: True)
    result = bmn("search", "--iterations", 10**5, "--workers", 1, "--quiet", "--store", store)
    failed(result, 1, f"record store {store} was deleted or replaced while in use")
    assert result.stdout == ""  # no 'finished'


@pytest.mark.parametrize("store", ["a b.sqlite", "it's.sqlite", "x;rm -rf y", "new\nline"])
def test_the_resume_line_is_quoted_for_the_shell(store):
    assert shlex.split(resume_line(7, store)) == [
        "bmn",
        "search",
        "--resume",
        "7",
        "--store",
        store,
    ]


CHILD = """
import os, signal, sys
ready = int(sys.argv.pop(1))
real = signal.signal

def installed(signum, handler):
    global ready
    done = real(signum, handler)
    if signum == signal.SIGTERM and ready >= 0:  # the first handler only
        os.write(ready, b"ready")
        os.close(ready)
        ready = -1
    return done

signal.signal = installed
sys.argv[0] = "bmn"
from bmn.frontends.cli.entry import main
main()
"""


@pytest.mark.slow
def test_sigterm_as_soon_as_bmn_starts_says_so(tmp_path):
    """SIGTERM from the moment the console script has set its handler (before the command
    line is imported) on: exit 130 with a line, never killed silently (143)."""
    read, write = os.pipe()
    args = ["search", "--time", "1m", "--workers", "1", "--store", tmp_path / "s.sqlite"]
    command = [sys.executable, "-c", CHILD, str(write), *map(str, args)]
    child = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, pass_fds=[write])
    os.close(write)
    try:
        assert os.read(read, 16) == b"ready"
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=HANG_SECONDS)
    finally:
        os.close(read)
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 130, err
    assert "Traceback" not in err and err.strip(), err
