"""A small, explicit random generator for compiled code: xoshiro256** in a uint64[4] state array.

Kernels take the state array as an argument and advance it in place, so a run can be
checkpointed (save the array) and resumed exactly. Nothing here touches global state.

The generator's steps are written once, as plain functions on a state held in four registers
(`xoshiro`, `lemire`, `fix`): this module compiles them for the CPU, and the GPU search
(search/strategies/cuda/kernels.py) compiles the same source as device functions
(kernels/rules/targets.py), so a device stream draws exactly what a CPU worker draws.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bmn.kernels.config import INLINE_JIT, JIT
from bmn.kernels.rules.targets import compile_for

_ONE = np.uint64(1)
_HALF = np.uint64(32)
_LOW = np.uint64(0xFFFFFFFF)


def rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


def xoshiro(s0, s1, s2, s3):
    """xoshiro256**: (the next 64 random bits, the next state)."""
    result = rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = rotl(s3, 45)
    return result, s0, s1, s2, s3


def lemire(n, s0, s1, s2, s3):
    """(A uniform integer in [0, n), the next state), n < 2**32, without bias (Lemire's method)."""
    bound = np.uint64(n)
    r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
    m = (r >> _HALF) * bound
    if (m & _LOW) < bound:
        threshold = ((_ONE << _HALF) - bound) % bound
        while (m & _LOW) < threshold:
            r, s0, s1, s2, s3 = xoshiro(s0, s1, s2, s3)
            m = (r >> _HALF) * bound
    return np.int64(m >> _HALF), s0, s1, s2, s3


def fix(values, i, s0, s1, s2, s3):
    """One step of a Fisher-Yates shuffle (run for i = len - 1 down to 1): position i gets a
    card drawn from positions 0..i. Returns (the card fixed at i, the next state)."""
    j, s0, s1, s2, s3 = lemire(i + 1, s0, s1, s2, s3)
    v = values[j]
    values[j] = values[i]
    values[i] = v
    return v, s0, s1, s2, s3


# In the order kernels/rules/targets.compile_for compiles them: each after the steps it calls.
STEPS = (rotl, xoshiro, lemire, fix)
_cpu_rotl, cpu_xoshiro, cpu_lemire, cpu_fix = compile_for(STEPS, njit(**INLINE_JIT))


@njit(**JIT)
def next_u64(state: np.ndarray) -> np.uint64:
    """The next 64 random bits; advances `state` (uint64[4]) in place."""
    result, s0, s1, s2, s3 = cpu_xoshiro(state[0], state[1], state[2], state[3])
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return result


@njit(**JIT)
def bounded(state: np.ndarray, n: int) -> int:
    """A uniform integer in [0, n), n < 2**32, without bias (Lemire's method)."""
    value, s0, s1, s2, s3 = cpu_lemire(n, state[0], state[1], state[2], state[3])
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return value


@njit(**JIT)
def shuffle(values: np.ndarray, state: np.ndarray) -> None:
    """Fisher-Yates shuffle of a 1-d array in place."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    for i in range(values.shape[0] - 1, 0, -1):
        _, s0, s1, s2, s3 = cpu_fix(values, i, s0, s1, s2, s3)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


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
