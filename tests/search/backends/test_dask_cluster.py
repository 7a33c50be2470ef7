"""The Dask backend on real clusters on 127.0.0.1: a LocalCluster of two one-thread worker
processes, and `dask scheduler` / `dask worker` processes. A run on a cluster finds what the
same run finds on threads, however its workers die or its cluster goes away."""

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import distributed
import pytest
from children import HANG_SECONDS, wait_until

from bmn.records.store import Store
from bmn.search.backends import dask_cluster as dask_backend
from bmn.search.backends.base import BackendError, Task
from bmn.search.backends.dask_cluster import ANCHOR_EVERY, DaskBackend, VersionMismatch, run_chunk
from bmn.search.backends.threads import ThreadBackend
from bmn.search.runs.kinds import longest as driver
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions, search_chunk
from bmn.search.runs.loop import RunLoop

OPTIONS = dict(strategy="walk", iterations=1_000_000, workers=2, seed=7, keep_above=1500)
KEYS = ("best_deal", "best_cards", "best_tricks", "games", "status")
DASK = str(Path(sys.executable).parent / "dask")


def outcome(store: Store, summary) -> tuple[list, set]:
    """What must not depend on where a run ran: its summary and every find it stored."""
    finds = {(f.deal, f.cards, f.tricks, f.status) for f in store.run_finds(summary.run)}
    assert store.get_run(summary.run).games == summary.games
    return [getattr(summary, k) for k in KEYS], finds


def search(path: Path, backend, on_progress=lambda p: None, **changes):
    """A new search into its own store; (its outcome, the run as stored)."""
    with Store(path) as store:
        job = RunLoop(store, LongestJob, LongestOptions(**{**OPTIONS, **changes}), backend=backend)
        summary = job.run(on_progress)
        return outcome(store, summary), store.get_run(summary.run)


@pytest.fixture(scope="module")
def threads_run(tmp_path_factory):
    return search(tmp_path_factory.mktemp("threads") / "t.sqlite", ThreadBackend())[0]


@pytest.fixture(scope="module")
def cluster():
    """Two single-thread worker processes, each under a nanny that restarts it if killed."""
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=40,
    ) as cluster:
        yield cluster


@pytest.fixture
def backend(cluster):
    """A backend on the module's cluster, with both workers up."""
    backend = DaskBackend(cluster.scheduler_address)
    backend.client.wait_for_workers(2, timeout=HANG_SECONDS)
    yield backend
    backend.close()


def tasks(client) -> int:
    """How many tasks the scheduler holds."""
    return client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))


@pytest.mark.slow
def test_a_local_cluster_gives_the_threads_run(tmp_path, monkeypatch, backend, threads_run):
    """Hundreds of chunks, chained on their predecessors' futures and anchored every
    ANCHOR_EVERY: the same finds and best deal, and the scheduler holds a few tasks per
    stream, not the run's history."""
    fixed = 5000  # chunks of a size that does not depend on the machine's speed: 200 of them
    monkeypatch.setattr(driver, "chunk_size", lambda rate, left, *rest: min(fixed, left))
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)  # a commit, and a look, per chunk
    client, held = backend.client, []
    found, run = search(tmp_path / "d.sqlite", backend, lambda p: held.append(tasks(client)))
    assert found == threads_run
    assert run.backend == f"dask {backend.address}"
    assert len(held) >= OPTIONS["iterations"] // fixed and max(held) <= 2 * (ANCHOR_EVERY + 2)


@pytest.mark.slow
def test_a_three_player_run_on_a_cluster_gives_the_threads_run(tmp_path, backend):
    """The chunk function takes the run's seat count along: nothing else to send."""
    changes = dict(players=3, iterations=200_000)
    on_threads = search(tmp_path / "t3.sqlite", ThreadBackend(), **changes)[0]
    found, run = search(tmp_path / "d3.sqlite", backend, **changes)
    assert found == on_threads and run.seats == 3
    assert all(len(deal.split("/")) == 3 for deal, *_ in found[1])


@pytest.mark.slow
@pytest.mark.parametrize("seats, deck", [(3, "6,3,0,0,0"), (4, "mixed")])
def test_a_loop_hunt_of_more_seats_on_a_cluster_gives_the_threads_run(
    tmp_path, backend, seats, deck
):
    """A 3- or 4-seat loop hunt's chunks on the cluster's workers: the same cycles, seen as
    often, as on threads; every cycle's deal loops in the reference engine."""
    from bmn.kernels import reference
    from bmn.kernels.deal import parse_deal
    from bmn.search.runs.kinds.loop_hunt import LoopHuntJob, LoopHuntOptions

    options = LoopHuntOptions(iterations=200_000, workers=1, seed=2, deck=deck, players=seats)
    found = []
    for name, on in (("t", ThreadBackend()), ("d", backend)):
        with Store(tmp_path / f"{name}.sqlite") as store:
            summary = RunLoop(store, LoopHuntJob, options, backend=on).run()
            loops = {(r.key, r.times_seen, r.example_deal) for r in store.loops()}
            found.append((summary.loops, summary.cycles, loops, store.get_run(summary.run).seats))
    assert found[0] == found[1] and found[0][1] > 0 and found[0][3] == seats
    for _, _, deal in found[0][2]:
        assert reference.play(parse_deal(deal)).status == "loop"


@pytest.mark.slow
def test_a_worker_killed_mid_run_changes_nothing(tmp_path, monkeypatch, backend, threads_run):
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)  # the first progress: the first chunk
    pids = backend.client.run(os.getpid)
    killed = []

    def kill_one(progress):
        if not killed:  # the first chunks are in; the next ones run on both workers
            os.kill(min(pids.values()), signal.SIGKILL)
            killed.append(progress.games)

    found, _ = search(tmp_path / "k.sqlite", backend, kill_one)
    assert found == threads_run
    assert 0 < killed[0] < OPTIONS["iterations"] / 2
    restarted = DaskBackend(backend.address)
    try:
        restarted.client.wait_for_workers(2, timeout=HANG_SECONDS)  # the nanny started a new one
        assert min(pids.values()) not in restarted.client.run(os.getpid).values()
    finally:
        restarted.close()


@pytest.mark.slow
def test_stopped_on_a_cluster_and_resumed_on_threads(tmp_path, monkeypatch, backend, threads_run):
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)  # stopped at the first chunk
    with Store(tmp_path / "r.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**OPTIONS), backend=backend)
        first = job.run(lambda progress: job.stop.set())
        assert first.status == "interrupted" and 0 < first.games < OPTIONS["iterations"]
        assert "2 workers, 2 threads" in job.progress.backend
        resumed = RunLoop.resume(store, LongestJob, first.run, backend=ThreadBackend()).run()
        assert outcome(store, resumed) == threads_run
        assert store.get_run(first.run).backend == "threads"


@pytest.mark.slow
def test_a_cluster_running_another_bmn_is_refused(tmp_path, cluster, monkeypatch):
    installed = re.escape(dask_backend.bmn_version())  # what the workers run
    monkeypatch.setattr(dask_backend, "bmn_version", lambda: "0.0.1")
    with pytest.raises(BackendError, match=rf"runs bmn {installed}, this is bmn 0\.0\.1"):
        DaskBackend(cluster.scheduler_address)


def test_a_scheduler_without_workers_is_refused(monkeypatch):
    monkeypatch.setattr(dask_backend, "WORKERS_SECONDS", 0.5)
    empty = distributed.LocalCluster(n_workers=0, host="127.0.0.1", dashboard_address="127.0.0.1:0")
    with empty, pytest.raises(BackendError, match="no Dask worker joined the scheduler at tcp"):
        DaskBackend(empty.scheduler_address)


@pytest.mark.slow
def test_a_cluster_left_without_workers_stops_the_run_for_threads_to_resume(
    tmp_path, monkeypatch, threads_run
):
    """The last worker leaves and none comes back: after NO_WORKERS_SECONDS the run says so in
    one line and stops as interrupted, and threads finish it as if nothing had happened."""
    monkeypatch.setattr(dask_backend, "NO_WORKERS_SECONDS", 1.0)
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)  # the first progress: the first chunk
    lonely = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", host="127.0.0.1",
        dashboard_address="127.0.0.1:0", silence_logs=40,
    )  # fmt: skip
    with lonely, Store(tmp_path / "w.sqlite") as store:
        backend = DaskBackend(lonely.scheduler_address)
        job = RunLoop(store, LongestJob, LongestOptions(**OPTIONS), backend=backend)
        left = []

        def leave(progress):  # and wait until it has left: no chunk runs after this one
            if not left:
                left.append(progress.games)
                lonely.scale(0)
                wait_until(lambda: not backend.client.nthreads(), "worker leaving")

        try:
            with pytest.raises(BackendError, match="has had no worker for 1 s"):
                job.run(leave)
        finally:
            backend.close()
        run = store.get_run(job.run_id)
        assert run.status == "interrupted" and left[0] <= run.games < OPTIONS["iterations"]
        resumed = RunLoop.resume(store, LongestJob, job.run_id, backend=ThreadBackend()).run()
        assert outcome(store, resumed) == threads_run


@pytest.mark.slow
def test_a_worker_that_joins_running_another_bmn_stops_the_run(tmp_path, backend):
    """Every chunk checks the worker's bmn: the run stops with one line, interrupted."""
    backend.version = "0.0.2"  # as if the workers had changed since the connection
    with Store(tmp_path / "v.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**OPTIONS), backend=backend)
        installed = re.escape(dask_backend.bmn_version())
        with pytest.raises(BackendError, match=rf"runs bmn {installed}, this search bmn 0\.0\.2"):
            job.run()
        assert store.get_run(job.run_id).status == "interrupted"
    with pytest.raises(VersionMismatch):
        run_chunk(Task(search_chunk, 0, 0, None, None, 1), None, "0.0.2")


@pytest.mark.slow
def test_a_run_whose_scheduler_dies_checkpoints_and_resumes_on_threads(
    tmp_path, bmn, search_child, threads_run
):
    """Real `dask scheduler` and `dask worker` processes and a real `bmn search`: the
    scheduler killed by the search itself at its first commit (children.py), while most of
    the run is still to come, then `--resume` on threads ends as the uninterrupted run."""
    file, store = tmp_path / "scheduler.json", tmp_path / "lost.sqlite"
    local = ["--host", "127.0.0.1", "--no-dashboard"]
    scheduler = subprocess.Popen(
        [DASK, "scheduler", "--port", "0", "--scheduler-file", file, *local],
        stderr=subprocess.DEVNULL,
    )
    workers = subprocess.Popen(
        [DASK, "worker", "--scheduler-file", file, "--nworkers", "1", "--nthreads", "1", *local],
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        address = scheduler_address(file)
        with distributed.Client(address, set_as_default=False) as client:
            client.wait_for_workers(1, timeout=HANG_SECONDS)  # bmn would wait WORKERS_SECONDS
        args = ["search", "--iterations", OPTIONS["iterations"], "--seed", OPTIONS["seed"]]
        args += ["--workers", 2, "--keep-above", OPTIONS["keep_above"], "--store", store]
        search = search_child([*args, "--quiet", "--scheduler", address], f"kill {scheduler.pid}")
        search.committed()  # and the scheduler killed
        out, err = search.communicate()
    finally:
        scheduler.kill()
        os.killpg(workers.pid, signal.SIGTERM)  # the workers and their nannies
        scheduler.wait(timeout=HANG_SECONDS)
        workers.wait(timeout=HANG_SECONDS)
    assert search.returncode == 1 and out == ""
    *warnings, last = err.splitlines()  # warnings (--keep-above keeps many), then one line
    assert all(line.startswith("warning: ") for line in warnings)
    assert last.startswith(f"Error: lost the Dask scheduler at {address}; run 1 is checkpointed")
    assert last.endswith(f"resume with: bmn search --resume 1 --store {store}")
    with Store(store) as db:
        run = db.get_run(1)
        assert (run.status, run.backend) == ("interrupted", f"dask {address}")
        assert 0 < run.games < OPTIONS["iterations"]
    resumed = bmn("search", "--resume", "--store", store, "--quiet", "--json")
    assert resumed.exit_code == 0, resumed.output
    with Store(store) as db:
        summary = json.loads(resumed.stdout)
        finds = {(f.deal, f.cards, f.tricks, f.status) for f in db.run_finds(1)}
        assert ([summary[k] for k in KEYS], finds) == threads_run
    assert "threads" in bmn("records", "runs", "--store", store).stdout


def scheduler_address(file: Path) -> str:
    """The address in a scheduler file, once the scheduler has written it."""
    address = []

    def written() -> bool:
        with contextlib.suppress(OSError, ValueError):
            address.append(json.loads(file.read_text())["address"])
        return bool(address)

    wait_until(written, f"scheduler file at {file}")
    return address[0]


@pytest.mark.slow
def test_cluster_local_from_the_command_line(tmp_path, bmn):
    """--cluster local (chosen over a scheduler named only by the environment): one worker
    process, the run's default streams its one thread, the same run as on one thread."""
    store = tmp_path / "local.sqlite"
    args = ["--iterations", 60_000, "--seed", 3, "--store", store, "--quiet", "--json"]
    env = {"DASK_SCHEDULER_ADDRESS": "tcp://127.0.0.1:9"}
    local = bmn("search", "--cluster", "local", "--workers", 1, *args, env=env)
    assert local.exit_code == 0, local.output
    threads = bmn("search", "--workers", 1, *args)
    drop = ("run", "seconds", "odds")  # the odds count waits at the run's own rate
    assert {k: v for k, v in json.loads(local.stdout).items() if k not in drop} == {
        k: v for k, v in json.loads(threads.stdout).items() if k not in drop
    }
    runs = bmn("records", "runs", "--store", store, "--json")
    assert [run["backend"] for run in json.loads(runs.stdout)] == ["dask local", "threads"]
    assert "dask local" in bmn("records", "runs", "--store", store).stdout


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line_and_exit_1(tmp_path, bmn):
    store = tmp_path / "none.sqlite"
    result = bmn("search", "--store", store, env={"DASK_SCHEDULER_ADDRESS": "tcp://127.0.0.1:9"})
    assert result.exit_code == 1 and result.stdout == "" and result.stderr.count("\n") == 1
    assert result.stderr.startswith("Error: cannot reach a Dask scheduler at tcp://127.0.0.1:9: ")
    # nothing listens there: refused at once, said so, not taken for a time-out
    assert "connection refused" in result.stderr and "Timed out" not in result.stderr
    assert not store.exists()  # nothing was written
    missing = bmn("search", "--scheduler-file", tmp_path / "none.json")
    assert missing.exit_code == 1 and "no scheduler file at" in missing.stderr


@pytest.mark.parametrize(
    "args, message",
    [
        (["--scheduler", "http://host:8787/status"], "is a dashboard link"),
        (["--scheduler", "tcp://host:8786/x"], "is not a scheduler address"),
        (["--scheduler", "tcp://host:8786", "--cluster", "local"], "name two clusters"),
        (["--scheduler-file", "s.json", "--cluster", "local"], "name two clusters"),
        (["--device", "cuda", "--cluster", "local"], "--cluster runs on a Dask cluster;"),
        (["--objective", "grow", "--scheduler", "tcp://h:1"], "; a grow run runs on this"),
    ],
)
def test_bad_cluster_options_are_usage_errors(bmn, args, message):
    result = bmn("search", *args)
    assert result.exit_code == 2 and message in result.stderr


def test_without_dask_one_line_says_what_to_install(bmn, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    monkeypatch.delitem(sys.modules, "bmn.search.backends.dask_cluster")
    result = bmn("search", "--cluster", "local")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: the Dask backend needs Dask distributed: pip install 'bmn[dask]'\n"
    )


def test_a_warm_up_is_named_for_what_it_compiles():
    """A search's warm-up binds its strategy and seats: each its own plugin on the workers,
    named the same in every process."""
    import functools

    walk = dask_backend.plugin_name(functools.partial(driver.warm_search, "walk", 2))
    assert walk == "bmn-warm-bmn.search.runs.kinds.longest.warm_search('walk', 2)"
    assert (
        dask_backend.plugin_name(driver.warm_search)
        == "bmn-warm-bmn.search.runs.kinds.longest.warm_search"
    )
