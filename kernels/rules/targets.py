"""One source, two targets: plain Python functions compiled for the CPU and for a GPU.

A rule written once (kernels/rules/two_tricks.py, the generator's steps in kernels/rng.py) is a
set of plain functions that call each other and a few primitives by name. `compile_for` compiles a
copy of each with one target's decorator (`njit(**INLINE_JIT)`, or `cuda.jit(**cuda_device(..))`)
in a namespace where those names mean that target's compiled functions: the copies call one
another, and each target brings its own primitives (count-trailing-zeros is an LLVM intrinsic
on the CPU and `ffs` on 32-bit halves on a GPU). Under Numba's CUDA simulator the copies run as
Python, calling the simulator's own primitives, so the simulator checks what a GPU runs.

Numba's cache checks only a compiled function's own file: after editing a shared source, clear
the `*.nb[ic]` files of the kernels that inline it.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType


def compile_for(functions: tuple[FunctionType, ...], jit: Callable, **primitives: object) -> tuple:
    """`functions` (plain, from one module) compiled by `jit`, in the order given.

    In every copy the names of `functions` mean their compiled copies, and the names of
    `primitives` mean the callables given; everything else keeps the module's meaning. A rule
    set's copies of the compiled functions are kernels/rules/copies.py's.
    """
    namespace = dict(functions[0].__globals__)
    namespace.update(primitives)
    compiled = []
    for function in functions:
        copy = FunctionType(function.__code__, namespace, function.__name__, function.__defaults__)
        copy.__qualname__ = function.__qualname__
        copy.__doc__ = function.__doc__
        copy.__module__ = function.__module__
        copy.__annotations__ = dict(function.__annotations__)
        namespace[function.__name__] = jit(copy)
        compiled.append(namespace[function.__name__])
    return tuple(compiled)
