"""Which CPU kernels play a batch or a search: the lane kernels or the scalar ones, chosen once.

Where the CPU Numba compiles for has wide vector registers, the lane kernels play eight games
a step (AVX-512: kernels/cpu/lanes.py, lanes_nseat.py) or four (AVX2's 256-bit registers);
elsewhere, or where they lose, the scalar kernels (two.py, nseat.py), which stay the exact
path and the lane kernels' check. Measured on this project's machines (docs/development.md,
"CPU kernel speed"): with AVX-512 eight lanes beat four and the scalar kernel; with AVX2 only
(the same machine compiling for Haswell) four lanes beat eight and the scalar kernel, about
1.4 times; with SSE2 alone (the x86-64 baseline) the lanes run at 0.4 of the scalar kernel.
Results are the same whichever plays.

`BMN_KERNEL` forces the choice (`lanes`, `lanes8`, `lanes4`, `scalar`; `auto` or unset: the
CPU's), as `--kernel` does on `bmn bench` and `bmn search`. The choice is made on first use
and kept for the process; `choose` gives it for any request without keeping it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

ENV = "BMN_KERNEL"
REQUESTS = ("auto", "lanes", "lanes8", "lanes4", "scalar")
LANES, SCALAR = "lanes", "scalar"


@dataclass(frozen=True)
class Choice:
    """The CPU kernels chosen: `engine` lanes or scalar, `lanes` games a step (1 for the
    scalar kernels), on `cpu` (LLVM's name for the CPU Numba compiles for) whose widest vector
    registers are `vector_bits` wide; `forced` when BMN_KERNEL or an option asked."""

    engine: str
    lanes: int
    cpu: str
    vector_bits: int
    forced: bool = False

    @property
    def uses_lanes(self) -> bool:
        return self.engine == LANES

    def words(self) -> str:
        """One line: 'lanes, 8 games a step (znver4, 512-bit vectors)'."""
        how = f"lanes, {self.lanes} games a step" if self.uses_lanes else "scalar, a game at a time"
        return f"{how} ({self.cpu}, {self.vector_bits}-bit vectors)"

    def as_dict(self) -> dict:
        return {
            "engine": self.engine,
            "lanes": self.lanes,
            "cpu": self.cpu,
            "vector_bits": self.vector_bits,
            "forced": self.forced,
        }


def target() -> tuple[str, set[str]]:
    """The CPU Numba compiles for and the features it may use: NUMBA_CPU_NAME and
    NUMBA_CPU_FEATURES where set (Numba then compiles for them), else the host's."""
    from llvmlite import binding
    from numba.core import config

    name = config.CPU_NAME or binding.get_host_cpu_name()
    if config.CPU_FEATURES is not None:
        listed = config.CPU_FEATURES.split(",")
        return name, {f[1:] for f in listed if f.startswith("+")}
    features = binding.get_host_cpu_features()
    return name, {feature for feature, on in features.items() if on}


def vector_bits(features: set[str]) -> int:
    """The widest integer vector registers `features` give: 512, 256, 128 or 0."""
    if "avx512f" in features:
        return 512
    if "avx2" in features:
        return 256
    if features & {"sse2", "neon", "altivec", "vsx", "simd128"}:
        return 128
    return 0


def choose(request: str | None = None, cpu: tuple[str, set[str]] | None = None) -> Choice:
    """The kernels for `request` (one of REQUESTS; None or 'auto': the CPU's) on `cpu` (a
    (name, features) pair; None: Numba's target). ValueError for an unknown request."""
    asked = (request or "auto").strip().lower()
    if asked not in REQUESTS:
        raise ValueError(f"unknown kernel {request!r}; choose one of: {', '.join(REQUESTS)}")
    name, features = cpu if cpu is not None else target()
    bits = vector_bits(features)
    best = {512: 8, 256: 4}.get(bits, 0)  # where the lanes win (module docstring)
    if asked == SCALAR or (asked == "auto" and not best):
        return Choice(SCALAR, 1, name, bits, forced=asked == SCALAR)
    if asked in ("lanes8", "lanes4"):
        return Choice(LANES, int(asked[-1]), name, bits, forced=True)
    return Choice(LANES, best or 4, name, bits, forced=asked == LANES)


@cache
def chosen() -> Choice:
    """The process's choice: BMN_KERNEL's request, else the CPU's; made once."""
    return choose(os.environ.get(ENV))


def force(request: str) -> Choice:
    """Make `request` the process's choice (a command's --kernel), before any kernel is
    chosen for work; ValueError for an unknown request."""
    choose(request)  # checked before anything changes
    os.environ[ENV] = request
    chosen.cache_clear()
    return chosen()


def force_kernel(request: str) -> Callable[[], None]:
    """Force `request` (`bmn --kernel`, forced before any kernel is chosen for work); the
    call that makes the choice before it the process's choice again."""
    before = os.environ.get(ENV)
    force(request)
    return lambda: restore(before)


def restore(request: str | None) -> None:
    """Make `request` (None: none, the CPU's choice) the process's choice again."""
    if request is None:
        os.environ.pop(ENV, None)
    else:
        os.environ[ENV] = request
    chosen.cache_clear()
