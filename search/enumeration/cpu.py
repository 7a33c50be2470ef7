"""The enumeration's compiled loop: score consecutive ranks of a deck, stepping from one card
sequence to the next inside compiled code (kernels/ranks.py says what a rank is).

`visit` scores `n` sequences from a start sequence with a kernel's per-deal functions (the
two-seat kernel, or the N-seat one for 3 and 4 seats; kernels/score.py's registry), keeps
the first longest finished game by the objective and every deal of at least `keep_above`
cards or that loops, and leaves the start sequence at the next one to score. One compiled
specialisation serves every kernel (first-class functions, as the search loop in
search/strategies/cpu.py). Where kernels/cpu/choice.py chooses the lane kernels, `visit_lanes`
scores blocks of consecutive sequences several games a step and keeps them in order: the same
deals kept, the start sequence left in the same place. Its GPU twin, for two seats, is cuda.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import njit, types

from bmn.kernels.config import FAST_CAP, FINISHED, INLINE_JIT, JIT, LOOP, UNDECIDED
from bmn.kernels.cpu import two
from bmn.kernels.ranks import next_arrangement
from bmn.kernels.rules.sets import rule_set
from bmn.kernels.score import (
    DEAL,
    DEALS,
    NUMBERS,
    PLAY_BLOCK,
    PLAY_EXACT,
    PLAY_FAST,
    SIZES,
    Rules,
    cpu_kernels,
    score_deck,
)

FINDS = 4096  # finds one compiled call may report before it returns early
# Slots of `top`, the best deal of a call: its score, cards, tricks and offset from the start.
SCORE, CARDS, TRICKS, OFFSET = range(4)


def _visit(
    cards, sizes, n, objective, keep_above, finds_decks, finds_meta, best, top,
    play_fast_at, play_exact_at,
):  # fmt: skip
    """Score up to `n` sequences from `cards` (stepped in place to the next unscored one);
    returns (sequences scored, finds written). Stops early, before a find could be lost, when
    the finds buffer is full, and at the deck's last sequence."""
    done = 0
    n_finds = 0
    while done < n and n_finds < finds_meta.shape[0]:
        score, laid, tricks, status = score_deck(
            cards, sizes, objective, play_fast_at, play_exact_at
        )
        n_finds = _keep(cards, done, score, laid, tricks, status, keep_above, best, top,
                        finds_decks, finds_meta, n_finds)  # fmt: skip
        done += 1
        if not next_arrangement(cards):
            break
    return done, n_finds


@njit(**JIT)
def _visit_two(cards, n0, n1, n, objective, keep_above, finds_decks, finds_meta, best, top):
    """_visit for two seats, calling the two-seat kernel directly as its bench does (a call
    through a first-class function cannot be inlined: measured about 10% slower). Offset and
    cap go as int64, not literals: the batch scorer's own compile of fast_at and exact_at, not
    one of their own (each literal is another signature, about 10 s of a first compile)."""
    done = 0
    n_finds = 0
    start, cap = np.int64(0), np.int64(FAST_CAP)
    while done < n and n_finds < finds_meta.shape[0]:
        laid, tricks, code = two.fast_at(cards, start, n0, n1, cap)
        status = FINISHED
        if code == UNDECIDED:
            status, laid, tricks = two.exact_at(cards, start, n0, n1)[:3]
        score = laid if objective == 0 else tricks
        n_finds = _keep(cards, done, score, laid, tricks, status, keep_above, best, top,
                        finds_decks, finds_meta, n_finds)  # fmt: skip
        done += 1
        if not next_arrangement(cards):
            break
    return done, n_finds


def _visit_lanes(
    cards, sizes, n, objective, keep_above, finds_decks, finds_meta, best, top,
    play_exact_at, play_block, decks, results,
):  # fmt: skip
    """_visit fed by a lane kernel (kernels/cpu/lanes.py, lanes_nseat.py): blocks of the next
    sequences scored several games a step, then kept in order, so the same deals are scored
    and kept as _visit keeps them, and `cards` is left where _visit leaves it."""
    done = 0
    n_finds = 0
    more = True
    while more and done < n and n_finds < finds_meta.shape[0]:
        block = 0
        while block < min(decks.shape[0], n - done) and more:
            for k in range(cards.shape[0]):
                decks[block, k] = cards[k]
            block += 1
            more = next_arrangement(cards)
        play_block(decks, sizes, block, results)
        for t in range(block):
            laid, tricks, code = results[0, t], results[1, t], results[2, t]
            status = FINISHED
            if code == UNDECIDED:
                status, laid, tricks = play_exact_at(decks[t], 0, sizes)[:3]
            score = laid if objective == 0 else tricks
            n_finds = _keep(decks[t], done, score, laid, tricks, status, keep_above, best, top,
                            finds_decks, finds_meta, n_finds)  # fmt: skip
            done += 1
            if n_finds >= finds_meta.shape[0] and t + 1 < block:  # full: the next one unscored
                for k in range(cards.shape[0]):
                    cards[k] = decks[t + 1, k]
                return done, n_finds
    return done, n_finds


@njit(**INLINE_JIT)
def _keep(
    cards, done, score, laid, tricks, status, keep_above, best, top, finds_decks, finds_meta,
    n_finds,
) -> int:  # fmt: skip
    """Track the longest finished game and keep finds; returns the new count of finds."""
    # A loop's figures say where it repeats, not how long it is; strictly longer, so the
    # lowest rank among equals stays the best.
    if status == FINISHED and score > top[SCORE]:
        best[:] = cards
        top[SCORE], top[CARDS], top[TRICKS], top[OFFSET] = score, laid, tricks, done
    if laid >= keep_above or status == LOOP:
        finds_decks[n_finds, :] = cards
        finds_meta[n_finds, 0] = laid
        finds_meta[n_finds, 1] = tricks
        finds_meta[n_finds, 2] = status
        finds_meta[n_finds, 3] = done
        n_finds += 1
    return n_finds


_I64 = types.int64
# The arguments both visits take; then the scalar kernel's fast path, or a block for lanes.
_VISITED = (
    DEAL,  # cards
    SIZES,  # sizes
    _I64,  # n
    _I64,  # objective
    _I64,  # keep_above
    DEALS,  # finds_decks
    NUMBERS,  # finds_meta
    DEAL,  # best
    SIZES,  # top
)
_VISIT = types.UniTuple(_I64, 2)(*_VISITED, PLAY_FAST, PLAY_EXACT)
_VISIT_LANES = types.UniTuple(_I64, 2)(
    *_VISITED,
    PLAY_EXACT,
    PLAY_BLOCK,
    DEALS,  # decks
    NUMBERS,  # results
)


@cache
def visit():
    """The compiled loop, compiled (or loaded from the cache) on first use."""
    return njit(_VISIT, **JIT)(_visit)


@cache
def visit_lanes():
    """The loop fed by a lane kernel, compiled (or loaded from the cache) on first use."""
    return njit(_VISIT_LANES, **JIT)(_visit_lanes)


# Sequences a lane kernel scores at once: at 8 lanes 64 games a lane (as a search's blocks).
LANE_BLOCK = 512


@dataclass
class Visited:
    """What scoring a run of consecutive sequences found: the first best deal (offset from the
    start), and every kept deal with its (cards, tricks, status, offset)."""

    done: int
    best: np.ndarray
    best_score: int
    best_cards: int
    best_tricks: int
    best_offset: int
    decks: np.ndarray
    meta: np.ndarray


def score_run(
    start: np.ndarray,
    sizes: np.ndarray,
    n: int,
    objective: int,
    keep_above: int,
    max_finds: int = 1 << 18,
    rules: Rules = None,
) -> Visited:
    """Score `n` consecutive sequences from `start` (left untouched), on this thread, under
    `rules` (None: bmn's); stops early once `max_finds` deals are kept (done says how many
    were scored)."""
    kernel, lanes = cpu_kernels(len(sizes), rules)
    cards = np.ascontiguousarray(start, dtype=np.uint8).copy()
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    best = cards.copy()
    top = np.array([-1, -1, -1, -1], dtype=np.int64)
    buffer_decks = np.zeros((FINDS, len(cards)), np.uint8)
    buffer_meta = np.zeros((FINDS, 4), np.int64)
    decks, meta, done = [], [], 0
    call = visit()
    while done < n and sum(len(m) for m in meta) < max_finds:
        part_top = np.array([-1, -1, -1, -1], dtype=np.int64)
        part_best = cards.copy()
        if lanes is not None:  # several games a step (kernels/cpu/choice.py chooses)
            k, kept = visit_lanes()(
                cards, sizes, n - done, objective, keep_above, buffer_decks, buffer_meta,
                part_best, part_top, kernel.play_exact_at, lanes.play_block,
                *_lane_room(len(cards)),
            )  # fmt: skip
        elif kernel is two:  # two seats under bmn's rules (or alike): the kernel inlined
            k, kept = _visit_two(
                cards, sizes[0], sizes[1], n - done, objective, keep_above, buffer_decks,
                buffer_meta, part_best, part_top,
            )  # fmt: skip
        else:
            k, kept = call(
                cards, sizes, n - done, objective, keep_above, buffer_decks, buffer_meta,
                part_best, part_top, kernel.play_fast_at, kernel.play_exact_at,
            )  # fmt: skip
        if part_top[SCORE] > top[SCORE]:
            best[:] = part_best
            top[:] = part_top
            top[OFFSET] += done
        found = buffer_meta[:kept].copy()
        found[:, 3] += done
        decks.append(buffer_decks[:kept].copy())
        meta.append(found)
        asked, done = n - done, done + k
        if kept < FINDS and k < asked:  # stopped at the deck's last sequence: nothing follows
            break
    width = len(cards)
    return Visited(
        done,
        best,
        int(top[SCORE]),
        int(top[CARDS]),
        int(top[TRICKS]),
        int(top[OFFSET]),
        np.concatenate(decks) if decks else np.zeros((0, width), np.uint8),
        np.concatenate(meta) if meta else np.zeros((0, 4), np.int64),
    )


def _lane_room(width: int) -> tuple[np.ndarray, np.ndarray]:
    """A block's sequences and results for a lane kernel."""
    return np.zeros((LANE_BLOCK, width), np.uint8), np.zeros((3, LANE_BLOCK), np.int64)


def warm_visit(rules: Rules = None, seats: int | None = None) -> None:
    """Compile (or load) the loop with `seats` seats' kernel under `rules` (None: each seat
    count the rule set plays): one sequence each."""
    for count in (2, 3, 4) if seats is None else (seats,):
        if rule_set(rules).plays(count):
            sizes = np.ones(count, dtype=np.int64)
            score_run(np.zeros(count, dtype=np.uint8), sizes, 1, 0, 1 << 40, rules=rules)
