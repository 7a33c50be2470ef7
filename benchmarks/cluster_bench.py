"""Measure the Dask backend against the threads backend on this machine: one command, figures.

    pip install -e '.[dask]'
    python benchmarks/cluster_bench.py [--workers 2] [--iterations 10000000] [--repeat 3]
                                       [--tiny-chunks 3000] [--tiny-streams 16]

Runs the same search (walk, one seed, the same iterations and streams) on threads of this
process and on a LocalCluster of one-thread worker processes (as `--cluster local` starts
it), in turn --repeat times (a shared machine's load changes between runs; the ratio is the
median of the runs side by side), then a run of tiny chunks on the cluster. Prints, per run:
- games/s over the run (games / seconds from the clock's start to the last commit), and the
  cluster's ratio to threads (the target is at least 0.9);
- start-up: seconds to start the local cluster and to connect to it, to warm every worker,
  and from the clock's start to the first chunk back in this process;
- chunk overhead: per chunk, the seconds a stream's thread spent outside the kernel
  ((wall seconds x streams - kernel seconds) / chunks: scheduling, transfers, the commit,
  the last chunk's imbalance), and a thread's games/s inside the kernel (on a shared machine,
  a cluster's extra processes take CPU from the kernel too);
- the driver's commit rate: chunks of 1,000 deals (a few milliseconds of work each) on the
  same cluster, with --tiny-streams streams so that chunks wait for the driver, not the
  other way round: chunks committed per second, and this process's CPU seconds per chunk
  (receiving, deserialising, committing). 1 / that is how many one-second chunks a second,
  so how many worker threads, one driver serves.
The last line is JSON with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from bmn.records.store import Store
from bmn.search.backends.base import Backend, Result, Task
from bmn.search.backends.threads import ThreadBackend
from bmn.search.runs.kinds import longest as driver
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.loop import RunLoop

SEED = 20_260_130


class Counting:
    """A backend wrapper that counts chunks and their kernel seconds, and times start()."""

    def __init__(self, backend: Backend):
        self.backend = backend
        self.name, self.where = backend.name, backend.where
        self.chunks, self.kernel_seconds, self.warm_seconds = 0, 0.0, 0.0
        self.started, self.first = 0.0, None  # the clock's start; the first chunk's return

    def default_streams(self) -> int:
        return self.backend.default_streams()

    def details(self) -> str:
        return self.backend.details()

    def start(self, streams, warm) -> None:
        began = time.monotonic()
        self.backend.start(streams, warm)
        self.started = time.monotonic()
        self.warm_seconds = self.started - began

    def submit(self, task: Task) -> None:
        self.backend.submit(task)

    def next_result(self, timeout: float) -> Result | None:
        result = self.backend.next_result(timeout)
        if result is not None:
            self.first = self.first or time.monotonic() - self.started
            self.chunks += 1
            self.kernel_seconds += result.seconds
        return result

    def cancel(self):
        return self.backend.cancel()

    def close(self) -> None:
        self.backend.close()


def timed_run(backend: Backend, workers: int, iterations: int, folder: Path) -> dict:
    """One search on `backend`; its figures."""
    counting = Counting(backend)
    threads = min(workers, backend.default_streams())  # what runs chunks at once
    options = LongestOptions(strategy="walk", iterations=iterations, workers=workers, seed=SEED)
    with Store(folder / f"{backend.name}.sqlite") as store:
        job = RunLoop(store, LongestJob, options, backend=counting)
        cpu = time.process_time()
        summary = job.run()
        cpu = time.process_time() - cpu
    clock = summary.seconds  # from the clock's start (after the warm-up) to the end
    wall = clock * threads
    return {
        "games": summary.games,
        "best_cards": summary.best_cards,
        "seconds": round(clock, 3),
        "games_per_s": round(summary.games / clock),
        "warm_seconds": round(counting.warm_seconds, 3),
        "first_chunk_seconds": round(counting.first, 3),
        "chunks": counting.chunks,
        # games per second of a thread inside the kernel: the compute itself, apart from
        # everything between chunks
        "kernel_games_per_thread_s": round(summary.games / max(counting.kernel_seconds, 1e-9)),
        "overhead_ms_per_chunk": round(
            1000 * (wall - counting.kernel_seconds) / max(counting.chunks, 1), 2
        ),
        "driver_cpu_ms_per_chunk": round(1000 * cpu / max(counting.chunks, 1), 3),
        "chunks_per_s": round(counting.chunks / clock, 1),
    }


def dask_run(address: str, workers: int, iterations: int, folder: Path) -> dict:
    """A search on the cluster at `address`, connecting a backend to it as `bmn` does."""
    from bmn.search.backends.dask_cluster import DaskBackend

    began = time.monotonic()
    backend = DaskBackend(address)
    connect = time.monotonic() - began
    return {**timed_run(backend, workers, iterations, folder), "connect_seconds": round(connect, 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="streams, and worker processes")
    parser.add_argument("--iterations", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each backend, in turn")
    parser.add_argument("--tiny-chunks", type=int, default=3000, help="chunks of the tiny run")
    parser.add_argument("--tiny-streams", type=int, default=16, help="streams of the tiny run")
    args = parser.parse_args(argv)
    from bmn.search.backends.dask_cluster import quiet_logs, start_local_cluster

    quiet_logs()
    figures: dict = {"workers": args.workers, "iterations": args.iterations, "cpus": os.cpu_count()}
    began = time.monotonic()
    local = start_local_cluster(args.workers)
    figures["cluster_start_seconds"] = round(time.monotonic() - began, 3)
    runs: dict[str, list[dict]] = {"threads": [], "dask": []}
    with local, tempfile.TemporaryDirectory() as folder:
        for turn in range(args.repeat):
            path = Path(folder) / str(turn)
            path.mkdir()
            size = args.workers, args.iterations, path
            runs["threads"].append(timed_run(ThreadBackend(), *size))
            print_row("threads", runs["threads"][-1])
            runs["dask"].append(dask_run(local.scheduler_address, *size))
            print_row("dask", runs["dask"][-1])
        ratios = [d["games_per_s"] / t["games_per_s"] for t, d in zip(*runs.values(), strict=True)]
        figures.update(runs, ratios=[round(r, 3) for r in ratios], ratio=round(median(ratios), 3))
        same = {r["best_cards"] for r in runs["threads"] + runs["dask"]}
        print(
            f"dask / threads games/s: median {figures['ratio']:.3f} of {figures['ratios']}; "
            f"the same best in every run: {len(same) == 1}",
            file=sys.stderr,
        )
        driver.CHUNK_SECONDS, driver.FIRST_CHUNK = 0.0, 1000  # every chunk 1,000 deals
        path = Path(folder) / "tiny"
        path.mkdir()
        tiny = dask_run(local.scheduler_address, args.tiny_streams, 1000 * args.tiny_chunks, path)
        figures["dask_tiny_chunks"] = tiny
        print_row(f"dask, {args.tiny_streams} streams of 1,000-deal chunks", tiny)
    print(json.dumps(figures))
    return 0


def print_row(name: str, f: dict) -> None:
    print(
        f"{name}: {f['games_per_s']:,} games/s over {f['seconds']} s, warm-up "
        f"{f['warm_seconds']} s, first chunk {f['first_chunk_seconds']} s after the clock's "
        f"start, {f['chunks']} chunks ({f['chunks_per_s']}/s), {f['overhead_ms_per_chunk']} ms "
        f"per chunk outside the kernel ({f['kernel_games_per_thread_s']:,} games/s a thread "
        f"inside it), driver CPU {f['driver_cpu_ms_per_chunk']} ms per chunk",
        file=sys.stderr,
    )


if __name__ == "__main__":
    sys.exit(main())
