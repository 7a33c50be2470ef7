"""The two-seat trick rules on bit-queue hands, written once for the CPU and the GPU kernels.

Plain Python: kernels/cpu/two.py compiles them with njit, kernels/cuda/two.py as CUDA device
functions (kernels/rules/targets.compile_for), each target bringing its own `ctz` and `top_bit`.

A hand is three uint64 masks, bit i holding the i-th card from the top: `court` (set for J, Q,
K, A, plus a sentinel bit just past the bottom card) and the two bits of (value - 1) for court
cards (zero for numerals). Laying k cards shifts the masks right by k; taking the pile ORs the
pile's masks in above the hand's cards (the pile keeps the order it was laid); a run of
numerals is laid in one step with count-trailing-zeros. In a deal of at most 64 cards a hand in
play holds at most 63 (the other player holds one or more), so the sentinel always fits.

docs/rules.md, two players: a player who must lay a card and has none loses and the other takes the
pile as one last trick.
"""

from __future__ import annotations

import numpy as np

# Unsigned constants: mixing uint64 with int64 in numba promotes to float64.
_ONE = np.uint64(1)
_TWO = np.uint64(2)
_THREE = np.uint64(3)
_TOP = np.uint64(63)

# A rule set's points, frozen into the compiled rules (kernels/rules/flags.py, `two_seat_flags`):
# each target's compile_for passes a rule set's values; these are bmn's, the default.
AT_ONCE = False  # empty_hand "at-once": the game ends as a seat lays its last card
ASKED = False  # finish "asked": a trick that empties a hand does not end the game at once
TRICKS = 0  # tricks counted: 0 every pile taken, 1 piles won by a paid penalty, 2 battles

# How a game ended (the last trick): a seat ran out (or laid its last card) in free play; ran
# out while paying a penalty; or paid one that left it empty.
FREE_END, PAYING_END, PAID_END = 0, 1, 2


def ctz(x):
    """Trailing zeros of a non-zero uint64 (each target compiles the rules with its own)."""
    return (int(x) & -int(x)).bit_length() - 1


def top_bit(x):
    """Position of the highest set bit of a non-zero uint64 (each target brings its own)."""
    return int(x).bit_length() - 1


def pays(mc, m0, m1, pc, p0, p1, pile, pen):
    """Hand m owes `pen` cards onto the pile (pile cards so far, masks pc, p0, p1).

    Returns (paid, court, mc, m0, m1, pc, p0, p1, pile, pen): `paid` when pen numerals were
    laid; `court` when a court card was laid first (pen is then its value); neither when m
    ran out while paying (or, AT_ONCE, laid its last card, a court card).
    """
    k = ctz(mc)
    if k >= pen:
        s = np.uint64(pen)
        return True, False, mc >> s, m0 >> s, m1 >> s, pc, p0, p1, pile + pen, pen
    uk = np.uint64(k)
    if AT_ONCE:  # the sentinel (1), or a court card then the sentinel (3): the game ends
        rest = mc >> uk
        if rest <= _THREE:  # out while paying, or its last card laid (a court card)
            return False, False, mc, m0, m1, pc, p0, p1, pile + k + np.int64(rest >> _ONE), pen
    elif (mc >> uk) == _ONE:  # the sentinel: m is out while paying
        return False, False, mc, m0, m1, pc, p0, p1, pile + k, pen
    at = np.uint64(pile + k)
    b0 = (m0 >> uk) & _ONE
    b1 = (m1 >> uk) & _ONE
    pc |= _ONE << at
    p0 |= b0 << at
    p1 |= b1 << at
    s = uk + _ONE
    value = np.int64(b0 + b1 * _TWO) + 1
    return False, True, mc >> s, m0 >> s, m1 >> s, pc, p0, p1, pile + k + 1, value


def collect(wc, w0, w1, pc, p0, p1, pile):
    """Hand w takes the pile under its cards, in the order it was laid."""
    wn = np.uint64(top_bit(wc))
    end = _ONE << (np.uint64(pile) & _TOP)  # the new sentinel (64 cards only when the game ends)
    wc = (wc ^ (_ONE << wn)) | ((pc | end) << wn)
    return wc, w0 | (p0 << wn), w1 | (p1 << wn)


def chain(mc, m0, m1, wc, w0, w1, pc, p0, p1, pile, pen):
    """m pays pen to w, then w pays m, ..., until a penalty is paid in numerals or one runs out.

    Returns (w_took, mc, m0, m1, wc, w0, w1, pile, over, paid): `paid` when the last penalty
    was paid (else the payer ran out). Unrolled by two so that who pays whom is known in the
    code rather than swapped at run time.
    """
    while True:
        paid, court, mc, m0, m1, pc, p0, p1, pile, pen = pays(mc, m0, m1, pc, p0, p1, pile, pen)
        if not court:
            if paid:
                wc, w0, w1 = collect(wc, w0, w1, pc, p0, p1, pile)
                return True, mc, m0, m1, wc, w0, w1, pile, mc == _ONE, True
            return True, mc, m0, m1, wc, w0, w1, pile, True, False
        paid, court, wc, w0, w1, pc, p0, p1, pile, pen = pays(wc, w0, w1, pc, p0, p1, pile, pen)
        if not court:
            if paid:
                mc, m0, m1 = collect(mc, m0, m1, pc, p0, p1, pile)
                return False, mc, m0, m1, wc, w0, w1, pile, wc == _ONE, True
            return False, mc, m0, m1, wc, w0, w1, pile, True, False


def trick(lc, l0, l1, oc, o0, o1):
    """Play one trick from an empty pile: hand l leads, hand o follows; both hold cards.

    Returns (leader_took, lc, l0, l1, oc, o0, o1, cards, over, end): the hands after the
    trick, the cards laid in it, `over` when the loser ran out (the taker wins; hands then
    moot), and then `end`, how (FREE_END, PAYING_END, PAID_END: see `ending`).
    """
    # Free play: the leader lays at steps 0, 2, 4, ..., the other at 1, 3, 5, ...
    i = ctz(lc)
    j = ctz(oc)
    # AT_ONCE, a hand's last card ends the game, so a hand of numerals stops a card before its
    # sentinel: that can put the other's stop first only where i and j are one card apart, so
    # the test sits in each branch, off the path to the comparison of i and j.
    if i <= j:  # the leader reaches a court card (or runs out) first, at step 2i
        ui = np.uint64(i)
        if AT_ONCE:
            rest = lc >> ui
            if i == j and (oc >> ui) == _ONE and rest != _ONE:  # the other's last card, at 2j - 1
                return True, lc, l0, l1, oc, o0, o1, 2 * j, True, FREE_END
            if rest <= _THREE:  # its last card: a numeral at step 2i - 2, or a court card at 2i
                laid = 2 * i - 1 + np.int64(rest & _TWO)
                return False, lc, l0, l1, oc, o0, o1, laid, True, FREE_END
        elif (lc >> ui) == _ONE:
            return False, lc, l0, l1, oc, o0, o1, 2 * i, True, FREE_END
        at = ui + ui
        b0 = (l0 >> ui) & _ONE
        b1 = (l1 >> ui) & _ONE
        pen = np.int64(b0 + b1 * _TWO) + 1
        s = ui + _ONE
        took, oc, o0, o1, lc, l0, l1, pile, over, paid = chain(
            oc >> ui, o0 >> ui, o1 >> ui, lc >> s, l0 >> s, l1 >> s,
            _ONE << at, b0 << at, b1 << at, 2 * i + 1, pen,
        )  # fmt: skip
        return took, lc, l0, l1, oc, o0, o1, pile, over, PAID_END if paid else PAYING_END
    # the other player reaches a court card (or runs out) first, at step 2j + 1
    uj = np.uint64(j)
    if AT_ONCE:
        rest = oc >> uj
        if rest != _ONE and i == j + 1 and (lc >> np.uint64(i)) == _ONE:  # the leader's, at 2j
            return False, lc, l0, l1, oc, o0, o1, 2 * i - 1, True, FREE_END
        if rest <= _THREE:  # its last card: a numeral at step 2j - 1, or a court card at 2j + 1
            return True, lc, l0, l1, oc, o0, o1, 2 * j + np.int64(rest & _TWO), True, FREE_END
    elif (oc >> uj) == _ONE:
        return True, lc, l0, l1, oc, o0, o1, 2 * j + 1, True, FREE_END
    s = uj + _ONE
    at = uj + s
    b0 = (o0 >> uj) & _ONE
    b1 = (o1 >> uj) & _ONE
    pen = np.int64(b0 + b1 * _TWO) + 1
    took, lc, l0, l1, oc, o0, o1, pile, over, paid = chain(
        lc >> s, l0 >> s, l1 >> s, oc >> s, o0 >> s, o1 >> s,
        _ONE << at, b0 << at, b1 << at, 2 * j + 2, pen,
    )  # fmt: skip
    return not took, lc, l0, l1, oc, o0, o1, pile, over, PAID_END if paid else PAYING_END


def ending(cards, tricks, end):
    """A finished game's (cards, tricks), counted as the rule set counts them, from bmn's count
    (every pile taken, the last included) and how the last trick ended.

    TRICKS 1 counts only piles won by a paid penalty; 2 counts battles (a court card laid in
    free play, not one that ends the game): one in every trick but one ended in free play.
    ASKED: a trick that empties the payer's hand does not end the game: the taker leads one
    more card and the empty seat, asked to answer, goes out (one more pile taken).
    """
    if ASKED and end == PAID_END:
        cards += 1
        if TRICKS == 0:
            tricks += 1
    if TRICKS == 1 and end != PAID_END:
        tricks -= 1
    if TRICKS == 2 and end == FREE_END:
        tricks -= 1
    return cards, tricks


def lone_lead(n0, first):
    """(cards, tricks, winner) when seat 1 holds nothing: seat 0 lays one card (value `first`)
    and seat 1, asked to answer or pay, is out; AT_ONCE, a hand dealt empty ends the game
    before the first card, seat 0 (who holds cards) the winner (kernels/reference.py)."""
    if AT_ONCE:
        return 0, 0, 0
    cards, tricks = ending(1, 1, PAYING_END if first > 0 else FREE_END)
    return cards, tricks, 0


# In the order kernels/rules/targets.compile_for compiles them: each after the rules it calls.
RULES = (pays, collect, chain, trick, ending, lone_lead)
