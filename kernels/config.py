"""One place for njit flags and the constants the compiled kernels share."""

from __future__ import annotations

# cache=True: a second run starts without recompiling; nogil: kernels can run in threads.
JIT = {"cache": True, "nogil": True, "error_model": "numpy"}
# Only for kernels that use prange.
PARALLEL_JIT = {**JIT, "parallel": True}

# Status codes in result arrays, matching the reference engine's status strings.
FINISHED, LOOP, LIMIT = 0, 1, 2
STATUS_NAMES = ("finished", "loop", "limit")
STATUS_CODES = {name: code for code, name in enumerate(STATUS_NAMES)}

# A fast path's code for a game stopped at its card cap without a finish (otherwise the code
# is the winning seat): the caller replays it with exact loop detection.
UNDECIDED = -1

# The fast paths' card cap. Random deals average about 255 cards and the longest known
# finishing game has 8,344: past this many cards a game is replayed with exact loop detection.
FAST_CAP = 20_000
