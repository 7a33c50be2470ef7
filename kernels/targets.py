"""One source, two targets: plain Python functions compiled for the CPU and for a GPU.

A rule written once (kernels/two_tricks.py, the generator's steps in kernels/rng.py) is a set of
plain functions that call each other and a few primitives by name. `compile_for` compiles a
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

from numba import njit

from bmn.kernels.config import INLINE_JIT, JIT, PARALLEL_JIT


def compile_for(
    functions: tuple[FunctionType, ...], jit: Callable, tag: str = "", **primitives: object
) -> tuple:
    """`functions` (plain, from one module) compiled by `jit`, in the order given.

    In every copy the names of `functions` mean their compiled copies, and the names of
    `primitives` mean the callables (or a rule set's constants) given; everything else keeps
    the module's meaning. A `tag` goes into the copies' names (see `specialise`).
    """
    namespace = dict(functions[0].__globals__)
    namespace.update(primitives)
    compiled = []
    for function in functions:
        copy = FunctionType(function.__code__, namespace, function.__name__, function.__defaults__)
        copy.__qualname__ = f"{function.__qualname__}__{tag}" if tag else function.__qualname__
        copy.__doc__ = function.__doc__
        copy.__module__ = function.__module__
        copy.__annotations__ = dict(function.__annotations__)
        namespace[function.__name__] = jit(copy)
        compiled.append(namespace[function.__name__])
    return tuple(compiled)


def specialise(
    functions: tuple, tag: str, jit: Callable | None = None, **constants: object
) -> dict[str, Callable]:
    """Copies of njit `functions` (dispatchers, callees first) compiled with `constants` as globals.

    A rule set reaches the compiled kernels this way (kernels/variants.py): each copy sees the
    rule's flags as frozen constants, so a branch on a flag folds away when compiling, and the
    copies call one another. A copy's qualified name carries `tag`, so that Numba's on-disk cache
    keeps it apart from the original (the cache keys a function by file and name, not globals).
    The namespace is the functions' modules' globals merged, the names of `functions` meaning
    the copies; returns {name: copy}. `jit(dispatcher)` gives the decorator each copy is
    compiled with (CUDA's); by default njit with the original's flags.
    """
    namespace: dict = {}
    for function in functions:
        namespace.update(function.py_func.__globals__)
    namespace.update(constants)
    copies = {}
    for function in functions:
        plain = function.py_func
        copy = FunctionType(plain.__code__, namespace, plain.__name__, plain.__defaults__)
        copy.__qualname__ = f"{plain.__qualname__}__{tag}"
        copy.__doc__ = plain.__doc__
        copy.__module__ = plain.__module__
        decorator = _njit_like(function) if jit is None else jit(function)
        jitted = decorator(copy)
        namespace[plain.__name__] = copies[plain.__name__] = jitted
    return copies


def _njit_like(function: Callable) -> Callable:
    """njit with the config flags (kernels/config.py) a dispatcher was compiled with."""
    options = function.targetoptions
    if options.get("parallel"):
        return njit(**PARALLEL_JIT)
    if options.get("inline") == "always":
        return njit(**INLINE_JIT)
    return njit(**JIT)
