"""The two-player kernel on an NVIDIA GPU (Numba CUDA): kernels/cpu/two.py's bit-queues, per thread.

The trick rules are kernels/rules/two_tricks.py's, the same source as the CPU kernel's,
compiled here as device functions. Only the bit counts differ: Numba's CUDA simulator formats
values as 32 bits in `ffs` and `clz`, so both are taken on 32-bit halves, which is right on a GPU
and in the simulator alike (on a GPU a 64-bit count is two 32-bit instructions anyway).

A game past the card cap comes back as UNDECIDED and the host replays it with
kernels/cpu/two.py's exact loop detection, so every figure is exact. Every figure is checked
against kernels/reference.py (tests/kernels/test_cuda_two.py, under the simulator).
"""

from __future__ import annotations

from functools import partial
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from bmn.kernels.config import (
    CUDA_KERNEL,
    FAST_CAP,
    FINISHED,
    LOOP,
    MAX_CARDS,
    UNDECIDED,
    cuda_device,
)
from bmn.kernels.cuda.env import THREADS_PER_BLOCK, require, simulated
from bmn.kernels.rules import two_tricks

require()  # one line saying what is missing, before numba.cuda falls back to anything else

from numba import cuda  # noqa: E402  (only once require() has passed)

from bmn.kernels.cpu import two  # noqa: E402
from bmn.kernels.deal import DealError  # noqa: E402
from bmn.kernels.rules.copies import Flags, RuleCopies, RuleCopy  # noqa: E402
from bmn.kernels.rules.flags import two_seat_flags  # noqa: E402
from bmn.kernels.rules.sets import rule_set  # noqa: E402
from bmn.kernels.rules.targets import compile_for  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Callable

    from bmn.kernels.cpu.benchmark import Disagreement
    from bmn.kernels.results import Scores
    from bmn.kernels.rules.sets import RuleSet

CAP = FAST_CAP  # cards, as the CPU search
SIMULATED = simulated()

DEVICE = cuda_device(SIMULATED)  # inlined into the kernels (the simulator cannot inline)
KERNEL = CUDA_KERNEL

# Unsigned constants: mixing uint64 with int64 in numba promotes to float64.
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_HALF = np.uint64(32)
_LOW = np.uint64(0xFFFFFFFF)


@cuda.jit(**DEVICE)
def ctz(x):
    """Trailing zeros of a non-zero uint64, from its 32-bit halves (see the module doc)."""
    low = np.uint32(x & _LOW)
    if low != 0:
        return np.int64(cuda.ffs(low)) - 1
    return np.int64(cuda.ffs(np.uint32(x >> _HALF))) + 31


@cuda.jit(**DEVICE)
def top_bit(x):
    """Position of the highest set bit of a non-zero uint64, from its 32-bit halves."""
    high = np.uint32(x >> _HALF)
    if high != 0:
        return 63 - np.int64(cuda.clz(high))
    return 31 - np.int64(cuda.clz(np.uint32(x & _LOW)))


@cuda.jit(**DEVICE)
def load(row, start, n):
    """A hand's masks (court with the sentinel at bit n, value bit 0, value bit 1)."""
    court = _ONE << np.uint64(n)
    bit0 = _ZERO
    bit1 = _ZERO
    for i in range(n):
        v = np.uint64(row[start + i])
        if v != _ZERO:
            at = np.uint64(i)
            w = v - _ONE
            court |= _ONE << at
            bit0 |= (w & _ONE) << at
            bit1 |= (w >> _ONE) << at
    return court, bit0, bit1


# The trick rules (kernels/rules/two_tricks.py, shared with the CPU kernel), as device functions.
_pays, _collect, _chain, trick, ending, lone_lead = compile_for(
    two_tricks.RULES, cuda.jit(**DEVICE), ctz=ctz, top_bit=top_bit
)


@cuda.jit(**DEVICE)
def play_masks(c0, a0, b0, c1, a1, b1, cap):
    """Play from the opening masks (both hands hold cards), seat 0 leading.

    Returns (cards, tricks, code): code = the winning seat, or UNDECIDED past `cap` cards.
    """
    lc, l0, l1, oc, o0, o1 = c0, a0, b0, c1, a1, b1
    leader = 0
    cards = 0
    tricks = 0
    while True:
        led, lc, l0, l1, oc, o0, o1, laid, over, end = trick(lc, l0, l1, oc, o0, o1)
        cards += laid
        tricks += 1
        if not led:
            lc, l0, l1, oc, o0, o1 = oc, o0, o1, lc, l0, l1
            leader ^= 1
        if over:
            cards, tricks = ending(cards, tricks, end)
            return cards, tricks, leader
        if cards > cap:
            return cards, tricks, UNDECIDED


@cuda.jit(**DEVICE)
def play_fast_at(buf, offset, n0, n1, cap):
    """The deal at buf[offset:] (hands of n0 and n1 cards, n0 + n1 <= 64).

    Returns (cards, tricks, code): code 0 or 1 = finished, that seat winning; UNDECIDED = more
    than `cap` cards laid without a finish (replay with kernels/cpu/two.play_exact_at).
    """
    if n0 == 0:  # seat 0 must lead and cannot: seat 1 wins, and an empty pile is no trick
        return 0, 0, 1
    if n1 == 0:  # seat 0 lays one card, seat 1 cannot answer and loses
        return lone_lead(n0, buf[offset])
    c0, a0, b0 = load(buf, offset, n0)
    c1, a1, b1 = load(buf, offset + n0, n1)
    return play_masks(c0, a0, b0, c1, a1, b1, cap)


@cuda.jit(**KERNEL)
def _score_kernel(flat, width, sizes, cap, out):
    """Deal i of a flat batch of rows `width` long into out[i] = (cards, tricks, code)."""
    i = cuda.grid(1)
    while i < sizes.shape[0]:
        cards, tricks, code = play_fast_at(flat, i * width, sizes[i, 0], sizes[i, 1], cap)
        out[i, 0] = cards
        out[i, 1] = tricks
        out[i, 2] = code
        i += cuda.gridsize(1)


def device_name() -> str:
    """The GPU's name, or 'simulator'."""
    if SIMULATED:
        return "simulator"
    name = cuda.get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def _grid(n: int) -> tuple[int, int]:
    """(blocks, threads per block) for a grid-stride loop over n items."""
    if SIMULATED:  # every simulated thread is a Python thread: keep them few
        return 1, max(1, min(16, n))
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    blocks = max(1, min(-(-n // THREADS_PER_BLOCK), sms * 32))
    return blocks, THREADS_PER_BLOCK


def _check(deals: np.ndarray, sizes: np.ndarray, rows: np.ndarray) -> tuple:
    deals = np.ascontiguousarray(deals, dtype=np.uint8)
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if deals.ndim != 2 or sizes.ndim != 2 or len(deals) != len(sizes) or sizes.shape[1] != 2:
        raise DealError(
            f"the CUDA kernel takes two-seat deals (N, W) and sizes (N, 2); got {deals.shape}"
            f" and {sizes.shape}"
        )
    picked = sizes[rows]
    if picked.size and (
        picked.min() < 0 or picked.sum(axis=1).max() > min(MAX_CARDS, deals.shape[1])
    ):
        raise DealError(f"the CUDA kernel takes deals of at most {MAX_CARDS} cards in two hands")
    return deals, sizes, rows


def score_rows(
    deals: np.ndarray, sizes: np.ndarray, rows: np.ndarray, out: Scores, cap: int
) -> None:
    """Score deals[rows] into out's slots on the GPU (other slots untouched).

    The rows travel to the device once; a deal past `cap` cards is replayed on the CPU with
    exact loop detection (kernels/cpu/two.play_exact_at), so results always equal the reference.
    """
    _score_batch(_score_kernel, two.exact_at, deals, sizes, rows, out, cap)


def _score_batch(kernel, exact_at, deals, sizes, rows, out, cap: int) -> None:
    """score_rows through one rule set's `kernel` and CPU `exact_at`."""
    deals, sizes, rows = _check(deals, sizes, rows)
    if rows.size == 0:
        return
    batch = np.ascontiguousarray(deals[rows])
    picked = np.ascontiguousarray(sizes[rows])
    width = batch.shape[1]
    figures = cuda.device_array((len(rows), 3), dtype=np.int64)
    blocks, threads = _grid(len(rows))
    kernel[blocks, threads](
        cuda.to_device(batch.reshape(-1)), width, cuda.to_device(picked), cap, figures
    )
    cards, tricks, code = figures.copy_to_host().T
    out.cards[rows] = cards
    out.tricks[rows] = tricks
    out.status[rows] = FINISHED
    out.winner[rows] = code
    for field in out.loop_arrays():
        field[rows] = -1
    flat = batch.reshape(-1)
    for k in np.flatnonzero(code == UNDECIDED):
        _replay(exact_at, flat, k * width, picked[k], rows[k], out)


def _replay(exact_at, flat: np.ndarray, offset: int, hand_sizes: np.ndarray, i: int, out) -> None:
    """Deal i, stopped at the cap on the device, played exactly on the CPU."""
    n0, n1 = int(hand_sizes[0]), int(hand_sizes[1])
    status, cards, tricks, winner, start_c, start_t, period_c, period_t = exact_at(
        flat, offset, n0, n1
    )
    out.status[i], out.cards[i], out.tricks[i], out.winner[i] = status, cards, tricks, winner
    if status == LOOP:
        out.loop_start_cards[i], out.loop_start_tricks[i] = start_c, start_t
        out.period_cards[i], out.period_tricks[i] = period_c, period_t


def selfcheck(n_deals: int, seed: int, cap: int = CAP, rules: str | RuleSet | None = None) -> int:
    """Score n random standard deals on the GPU and with the CPU kernel under `rules` (None:
    bmn's); the rows that differ.

    Every field is compared: cards, tricks, status, winner and the loop figures.
    """
    from bmn.kernels import rng
    from bmn.kernels.dealer import random_deals

    deals, sizes = random_deals(n_deals, rng.seed_state(seed))
    return int(_differ(deals, sizes, cap, rules)[0].sum())


def first_difference(
    n_deals: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
    chunk: int = 1 << 18,
    cap: int = CAP,
    rules: str | RuleSet | None = None,
) -> Disagreement | None:
    """`bmn selfcheck --device cuda`: n random standard deals (kernels/cpu/benchmark.selfcheck's,
    from the same seed) scored on the GPU and by the CPU kernel under `rules` (a rule set's
    name or RuleSet; None: bmn's), `chunk` at a time; the first
    deal on which they differ (`kernel` the GPU's result, `reference` the CPU kernel's), or
    None. `progress(k)` is called after each k deals checked."""
    from bmn.kernels import rng
    from bmn.kernels.cpu.benchmark import Disagreement
    from bmn.kernels.deal import decode
    from bmn.kernels.dealer import random_deals

    state = rng.seed_state(seed)
    done = 0
    while done < n_deals:
        n = min(chunk, n_deals - done)
        deals, sizes = random_deals(n, state)
        differ, got, want = _differ(deals, sizes, cap, rules)
        if differ.any():
            i = int(np.argmax(differ))
            deal = decode(deals[i], sizes[i])
            return Disagreement(done + i, deal, got.as_dict(i), want.as_dict(i))
        done += n
        if progress is not None:
            progress(n)
    return None


def _differ(deals: np.ndarray, sizes: np.ndarray, cap: int, rules=None) -> tuple:
    """Which deals the GPU and the CPU kernel score differently (every field) under `rules`,
    and both scores (a rule set neither kernel plays is ValueError)."""
    from bmn.kernels import score
    from bmn.kernels.results import Scores

    gpu = for_rules(rule_set(rules))
    if gpu is None:
        raise ValueError(f"no compiled kernel plays rule set {rule_set(rules).name!r}")
    want = score.score(deals, sizes, rules=rules)
    got = Scores.empty(len(deals))
    gpu.score_rows(deals, sizes, np.arange(len(deals)), got, cap)
    differ = np.zeros(len(deals), dtype=bool)
    for mine, theirs in zip(got.arrays(), want.arrays(), strict=True):
        differ |= mine != theirs
    return differ, got, want


# Rule sets (kernels/rules/sets.py): a rule set's copies (kernels/rules/copies.py) of what reaches
# the trick rules' flags, made on first use; the CPU replays with the CPU kernel's copy.
def _copy(flags: Flags, rules: RuleSet) -> SimpleNamespace:
    ruled = RuleCopy(flags, _jit_like)
    kernel, cpu = ruled[_score_kernel], two.for_rules(rules)
    return SimpleNamespace(
        score_rows=partial(_score_batch, kernel, cpu.exact_at),
        play_fast_at=ruled[play_fast_at],
        trick=ruled[trick],
        ending=ruled[ending],
        _score_kernel=kernel,
        copies=ruled,  # lent to the GPU kernels that call these (kernels/rules/copies.py)
    )


def _jit_like(function):
    """The decorator `function` was compiled with: the kernel's, or a device function's."""
    if function is _score_kernel:
        return cuda.jit(**KERNEL)
    return cuda.jit(**DEVICE)


_COPIES = RuleCopies(__name__, two_seat_flags, _copy)


def for_rules(rules: RuleSet) -> ModuleType | SimpleNamespace | None:
    """This kernel under `rules` (its score_rows): itself for every rule set that plays two
    seats as bmn's rules do, a compiled copy for another, None for one it cannot play."""
    return _COPIES.lookup(rules)


def ruled(attribute: str, rules: str) -> object:
    """This module's kernel `attribute` as compiled for a rule set (lab/cuda_compiled.py)."""
    return getattr(for_rules(rule_set(rules)), attribute)
