"""The GPU search's device code: the search kernels (walk and random restart) and their device
functions, one thread per search stream.

Each thread is the device twin of a CPU search worker (search/strategies/worker.py): its own
xoshiro256** generator, its current deal, its best deal and counters (as streams.py's arrays). A
stream moves as the CPU strategies do (walk: swap two cards of different value; random restart:
shuffle the deal afresh), with the CPU's own source for the generator's steps and the swap
(kernels/rng.py, search/strategies/moves.py) compiled as device functions, and scores every deal
with the device kernel of kernels/cuda/two.py, so a stream's sequence of deals, finds and best
deal equal a CPU worker's from the same state. The host that launches them is host.py.

How the speed is got (target: 1e9 games/s on an H100/H200 class GPU):
- one thread plays many games in a launch, the deal built in registers as bit masks (the walk
  updates two bits per move; a shuffle sets each card's bits as Fisher-Yates fixes it);
- each block has a backlog of games (a shared atomic counter): a thread takes its next game
  from it, so threads whose games ran short keep playing instead of idling;
- a thread plays its game a window of tricks at a time, so the threads of a warp (which run
  in step) need not wait for the longest of their 32 games before starting the next ones;
- nothing crosses to the host per deal: only finds (deals of at least `keep_above` cards) and,
  when the host asks, the stream states (best deals included).

A stream stops for the rest of a launch at a game it cannot finish on the device (past the
card cap, or a find with the finds buffer full); the host plays that one game exactly on the
CPU, so no game is lost or counted twice and every loop is proven.
"""

from __future__ import annotations

import sys
from functools import cache

import numpy as np

from bmn.kernels.config import FINISHED, cuda_kernel_variant
from bmn.kernels.cuda import two as cuda_two
from bmn.kernels.cuda.two import DEVICE, KERNEL, SIMULATED, cuda, ending, load, trick
from bmn.kernels.rng import STEPS
from bmn.kernels.rules.copies import Flags, RuleCopies, RuleCopy
from bmn.kernels.rules.flags import two_seat_flags
from bmn.kernels.rules.sets import RuleSet, rule_set
from bmn.kernels.rules.targets import compile_for
from bmn.search.strategies import moves
from bmn.search.strategies.cuda.streams import (
    BEST,
    BEST_CARDS,
    BEST_TRICKS,
    CURRENT,
    DECK,
    F_CARDS,
    F_GAME,
    F_STATUS,
    F_STREAM,
    F_TRICKS,
    GAMES,
    HAND,
    IMPROVEMENTS,
    SUM_CARDS,
    SUM_TRICKS,
)

WALK, RANDOM = 0, 1  # the codes of search/strategies/cpu.py
MODES = {"walk": WALK, "random": RANDOM}
WINDOW = 16  # tricks a thread plays before it looks whether its game is over (see _streams)
WHOLE_GAMES = 1 << 40  # a window no game reaches: each thread plays whole games


_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_SENTINEL = np.uint64(1 << HAND)


# The generator's steps and the walk's move, from the CPU's source (kernels/rng.py,
# search/strategies/moves.py) compiled as device functions: a stream draws what a worker draws.
_rotl, next_u64, bounded, _fix = compile_for(STEPS, cuda.jit(**DEVICE))
(_swap_two,) = compile_for((moves.swap_distinct,), cuda.jit(**DEVICE), lemire=bounded)


@cuda.jit(**DEVICE)
def _put(c, a, b, i, v):
    """Card value v at bit i of one hand's masks (the bit cleared first)."""
    at = np.uint64(i)
    keep = ~(_ONE << at)
    c &= keep
    a &= keep
    b &= keep
    w = np.uint64(v)
    if w != _ZERO:
        w -= _ONE
        c |= _ONE << at
        a |= (w & _ONE) << at
        b |= (w >> _ONE) << at
    return c, a, b


@cuda.jit(**DEVICE)
def _place(c0, a0, b0, c1, a1, b1, p, v):
    """Card value v at deck position p: hand 0 holds positions 0-25, hand 1 26-51."""
    if p < HAND:
        c0, a0, b0 = _put(c0, a0, b0, p, v)
    else:
        c1, a1, b1 = _put(c1, a1, b1, p - HAND, v)
    return c0, a0, b0, c1, a1, b1


@cuda.jit(**DEVICE)
def _shuffle(deck, s0, s1, s2, s3):
    """kernels/rng.shuffle of the deck in place, building the hands' masks on the way.

    Fisher-Yates fixes positions from the bottom up, so each card's bits are set once, as the
    card that stays there is drawn.
    """
    c0, a0, b0, c1, a1, b1 = _SENTINEL, _ZERO, _ZERO, _SENTINEL, _ZERO, _ZERO
    for i in range(DECK - 1, 0, -1):
        v, s0, s1, s2, s3 = _fix(deck, i, s0, s1, s2, s3)
        c0, a0, b0, c1, a1, b1 = _place(c0, a0, b0, c1, a1, b1, i, v)
    c0, a0, b0, c1, a1, b1 = _place(c0, a0, b0, c1, a1, b1, 0, deck[0])
    return c0, a0, b0, c1, a1, b1, s0, s1, s2, s3


@cuda.jit(**KERNEL)
def _walk_kernel(
    objective, keep_above, cap, games, limits, backlog, window,
    rng, decks, bests, counters, finds, figures, n_finds, pending, n_pending,
):  # fmt: skip
    """The search kernel for the one-swap walk (see _streams)."""
    _streams(
        True, objective, keep_above, cap, games, limits, backlog, window,
        rng, decks, bests, counters, finds, figures, n_finds, pending, n_pending,
    )  # fmt: skip


@cuda.jit(**KERNEL)
def _random_kernel(
    objective, keep_above, cap, games, limits, backlog, window,
    rng, decks, bests, counters, finds, figures, n_finds, pending, n_pending,
):  # fmt: skip
    """The search kernel for random restart (see _streams)."""
    _streams(
        False, objective, keep_above, cap, games, limits, backlog, window,
        rng, decks, bests, counters, finds, figures, n_finds, pending, n_pending,
    )  # fmt: skip


@cuda.jit(**DEVICE)
def _streams(
    walk, objective, keep_above, cap, games, limits, backlog, window,
    rng, decks, bests, counters, finds, figures, n_finds, pending, n_pending,
):  # fmt: skip
    """Advance every stream (one per thread) by its share of `games` per thread.

    With `backlog` the block's threads take games from a shared counter until the block has
    played games x threads; without it each thread plays exactly `games`, or fewer where its
    count of games played reaches its `limits` entry first (reproducible).

    `window` is how many tricks a thread plays before it looks whether its game is over. A
    warp runs its 32 threads in step: when each plays a whole game in an inner loop, the warp
    waits for its longest game at the loop's end (about three times the mean). Tricks in
    windows let a thread start its next deal while the others play on, at the price of
    running the end-of-game code for only the threads that need it. Which is faster is for
    the GPU to say (benchmarks/device_check.py); every window plays the same games.

    The bookkeeping is search/strategies/moves.record's: the counters used every game stay in
    registers until the end, the rest are written when they change. `walk` is a constant in
    each kernel, so each compiles to its own code (a shuffle needs no masks kept across a game).
    """
    taken = cuda.shared.array(1, np.int32)
    if cuda.threadIdx.x == 0:
        taken[0] = 0
    cuda.syncthreads()
    t = cuda.grid(1)
    quota = games * cuda.blockDim.x
    s0, s1, s2, s3 = rng[t, 0], rng[t, 1], rng[t, 2], rng[t, 3]
    deck = cuda.local.array(DECK, np.uint8)
    for k in range(DECK):
        deck[k] = decks[t, k]
    c0, a0, b0 = load(deck, 0, HAND)
    c1, a1, b1 = load(deck, HAND, HAND)
    done = counters[t, GAMES]
    current = counters[t, CURRENT]
    best = counters[t, BEST]
    sum_cards = counters[t, SUM_CARDS]
    sum_tricks = counters[t, SUM_TRICKS]
    limit = min(done + games, limits[t])
    stopped = False
    more = _take(backlog, taken, quota, done, limit)
    if more:
        c0, a0, b0, c1, a1, b1, s0, s1, s2, s3 = _propose(
            walk, deck, c0, a0, b0, c1, a1, b1, s0, s1, s2, s3
        )
    lc, l0, l1, oc, o0, o1 = c0, a0, b0, c1, a1, b1  # the game in play, the leader's hand first
    cards, tricks, over, end = 0, 0, False, 0
    while more:
        steps = 0
        while not over and steps < window:
            led, lc, l0, l1, oc, o0, o1, laid, over, end = trick(lc, l0, l1, oc, o0, o1)
            cards += laid
            tricks += 1
            if not led:
                lc, l0, l1, oc, o0, o1 = oc, o0, o1, lc, l0, l1
            if cards > cap and not over:  # the host plays this deal exactly
                stopped = True
                break
            steps += 1
        if stopped:
            break
        if not over:
            continue
        cards, tricks = ending(cards, tricks, end)  # the rule set's count (bmn's: as played)
        if cards >= keep_above:
            slot = cuda.atomic.add(n_finds, 0, 1)
            if slot >= finds.shape[0]:  # no room: the host plays and keeps this one
                stopped = True
                break
            _keep(finds, figures, slot, deck, cards, tricks, t, done + 1)
        score = cards if objective == 0 else tricks
        if score > best:  # rare after a stream's first games: straight to memory
            best = score
            _improve(bests, counters, t, deck, score, cards, tricks)
        current = score
        done += 1
        sum_cards += cards
        sum_tricks += tricks
        more = _take(backlog, taken, quota, done, limit)
        if more:
            c0, a0, b0, c1, a1, b1, s0, s1, s2, s3 = _propose(
                walk, deck, c0, a0, b0, c1, a1, b1, s0, s1, s2, s3
            )
            lc, l0, l1, oc, o0, o1 = c0, a0, b0, c1, a1, b1
            cards, tricks, over, end = 0, 0, False, 0
    rng[t, 0] = s0
    rng[t, 1] = s1
    rng[t, 2] = s2
    rng[t, 3] = s3
    for k in range(DECK):
        decks[t, k] = deck[k]
    counters[t, GAMES] = done
    counters[t, CURRENT] = current
    counters[t, SUM_CARDS] = sum_cards
    counters[t, SUM_TRICKS] = sum_tricks
    if stopped:
        pending[cuda.atomic.add(n_pending, 0, 1)] = t


@cuda.jit(**DEVICE)
def _take(backlog, taken, quota, done, limit):
    """Whether this thread plays another game: from the block's backlog, or until its count
    of games played reaches its limit."""
    if backlog:
        return cuda.atomic.add(taken, 0, 1) < quota
    return done < limit


@cuda.jit(**DEVICE)
def _propose(walk, deck, c0, a0, b0, c1, a1, b1, s0, s1, s2, s3):
    """The stream's next deal (search/strategies/walk.py or random_restart.py) and its masks."""
    if walk:
        i, j, s0, s1, s2, s3 = _swap_two(deck, s0, s1, s2, s3)
        c0, a0, b0, c1, a1, b1 = _place(c0, a0, b0, c1, a1, b1, i, deck[i])
        c0, a0, b0, c1, a1, b1 = _place(c0, a0, b0, c1, a1, b1, j, deck[j])
        return c0, a0, b0, c1, a1, b1, s0, s1, s2, s3
    return _shuffle(deck, s0, s1, s2, s3)


@cuda.jit(**DEVICE)
def _improve(bests, counters, t, deck, score, cards, tricks):
    """Stream t's new best deal and its figures."""
    for k in range(DECK):
        bests[t, k] = deck[k]
    counters[t, BEST] = score
    counters[t, BEST_CARDS] = cards
    counters[t, BEST_TRICKS] = tricks
    counters[t, IMPROVEMENTS] += 1


@cuda.jit(**DEVICE)
def _keep(finds, figures, slot, deck, cards, tricks, stream, game):
    """A find into its slot: the deal and (cards, tricks, status, stream, game)."""
    for k in range(DECK):
        finds[slot, k] = deck[k]
    figures[slot, F_CARDS] = cards
    figures[slot, F_TRICKS] = tricks
    figures[slot, F_STATUS] = FINISHED
    figures[slot, F_STREAM] = stream
    figures[slot, F_GAME] = game


_KERNELS = {WALK: _walk_kernel, RANDOM: _random_kernel}


def search_kernel(mode: int, max_registers: int | None, rules: RuleSet | None = None):
    """The search kernel of a mode, or a variant compiled with a register cap (more threads
    resident, perhaps spilling). A variant is not cached on disk: its cache file would share
    the default kernel's name. The simulator has no registers: there it is the default kernel.

    Under `rules` (a RuleSet; None: bmn's) that plays two seats otherwise, a copy of the kernel
    compiled with that rule set's trick rules (kernels/cuda/two.for_rules); ValueError for a
    rule set no compiled kernel plays.
    """
    capped = None if SIMULATED else max_registers
    played = _COPIES.lookup(rules, mode, capped)
    if played is None:
        raise ValueError(f"the GPU search cannot play rule set {rule_set(rules).name!r}")
    if played is not sys.modules[__name__]:
        return played
    return _KERNELS[mode] if capped is None else _capped(mode, capped)


@cache
def _capped(mode: int, max_registers: int):
    """bmn's search kernel of a mode compiled with a register cap."""
    return cuda.jit(**cuda_kernel_variant(max_registers))(_KERNELS[mode].py_func)


def _copy(flags: Flags, rules: RuleSet, mode: int, capped: int | None):
    """The search kernel of a mode as a rule set's copy (kernels/rules/copies.py), calling
    kernels/cuda/two.py's copies of the trick rules."""
    kernel = _KERNELS[mode]

    def jit_like(function):
        if function is not kernel:
            return cuda.jit(**DEVICE)
        if capped is None:
            return cuda.jit(**KERNEL)
        return cuda.jit(**cuda_kernel_variant(capped))

    return RuleCopy(flags, jit_like, cuda_two.for_rules(rules).copies)[kernel]


_COPIES = RuleCopies(__name__, two_seat_flags, _copy)


def ruled(attribute: str, rules: str) -> object:
    """The search kernel `attribute` as compiled for a rule set (lab/cuda_compiled.py)."""
    modes = {kernel.py_func.__name__: mode for mode, kernel in _KERNELS.items()}
    return search_kernel(modes[attribute], None, rule_set(rules))
