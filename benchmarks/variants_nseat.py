"""Measured, not kept: the N-seat batch scorer playing a block of deals on one pair of table
arrays, where kernels/cpu/nseat.py makes them for each deal (benchmarks/cpu_variants.py times
it; docs/development.md: no faster: the arrays a deal makes are known to alias nothing, the
ones it is lent are not, and that costs what the two allocations saved).

`_fast_in` is nseat._fast with the arrays passed in.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from bmn.kernels.config import FINISHED, JIT, MAX_SEATS, PARALLEL_JIT, UNDECIDED
from bmn.kernels.cpu.nseat import (
    _HANDED_BACK,
    _OVER,
    _PLAYED,
    WIDTH,
    _hand,
    _run,
    _store,
    advance,
    count_holders,
    exact,
    lone,
    setup,
)


@njit(**JIT)
def _fast_in(buf, offset, sizes, soff, seats, cap, h, ring) -> tuple:
    """_fast on the table arrays h (WIDTH) and ring (MAX_SEATS), which it overwrites: a batch
    lends the same two to every deal of a block (two allocations a deal cost about a tenth of
    a 3-seat game's time).

    The seats in the game go into registers, in turn order from the leader; a trick in which
    one must lay and holds nothing is played on the table arrays, and the rest go on in
    registers with one seat fewer.
    """
    holders, first = count_holders(sizes, soff, seats)
    if holders < 2:
        return lone(seats, first)
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


# Deals a prange iteration of the batch scorer, playing on one pair of table arrays.
BLOCK = 64


@njit(**PARALLEL_JIT)
def _score_rows(flat, width, sizes, seats, rows, cap, cards, tricks, status, winner, loops):
    """Score deals `rows` of a flat batch of rows `width` long; each writes only its slots."""
    for b in prange((rows.shape[0] + BLOCK - 1) // BLOCK):
        h = np.empty(WIDTH, dtype=np.uint64)
        ring = np.empty(MAX_SEATS, dtype=np.int64)
        for r in range(b * BLOCK, min(b * BLOCK + BLOCK, rows.shape[0])):
            i = rows[r]
            at = i * width
            c, t, code = _fast_in(flat, at, sizes, i * seats, seats, cap, h, ring)
            if code != UNDECIDED:
                cards[i], tricks[i], status[i], winner[i] = c, t, FINISHED, code
                for f in range(4):
                    loops[f][i] = -1
                continue
            st, c, t, w, start_c, start_t, period_c, period_t = exact(
                flat, at, sizes, i * seats, seats
            )
            cards[i], tricks[i], status[i], winner[i] = c, t, st, w
            loops[0][i], loops[1][i] = start_c, start_t
            loops[2][i], loops[3][i] = period_c, period_t


def score_rows(deals, sizes, rows, out, cap) -> None:
    """nseat.score_rows through _score_rows here, numba's chunk size in deals kept as blocks."""
    loops = (out.loop_start_cards, out.loop_start_tricks, out.period_cards, out.period_tricks)
    chunk = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(max(1, chunk // BLOCK) if chunk else 0)
    try:
        _score_rows(deals.reshape(-1), deals.shape[1], sizes.reshape(-1), sizes.shape[1], rows,
                    cap, out.cards, out.tricks, out.status, out.winner, loops)  # fmt: skip
    finally:
        numba.set_parallel_chunksize(chunk)
