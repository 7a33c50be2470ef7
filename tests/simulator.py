"""Running a test file again under Numba's CUDA simulator, in a child interpreter.

NUMBA_ENABLE_CUDASIM must be set before numba is first imported, so the CPU tests of this
process cannot share an interpreter with the simulator's: each CUDA test file has one test
that runs the file's other tests in a child with the simulator on.

The simulator runs every CUDA thread of a block as a Python thread. On two or more cores those
threads fight for the GIL across cores, and a file that takes 20 s on one core took from one to
ten minutes on two; so the child runs on one core: its pytest-xdist worker's own (gw0 the first
core, gw1 the second, ...), so that two children running at once do not share one.
"""

import os
import subprocess
import sys
from pathlib import Path

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
ROOT = Path(__file__).resolve().parent.parent


def one_core() -> None:
    """Keep this process (a child, before it runs anything) on one core it may use: the n-th
    for pytest-xdist's worker gw<n> (counting round), the first outside xdist."""
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
        index = int(worker) if worker.isdigit() else 0
        os.sched_setaffinity(0, {cores[index % len(cores)]})


def run_under_simulator(path: str, *args: str) -> None:
    """Run the test file at `path` (pytest options `args`, such as `-m slow`) in a child with the
    simulator on; every test it selects must pass."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", path, *args]
    done = subprocess.run(
        command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=900, preexec_fn=one_core
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and " skipped" not in done.stdout
