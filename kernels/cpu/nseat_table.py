"""The N-seat kernel's table (2 to 4 seats): hands in arrays, every rule, exact and limited play.

Each hand is three uint64 masks as in kernels/rules/two_tricks.py: `court` (J Q K A, plus a sentinel
bit just past the bottom card) and the two bits of (value - 1) for court cards. The table is
one uint64 array `h` (court masks at [seat], value bits at [4 + seat] and [8 + seat]) and a ring
of the seats in the game (ring[seat] the next one). A seat that is out holds the bare sentinel,
so two trick-boundary states are equal exactly when their arrays, leaders and sets of seats out
are: the exact and limited players walk the table, and the fast path in registers
(kernels/cpu/nseat.py) hands it the tricks in which a seat goes out.

Free play (no penalty owed): with n seats in the game, the seat i places after the one to lay
lays its k-th card at step k * n + i, so the first court card or empty hand is where
trailing_zeros(court) * n + i is least, and every card before it is a numeral, laid in one
shift per hand. Penalties are paid as in the two-seat kernel: a run of numerals in one shift,
cut short by a court card or the sentinel.

docs/rules.md: a seat that must lay and holds nothing is out; out while paying, the last court
card's seat takes the pile (under Paulhus's rule set the next seat still in pays the rest); out
on an ordinary turn, the turn passes on; the game ends when a trick leaves every other seat
empty or one seat is left (it takes any pile). Every figure is checked against
kernels/reference.py.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bmn.kernels.config import (
    FINISHED,
    INLINE_JIT,
    JIT,
    LIMIT,
    LOOP,
    MAX_SEATS,
)
from bmn.kernels.cpu.bits import ctz, top_bit

NO_LIMIT = -1
# The rule for a seat out while paying (kernels/rules/sets.py's out_while_paying), frozen into the
# compiled code: False, bmn's (the last court card's seat takes the pile); True, Paulhus's (the
# next seat still in pays the rest). kernels/cpu/nseat.py compiles copies for True when asked.
NEXT_PAYS = False
WIDTH = 12  # court masks, value bit 0, value bit 1: four seats each

# Unsigned constants: mixing uint64 with int64 in numba promotes to float64.
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_TWO = np.uint64(2)
_LANES = np.uint64(0x0101010101010101)  # bit 0 of each byte
_GATHER = np.uint64(0x0102040810204080)
_BYTE7 = np.uint64(56)
_FAR = 1 << 30  # further than any step of free play


# Loading a deal: the whole deck as masks, then each hand cut out of them.


@njit(**INLINE_JIT)
def _lanes(x: np.uint64) -> tuple:
    """Eight cards, one a byte (values 0-4), as three 8-bit masks: court, value bits 0 and 1."""
    lo = x & _LANES
    mid = (x >> _ONE) & _LANES
    hi = (x >> _TWO) & _LANES
    # value - 1 for J Q K A (1-4) is 0-3: bit 0 set for Q and A, bit 1 for K and A.
    court = lo | mid | hi
    bit0 = (mid | hi) & (lo ^ _LANES)
    bit1 = hi | (mid & lo)
    # The multiply gathers bit 0 of each byte into the top byte (no two products overlap).
    return (court * _GATHER) >> _BYTE7, (bit0 * _GATHER) >> _BYTE7, (bit1 * _GATHER) >> _BYTE7


@njit(**INLINE_JIT)
def _deck(buf: np.ndarray, offset: int, total: int) -> tuple:
    """A whole deal (total <= 64 cards at buf[offset:]) as three masks, card i at bit i."""
    court = _ZERO
    bit0 = _ZERO
    bit1 = _ZERO
    for i in range(0, total, 8):
        x = _ZERO
        if i + 8 <= total:  # eight bytes: the compiler reads them in one load
            for j in range(8):
                x |= np.uint64(buf[offset + i + j]) << np.uint64(8 * j)
        else:
            for j in range(total - i):
                x |= np.uint64(buf[offset + i + j]) << np.uint64(8 * j)
        c, b0, b1 = _lanes(x)
        at = np.uint64(i)
        court |= c << at
        bit0 |= b0 << at
        bit1 |= b1 << at
    return court, bit0, bit1


@njit(**INLINE_JIT)
def count_holders(sizes: np.ndarray, soff: int, seats: int) -> tuple:
    """(seats holding cards, the first of them)."""
    holders = 0
    first = -1
    for s in range(seats):
        if sizes[soff + s] > 0:
            holders += 1
            if first < 0:
                first = s
    return holders, first


@njit(**INLINE_JIT)
def lone(seats: int, holder: int) -> tuple:
    """(cards, tricks, winner) when at most one seat holds cards.

    Seats before the holder go out on ordinary turns; if seats follow it, the holder lays one
    card, every seat after it goes out, and it takes that card as a trick. With no cards at all
    every seat goes out in turn and the last one is left.
    """
    if holder < 0:
        return 0, 0, seats - 1
    if holder == seats - 1:
        return 0, 0, holder
    return 1, 1, holder


@njit(**INLINE_JIT)
def setup(buf, offset, sizes, soff, seats, h, ring) -> tuple:
    """Load a deal of >= 2 holders; returns (leader, live, out, total).

    Seats before the first holder are asked to lead and hold nothing: they go out before a
    card is laid, and the first holder leads.
    """
    leader = np.int64(-1)  # not a literal: numba would compile callees once more for it
    for s in range(MAX_SEATS):
        h[s] = _ONE
        h[4 + s] = _ZERO
        h[8 + s] = _ZERO
    total = np.int64(0)
    for s in range(seats):
        total += sizes[soff + s]
    court, bit0, bit1 = _deck(buf, offset, total)
    at = 0
    for s in range(seats):
        n = sizes[soff + s]
        if n > 0:  # a hand of n < 64 cards from bit `at`, its sentinel at bit n
            if leader < 0:
                leader = s
            un = np.uint64(n)
            ua = np.uint64(at)
            keep = (_ONE << un) - _ONE
            h[s] = ((court >> ua) & keep) | (_ONE << un)
            h[4 + s] = (bit0 >> ua) & keep
            h[8 + s] = (bit1 >> ua) & keep
        at += n
    out = (1 << leader) - 1
    for s in range(seats):
        ring[s] = s + 1 if s + 1 < seats else leader
        if s < leader:
            ring[s] = leader
    return leader, seats - leader, out, total


# The table: hands in arrays, every rule; plays the tricks in which a seat goes out, and
# every trick of the exact and limited players.


@njit(**INLINE_JIT)
def _shift(h: np.ndarray, seat: int, k: int) -> None:
    """Seat lays its top k cards (the caller accounts for them on the pile)."""
    uk = np.uint64(k)
    h[seat] >>= uk
    h[4 + seat] >>= uk
    h[8 + seat] >>= uk


@njit(**INLINE_JIT)
def _penalty(h: np.ndarray, seat: int, at: int) -> int:
    """The penalty (1-4) of the court card at position `at` of seat's hand."""
    ua = np.uint64(at)
    return np.int64(((h[4 + seat] >> ua) & _ONE) + _TWO * ((h[8 + seat] >> ua) & _ONE)) + 1


@njit(**INLINE_JIT)
def _drop(ring: np.ndarray, seat: int) -> None:
    """Take seat out of the ring; ring[seat] keeps naming the seat after it."""
    before = seat
    while ring[before] != seat:
        before = ring[before]
    ring[before] = ring[seat]


@njit(**INLINE_JIT)
def _collect(h: np.ndarray, seat: int, pc, p0, p1, pile: int) -> None:
    """Seat takes the pile (masks pc, p0, p1 of `pile` cards) under its hand, in laid order.

    Only called when the game goes on, so seat then holds at most 63 cards and the new
    sentinel fits.
    """
    n = np.uint64(top_bit(h[seat]))
    end = _ONE << np.uint64(pile)
    h[seat] = (h[seat] ^ (_ONE << n)) | ((pc | end) << n)
    h[4 + seat] |= p0 << n
    h[8 + seat] |= p1 << n


@njit(**INLINE_JIT)
def _trick(h: np.ndarray, ring: np.ndarray, leader: int, live: int, out: int, total: int):
    """Play one trick from an empty pile; the leader holds cards, `live` seats are in.

    Returns (taker, cards laid, live, out, over): `over` when the game has finished, the
    taker then winning (the hands are then moot). `out` is the bit set of seats out.
    """
    seat = leader
    pile = 0
    while True:  # free play until a court card is laid
        best = _FAR
        who = seat
        place = 0
        s = seat
        for i in range(live):
            step = ctz(h[s]) * live + i
            if step < best:
                best, who, place = step, s, i
            s = ring[s]
        k = best // live
        s = seat
        for i in range(live):
            _shift(h, s, k + 1 if i < place else k)
            s = ring[s]
        pile += best
        if h[who] != _ONE:
            break
        # who holds nothing on an ordinary turn: out; the pile stays and the turn passes on
        out |= 1 << who
        live -= 1
        _drop(ring, who)
        seat = ring[who]
        if live == 1:  # the last seat in the game takes the pile (numerals only) and wins
            return seat, pile, live, out, True
    pen = _penalty(h, who, 0)
    at = np.uint64(pile)
    pc = _ONE << at
    p0 = (h[4 + who] & _ONE) << at
    p1 = (h[8 + who] & _ONE) << at
    _shift(h, who, 1)
    pile += 1
    layer = who
    payer = ring[who]
    while True:  # the penalty: paid in numerals, cut short by a court card, or out
        k = ctz(h[payer])
        if k >= pen:
            _shift(h, payer, pen)
            pile += pen
            break
        if (h[payer] >> np.uint64(k)) == _ONE:  # out while paying
            _shift(h, payer, k)
            pile += k
            out |= 1 << payer
            live -= 1
            _drop(ring, payer)
            if not NEXT_PAYS:  # bmn: the layer takes the pile
                break
            pen -= k  # Paulhus: the next seat still in pays the rest; the layer takes it
            payer = ring[payer]
            if payer == layer:
                break
            continue
        at = np.uint64(pile + k)
        pen = _penalty(h, payer, k)
        pc |= _ONE << at
        p0 |= ((h[4 + payer] >> np.uint64(k)) & _ONE) << at
        p1 |= ((h[8 + payer] >> np.uint64(k)) & _ONE) << at
        _shift(h, payer, k + 1)
        pile += k + 1
        layer = payer
        payer = ring[payer]
    if top_bit(h[layer]) + pile == total:  # every other seat is empty: the layer wins
        return layer, pile, live, out, True
    _collect(h, layer, pc, p0, p1, pile)
    return layer, pile, live, out, False


@njit(**JIT)
def advance(h, ring, leader, live, out, total) -> tuple:
    """_trick as a real call: the exact player calls it from several places."""
    return _trick(h, ring, leader, live, out, total)


# Exact play: Brent's cycle detection on trick-boundary states.


@njit(**INLINE_JIT)
def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal tables (the masks are canonical: nothing past a sentinel, out seats bare)."""
    same = True
    for i in range(WIDTH):
        same &= a[i] == b[i]
    return same


@njit(**JIT)
def exact(buf, offset, sizes, soff, seats) -> tuple:
    """play_exact_at on hand sizes sizes[soff:soff + seats]."""
    holders, first = count_holders(sizes, soff, seats)
    if holders < 2:
        cards, tricks, winner = lone(seats, first)
        return FINISHED, cards, tricks, winner, -1, -1, -1, -1
    h = np.empty(WIDTH, dtype=np.uint64)
    ring = np.empty(MAX_SEATS, dtype=np.int64)
    leader, live, out, total = setup(buf, offset, sizes, soff, seats, h, ring)
    base_cards = 0
    base_tricks = 0
    if leader > 0:
        # The opening state (seats before the leader in the game, holding nothing) can never
        # come back: cycles are sought from the state after the first trick.
        leader, laid, live, out, over = advance(h, ring, leader, live, out, total)
        base_cards, base_tricks = laid, 1
        if over:
            return FINISHED, laid, 1, leader, -1, -1, -1, -1
    start = h.copy()
    start_ring = ring.copy()
    start_leader, start_live, start_out = leader, live, out
    # Brent: the tortoise waits at powers of two while the hare walks; lam ends as the period.
    tortoise = h.copy()
    t_leader, t_out = leader, out
    power = 1
    lam = 1
    cards = base_cards
    tricks = base_tricks
    while True:
        leader, laid, live, out, over = advance(h, ring, leader, live, out, total)
        cards += laid
        tricks += 1
        if over:
            return FINISHED, cards, tricks, leader, -1, -1, -1, -1
        if leader == t_leader and out == t_out and _same(h, tortoise):
            break
        if power == lam:
            tortoise[:] = h
            t_leader, t_out = leader, out
            power *= 2
            lam = 0
        lam += 1
    # Replay: a hare lam tricks ahead of the tortoise meets it at the cycle's first state.
    hare = start.copy()
    hare_ring = start_ring.copy()
    h_leader, h_live, h_out = start_leader, start_live, start_out
    tortoise[:] = start
    t_ring = start_ring.copy()
    t_leader, t_live, t_out = start_leader, start_live, start_out
    hare_cards = 0
    start_cards = 0
    steps = 0
    while steps < lam or not (h_leader == t_leader and h_out == t_out and _same(hare, tortoise)):
        if steps >= lam:
            t_leader, laid, t_live, t_out, _ = advance(
                tortoise, t_ring, t_leader, t_live, t_out, total
            )
            start_cards += laid
        h_leader, laid, h_live, h_out, _ = advance(hare, hare_ring, h_leader, h_live, h_out, total)
        hare_cards += laid
        steps += 1
    mu = steps - lam
    return (
        LOOP,
        base_cards + hare_cards,
        base_tricks + steps,
        -1,
        base_cards + start_cards,
        base_tricks + mu,
        hare_cards - start_cards,
        lam,
    )


@njit(**JIT)
def play_exact_at(buf: np.ndarray, offset: int, sizes: np.ndarray) -> tuple:
    """Play the deal at buf[offset:] to its end or to the first repeated trick-boundary state.

    Returns (status, cards, tricks, winner, loop_start_cards, loop_start_tricks,
    period_cards, period_tricks), the reference engine's figures; winner -1 for a loop, loop
    fields -1 for a finished game. Brent's cycle detection needs no memory; a replay then
    finds the cycle's first state.
    """
    return exact(buf, offset, sizes, np.int64(0), sizes.shape[0])


# A card limit (docs/rules.md: the seat holding most cards wins, none on a tie).


@njit(**INLINE_JIT)
def _lay(h: np.ndarray, ring: np.ndarray, leader: int, count: int) -> None:
    """Lay the first `count` cards of a trick one at a time, as docs/rules.md says them.

    The caller knows the trick lays more than `count` cards, so it cannot end here; a seat
    holding nothing on an ordinary turn goes out and the turn passes on.
    """
    seat = leader
    paying = False
    laid = 0
    while laid < count:
        if h[seat] == _ONE:
            _drop(ring, seat)
            seat = ring[seat]
            continue
        court = (h[seat] & _ONE) == _ONE
        _shift(h, seat, 1)
        laid += 1
        if court:
            paying = True
            seat = ring[seat]
        elif not paying:
            seat = ring[seat]


@njit(**JIT)
def _stopped(buf, offset, sizes, soff, seats, limit) -> tuple:
    """(tricks, winner) at the moment `limit` cards have been laid and one more is due.

    The winner is the seat holding most cards, -1 on a tie (the pile belongs to nobody).
    """
    hand = np.zeros(MAX_SEATS, dtype=np.int64)
    tricks = 0
    if count_holders(sizes, soff, seats)[0] < 2:  # only limit 0 stops these: nothing laid yet
        for s in range(seats):
            hand[s] = sizes[soff + s]
    else:
        h = np.empty(WIDTH, dtype=np.uint64)
        ring = np.empty(MAX_SEATS, dtype=np.int64)
        leader, live, out, total = setup(buf, offset, sizes, soff, seats, h, ring)
        cards = 0
        while True:
            before = h.copy()
            ring_before = ring.copy()
            taker, laid, live, out, _ = advance(h, ring, leader, live, out, total)
            if cards + laid > limit:
                _lay(before, ring_before, leader, limit - cards)
                for s in range(seats):
                    hand[s] = top_bit(before[s])
                break
            cards += laid
            tricks += 1
            leader = taker
    best = 0
    winner = -1
    for s in range(seats):
        if hand[s] > best:
            best, winner = hand[s], s
        elif hand[s] == best:
            winner = -1
    return tricks, winner


@njit(**JIT)
def play_limit_at(buf: np.ndarray, offset: int, sizes: np.ndarray, limit: int) -> tuple:
    """play_exact_at, stopped when `limit` cards have been laid and another is due.

    A game stopped there has status LIMIT, `limit` cards, the tricks taken so far and the seat
    holding most cards as winner (-1 on a tie). A limit below zero means none.
    """
    result = exact(buf, offset, sizes, np.int64(0), sizes.shape[0])
    if limit < 0 or result[1] <= limit:
        return result
    tricks, winner = _stopped(buf, offset, sizes, np.int64(0), sizes.shape[0], limit)
    return LIMIT, limit, tricks, winner, -1, -1, -1, -1
