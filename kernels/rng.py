"""A small, explicit random generator for compiled code: xoshiro256** in a uint64[4] state array.

Kernels take the state array as an argument and advance it in place, so a run can be
checkpointed (save the array) and resumed exactly. Nothing here touches global state.
"""

from __future__ import annotations

import numpy as np
from numba import int64, njit, uint32, uint64

from bmn.kernels.config import JIT


@njit(**JIT)
def _rotl(x: uint64, k: int) -> uint64:
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(**JIT)
def next_u64(state: np.ndarray) -> uint64:
    """The next 64 random bits; advances `state` (uint64[4]) in place."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    result = _rotl(s1 * uint64(5), 7) * uint64(9)
    t = s1 << uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return result


@njit(**JIT)
def bounded(state: np.ndarray, n: int) -> int:
    """A uniform integer in [0, n), n < 2**32, without bias (Lemire's method)."""
    bound = uint64(n)
    m = (next_u64(state) >> uint64(32)) * bound
    low = uint32(m)
    if low < bound:
        threshold = uint32((uint64(1) << uint64(32)) - bound) % uint32(bound)
        while low < threshold:
            m = (next_u64(state) >> uint64(32)) * bound
            low = uint32(m)
    return int64(m >> uint64(32))


@njit(**JIT)
def shuffle(values: np.ndarray, state: np.ndarray) -> None:
    """Fisher-Yates shuffle of a 1-d array in place."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = bounded(state, i + 1)
        values[i], values[j] = values[j], values[i]


@njit(**JIT)
def integers(state: np.ndarray, n: int, low: int, high: int) -> np.ndarray:
    """n uniform integers in [low, high), high - low < 2**32."""
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = low + bounded(state, high - low)
    return out


def seed_state(seed: int, stream: int = 0) -> np.ndarray:
    """A fresh generator state from a seed and a stream number (one stream per worker)."""
    x = (int(seed) * 0x9E3779B97F4A7C15 + int(stream) * 0xD1B54A32D192ED03) % 2**64
    state = np.empty(4, dtype=np.uint64)
    for i in range(4):  # splitmix64, so nearby seeds give unrelated states
        x = (x + 0x9E3779B97F4A7C15) % 2**64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        state[i] = z ^ (z >> 31)
    return state
