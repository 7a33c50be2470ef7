"""A looping deal's cycle, named in compiled code: the smallest trick-boundary state on it.

A loop hunt sees the same few cycles from thousands of deals; naming each deal's cycle in
Python (kernels/cycles/loops.analyse) costs far more than scoring it. Here each looping deal of
a batch is played on the N-seat kernel's table (kernels/cpu/nseat_table.py: 2 to 4 seats, at
most 64 cards) to its cycle's first state, which the exact player's figures give
(loop_start_tricks), and round the cycle once (period_tricks), keeping the smallest state seen.

A state is the table's canonical masks, the seat to lead and the set of seats out (exactly what
the exact player compares), written as ID_WORDS uint64 words. Two deals fall into the same cycle
exactly when their ids are equal: the id is a state of the cycle (so equal ids share a state),
and the smallest state of one cycle is the same from wherever it is entered. So a hunt analyses
one deal per new id in Python, and counts the others by their id. Seat-bound, as
loops.cycle_key: the same cycle with the seats renumbered has another id.

Under a rule set (kernels/rules/sets.py) the table plays its reading of a seat out while
paying (the table's NEXT_PAYS, in a copy made on first use: kernels/rules/copies.py). That is
the only choice a looping game reaches: the other readings part where a two-seat hand empties,
which ends the game or leads to its end under them, so a two-seat game that loops under one of
them plays bmn's tricks throughout.
"""

from __future__ import annotations

from functools import partial
from types import ModuleType, SimpleNamespace

import numpy as np
from numba import njit, prange

from bmn.kernels.config import JIT, MAX_CARDS, MAX_SEATS, PARALLEL_JIT, kernel_array
from bmn.kernels.cpu.nseat_table import WIDTH, advance, count_holders, setup
from bmn.kernels.rules.copies import Flags, RuleCopies, RuleCopy
from bmn.kernels.rules.flags import table_flags
from bmn.kernels.rules.sets import RuleSet

ID_WORDS = WIDTH + 2  # the seats out, the seat to lead, the table's masks


@njit(**JIT)
def _write(h: np.ndarray, leader: int, out: int, row: np.ndarray) -> None:
    row[0] = np.uint64(out)
    row[1] = np.uint64(leader)
    for i in range(WIDTH):
        row[2 + i] = h[i]


@njit(**JIT)
def _smaller(h: np.ndarray, leader: int, out: int, row: np.ndarray) -> bool:
    """Whether the state (h, leader, out) comes before `row` in word order."""
    if np.uint64(out) != row[0]:
        return np.uint64(out) < row[0]
    if np.uint64(leader) != row[1]:
        return np.uint64(leader) < row[1]
    for i in range(WIDTH):
        if h[i] != row[2 + i]:
            return h[i] < row[2 + i]
    return False


@njit(**JIT)
def _cycle_id(buf, offset, sizes, soff, seats, start_tricks, period_tricks, row) -> None:
    """The id of the cycle the deal at buf[offset:] falls into, written into `row`."""
    holders, _ = count_holders(sizes, soff, seats)
    if holders < 2:  # such a deal finishes at once: no cycle (the caller passes loops only)
        row[:] = 0
        return
    h = np.empty(WIDTH, dtype=np.uint64)
    ring = np.empty(MAX_SEATS, dtype=np.int64)
    leader, live, out, total = setup(buf, offset, sizes, soff, seats, h, ring)
    for _ in range(start_tricks):
        leader, _, live, out, _ = advance(h, ring, leader, live, out, total)
    _write(h, leader, out, row)
    for _ in range(period_tricks - 1):
        leader, _, live, out, _ = advance(h, ring, leader, live, out, total)
        if _smaller(h, leader, out, row):
            _write(h, leader, out, row)


@njit(**PARALLEL_JIT)
def _cycle_ids(flat, width, sizes, seats, rows, start, period, ids) -> None:
    for r in prange(rows.shape[0]):
        i = rows[r]
        _cycle_id(flat, i * width, sizes, i * seats, seats, start[r], period[r], ids[r])


def cycle_ids(
    deals: np.ndarray,
    sizes: np.ndarray,
    rows: np.ndarray,
    start_tricks: np.ndarray,
    period_tricks: np.ndarray,
    rules: str | RuleSet | None = None,
) -> np.ndarray:
    """The cycle ids of the looping deals `deals[rows]`, as (len(rows), ID_WORDS) uint64.

    `deals` uint8 (N, W) and `sizes` int64 (N, S) as kernels/score.py takes them (2 to 4 seats,
    at most 64 cards a deal); `start_tricks` and `period_tricks` are the score's
    loop_start_tricks and period_tricks of those rows (kernels/results.py), which must loop
    under `rules` (a rule set's name or RuleSet; None: bmn's).
    """
    deals = kernel_array(deals, np.uint8)
    sizes = kernel_array(sizes, np.int64)
    rows = kernel_array(rows, np.int64)
    seats = sizes.shape[1]
    if len(rows) and sizes[rows].sum(axis=1).max() > MAX_CARDS:
        raise ValueError(f"cycle ids are for deals of at most {MAX_CARDS} cards")
    start = kernel_array(start_tricks, np.int64)
    period = kernel_array(period_tricks, np.int64)
    if len(rows) and (start.min() < 0 or period.min() < 1):
        raise ValueError("cycle ids are for looping deals (their start and period in tricks)")
    ids = np.zeros((len(rows), ID_WORDS), dtype=np.uint64)
    flat = deals.reshape(-1)
    walk = _COPIES.lookup(rules)._cycle_ids  # type: ignore[union-attr]
    walk(flat, deals.shape[1], sizes.reshape(-1), seats, rows, start, period, ids)
    return ids


def _copy(flags: Flags, _rules: RuleSet) -> SimpleNamespace:
    return SimpleNamespace(_cycle_ids=RuleCopy(flags)[_cycle_ids])


_COPIES: RuleCopies[ModuleType | SimpleNamespace] = RuleCopies(
    __name__, partial(table_flags, looping=True), _copy
)
