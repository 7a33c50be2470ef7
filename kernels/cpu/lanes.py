"""The two-seat kernel in SIMD lanes: one game a 64-bit lane, LANES games a step.

Each lane holds one game as 14 numbers (kernels/cpu/vectors.py's Lanes, one vector each): the
hand to move and the other hand (kernels/rules/two_tricks.py's three masks each: court with
the sentinel bit, value bits 0 and 1), the pile's three masks (numerals are zeros) and its
count, the penalty owed (0 in free play), the seat of the hand to move, cards and tricks.

One step advances every lane by one event, every case computed and the right one chosen by
masks, with one branch: are any games over? With i and j the numerals before the next court
card (or the sentinel) of the hand to move and of the other hand:
- free play (no penalty owed, the pile empty): the hand to move lays at steps 0, 2, 4, ... and
  the other at 1, 3, 5, ...; the hand that meets its court card first lays it, both having laid
  their numerals before it: the mover lays min(i + 1, j + 1) cards, the other min(i, j + 1);
- paying a penalty p: the mover lays min(i + 1, p) cards: p numerals, or a court card after i.
The card reached is the lowest set bit of its hand's court mask: the sentinel (that hand is
out), or a court card, which goes on the pile at the pile's count (one shift) and sets the
penalty. Whatever the case, the next hand to move is "the other, unless the other laid the
court card in free play", so one swap serves every case. A penalty paid in numerals ends the
trick before the event, in the same step: the other hand takes the pile under its cards (the
top bit by count-leading-zeros, the sentinel replaced, as two_tricks.collect does) and leads,
so its free play follows at once (a third fewer steps than an event a step).

When any lane's game is over (or past the card cap at a trick's end, for the exact path) a
scalar loop writes that lane's result and loads the next deal into it (kernels/cpu/vectors.py's
deck_masks: one 64-byte load). A lane with no deal left plays a looping deal (_PARK) whose
results are dropped, so every lane always holds a real game state: no shift count reaches 64.

Rule sets: a lane's end is counted by two_tricks.ending (ASKED, TRICKS) in the scalar loop, as
the scalar kernel counts it; AT_ONCE (the game ends as a hand lays its last card) is played in
the step. The lane count LANES is a compile-time constant: `lanes_for(rules, 2, lanes)` gives
the entry points for a rule set and a lane count, copies made as kernels/rules/copies.py makes a
rule set's (a width's copy reads LANES as a flag). Every figure is checked against the scalar
kernel (kernels/cpu/two.py) and kernels/reference.py.

Entry points: `score_rows` (batches, in parallel, as two.py's), `total_cards` (the bench), and
`play_block` (a block of deals of one hand-size pattern, for the searches and the enumeration:
kernels/score.py's PLAY_BLOCK).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from types import SimpleNamespace

import numba
import numpy as np
from numba import njit, prange

from bmn.kernels.config import FAST_CAP, FINISHED, INLINE_JIT, JIT, LOOP, PARALLEL_JIT, UNDECIDED
from bmn.kernels.cpu.bits import ctz
from bmn.kernels.cpu.two import _ending, _load, _lone_lead, exact_at
from bmn.kernels.cpu.vectors import (
    any_lane,
    ctlz,
    cttz,
    deck_masks,
    extract,
    lane_bits,
    lane_mask,
    select,
    splat,
    umin,
)
from bmn.kernels.results import Scores
from bmn.kernels.rules.copies import RuleCopies, RuleCopy
from bmn.kernels.rules.flags import two_seat_flags
from bmn.kernels.rules.sets import RuleSet, rule_set
from bmn.kernels.rules.two_tricks import AT_ONCE, FREE_END, PAID_END, PAYING_END

# Games in flight on one thread: eight 64-bit lanes fill an AVX-512 register set.
LANES = 8
# A block of a batch a thread plays at once: lanes idle only while a block's last games end.
BLOCK = 4096

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


def _masks(hand: str) -> tuple:
    """A hand written in the record notation as _load makes its masks (court with the
    sentinel, value bits 0 and 1)."""
    values = ["-JQKA".index(card) for card in hand]
    court = sum(1 << k for k, v in enumerate(values) if v) | 1 << len(values)
    bit0 = sum(1 << k for k, v in enumerate(values) if v in (2, 4))
    bit1 = sum(1 << k for k, v in enumerate(values) if v in (3, 4))
    return tuple(np.uint64(m) for m in (court, bit0, bit1))


# A lane with no deal left plays this deal, which loops under every two-seat rule set (474
# cards, a cycle of 440), until the last real games end; its results are dropped.
_PARK = _masks("---K---Q-KQAJ-----AAJ--J--") + _masks("----------Q----KQ-J-----KA")


@njit(**INLINE_JIT)
def _step(state: tuple, cap: int) -> tuple:
    """Advance every lane by one event, a trick's end and the next free play in one step;
    returns (state, done, over, free, stopped, results).

    `over`: the game ended; `done`: over, or past `cap` cards at a trick's end; `stopped`:
    that happened as the trick ended (a penalty paid that left the payer with nothing, or the
    cap), before the event; `free`: the event was free play; `results` each lane's (cards,
    tricks, winner). The cards of an event that ends the game count the sentinel reached as
    one card, and its final trick is not counted yet (bmn's rules): _result says so.
    """
    mc, m0, m1, oc, o0, o1, pc, p0, p1, pile, pen, seat, cards, tricks = state
    # The trick's end: the mover pays its penalty in numerals and the other hand takes the
    # pile under its cards (made from the state before the step: the other laid nothing and
    # the pile's masks are as they were; a 64-card pile only when the game ends); the other
    # then leads, its hand and the payer's swapped.
    i = cttz(mc)
    j = cttz(oc)
    ends = (pen != 0) & (i >= pen)
    on = ctlz(oc) ^ _TOP  # the other hand's sentinel
    took = (oc ^ (_ONE << on)) | ((pc | (_ONE << ((pile + pen) & _TOP))) << on)
    rest = mc >> pen
    paid_cards = cards + pen
    paid_tricks = tricks + 1
    whole = ends & (rest == 1)  # the payer has nothing left: the other wins
    stop = whole | (ends & (paid_cards > cap))
    go = ends & ~stop
    winner = seat ^ 1
    # Each hand's numerals before its next court card, in either case: worked out beside the
    # trick's end rather than after it (a shorter chain of dependences from step to step).
    i = select(go, cttz(took), i)
    j = select(go, cttz(rest), j)
    mc, oc = select(go, took, mc), select(go, rest, oc)
    m0, o0 = select(go, o0 | (p0 << on), m0), select(go, m0 >> pen, o0)
    m1, o1 = select(go, o1 | (p1 << on), m1), select(go, m1 >> pen, o1)
    seat = seat ^ select(go, 1, 0)
    cards = select(go, paid_cards, cards)
    tricks = select(go, paid_tricks, tricks)
    pen = select(go, 0, pen)
    # The event.
    free = pen == 0
    j1 = j + 1
    limit = select(free, j1, pen)
    # i + 1 = 64 only for a hand of 63 numerals, whose other hand holds one card: then limit
    # is at most 4, so every count below is under 64.
    mlay = umin(i + 1, limit)
    olay = select(free, umin(i, j1), 0)
    mine = i < limit  # the mover reaches its card at i (free play: first; paying: before p)
    other = free & ~mine  # the other hand reaches its card at j first, in free play
    hc = select(other, oc, mc)
    low = hc & (0 - hc)  # the card reached: the lowest set bit of its hand's court mask
    reached = mine | other  # none only where the trick ended above with the game
    out = reached & (hc == low)  # it is the sentinel: that hand is out
    court = reached & ~out
    v0 = (select(other, o0, m0) & low) != 0
    v1 = (select(other, o1, m1) & low) != 0
    laid = mlay + olay
    base = select(free, 0, pile)
    # The court card's place on the pile: below 64 (the pile's cards); masked for the lanes
    # where the count is a sentinel's (a deal of 64 numerals ends at card 64).
    bit = _ONE << ((base + laid - 1) & _TOP)
    pc = select(free, 0, pc) | select(court, bit, 0)
    p0 = select(free, 0, p0) | select(court & v0, bit, 0)
    p1 = select(free, 0, p1) | select(court & v1, bit, 0)
    pen = select(court, select(v0, 2, 1) + select(v1, 2, 0), 0)
    if AT_ONCE:  # the game ends as a hand lays its last card: its count against its lay
        nm = ctlz(mc) ^ _TOP
        no = ctlz(oc) ^ _TOP
    pile = base + laid
    mc = mc >> mlay
    m0 = m0 >> mlay
    m1 = m1 >> mlay
    oc = oc >> olay
    o0 = o0 >> olay
    o1 = o1 >> olay
    swap = ~other
    if AT_ONCE:
        mempty = nm <= mlay
        oempty = no <= olay  # never while paying: the other lays nothing and holds cards
        mend = select(free, nm + nm - 1, nm)  # cards of the event up to the mover's last
        mfirst = mempty & (~oempty | (mend < no + no))
        ended = mempty | oempty
        cards = cards + select(ended, select(mfirst, mend, no + no), laid)
        seat = seat ^ select(ended, select(mfirst, 1, 0), select(swap, 1, 0))
    else:
        ended = out  # a hand out: the other wins
        cards = cards + laid
        seat = seat ^ select(swap, 1, 0)
    over = whole | (ended & ~stop)
    done = stop | ended
    results = (
        select(stop, paid_cards, cards),
        select(stop, paid_tricks, tricks),
        select(stop, winner, seat),
    )
    state = (
        select(swap, oc, mc),
        select(swap, o0, m0),
        select(swap, o1, m1),
        select(swap, mc, oc),
        select(swap, m0, o0),
        select(swap, m1, o1),
        pc,
        p0,
        p1,
        pile,
        pen,
        seat,
        cards,
        tricks,
    )
    return state, done, over, free, stop, results


@njit(**INLINE_JIT)
def _result(results: tuple, lane: int, over: bool, free: bool, stopped: bool) -> tuple:
    """A finished or capped lane's (cards, tricks, code), counted as the scalar kernel counts."""
    cards = np.int64(extract(results[0], lane))
    tricks = np.int64(extract(results[1], lane))
    if not over:
        return cards, tricks, UNDECIDED
    if stopped:  # a penalty paid, leaving the payer nothing: its trick counted already
        end = PAID_END
    else:  # the last trick: a pile taken by the seat that is not out
        tricks += 1
        if not AT_ONCE:
            cards -= 1  # the sentinel reached is no card
        end = FREE_END if free else PAYING_END
    cards, tricks = _ending(cards, tricks, end)
    return cards, tricks, np.int64(extract(results[2], lane))


@njit(**INLINE_JIT)
def _hands(flat: np.ndarray, at: int, n0: int, n1: int) -> tuple:
    """The masks of a deal's two hands (n0, n1 >= 1, n0 + n1 <= 64) at flat[at:]."""
    if at + 64 <= flat.shape[0]:  # one load of 64 cards, each hand cut out of it
        court, bit0, bit1 = deck_masks(flat, at)
        u0 = np.uint64(n0)
        u1 = np.uint64(n1)
        keep0 = (_ONE << u0) - _ONE
        keep1 = (_ONE << u1) - _ONE
        return (
            (court & keep0) | (_ONE << u0),
            bit0 & keep0,
            bit1 & keep0,
            ((court >> u0) & keep1) | (_ONE << u1),
            (bit0 >> u0) & keep1,
            (bit1 >> u0) & keep1,
        )
    c0, a0, b0 = _load(flat, at, n0)  # the batch's last cards: no reading past its end
    c1, a1, b1 = _load(flat, at + n0, n1)
    return c0, a0, b0, c1, a1, b1


@njit(**INLINE_JIT)
def _put(state: tuple, lane: int, hands: tuple) -> tuple:
    """`state` with a new game in `lane`: its hands, seat 0 to lead, nothing laid (the pile's
    masks and count are cleared by the free play every game starts with)."""
    at = lane_mask(_ONE << np.uint64(lane), LANES)
    mc, m0, m1, oc, o0, o1 = hands
    return (
        select(at, mc, state[0]),
        select(at, m0, state[1]),
        select(at, m1, state[2]),
        select(at, oc, state[3]),
        select(at, o0, state[4]),
        select(at, o1, state[5]),
        state[6],
        state[7],
        state[8],
        state[9],
        select(at, 0, state[10]),
        select(at, 0, state[11]),
        select(at, 0, state[12]),
        select(at, 0, state[13]),
    )


@njit(**JIT)
def _play(flat, width, sizes, sstep, rows, indexed, start, stop, cap, cards, tricks, codes):
    """Play deals start..stop-1 in lanes: deal r is row i = rows[r] if `indexed` else r, at
    flat[i * width:], its hand sizes sizes[i * sstep], sizes[i * sstep + 1] (sstep 0: every
    deal the same). Writes cards[i], tricks[i], codes[i]: the winning seat, or UNDECIDED past
    `cap` cards (the caller replays those exactly)."""
    z = splat(0, LANES)
    state = (z, z, z, z, z, z, z, z, z, z, z, z, z, z)
    slot = np.full(LANES, -1, dtype=np.int64)
    todo = np.uint64((1 << LANES) - 1)  # lanes to (re)load
    playing = 0
    nxt = start
    over = free = stopped = np.uint64(0)
    results = (z, z, z)
    while True:
        while todo != _ZERO:  # write each ended lane's result and load its next deal
            lane = ctz(todo)
            todo &= todo - _ONE
            bit = _ONE << np.uint64(lane)
            i = slot[lane]
            if i >= 0:
                c, t, code = _result(results, lane, (over & bit) != 0, (free & bit) != 0,
                                     (stopped & bit) != 0)  # fmt: skip
                cards[i], tricks[i], codes[i] = c, t, code
                playing -= 1
            slot[lane] = -1
            hands = _PARK
            while nxt < stop:
                i = rows[nxt] if indexed else nxt
                nxt += 1
                n0 = sizes[i * sstep]
                n1 = sizes[i * sstep + 1]
                if n0 == 0:  # seat 0 cannot lead: seat 1 wins, nothing laid (as two.fast_at)
                    cards[i], tricks[i], codes[i] = 0, 0, 1
                    continue
                if n1 == 0:  # seat 0 lays a card that seat 1 cannot answer
                    cards[i], tricks[i], codes[i] = _lone_lead(n0, flat[i * width])
                    continue
                hands = _hands(flat, i * width, n0, n1)
                slot[lane] = i
                playing += 1
                break
            state = _put(state, lane, hands)
        if playing == 0:
            return
        while True:  # the hot loop: steps until a game ends, the state in registers
            state, done, over_mask, free_mask, stop_mask, results = _step(state, cap)
            if any_lane(done):
                break
        todo = lane_bits(done)
        over = lane_bits(over_mask)
        free = lane_bits(free_mask)
        stopped = lane_bits(stop_mask)


# -- entry points ------------------------------------------------------------------------------


@njit(**PARALLEL_JIT)
def _score_rows(flat, width, sizes, rows, cap, out):
    """Score deals `rows` of a flat batch (rows `width` long, hand sizes in pairs), blocks of
    BLOCK deals a thread; each deal writes only its own slots (out: Scores' arrays)."""
    cards, tricks, status, winner, start_cards, start_tricks, period_cards, period_tricks = out
    n = rows.shape[0]
    codes = np.empty(cards.shape[0], dtype=np.int64)
    for b in prange((n + BLOCK - 1) // BLOCK):
        stop = min(n, (b + 1) * BLOCK)
        _play(flat, width, sizes, _ROWS2, rows, _YES, b * BLOCK, stop, cap, cards, tricks, codes)
        for r in range(b * BLOCK, stop):
            i = rows[r]
            if codes[i] != UNDECIDED:
                status[i], winner[i] = FINISHED, codes[i]
                continue
            st, c, t, w, start_c, start_t, period_c, period_t = exact_at(
                flat, i * width, sizes[2 * i], sizes[2 * i + 1]
            )
            cards[i], tricks[i], status[i], winner[i] = c, t, st, w
            if st == LOOP:
                start_cards[i], start_tricks[i] = start_c, start_t
                period_cards[i], period_tricks[i] = period_c, period_t


def _score_batch(compiled, deals, sizes, rows, out: Scores, cap: int) -> None:
    """score_rows through `compiled`, the _score_rows of one rule set and lane count."""
    flat_sizes = np.ascontiguousarray(sizes, dtype=np.int64).reshape(-1)
    with one_block_a_thread():
        compiled(deals.reshape(-1), deals.shape[1], flat_sizes, rows, cap, out.arrays())


def score_rows(
    deals: np.ndarray, sizes: np.ndarray, rows: np.ndarray, out: Scores, cap: int
) -> None:
    """Score deals[rows] (two seats, at most 64 cards each) into out's slots, others untouched,
    as kernels/cpu/two.py's score_rows does, in parallel under the caller's thread settings."""
    _score_batch(_score_rows, deals, sizes, rows, out, cap)


@contextmanager
def one_block_a_thread() -> Iterator[None]:
    """Hand a parallel loop over blocks to threads one block at a time (a block is BLOCK deals
    already, the chunk kernels/score.py's numba_threads sets for a loop over deals). Only the
    loop over blocks may be parallel in the kernels run under it."""
    before = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(1)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(before)


@njit(**PARALLEL_JIT)
def _total_cards(flat, width, n, n0, n1, cap):
    """The bench kernel: n two-seat deals of a flat batch in lanes; cards and tricks summed."""
    sizes = np.array([n0, n1], dtype=np.int64)
    cards = np.empty(n, dtype=np.int64)
    tricks = np.empty(n, dtype=np.int64)
    codes = np.empty(n, dtype=np.int64)
    for b in prange((n + BLOCK - 1) // BLOCK):
        stop = min(n, (b + 1) * BLOCK)
        _play(flat, width, sizes, _SAME, sizes, _NO, b * BLOCK, stop, cap, cards, tricks, codes)
        for i in range(b * BLOCK, stop):
            if codes[i] == UNDECIDED:
                _, cards[i], tricks[i], _, _, _, _, _ = exact_at(flat, i * width, n0, n1)
    total_cards = 0
    total_tricks = 0
    for i in range(n):  # not cards.sum(): a parallel reduction, cut into blocks of one
        total_cards += cards[i]
        total_tricks += tricks[i]
    return total_cards, total_tricks


def total_cards(deals: np.ndarray, n0: int, n1: int, cap: int = FAST_CAP) -> tuple[int, int]:
    """Total cards and tricks over deals (N, W), every one with hands of n0 and n1 cards."""
    return _total(_total_cards, deals, n0, n1, cap)


def _total(compiled, deals: np.ndarray, n0: int, n1: int, cap: int = FAST_CAP) -> tuple[int, int]:
    """total_cards through `compiled`, the _total_cards of one rule set and lane count."""
    deals = np.ascontiguousarray(deals, dtype=np.uint8)
    with one_block_a_thread():
        return compiled(deals.reshape(-1), deals.shape[1], len(deals), n0, n1, cap)


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


def fast_rows_of(
    compiled, deals: np.ndarray, sizes: np.ndarray, cap: int
) -> tuple[np.ndarray, ...]:
    """fast_rows through `compiled`, the _play of one copy of a lane kernel (this one or
    lanes_nseat.py: the two take the same arguments)."""
    deals = np.ascontiguousarray(deals, dtype=np.uint8)
    seats = sizes.shape[1]
    flat_sizes = np.ascontiguousarray(sizes, dtype=np.int64).reshape(-1)
    n = len(deals)
    cards, tricks, codes = (np.zeros(n, dtype=np.int64) for _ in range(3))
    compiled(
        deals.reshape(-1), deals.shape[1], flat_sizes, seats, flat_sizes, False, 0, n, cap,
        cards, tricks, codes,
    )  # fmt: skip
    return cards, tricks, codes


# Rule sets and lane counts: copies (kernels/rules/copies.py) of what reaches the trick rules'
# flags or LANES, made on first use. A lane count's copy under bmn's rules copies only what
# reads LANES (the scalar kernel's exact path is two.py's own).
def _copy(flags: tuple, _rules: RuleSet | None = None) -> SimpleNamespace:
    ruled = RuleCopy(flags)
    return SimpleNamespace(
        score_rows=partial(_score_batch, ruled[_score_rows]),
        total_cards=partial(_total, ruled[_total_cards]),
        play_block=ruled[play_block],
        fast_rows=partial(fast_rows_of, ruled[_play]),
    )


_COPIES = RuleCopies(__name__, two_seat_flags, _copy)
_WIDTHS: dict[tuple, SimpleNamespace] = {}


def lanes_for(rules: RuleSet | str | None, seats: int = 2, lanes: int = LANES):
    """This kernel's entry points (score_rows, total_cards, play_block) under `rules` on
    `lanes` lanes (two seats, the only count it plays): the module itself for bmn's rules on
    LANES lanes, a copy otherwise, None for a rule set the two-seat kernels cannot play."""
    if seats != 2:
        raise ValueError(f"the two-seat lane kernel plays two seats, not {seats}")
    chosen = rule_set(rules)
    if lanes == LANES:
        return _COPIES.lookup(chosen)
    flags = two_seat_flags(chosen)
    if flags is None:
        return None
    if flags == two_seat_flags(rule_set(None)):
        flags = ()
    flags = tuple(sorted((*flags, ("LANES", lanes))))
    if flags not in _WIDTHS:
        _WIDTHS[flags] = _copy(flags)
    return _WIDTHS[flags]
