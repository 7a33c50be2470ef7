"""The search strategies, their registry, and the one compiled loop that runs them.

A strategy is two compiled steps: `propose` changes the current deal (and says how, so it can
be undone) and `settle` decides whether to keep the change. The loop between them is the same
for every strategy: score the deal, keep finds and the best deal, settle. One deal is scored
per iteration, so a run depends on its seed and iteration count only, never on how the
iterations were cut into chunks.

The loop is compiled once per strategy, with that strategy's steps in it: a run compiles its
own strategy's steps only (a first run compiles for tens of seconds, each function costing
its share), and the loop makes a direct call per step, with no dispatch on the strategy.

Where kernels/cpu/choice.py chooses the lane kernels, `run_chunk` runs the same strategy's
loop fed by them instead (search/strategies/lanes.py): the same deals, finds and states.

The strategies' names, descriptions and options are in search/strategies/registry.py (plain Python).
"""

from __future__ import annotations

from functools import cache
from types import FunctionType

from numba import njit, types

from bmn.kernels.config import JIT, LOOP
from bmn.kernels.score import (
    Rules,
    cpu_kernels,
    per_deal,
    score_deck,
)
from bmn.search.strategies import climb, lahc, lanes, random_restart, walk
from bmn.search.strategies.moves import record
from bmn.search.strategies.registry import STRATEGIES
from bmn.search.strategies.worker import BEST, CHUNK_ARGUMENTS, GAMES, LoopFinds, WorkerState

# Each strategy's (propose, settle), bound into its own copy of the loop; lahc moves like climb.
STEPS = {
    "walk": (walk.propose, walk.settle),
    "random": (random_restart.propose, random_restart.settle),
    "climb": (climb.propose, climb.settle),
    "lahc": (climb.propose, lahc.settle),
}
assert list(STEPS) == list(STRATEGIES), "a strategy without its steps"


def _propose(deck, rng, counters):
    """The strategy's propose: each copy of the loop binds this name (see `chunk`)."""
    raise NotImplementedError


def _settle(deck, move, score, counters, history, patience, rng):
    """The strategy's settle: each copy of the loop binds this name (see `chunk`)."""
    raise NotImplementedError


def _chunk(
    deck,
    best,
    rng,
    counters,
    history,
    iterations,
    objective,
    keep_above,
    patience,
    finds_decks,
    finds_meta,
    sizes,
    play_fast_at,
    play_exact_at,
):
    """Score up to `iterations` deals; returns (iterations done, finds written).

    Returns early, before any find could be lost, when the finds buffer is full.
    """
    n_finds = 0
    done = 0
    while done < iterations and n_finds < finds_meta.shape[0]:  # the buffer's rows
        move = _propose(deck, rng, counters)
        score, cards, tricks, status = score_deck(
            deck, sizes, objective, play_fast_at, play_exact_at
        )
        # Most deals are kept nowhere: test that here, so the hot loop stays a few compares.
        if score > counters[BEST] or cards >= keep_above or status == LOOP:
            n_finds = record(
                deck,
                score,
                cards,
                tricks,
                status,
                keep_above,
                best,
                counters,
                finds_decks,
                finds_meta,
                n_finds,
            )
        _settle(deck, move, score, counters, history, patience, rng)
        counters[GAMES] += 1
        done += 1
    return done, n_finds


_I64 = types.int64
_CHUNK = types.UniTuple(_I64, 2)(*CHUNK_ARGUMENTS)


@cache
def chunk(strategy: str):
    """The compiled loop of a strategy, compiled (or loaded from the cache) on first use: one
    specialisation, whatever kernel it runs, since the kernel's functions come in as
    first-class functions. Each strategy's copy is named for it: numba keys its cache by the
    function's name, and the copies differ only in what `_propose` and `_settle` mean."""
    propose, settle = STEPS[strategy]
    namespace = {**_chunk.__globals__, "_propose": propose, "_settle": settle}
    name = f"_chunk_{strategy}"
    loop = FunctionType(_chunk.__code__, namespace, name, _chunk.__defaults__)
    loop.__qualname__, loop.__module__, loop.__doc__ = name, _chunk.__module__, _chunk.__doc__
    return njit(_CHUNK, **JIT)(loop)


def run_chunk(
    name: str,
    state: WorkerState,
    finds: LoopFinds,
    iterations: int,
    objective: int,
    keep_above: int,
    patience: int,
    rules: Rules = None,
) -> tuple[int, int]:
    """Advance one worker by up to `iterations` deals of a strategy (compiles on first use).

    The deal is scored by the compiled kernel registered for the worker's seat count under
    `rules` (a rule set's name; None: bmn's); it may be any deck (moves permute its cards),
    and `finds` rows are as wide as it. Returns (iterations done, finds written into `finds`).
    """
    kernel, block = cpu_kernels(len(state.sizes), rules)
    if finds.decks.shape[1] != len(state.deck) or int(state.sizes.sum()) != len(state.deck):
        raise ValueError(
            f"a deal of {len(state.deck)} cards cut into {state.sizes.tolist()} kept in finds"
            f" of {finds.decks.shape[1]} cards"
        )
    if name not in STEPS:
        raise ValueError(f"no strategy {name!r} in the compiled loop; one of {list(STEPS)}")
    if block is not None:  # the same deals, finds and states, several games a step
        play_fast_at = lanes.scorer(name, per_deal(kernel, state.sizes.tolist())[0])
        return lanes.chunk(name)(
            state.deck, state.best, state.rng, state.counters, state.history, iterations,
            objective, keep_above, patience, finds.decks, finds.meta, state.sizes,
            play_fast_at, kernel.play_exact_at, block.play_block,
            *lanes.workspace(len(state.deck)),
        )  # fmt: skip
    play_fast_at, play_exact_at = per_deal(kernel, state.sizes.tolist())
    return chunk(name)(
        state.deck,
        state.best,
        state.rng,
        state.counters,
        state.history,
        iterations,
        objective,
        keep_above,
        patience,
        finds.decks,
        finds.meta,
        state.sizes,
        play_fast_at,
        play_exact_at,
    )
