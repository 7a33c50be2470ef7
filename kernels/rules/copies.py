"""A rule set's copies of the compiled kernels: which functions, their names, one cache a module.

A rule set reaches compiled code as a few module constants, its flags (kernels/rules/flags.py):
AT_ONCE, ASKED and TRICKS in kernels/rules/two_tricks.py, NEXT_PAYS in kernels/cpu/nseat_table.py,
each bmn's value in its module. A `RuleCopy` is one set of flags' copies. Asked for a compiled
function, it reads the code: the globals the function loads (its nested code's too), resolved
in its module. A function that loads a flag, or calls a compiled function that does, is copied
and compiled with the flags as globals, its callees' copies in place of theirs; any other
function is itself. So no list says which functions reach a rule, and none can be left off.
A copy's qualified name carries the flags' tag: Numba's on-disk cache keys a function by file,
name and bytecode, not by its globals, and would otherwise give a copy bmn's compiled code.

A `RuleCopies` is one kernel module's copies by rule set: the module itself where a rule set's
flags are bmn's, a copy made on first use (and kept) for other flags, None for a rule set the
module's flags say it cannot play. `kernels.score.kernel_for` is the door to them.

What the reading cannot see, tests/kernels/test_rule_copies.py forbids: a flag or a compiled
function reached through a module's attribute (`table._trick`) rather than a global name.
"""

from __future__ import annotations

import dis
import sys
from collections.abc import Callable, Hashable
from types import CodeType, FunctionType, ModuleType
from typing import Any, Generic, TypeVar

from numba import njit

from bmn.kernels.config import INLINE_JIT, JIT, PARALLEL_JIT
from bmn.kernels.rules.flags import flags_tag
from bmn.kernels.rules.sets import RuleSet, rule_set

# A rule set's flags: (constant name, value) pairs, sorted (kernels/rules/flags.py).
Flags = tuple[tuple[str, object], ...]
# The decorator a copy of a compiled function is compiled with, given the function.
Jit = Callable[[Any], Callable[[FunctionType], Any]]
T = TypeVar("T")


def is_compiled(value: object) -> bool:
    """Whether `value` is a compiled function: njit's or CUDA's (the simulator's too)."""
    return isinstance(getattr(value, "py_func", None), FunctionType)


def loaded(code: CodeType) -> set[str]:
    """The global names `code` loads, its nested code objects' included."""
    names = {op.argval for op in dis.get_instructions(code) if op.opname == "LOAD_GLOBAL"}
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            names |= loaded(constant)
    return names


def callees(function: Any) -> dict[str, Any]:
    """The compiled functions that compiled `function` calls by a global name, by that name."""
    plain = function.py_func
    found = {name: plain.__globals__.get(name) for name in sorted(loaded(plain.__code__))}
    return {name: value for name, value in found.items() if is_compiled(value)}


def njit_like(function: Any) -> Callable[[FunctionType], Any]:
    """njit with the config flags (kernels/config.py) a dispatcher was compiled with."""
    options = function.targetoptions
    if options.get("parallel"):
        return njit(**PARALLEL_JIT)
    if options.get("inline") == "always":
        return njit(**INLINE_JIT)
    return njit(**JIT)


class RuleCopy:
    """Compiled functions as they play under one rule set's `flags`, copied as they are asked
    for. `jit(function)` gives the decorator of function's copy (CUDA modules pass theirs);
    `reuse`, another RuleCopy of the same flags, lends the copies it has made (a GPU kernel's
    callees that kernels/cuda/two.py has copied already), so none is compiled twice."""

    def __init__(self, flags: Flags, jit: Jit = njit_like, reuse: RuleCopy | None = None) -> None:
        self.flags = dict(flags)
        self.tag = flags_tag(flags)
        self._jit = jit
        self._copies: dict[Any, Any] = {}
        self._reuse = reuse
        self._reaches: dict[Any, bool] = {}
        self._spaces: list[tuple[dict, dict]] = []  # (a module's globals, its copies' globals)

    def reaches(self, function: Any) -> bool:
        """Whether compiled `function` loads a flag or calls a compiled function that does."""
        if function not in self._reaches:
            self._reaches[function] = False  # a call back into itself adds nothing
            reads = not loaded(function.py_func.__code__).isdisjoint(self.flags)
            calls = callees(function).values()
            self._reaches[function] = reads or any(map(self.reaches, calls))
        return self._reaches[function]

    def __getitem__(self, function: Any) -> Any:
        """Compiled `function` under these flags: its copy where it reaches one, else itself."""
        made = self._made(function)
        if made is not None or not self.reaches(function):
            return function if made is None else made
        plain = function.py_func
        space = self._space(plain.__globals__)
        calls = callees(function)
        for name, callee in calls.items():
            if callee is not function:  # a call of itself is named once it is made
                space[name] = self[callee]
        copy = FunctionType(
            plain.__code__, space, plain.__name__, plain.__defaults__, plain.__closure__
        )
        copy.__qualname__ = f"{plain.__qualname__}__{self.tag}"
        copy.__doc__ = plain.__doc__
        copy.__module__ = plain.__module__
        made = self._copies[function] = self._jit(function)(copy)
        space.update({name: made for name, callee in calls.items() if callee is function})
        return made

    def _space(self, original: dict) -> dict:
        """The globals of copies from the module whose globals are `original`: its own and the
        flags, each callee's name set to its copy as the copies are made (one dict a module)."""
        for known, space in self._spaces:
            if known is original:
                return space
        space = {**original, **self.flags}
        self._spaces.append((original, space))
        return space

    def _made(self, function: Any) -> Any:
        """The copy of `function` made here or by `reuse` so far; None if none is."""
        made = self._copies.get(function)
        if made is None and self._reuse is not None:
            made = self._reuse._made(function)
        return made


class RuleCopies(Generic[T]):
    """One kernel module's entry points by rule set: the module itself where a rule set's
    `flags` are bmn's, None where they are None (a rule set it cannot play), and otherwise
    `make(flags, rules, *key)`, made on the first lookup of those flags and `key` (a register
    cap, say) and kept. `rules` is the rule set first asked for: for other modules' lookups."""

    def __init__(
        self,
        module: str,
        flags: Callable[[RuleSet], Flags | None],
        make: Callable[..., T],
    ) -> None:
        self._module = module
        self._flags = flags
        self._make = make
        self._bmn = flags(rule_set(None))
        self._made: dict[tuple, T] = {}

    def lookup(self, rules: str | RuleSet | None, *key: Hashable) -> ModuleType | T | None:
        """What the module plays `rules` (a name, a RuleSet, None: bmn's) with."""
        chosen = rule_set(rules)
        flags = self._flags(chosen)
        if flags is None:
            return None
        if flags == self._bmn:
            return sys.modules[self._module]
        at = (flags, *key)
        if at not in self._made:
            self._made[at] = self._make(flags, chosen, *key)
        return self._made[at]
