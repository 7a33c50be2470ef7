"""One place for the compiler flags (njit and CUDA) and the constants the compiled kernels share.

Every `njit(...)`, `cuda.jit(...)` and `overload(...)` in kernels/ and search/ takes its flags
from here (tests/kernels/test_config.py holds them to it).
"""

from __future__ import annotations

import numpy as np

# cache=True: a second run starts without recompiling; nogil: kernels can run in threads.
JIT = {"cache": True, "nogil": True, "error_model": "numpy"}
# Only for kernels that use prange.
PARALLEL_JIT = {**JIT, "parallel": True}
# Helpers inlined into their callers at numba's own level (LLVM would not inline them).
INLINE_JIT = {**JIT, "inline": "always"}
# An `overload` inlined into its callers, its implementation compiled with JIT's flags.
INLINE_OVERLOAD = {"inline": "always", "jit_options": JIT}

# CUDA device functions, inlined into the kernels that call them.
CUDA_DEVICE = {"device": True, "forceinline": True}
# The same under Numba's CUDA simulator, which takes no forceinline flag.
CUDA_SIMULATED_DEVICE = {"device": True}
# CUDA kernels, cached on disk as the njit kernels are.
CUDA_KERNEL = {"cache": True}


def kernel_array(values: object, dtype: type) -> np.ndarray:
    """`values` as a compiled kernel's argument: C-contiguous and writeable, copied only where
    needed. A read-only array (a broadcast, a buffer's view) is another type to Numba, and
    every kernel that met one would be compiled a second time."""
    return np.require(values, dtype, ["C", "W"])


def cuda_device(simulated: bool) -> dict:
    """The flags of a CUDA device function, on a GPU or under the simulator."""
    return CUDA_SIMULATED_DEVICE if simulated else CUDA_DEVICE


def cuda_kernel_variant(max_registers: int) -> dict:
    """A CUDA kernel compiled with a register cap: not cached on disk, since its cache file
    would share the name of the default kernel's."""
    return {"max_registers": max_registers}


# Seats at a table.
MIN_SEATS, MAX_SEATS = 2, 4
# Far past any real deck (52 cards; two decks 104), and low enough that the reference engine
# plays any deal of this size in seconds and within a few hundred MB: it keeps every state
# until the game repeats one, so its memory grows with tricks times cards (a 120,000-card deal
# grew past 19 GB).
MAX_DEAL_CARDS = 1_000
# The most deals, and cards in all, one library call makes or scores (10 million standard deals,
# about 0.5 GB of rows): more is a MemoryError or minutes of waiting; call again, another stream.
MAX_DEALS = 10_000_000
MAX_BATCH_CARDS = 520_000_000
# The compiled kernels' limit: one uint64 mask per hand; a hand's mask keeps a sentinel bit
# past its bottom card, so one hand holds one card fewer.
MAX_CARDS = 64
MAX_HAND = MAX_CARDS - 1

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
