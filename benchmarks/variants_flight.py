"""Measured, not kept: the two-seat batch scorer with several games in flight per thread, and
with a free play that does not branch on which hand meets a court card first
(benchmarks/cpu_variants.py times them; docs/development.md has the figures: both lost).

One game is a dependent chain: each trick waits on the last, and a mispredicted branch (which
hand meets a court card first, how long a penalty chain runs) stalls it. Playing 2 or 4
independent deals in one loop, a trick of each in turn, gives the processor work from another
game to overlap with those stalls. The trick rules are kernels/cpu/two.py's (`_step`, the
shared kernels/two_tricks.py compiled for the CPU): only the loop around them is here. A game
that ends is recorded and replaced by the next deal of the block; when a block runs dry, the
games still in flight are played out one at a time.

`trick_select` is kernels/two_tricks.trick with that branch replaced by masks, compiled in
place of it into copies of two.py's functions (`selected`).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from bmn.kernels import two_tricks
from bmn.kernels.config import FINISHED, INLINE_JIT, JIT, LOOP, PARALLEL_JIT
from bmn.kernels.cpu import two
from bmn.kernels.cpu.bits import ctz, top_bit
from bmn.kernels.cpu.two import _ending, _start, _step, _trick, exact_at, fast_at
from bmn.kernels.targets import compile_for, specialise

# trick_select's names; compile_for gives its copy two_tricks' namespace, where they are these.
from bmn.kernels.two_tricks import _ONE, AT_ONCE, FREE_END, PAID_END, PAYING_END, chain

# Deals per block, one block a prange iteration: large enough that the games played out
# singly at a block's end (fewer than the lanes) cost little.
BLOCK = 256


@njit(**INLINE_JIT)
def _record(out, flat, width, n0, n1, row, state, cards, tricks, over, end) -> None:
    """Write a game's result: finished, or past the cap and replayed exactly (as two.py does)."""
    c_out, t_out, status, winner, start_c, start_t, period_c, period_t = out
    if over:
        cards, tricks = _ending(cards, tricks, end)
        c_out[row], t_out[row], status[row], winner[row] = cards, tricks, FINISHED, state[6]
        return
    st, c, t, w, sc, stt, pc, pt = exact_at(flat, row * width, n0[row], n1[row])
    c_out[row], t_out[row], status[row], winner[row] = c, t, st, w
    if st == LOOP:
        start_c[row], start_t[row], period_c[row], period_t[row] = sc, stt, pc, pt


@njit(**INLINE_JIT)
def _begin(out, flat, width, n0, n1, rows, nxt, hi) -> tuple:
    """(state, row, next index): the next deal of rows[nxt:hi] with cards in both hands, in
    flight; deals with an empty hand on the way are scored at once. Row -1: none left."""
    c_out, t_out, status, winner = out[0], out[1], out[2], out[3]
    while nxt < hi:
        row = rows[nxt]
        nxt += 1
        a, b = n0[row], n1[row]
        if a == 0 or b == 0:  # fast_at's own answer: no trick to interleave
            c, t, w = fast_at(flat, row * width, a, b, 0)
            c_out[row], t_out[row], status[row], winner[row] = c, t, FINISHED, w
            continue
        return _start(flat, row * width, a, b), row, nxt
    return _start(flat, 0, 1, 1), np.int64(-1), nxt


@njit(**INLINE_JIT)
def _settle(batch, nxt, hi, cap, state, cards, tricks, row, over, end) -> tuple:
    """A lane after a trick: (state, cards, tricks, row, next index); a game that ended (or
    passed the cap) recorded and the next deal begun (row -1: none left). `batch` is
    (out, flat, width, n0, n1, rows)."""
    out, flat, width, n0, n1, rows = batch
    if over or cards > cap:
        _record(out, flat, width, n0, n1, row, state, cards, tricks, over, end)
        state, row, nxt = _begin(out, flat, width, n0, n1, rows, nxt, hi)
        return state, np.int64(0), np.int64(0), row, nxt
    return state, cards, tricks, row, nxt


@njit(**JIT)
def _drain(out, flat, width, n0, n1, cap, state, cards, tricks, row) -> None:
    """Play a lane's game (if any) to its end alone."""
    if row < 0:
        return
    while True:
        state, laid, over, end = _step(state)
        cards += laid
        tricks += 1
        if over or cards > cap:
            _record(out, flat, width, n0, n1, row, state, cards, tricks, over, end)
            return


@njit(**JIT)
def _block2(out, flat, width, n0, n1, rows, lo, hi, cap) -> None:
    """Score rows[lo:hi], two games in flight: a trick of each in turn until one ends, then
    the ended one settled and replaced (the tight loop holds only the games' registers)."""
    sa, ra, nxt = _begin(out, flat, width, n0, n1, rows, lo, hi)
    sb, rb, nxt = _begin(out, flat, width, n0, n1, rows, nxt, hi)
    ca = ta = cb = tb = np.int64(0)
    while ra >= 0 and rb >= 0:
        while True:
            sa, la, oa, ea = _step(sa)
            sb, lb, ob, eb = _step(sb)
            ca += la
            cb += lb
            ta += 1
            tb += 1
            if oa or ob or ca > cap or cb > cap:
                break
        args = (out, flat, width, n0, n1, rows)
        sa, ca, ta, ra, nxt = _settle(args, nxt, hi, cap, sa, ca, ta, ra, oa, ea)
        sb, cb, tb, rb, nxt = _settle(args, nxt, hi, cap, sb, cb, tb, rb, ob, eb)
    _drain(out, flat, width, n0, n1, cap, sa, ca, ta, ra)
    _drain(out, flat, width, n0, n1, cap, sb, cb, tb, rb)


@njit(**JIT)
def _block4(out, flat, width, n0, n1, rows, lo, hi, cap) -> None:
    """Score rows[lo:hi], four games in flight (see _block2)."""
    sa, ra, nxt = _begin(out, flat, width, n0, n1, rows, lo, hi)
    sb, rb, nxt = _begin(out, flat, width, n0, n1, rows, nxt, hi)
    sc, rc, nxt = _begin(out, flat, width, n0, n1, rows, nxt, hi)
    sd, rd, nxt = _begin(out, flat, width, n0, n1, rows, nxt, hi)
    ca = ta = cb = tb = cc = tc = cd = td = np.int64(0)
    while ra >= 0 and rb >= 0 and rc >= 0 and rd >= 0:
        while True:
            sa, la, oa, ea = _step(sa)
            sb, lb, ob, eb = _step(sb)
            sc, lc, oc, ec = _step(sc)
            sd, ld, od, ed = _step(sd)
            ca += la
            cb += lb
            cc += lc
            cd += ld
            ta += 1
            tb += 1
            tc += 1
            td += 1
            if oa or ob or oc or od or max(max(ca, cb), max(cc, cd)) > cap:
                break
        args = (out, flat, width, n0, n1, rows)
        sa, ca, ta, ra, nxt = _settle(args, nxt, hi, cap, sa, ca, ta, ra, oa, ea)
        sb, cb, tb, rb, nxt = _settle(args, nxt, hi, cap, sb, cb, tb, rb, ob, eb)
        sc, cc, tc, rc, nxt = _settle(args, nxt, hi, cap, sc, cc, tc, rc, oc, ec)
        sd, cd, td, rd, nxt = _settle(args, nxt, hi, cap, sd, cd, td, rd, od, ed)
    _drain(out, flat, width, n0, n1, cap, sa, ca, ta, ra)
    _drain(out, flat, width, n0, n1, cap, sb, cb, tb, rb)
    _drain(out, flat, width, n0, n1, cap, sc, cc, tc, rc)
    _drain(out, flat, width, n0, n1, cap, sd, cd, td, rd)


@njit(**PARALLEL_JIT)
def _score_rows2(flat, width, n0, n1, rows, cap, out):
    """Score deals `rows` (two seats), a block of BLOCK deals a prange iteration, two in flight."""
    blocks = (rows.shape[0] + BLOCK - 1) // BLOCK
    for k in prange(blocks):
        lo = k * BLOCK
        _block2(out, flat, width, n0, n1, rows, lo, min(lo + BLOCK, rows.shape[0]), cap)


@njit(**PARALLEL_JIT)
def _score_rows4(flat, width, n0, n1, rows, cap, out):
    """Score deals `rows` (two seats), four in flight (see _score_rows2)."""
    blocks = (rows.shape[0] + BLOCK - 1) // BLOCK
    for k in prange(blocks):
        lo = k * BLOCK
        _block4(out, flat, width, n0, n1, rows, lo, min(lo + BLOCK, rows.shape[0]), cap)


def _swap(g, a, b):
    """(a, b) swapped when the mask g is all ones, as they are when it is zero: no branch."""
    x = (a ^ b) & g
    return a ^ x, b ^ x


def trick_select(lc, l0, l1, oc, o0, o1):
    """two_tricks.trick's results with no branch on which hand meets a court card first.

    The hand that lays the court card (c) and the hand that pays it (p) are the leader and the
    other, or the other and the leader, chosen by masks: free play ends at step 2k + g, k the
    lesser count of leading numerals and g = 1 when the other's court card comes first; c
    has then laid k + 1 cards and p k + g.
    """
    i = ctz(lc)
    j = ctz(oc)
    if AT_ONCE:  # as in trick
        i -= np.int64((lc >> np.uint64(i)) == _ONE)
        j -= np.int64((oc >> np.uint64(j)) == _ONE)
    g = np.int64(i > j)
    k = min(i, j)
    mask = np.uint64(0) - np.uint64(g)
    cc, pc = _swap(mask, lc, oc)
    uk = np.uint64(k)
    if AT_ONCE:
        if (cc >> (uk + _ONE)) == _ONE:  # its last card
            return g == 1, lc, l0, l1, oc, o0, o1, 2 * k + 1 + g, True, FREE_END
    elif (cc >> uk) == _ONE:  # c ran out
        return g == 1, lc, l0, l1, oc, o0, o1, 2 * k + g, True, FREE_END
    c0, p0 = _swap(mask, l0, o0)
    c1, p1 = _swap(mask, l1, o1)
    at = np.uint64(2 * k + g)
    b0 = (c0 >> uk) & _ONE
    b1 = (c1 >> uk) & _ONE
    pen = np.int64(b0 + b1 * np.uint64(2)) + 1
    s = uk + _ONE
    up = uk + np.uint64(g)
    took, pc, p0, p1, cc, c0, c1, pile, over, paid = chain(
        pc >> up, p0 >> up, p1 >> up, cc >> s, c0 >> s, c1 >> s,
        _ONE << at, b0 << at, b1 << at, 2 * k + 1 + g, pen,
    )  # fmt: skip
    lc, oc = _swap(mask, cc, pc)
    l0, o0 = _swap(mask, c0, p0)
    l1, o1 = _swap(mask, c1, p1)
    end = PAID_END if paid else PAYING_END
    return took != (g == 1), lc, l0, l1, oc, o0, o1, pile, over, end


def selected() -> dict:
    """two.py's functions and this module's, compiled with trick_select in place of trick."""
    rules = (two_tricks.pays, two_tricks.collect, two_tricks.chain, _swap, trick_select)
    compiled = compile_for(rules, njit(**INLINE_JIT), "select", ctz=ctz, top_bit=top_bit)
    flight = (_drain, _block2, _block4, _score_rows2, _score_rows4)
    return specialise(two._RULED + flight, "select", _trick=compiled[-1])


@njit(**JIT)
def _fast_by_leader(buf, offset, n0, n1, cap) -> tuple:
    """two.fast_at with a loop of its own for each seat to lead: no hands swapped after a
    trick, and each seat's tricks at branch sites of their own for the predictor."""
    if n0 == 0 or n1 == 0:
        return fast_at(buf, offset, n0, n1, cap)
    a, b, c, d, e, f, _ = _start(buf, offset, n0, n1)  # seat 0's hand, seat 1's
    cards = 0
    tricks = 0
    while True:
        while True:  # seat 0 leads
            led, a, b, c, d, e, f, laid, over, end = _trick(a, b, c, d, e, f)
            cards += laid
            tricks += 1
            if over:
                cards, tricks = _ending(cards, tricks, end)
                return cards, tricks, 0 if led else 1
            if cards > cap:
                return cards, tricks, -1
            if not led:
                break
        while True:  # seat 1 leads
            led, d, e, f, a, b, c, laid, over, end = _trick(d, e, f, a, b, c)
            cards += laid
            tricks += 1
            if over:
                cards, tricks = _ending(cards, tricks, end)
                return cards, tricks, 1 if led else 0
            if cards > cap:
                return cards, tricks, -1
            if not led:
                break


@njit(**PARALLEL_JIT)
def _score_rows_by_leader(flat, width, n0, n1, rows, cap, out):
    """two._score_rows through _fast_by_leader."""
    cards, tricks, status, winner, start_cards, start_tricks, period_cards, period_tricks = out
    for r in prange(rows.shape[0]):
        i = rows[r]
        at = i * width
        c, t, code = _fast_by_leader(flat, at, n0[i], n1[i], cap)
        if code != -1:
            cards[i], tricks[i], status[i], winner[i] = c, t, FINISHED, code
            continue
        st, c, t, w, start_c, start_t, period_c, period_t = exact_at(flat, at, n0[i], n1[i])
        cards[i], tricks[i], status[i], winner[i] = c, t, st, w
        if st == LOOP:
            start_cards[i], start_tricks[i] = start_c, start_t
            period_cards[i], period_tricks[i] = period_c, period_t
