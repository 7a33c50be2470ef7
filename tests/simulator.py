"""Running a test file again under Numba's CUDA simulator, in a child interpreter.

NUMBA_ENABLE_CUDASIM must be set before numba is first imported, so the CPU tests of this
process cannot share an interpreter with the simulator's: each CUDA test file has one test
that runs the file's other tests in a child with the simulator on.
"""

import os
import subprocess
import sys
from pathlib import Path

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
ROOT = Path(__file__).resolve().parent.parent


def run_under_simulator(path: str) -> None:
    """Run the test file at `path` in a child with the simulator on; every test must pass."""
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", path]
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert " passed" in done.stdout and " skipped" not in done.stdout
