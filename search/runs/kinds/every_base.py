"""Every deal of a deck, in rank order: what the enumerations on the CPU (every.py) and on a
GPU (every_cuda.py) share, behind `bmn search --strategy every`.

A run visits the ranks R to S - 1 of a deck (kernels/ranks.py defines a rank; the whole deck by
default), dealt into fixed hand sizes, seat 0 leading. The range is cut into one contiguous
slice per stream (--workers); each stream walks its slice in chunks of about a second, each
chunk a rank range (`every_chunk`: one unrank, then compiled steps, search/enumeration/cpu.py),
so the checkpoint of a stream is its next rank and a resumed run goes on exactly from there.

What it keeps does not depend on how the range is cut: every deal of at least --keep-above
cards, every looping deal (stored as a find with status loop), the longest finished game by the
objective (the lowest rank among equals), and with --objective loop each cycle the looping deals
fall into, once under its key with its period and basin (the book of cycles a hunt keeps,
cycle_book.record_loop and loop_record), counted seat-blind too.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from bmn.kernels.config import LOOP
from bmn.kernels.deal import deal_text, decode
from bmn.kernels.decks import (
    DeckInputError,
    check_deck,
    counts_text,
    deck_spec,
    describe,
    parse_deck,
)
from bmn.kernels.ranks import arrangements
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.records.store import Find, Loop, deal_order
from bmn.records.store.saved import (
    A_DEAL,
    CYCLE_KEY,
    Shape,
    exactly,
    items,
    json_state,
    nullable,
    record,
    row_of,
    whole,
)
from bmn.search.backends.base import Result
from bmn.search.runs.chunks import sized_chunk, split_finds, stream_quota
from bmn.search.runs.job import Job, RunContext, rules_for
from bmn.search.runs.kinds.cycle_book import (
    BASIN_STATES,
    CycleBook,
    loop_record,
    new_cycle,
    record_loop,
)
from bmn.search.runs.kinds.every_shown import EveryProgress, EverySummary, span
from bmn.search.runs.said import (
    Resume,
    Words,
    named,
)
from bmn.search.runs.settings import KEEP_ABOVE
from bmn.search.words import duration

if TYPE_CHECKING:
    from bmn.search.enumeration.cpu import Visited

CHUNK_SECONDS = 1.0
FIRST_CHUNK = 20_000  # deals in a stream's first chunk, before its rate is known
LEAST_CHUNK = 1000
CHUNK_FINDS = 1 << 18  # finds one chunk may hold
COMMIT_SECONDS = 0.5


def check_input(
    deck: str, hand_sizes, players: int, from_rank: int, to_rank: int | None
) -> tuple[tuple[int, ...], tuple[int, ...], int, int]:
    """(counts, hand sizes, first rank, end rank) of an enumeration; DeckInputError naming
    the option otherwise."""
    counts, sizes = check_deck(deck, hand_sizes, players)
    total = arrangements(counts)
    end = total if to_rank is None else int(to_rank)
    if not 0 <= from_rank < total:
        why = f"rank {from_rank} is outside the deck {counts_text(counts)}'s 0 to {total - 1:,}"
        raise DeckInputError("from_rank", why)
    if not from_rank < end <= total:
        why = f"ranks {from_rank:,} to {end - 1:,} are empty or past the deck's last, {total - 1:,}"
        raise DeckInputError("to_rank", f"{why} (--to-rank is the first rank not visited)")
    return counts, sizes, int(from_rank), end


@dataclass
class EveryOptions:
    """Everything that defines an enumeration; stored with its run so `--resume` needs nothing
    else. `deck` and `hand_sizes` are the names every kind that takes a deck uses."""

    strategy: ClassVar[None] = None  # --strategy every selects the kind; it has no strategy
    objective: str = "cards"
    seconds: float | None = None
    iterations: int | None = None
    workers: int = 0
    seed: int = 0  # an enumeration draws nothing, but every run stores a seed: always 0
    deck: str = "standard"
    hand_sizes: tuple[int, ...] | None = None
    players: int = 2
    keep_above: int = KEEP_ABOVE
    from_rank: int = 0
    to_rank: int | None = None
    basin_states: int = BASIN_STATES
    rules: str = (
        DEFAULT_RULES  # a rule set's name (kernels/rules/sets.py); runs stored before: bmn's
    )

    def __post_init__(self) -> None:
        from bmn.search.backends.threads import default_workers

        self.workers = self.workers or default_workers()
        self.seed = 0  # not the random one a new run is given: same settings, same rows
        counts, sizes, first, end = check_input(
            self.deck, self.hand_sizes, self.players, self.from_rank, self.to_rank
        )
        self.deck = deck_spec(self.deck)  # as stored: 'standard' or the counts
        self.hand_sizes, self.players = sizes, len(sizes)
        self.from_rank, self.to_rank = first, end
        self.rules = rules_for(self.rules, self.players)

    @property
    def counts(self) -> tuple[int, ...]:
        return parse_deck(self.deck)

    @property
    def ranks(self) -> int:
        """How many ranks the range holds."""
        return self.to_rank - self.from_rank

    def slice_of(self, stream: int) -> tuple[int, int]:
        """Stream `stream`'s ranks: a contiguous share of the range, first to end - 1."""
        r, n, w = self.from_rank, self.ranks, self.workers
        return r + n * stream // w, r + n * (stream + 1) // w

    def quota(self, stream: int) -> int:
        """The ranks stream `stream` visits over the run: its slice, at most its share of
        --iterations."""
        first, end = self.slice_of(stream)
        share = stream_quota(self.iterations, self.workers, stream)
        return end - first if share is None else min(end - first, share)


@dataclass
class EveryState:
    """A stream's checkpoint: its slice's first rank and the next rank to visit."""

    first: int
    next: int


@dataclass
class ChunkFinds:
    """What a chunk kept: its first rank, its first best finished deal (rank, row, figures),
    its kept deals (rows, and cards, tricks, status, offset), and each loop's cycle keys and
    rank."""

    start: int
    best: tuple[int, np.ndarray, int, int, int] | None
    decks: np.ndarray
    meta: np.ndarray
    cycles: list[tuple[tuple, str, str, int]] = field(default_factory=list)


def chunk_result(
    state: EveryState, options: EveryOptions, seen: Visited
) -> tuple[EveryState, ChunkFinds, int]:
    """A chunk's return from the ranks it scored from `state.next` (on the CPU, or on a GPU by
    every_cuda.py): the stream's new state, what it kept (each loop's cycle keys with
    --objective loop, and its rank), the deals visited."""
    from bmn.kernels.cycles.loops import analyse

    best = None
    if seen.best_score >= 0:
        figures = (seen.best_score, seen.best_cards, seen.best_tricks)
        best = (state.next + seen.best_offset, seen.best, *figures)
    cycles = []
    if options.objective == "loop":
        for row in np.flatnonzero(seen.meta[:, 2] == LOOP):
            deal = decode(seen.decks[row], options.hand_sizes)
            loop = analyse(deal, rules=options.rules)
            rank = state.next + int(seen.meta[row, 3])
            cycles.append((deal, loop.key or "", loop.rotation_key or "", rank))
    finds = ChunkFinds(state.next, best, seen.decks, seen.meta, cycles)
    return EveryState(state.first, state.next + seen.done), finds, seen.done


@dataclass
class Totals:
    """A run's running totals beyond the streams' ranks: its best, loops and cycles."""

    best: tuple[int, int, int, int, str] | None = None  # score, -rank, cards, tricks, deal
    loops: int = 0
    cycles: list[str] = field(default_factory=list)  # keys seen (sorted at each commit)
    seat_blind: list[str] = field(default_factory=list)
    new_cycles: int = 0
    finds: int = 0


# The checkpoints an enumeration writes, as its restore checks them (StoreDamaged): each
# stream's next rank, within its slice of ranks, and the Totals (kept as a worker past the
# streams).
def every_stream(first: int, end: int) -> Shape:
    return record(next=whole(first, end))


EVERY_TOTALS = exactly("best", "loops", "cycles", "seat_blind", "new_cycles", "finds")(
    record(
        optional={
            "best": nullable(row_of(whole(), whole(-(2**63)), whole(), whole(), A_DEAL)),
            "loops": whole(),
            "cycles": items(CYCLE_KEY),
            "seat_blind": items(CYCLE_KEY),
            "new_cycles": whole(),
            "finds": whole(),
        }
    )
)


class EveryBase(Job):
    """One enumeration: start it new or resume it, then `run()` until its range is done, its
    time or iterations are used up, or it is stopped."""

    options_type = EveryOptions
    progress_type = EveryProgress

    def __init__(self, run: RunContext, options: EveryOptions):
        super().__init__(run, options)
        self.totals = Totals()
        self.hunt = CycleBook()  # cycles summarised this session, by key
        self.known = {row.key: row for row in run.store.loops(rules=options.rules)}
        self.pending: dict[str, int] = {}  # cycle keys seen since the last commit
        self._firsts: dict[str, tuple[int, tuple[int, ...]]] = {}  # key: its first deal's order
        self._finds: list[tuple[int, int, np.ndarray, np.ndarray]] = []
        self._stored_best: int | None = None  # the best score stored with the run
        self._warned = False

    def resumed(self) -> None:
        """Its finds in the store, every sitting's, as its deals are; and its next slice."""
        self.totals.finds = self.store.run_tally(self.run_id)[0]
        self._show_totals(self.progress)
        self._next_slice()

    def _next_slice(self) -> None:
        """A resumed run whose --time or --iterations was used up goes on for as much again
        (its stored figures count from its start): each resume of a range too big for one
        sitting visits its next slice of ranks."""
        o = self.options
        if o.seconds is not None and self.spent >= o.seconds:
            o.seconds = self.spent + o.seconds
        if o.iterations is not None and self.games >= o.iterations:
            o.iterations = self.games + o.iterations
        self.progress.done = self.done(self.games, self.spent)

    @property
    def streams(self) -> int:
        return self.options.workers

    @property
    def games(self) -> int:
        return sum(s.next - s.first for s in self.states)

    def restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        o = self.options
        self.states = [EveryState(*(o.slice_of(w)[0],) * 2) for w in range(o.workers)]
        for w, (blob, _, _) in checkpoints.items():  # checked: StoreDamaged
            saved = json_state(
                blob, every_stream(*o.slice_of(w)) if w < o.workers else EVERY_TOTALS
            )
            if w < o.workers:
                self.states[w].next = int(saved["next"])
            else:
                t = self.totals = Totals(**saved)
                t.best = None if t.best is None else tuple(t.best)
        if self.totals.best is not None:
            self._stored_best = self.totals.best[0]
        self._keys, self._blind = set(self.totals.cycles), set(self.totals.seat_blind)

    def new_progress(self) -> EveryProgress:
        o = self.options
        sizes = "/".join(map(str, o.hand_sizes))
        p = self.progress_type(self.run_id, deck=describe(o.counts), sizes=sizes, ranks=o.ranks)
        self._show_totals(p)
        return p

    def _show_totals(self, p: EveryProgress) -> None:
        t = self.totals
        if t.best is not None:
            p.longest_cards, p.longest_tricks, p.longest_deal = t.best[2], t.best[3], t.best[4]
        p.loops, p.cycles, p.seat_blind, p.finds = (
            t.loops,
            len(t.cycles),
            len(t.seat_blind),
            t.finds,
        )

    def stream_games(self, stream: int) -> int:
        return self.states[stream].next - self.states[stream].first

    def stream_state(self, stream: int) -> EveryState:
        return self.states[stream]

    def chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        left = self.options.quota(stream) - planned
        if left <= 0:
            return 0
        return sized_chunk(
            rate, left, self.deadline(), ahead,
            first=FIRST_CHUNK, least=LEAST_CHUNK, seconds=CHUNK_SECONDS,
        )  # fmt: skip

    def absorb(self, result: Result) -> None:
        state, found = result.state, result.finds
        self.states[result.stream] = state
        if found.best is not None:
            rank, row, score, cards, tricks = found.best
            mine = (score, -rank, cards, tricks, deal_text(row, self.options.hand_sizes))
            if self.totals.best is None or mine[:2] > self.totals.best[:2]:
                self.totals.best = mine
        meta = found.meta
        self.totals.loops += int(np.count_nonzero(meta[:, 2] == LOOP))
        first = found.start - self.options.slice_of(result.stream)[0]
        self._finds.append((result.stream, first, found.decks, meta[:, :3]))
        for deal, key, seat_blind, rank in found.cycles:
            self._count_cycle(deal, key, seat_blind, rank)

    def _count_cycle(self, deal: tuple, key: str, seat_blind: str, rank: int) -> None:
        """Count a looping deal under its cycle; a cycle new to the store is summarised by
        backward play (cycle_book.record_loop), and again from a deal of lower rank: the
        streams' chunks come in any order, and the deal stored as a cycle's first (with the
        summary made from it) is the first by rank, as one stream would have met it."""
        t = self.totals
        order = (rank, tuple(self.options.hand_sizes))
        if key not in self.known and key not in self.hunt.cycles:
            record_loop(self.hunt, deal, self.options.basin_states, self.options.rules)
            self._firsts[key] = order
        elif order < self._first_order(key):
            self._earlier_deal(key, deal, order)
        for seen, keys, name in (
            (self._keys, t.cycles, key),
            (self._blind, t.seat_blind, seat_blind),
        ):
            if name not in seen:
                seen.add(name)
                keys.append(name)
        self.pending[key] = self.pending.get(key, 0) + 1

    def _first_order(self, key: str) -> tuple[int, tuple[int, ...]]:
        """Where the first deal held for a cycle comes in rank order (records' deal_order)."""
        if key not in self._firsts:
            self._firsts[key] = deal_order(self.known[key].first_deal)
        return self._firsts[key]

    def _earlier_deal(self, key: str, deal: tuple, order: tuple[int, tuple[int, ...]]) -> None:
        """A deal of lower rank than the cycle's first so far: the cycle summarised from it,
        stored at the next commit (the store keeps the deal of lowest rank it is offered)."""
        find = new_cycle(deal, self.options.basin_states, self.options.rules)
        self._firsts[key] = order
        if key in self.known:  # committed, or known to the store: its record again
            self.known[key] = loop_record(find)
        else:
            self.hunt.cycles[key] = find

    def commit_seconds(self) -> float:
        return COMMIT_SECONDS

    def save(self, seconds: float) -> None:
        """The chunks' finds, the run's best, the cycles seen, every stream's next rank and
        the totals, in one transaction."""
        o = self.options
        finds, bulks = split_finds(self._finds, self.kind, o.hand_sizes, seconds)
        t = self.totals
        update: dict = {"games": self.games, "seconds": seconds}
        if t.best is not None and t.best[0] != self._stored_best:  # the run's, not a find yet
            self._stored_best = t.best[0]
            update.update(best_deal=t.best[4], best_cards=t.best[2], best_tricks=t.best[3])
        loops = self._pending_loops()
        rows = [
            (w, json.dumps({"next": s.next}).encode(), s.next - s.first, seconds)
            for w, s in enumerate(self.states)
        ]
        t.cycles.sort()  # the keys, not the order the streams' chunks came in
        t.seat_blind.sort()
        totals = {k: v for k, v in asdict(t).items() if k != "finds"}  # counted on resume
        rows.append((o.workers, json.dumps(totals).encode(), self.games, seconds))
        t.finds += self.store.save_progress(
            self.run_id, rows, finds, update, holder=self.holder, bulks=bulks, loops=loops
        )
        self._finds = []
        self._show_totals(self.progress)

    def finishing(self) -> None:
        self._store_best()

    def _store_best(self) -> None:
        """The run's longest game as a find, once, when a sitting ends. A deal of at least
        --keep-above cards is stored already (in bulk or as a row, with its chunk), and a best
        that a later chunk beats is no find: so the finds do not depend on how the range is
        cut into streams (--workers) nor on when commits come."""
        t = self.totals
        if t.best is None or t.best[2] >= self.options.keep_above:
            return
        seconds = self.searched()
        best = Find(t.best[4], t.best[2], t.best[3], "finished", None, seconds)
        t.finds += self.store.add_finds(self.run_id, [best])

    def _pending_loops(self) -> list[tuple[Loop, int]]:
        loops = []
        for key, seen in self.pending.items():
            record = self.known.get(key)
            if record is None:
                record = self.known[key] = loop_record(self.hunt.cycles[key])
                self.totals.new_cycles += 1
            loops.append((record, seen))
        self.pending = {}
        return loops

    def _planned(self) -> int:
        """The ranks the run visits in all: its range, or its --iterations."""
        return sum(self.options.quota(w) for w in range(self.options.workers))

    def complete(self, seconds: float) -> bool:
        return self.games >= self._planned() or super().complete(seconds)

    def status(self, seconds: float, stopped: bool) -> str:
        """'finished' once every rank of the range is visited; 'stopped' when its --time or
        --iterations ran out first (--resume goes on from the next rank); else
        'interrupted'."""
        if self.games >= self.options.ranks:
            return "finished"
        return "stopped" if self.complete(seconds) else "interrupted"

    def done(self, games: int, seconds: float) -> float | None:
        """The share of the ranks visited; on the way, the time left at this session's rate,
        and once a note if --time cannot finish the range."""
        planned = self._planned()
        p = self.progress
        if p.rate > 0:
            left = (planned - games) / p.rate
            if self.options.seconds is not None:
                self._warn_if_short(planned / p.rate, p)
                left = min(left, max(self.options.seconds - seconds, 0.0))
            p.remaining = left
        return min(games / planned, 1.0) if planned else 1.0

    def _warn_if_short(self, whole: float, p: EveryProgress) -> None:
        if self._warned or whole <= self.options.seconds:
            return
        self._warned = True
        p.notes.append(
            Words(
                f"note: the {self.options.ranks:,} deals of this range take about {span(whole)}"
                f" at {p.rate:,.0f} deals/s; ",
                named("seconds"),
                f" {duration(self.options.seconds)} covers about"
                f" {self.options.seconds / whole:.1%}; resume goes on from the next rank with: ",
                Resume(self.run_id, str(self.store.path)),
            )
        )

    def summary(self, status: str, seconds: float) -> EverySummary:
        o, t, p = self.options, self.totals, self.progress
        best = (None,) * 5 if t.best is None else t.best  # no finished game: no best deal
        rate = p.rate or (self.games / seconds if seconds else 0.0)
        return EverySummary(
            self.run_id, status, o.deck, list(o.hand_sizes), o.from_rank, o.to_rank,
            self.games, self.games >= o.ranks, best[4], best[2], best[3],
            None if best[1] is None else -best[1], t.loops, len(t.cycles), len(t.seat_blind),
            t.new_cycles, t.finds, seconds, o.ranks / rate if rate else None,
            str(self.store.path), o.rules,
        )  # fmt: skip
