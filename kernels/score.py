"""Score batches of deals: choose a compiled kernel by (seats, device), the reference for the rest;
a kernel's per-deal functions as first-class types, and one deal scored through them (score_deck).

`score` takes deals as rows of penalty values (hands concatenated, zero padded) with their hand
sizes. Each compiled kernel module offers `score_rows(deals, sizes, rows, out, cap)` (the
interface is in kernels/cpu/two.py, the first of them) and is registered below under the seat count
and device it serves; it is handed only deals of that many seats and at most MAX_CARDS cards.
A card cap keeps the fast path cheap and the rare deals past it are replayed exactly. Any deal
no kernel takes goes through the reference engine: slower, never refused.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType, SimpleNamespace

import numba
import numpy as np
from numba import njit, types

from bmn.kernels import reference
from bmn.kernels.config import FAST_CAP, FINISHED, INLINE_JIT, MAX_CARDS, UNDECIDED, kernel_array
from bmn.kernels.cpu import two
from bmn.kernels.cpu.choice import chosen
from bmn.kernels.deal import Deal, DealError, decode
from bmn.kernels.results import Scores
from bmn.kernels.rules.sets import RuleSet, rule_set

# A rule set as the kernels take it: its name, the RuleSet, or None for the default.
Rules = str | RuleSet | None
# A kernel's entry points under one rule set: its module, or a namespace of compiled copies.
Kernel = ModuleType | SimpleNamespace

# (seats, device) -> the kernel module that scores those deals, or its name to import on first
# use (so that, say, a CUDA kernel costs nothing until it is asked for). One line registers one.
KERNELS: dict[tuple[int, str], ModuleType | str] = {}
KERNELS[(2, "cpu")] = two
KERNELS[(3, "cpu")] = "bmn.kernels.cpu.nseat"
KERNELS[(4, "cpu")] = "bmn.kernels.cpu.nseat"
KERNELS[(2, "cuda")] = "bmn.kernels.cuda.two"  # raises CudaUnavailable (one line) without CUDA
# The CPU kernels' twins in SIMD lanes (kernels/cpu/choice.py chooses between them and the
# scalar ones): device "lanes", a way of running on the CPU; `lanes` picks their lane count.
LANES = "lanes"
KERNELS[(2, LANES)] = "bmn.kernels.cpu.lanes"
KERNELS[(3, LANES)] = "bmn.kernels.cpu.lanes_nseat"
KERNELS[(4, LANES)] = "bmn.kernels.cpu.lanes_nseat"


def kernel_for(
    seats: int, device: str = "cpu", rules: Rules = None, lanes: int | None = None
) -> Kernel | None:
    """The compiled kernel for deals of `seats` seats on `device` under `rules` (a rule set's
    name or RuleSet; None: the default); None: the reference engine plays them.

    Each module's `for_rules(rule_set)` gives its entry points under a rule set: the module
    itself for bmn's rules (and for any rule set that plays these seats alike), a copy compiled
    on first use for another, or None for one it cannot play. The lane kernels (device
    "lanes") take the seat count and `lanes`, their lane count (None: the chosen one, or 8).
    """
    kernel = KERNELS.get((seats, device))
    if isinstance(kernel, str):
        kernel = KERNELS[(seats, device)] = importlib.import_module(kernel)
    if kernel is None:
        return None
    if device == LANES:
        return kernel.lanes_for(rule_set(rules), seats, lanes or _lane_count())
    return kernel.for_rules(rule_set(rules))


def _lane_count() -> int:
    """The chosen lane count, or 8 where the scalar kernels are chosen (asked for by name)."""
    made = chosen()
    return made.lanes if made.uses_lanes else 8


def lane_kernel(seats: int, rules: Rules = None) -> Kernel | None:
    """The lane kernel a search or an enumeration of `seats` seats feeds (play_block), where
    kernels/cpu/choice.py chooses lanes; None where it chooses the scalar kernels."""
    return kernel_for(seats, LANES, rules) if chosen().uses_lanes else None


def cpu_kernels(seats: int, rules: Rules = None) -> tuple[Kernel, Kernel | None]:
    """What a search's or an enumeration's loop on the CPU plays deals of `seats` seats with
    under `rules`: the scalar kernel (the exact path, and every game where the scalar kernels
    are chosen) and the lane kernel where kernels/cpu/choice.py chooses lanes (else None).
    ValueError where no compiled kernel plays them."""
    kernel = kernel_for(seats, rules=rules)
    if kernel is None:
        raise ValueError(f"no compiled kernel plays {seats} seats under rules {rules!r}")
    return kernel, lane_kernel(seats, rules)


def batch_kernel(seats: int, device: str = "cpu", rules: Rules = None) -> Kernel | None:
    """The kernel that plays a batch of `seats` seats on `device`: on the CPU the lane kernel
    where kernels/cpu/choice.py chooses lanes, else the scalar one; a device with no kernel for
    these seats hands them to the CPU's. None: the reference engine plays them."""
    if device == "cpu" and chosen().uses_lanes:
        lanes = kernel_for(seats, LANES, rules)
        if lanes is not None:
            return lanes
    return kernel_for(seats, device, rules) or kernel_for(seats, "cpu", rules)


def per_deal(kernel: Kernel, sizes: Sequence[int]) -> tuple[Callable, Callable]:
    """A kernel's per-deal functions (play_fast_at, play_exact_at) for deals cut into `sizes`:
    its `play_fast_for(sizes)` where it has one (two seats: the 26/26 deal's own)."""
    fast_for = getattr(kernel, "play_fast_for", None)
    fast = kernel.play_fast_at if fast_for is None else fast_for(tuple(sizes))
    return fast, kernel.play_exact_at


# A kernel's per-deal functions as first-class function types: compiled code that takes them as
# arguments (the search loop, the enumeration) runs any kernel, and caches (a jitted function
# passed as a plain dispatcher would be compiled afresh in every process, and its cache would
# grow each time: numba issue #2956).
DEAL = types.Array(types.uint8, 1, "C")
SIZES = types.Array(types.int64, 1, "C")
# Rows of them: deals (a block, the finds buffer's decks) and whole numbers (figures a row).
DEALS = types.Array(types.uint8, 2, "C")
NUMBERS = types.Array(types.int64, 2, "C")
PLAY_FAST = types.FunctionType(
    types.UniTuple(types.int64, 3)(DEAL, types.int64, SIZES, types.int64)
)
PLAY_EXACT = types.FunctionType(types.UniTuple(types.int64, 8)(DEAL, types.int64, SIZES))
# A lane kernel's block of deals (kernels/cpu/lanes.py's play_block): rows of one hand-size
# pattern, the first n of them played, their (cards, tricks, code) written in three rows.
PLAY_BLOCK = types.FunctionType(types.int64(DEALS, SIZES, types.int64, NUMBERS))


@njit(**INLINE_JIT)  # inlined into the caller's loop: called once per deal scored
def score_deck(deck, sizes, objective, play_fast_at, play_exact_at) -> tuple[int, int, int, int]:
    """(score, cards, tricks, status) of a deal cut into hands of `sizes` by a kernel's per-deal
    functions; objective 0 = cards, 1 = tricks. A deal past the card cap is replayed exactly,
    so a reported loop is always a proven loop."""
    cards, tricks, code = play_fast_at(deck, 0, sizes, FAST_CAP)
    status = FINISHED
    if code == UNDECIDED:
        status, cards, tricks = play_exact_at(deck, 0, sizes)[:3]
    score = cards if objective == 0 else tricks
    return score, cards, tricks, status


def _check(deals: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    deals = kernel_array(deals, np.uint8)
    sizes = kernel_array(sizes, np.int64)
    if deals.ndim != 2 or sizes.ndim != 2 or len(deals) != len(sizes):
        raise DealError(
            f"deals must be (N, W) and sizes (N, S) with the same N; got {deals.shape} and"
            f" {sizes.shape}"
        )
    if sizes.size and (sizes.min() < 0 or sizes.sum(axis=1).max() > deals.shape[1]):
        raise DealError("hand sizes must be >= 0 and add up to at most the row width")
    if deals.size and deals.max() > 4:
        raise DealError("card values must be penalty values 0-4 (numeral, J, Q, K, A)")
    return deals, sizes


def score(
    deals: np.ndarray,
    sizes: np.ndarray,
    threads: int | None = None,
    device: str = "cpu",
    rules: Rules = None,
) -> Scores:
    """Score N deals: rows of penalty values (hands concatenated, zero padded), (N, S) sizes,
    under `rules` (a rule set's name or RuleSet; None: the default). A rule set that looks for
    no loops (`loops` "none") gets the loops the kernels prove, where the reference engine
    would need a limit.

    Deals of a seat count `device` has no kernel for go to the CPU's kernel for them."""
    deals, sizes = _check(deals, sizes)
    rules = rule_set(rules)
    out = Scores.empty(len(deals))
    seats = sizes.shape[1]
    kernel = batch_kernel(seats, device, rules)
    fast = np.zeros(len(deals), dtype=bool)
    if kernel is not None:
        fast = sizes.sum(axis=1) <= MAX_CARDS
        with numba_threads(threads):
            kernel.score_rows(deals, sizes, np.flatnonzero(fast), out, FAST_CAP)
    for i in np.flatnonzero(~fast):
        out._set_from(int(i), reference.play(decode(deals[i], sizes[i]), rules=rules))
    return out


def score_parsed(deals: Sequence[Deal], threads: int | None = None, rules: Rules = None) -> Scores:
    """Score parsed deals (tuples of hands); deals with different seat counts may be mixed."""
    values = [bytes(v for hand in deal for v in hand) for deal in deals]
    sizes = [tuple(len(hand) for hand in deal) for deal in deals]
    return score_values(values, sizes, threads, rules=rules)


def score_values(
    values: Sequence[bytes],
    sizes: Sequence[tuple[int, ...]],
    threads: int | None = None,
    device: str = "cpu",
    rules: Rules = None,
) -> Scores:
    """Score deals given as their concatenated values and hand sizes, grouped by seat count."""
    out = Scores.empty(len(values))
    by_seats: dict[int, list[int]] = {}
    for i, hands in enumerate(sizes):
        by_seats.setdefault(len(hands), []).append(i)
    for seats, idx in by_seats.items():
        part = [values[i] for i in idx]
        width = max(len(v) for v in part)
        if all(len(v) == width for v in part):  # the usual case: one deck size
            rows = np.frombuffer(bytearray(b"".join(part)), dtype=np.uint8).reshape(len(idx), width)
        else:
            rows = np.zeros((len(idx), width), dtype=np.uint8)
            for r, v in enumerate(part):
                rows[r, : len(v)] = np.frombuffer(v, dtype=np.uint8)
        hands = np.array([sizes[i] for i in idx], dtype=np.int64).reshape(len(idx), seats)
        out._take(np.array(idx), score(rows, hands, threads, device, rules))
    return out


# Deals are handed to threads in chunks as they free up, not split evenly up front: game
# lengths vary, and on a shared machine one thread may be slowed by other work.
PARALLEL_CHUNK = 4096


@contextmanager
def numba_threads(threads: int | None) -> Iterator[None]:
    """Run a block with numba's thread count (and dynamic chunks) set, restoring both after."""
    before = numba.get_num_threads()
    chunk = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(PARALLEL_CHUNK)
    if threads is not None:
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(before)
        numba.set_parallel_chunksize(chunk)
