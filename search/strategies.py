"""The search strategies and the one compiled loop that runs them.

A strategy is two compiled steps: `propose` changes the current deal (and says how, so it can
be undone) and `settle` decides whether to keep the change. The loop between them is the same
for every strategy: score the deal, keep finds and the best deal, settle. One deal is scored
per iteration, so a run depends on its seed and iteration count only, never on how the
iterations were cut into chunks.
"""

from __future__ import annotations

from numba import njit

from bmn.kernels.config import JIT
from bmn.search import climb, lahc, random_restart, walk
from bmn.search.evaluate import record, score_deck
from bmn.search.worker import GAMES, MAX_FINDS, Finds, WorkerState

STRATEGIES = {
    "walk": "one-swap random walk (default: measured fastest to the far tail)",
    "random": "random restart: a fresh shuffle for every deal",
    "climb": "hill climbing with restarts (swap or move a card; sideways moves accepted)",
    "lahc": "late-acceptance hill climbing (history of --history scores)",
}
DEFAULT_STRATEGY = "walk"
WALK, RANDOM, CLIMB, LAHC = range(4)  # codes, in the order of STRATEGIES


@njit(**JIT)
def _propose(strategy, deck, rng, counters):
    if strategy == WALK:
        return walk.propose(deck, rng, counters)
    if strategy == RANDOM:
        return random_restart.propose(deck, rng, counters)
    return climb.propose(deck, rng, counters)  # lahc moves like climb


@njit(**JIT)
def _settle(strategy, deck, move, score, counters, history, patience, rng):
    if strategy == WALK:
        walk.settle(deck, move, score, counters, history, patience, rng)
    elif strategy == RANDOM:
        random_restart.settle(deck, move, score, counters, history, patience, rng)
    elif strategy == CLIMB:
        climb.settle(deck, move, score, counters, history, patience, rng)
    else:
        lahc.settle(deck, move, score, counters, history, patience, rng)


@njit(**JIT)
def chunk(
    strategy,
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
):
    """Score up to `iterations` deals; returns (iterations done, finds written).

    Returns early, before any find could be lost, when the finds buffer is full.
    """
    n_finds = 0
    done = 0
    while done < iterations and n_finds < MAX_FINDS:
        move = _propose(strategy, deck, rng, counters)
        score, cards, tricks, status = score_deck(deck, objective)
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
        _settle(strategy, deck, move, score, counters, history, patience, rng)
        counters[GAMES] += 1
        done += 1
    return done, n_finds


def run_chunk(
    name: str,
    state: WorkerState,
    finds: Finds,
    iterations: int,
    objective: int,
    keep_above: int,
    patience: int,
) -> tuple[int, int]:
    """Advance one worker by up to `iterations` deals of a strategy (compiles on first use).

    Returns (iterations done, finds written into `finds`).
    """
    return chunk(
        list(STRATEGIES).index(name),
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
    )
