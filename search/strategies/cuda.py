"""Search and bench on an NVIDIA GPU: deals made, scored and kept on the device.

Each thread is one search stream, the device twin of a CPU search worker
(search/strategies/worker.py): its own xoshiro256** generator, its current deal, its best deal
and counters (held on the host as search/strategies/cuda_streams.py's Streams, the checkpoint).
A stream moves as the CPU strategies do (walk: swap two cards of different value; random
restart: shuffle the deal afresh), with the CPU's own source for the generator's steps and the
swap (kernels/rng.py, search/strategies/moves.py) compiled as device functions, and scores every
deal with the device kernel of kernels/cuda/two.py, so a stream's sequence of deals, finds and
best deal equal a CPU worker's from the same state.

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

import time
from dataclasses import fields

import numpy as np

from bmn.kernels.config import FINISHED, LOOP, cuda_kernel_variant
from bmn.kernels.cpu import two
from bmn.kernels.cuda.two import (
    CAP,
    DEVICE,
    KERNEL,
    SIMULATED,
    THREADS_PER_BLOCK,
    cuda,
    load,
    trick,
)
from bmn.kernels.rng import STEPS
from bmn.kernels.targets import compile_for
from bmn.search.strategies import moves
from bmn.search.strategies.cuda_streams import (
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
    N_COUNTERS,
    SUM_CARDS,
    SUM_TRICKS,
    Finds,
    Streams,
    seed_states,
)

# The streams' host side lives in cuda_streams.py; its names are offered here too.
__all__ = [
    "BEST", "BEST_CARDS", "BEST_TRICKS", "CURRENT", "DECK", "F_CARDS", "F_GAME", "F_STATUS",
    "F_STREAM", "F_TRICKS", "GAMES", "HAND", "IMPROVEMENTS", "MODES", "NO_LIMIT", "N_COUNTERS",
    "OBJECTIVES", "SIMULATED", "SUM_CARDS", "SUM_TRICKS", "WHOLE_GAMES", "WINDOW", "DeviceSearch",
    "Finds", "Streams", "bench", "bounded", "next_u64", "resident_threads", "search_chunk",
    "seed_states",
]  # fmt: skip

WALK, RANDOM = 0, 1  # the codes of search/strategies/cpu.py
MODES = {"walk": WALK, "random": RANDOM}
OBJECTIVES = ("cards", "tricks")
MAX_FINDS = 65_536  # finds one launch may write before streams stop for the host
WINDOW = 16  # tricks a thread plays before it looks whether its game is over (see _streams)
WHOLE_GAMES = 1 << 40  # a window no game reaches: each thread plays whole games
NO_LIMIT = 1 << 62  # games no stream reaches: a limit that limits nothing


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
    cards, tricks, over = 0, 0, False
    while more:
        steps = 0
        while not over and steps < window:
            led, lc, l0, l1, oc, o0, o1, laid, over = trick(lc, l0, l1, oc, o0, o1)
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
            cards, tricks, over = 0, 0, False
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
    """The stream's next deal (strategies/walk.py or strategies/random_restart.py) and its masks."""
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
_VARIANTS: dict = {}


def _kernel(mode: int, max_registers: int | None):
    """The search kernel of a mode, or a variant compiled with a register cap (more threads
    resident, perhaps spilling). A variant is not cached on disk: its cache file would share
    the default kernel's name. The simulator has no registers: there it is the default kernel.
    """
    if max_registers is None or SIMULATED:
        return _KERNELS[mode]
    key = (mode, max_registers)
    if key not in _VARIANTS:
        _VARIANTS[key] = cuda.jit(**cuda_kernel_variant(max_registers))(_KERNELS[mode].py_func)
    return _VARIANTS[key]


class DeviceSearch:
    """Streams held on the GPU between launches; `run` advances them, `streams` reads them back."""

    def __init__(
        self,
        streams: Streams,
        mode: str = "walk",
        objective: str = "cards",
        keep_above: int = 3000,
        cap: int = CAP,
        threads_per_block: int = THREADS_PER_BLOCK,
        backlog: bool = True,
        max_finds: int = MAX_FINDS,
        max_registers: int | None = None,
        window: int = WINDOW,
    ) -> None:
        if mode not in MODES or objective not in OBJECTIVES:
            raise ValueError(f"mode must be one of {list(MODES)}, objective one of {OBJECTIVES}")
        if len(streams) == 0 or len(streams) % threads_per_block:
            raise ValueError(
                f"streams ({len(streams)}) must be a positive multiple of threads per block"
                f" ({threads_per_block}): one stream per thread"
            )
        self.options = (MODES[mode], OBJECTIVES.index(objective), keep_above, cap)
        self.blocks = len(streams) // threads_per_block
        self.threads_per_block = threads_per_block
        self.backlog = backlog
        self.window = window
        self._kernel = _kernel(MODES[mode], max_registers)
        self._state = {f.name: cuda.to_device(getattr(streams, f.name)) for f in fields(streams)}
        self._finds = cuda.device_array((max_finds, DECK), dtype=np.uint8)
        self._figures = cuda.device_array((max_finds, 5), dtype=np.int64)
        self._pending = cuda.device_array(len(streams), dtype=np.int32)
        self._counts = [cuda.to_device(np.zeros(1, dtype=np.int32)) for _ in range(2)]
        self._no_limits = cuda.to_device(np.full(len(streams), NO_LIMIT, dtype=np.int64))
        self.stopped = 0  # streams the last launch stopped early (finished on the CPU)

    def run(self, games: int, limits: np.ndarray | None = None) -> Finds:
        """Every thread plays `games` games (on average, with the backlog); returns the finds.

        Without the backlog, `limits` (one per stream) caps each stream's count of games
        played: a stream already there plays none.
        """
        if limits is not None and self.backlog:
            raise ValueError("limits are for streams without the backlog")
        _, objective, keep_above, cap = self.options
        for count in self._counts:
            count.copy_to_device(np.zeros(1, dtype=np.int32))
        n_finds, n_pending = self._counts
        s = self._state
        limits = self._no_limits if limits is None else cuda.to_device(_int64s(limits))
        self._kernel[self.blocks, self.threads_per_block](
            objective, keep_above, cap, games, limits, self.backlog, self.window,
            s["rng"], s["deck"], s["best"], s["counters"],
            self._finds, self._figures, n_finds, self._pending, n_pending,
        )  # fmt: skip
        found = min(int(n_finds.copy_to_host()[0]), self._finds.shape[0])
        decks = self._finds[:found].copy_to_host() if found else np.zeros((0, DECK), np.uint8)
        figures = self._figures[:found].copy_to_host() if found else np.zeros((0, 5), np.int64)
        self.stopped = int(n_pending.copy_to_host()[0])
        if self.stopped:
            decks, figures = self._finish_stopped(self.stopped, decks, figures)
        return _in_order(decks, figures)

    def run_to(self, targets: np.ndarray) -> Finds:
        """Play until every stream's count of games played is its entry of `targets` (none
        for a stream already there); the finds, in (stream, game) order.

        Streams stopped early by a game the host had to finish go on in further launches, so
        where a stream ends depends on its target alone: the chunks of a search reproduce
        however they were cut.
        """
        if self.backlog:
            raise ValueError("run_to plays a set number of games per stream: no backlog")
        limits = _int64s(targets)
        parts = [self.run(NO_LIMIT, limits)]
        while self.stopped:
            parts.append(self.run(NO_LIMIT, limits))
        decks = np.concatenate([p.decks for p in parts])
        return _in_order(decks, np.concatenate([p.figures for p in parts]))

    def _finish_stopped(self, stopped: int, decks: np.ndarray, figures: np.ndarray) -> tuple:
        """Play on the CPU, exactly, the game each stopped stream could not finish on the device."""
        which = self._pending[:stopped].copy_to_host()
        host = self.streams()
        extra = [_finish(host, int(t), *self.options[1:3]) for t in which]
        for name in ("best", "counters"):
            self._state[name].copy_to_device(getattr(host, name))
        kept = [(deck, figs) for deck, figs in extra if deck is not None]
        if kept:
            decks = np.concatenate([decks, np.array([d for d, _ in kept], dtype=np.uint8)])
            figures = np.concatenate([figures, np.array([f for _, f in kept], dtype=np.int64)])
        return decks, figures

    def streams(self) -> Streams:
        """Every stream's state, copied to the host (the checkpoint)."""
        return Streams(**{name: array.copy_to_host() for name, array in self._state.items()})

    def kernel_info(self) -> dict:
        """Registers and local memory per thread of the compiled search kernel (GPU only)."""
        if SIMULATED or not self._kernel.overloads:
            return {}
        kernel = next(iter(self._kernel.overloads.values()))
        return {
            "registers": kernel.regs_per_thread,
            "local_bytes": kernel.local_mem_per_thread,
            "resident_blocks": kernel.max_cooperative_grid_blocks(self.threads_per_block),
        }


def _int64s(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)


def _in_order(decks: np.ndarray, figures: np.ndarray) -> Finds:
    """Finds sorted by (stream, game): the order the CPU search finds them in."""
    order = np.lexsort((figures[:, F_GAME], figures[:, F_STREAM]))
    return Finds(decks[order], figures[order])


def _finish(host: Streams, t: int, objective: int, keep_above: int) -> tuple:
    """Stream t's current deal played exactly and recorded as the device would have."""
    deck = host.deck[t]
    status, cards, tricks = two.exact_at(deck, 0, HAND, HAND)[:3]
    score = cards if objective == 0 else tricks
    counters = host.counters[t]
    if status == FINISHED and score > counters[BEST]:  # a loop is never the best (moves.record)
        host.best[t] = deck
        counters[BEST], counters[BEST_CARDS], counters[BEST_TRICKS] = score, cards, tricks
        counters[IMPROVEMENTS] += 1
    counters[CURRENT] = score
    counters[GAMES] += 1
    counters[SUM_CARDS] += cards
    counters[SUM_TRICKS] += tricks
    if cards >= keep_above or status == LOOP:
        return deck.copy(), [cards, tricks, status, t, counters[GAMES]]
    return None, None


def search_chunk(
    streams: Streams, games: int, mode: str = "walk", objective: str = "cards",
    keep_above: int = 3000, cap: int = CAP, backlog: bool = False,
    threads_per_block: int = THREADS_PER_BLOCK, window: int = WINDOW,
) -> tuple[Streams, Finds]:  # fmt: skip
    """One launch over host streams: (the streams after it, its finds). The input is untouched.

    Without the backlog every stream plays exactly `games` games, so a chunk is a pure function
    of its input (a stream stopped at a game past the cap plays the rest in the next chunk).
    """
    search = DeviceSearch(
        streams, mode, objective, keep_above, cap, threads_per_block, backlog, window=window
    )
    finds = search.run(games)
    return search.streams(), finds


def resident_threads(
    threads_per_block: int = THREADS_PER_BLOCK,
    max_registers: int | None = None,
    mode: str = "random",
) -> int:
    """Threads the GPU keeps resident at once running a search kernel (compiles it first)."""
    if SIMULATED:
        return 2 * threads_per_block
    warm = DeviceSearch(
        Streams.new(0, threads_per_block), mode, keep_above=1 << 62,
        threads_per_block=threads_per_block, max_registers=max_registers,
    )  # fmt: skip
    warm.run(1)
    return warm.kernel_info()["resident_blocks"] * threads_per_block


def bench(
    n_deals: int, seed: int, mode: str = "random", backlog: bool = True,
    threads: int | None = None, threads_per_block: int = THREADS_PER_BLOCK,
    max_registers: int | None = None, window: int = WINDOW, max_seconds: float = 20.0,
) -> dict:  # fmt: skip
    """Play n_deals games on the GPU (random deals, or the walk) in one launch; speed and totals.

    One stream per resident thread unless `threads` says otherwise. Compilation and a short
    probe launch come before the clock starts; the probe's rate shrinks n_deals to what fits
    in about `max_seconds` on a slow GPU. Cards and tricks are summed exactly.
    """
    threads = threads or resident_threads(threads_per_block, max_registers, mode)
    search = DeviceSearch(
        Streams.new(seed, threads), mode, keep_above=1 << 62, threads_per_block=threads_per_block,
        backlog=backlog, max_registers=max_registers, window=window,
    )  # fmt: skip
    search.run(1)  # compiles (once per process) and warms the GPU up
    probe = time.perf_counter()
    search.run(1)
    per_game = (time.perf_counter() - probe) / threads
    games = max(1, min(-(-n_deals // threads), int(max_seconds / per_game / threads)))
    before = search.streams().counters.sum(axis=0)
    start = time.perf_counter()
    search.run(games)
    cuda.synchronize()
    seconds = time.perf_counter() - start
    totals = search.streams().counters.sum(axis=0) - before
    return {
        "mode": mode,
        "backlog": backlog,
        "max_registers": max_registers,
        "window": window,
        "threads": threads,
        "games": int(totals[GAMES]),
        "cards": int(totals[SUM_CARDS]),
        "tricks": int(totals[SUM_TRICKS]),
        "seconds": round(seconds, 4),
        "games_per_s": round(totals[GAMES] / seconds),
        "cards_per_s": round(totals[SUM_CARDS] / seconds),
        **search.kernel_info(),
    }
