"""Loop hunt: score random deals of a deck in bulk and name every cycle they fall into.

Random deals (any deck, even or random splits between two hands) are scored by the compiled
kernel, which replays any deal past its card cap with exact loop detection, so every loop it
reports is proven. Each looping deal is analysed (bmn.kernels.cycles.loops) to get its canonical
cycle key: the same cycle reached from different deals counts once. A new cycle is summarised by
backward play (bmn.kernels.cycles.backward): its period and how many balanced starting deals reach
it.

`LoopHunt` is the runner behind `bmn search --objective loop`. Random standard deals almost
never loop, and perturbing the published cycle's states loops often but falls back into the
same cycle; sub-decks of the standard deck with few court ranks loop often, and every sub-deck
has cycles of its own. So the default deck, 'mixed', draws a random sub-deck of the standard
deck for every batch (0-36 numerals, 0-4 of each court rank), dealt evenly (even splits loop
more often than random ones). '--loop-deck standard' hunts the full deck only. What each deck
finds, measured: docs/endless-games.md, "Which decks loop".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from bmn.kernels.cycles.backward import CycleSummary, summarise_cycle
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import Deal, format_deal
from bmn.kernels.decks import (
    counts_of,
    counts_text,
    deck_of,
    hunt_counts,
)
from bmn.records.store import DEFAULT_PATH, Loop, Store
from bmn.search.backends.base import Backend, Result
from bmn.search.runs.handler import RunHandler, RunProgress, options_from_run, store_option
from bmn.search.words import counted, duration


@dataclass
class CycleFind:
    """One cycle: its summary, the first deal seen falling into it, and how many did."""

    summary: CycleSummary
    first_deal: Deal
    deals_seen: int = 1

    def as_dict(self) -> dict:
        return {
            **self.summary.as_dict(),
            "first_deal": format_deal(self.first_deal),
            "deals_seen": self.deals_seen,
        }


@dataclass
class Hunt:
    """A hunt's running totals: deals scored, loops seen, and the distinct cycles by key."""

    deals: int = 0
    loops: int = 0
    cycles: dict[str, CycleFind] = field(default_factory=dict)


def random_batch(
    rng: np.random.Generator | np.ndarray, deck: np.ndarray, n: int, even: bool
) -> tuple[np.ndarray, np.ndarray]:
    """n shuffles of the deck, each cut into two hands (evenly, seat 0 first, or at random).

    Deals come from kernels/dealer.py on a generator state (kernels/rng.py): `rng` is that
    state, advanced in place, or a numpy Generator that draws a fresh state for the batch.
    """
    from bmn.kernels.dealer import random_deals  # compiled: imported when a hunt runs
    from bmn.kernels.rng import integers, seed_state

    state = rng if isinstance(rng, np.ndarray) else seed_state(int(rng.integers(2**63)))
    total = len(deck)
    first = np.full(n, (total + 1) // 2) if even else integers(state, n, 1, total)
    return random_deals(n, state, deck=deck, sizes=np.stack([first, total - first], axis=1))


def hunt_loops(
    deck: Sequence[int],
    deals: int,
    seed: int = 0,
    even: bool = False,
    batch: int = 65_536,
    threads: int | None = None,
    max_basin_states: int = 100_000,
    hunt: Hunt | None = None,
    progress: Callable[[Hunt], None] | None = None,
) -> Hunt:
    """Score `deals` random two-hand deals of `deck` and collect every cycle they fall into.

    `hunt` carries totals across calls (a resumed run passes its own and a fresh seed);
    `progress` is called after every batch.
    """
    from bmn.kernels.score import score

    hunt = hunt if hunt is not None else Hunt()
    rng = np.random.default_rng(seed)
    cards = np.asarray(deck, dtype=np.uint8)
    left = deals
    while left > 0:
        n = min(batch, left)
        rows, sizes = random_batch(rng, cards, n, even)
        status = score(rows, sizes, threads=threads).status
        for i in np.flatnonzero(status == 1):
            record_loop(hunt, _deal(rows[i], sizes[i]), max_basin_states)
        hunt.deals += n
        left -= n
        if progress:
            progress(hunt)
    return hunt


def record_loop(hunt: Hunt, deal: Deal, max_basin_states: int = 100_000) -> CycleFind:
    """Count one looping deal under its cycle's key, summarising the cycle if it is new."""
    loop = analyse(deal)
    if loop.status != LOOP or loop.key is None:
        raise ValueError(f"{format_deal(deal)} does not loop")
    hunt.loops += 1
    known = hunt.cycles.get(loop.key)
    if known is not None:
        known.deals_seen += 1
        return known
    find = CycleFind(summarise_cycle(deal, max_states=max_basin_states), deal)
    hunt.cycles[loop.key] = find
    return find


def _deal(row: np.ndarray, sizes: np.ndarray) -> Deal:
    n0, n1 = int(sizes[0]), int(sizes[1])
    return tuple(int(v) for v in row[:n0]), tuple(int(v) for v in row[n0 : n0 + n1])


# -- the runner behind `bmn search --objective loop` -------------------------------------------

DEFAULT_DECK = "mixed"
DEFAULT_BASIN_STATES = 20_000
COMMIT_SECONDS = 2.0
BATCH = 20_000  # deals per batch, fixed so that a seed and --iterations reproduce a hunt


def deck_name(deal: Deal) -> str:
    """The counts of numerals, J, Q, K, A in a deal, as stored with its cycle."""
    return counts_text(counts_of(v for hand in deal for v in hand))


def random_counts(rng: np.random.Generator) -> tuple[int, ...]:
    """A random sub-deck of the standard deck with at least one court card."""
    while True:
        counts = (int(rng.integers(0, 37)), *(int(c) for c in rng.integers(0, 5, 4)))
        if sum(counts[1:]) and sum(counts) >= 2:
            return counts


@dataclass
class LoopOptions:
    """Everything that defines a loop hunt; stored with its run so `--resume` needs nothing else."""

    strategy: str = "loophunt"
    objective: str = "loop"
    seconds: float | None = None
    iterations: int | None = None
    workers: int = 0
    seed: int = 0
    deck: str = DEFAULT_DECK
    even: bool = True
    max_basin_states: int = DEFAULT_BASIN_STATES

    def __post_init__(self) -> None:
        from bmn.search.backends.threads import default_workers

        self.workers = self.workers or default_workers()
        hunt_counts(self.deck)  # refuse a bad deck before a run is created

    @classmethod
    def from_run(cls, run) -> LoopOptions:
        return options_from_run(cls, run)


@dataclass
class LoopProgress(RunProgress):
    """What the display shows; updated after every commit."""

    loops: int = 0
    cycles: int = 0
    new_cycles: int = 0
    last: str = ""

    deck: str = DEFAULT_DECK

    def title(self) -> str:
        return f"bmn search --objective loop, run {self.run}"

    def setting(self) -> str:
        return f"deck {self.deck}, seed {self.seed}"  # its threads: the backend's row

    def rows(self) -> list[tuple[str, str]]:
        return [
            ("store", self.store),
            ("hunt", self.setting()),
            ("backend", self.backend),
            ("elapsed", duration(self.seconds)),
            ("remaining", duration(self.remaining)),
            ("deals", f"{self.games:,}"),
            ("deals/s", f"{self.rate:,.0f}"),
            ("loops", f"{self.loops:,}"),
            ("cycles", f"{self.cycles} ({self.new_cycles} new to the store)"),
            ("last new", self.last),
        ]

    def line(self) -> str:
        return (
            f"run {self.run}: {self.clock()}, {counted(self.games, 'deal')}, "
            f"{self.rate:,.0f} deals/s, {counted(self.loops, 'loop')}, "
            f"{counted(self.cycles, 'cycle')} ({self.new_cycles} new to the store)"
        )


@dataclass
class LoopSummary:
    run: int
    status: str
    loops: int
    cycles: int
    new_cycles: int
    games: int
    seconds: float
    seed: int
    deck: str
    store: str = DEFAULT_PATH

    def text(self) -> str:
        return (
            f"run {self.run} ({self.status}): {counted(self.games, 'deal')} in "
            f"{self.seconds:,.1f} s; seed {self.seed}, deck {self.deck}\n"
            f"{counted(self.loops, 'looping deal')}, {counted(self.cycles, 'distinct cycle')} "
            f"({self.new_cycles} new to the store); "
            f"list them with: bmn records loops{store_option(self.store)}"
        )

    def as_dict(self) -> dict:
        return {
            "run": self.run,
            "status": self.status,
            "loops_found": self.loops,
            "distinct_cycles": self.cycles,
            "new_cycles": self.new_cycles,
            "games": self.games,
            "seconds": self.seconds,
        }


def loop_record(find: CycleFind) -> Loop:
    """A hunt's cycle as the store keeps it."""
    s = find.summary
    example = s.example if s.example is not None else find.first_deal
    return Loop(
        key=s.key,
        rotation_key=s.rotation_key,
        deck=deck_name(find.first_deal),
        period_cards=s.period_cards,
        period_tricks=s.period_tricks,
        cycle_states=s.period_tricks,  # one trick-boundary state per trick of the cycle
        balanced_states=s.balanced_states,
        balanced_deals=s.balanced_deals,
        mirrored_balanced_deals=s.mirrored_balanced_deals,
        basin_states=s.basin_states,
        basin_complete=s.basin_complete,
        example_deal=format_deal(example),
        first_deal=format_deal(find.first_deal),
    )


def loop_chunk(
    stream: int, chunk: int, state: dict, options: LoopOptions, iterations: int
) -> tuple[dict, list[tuple[Deal, str]], int]:
    """One batch of a hunt (see bmn.search.backends.base): `iterations` random deals drawn from the
    generator state `state` (a numpy bit generator's state, left untouched) and scored on
    `options.workers` threads; the new state, every looping deal with its cycle's key, and the
    deals scored."""
    from bmn.kernels.score import score

    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = state
    counts = hunt_counts(options.deck) or random_counts(rng)
    rows, sizes = random_batch(rng, deck_of(counts), iterations, options.even)
    status = score(rows, sizes, threads=options.workers).status
    deals = [_deal(rows[i], sizes[i]) for i in np.flatnonzero(status == 1)]
    return rng.bit_generator.state, [(deal, analyse(deal).key or "") for deal in deals], iterations


def warm_loop() -> None:
    """Compile (or load from cache) the kernel before the clock starts."""
    from bmn.kernels.score import score

    score(np.zeros((1, 2), dtype=np.uint8), np.ones((1, 2), dtype=np.int64), threads=1)


class LoopHunt(RunHandler):
    """One loop hunt: start it new or resume it, then `run()` until done or stopped.

    One stream: the kernel scores a batch of BATCH deals on `workers` threads (`loop_chunk`)
    and this process names every loop's cycle and summarises the new ones; every
    COMMIT_SECONDS the cycles seen, the generator state and the run's totals are committed in
    one transaction, so a resumed hunt continues exactly where it stopped.
    """

    kind = "loop-hunt"
    options_type = LoopOptions
    work = staticmethod(loop_chunk)
    warm = staticmethod(warm_loop)
    in_flight = 1  # one batch at a time: a stop lands after the batch under way

    def __init__(
        self,
        store: Store,
        options: LoopOptions,
        run_id: int | None = None,
        backend: Backend | None = None,
    ):
        self.rng_state = np.random.default_rng(options.seed).bit_generator.state
        self.hunt = Hunt()
        self.new_cycles = 0
        self.seen: set[str] = set()  # cycle keys this run has seen
        self.pending: dict[str, int] = {}  # cycle keys seen since the last commit
        self.known = {row.key: row for row in store.loops()}
        super().__init__(store, options, run_id, backend)

    @property
    def streams(self) -> int:
        return 1

    @property
    def games(self) -> int:
        return self.hunt.deals

    def commit_seconds(self) -> float:
        return COMMIT_SECONDS

    def _backend_text(self) -> str:
        """The threads that score: a batch at a time on --workers threads (the backend's one
        stream thread only hands the batches over)."""
        scored = f"scored on {counted(self.options.workers, 'thread')}"
        if self.backend.name == "threads":
            from bmn.search.backends.threads import default_workers

            cores = counted(default_workers(), "core")
            return f"threads: one batch at a time, {scored} of {cores}"
        return f"{super()._backend_text()}; each batch {scored}"

    def _checkpoint(self) -> bytes:
        h = self.hunt
        state = {"rng": self.rng_state, "deals": h.deals, "loops": h.loops}
        state.update(cycles=sorted(self.seen), new_cycles=self.new_cycles)
        return json.dumps(state).encode()

    def _restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        if 0 not in checkpoints:
            return
        state = json.loads(checkpoints[0][0])
        self.rng_state = state["rng"]
        self.hunt.deals, self.hunt.loops = state["deals"], state["loops"]
        self.seen = set(state["cycles"])
        self.new_cycles = state["new_cycles"]

    def _new_progress(self) -> LoopProgress:
        p = LoopProgress(self.run_id, deck=self.options.deck, loops=self.hunt.loops)
        p.cycles, p.new_cycles = len(self.seen), self.new_cycles
        return p

    def _stream_games(self, stream: int) -> int:
        return self.hunt.deals

    def _state(self, stream: int) -> dict:
        return self.rng_state

    def _chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        """BATCH deals, fewer for the last of the iterations; 0 once the time is up."""
        limit = self.options.seconds
        if limit is not None and self.spent + self.elapsed() >= limit:
            return 0
        if self.options.iterations is not None:
            return max(min(BATCH, self.options.iterations - planned), 0)
        return BATCH

    def _absorb(self, result: Result) -> None:
        """Count each loop of a batch under its cycle; new cycles are summarised by backward
        play, bounded by max_basin_states."""
        for deal, key in result.finds:
            if key in self.hunt.cycles or key in self.known:
                self.hunt.loops += 1
                if key in self.hunt.cycles:
                    self.hunt.cycles[key].deals_seen += 1
            else:
                find = record_loop(self.hunt, deal, self.options.max_basin_states)
                self.progress.last = f"period {find.summary.period_tricks} tricks: {key}"
            self.pending[key] = self.pending.get(key, 0) + 1
        self.hunt.deals += result.games
        self.rng_state = result.state

    def _save(self, seconds: float) -> None:
        """The batches' cycles, the checkpoint and the run's totals, in one transaction."""
        loops = []
        for key, seen in self.pending.items():
            record = self.known.get(key)
            if record is None:  # summarised by this run: new to the store
                record = self.known[key] = loop_record(self.hunt.cycles[key])
                self.new_cycles += 1
            loops.append((record, seen))
        self.seen |= set(self.pending)
        self.pending = {}
        checkpoint = (0, self._checkpoint(), self.hunt.deals, seconds)
        update = {"games": self.hunt.deals, "seconds": seconds}
        self.store.save_loop_progress(self.run_id, loops, checkpoint, update, holder=self.holder)
        p = self.progress
        p.loops, p.cycles, p.new_cycles = self.hunt.loops, len(self.seen), self.new_cycles

    def _summary(self, status: str, seconds: float) -> LoopSummary:
        h = self.hunt
        return LoopSummary(
            self.run_id,
            status,
            h.loops,
            len(self.seen),
            self.new_cycles,
            h.deals,
            seconds,
            self.options.seed,
            self.options.deck,
            str(self.store.path),
        )
