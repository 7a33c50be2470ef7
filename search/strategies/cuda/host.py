"""Search and bench on an NVIDIA GPU, the host's side: streams held on the device between
launches of kernels.py's search kernels, their finds read back in order, and the one game a
stream could not finish on the device played exactly on the CPU.

The streams' state on the host (the checkpoint) is streams.py's Streams.
"""

from __future__ import annotations

import time
from dataclasses import fields

import numpy as np

from bmn.kernels.config import FINISHED, LOOP
from bmn.kernels.cpu import two
from bmn.kernels.cuda.two import CAP, SIMULATED, THREADS_PER_BLOCK, cuda
from bmn.kernels.rules.sets import RuleSet, rule_set
from bmn.search.strategies.cuda.kernels import MODES, WINDOW, search_kernel
from bmn.search.strategies.cuda.streams import (
    BEST,
    BEST_CARDS,
    BEST_TRICKS,
    CURRENT,
    DECK,
    F_GAME,
    F_STREAM,
    GAMES,
    HAND,
    IMPROVEMENTS,
    SUM_CARDS,
    SUM_TRICKS,
    LaunchFinds,
    Streams,
)

OBJECTIVES = ("cards", "tricks")
LAUNCH_FINDS = 65_536  # finds one launch may write before streams stop for the host
NO_LIMIT = 1 << 62  # games no stream reaches: a limit that limits nothing


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
        max_finds: int = LAUNCH_FINDS,
        max_registers: int | None = None,
        window: int = WINDOW,
        rules: RuleSet | str | None = None,
    ) -> None:
        if mode not in MODES or objective not in OBJECTIVES:
            raise ValueError(f"mode must be one of {list(MODES)}, objective one of {OBJECTIVES}")
        if len(streams) == 0 or len(streams) % threads_per_block:
            raise ValueError(
                f"streams ({len(streams)}) must be a positive multiple of threads per block"
                f" ({threads_per_block}): one stream per thread"
            )
        self.options = (MODES[mode], OBJECTIVES.index(objective), keep_above, cap)
        self.rules = rule_set(rules)
        self.blocks = len(streams) // threads_per_block
        self.threads_per_block = threads_per_block
        self.backlog = backlog
        self.window = window
        self._kernel = search_kernel(MODES[mode], max_registers, self.rules)
        self._exact_at = two.for_rules(self.rules).exact_at
        self._state = {f.name: cuda.to_device(getattr(streams, f.name)) for f in fields(streams)}
        self._finds = cuda.device_array((max_finds, DECK), dtype=np.uint8)
        self._figures = cuda.device_array((max_finds, 5), dtype=np.int64)
        self._pending = cuda.device_array(len(streams), dtype=np.int32)
        self._counts = [cuda.to_device(np.zeros(1, dtype=np.int32)) for _ in range(2)]
        self._no_limits = cuda.to_device(np.full(len(streams), NO_LIMIT, dtype=np.int64))
        self.stopped = 0  # streams the last launch stopped early (finished on the CPU)

    def run(self, games: int, limits: np.ndarray | None = None) -> LaunchFinds:
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

    def run_to(self, targets: np.ndarray) -> LaunchFinds:
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
        extra = [_finish(host, int(t), *self.options[1:3], self._exact_at) for t in which]
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


def _in_order(decks: np.ndarray, figures: np.ndarray) -> LaunchFinds:
    """Finds sorted by (stream, game): the order the CPU search finds them in."""
    order = np.lexsort((figures[:, F_GAME], figures[:, F_STREAM]))
    return LaunchFinds(decks[order], figures[order])


def _finish(host: Streams, t: int, objective: int, keep_above: int, exact_at=two.exact_at) -> tuple:
    """Stream t's current deal played exactly (by `exact_at`, the CPU kernel's under the
    search's rule set) and recorded as the device would have."""
    deck = host.deck[t]
    status, cards, tricks = exact_at(deck, 0, HAND, HAND)[:3]
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
    rules: RuleSet | str | None = None,
) -> tuple[Streams, LaunchFinds]:  # fmt: skip
    """One launch over host streams: (the streams after it, its finds). The input is untouched.

    Without the backlog every stream plays exactly `games` games, so a chunk is a pure function
    of its input (a stream stopped at a game past the cap plays the rest in the next chunk).
    """
    search = DeviceSearch(
        streams, mode, objective, keep_above, cap, threads_per_block, backlog, window=window,
        rules=rules,
    )  # fmt: skip
    finds = search.run(games)
    return search.streams(), finds


def resident_threads(
    threads_per_block: int = THREADS_PER_BLOCK,
    max_registers: int | None = None,
    mode: str = "random",
    rules: RuleSet | str | None = None,
) -> int:
    """Threads the GPU keeps resident at once running a search kernel (compiles it first)."""
    if SIMULATED:
        return 2 * threads_per_block
    warm = DeviceSearch(
        Streams.new(0, threads_per_block), mode, keep_above=1 << 62,
        threads_per_block=threads_per_block, max_registers=max_registers, rules=rules,
    )  # fmt: skip
    warm.run(1)
    return warm.kernel_info()["resident_blocks"] * threads_per_block


def bench(
    n_deals: int, seed: int, mode: str = "random", backlog: bool = True,
    threads: int | None = None, threads_per_block: int = THREADS_PER_BLOCK,
    max_registers: int | None = None, window: int = WINDOW, max_seconds: float = 20.0,
    rules: RuleSet | str | None = None,
) -> dict:  # fmt: skip
    """Play n_deals games on the GPU (random deals, or the walk) in one launch under `rules`
    (None: bmn's); speed and totals.

    One stream per resident thread unless `threads` says otherwise. Compilation and a short
    probe launch come before the clock starts; the probe's rate shrinks n_deals to what fits
    in about `max_seconds` on a slow GPU. Cards and tricks are summed exactly.
    """
    threads = threads or resident_threads(threads_per_block, max_registers, mode, rules)
    search = DeviceSearch(
        Streams.new(seed, threads), mode, keep_above=1 << 62, threads_per_block=threads_per_block,
        backlog=backlog, max_registers=max_registers, window=window, rules=rules,
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
