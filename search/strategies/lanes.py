"""The search loop fed by the lane kernels: proposals made ahead in blocks, scored several games
a step, settled one by one in order, so a run scores exactly the deals the scalar loop
(search/strategies/cpu.py) scores, with the same finds, states and checkpoints.

A block is made by proposing from the current deal, again and again, each proposal starting
from the deal its strategy's `speculate` says the next one starts from: the proposal itself
for a walk and random restart (they move on whatever the score), the current deal for hill
climbing and late acceptance (a guess that the proposal is turned down). The lane kernel scores
the whole block (kernels/cpu/lanes.py, lanes_nseat.py: play_block); then each deal is settled
in order, as the scalar loop settles it. Once a settle leaves a state the next proposal was not
made from (a deal kept, a restart: the deal, the generator or whether the current deal is
scored differ), the rest of the block is dropped unscored-as-far-as-the-run-knows and the next
block is made from the true state: the run's deals, finds and counters never depend on the
blocks, only its speed does. A strategy whose guess always holds (walk, random) fills blocks of
BLOCK deals; one whose guesses fail sizes its next block from its last run of held guesses and
scores short blocks with the scalar kernel, a deal at a time.
"""

from __future__ import annotations

import threading
from functools import cache
from types import FunctionType

import numpy as np
from numba import njit, types

from bmn.kernels.config import FAST_CAP, FINISHED, INLINE_JIT, JIT, LOOP, UNDECIDED
from bmn.kernels.score import DEALS, NUMBERS, PLAY_BLOCK
from bmn.search.strategies import climb, lahc, random_restart, walk
from bmn.search.strategies.moves import record
from bmn.search.strategies.registry import STRATEGIES
from bmn.search.strategies.worker import BEST, CHUNK_ARGUMENTS, CURRENT, GAMES

# Deals a block holds: at 8 lanes, 64 games a lane, so the lanes wait for the block's last
# games a few per cent of the time (measured: docs/development.md, "CPU kernel speed").
BLOCK = 512
# A block shorter than this is scored by the scalar kernel, a deal at a time: the lanes
# would wait for its longest game with most of them idle.
LEAST = 16

# Each strategy's (propose, settle, speculate, guesses): `guesses` when a settle can leave a
# state the next proposal was not made from (the blocks are then checked and sized).
STEPS = {
    "walk": (walk.propose, walk.settle, walk.speculate, False),
    "random": (random_restart.propose, random_restart.settle, random_restart.speculate, False),
    "climb": (climb.propose, climb.settle, climb.speculate, True),
    "lahc": (climb.propose, lahc.settle, climb.speculate, True),
}
assert list(STEPS) == list(STRATEGIES), "a strategy without its steps"


def _propose(deck, rng, counters):
    """The strategy's propose: each copy of the loop binds this name (see `chunk`)."""
    raise NotImplementedError


def _settle(deck, move, score, counters, history, patience, rng):
    """The strategy's settle: each copy of the loop binds this name."""
    raise NotImplementedError


def _speculate(deck, move):
    """The strategy's speculate: each copy of the loop binds this name."""
    raise NotImplementedError


_GUESSES = True  # bound per copy of the loop


@njit(**INLINE_JIT)
def _held(deck, rng, counters, start, state, unscored) -> bool:
    """Whether a settle left the state the next proposal was made from: its deal `start`,
    generator `state`, and the current deal unscored or not (what a proposal reads)."""
    same = (counters[CURRENT] < 0) == unscored
    for k in range(rng.shape[0]):
        same &= rng[k] == state[k]
    for k in range(deck.shape[0]):
        same &= deck[k] == start[k]
    return same


def _chunk(
    deck, best, rng, counters, history, iterations, objective, keep_above, patience,
    finds_decks, finds_meta, sizes, play_fast_at, play_exact_at, play_block,
    decks, starts, states, moves, results,
):  # fmt: skip
    """Score up to `iterations` deals as search/strategies/cpu.py's loop does, in blocks made
    ahead (module docstring); returns (iterations done, finds written). Returns early, before
    any find could be lost, when the finds buffer is full."""
    n_finds = 0
    done = 0
    room = decks.shape[0]
    run = room
    fails = 0.5  # how often a guess fails, a running mean over the last blocks' deals
    while done < iterations and n_finds < finds_meta.shape[0]:
        unscored = counters[CURRENT] < 0
        block = min(run, iterations - done)
        if _GUESSES and unscored:  # the first deal after a start: no move to guess from
            block = 1
        for t in range(block):
            move = _propose(deck, rng, counters)
            moves[t, 0], moves[t, 1], moves[t, 2] = move
            for k in range(deck.shape[0]):
                decks[t, k] = deck[k]
            for k in range(rng.shape[0]):
                states[t, k] = rng[k]
            _speculate(deck, move)
            if _GUESSES:
                for k in range(deck.shape[0]):
                    starts[t, k] = deck[k]
        if block >= LEAST or not _GUESSES:  # a walk's short block: its chunk's last deals
            play_block(decks, sizes, block, results)
        else:
            for t in range(block):
                results[0, t], results[1, t], results[2, t] = play_fast_at(
                    decks[t], 0, sizes, FAST_CAP
                )
        used = 0
        for t in range(block):
            for k in range(deck.shape[0]):
                deck[k] = decks[t, k]
            for k in range(rng.shape[0]):
                rng[k] = states[t, k]
            move = (moves[t, 0], moves[t, 1], moves[t, 2])
            cards, tricks, code = results[0, t], results[1, t], results[2, t]
            status = FINISHED
            if code == UNDECIDED:  # past the fast path's cap: replayed exactly
                status, cards, tricks = play_exact_at(deck, 0, sizes)[:3]
            score = cards if objective == 0 else tricks
            if score > counters[BEST] or cards >= keep_above or status == LOOP:
                n_finds = record(
                    deck, score, cards, tricks, status, keep_above, best, counters,
                    finds_decks, finds_meta, n_finds,
                )  # fmt: skip
            _settle(deck, move, score, counters, history, patience, rng)
            counters[GAMES] += 1
            done += 1
            used += 1
            if n_finds >= finds_meta.shape[0]:
                break
            if (
                _GUESSES
                and t + 1 < block
                and not _held(deck, rng, counters, starts[t], states[t], unscored)
            ):
                break
        if _GUESSES:  # the next block: about half the run of guesses expected to hold
            failed = used < block or not _held(deck, rng, counters, starts[used - 1],
                                               states[used - 1], unscored)  # fmt: skip
            weight = min(used, 64) / 128.0
            fails = (1.0 - weight) * fails + weight * (1.0 if failed else 0.0) / used
            run = max(1, min(room, int(0.5 / max(fails, 1e-6))))
    return done, n_finds


_CHUNK = types.UniTuple(types.int64, 2)(
    *CHUNK_ARGUMENTS,
    PLAY_BLOCK,
    DEALS,  # decks
    DEALS,  # starts
    types.Array(types.uint64, 2, "C"),  # states
    NUMBERS,  # moves
    NUMBERS,  # results
)


@cache
def chunk(strategy: str):
    """The lane-fed loop of a strategy, compiled (or loaded from the cache) on first use: one
    specialisation whatever kernel it runs (first-class functions, as the scalar loop's), its
    copy named for the strategy (numba keys its cache by the function's name)."""
    propose, settle, speculate, guesses = STEPS[strategy]
    namespace = {
        **_chunk.__globals__,
        "_propose": propose,
        "_settle": settle,
        "_speculate": speculate,
        "_GUESSES": guesses,
    }
    name = f"_lanes_chunk_{strategy}"
    loop = FunctionType(_chunk.__code__, namespace, name, _chunk.__defaults__)
    loop.__qualname__, loop.__module__, loop.__doc__ = name, _chunk.__module__, _chunk.__doc__
    return njit(_CHUNK, **JIT)(loop)


@njit(**JIT)
def alone(deck: np.ndarray, offset: int, sizes: np.ndarray, cap: int) -> tuple:
    """What a strategy whose guesses always hold (walk, random) is given as its deal-at-a-time
    scorer: it scores every block in lanes, so never calls it, and a kernel's own (seconds of a
    first compile) is not compiled for it."""
    return np.int64(0), np.int64(0), np.int64(UNDECIDED)


def scorer(strategy: str, play_fast_at):
    """The deal-at-a-time scorer a strategy's lane-fed loop is given: `play_fast_at` where its
    guesses may fail (short blocks), else `alone`."""
    return play_fast_at if STEPS[strategy][3] else alone


_ROOMS = threading.local()


def workspace(width: int) -> tuple[np.ndarray, ...]:
    """This thread's block arrays for deals of `width` cards, made once: the proposals, the
    deals they start from, the generator after each, the moves, the results."""
    rooms = _ROOMS.__dict__.setdefault("rooms", {})
    if width not in rooms:
        rooms[width] = (
            np.zeros((BLOCK, width), np.uint8),
            np.zeros((BLOCK, width), np.uint8),
            np.zeros((BLOCK, 4), np.uint64),
            np.zeros((BLOCK, 3), np.int64),
            np.zeros((3, BLOCK), np.int64),
        )
    return rooms[width]
