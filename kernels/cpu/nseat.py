"""The compiled kernel for 2 to 4 seats: the fast path in registers, and batches.

Hands are bit-queues as in kernels/cpu/nseat_table.py, which holds the table (hands in arrays,
every rule) and the exact and limited players. The fast path keeps the hands of the seats in
the game in registers, a tuple in turn order from the leader (one compiled copy for each of 2, 3
and 4 seats in the game). A trick in which a seat must lay and holds nothing (once per seat and
game at most) goes back to the table.

The module offers what every kernel module offers (kernels/score.py registers it for 3 and 4
seats): `score_rows`, `play_fast_at`, `play_exact_at` (and `play_limit_at`). Every figure is
checked against kernels/reference.py.
"""

from __future__ import annotations

from functools import partial
from types import ModuleType, SimpleNamespace

import numpy as np
from numba import njit, prange
from numba.extending import overload

from bmn.kernels.config import (
    FINISHED,
    INLINE_JIT,
    INLINE_OVERLOAD,
    JIT,
    MAX_CARDS,
    MAX_SEATS,
    MIN_SEATS,
    PARALLEL_JIT,
    UNDECIDED,
    kernel_array,
)
from bmn.kernels.cpu.bits import ctz, top_bit
from bmn.kernels.cpu.nseat_table import (
    NO_LIMIT,
    WIDTH,
    advance,
    count_holders,
    exact,
    lone,
    play_exact_at,
    play_limit_at,
    setup,
)
from bmn.kernels.rules.copies import Flags, RuleCopies, RuleCopy
from bmn.kernels.rules.flags import table_flags
from bmn.kernels.rules.sets import RuleSet

__all__ = [
    "NO_LIMIT",
    "for_rules",
    "play_exact_at",
    "play_fast_at",
    "play_limit_at",
    "score_rows",
]

_ONE = np.uint64(1)
_TWO = np.uint64(2)


# The fast path: hands in registers, in turn order from the leader. A trick in which a seat must
# lay and holds nothing is handed back, untouched, to the table: the fast path never sees a seat
# go out.
_PLAYED, _OVER, _HANDED_BACK = 0, 1, 2


@njit(**INLINE_JIT)
def _lays(hand: tuple, k: int) -> tuple:
    """A hand (court, value bit 0, value bit 1) without its top k cards."""
    u = np.uint64(k)
    return hand[0] >> u, hand[1] >> u, hand[2] >> u


@njit(**INLINE_JIT)
def _free2(a, b) -> tuple:
    """Free play, two seats: ((next seat, ..., the seat reaching a court card), numerals, place).

    Seat i of n lays its k-th card at step k * n + i: the first court card (or empty hand) is
    at the least such step, and every hand lays its numerals before it in one shift.
    """
    ka = ctz(a[0])
    kb = ctz(b[0])
    if ka <= kb:
        return (_lays(b, ka), _lays(a, ka)), 2 * ka, 0
    return (_lays(a, kb + 1), _lays(b, kb)), 2 * kb + 1, 1


@njit(**INLINE_JIT)
def _free3(a, b, c) -> tuple:
    """Free play, three seats (see _free2)."""
    ka = ctz(a[0])
    kb = ctz(b[0])
    kc = ctz(c[0])
    if ka <= kb and ka <= kc:
        return (_lays(b, ka), _lays(c, ka), _lays(a, ka)), 3 * ka, 0
    if kb < ka and kb <= kc:
        return (_lays(c, kb), _lays(a, kb + 1), _lays(b, kb)), 3 * kb + 1, 1
    return (_lays(a, kc + 1), _lays(b, kc + 1), _lays(c, kc)), 3 * kc + 2, 2


@njit(**INLINE_JIT)
def _free4(a, b, c, d) -> tuple:
    """Free play, four seats (see _free2)."""
    ka = ctz(a[0])
    kb = ctz(b[0])
    kc = ctz(c[0])
    kd = ctz(d[0])
    if ka <= kb and ka <= kc and ka <= kd:
        return (_lays(b, ka), _lays(c, ka), _lays(d, ka), _lays(a, ka)), 4 * ka, 0
    if kb < ka and kb <= kc and kb <= kd:
        k = kb
        return (_lays(c, k), _lays(d, k), _lays(a, k + 1), _lays(b, k)), 4 * k + 1, 1
    if kc < ka and kc < kb and kc <= kd:
        k = kc
        return (_lays(d, k), _lays(a, k + 1), _lays(b, k + 1), _lays(c, k)), 4 * k + 2, 2
    k = kd
    return (_lays(a, k + 1), _lays(b, k + 1), _lays(c, k + 1), _lays(d, k)), 4 * k + 3, 3


def _free(hands: tuple) -> tuple:
    """Free play for as many seats as `hands` holds: _free2, _free3 or _free4."""
    raise NotImplementedError("compiled code only")


@overload(_free, **INLINE_OVERLOAD)
def _free_for(hands):
    if hands.count == 2:
        return lambda hands: _free2(hands[0], hands[1])
    if hands.count == 3:
        return lambda hands: _free3(hands[0], hands[1], hands[2])
    return lambda hands: _free4(hands[0], hands[1], hands[2], hands[3])


@njit(**INLINE_JIT)
def _regs_trick(hands: tuple, total: int) -> tuple:
    """One trick on hands in registers, in turn order from the leader (which holds cards).

    Returns (outcome, hands in turn order from the taker, cards laid, taker's place after the
    leader); outcome _HANDED_BACK when a seat must lay and holds nothing (nothing is changed),
    _OVER when the taker holds every card but the pile (it wins).
    """
    hands, pile, place = _free(hands)
    layer = hands[-1]
    if layer[0] == _ONE:
        return _HANDED_BACK, hands, 0, 0
    at = np.uint64(pile)
    pen = np.int64((layer[1] & _ONE) + _TWO * (layer[2] & _ONE)) + 1
    pc = _ONE << at
    p0 = (layer[1] & _ONE) << at
    p1 = (layer[2] & _ONE) << at
    hands = hands[:-1] + (_lays(layer, 1),)
    pile += 1
    while True:  # hands[0] pays hands[-1]
        payer = hands[0]
        k = ctz(payer[0])
        if k >= pen:
            payer = _lays(payer, pen)
            pile += pen
            break
        uk = np.uint64(k)
        if (payer[0] >> uk) == _ONE:
            return _HANDED_BACK, hands, 0, 0
        at = np.uint64(pile + k)
        b0 = (payer[1] >> uk) & _ONE
        b1 = (payer[2] >> uk) & _ONE
        pen = np.int64(b0 + _TWO * b1) + 1
        pc |= _ONE << at
        p0 |= b0 << at
        p1 |= b1 << at
        pile += k + 1
        hands = hands[1:] + (_lays(payer, k + 1),)
        place += 1
    taker = hands[-1]
    n = top_bit(taker[0])
    if n + pile == total:
        return _OVER, hands, pile, place
    un = np.uint64(n)
    end = _ONE << np.uint64(pile)
    taker = (
        (taker[0] ^ (_ONE << un)) | ((pc | end) << un),
        taker[1] | (p0 << un),
        taker[2] | (p1 << un),
    )
    return _PLAYED, (taker, payer) + hands[1:-1], pile, place


@njit(**JIT)
def _run(hands: tuple, total: int, cards: int, tricks: int, cap: int) -> tuple:
    """Play tricks in registers until the game ends, passes `cap` cards or hands a trick back.

    Returns (outcome, hands in turn order from the seat to lead, that seat's place after the
    first leader, cards, tricks); hands as they stood before a trick handed back.
    """
    n = len(hands)
    lead = 0
    while True:
        outcome, after, laid, place = _regs_trick(hands, total)
        if outcome == _HANDED_BACK:
            return outcome, hands, lead, cards, tricks
        cards += laid
        tricks += 1
        lead = (lead + place) % n
        if outcome == _OVER or cards > cap:
            return outcome, after, lead, cards, tricks
        hands = after


@njit(**INLINE_JIT)
def _hand(h: np.ndarray, seat: int) -> tuple:
    return h[seat], h[4 + seat], h[8 + seat]


@njit(**INLINE_JIT)
def _store(h: np.ndarray, hands: tuple, seats: tuple, lead: int) -> None:
    """Hands in turn order from seats[lead] back into the table."""
    n = len(hands)
    for i in range(n):
        seat = seats[(lead + i) % n]
        h[seat], h[4 + seat], h[8 + seat] = hands[i]


@njit(**JIT)
def _fast(buf, offset, sizes, soff, seats, cap) -> tuple:
    """play_fast_at on hand sizes sizes[soff:soff + seats].

    The seats in the game go into registers, in turn order from the leader; a trick in which
    one must lay and holds nothing is played on the table arrays, and the rest go on in
    registers with one seat fewer.
    """
    holders, first = count_holders(sizes, soff, seats)
    if holders < 2:
        return lone(seats, first)
    h = np.empty(WIDTH, dtype=np.uint64)
    ring = np.empty(MAX_SEATS, dtype=np.int64)
    leader, live, out, total = setup(buf, offset, sizes, soff, seats, h, ring)
    cards = np.int64(0)
    tricks = np.int64(0)
    while True:
        s0 = leader
        s1 = ring[s0]
        s2 = ring[s1]
        s3 = ring[s2]
        if live == 4:
            order4 = (s0, s1, s2, s3)
            hands4 = (_hand(h, s0), _hand(h, s1), _hand(h, s2), _hand(h, s3))
            outcome, hands4, lead, cards, tricks = _run(hands4, total, cards, tricks, cap)
            leader = order4[lead]
            if outcome == _HANDED_BACK:
                _store(h, hands4, order4, lead)
        elif live == 3:
            order3 = (s0, s1, s2)
            hands3 = (_hand(h, s0), _hand(h, s1), _hand(h, s2))
            outcome, hands3, lead, cards, tricks = _run(hands3, total, cards, tricks, cap)
            leader = order3[lead]
            if outcome == _HANDED_BACK:
                _store(h, hands3, order3, lead)
        else:
            order2 = (s0, s1)
            hands2 = (_hand(h, s0), _hand(h, s1))
            outcome, hands2, lead, cards, tricks = _run(hands2, total, cards, tricks, cap)
            leader = order2[lead]
            if outcome == _HANDED_BACK:
                _store(h, hands2, order2, lead)
        if outcome == _OVER:
            return cards, tricks, leader
        if outcome == _PLAYED:  # past the cap
            return cards, tricks, UNDECIDED
        leader, laid, live, out, over = advance(h, ring, leader, live, out, total)
        cards += laid
        tricks += 1
        if over:
            return cards, tricks, leader
        if cards > cap:
            return cards, tricks, UNDECIDED


@njit(**JIT)
def play_fast_at(buf: np.ndarray, offset: int, sizes: np.ndarray, cap: int) -> tuple:
    """Play the deal at buf[offset:] (hands of sizes[0], sizes[1], ... cards, seat 0 first).

    Returns (cards, tricks, code): code = the winning seat when the game finished; UNDECIDED
    when more than `cap` cards were laid without a finish (replay it with play_exact_at).
    A batch passes its rows as one flat buffer and offsets: a row view per deal would touch
    the batch's shared reference count, and threads would fight over it.
    """
    return _fast(buf, offset, sizes, np.int64(0), sizes.shape[0], cap)


# Batches.


@njit(**PARALLEL_JIT)
def _score_rows(flat, width, sizes, seats, rows, cap, cards, tricks, status, winner, loops):
    """Score deals `rows` of a flat batch of rows `width` long; each writes only its slots."""
    for r in prange(rows.shape[0]):
        i = rows[r]
        at = i * width
        c, t, code = _fast(flat, at, sizes, i * seats, seats, cap)
        if code != UNDECIDED:
            cards[i], tricks[i], status[i], winner[i] = c, t, FINISHED, code
            for f in range(4):
                loops[f][i] = -1
            continue
        st, c, t, w, start_c, start_t, period_c, period_t = exact(flat, at, sizes, i * seats, seats)
        cards[i], tricks[i], status[i], winner[i] = c, t, st, w
        loops[0][i], loops[1][i] = start_c, start_t
        loops[2][i], loops[3][i] = period_c, period_t


def score_rows(deals: np.ndarray, sizes: np.ndarray, rows: np.ndarray, out, cap: int) -> None:
    """Score deals[rows] into out's slots (other slots untouched), in parallel.

    `deals` uint8 (N, W) C-contiguous and writeable, penalty values, hands concatenated seat
    0 first; `sizes` int64 (N, S), 2 <= S <= 4 seats; every row scored holds at most 64
    cards. `out` is a Scores (cards, tricks, status, winner and the four loop arrays). Games
    past `cap` cards are replayed with exact loop detection, so every result is exact.
    """
    _score_batch(_score_rows, deals, sizes, rows, out, cap)


def _score_batch(compiled, deals, sizes, rows, out, cap: int) -> None:
    """score_rows through `compiled`, the _score_rows of one rule set."""
    seats = sizes.shape[1]
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise ValueError(f"the N-seat kernel plays {MIN_SEATS} to {MAX_SEATS} seats, not {seats}")
    sizes = kernel_array(sizes, np.int64)
    rows = kernel_array(rows, np.int64)
    if len(rows) and sizes[rows].sum(axis=1).max() > MAX_CARDS:
        raise ValueError(f"the N-seat kernel plays deals of at most {MAX_CARDS} cards")
    loops = (out.loop_start_cards, out.loop_start_tricks, out.period_cards, out.period_tricks)
    compiled(
        deals.reshape(-1),
        deals.shape[1],
        sizes.reshape(-1),
        seats,
        rows,
        cap,
        out.cards,
        out.tricks,
        out.status,
        out.winner,
        loops,
    )


# Rule sets (kernels/rules/sets.py): a rule set's copies (kernels/rules/copies.py) of what reaches
# the table's NEXT_PAYS (kernels/rules/flags.table_flags), made on first use. Rule sets that play
# 3 and 4 seats alike share one.
def _copy(flags: Flags, _rules: RuleSet) -> SimpleNamespace:
    ruled = RuleCopy(flags)
    return SimpleNamespace(
        score_rows=partial(_score_batch, ruled[_score_rows]),
        play_fast_at=ruled[play_fast_at],
        play_exact_at=ruled[play_exact_at],
        play_limit_at=ruled[play_limit_at],
    )


_COPIES = RuleCopies(__name__, table_flags, _copy)


def for_rules(rules: RuleSet) -> ModuleType | SimpleNamespace | None:
    """This kernel's entry points under `rules`: score_rows, play_fast_at, play_exact_at and
    play_limit_at, as this module offers them; None for a rule set it cannot play."""
    return _COPIES.lookup(rules)
