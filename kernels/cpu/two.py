"""The compiled two-player kernel: hands as bit-queues, one trick at a time.

A hand is three uint64 masks (kernels/rules/two_tricks.py says how); the trick rules are
kernels/rules/two_tricks.py's, written once for this kernel and the GPU's (kernels/cuda/two.py) and
compiled here with njit, count-trailing-zeros being LLVM's intrinsic. This module adds what only
the CPU does: loading hands eight cards at a time, the game loop, and exact loop detection.

Rules (docs/rules.md, two players): seat 0 leads; a player who must lay a card and has none
loses and the other takes the pile as one last trick. Every figure is checked against
kernels/reference.py.

The module offers what every kernel module offers (kernels/score.py registers it):
- `score_rows(deals, sizes, rows, out, cap)`: the batch entry point, in parallel;
- `play_fast_at(buf, offset, sizes, cap)` and `play_exact_at(buf, offset, sizes)`: per-deal
  compiled functions for the search loop, hand sizes as a 1-d int64 array. They wrap this
  kernel's own (n0, n1) functions `fast_at` and `exact_at`. A kernel may add
  `play_fast_for(sizes)`, a play_fast_at compiled for those sizes (kernels/score.py's
  `per_deal` picks it).
"""

from __future__ import annotations

from functools import partial
from types import ModuleType, SimpleNamespace

import numpy as np
from numba import njit, prange

from bmn.kernels.config import (
    FAST_CAP,
    FINISHED,
    INLINE_JIT,
    JIT,
    LOOP,
    PARALLEL_JIT,
    UNDECIDED,
)
from bmn.kernels.cpu.bits import ctz, top_bit
from bmn.kernels.results import Scores
from bmn.kernels.rules import two_tricks
from bmn.kernels.rules.copies import Flags, RuleCopies, RuleCopy
from bmn.kernels.rules.flags import two_seat_flags
from bmn.kernels.rules.sets import RuleSet
from bmn.kernels.rules.targets import compile_for

# Unsigned constants: mixing uint64 with int64 in numba promotes to float64.
_ZERO = np.uint64(0)
_ONE = np.uint64(1)

# Eight cards at a time: one byte per card in a uint64, bit j of each byte gathered into one
# byte of bits by a multiplication (byte k's bit 0 lands on bit 56 + k, without carries).
_BYTES = np.uint64(0x0101010101010101)
_GATHER = np.uint64(0x0102040810204080)
_56 = np.uint64(56)


@njit(**INLINE_JIT)
def _gather(bits: np.uint64) -> np.uint64:
    """Bit 0 of each byte of `bits` (other bits clear) as the 8 bits of a byte, byte k at bit k."""
    return (bits * _GATHER) >> _56


@njit(**INLINE_JIT)
def _load(row: np.ndarray, start: int, n: int) -> tuple:
    """A hand's masks (court, value bit 0, value bit 1) from n (< 64) values at row[start:].

    The court mask also holds a sentinel bit at position n, just past the bottom card, so a
    hand's length is the position of its highest court bit and a hand that runs out looks
    like one more court card (told apart by having nothing above it).
    """
    court = _ONE << np.uint64(n)
    bit0 = _ZERO
    bit1 = _ZERO
    for base in range(0, n, 8):
        word = _ZERO
        at = np.uint64(start + base)  # unsigned: no negative-index wraparound per card
        if n - base >= 8:  # a constant count, so the compiler unrolls it
            for j in range(8):
                word |= np.uint64(row[at + np.uint64(j)]) << np.uint64(8 * j)
        else:
            for j in range(n - base):
                word |= np.uint64(row[at + np.uint64(j)]) << np.uint64(8 * j)
        lo = word & _BYTES
        mid = (word >> _ONE) & _BYTES
        hi = (word >> np.uint64(2)) & _BYTES
        # value - 1 for J Q K A (1-4) is 0-3: bit 0 set for Q and A, bit 1 for K and A.
        shift = np.uint64(base)
        court |= _gather(lo | mid | hi) << shift
        bit0 |= _gather((mid | hi) & (lo ^ _BYTES)) << shift
        bit1 |= _gather(hi | (mid & lo)) << shift
    return court, bit0, bit1


# The trick rules (kernels/rules/two_tricks.py, shared with the GPU kernel), compiled for the CPU.
_pays, _collect, _chain, _trick = compile_for(
    two_tricks.RULES[:4], njit(**INLINE_JIT), ctz=ctz, top_bit=top_bit
)
# Once a game: called, not inlined (inlining them cost seconds of every first compile).
_ending, _lone_lead = compile_for(two_tricks.RULES[4:], njit(**JIT))


@njit(**INLINE_JIT)
def _start(buf: np.ndarray, offset: int, n0: int, n1: int) -> tuple:
    """The opening trick-boundary state: (leader's hand, other hand, leader seat)."""
    c0, a0, b0 = _load(buf, offset, n0)
    c1, a1, b1 = _load(buf, offset + n0, n1)
    return (c0, a0, b0, c1, a1, b1, np.int64(0))


@njit(**INLINE_JIT)
def _step(state: tuple) -> tuple:
    """Play one trick from a trick-boundary state; returns (next state, cards laid, over, how
    it ended: two_tricks.ending's `end`)."""
    lc, l0, l1, oc, o0, o1, leader = state
    led, lc, l0, l1, oc, o0, o1, cards, over, end = _trick(lc, l0, l1, oc, o0, o1)
    if led:
        return (lc, l0, l1, oc, o0, o1, leader), cards, over, end
    return (oc, o0, o1, lc, l0, l1, leader ^ 1), cards, over, end


@njit(**JIT)
def _advance(state: tuple) -> tuple:
    """_step as a real call: exact_at calls it from four places, compiled once, not four times."""
    return _step(state)


@njit(**INLINE_JIT)
def _same(a: tuple, b: tuple) -> bool:
    """Equal trick-boundary states (the masks are canonical: no bits past the sentinel)."""
    return (
        a[0] == b[0]
        and a[3] == b[3]
        and a[6] == b[6]
        and a[1] == b[1]
        and a[2] == b[2]
        and a[4] == b[4]
        and a[5] == b[5]
    )


@njit(**INLINE_JIT)
def _fast(buf: np.ndarray, offset: int, n0: int, n1: int, cap: int) -> tuple:
    """fast_at, inlined where it is called: see play_fast_at."""
    if n0 == 0:  # seat 0 must lead and cannot: seat 1 wins, and an empty pile is no trick
        return 0, 0, 1
    if n1 == 0:  # seat 0 lays one card, seat 1 cannot answer and loses
        return _lone_lead(n0, buf[offset])
    state = _start(buf, offset, n0, n1)
    cards = 0
    tricks = 0
    while True:
        state, laid, over, end = _step(state)
        cards += laid
        tricks += 1
        if over:
            cards, tricks = _ending(cards, tricks, end)
            return cards, tricks, state[6]
        if cards > cap:
            return cards, tricks, UNDECIDED


@njit(**JIT)
def fast_at(buf: np.ndarray, offset: int, n0: int, n1: int, cap: int) -> tuple:
    """Play hands buf[offset:][:n0] (seat 0) and the n1 cards after them (seat 1), n0 + n1 <= 64.

    Returns (cards, tricks, code): code = the winning seat, or UNDECIDED when more than `cap`
    cards were laid without a finish (replay with exact_at). A batch passes its rows as one flat
    buffer and offsets: taking a row view per deal would touch the batch's shared reference
    count, and threads would fight over it.
    """
    return _fast(buf, offset, n0, n1, cap)


@njit(**JIT)
def exact_at(buf: np.ndarray, offset: int, n0: int, n1: int) -> tuple:
    """Play the deal at buf[offset:] to the end or to the first repeated trick-boundary state.

    Returns (status, cards, tricks, winner, loop_start_cards, loop_start_tricks,
    period_cards, period_tricks), the reference engine's figures; winner -1 for a loop, loop
    fields -1 for a finished game. Brent's cycle detection needs no memory; a replay then
    finds the cycle's first state.
    """
    if n0 == 0:  # as in fast_at
        return FINISHED, 0, 0, 1, -1, -1, -1, -1
    if n1 == 0:
        cards, tricks, winner = _lone_lead(n0, buf[offset])
        return FINISHED, cards, tricks, winner, -1, -1, -1, -1
    start = _start(buf, offset, n0, n1)
    # Brent: the tortoise waits at powers of two while the hare walks; lam ends as the period.
    power = 1
    lam = 1
    tortoise = start
    hare = start
    cards = 0
    tricks = 0
    while True:
        hare, laid, over, end = _advance(hare)
        cards += laid
        tricks += 1
        if over:
            cards, tricks = _ending(cards, tricks, end)
            return FINISHED, cards, tricks, hare[6], -1, -1, -1, -1
        if _same(tortoise, hare):
            break
        if power == lam:
            tortoise = hare
            power *= 2
            lam = 0
        lam += 1
    # Replay: a hare lam tricks ahead of the tortoise meets it at the cycle's first state.
    hare = start
    tortoise = start
    hare_cards = 0
    start_cards = 0
    steps = 0
    while steps < lam or not _same(tortoise, hare):
        if steps >= lam:
            tortoise, laid, _, _ = _advance(tortoise)
            start_cards += laid
        hare, laid, _, _ = _advance(hare)
        hare_cards += laid
        steps += 1
    mu = steps - lam
    return LOOP, hare_cards, steps, -1, start_cards, mu, hare_cards - start_cards, lam


# -- the interface every kernel module offers (notes in kernels/score.py) -----------------------


@njit(**JIT)
def play_fast_at(buf: np.ndarray, offset: int, sizes: np.ndarray, cap: int) -> tuple:
    """fast_at with the hand sizes as an array (sizes[0], sizes[1]): the search's signature.
    A call of fast_at, not its own copy of the game: the batch scorer's compile serves both."""
    return fast_at(buf, offset, sizes[0], sizes[1], cap)


# The standard deal's hands (26/26) are what a search scores all day: with their sizes known when
# compiling, the hand loads unroll and the size checks fold away (measured: about 10% more deals
# a second in the search loop than with the sizes read at run time).
_HALF_DECK = 26


@njit(**JIT)
def play_fast_even(buf: np.ndarray, offset: int, sizes: np.ndarray, cap: int) -> tuple:
    """play_fast_at for hands of 26 and 26 cards, the standard deal's (`sizes` is not read)."""
    return _fast(buf, offset, _HALF_DECK, _HALF_DECK, cap)


def play_fast_for(sizes: tuple[int, ...]):
    """The play_fast_at a search of deals cut into `sizes` runs: the standard deal's own for
    26/26. Two functions, not one that branches on the sizes: a run compiles only the one it
    runs (each is seconds of a first compile)."""
    return _fast_for(play_fast_even, play_fast_at, sizes)


def _fast_for(even, at, sizes: tuple[int, ...]):
    """`even` for the standard deal's hand sizes, else `at` (one rule set's play_fast_for)."""
    return even if tuple(sizes) == (_HALF_DECK, _HALF_DECK) else at


@njit(**JIT)
def play_exact_at(buf: np.ndarray, offset: int, sizes: np.ndarray) -> tuple:
    """exact_at with the hand sizes as an array: the search's signature."""
    return exact_at(buf, offset, sizes[0], sizes[1])


@njit(**PARALLEL_JIT)
def _score_rows(flat, width, n0, n1, rows, cap, out):
    """Score deals `rows` of a flat batch of rows `width` long; each writes only its own slots.

    `out` is Scores' arrays in field order (cards, tricks, status, winner, then the loop fields).
    """
    cards, tricks, status, winner, start_cards, start_tricks, period_cards, period_tricks = out
    for r in prange(rows.shape[0]):
        i = rows[r]
        at = i * width
        c, t, code = fast_at(flat, at, n0[i], n1[i], cap)
        if code != UNDECIDED:
            cards[i], tricks[i], status[i], winner[i] = c, t, FINISHED, code
            continue
        st, c, t, w, start_c, start_t, period_c, period_t = exact_at(flat, at, n0[i], n1[i])
        cards[i], tricks[i], status[i], winner[i] = c, t, st, w
        if st == LOOP:
            start_cards[i], start_tricks[i] = start_c, start_t
            period_cards[i], period_tricks[i] = period_c, period_t


def score_rows(
    deals: np.ndarray, sizes: np.ndarray, rows: np.ndarray, out: Scores, cap: int
) -> None:
    """Score deals[rows] (two seats, at most 64 cards each) into out's slots, others untouched.

    Runs in parallel under the caller's numba thread settings.
    """
    _score_batch(_score_rows, deals, sizes, rows, out, cap)


def _score_batch(compiled, deals, sizes, rows, out, cap: int) -> None:
    """score_rows through `compiled`, the _score_rows of one rule set."""
    n0 = np.ascontiguousarray(sizes[:, 0])
    n1 = np.ascontiguousarray(sizes[:, 1])
    compiled(deals.reshape(-1), deals.shape[1], n0, n1, rows, cap, out.arrays())


@njit(**PARALLEL_JIT)
def _total_cards(flat, width, n, n0, n1, cap):
    """The bench kernel: n two-seat deals of a flat batch; cards and tricks summed."""
    cards = np.zeros(n, dtype=np.int64)
    tricks = np.zeros(n, dtype=np.int64)
    for i in prange(n):
        c, t, code = fast_at(flat, i * width, n0, n1, cap)
        if code == UNDECIDED:
            _, c, t, _, _, _, _, _ = exact_at(flat, i * width, n0, n1)
        cards[i] = c
        tricks[i] = t
    return cards.sum(), tricks.sum()


def total_cards(deals: np.ndarray, n0: int, n1: int, cap: int = FAST_CAP) -> tuple[int, int]:
    """Total cards and tricks over deals (N, W), every one with hands of n0 and n1 cards."""
    return _total(_total_cards, deals, n0, n1, cap)


def _total(compiled, deals: np.ndarray, n0: int, n1: int, cap: int = FAST_CAP) -> tuple[int, int]:
    """total_cards through `compiled`, the _total_cards of one rule set."""
    deals = np.ascontiguousarray(deals, dtype=np.uint8)
    return compiled(deals.reshape(-1), deals.shape[1], len(deals), n0, n1, cap)


# Rule sets (kernels/rules/sets.py): a rule set's copies (kernels/rules/copies.py) of what reaches
# the trick rules' flags (kernels/rules/flags.two_seat_flags), made on first use.
def _copy(flags: Flags, _rules: RuleSet) -> SimpleNamespace:
    ruled = RuleCopy(flags)
    even, at = ruled[play_fast_even], ruled[play_fast_at]
    return SimpleNamespace(
        score_rows=partial(_score_batch, ruled[_score_rows]),
        play_fast_at=at,
        play_fast_for=partial(_fast_for, even, at),
        play_exact_at=ruled[play_exact_at],
        fast_at=ruled[fast_at],
        exact_at=ruled[exact_at],
        total_cards=partial(_total, ruled[_total_cards]),
    )


_COPIES = RuleCopies(__name__, two_seat_flags, _copy)


def for_rules(rules: RuleSet) -> ModuleType | SimpleNamespace | None:
    """This kernel's entry points under `rules` (score_rows, play_fast_at, play_fast_for,
    play_exact_at, total_cards): itself for every rule set that plays two seats as bmn's rules
    do, a compiled copy for another, None for one it cannot play."""
    return _COPIES.lookup(rules)
