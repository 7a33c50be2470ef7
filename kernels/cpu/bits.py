"""Bit counts on uint64 masks for the CPU kernels: LLVM's intrinsics, one instruction each.

The CPU kernels bring these to the shared trick rules (kernels/rules/two_tricks.py); the GPU kernel
brings its own (kernels/cuda/two.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from bmn.kernels.config import INLINE_JIT

_TOP = np.uint64(63)


@njit(**INLINE_JIT)
def ctz(x: np.uint64) -> int:
    """Trailing zeros of a non-zero uint64."""
    return np.int64(trailing_zeros(x))


@njit(**INLINE_JIT)
def top_bit(x: np.uint64) -> int:
    """Position of the highest set bit of a non-zero uint64 (a hand's length: its sentinel)."""
    return np.int64(_TOP - leading_zeros(x))
