"""Loop hunt: score random deals of a deck in bulk and name every cycle they fall into.

Random deals (any deck, even or random splits between two hands) are scored by the compiled
kernel, which replays any deal past its card cap with exact loop detection, so every loop it
reports is proven. Each looping deal is analysed (bmn.kernels.cycles.loops) to get its canonical
cycle key: the same cycle reached from different deals counts once. A new cycle is summarised by
backward play (bmn.kernels.cycles.backward): its period and how many balanced starting deals reach
it.

With 3 or 4 seats (`--players`) the deals are dealt as evenly as possible round the table, seat 0
first, and a cycle may hold every seat (every seat keeps cards for ever) or only the seats left
after others went out; both are stored, the seats out written in the cycle's key ('x'), and a
new one is summarised by backward play with seats going out (kernels/cycles/backward_seats.py).
Naming a looping deal's cycle in Python costs far more than scoring it, so each batch names its
loops in compiled code first (kernels/cpu/cycle_ids.py) and analyses one deal per cycle.

`LoopHuntJob` is the runner behind `bmn search --objective loop`. Random standard deals almost
never loop, and perturbing the published cycle's states loops often but falls back into the
same cycle; sub-decks of the standard deck with few court ranks loop often, and every sub-deck
has cycles of its own. So the default deck, 'mixed', draws a random sub-deck of the standard
deck for every batch (0-36 numerals, 0-4 of each court rank; with 3 or 4 seats at least two
cards a seat), dealt evenly (even splits loop more often than random ones). '--loop-deck
standard' hunts the full deck only. What each deck finds, measured: docs/endless-games.md,
"Which decks loop".
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from bmn.kernels.config import MAX_SEATS, MIN_SEATS
from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import Deal
from bmn.kernels.decks import (
    DeckInputError,
    counts_text,
    deck_of,
    even_sizes,
    hunt_counts,
)
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.records.store import DEFAULT_PATH
from bmn.records.store.saved import CYCLE_KEY, RNG, items, json_state, record, whole
from bmn.search.backends.base import Result
from bmn.search.runs.job import Job, PastTime, RunContext, rules_for
from bmn.search.runs.kinds.cycle_book import (
    BASIN_STATES,
    CycleBook,
    CycleFind,
    loop_record,
    new_cycle,
)
from bmn.search.runs.progress import CyclesProgress
from bmn.search.runs.said import rules_option, store_option
from bmn.search.runs.settings import default_of
from bmn.search.words import counted

# The checkpoint LoopHuntJob._checkpoint writes, as its restore checks it (StoreDamaged).
LOOP_HUNT = record(
    rng=RNG, deals=whole(), loops=whole(), cycles=items(CYCLE_KEY), new_cycles=whole()
)


def random_batch(
    rng: np.random.Generator | np.ndarray, deck: np.ndarray, n: int, even: bool, seats: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """n shuffles of the deck, each cut into `seats` hands (evenly, seat 0 first, or at random).

    Deals come from kernels/dealer.py on a generator state (kernels/rng.py): `rng` is that
    state, advanced in place, or a numpy Generator that draws a fresh state for the batch.
    """
    from bmn.kernels.dealer import random_deals  # compiled: imported when a hunt runs
    from bmn.kernels.rng import integers, seed_state

    state = rng if isinstance(rng, np.ndarray) else seed_state(int(rng.integers(2**63)))
    total = len(deck)
    if even:
        sizes = np.array(even_sizes(total, seats))
    else:  # seats - 1 cuts, each anywhere inside the deck
        cuts = np.sort(np.stack([integers(state, n, 1, total) for _ in range(seats - 1)], 1), 1)
        ends = np.full((n, 1), total)
        sizes = np.diff(np.concatenate([np.zeros((n, 1), np.int64), cuts, ends], axis=1), axis=1)
    return random_deals(n, state, deck=deck, sizes=sizes)


# Cycle ids already named in this process (kernels/cpu/cycle_ids.py), to their cycle's key.
_KEYS: dict[tuple[str, bytes], str] = {}
_KEYS_KEPT = 100_000


def name_loops(
    rows: np.ndarray, sizes: np.ndarray, threads: int | None = None, rules: str = DEFAULT_RULES
) -> list[tuple[Deal, str, int]]:
    """Score a batch under `rules` and name the cycle of every looping deal: (the first deal
    into each cycle, the cycle's key, how many deals of the batch fall into it), in the order
    first seen.

    The kernel names each loop's cycle by an id (its smallest state); one deal per id new to
    this process is analysed for its key (kernels/cycles/loops.analyse), the rest are counted.
    """
    from bmn.kernels.config import LOOP as LOOP_CODE
    from bmn.kernels.cpu.cycle_ids import cycle_ids
    from bmn.kernels.score import score

    scores = score(rows, sizes, threads=threads, rules=rules)
    loops = np.flatnonzero(scores.status == LOOP_CODE)
    if not len(loops):
        return []
    start, period = scores.loop_start_tricks[loops], scores.period_tricks[loops]
    ids = cycle_ids(rows, sizes, loops, start, period, rules)
    _, first, counts = np.unique(ids, axis=0, return_index=True, return_counts=True)
    if len(_KEYS) > _KEYS_KEPT:
        _KEYS.clear()
    named = []
    for at in np.argsort(first):
        i = loops[first[at]]
        deal = _deal(rows[i], sizes[i])
        name = (rules, ids[first[at]].tobytes())
        key = _KEYS.get(name)
        if key is None:
            key = _KEYS[name] = analyse(deal, rules=rules).key or ""
        named.append((deal, key, int(counts[at])))
    return named


def _deal(row: np.ndarray, sizes: np.ndarray) -> Deal:
    ends = np.cumsum(sizes).tolist()
    return tuple(
        tuple(row[end - int(n) : end].tolist()) for n, end in zip(sizes, ends, strict=True)
    )


# -- the runner behind `bmn search --objective loop` -------------------------------------------

DEFAULT_DECK = default_of("deck", "loop")
SEATS_BASIN_STATES = default_of("basin_states", "loop_seats")  # why so few: settings.py
COMMIT_SECONDS = 2.0
BATCH = 20_000  # deals per batch, fixed so that a seed and --iterations reproduce a hunt


def random_counts(rng: np.random.Generator, seats: int = 2) -> tuple[int, ...]:
    """A random sub-deck of the standard deck with at least one court card, and at least two
    cards (two seats, as before: a seed reproduces an older hunt) or two cards a seat."""
    least = 2 if seats == 2 else 2 * seats
    while True:
        counts = (int(rng.integers(0, 37)), *(int(c) for c in rng.integers(0, 5, 4)))
        if sum(counts[1:]) and sum(counts) >= least:
            return counts


def check_loop_deck(deck: str, players: int) -> None:
    """Refuse a hunt's deck ('mixed', 'standard' or N,J,Q,K,A) or seat count: DeckInputError
    naming the setting ('deck' or 'players')."""
    try:
        counts = hunt_counts(deck)
    except ValueError as err:
        raise DeckInputError("deck", str(err)) from None
    if counts is not None and sum(n > 0 for n in counts) < 2:  # as a search refuses it
        raise DeckInputError(
            "deck", f"the deck {counts_text(counts)} holds one card value: it has a single deal,"
            " so there is nothing to hunt; give a deck of two values at least",
        )  # fmt: skip
    if not MIN_SEATS <= players <= MAX_SEATS:
        raise DeckInputError("players", f"must be {MIN_SEATS} to {MAX_SEATS}, not {players}")
    if counts is not None and sum(counts) < players:
        raise DeckInputError(
            "players",
            f"{players} seats cannot share the deck {counts_text(counts)}: it has"
            f" {sum(counts)} cards",
        )


@dataclass
class LoopHuntOptions:
    """Everything that defines a loop hunt; stored with its run so `--resume` needs nothing else."""

    strategy: ClassVar[None] = None  # it has none: --objective loop selects the kind
    objective: ClassVar[str] = "loop"
    seconds: float | None = None
    iterations: int | None = None
    workers: int = 0
    seed: int = 0
    deck: str = DEFAULT_DECK
    even: bool = True
    basin_states: int | None = None  # None: BASIN_STATES, with 3 or 4 seats SEATS_BASIN_STATES
    players: int = 2
    rules: str = DEFAULT_RULES  # the rule set it plays (kernels/rules/sets.py); before: bmn's

    def __post_init__(self) -> None:
        from bmn.search.backends.threads import default_workers

        self.workers = self.workers or default_workers()
        check_loop_deck(self.deck, self.players)  # refuse a bad deck before a run is created
        self.rules = rules_for(self.rules, self.players)
        if self.basin_states is None:
            seats = self.players > 2
            self.basin_states = SEATS_BASIN_STATES if seats else BASIN_STATES


@dataclass
class LoopHuntProgress(CyclesProgress):
    """What the display shows; updated after every commit."""

    loops: int = 0
    last: str = ""

    deck: str = DEFAULT_DECK
    players: int = 2
    rules: str = DEFAULT_RULES

    command = "bmn search --objective loop"

    def setting(self) -> str:
        seats = f", {self.players} seats" if self.players != 2 else ""
        rules = f", rules {self.rules}" if self.rules != DEFAULT_RULES else ""
        return f"deck {self.deck}{seats}{rules}, seed {self.seed}"  # threads: the backend's

    def rows(self) -> list[tuple[str, str]]:
        return [
            *self.opening_rows(("hunt", self.setting())),
            ("deals", f"{self.games:,}"),
            ("deals/s", f"{self.rate:,.0f}"),
            ("loops", f"{self.loops:,}"),
            self.cycles_row(),
            ("last new", self.last),
        ]

    def line(self) -> str:
        return (
            f"{self.line_opening('deal')}, {self.rate:,.0f} deals/s, "
            f"{counted(self.loops, 'loop')}, {self.found(counted(self.cycles, 'cycle'))}"
        )


@dataclass
class LoopHuntSummary:
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
    players: int = 2
    rules: str = DEFAULT_RULES

    def text(self) -> str:
        seats = f", {self.players} seats" if self.players != 2 else ""
        rules = f", rules {self.rules}" if self.rules != DEFAULT_RULES else ""
        listed = rules_option(self.rules)
        return (
            f"run {self.run} ({self.status}): {counted(self.games, 'deal')} in "
            f"{self.seconds:,.1f} s; seed {self.seed}, deck {self.deck}{seats}{rules}\n"
            f"{counted(self.loops, 'looping deal')}, {counted(self.cycles, 'distinct cycle')} "
            f"({self.new_cycles:,} new to the store); "
            f"list them with:\n  bmn records loops{listed}{store_option(self.store)}"
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


def loop_chunk(
    stream: int, chunk: int, state: dict, options: LoopHuntOptions, iterations: int
) -> tuple[dict, list[tuple[Deal, str, int]], int]:
    """One batch of a hunt (see bmn.search.backends.base): `iterations` random deals drawn from the
    generator state `state` (a numpy bit generator's state, left untouched) and scored on
    `options.workers` threads; the new state, each cycle the batch's deals fall into (name_loops:
    its first deal, its key, how many deals), and the deals scored."""
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = state
    seats = options.players
    counts = hunt_counts(options.deck) or random_counts(rng, seats)
    rows, sizes = random_batch(rng, deck_of(counts), iterations, options.even, seats)
    named = name_loops(rows, sizes, options.workers, options.rules)
    return rng.bit_generator.state, named, iterations


def warm_loop(players: int = 2, rules: str = DEFAULT_RULES) -> None:
    """Compile (or load from cache) the kernel before the clock starts: bmn's for two seats
    (the N-seat one too, as before) and the run's under its rule set."""
    deal = np.array([[1, 0, 0, 0, 0, 1, 0, 0, 0]], dtype=np.uint8)  # -J-/--J/-J-: a loop
    for seats in (2, 3):  # the two-seat kernel and the N-seat one, and cycle ids
        name_loops(deal, np.full((1, seats), 9 // seats, dtype=np.int64), threads=1)
    if rules != DEFAULT_RULES:
        sizes = np.array([even_sizes(9, players)], dtype=np.int64)
        name_loops(deal, sizes, threads=1, rules=rules)


class LoopHuntJob(Job):
    """One loop hunt: start it new or resume it, then `run()` until done or stopped.

    One stream: the kernel scores a batch of BATCH deals on `workers` threads (`loop_chunk`)
    and this process names every loop's cycle and summarises the new ones; every
    COMMIT_SECONDS the cycles seen, the generator state and the run's totals are committed in
    one transaction, so a resumed hunt continues exactly where it stopped.
    """

    kind = "loop-hunt"
    options_type = LoopHuntOptions
    work = staticmethod(loop_chunk)
    warm = staticmethod(warm_loop)
    in_flight = 1  # one batch at a time: a stop lands after the batch under way

    def __init__(self, run: RunContext, options: LoopHuntOptions):
        super().__init__(run, options)
        self.rng_state = np.random.default_rng(options.seed).bit_generator.state
        self.hunt = CycleBook()
        self.new_cycles = 0
        self.seen: set[str] = set()  # cycle keys this run has seen
        self.pending: dict[str, int] = {}  # cycle keys seen since the last commit
        self.known = {row.key: row for row in run.store.loops(rules=options.rules)}

    @property
    def streams(self) -> int:
        return 1

    def warm_call(self) -> Callable[[], object]:
        return functools.partial(self.warm, self.options.players, self.options.rules)

    @property
    def games(self) -> int:
        return self.hunt.deals

    def commit_seconds(self) -> float:
        return COMMIT_SECONDS

    def backend_text(self, where: str) -> str:
        """The threads that score: a batch at a time on --workers threads (the backend's one
        stream thread only hands the batches over)."""
        scored = f"scored on {counted(self.options.workers, 'thread')}"
        if self.run.backend.name == "threads":
            from bmn.search.backends.threads import default_workers

            cores = counted(default_workers(), "core")
            return f"threads: one batch at a time, {scored} of {cores}"
        return f"{where}; each batch {scored}"

    def _checkpoint(self) -> bytes:
        h = self.hunt
        state = {"rng": self.rng_state, "deals": h.deals, "loops": h.loops}
        state.update(cycles=sorted(self.seen), new_cycles=self.new_cycles)
        return json.dumps(state).encode()

    def restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        if 0 not in checkpoints:
            return
        state = json_state(checkpoints[0][0], LOOP_HUNT)  # checked: StoreDamaged
        self.rng_state = state["rng"]
        self.hunt.deals, self.hunt.loops = state["deals"], state["loops"]
        self.seen = set(state["cycles"])
        self.new_cycles = state["new_cycles"]

    def new_progress(self) -> LoopHuntProgress:
        o = self.options
        p = LoopHuntProgress(
            self.run_id, deck=o.deck, loops=self.hunt.loops, players=o.players, rules=o.rules
        )
        p.cycles, p.new_cycles = len(self.seen), self.new_cycles
        return p

    def stream_games(self, stream: int) -> int:
        return self.hunt.deals

    def stream_state(self, stream: int) -> dict:
        return self.rng_state

    def chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        """BATCH deals, fewer for the last of the iterations; 0 once the time is up."""
        if self.past_time():
            return 0
        if self.options.iterations is not None:
            return max(min(BATCH, self.options.iterations - planned), 0)
        return BATCH

    def past_time(self) -> bool:
        """Whether the run's --time is up: summarising a batch's new cycles can take seconds
        where scoring it took milliseconds, so batches still to come are dropped then."""
        left = self.seconds_left()
        return left is not None and left <= 0

    def absorb(self, result: Result) -> None:
        """Count each loop of a batch under its cycle; new cycles are summarised by backward
        play, bounded by --basin-states. Summaries first, counts after: a batch whose new
        cycles are still being summarised when the --time is up is left out whole (PastTime)
        rather than overrunning by seconds a cycle, as is any batch come in after it."""
        states = self.options.basin_states or BASIN_STATES
        new: dict[str, CycleFind] = {}
        if self.past_time():
            raise PastTime()
        for deal, key, _ in result.finds:
            if key not in self.hunt.cycles and key not in self.known and key not in new:
                if new and self.past_time():
                    raise PastTime()
                new[key] = new_cycle(deal, states, self.options.rules)
        for _, key, seen in result.finds:
            if key in new:  # the batch's first deal into a cycle new to the run
                find = self.hunt.cycles[key] = new.pop(key)
                find.deals_seen = seen
                self.progress.last = f"period {find.summary.period_tricks} tricks: {key}"
            elif key in self.hunt.cycles:
                self.hunt.cycles[key].deals_seen += seen
            self.hunt.loops += seen
            self.pending[key] = self.pending.get(key, 0) + seen
        self.hunt.deals += result.games
        self.rng_state = result.state

    def save(self, seconds: float) -> None:
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

    def summary(self, status: str, seconds: float) -> LoopHuntSummary:
        h = self.hunt
        return LoopHuntSummary(
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
            self.options.players,
            self.options.rules,
        )
