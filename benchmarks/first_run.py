"""What a first run costs: `bmn search` and `bmn bench` with an empty Numba cache, beside the
same commands run again on the cache the first run filled.

    python benchmarks/first_run.py [--iterations 3000000] [--workers 2] [--deals 1000000]

Each command runs in a child process whose NUMBA_CACHE_DIR is a fresh temporary folder (so
the kernels beside the sources are not used): first cold (everything compiled), then warm
(the same folder: everything loaded). Printed for each: the wall time, the time to its first
line on stderr (the display, or the log's header, off a terminal), and for the search the
seconds it searched (from its --json summary) and the rest, the start: compiling or loading
the kernels, opening the store. Cold minus warm is what compiling costs. A second pair of
runs of the same command is not a measurement of speed: on a shared machine run this when it
is idle, and compare figures of one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

BMN = [sys.executable, "-m", "bmn.frontends.cli"]


@dataclass(frozen=True)
class Timed:
    """One command's run: wall seconds, seconds to its first stderr line, its stdout."""

    wall: float
    first_line: float | None
    stdout: str


def timed(args: list[str], cache: Path) -> Timed:
    """Run `bmn ARGS` with NUMBA_CACHE_DIR=cache, stderr into a pipe (as off a terminal)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    start = time.perf_counter()
    child = subprocess.Popen(
        [*BMN, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    first: list[float] = []

    def read_stderr() -> None:
        for _ in child.stderr:
            if not first:
                first.append(time.perf_counter() - start)

    reader = threading.Thread(target=read_stderr)
    reader.start()
    out = child.stdout.read()
    child.wait()
    reader.join()
    wall = time.perf_counter() - start
    if child.returncode != 0:
        raise SystemExit(f"bmn {' '.join(args)} failed with status {child.returncode}")
    return Timed(wall, first[0] if first else None, out)


def report(name: str, cold: Timed, warm: Timed, searched: tuple[float, float] | None) -> None:
    """Two lines (cold, warm) and what compiling cost."""
    for label, run, seconds in (
        ("cold", cold, searched and searched[0]),
        ("warm", warm, searched and searched[1]),
    ):
        first = "-" if run.first_line is None else f"{run.first_line:.1f} s"
        line = f"{name:<7} {label}: {run.wall:6.1f} s in all, first stderr line at {first}"
        if seconds is not None:
            line += f", searching {seconds:.1f} s, starting {run.wall - seconds:.1f} s"
        print(line)
    print(f"{name:<7} compiling: about {cold.wall - warm.wall:.1f} s (cold - warm)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=3_000_000, help="deals the search scores")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--deals", type=int, default=1_000_000, help="deals bmn bench times")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        search = ["search", "--iterations", str(args.iterations), "--workers", str(args.workers)]
        search += ["--seed", "1", "--json"]
        runs = [
            timed([*search, "--store", str(root / f"{n}.sqlite")], root / "search-cache")
            for n in "ab"
        ]
        searched = tuple(json.loads(run.stdout)["seconds"] for run in runs)
        report("search", *runs, searched)
        bench = ["bench", "--deals", str(args.deals), "--threads", str(args.workers)]
        report(
            "bench", timed(bench, root / "bench-cache"), timed(bench, root / "bench-cache"), None
        )


if __name__ == "__main__":
    main()
