"""Measured, not kept: the two-seat batch scorer as a branch-free event machine, one or two
games in flight (benchmarks/cpu_variants.py times it; docs/development.md: it lost, as both
kinds of event computed every time and chosen by masks cost more than the branches they save).

An event is one step of a trick: free play to the first court card (both hands lay), or one
payment (the payer lays numerals until it pays in full or lays a court card). Both kinds are
computed every event and one chosen by masks, so the deal decides no branch; the loop's only
branches are rare (a hand down to its last card, a game past the cap). A lane is
(pc, p0, p1, qc, q0, q1, xc, x0, x1, n, pen, seat, cards, tricks): the hand to act (p, seat
`seat`), the other (q), the pile's masks and cards (x, n), the penalty owed (0: free play), and
the game's counts at the last trick's end.

An event that would leave a hand with one card or none is not taken: the trick is played on
by the shared rules (kernels/two_tricks.py through kernels/cpu/two.py: `_step` from the trick's
start, `_chain` from a payment), which know every rule set's endings. Every other event plays
alike under every rule set, so the results are two.py's, bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from bmn.kernels.config import FINISHED, INLINE_JIT, JIT, LOOP, PARALLEL_JIT
from bmn.kernels.cpu.bits import ctz, top_bit
from bmn.kernels.cpu.two import _chain, _ending, _start, _step, exact_at, fast_at

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_TWO = np.uint64(2)
_FOUR = np.uint64(4)
_TOP = np.uint64(63)

BLOCK = 256


@njit(**INLINE_JIT)
def _pick(f, a, b):
    """a where the mask f is all ones, else b."""
    return b ^ ((a ^ b) & f)


@njit(**INLINE_JIT)
def _event(lane, cap) -> tuple:
    """(the lane after one event, rare): rare when the event must be left to the shared rules."""
    pc, p0, p1, qc, q0, q1, xc, x0, x1, n, pen, seat, cards, tricks = lane
    # Free play: the hand with fewer leading numerals (the actor's on a tie) lays a court card.
    i = ctz(pc)
    j = ctz(qc)
    g = np.uint64(i > j)
    gm = _ZERO - g
    k = np.uint64(min(i, j))
    cc = _pick(gm, qc, pc)
    c0 = _pick(gm, q0, p0)
    c1 = _pick(gm, q1, p1)
    yc = _pick(gm, pc, qc)
    y0 = _pick(gm, p0, q0)
    y1 = _pick(gm, p1, q1)
    s = (k + _ONE) & _TOP
    up = (k + g) & _TOP
    fb0 = (c0 >> k) & _ONE
    fb1 = (c1 >> k) & _ONE
    at = (k + k + g) & _TOP
    f_rare = ((cc >> s) < _FOUR) | ((yc >> up) < _FOUR) | (k >= _TOP)
    # A payment: pen numerals, or a court card after k2 < pen of them.
    k2 = np.uint64(ctz(pc))
    upen = np.uint64(pen)
    paid = k2 >= upen
    pm = _ZERO - np.uint64(paid)
    b0 = (p0 >> k2) & _ONE
    b1 = (p1 >> k2) & _ONE
    at2 = (np.uint64(n) + k2) & _TOP
    lay = _pick(pm, upen, k2 + _ONE) & _TOP
    rc, r0, r1 = pc >> lay, p0 >> lay, p1 >> lay  # the payer after the event
    n2 = n + np.int64(_pick(pm, upen, k2 + _ONE))
    qn = np.uint64(top_bit(qc))
    end = _ONE << (np.uint64(n2) & _TOP)
    colc = (qc ^ (_ONE << qn)) | ((xc | end) << qn)
    done = np.int64(paid)
    p_cards = cards + n2 * done
    p_rare = (rc < _FOUR) | (paid & (p_cards > cap)) | (k2 >= _TOP)
    # Free play (pen 0) or a payment, chosen by mask.
    fm = _ZERO - np.uint64(pen == 0)
    return (
        _pick(fm, yc >> up, _pick(pm, colc, qc)),
        _pick(fm, y0 >> up, _pick(pm, q0 | (x0 << qn), q0)),
        _pick(fm, y1 >> up, _pick(pm, q1 | (x1 << qn), q1)),
        _pick(fm, cc >> s, rc),
        _pick(fm, c0 >> s, r0),
        _pick(fm, c1 >> s, r1),
        _pick(fm, _ONE << at, xc | (_ONE << at2)),
        _pick(fm, fb0 << at, x0 | (b0 << at2)),
        _pick(fm, fb1 << at, x1 | (b1 << at2)),
        np.int64(_pick(fm, np.uint64(2 * k + 1 + g), np.uint64(n2))),
        np.int64(_pick(fm, fb0 + _TWO * fb1 + _ONE, (b0 + _TWO * b1 + _ONE) & ~pm)),
        np.int64(_pick(fm, np.uint64(seat) ^ g ^ _ONE, np.uint64(seat) ^ _ONE)),
        np.int64(_pick(fm, np.uint64(cards), np.uint64(p_cards))),
        np.int64(_pick(fm, np.uint64(tricks), np.uint64(tricks + done))),
    ), ((pen == 0) & f_rare) | ((pen != 0) & p_rare)


@njit(**INLINE_JIT)
def _lane(state, cards, tricks) -> tuple:
    """A lane at a trick's start from two.py's trick-boundary state."""
    lc, l0, l1, oc, o0, o1, leader = state
    return (lc, l0, l1, oc, o0, o1, _ZERO, _ZERO, _ZERO, np.int64(0), np.int64(0), leader,
            cards, tricks)  # fmt: skip


@njit(**JIT)
def _rare(lane) -> tuple:
    """Play the rest of the lane's trick by the shared rules: (lane at the next trick's start,
    over, end)."""
    pc, p0, p1, qc, q0, q1, xc, x0, x1, n, pen, seat, cards, tricks = lane
    if pen == 0:
        state, laid, over, end = _step((pc, p0, p1, qc, q0, q1, seat))
        return _lane(state, cards + laid, tricks + 1), over, end
    took, mc, m0, m1, wc, w0, w1, pile, over, paid = _chain(
        pc, p0, p1, qc, q0, q1, xc, x0, x1, n, pen
    )
    end = 2 if paid else 1  # two_tricks' PAID_END, PAYING_END
    if took:  # q took the pile: it leads
        return _lane((wc, w0, w1, mc, m0, m1, seat ^ 1), cards + pile, tricks + 1), over, end
    return _lane((mc, m0, m1, wc, w0, w1, seat), cards + pile, tricks + 1), over, end


@njit(**INLINE_JIT)
def _record(out, flat, width, n0, n1, row, winner, cards, tricks, over, end) -> None:
    """Write a game's result: finished, or past the cap and replayed exactly (as two.py does)."""
    c_out, t_out, status, won, start_c, start_t, period_c, period_t = out
    if over:
        cards, tricks = _ending(cards, tricks, end)
        c_out[row], t_out[row], status[row], won[row] = cards, tricks, FINISHED, winner
        return
    st, c, t, w, sc, stt, pc, pt = exact_at(flat, row * width, n0[row], n1[row])
    c_out[row], t_out[row], status[row], won[row] = c, t, st, w
    if st == LOOP:
        start_c[row], start_t[row], period_c[row], period_t[row] = sc, stt, pc, pt


@njit(**INLINE_JIT)
def _begin(out, flat, width, n0, n1, rows, nxt, hi) -> tuple:
    """(lane, row, next index): the next deal of rows[nxt:hi] with cards in both hands;
    deals with an empty hand on the way are scored at once (fast_at's answer). Row -1: none."""
    c_out, t_out, status, winner = out[0], out[1], out[2], out[3]
    while nxt < hi:
        row = rows[nxt]
        nxt += 1
        a, b = n0[row], n1[row]
        if a == 0 or b == 0:
            c, t, w = fast_at(flat, row * width, a, b, 0)
            c_out[row], t_out[row], status[row], winner[row] = c, t, FINISHED, w
            continue
        return _lane(_start(flat, row * width, a, b), 0, 0), row, nxt
    return _lane(_start(flat, 0, 1, 1), 0, 0), np.int64(-1), nxt


@njit(**INLINE_JIT)
def _settle(batch, nxt, hi, cap, lane, row) -> tuple:
    """The rare path of a lane: its trick played by the shared rules; a game that ended (or
    passed the cap) recorded and the next deal begun. (lane, row, next index)."""
    out, flat, width, n0, n1, rows = batch
    lane, over, end = _rare(lane)
    if over or lane[12] > cap:
        _record(out, flat, width, n0, n1, row, lane[11], lane[12], lane[13], over, end)
        return _begin(out, flat, width, n0, n1, rows, nxt, hi)
    return lane, row, nxt


@njit(**JIT)
def _block1(out, flat, width, n0, n1, rows, lo, hi, cap) -> None:
    """Score rows[lo:hi], one game at a time."""
    batch = (out, flat, width, n0, n1, rows)
    a, ra, nxt = _begin(out, flat, width, n0, n1, rows, lo, hi)
    while ra >= 0:
        after, rare = _event(a, cap)
        if rare:
            a, ra, nxt = _settle(batch, nxt, hi, cap, a, ra)
        else:
            a = after


@njit(**JIT)
def _block2(out, flat, width, n0, n1, rows, lo, hi, cap) -> None:
    """Score rows[lo:hi], two games in flight; the last played out alone."""
    batch = (out, flat, width, n0, n1, rows)
    a, ra, nxt = _begin(out, flat, width, n0, n1, rows, lo, hi)
    b, rb, nxt = _begin(out, flat, width, n0, n1, rows, nxt, hi)
    while ra >= 0 and rb >= 0:
        after_a, rare_a = _event(a, cap)
        after_b, rare_b = _event(b, cap)
        if rare_a | rare_b:
            if rare_a:
                a, ra, nxt = _settle(batch, nxt, hi, cap, a, ra)
            else:
                a = after_a
            if rare_b:
                b, rb, nxt = _settle(batch, nxt, hi, cap, b, rb)
            else:
                b = after_b
        else:
            a = after_a
            b = after_b
    if rb >= 0:
        a, ra = b, rb
    while ra >= 0:  # the block's last game
        after, rare = _event(a, cap)
        if rare:
            a, ra, nxt = _settle(batch, nxt, hi, cap, a, ra)
        else:
            a = after


@njit(**PARALLEL_JIT)
def _score_rows1(flat, width, n0, n1, rows, cap, out):
    """Score deals `rows` (two seats), a block of BLOCK deals a prange iteration."""
    blocks = (rows.shape[0] + BLOCK - 1) // BLOCK
    for k in prange(blocks):
        lo = k * BLOCK
        _block1(out, flat, width, n0, n1, rows, lo, min(lo + BLOCK, rows.shape[0]), cap)


@njit(**PARALLEL_JIT)
def _score_rows2(flat, width, n0, n1, rows, cap, out):
    """Score deals `rows` (two seats), two games in flight (see _score_rows1)."""
    blocks = (rows.shape[0] + BLOCK - 1) // BLOCK
    for k in prange(blocks):
        lo = k * BLOCK
        _block2(out, flat, width, n0, n1, rows, lo, min(lo + BLOCK, rows.shape[0]), cap)
