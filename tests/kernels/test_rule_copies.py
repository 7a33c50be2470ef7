"""A rule set's copies (kernels/rules/copies.py): the functions copied are found by reading the
code, so every compiled function a copy reaches that reads a rule's flag reads the rule set's.

The checks read the code as the copies do (the globals each compiled function loads, resolved
in its module): every function a kernel's copy reaches sees the rule set's flags, none sees
bmn's; and no compiled function reaches a flag or another compiled function through a module's
attribute, which the reading would not follow. The CUDA modules' copies are checked in a child
interpreter under Numba's CUDA simulator (tests/simulator.py).
"""

import dis
from functools import partial
from types import CodeType, ModuleType, SimpleNamespace

import pytest
from numba import njit
from simulator import SIMULATED, run_under_simulator

from bmn.kernels.cpu import nseat, two
from bmn.kernels.rules.copies import RuleCopies, RuleCopy, callees, is_compiled, loaded
from bmn.kernels.rules.flags import table_flags, two_seat_flags
from bmn.kernels.rules.sets import RULE_SETS, rule_set
from bmn.kernels.score import kernel_for

if SIMULATED:
    from bmn.kernels.cuda import two as cuda_two
    from bmn.search.enumeration import cuda as cuda_every
    from bmn.search.strategies.cuda import kernels as cuda_kernels

FLAG = False  # a rule's flag, as a kernel module holds bmn's value


@njit
def _reads():
    return 10 if FLAG else 1


@njit
def _calls():
    return _reads() + 1


@njit
def _plain():
    return 7


@njit
def _both():
    return _calls() + _plain()


def _nested():
    return [FLAG for _ in range(1)]


def _attribute(rules):
    return rules.FLAG


class TestRuleCopy:
    __test__ = not SIMULATED

    def test_a_function_reading_a_flag_or_calling_one_that_does_is_copied(self):
        ruled = RuleCopy((("FLAG", True),))
        assert ruled[_both]() == 18 and _both() == 9  # bmn's function is untouched
        assert ruled[_plain] is _plain  # reaches no flag: itself, not compiled again
        assert ruled[_both].py_func.__globals__["_plain"] is _plain
        assert ruled[_both] is ruled[_both]
        assert ruled[_calls].py_func.__qualname__ == "_calls__flag1"  # Numba's cache: its own

    def test_the_reading_sees_nested_code_and_no_attributes(self):
        assert "FLAG" in loaded(_nested.__code__)
        assert loaded(_attribute.__code__) == set()  # an attribute is no global
        assert callees(_both) == {"_calls": _calls, "_plain": _plain}

    def test_a_copy_reuses_another_copy_of_the_same_flags(self):
        first = RuleCopy((("FLAG", True),))
        second = RuleCopy((("FLAG", True),), reuse=first)
        first[_reads]
        assert second[_calls].py_func.__globals__["_reads"] is first[_reads]

    def test_the_lookup_gives_the_module_a_copy_or_none(self):
        made = []
        copies = RuleCopies(__name__, two_seat_flags, lambda *args: made.append(args) or args)
        assert copies.lookup("paulhus") is copies.lookup(None)  # bmn's two-seat play
        assert isinstance(copies.lookup(None), ModuleType)
        assert copies.lookup("at-once") is copies.lookup("at-once") and len(made) == 1
        assert copies.lookup("at-once", 64) is not copies.lookup("at-once")
        bogus = RuleCopies(__name__, lambda rules: None, lambda *args: args)
        assert bogus.lookup(None) is None


def _entries(kernel: object) -> list:
    """The compiled functions a kernel's namespace (or module) gives, partials' included."""
    found = []
    for value in vars(kernel).values():
        if isinstance(value, partial):
            found += [arg for arg in value.args if is_compiled(arg)]
        elif is_compiled(value):
            found.append(value)
    return found


def _reached(functions: list) -> list:
    """Every compiled function `functions` call by a global name, themselves included."""
    seen: dict[int, object] = {}
    todo = list(functions)
    while todo:
        function = todo.pop()
        if id(function) not in seen:
            seen[id(function)] = function
            todo += callees(function).values()
    return list(seen.values())


def _wrong_flags(functions: list, flags: dict) -> list[str]:
    """Each function reached from `functions` that reads a flag other than `flags` say."""
    wrong = []
    for function in _reached(functions):
        plain = function.py_func
        for name in loaded(plain.__code__) & flags.keys():
            if plain.__globals__[name] != flags[name]:
                wrong.append(f"{plain.__module__}.{plain.__qualname__} reads {name} as bmn's")
    return wrong


_ATTRIBUTE = {"LOAD_ATTR", "LOAD_METHOD"}


def _through_attributes(functions: list, flags: set) -> list[str]:
    """Each use of a flag or a compiled function as a module's attribute (`table._trick`),
    in the functions reached from `functions`: the copies would not follow it."""
    found = []
    for function in _reached(functions):
        plain = function.py_func
        codes = [plain.__code__]
        while codes:
            code = codes.pop()
            codes += [c for c in code.co_consts if isinstance(c, CodeType)]
            ops = list(dis.get_instructions(code))
            for load, attribute in zip(ops, ops[1:], strict=False):
                if load.opname != "LOAD_GLOBAL" or attribute.opname not in _ATTRIBUTE:
                    continue
                module = plain.__globals__.get(load.argval)
                if not isinstance(module, ModuleType):
                    continue
                name = attribute.argval
                if name in flags or is_compiled(getattr(module, name, None)):
                    found.append(f"{plain.__qualname__}: {load.argval}.{name}")
    return found


def _nseat_flags(rules) -> dict:
    return dict(table_flags(rules))


def _copied() -> list:
    """(seats, rule set, the flags its copies read) for each rule set a CPU kernel plays
    otherwise than bmn's rules."""
    flags_of = {2: lambda rules: dict(two_seat_flags(rules)), 3: _nseat_flags}
    found = []
    for seats, flags in flags_of.items():
        for name in RULE_SETS:
            kernel = kernel_for(seats, rules=name)
            if kernel is not None and kernel is not kernel_for(seats):
                found.append(pytest.param(seats, name, flags(rule_set(name)), id=f"{seats}-{name}"))
    return found


COPIED = _copied()


class TestCpuCopies:
    __test__ = not SIMULATED

    def test_some_rule_sets_are_copied_at_each_seat_count(self):
        assert {param.values[0] for param in COPIED} == {2, 3}

    @pytest.mark.parametrize(("seats", "name", "flags"), COPIED)
    def test_every_function_a_copy_reaches_reads_the_rule_set_s_flags(self, seats, name, flags):
        copy = kernel_for(seats, rules=name)
        assert isinstance(copy, SimpleNamespace)
        assert _wrong_flags(_entries(copy), flags) == []

    def test_a_function_that_reaches_no_flag_is_not_copied(self):
        copy = two.for_rules(rule_set("at-once"))
        assert copy.exact_at.py_func.__globals__["_same"] is two._same
        assert copy.fast_at is not two.fast_at

    def test_no_flag_or_compiled_function_is_reached_through_a_module_attribute(self):
        flags = {**dict(two_seat_flags(rule_set(None))), **_nseat_flags(rule_set(None))}
        assert _through_attributes(_entries(two) + _entries(nseat), set(flags)) == []


@pytest.mark.slow  # a child interpreter: the slow tier, whatever the tiers of the checks in it
def test_cuda_copies_under_the_simulator():
    """Run this file's simulator checks in a child interpreter; they must all pass."""
    run_under_simulator(__file__, "-k", "Cuda")


test_cuda_copies_under_the_simulator.__test__ = not SIMULATED


def _cuda_entries(name: str) -> list:
    """The compiled functions the GPU's kernels give under rule set `name`."""
    found = _entries(cuda_two.for_rules(rule_set(name)))
    found.append(cuda_every.kernel_for(name)[0])
    found += [cuda_kernels.search_kernel(mode, None, rule_set(name)) for mode in (0, 1)]
    return found


class TestCudaCopies:
    __test__ = SIMULATED

    @pytest.mark.parametrize("name", [n for n in RULE_SETS if two_seat_flags(rule_set(n))])
    def test_every_function_a_copy_reaches_reads_the_rule_set_s_flags(self, name):
        flags = dict(two_seat_flags(rule_set(name)))
        assert _wrong_flags(_cuda_entries(name), flags) == []

    def test_the_gpu_s_kernels_share_cuda_two_s_copies(self):
        search = cuda_kernels.search_kernel(0, None, rule_set("at-once"))
        streams = search.py_func.__globals__["_streams"]
        device = cuda_two.for_rules(rule_set("at-once"))
        assert streams.py_func.__globals__["trick"] is device.trick
        every = cuda_every.kernel_for("at-once")[0]
        assert every.py_func.__globals__["play_fast_at"] is device.play_fast_at

    def test_no_flag_or_compiled_function_is_reached_through_a_module_attribute(self):
        flags = set(dict(two_seat_flags(rule_set(None))))
        assert _through_attributes(_cuda_entries("bmn"), flags) == []

    def test_ruled_gives_each_kernel_s_copy(self):
        assert cuda_two.ruled("_score_kernel", "bmn") is cuda_two._score_kernel
        assert cuda_two.ruled("_score_kernel", "leodog896").py_func.__qualname__.endswith(
            "__asked0_at_once1_tricks2"
        )
        assert cuda_every.ruled("_enumerate", "leodog896") is cuda_every.kernel_for("leodog896")[0]
        walk = cuda_kernels.ruled("_walk_kernel", "leodog896")
        assert walk is cuda_kernels.search_kernel(0, None, rule_set("leodog896"))
