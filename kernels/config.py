"""One place for njit flags and the constants the compiled kernels share."""

from __future__ import annotations

# cache=True: a second run starts without recompiling; nogil: kernels can run in threads.
JIT = {"cache": True, "nogil": True, "error_model": "numpy"}
# Only for kernels that use prange.
PARALLEL_JIT = {**JIT, "parallel": True}

# Status codes in result arrays, matching the reference engine's status strings.
FINISHED, LOOP, LIMIT = 0, 1, 2
STATUS_NAMES = ("finished", "loop", "limit")
# A fast path's code for a game stopped at its card cap without a finish (replay it exactly).
UNDECIDED = -1
