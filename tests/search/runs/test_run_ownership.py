"""One owner per run, end to end: a search holds its run while it runs (other processes are
refused, naming it), keeps its heartbeat fresh, releases the run when it ends, and a holder
killed outright is recognised; plain --resume takes the latest unfinished run; reading
commands and --resume never create a store."""

import json
import signal
import socket
import sqlite3
import subprocess
import sys

import pytest
from children import HANG_SECONDS, wait_until

from bmn.records.store import Store, holder_name
from bmn.search.backends.registry import get_backend
from bmn.search.runs import loop
from bmn.search.runs.kinds import longest as driver
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.loop import RunLoop

HOST = socket.gethostname()


def bmn_run(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "bmn.frontends.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG_SECONDS,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def holder_of(path, run_id: int) -> str | None:
    """The run's holder as stored (read with sqlite3 itself: no bmn code in between)."""
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT holder FROM runs WHERE id = ?", (run_id,)).fetchone()
    return None if row is None else row[0]


def runs_listed(path) -> list[dict]:
    done = bmn_run("records", "runs", "--json", "--store", str(path))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# Two billion deals on one thread: hours of search, so these runs end only when signalled.
LONG = ["search", "--iterations", "2000000000", "--workers", "1", "--seed", "3", "--quiet"]


@pytest.mark.slow
def test_a_run_has_one_owner_and_a_killed_owner_is_taken_over(tmp_path, search_child):
    driver.warm_search()  # compiled here, into the cache the processes below load from
    path = tmp_path / "owned.sqlite"
    first = search_child([*LONG, "--store", path])
    first.committed()
    owner = f"{HOST}:{first.pid}"
    assert holder_of(path, 1) == owner
    refused = bmn_run("search", "--resume", "1", "--store", str(path))
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [refused.stderr.strip()]  # one line
    assert f"run 1 is being searched by {owner}" in refused.stderr
    plain = bmn_run("search", "--resume", "--store", str(path))  # held: busy, not bad input
    assert plain.returncode == 1 and f"run 1 is being searched now, by {owner}" in plain.stderr
    assert runs_listed(path)[0]["status"] == "running"
    first.process.send_signal(signal.SIGKILL)
    first.communicate()
    assert first.returncode == -signal.SIGKILL
    killed = runs_listed(path)[0]
    assert killed["status"] == "interrupted" and killed["games"] > 0

    second = search_child(["search", "--resume", "--json", "--quiet", "--store", path])
    second.committed()  # a chunk past where the first left off
    assert holder_of(path, 1) == f"{HOST}:{second.pid}"
    assert runs_listed(path)[0]["games"] > killed["games"]
    assert runs_listed(path)[0]["status"] == "running"
    second.process.send_signal(signal.SIGTERM)
    out, err = second.communicate()
    assert second.returncode == 130, err
    summary = json.loads(out)
    assert (summary["run"], summary["status"]) == (1, "interrupted")
    assert summary["games"] > killed["games"]
    assert holder_of(path, 1) is None  # released on the way out
    assert runs_listed(path)[0]["status"] == "interrupted"


OPTIONS = dict(strategy="walk", iterations=60_000, workers=2, seed=7, keep_above=2500)


def test_a_run_is_held_while_it_runs_and_released_after(tmp_path):
    with Store(tmp_path / "r.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**OPTIONS))
        holders = []
        summary = job.run(lambda p: holders.append(store.get_run(job.run_id).holder))
        assert holders and set(holders) == {holder_name()}
        after = store.get_run(summary.run)
        assert (after.status, after.holder, after.heartbeat_at) == ("finished", None, None)


def test_a_run_whose_chunk_failed_is_released_and_reads_interrupted(tmp_path, monkeypatch):
    def broken(*args):
        raise RuntimeError("a chunk failed")

    monkeypatch.setattr(LongestJob, "work", staticmethod(broken))
    with Store(tmp_path / "r.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**OPTIONS))
        with pytest.raises(RuntimeError, match="a chunk failed"):
            job.run()
        after = store.get_run(job.run_id)
        assert (after.status, after.holder) == ("interrupted", None)
        assert store.latest_unfinished_run().id == job.run_id


class SlowStart:
    """The threads backend, starting as slowly as a first compile: it starts only once another
    connection has seen the run's heartbeat change `beats` times (while the main thread waits
    here, every beat is the heartbeat thread's)."""

    name = "slow"

    def __init__(self, path, beats: int):
        self.backend, self.path, self.beats, self.seen = get_backend(), path, beats, set()

    def start(self, streams, warm):
        with Store(self.path, create=False) as other:  # as another process sees the run
            (run,) = other.runs()

            def beaten() -> bool:
                self.seen.add(other.get_run(run.id).heartbeat_at)
                return len(self.seen) > self.beats  # the first was the run's own, at its start

            wait_until(beaten, "heartbeat")
        self.backend.start(streams, warm)

    def __getattr__(self, name):
        return getattr(self.backend, name)


def test_the_heartbeat_is_kept_while_the_kernels_compile(tmp_path, monkeypatch):
    monkeypatch.setattr(loop, "HEARTBEAT_SECONDS", 0.05)
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        slow = SlowStart(path, beats=5)
        job = RunLoop(store, LongestJob, LongestOptions(**OPTIONS), backend=slow)
        assert job.run().status == "finished"
    assert len(slow.seen) > 5


def test_the_main_loop_beats_when_nothing_is_committed(tmp_path, monkeypatch):
    monkeypatch.setattr(loop, "HEARTBEAT_SECONDS", 0.0)
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 3600.0)  # no commit before the end
    with Store(tmp_path / "r.sqlite") as store:
        beats = []
        original = store.heartbeat
        monkeypatch.setattr(store, "heartbeat", lambda *a: beats.append(a) or original(*a))
        job = RunLoop(store, LongestJob, LongestOptions(**{**OPTIONS, "iterations": 400_000}))
        job.run()
        assert len(beats) > 2 and {b[1] for b in beats} == {holder_name()}


def stop_at_first_commit(store, **changes) -> int:
    job = RunLoop(store, LongestJob, LongestOptions(**{**OPTIONS, **changes}))
    job.run(lambda p: job.stop.set())
    assert store.get_run(job.run_id).status == "interrupted"
    return job.run_id


def test_plain_resume_takes_the_latest_unfinished_run(bmn, failed, tmp_path, monkeypatch):
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)
    monkeypatch.setattr(driver, "FIRST_CHUNK", 2000)  # small chunks: the stop lands mid-run
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.01)
    path = tmp_path / "r.sqlite"
    with Store(path) as store:
        first = stop_at_first_commit(store, seed=1)
        done = RunLoop(store, LongestJob, LongestOptions(**{**OPTIONS, "seed": 2})).run()
        assert done.status == "finished"
    result = bmn("search", "--resume", "--json", "--quiet", "--store", path)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["run"], summary["status"], summary["games"]) == (first, "finished", 60_000)
    # Asking for a run the store does not have is bad input, like `--resume 7` (exit 2).
    failed(
        bmn("search", "--resume", "--store", path),
        2,
        f"nothing to resume in {path}: every run in it finished (the latest is run 2);"
        " start a new search without --resume",
    )


def test_plain_resume_in_a_store_without_runs(bmn, failed, tmp_path):
    path = tmp_path / "empty.sqlite"
    Store(path).close()
    failed(bmn("search", "--resume", "--store", path), 2, f"nothing to resume in {path}: no runs")


READING = [
    ["records", "top"],
    ["records", "runs"],
    ["records", "loops"],
    ["records", "export"],
    ["records", "compare"],
    ["records", "plot", "-o", "{dir}/p.png"],
    ["records", "show", "-J/Q-"],
    ["search", "--resume"],
    ["search", "--resume", "3"],
]


@pytest.mark.parametrize("command", READING, ids=lambda c: " ".join(c[:3]))
def test_reading_commands_and_resume_never_create_a_store(bmn, tmp_path, command):
    typo = tmp_path / "nigth.sqlite"
    args = [arg.replace("{dir}", str(tmp_path)) for arg in command]
    result = bmn(*args, "--store", typo)
    assert not typo.exists() and not list(tmp_path.glob("nigth*"))
    assert "Traceback" not in result.output
    if command[1] != "show":  # show may still replay the deal without a store
        assert result.exit_code == 1
        assert f"no record store at {typo}" in result.stderr
