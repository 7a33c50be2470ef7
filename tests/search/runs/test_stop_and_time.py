"""A run keeps its --time whatever its streams, and a stop (Ctrl-C, SIGTERM) is acted on at once,
even while the kernels compile: the run is left interrupted, resumable, and nothing printed
holds a sentinel (-1) for a best that does not exist."""

import os
import re
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bmn.frontends.cli.options import MAX_WORKERS
from bmn.records.store import Store
from bmn.search.backends.threads import ThreadBackend, default_workers
from bmn.search.runs.kinds.grow import GrowJob, GrowOptions
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.kinds.loop_hunt import LoopHuntJob, LoopHuntOptions
from bmn.search.runs.loop import RunLoop

HANG_SECONDS = 600.0  # only a hang reaches it
SENTINEL = re.compile(r"(?<![\w/.-])-1\b")  # -1 as a figure, not inside a path
PLACEHOLDER = re.compile(r"\s-(?=[\s;,]|$)", re.MULTILINE)  # a lone '-' for a missing value


def timed_run(tmp_path, name: str, workers: int, seconds: float = 1.0) -> float:
    """The seconds a timed search of `workers` streams stored for itself."""
    with Store(tmp_path / f"{name}.sqlite") as store:
        summary = RunLoop(
            store, LongestJob, LongestOptions(seconds=seconds, workers=workers, seed=3)
        ).run()
        run = store.get_run(summary.run)
    assert run.status == "finished" and run.games > 0
    return run.seconds


@pytest.mark.slow  # two timed searches of a second each
def test_many_more_streams_than_cores_keep_the_time(tmp_path):
    """Measured against a run of one stream a core: a thousand streams on two cores once ran
    a 3 s search for 18 s (each stream's first chunks sized blind, every thread fighting
    for the GIL and a core)."""
    cores = default_workers()
    few = timed_run(tmp_path, "few", cores)
    many = timed_run(tmp_path, "many", min(MAX_WORKERS, 128 * cores))
    assert many / few < 2.0, (many, few)


def test_the_threads_backend_runs_many_streams_on_a_thread_a_core():
    backend = ThreadBackend()
    cores = default_workers()
    backend.start(8 * cores, lambda: None)
    try:
        assert backend.details().startswith(f"{cores} thread")
    finally:
        backend.close()


class StopWhileWarming(LongestJob):
    """A search whose kernels 'compile' until the test lets them: a stop comes meanwhile."""

    gate = threading.Event()  # set by the test once the run has returned

    @staticmethod
    def warm(*run: object) -> None:  # a search's strategy and seats
        StopWhileWarming.job.stop.set()  # as bmn's SIGINT and SIGTERM handler does
        StopWhileWarming.gate.wait(HANG_SECONDS)


def test_a_stop_while_the_kernels_compile_ends_the_run_at_once(tmp_path):
    backend = ThreadBackend()
    StopWhileWarming.gate.clear()
    with Store(tmp_path / "s.sqlite") as store:
        job = StopWhileWarming.job = RunLoop(
            store,
            StopWhileWarming,
            LongestOptions(iterations=50_000, workers=2, seed=4),
            None,
            backend,
        )
        summary = job.run()
        assert not StopWhileWarming.gate.is_set()  # returned with the 'compile' under way
        run = store.get_run(summary.run)
        assert (summary.status, summary.games, run.status, run.games) == (
            "interrupted", 0, "interrupted", 0,
        )  # fmt: skip
        assert summary.text().endswith("best: none, nothing was searched yet")
        text = f"{summary.text()}\n{job.progress.line()}"
        assert not SENTINEL.search(text) and not PLACEHOLDER.search(text), text
        assert summary.as_dict()["best_cards"] is None
        StopWhileWarming.gate.set()  # the start ends, after the backend was closed
        for thread in threading.enumerate():
            if thread.name == "bmn-start":
                thread.join(HANG_SECONDS)
        assert backend.details().startswith("0 threads")  # it started none once closed
        resumed = RunLoop.resume(store, LongestJob, summary.run).run()
    assert (resumed.status, resumed.games) == ("finished", 50_000)


def stopped_while_warming(kind: type, store: Store, options: object):
    """A run of `kind` stopped while its kernels 'compile'; its summary (the 'compile' is let
    end once the run has returned)."""
    gate = threading.Event()

    def warm(*_bound: object) -> None:  # a kind may bind its options (its players, rules)
        job.stop.set()
        gate.wait(HANG_SECONDS)

    slow = type(f"Slow{kind.__name__}", (kind,), {"warm": staticmethod(warm)})
    job = RunLoop(store, slow, options)
    try:
        return job.run(), job.progress
    finally:
        gate.set()


@pytest.mark.parametrize(
    ("kind", "options"),
    [
        (LoopHuntJob, LoopHuntOptions(iterations=3000, workers=1, seed=11, deck="5,2,2,0,0")),
        (GrowJob, GrowOptions(iterations=1, workers=1, seed=2, grow_from="descent")),
    ],
)
def test_other_runs_stopped_while_compiling_say_so_and_resume(tmp_path, kind, options):
    with Store(tmp_path / "s.sqlite") as store:
        summary, progress = stopped_while_warming(kind, store, options)
        assert (summary.status, summary.games, store.get_run(summary.run).games) == (
            "interrupted", 0, 0,
        )  # fmt: skip
        text = f"{summary.text()}\n{progress.line()}"
        assert not SENTINEL.search(text) and not PLACEHOLDER.search(text), text
        assert "-1" not in map(str, summary.as_dict().values())
        assert "-" not in summary.as_dict().values()
        resumed = RunLoop.resume(store, kind, summary.run).run()
    assert resumed.status == "finished" and resumed.games == options.iterations


# A child `bmn` that says down a pipe when the run starts its backend (compiles its kernels).
CHILD = """
import os, sys
from bmn.search.runs.loop import RunLoop

started, pipe = RunLoop._started, int(sys.argv.pop(1))

def starting(self, *args, **kwargs):
    os.write(pipe, b"compiling")
    os.close(pipe)
    return started(self, *args, **kwargs)

RunLoop._started = starting
sys.argv[0] = "bmn"
from bmn.frontends.cli.main import main
main()
"""


def signalled_child(tmp_path: Path, child: str, signum: int) -> tuple[int, str, str, Path]:
    """Start a search in a child `bmn` (source `child`) on a cold numba cache, send it
    `signum` when it says down its pipe that it compiles, and wait for it to end:
    (exit status, stdout, stderr, its store)."""
    store = tmp_path / "s.sqlite"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    read, write = os.pipe()
    args = ["search", "--time", "1s", "--workers", "1", "--seed", "2", "--store", store]
    process = subprocess.Popen(
        [sys.executable, "-c", child, str(write), *map(str, args)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, pass_fds=[write],
    )  # fmt: skip
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], HANG_SECONDS)
        assert ready and os.read(read, 16) == b"compiling"
        process.send_signal(signum)
        out, err = process.communicate(timeout=HANG_SECONDS)
    finally:
        os.close(read)
        if process.poll() is None:
            process.kill()
        process.communicate()  # closes its pipes, whatever happened
    return process.returncode, out, err, store


def resumes_to_the_end(bmn, store: Path) -> None:
    """`bmn search --resume` (with the warm cache) finishes run 1."""
    resumed = bmn("search", "--resume", "--store", store)
    assert resumed.exit_code == 0, resumed.output
    with Store(store, create=False) as db:
        assert db.get_run(1).status == "finished" and db.get_run(1).games > 0


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_kernels_compile(tmp_path, bmn, signum):
    """A cold numba cache: the signal lands in the first compile (tens of seconds; it once
    waited for it, then printed 'best -1 cards -1 tricks')."""
    status, out, err, store = signalled_child(tmp_path, CHILD, signum)
    assert status == 130, (out, err)
    assert "(interrupted): 0 games" in out and "best: none, nothing was searched yet" in out
    assert not SENTINEL.search(out + err), (out, err)
    assert f"resume with: bmn search --resume 1 --store {store}" in err
    with Store(store, create=False) as db:
        assert (db.get_run(1).status, db.get_run(1).games) == ("interrupted", 0)
    resumes_to_the_end(bmn, store)


def test_a_signal_before_the_run_begins_stops_at_once_and_releases_the_run(tmp_path):
    """Opening a store or compiling a run's kernels is not waited out: the signal raises
    StoppedBeforeRun there and then, and the run made so far is left for --resume."""
    from bmn.search.runs.start import StoppedBeforeRun, Stopping

    store = tmp_path / "s.sqlite"
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(StoppedBeforeRun) as caught, Stopping(store), Store(store) as db:
        made = db.create_run("walk", "cards", 1, {})
        signal.raise_signal(signal.SIGTERM)
        raise AssertionError("the signal did not stop it")
    assert caught.value.run == made
    assert signal.getsignal(signal.SIGTERM) is before  # the handlers are given back
    with Store(store, create=False) as db:
        run = db.get_run(made)
        assert (run.status, run.holder) == ("interrupted", None)


def test_a_stop_before_the_run_begins_leaves_another_threads_run_alone(tmp_path):
    """In a notebook, a search in another thread holds run 1 of the same store: a signal
    that stops this thread's search before it begins releases its own run, not that one."""
    from bmn.search import search
    from bmn.search.runs.start import StoppedBeforeRun, Stopping

    store = tmp_path / "s.sqlite"
    inside, leave = threading.Event(), threading.Event()

    def held(progress):
        inside.set()
        leave.wait(HANG_SECONDS)

    done: list = []
    thread = threading.Thread(
        target=lambda: done.append(search(store, iterations=2000, seed=3, on_progress=held))
    )
    thread.start()
    try:
        assert inside.wait(HANG_SECONDS)
        with pytest.raises(StoppedBeforeRun) as caught, Stopping(store), Store(store) as db:
            made = db.create_run("walk", "cards", 1, {})
            signal.raise_signal(signal.SIGTERM)
        assert caught.value.run == made == 2
        with Store(store, create=False) as db:
            assert db.get_run(2).holder is None and db.get_run(2).status == "interrupted"
            assert db.get_run(1).holder is not None and db.get_run(1).status == "running"
    finally:
        leave.set()
        thread.join(HANG_SECONDS)
    assert done[0].status == "finished" and done[0].games == 2000


# A child `bmn` that says down a pipe when the run, just made, sets up its streams (the
# first compile of a cold cache: the kernels that deal and score its first deals).
CHILD_MAKING = """
import os, sys
from bmn.search.runs.kinds.longest import LongestJob

restore, pipe = LongestJob.restore, int(sys.argv.pop(1))

def making(self, checkpoints):
    os.write(pipe, b"compiling")
    os.close(pipe)
    return restore(self, checkpoints)

LongestJob.restore = making
sys.argv[0] = "bmn"
from bmn.frontends.cli.main import main
main()
"""


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_run_is_being_made(tmp_path, bmn, signum):
    """The signal lands while the new run compiles what sets up its streams, before the run
    begins: it acts at once (once it waited the compile out, or SIGTERM killed it silently),
    and the run made so far is released for --resume. Should the compile end before the
    signal is delivered, the run stops as interrupted instead: both say how to resume."""
    status, out, err, store = signalled_child(tmp_path, CHILD_MAKING, signum)
    assert status == 130, (out, err)
    assert "Traceback" not in err and not SENTINEL.search(out + err), (out, err)
    assert "nothing was searched yet" in out + err
    assert f"resume with: bmn search --resume 1 --store {store}" in err
    with Store(store, create=False) as db:
        run = db.get_run(1)
        assert (run.status, run.games, run.holder) == ("interrupted", 0, None)
    resumes_to_the_end(bmn, store)


def test_a_grow_run_starts_no_round_that_would_end_more_than_half_a_round_late(tmp_path):
    """A round (seconds of mostly Python) cannot be cut short; a timed grow run once started
    one with a tenth of a second left and ran a round past its time."""
    with Store(tmp_path / "g.sqlite") as store:
        job = RunLoop(store, GrowJob, GrowOptions(seconds=10, workers=1, seed=1)).job
        assert job.chunk_size(0, 0.5, 0, 0.0) == 1  # rounds of 2 s, 10 s left
        job.run.spent = 8.5  # 1.5 s left: the round would end 0.5 s late
        assert job.chunk_size(0, 0.5, 0, 0.0) == 1
        assert job.chunk_size(0, None, 0, 0.0) == 1  # no round timed yet
        job.run.spent = 9.2  # 0.8 s left: 1.2 s late
        assert job.chunk_size(0, 0.5, 0, 0.0) == 0
        job._round_seconds = 2.0  # another stream's round, for one not timed yet
        assert job.chunk_size(0, None, 0, 0.0) == 0
