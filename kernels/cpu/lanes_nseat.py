"""The three- and four-seat kernel in SIMD lanes: one game a 64-bit lane, LANES games a step.

Each seat's hand stays in its own vectors, in seat order: its court mask (kernels/cpu/
nseat_table.py's, with the sentinel bit) and the queue of its court cards' values, two bits
each (a deal of more than 31 court cards goes to the scalar kernel); a seat out of the game
holds zeros, so shifting them is a no-op and its count of trailing zeros is 64. Beside the hands
a lane holds the pile (its court mask, its queue of values and its count), the penalty owed (0
in free play), the seat to lay next (the one to play, or to pay), the seat of the last court
card, the seats still in (bits), the deal's cards, and the game's cards and tricks. SEATS (3 or
4) is a compile-time constant; a three-seat copy leaves the fourth seat's vectors alone.

One step advances every lane by one event, chosen by masks:
- free play (no penalty owed): the seat at d places after the one to play lays its k-th card at
  step k * seats + d, so the seat whose key 4k + d is least reaches its next court card (or its
  sentinel) first; every seat lays its numerals before that step in one shift. With K the least
  key, seat s lays (K + 4 - place) / 4 cards when that is positive (its numerals, and for the
  seat reached its card), place being d;
- paying penalty p: only the payer (the seat to lay, place 0; every other seat's place is past
  any key) lays, min(k + 1, p) cards: the same formula, the count capped at 4p.
The card reached is a court card (the penalty passes to the next seat still in) or the sentinel
(that seat is out: in free play the turn passes on and the pile stays; while paying, the last
court card's seat takes the pile, or under Paulhus's reading the next seat still in pays the
rest). A payer that pays in full ends the trick before the event, in the same step: the last
court card's seat takes the pile and its free play follows at once (as it does, a step later,
the pile a payer gone out leaves: a penalty of _PEND). A seat that takes the pile holding every
card wins; so does the last seat in the game.

When any lane's game is over (or past the card cap at a trick's end) a scalar loop writes its
result and loads the next deal, as kernels/cpu/lanes.py does for two seats; capped games go to
the table's exact path. Every figure is checked against the scalar kernel (kernels/cpu/nseat.py)
and kernels/reference.py.
"""

from __future__ import annotations

import sys
from functools import partial
from types import ModuleType, SimpleNamespace

import numpy as np
from numba import njit, prange

from bmn.kernels.config import FAST_CAP, FINISHED, INLINE_JIT, JIT, PARALLEL_JIT, UNDECIDED
from bmn.kernels.cpu.bits import ctz
from bmn.kernels.cpu.lanes import BLOCK, fast_rows_of, one_block_a_thread
from bmn.kernels.cpu.nseat import _fast
from bmn.kernels.cpu.nseat_table import NEXT_PAYS, _deck, count_holders, exact, lone
from bmn.kernels.cpu.vectors import (
    any_lane,
    ctlz,
    cttz,
    deck_masks,
    extract,
    lane_bits,
    lane_mask,
    popcount,
    select,
    splat,
    umin,
)
from bmn.kernels.results import Scores
from bmn.kernels.rules.copies import RuleCopy
from bmn.kernels.rules.flags import table_flags as nseat_flags
from bmn.kernels.rules.sets import RuleSet, rule_set

LANES = 8  # games a step (kernels/cpu/lanes.py's count; a copy sets another)
SEATS = 4  # seats at the table: 4, or 3 in a copy that leaves the fourth seat's vectors alone

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_TOP = np.uint64(63)
# _play's arguments as typed values, not literals: a literal argument would compile _play once
# more for each value (seconds of a first compile each).
_SAME = np.int64(0)
_ROWS2 = np.int64(2)
_CAP = np.int64(FAST_CAP)
_YES = np.bool_(True)
_NO = np.bool_(False)
_FAR = 1 << 12  # past any key: free play's limit
_SCALE = 10  # while a penalty is owed, places 1 to 3 times 1 << 10: past any key (4 * 64 + 3)
# A penalty of this is no penalty: the layer takes the pile at the next step (a payer gone out).
_PEND = 8


def _queue(hands: list[str]) -> tuple:
    """Hands in the record notation as lanes hold them: per seat the court mask (with the
    sentinel) and the queue of its court cards' values; then the deal's card count."""
    masks = []
    for hand in hands:
        values = ["-JQKA".index(card) for card in hand]
        court = sum(1 << k for k, v in enumerate(values) if v) | 1 << len(values)
        queue = sum((v - 1) << (2 * n) for n, v in enumerate(v for v in values if v))
        masks += [court, queue]
    masks += [0, 0] * (4 - len(hands))  # an absent fourth seat holds nothing
    return tuple(np.uint64(m) for m in masks) + (np.uint64(sum(map(len, hands))),)


# A lane with no deal left plays one of these deals (each loops under both readings:
# docs/endless-both.csv) until the last real games end; its results are dropped.
_PARK3 = _queue(["-J-------J---J----", "-A-KKA--KQ-J--A--", "--Q-Q----Q--KA---"])
_PARK4 = _queue(["---------K-A-", "--QA----J---Q", "-KAK---------", "-JQKQJ----J-A"])


# Three seats: seat s's place after each seat to lay m, two bits an entry at bit 2m.
_PLACES3 = tuple(np.uint64(sum(((s - m) % 3) << (2 * m) for m in range(3))) for s in range(3))


@njit(**INLINE_JIT)
def _place(s: int, mover, far):
    """Seat s's place d after the seat to lay; scaled past any key (`far`: a shift of 10 while
    a penalty is owed, else 0) for every seat but the payer, whose place is 0."""
    if SEATS == 4:
        return ((s + 4 - mover) & 3) << far
    return ((_PLACES3[s] >> (mover << 1)) & 3) << far


def _next_table(seats: int, high: int) -> np.uint64:
    """The next seat still in after each seat, two bits an entry at bit 2 * (4 * ins + seat),
    ins the seats in as bits (the fourth seat's bit `high`, as the four-seat tables split)."""
    table = 0
    for ins in range(8):
        seated = ins | (high << 3)
        for seat in range(min(seats, 4)):
            ring = [(seat + k) % seats for k in range(1, seats + 1)]
            after = next((s for s in ring if seated >> s & 1), 0)
            table |= after << (2 * (4 * ins + seat))
    return np.uint64(table)


_NEXT3 = _next_table(3, 0)
_NEXT4 = (_next_table(4, 0), _next_table(4, 1))


@njit(**INLINE_JIT)
def _next_in(ins, seat):
    """The next seat still in the game after `seat` (`ins`: the seats in, as bits), from a
    table of two bits an entry held in a constant (two with four seats)."""
    at = (((ins & 7) << 2) | seat) << 1
    if SEATS == 4:
        return (select((ins & 8) != 0, _NEXT4[1], _NEXT4[0]) >> at) & 3
    return (_NEXT3 >> at) & 3


@njit(**INLINE_JIT)
def _step(state: tuple, cap: int) -> tuple:
    """Advance every lane by one event, a trick's end and the next free play in one step;
    returns (state, done, over, results): `over` when the game ended, `done` when over or
    past `cap` cards at the end of a trick, `results` each lane's (cards, tricks, winner)."""
    (c0, q0, c1, q1, c2, q2, c3, q3,
     pc, pq, pile, pen, mover, layer, ins, total, cards, tricks) = state  # fmt: skip
    # The trick's end: the payer pays in full (or the layer takes the pile left by a payer out,
    # _PEND), so the layer takes the pile under its hand, its court values after the layer's
    # in its queue (the layer laid nothing since; no court card was laid: the pile's masks are
    # as they were). The layer may name a seat gone out since a trick it took (no cards, no
    # sentinel): the shift counts are masked below 64.
    m0 = mover == 0
    m1 = mover == 1
    m2 = mover == 2
    cm = select(m2, c2, select(m1, c1, c0))
    t0 = layer == 0
    t1 = layer == 1
    t2 = layer == 2
    cl = select(t2, c2, select(t1, c1, c0))
    if SEATS == 4:
        m3 = mover == 3
        cm = select(m3, c3, cm)
        t3 = layer == 3
        cl = select(t3, c3, cl)
    pend = pen == _PEND
    ends = (~pend & (pen != 0) & (cttz(cm) >= pen)) | pend
    paid = select(pend, 0, pen)  # numerals the payer lays
    top = (ctlz(cl) ^ _TOP) & _TOP  # the layer's sentinel
    taken = pile + paid
    flip = (_ONE << top) ^ (pc << top) ^ (_ONE << ((top + taken) & _TOP))
    more = pq << (((popcount(cl) - 1) << 1) & _TOP)
    took = cards + paid
    whole = ends & ((top + taken) == total)  # the taker holds every card: it wins
    stop = whole | (ends & (took > cap))
    go = ends & ~stop  # the game goes on, the layer to play
    took_tricks = tricks + 1
    g0 = go & t0
    g1 = go & t1
    g2 = go & t2
    c0 = (c0 >> select(go & m0, paid, 0)) ^ select(g0, flip, 0)
    q0 = q0 | select(g0, more, 0)
    c1 = (c1 >> select(go & m1, paid, 0)) ^ select(g1, flip, 0)
    q1 = q1 | select(g1, more, 0)
    c2 = (c2 >> select(go & m2, paid, 0)) ^ select(g2, flip, 0)
    q2 = q2 | select(g2, more, 0)
    if SEATS == 4:
        g3 = go & t3
        c3 = (c3 >> select(go & m3, paid, 0)) ^ select(g3, flip, 0)
        q3 = q3 | select(g3, more, 0)
    cards = select(go, took, cards)
    tricks = select(go, took_tricks, tricks)
    pile = select(go, 0, pile)
    pen = select(go, 0, pen)
    mover = select(go, layer, mover)
    # The event: free play, or a payment cut short by a court card or an empty hand.
    free = pen == 0
    limit = select(free, _FAR, pen << 2)
    far = select(free, 0, _SCALE)
    a0 = _place(0, mover, far)
    a1 = _place(1, mover, far)
    a2 = _place(2, mover, far)
    key0 = (cttz(c0) << 2) + a0
    key1 = (cttz(c1) << 2) + a1
    key2 = (cttz(c2) << 2) + a2
    least = umin(umin(key0, key1), key2)
    if SEATS == 4:
        a3 = _place(3, mover, far)
        key3 = (cttz(c3) << 2) + a3
        least = umin(least, key3)
    upto = umin(least + 4, limit)
    # Seat s lays max(upto - place, 0) / 4 cards: below 64 (a seat's cards, or one more for
    # the sentinel of a seat holding at most 32: two seats at least hold the rest).
    lay0 = (upto - umin(upto, a0)) >> 2
    lay1 = (upto - umin(upto, a1)) >> 2
    lay2 = (upto - umin(upto, a2)) >> 2
    # An out seat's count is no card (its masks are zeros): only seats in count.
    laid = select((ins & 1) != 0, lay0, 0) + select((ins & 2) != 0, lay1, 0)
    laid = laid + select((ins & 4) != 0, lay2, 0)
    hit0 = key0 == least
    hit1 = key1 == least
    hit2 = key2 == least
    cw = select(hit2, c2, select(hit1, c1, c0))
    qw = select(hit2, q2, select(hit1, q1, q0))
    who = select(hit2, 2, select(hit1, 1, 0))
    if SEATS == 4:
        lay3 = (upto - umin(upto, a3)) >> 2
        laid = laid + select((ins & 8) != 0, lay3, 0)
        hit3 = key3 == least
        cw = select(hit3, c3, cw)
        qw = select(hit3, q3, qw)
        who = select(hit3, 3, who)
    # A card is reached but where the trick ended above with the game (those lanes' results
    # are the trick's end's: this event plays on a state that is dropped).
    reached = (least + 4) <= limit
    low = cw & (0 - cw)  # the card reached: the lowest set bit of its seat's court mask
    out = reached & (cw == low)  # the sentinel: that seat is out
    court = reached & ~out
    head = qw & 3  # its value - 1: the head of its seat's queue of court values
    # The court card goes on the pile at the pile's count (below 64, the pile's cards; masked
    # for the lanes where the count is a sentinel's), its value at the end of the pile's queue
    # (at most 31 court cards in a deal played in lanes: below 64 too). Free play's pile
    # holds numerals only: its masks are cleared there.
    bit = _ONE << ((pile + laid - 1) & _TOP)
    pc = select(free, 0, pc)
    pq = select(free, 0, pq) | select(court, head << (popcount(pc) << 1), 0)
    pc = pc | select(court, bit, 0)
    laid = laid - select(out, 1, 0)
    pile = pile + laid
    cards = cards + laid
    c0 = c0 >> lay0
    c1 = c1 >> lay1
    c2 = c2 >> lay2
    q0 = select(court & hit0, q0 >> 2, q0)
    q1 = select(court & hit1, q1 >> 2, q1)
    q2 = select(court & hit2, q2 >> 2, q2)
    if SEATS == 4:
        c3 = c3 >> lay3
        q3 = select(court & hit3, q3 >> 2, q3)
    ins = ins ^ select(out, _ONE << who, 0)
    after = _next_in(ins, who)
    gone = out & ~free  # the payer is out while paying
    mover = after
    pen = select(court, head + 1, 0)
    if NEXT_PAYS:  # the next seat in pays the rest; the layer takes the pile if that is it
        taker = gone & (after == layer)
        pen = select(gone & ~taker, (limit - least) >> 2, pen)  # the rest of the penalty
    else:  # bmn's: the layer takes the pile
        taker = gone
    pen = select(taker, _PEND, pen)  # the layer takes the pile at the next step
    mover = select(taker, layer, mover)
    layer = select(court, who, layer)
    # One seat left in the game after an out on an ordinary turn takes the pile and wins (one
    # left after an out while paying is the layer, which takes the pile at the next step).
    single = out & free & ((ins & (ins - 1)) == 0)
    tricks = tricks + select(single, 1, 0)
    over = whole | single
    done = stop | single
    results = (
        select(stop, took, cards),
        select(stop, took_tricks, tricks),
        select(stop, layer_before(state), mover),
    )
    state = (c0, q0, c1, q1, c2, q2, c3, q3,
             pc, pq, pile, pen, mover, layer, ins, total, cards, tricks)  # fmt: skip
    return state, done, over, results


@njit(**INLINE_JIT)
def layer_before(state: tuple):
    """The layer of a state (the winner of a game that ended with the trick it took)."""
    return state[13]


# Deals with more court cards than this are played by the scalar kernel: a lane holds each
# seat's court values two bits apiece in one 64-bit queue, shifted by twice a count of them.
MOST_COURTS = 31


@njit(**INLINE_JIT)
def _hand(court, start, n, values, before) -> tuple:
    """The n cards from bit `start` of a deal's masks as a lane holds them: the court mask
    with its sentinel at bit n (n below 64: another seat holds a card), and its court values
    cut out of the deal's queue `values` (the `before` court cards before it come first)."""
    keep = (_ONE << n) - _ONE
    court = (court >> start) & keep
    count = popcount(court)
    queue = (values >> (before << _ONE)) & ((_ONE << (count << _ONE)) - _ONE)
    return court | (_ONE << n), queue, before + count


@njit(**INLINE_JIT)
def _hands(flat: np.ndarray, at: int, sizes: np.ndarray, soff: int) -> tuple:
    """A deal's hands as a lane holds them, seat by seat (four seats' worth: an absent seat's
    are zeros), then its card count; a count of 0 for a deal of more than MOST_COURTS court
    cards, which the scalar kernel plays."""
    n0 = np.uint64(sizes[soff])
    n1 = np.uint64(sizes[soff + 1])
    n2 = np.uint64(sizes[soff + 2])
    n3 = np.uint64(sizes[soff + 3]) if SEATS == 4 else _ZERO
    total = n0 + n1 + n2 + n3
    if at + 64 <= flat.shape[0]:
        court, bit0, bit1 = deck_masks(flat, at)
    else:  # the batch's last cards: no reading past its end
        court, bit0, bit1 = _deck(flat, at, np.int64(total))
    if total < 64:
        court &= (_ONE << total) - _ONE  # padding past the deal
    values = _ZERO  # every court card's value - 1, in deal order, two bits each
    count = _ZERO
    rest = court
    while rest != _ZERO:
        if count == MOST_COURTS:
            return _ZERO, _ZERO, _ZERO, _ZERO, _ZERO, _ZERO, _ZERO, _ZERO, _ZERO
        k = np.uint64(ctz(rest))
        value = ((bit0 >> k) & _ONE) | (((bit1 >> k) & _ONE) << _ONE)
        values |= value << (count << _ONE)
        count += _ONE
        rest &= rest - _ONE
    c0, q0, before = _hand(court, _ZERO, n0, values, _ZERO)
    c1, q1, before = _hand(court, n0, n1, values, before)
    c2, q2, before = _hand(court, n0 + n1, n2, values, before)
    c3 = q3 = _ZERO
    if SEATS == 4:
        c3, q3, before = _hand(court, n0 + n1 + n2, n3, values, before)
    return c0, q0, c1, q1, c2, q2, c3, q3, total


@njit(**INLINE_JIT)
def _put(state: tuple, lane: int, deal: tuple) -> tuple:
    """`state` with a new game in `lane`: its hands and card count, seat 0 to play in free
    play, every seat in (a seat dealt nothing goes out when asked), nothing laid (the pile's
    masks are cleared by the free play every game starts with)."""
    at = lane_mask(_ONE << np.uint64(lane), LANES)
    return (
        select(at, deal[0], state[0]),
        select(at, deal[1], state[1]),
        select(at, deal[2], state[2]),
        select(at, deal[3], state[3]),
        select(at, deal[4], state[4]),
        select(at, deal[5], state[5]),
        select(at, deal[6], state[6]),
        select(at, deal[7], state[7]),
        state[8],
        state[9],
        select(at, 0, state[10]),
        select(at, 0, state[11]),
        select(at, 0, state[12]),
        select(at, 0, state[13]),
        select(at, (1 << SEATS) - 1, state[14]),
        select(at, deal[8], state[15]),
        select(at, 0, state[16]),
        select(at, 0, state[17]),
    )


@njit(**JIT)
def _play(flat, width, sizes, sstep, rows, indexed, start, stop, cap, cards, tricks, codes):
    """Play deals start..stop-1 in lanes: deal r is row i = rows[r] if `indexed` else r, at
    flat[i * width:], its hand sizes at sizes[i * sstep:] (sstep 0: every deal the same).
    Writes cards[i], tricks[i], codes[i]: the winning seat, or UNDECIDED past `cap` cards."""
    z = splat(0, LANES)
    state = (z, z, z, z, z, z, z, z, z, z, z, z, z, z, z, z, z, z)
    park = _PARK4 if SEATS == 4 else _PARK3
    results = (z, z, z)
    slot = np.full(LANES, -1, dtype=np.int64)
    todo = np.uint64((1 << LANES) - 1)
    playing = 0
    nxt = start
    over = np.uint64(0)
    while True:
        while todo != _ZERO:  # write each ended lane's result and load its next deal
            lane = ctz(todo)
            todo &= todo - _ONE
            i = slot[lane]
            if i >= 0:
                cards[i] = np.int64(extract(results[0], lane))
                tricks[i] = np.int64(extract(results[1], lane))
                ended = (over >> np.uint64(lane)) & _ONE
                codes[i] = np.int64(extract(results[2], lane)) if ended else UNDECIDED
                playing -= 1
            slot[lane] = -1
            deal = park
            while nxt < stop:
                i = rows[nxt] if indexed else nxt
                nxt += 1
                holders, first = count_holders(sizes, i * sstep, SEATS)
                if holders < 2:  # no game to play in lanes
                    cards[i], tricks[i], codes[i] = lone(SEATS, first)
                    continue
                deal = _hands(flat, i * width, sizes, i * sstep)
                if deal[8] == _ZERO:  # too many court cards for a lane: the scalar kernel's
                    cards[i], tricks[i], codes[i] = _fast(flat, i * width, sizes, i * sstep,
                                                          SEATS, cap)  # fmt: skip
                    deal = park
                    continue
                slot[lane] = i
                playing += 1
                break
            state = _put(state, lane, deal)
        if playing == 0:
            return
        while True:  # the hot loop: steps until a game ends, the state in registers
            state, done, over_mask, results = _step(state, cap)
            if any_lane(done):
                break
        todo = lane_bits(done)
        over = lane_bits(over_mask)


# -- entry points ------------------------------------------------------------------------------


@njit(**PARALLEL_JIT)
def _score_rows(flat, width, sizes, rows, cap, out):
    """Score deals `rows` of a flat batch (rows `width` long, SEATS hand sizes a deal), blocks
    of BLOCK deals a thread; each deal writes only its own slots (out: Scores' arrays)."""
    cards, tricks, status, winner, start_cards, start_tricks, period_cards, period_tricks = out
    n = rows.shape[0]
    codes = np.empty(cards.shape[0], dtype=np.int64)
    for b in prange((n + BLOCK - 1) // BLOCK):
        stop = min(n, (b + 1) * BLOCK)
        _play(
            flat,
            width,
            sizes,
            np.int64(SEATS),
            rows,
            _YES,
            b * BLOCK,
            stop,
            cap,
            cards,
            tricks,
            codes,
        )
        for r in range(b * BLOCK, stop):
            i = rows[r]
            if codes[i] != UNDECIDED:
                status[i], winner[i] = FINISHED, codes[i]
                start_cards[i] = start_tricks[i] = period_cards[i] = period_tricks[i] = -1
                continue
            st, c, t, w, start_c, start_t, period_c, period_t = exact(
                flat, i * width, sizes, i * SEATS, SEATS
            )
            cards[i], tricks[i], status[i], winner[i] = c, t, st, w
            start_cards[i], start_tricks[i] = start_c, start_t
            period_cards[i], period_tricks[i] = period_c, period_t


def _score_batch(compiled, deals, sizes, rows, out: Scores, cap: int) -> None:
    """score_rows through `compiled`, the _score_rows of one rule set, seat and lane count."""
    flat_sizes = np.ascontiguousarray(sizes, dtype=np.int64).reshape(-1)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    with one_block_a_thread():
        compiled(deals.reshape(-1), deals.shape[1], flat_sizes, rows, cap, out.arrays())


def score_rows(deals: np.ndarray, sizes: np.ndarray, rows: np.ndarray, out: Scores, cap: int):
    """Score deals[rows] (SEATS seats, at most 64 cards each) into out's slots, others
    untouched, as kernels/cpu/nseat.py's score_rows does, in parallel."""
    _score_batch(_score_rows, deals, sizes, rows, out, cap)


@njit(**JIT)
def play_block(decks: np.ndarray, sizes: np.ndarray, n: int, results: np.ndarray) -> int:
    """The fast path on the first n rows of `decks` (each a deal cut into hands of `sizes`):
    results[0], [1], [2] get each deal's cards, tricks and code (the winning seat, or
    UNDECIDED past FAST_CAP cards: the caller replays it exactly). Returns n."""
    flat = decks.reshape(-1)
    cards, tricks, codes = results[0], results[1], results[2]
    _play(flat, decks.shape[1], sizes, _SAME, sizes, _NO, _SAME, n, _CAP, cards, tricks, codes)
    return n


def fast_rows(deals: np.ndarray, sizes: np.ndarray, cap: int) -> tuple[np.ndarray, ...]:
    """The fast path alone on every deal of a batch, on this thread: arrays of cards, tricks
    and codes (the winning seat, or UNDECIDED past `cap` cards, the figures those at the end
    of the trick that passed it, as the scalar kernel's play_fast_at gives them)."""
    return fast_rows_of(_play, deals, sizes, cap)


# Seat counts, rule sets and lane counts: copies (kernels/rules/copies.py) of what reads SEATS,
# NEXT_PAYS or LANES, made on first use.
_MADE: dict[tuple, SimpleNamespace] = {}


def lanes_for(
    rules: RuleSet | str | None, seats: int = SEATS, lanes: int = LANES
) -> ModuleType | SimpleNamespace | None:
    """This kernel's entry points (score_rows, play_block) for `seats` seats under `rules` on
    `lanes` lanes: a compiled copy made on first use, or the module itself for four seats
    under bmn's rules on LANES lanes; None for a rule set the N-seat kernels cannot play."""
    if seats not in (3, 4):
        raise ValueError(f"the N-seat lane kernel plays 3 or 4 seats, not {seats}")
    flags = nseat_flags(rule_set(rules))
    if flags is None:
        return None
    key = tuple(sorted(({**dict(flags), "SEATS": seats, "LANES": lanes}).items()))
    if dict(key) == {"NEXT_PAYS": NEXT_PAYS, "SEATS": SEATS, "LANES": LANES}:
        return sys.modules[__name__]
    if key not in _MADE:
        ruled = RuleCopy(tuple((name, value) for name, value in key if _differs(name, value)))
        _MADE[key] = SimpleNamespace(
            score_rows=partial(_score_batch, ruled[_score_rows]),
            play_block=ruled[play_block],
            fast_rows=partial(fast_rows_of, ruled[_play]),
        )
    return _MADE[key]


def _differs(name: str, value: object) -> bool:
    """Whether a flag's value is not this module's own (only those are copied on)."""
    return globals()[name] != value
