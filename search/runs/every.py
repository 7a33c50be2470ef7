"""Every deal of a deck, in rank order: the run behind `bmn search --strategy every`.

A run visits the ranks R to S - 1 of a deck (kernels/ranks.py defines a rank; the whole deck by
default), dealt into fixed hand sizes, seat 0 leading. The range is cut into one contiguous
slice per stream (--workers); each stream walks its slice in chunks of about a second, each
chunk a rank range (`every_chunk`: one unrank, then compiled steps, search/strategies/every.py),
so the checkpoint of a stream is its next rank and a resumed run goes on exactly from there.

What it keeps does not depend on how the range is cut: every deal of at least --keep-above
cards, every looping deal (stored as a find with status loop), the longest finished game by the
objective (the lowest rank among equals), and with --objective loop each cycle the looping deals
fall into, once under its key with its period and basin (the loop hunt's own bookkeeping,
loop_hunt.record_loop and loop_record), counted seat-blind too.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

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
from bmn.kernels.ranks import arrangements, unrank
from bmn.records.store import DEFAULT_PATH, Find, Loop, Store
from bmn.search.backends.base import Backend, Result
from bmn.search.output.tables import fit_summary
from bmn.search.runs.handler import RunHandler, RunProgress, options_from_run, store_option
from bmn.search.runs.longest_base import sized_chunk, split_finds, stream_quota
from bmn.search.runs.loop_hunt import DEFAULT_BASIN_STATES, Hunt, loop_record, record_loop
from bmn.search.words import counted, duration

if TYPE_CHECKING:
    from bmn.search.strategies.every import Visited

CHUNK_SECONDS = 1.0
FIRST_CHUNK = 20_000  # deals in a stream's first chunk, before its rate is known
LEAST_CHUNK = 1000
CHUNK_FINDS = 1 << 18  # finds one chunk may hold
COMMIT_SECONDS = 0.5
OBJECTIVES = ("cards", "tricks", "loop")


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

    strategy: str = "every"
    objective: str = "cards"
    seconds: float | None = None
    iterations: int | None = None
    workers: int = 0
    seed: int = 0  # unused: an enumeration draws nothing, but every run stores one
    deck: str = "standard"
    hand_sizes: tuple[int, ...] | None = None
    players: int = 2
    keep_above: int = 3000
    from_rank: int = 0
    to_rank: int | None = None
    max_basin_states: int = DEFAULT_BASIN_STATES

    def __post_init__(self) -> None:
        from bmn.search.backends.threads import default_workers

        self.workers = self.workers or default_workers()
        self.deck = deck_spec(self.deck)
        counts, sizes, first, end = check_input(
            self.deck, self.hand_sizes, self.players, self.from_rank, self.to_rank
        )
        self.hand_sizes, self.players = sizes, len(sizes)
        self.from_rank, self.to_rank = first, end

    @classmethod
    def from_run(cls, run) -> EveryOptions:
        return options_from_run(cls, run)

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
    its kept deals (rows, and cards, tricks, status, offset), and each loop's cycle keys."""

    start: int
    best: tuple[int, np.ndarray, int, int, int] | None
    decks: np.ndarray
    meta: np.ndarray
    cycles: list[tuple[tuple, str, str]] = field(default_factory=list)


def every_chunk(
    stream: int, chunk: int, state: EveryState, options: EveryOptions, iterations: int
) -> tuple[EveryState, ChunkFinds, int]:
    """One chunk (see bmn.search.backends.base): `iterations` ranks from `state.next`, one
    unrank, then compiled steps; the stream's new state, what it kept, the deals visited."""
    from bmn.search.strategies.every import score_run

    sizes = np.array(options.hand_sizes, dtype=np.int64)
    objective = 1 if options.objective == "tricks" else 0
    start = unrank(state.next, options.counts)
    seen = score_run(start, sizes, iterations, objective, options.keep_above, CHUNK_FINDS)
    return chunk_result(state, options, seen)


def chunk_result(
    state: EveryState, options: EveryOptions, seen: Visited
) -> tuple[EveryState, ChunkFinds, int]:
    """A chunk's return from the ranks it scored from `state.next` (on the CPU, or on a GPU by
    every_cuda.py): the stream's new state, what it kept (each loop's cycle keys with
    --objective loop), the deals visited."""
    from bmn.kernels.cycles.loops import analyse

    best = None
    if seen.best_score >= 0:
        figures = (seen.best_score, seen.best_cards, seen.best_tricks)
        best = (state.next + seen.best_offset, seen.best, *figures)
    cycles = []
    if options.objective == "loop":
        for row in np.flatnonzero(seen.meta[:, 2] == LOOP):
            deal = decode(seen.decks[row], options.hand_sizes)
            loop = analyse(deal)
            cycles.append((deal, loop.key or "", loop.rotation_key or ""))
    finds = ChunkFinds(state.next, best, seen.decks, seen.meta, cycles)
    return EveryState(state.first, state.next + seen.done), finds, seen.done


def warm_every() -> None:
    """Compile (or load from cache) the enumeration loop for every seat count."""
    from bmn.search.strategies.every import warm_visit

    warm_visit()


def span(seconds: float) -> str:
    """A length of time that may run to years: '3m05s', '4.2 days', '1.3e9 years'."""
    days = seconds / 86400
    if days < 1:
        return duration(seconds)
    if days < 365:
        return f"{days:,.1f} days"
    years = days / 365.25
    return f"{years:,.1f} years" if years < 1e6 else f"{years:.2g} years"


@dataclass
class EveryProgress(RunProgress):
    """What the display shows; updated after every commit."""

    deck: str = ""
    sizes: str = ""
    ranks: int = 0  # in the range
    # The longest finished game (not named best_*: the odds of random deals do not apply)
    longest_cards: int = -1
    longest_tricks: int = -1
    longest_deal: str = ""
    loops: int = 0
    cycles: int = 0
    seat_blind: int = 0
    finds: int = 0

    def title(self) -> str:
        return f"bmn search --strategy every, run {self.run}"

    def setting(self) -> str:
        return f"every deal of {self.deck}, hands {self.sizes}, {counted(self.workers, 'stream')}"

    def rows(self) -> list[tuple[str, str]]:
        return [
            ("store", self.store),
            ("enumeration", self.setting()),
            ("backend", self.backend),
            ("elapsed", duration(self.seconds)),
            ("remaining", "-" if self.remaining is None else span(self.remaining)),
            ("deals", f"{self.games:,} of {self.ranks:,}"),
            ("deals/s", f"{self.rate:,.0f}"),
            ("best", self.best_text(", ")),
            ("best deal", self.longest_deal),
            (
                "loops",
                f"{counted(self.loops, 'looping deal')}, {counted(self.cycles, 'cycle')} "
                f"({self.seat_blind} seat-blind)",
            ),  # fmt: skip
            ("kept finds", f"{self.finds:,}"),
        ]

    def line(self) -> str:
        left = "-" if self.remaining is None else span(self.remaining)
        share = "" if self.done is None else f"{self.done:.1%}, "
        return (
            f"run {self.run}: {share}{duration(self.seconds)} elapsed, {left} left,"
            f" {self.games:,} of {counted(self.ranks, 'deal')}, {self.rate:,.0f} deals/s, best"
            f" {self.best_text()}, {counted(self.loops, 'loop')}"
        )

    def best_text(self, between: str = " ") -> str:
        """The longest finished game so far in words ('none yet' before one)."""
        if self.longest_cards < 0:
            return "none yet"
        return f"{self.longest_cards:,} cards{between}{self.longest_tricks:,} tricks"


@dataclass
class EverySummary:
    """What an enumeration prints when it stops."""

    run: int
    status: str
    deck: str
    hand_sizes: list[int]
    from_rank: int
    to_rank: int
    deals: int  # visited
    complete: bool  # every rank of the range visited
    best_deal: str | None  # None (and None figures) when no deal finished
    best_cards: int | None
    best_tricks: int | None
    best_rank: int | None
    loops: int  # looping deals
    cycles: int  # distinct cycles by key (--objective loop)
    seat_blind_cycles: int
    new_cycles: int
    finds: int
    seconds: float
    whole_range_seconds: float | None  # at this session's rate
    store: str = DEFAULT_PATH

    def as_dict(self) -> dict:
        return asdict(self)

    def text(self) -> str:
        sizes = "/".join(map(str, self.hand_sizes))
        done = (
            "every deal"
            if self.complete
            else f"{self.deals:,} of {self.to_rank - self.from_rank:,} deals"
        )
        lines = [
            f"run {self.run} ({self.status}): {done} of deck {self.deck}, hands {sizes}, ranks"
            f" {self.from_rank:,} to {self.to_rank - 1:,}, in {self.seconds:,.1f} s",
            f"longest finished game: {self.best_cards:,} cards, {self.best_tricks:,} tricks,"
            f" rank {self.best_rank:,}:\n  {self.best_deal}"
            if self.best_deal
            else "no finished game",
            f"{counted(self.loops, 'looping deal')}; {counted(self.finds, 'find')} kept",
        ]
        if self.cycles:
            lines[-1] += (
                f"; {counted(self.cycles, 'distinct cycle')} ({self.seat_blind_cycles:,}"
                f" seat-blind, {self.new_cycles:,} new to the store); list them with:\n"
                f"  bmn records loops{store_option(self.store)}"
            )
        if self.status == "stopped":
            lines.append(
                f"stopped at its --time or --iterations; resume goes on from the next rank:\n"
                f"  bmn search --resume {self.run}{store_option(self.store)}"
            )
        return fit_summary("\n".join(lines))


@dataclass
class Totals:
    """A run's running totals beyond the streams' ranks: its best, loops and cycles."""

    best: tuple[int, int, int, int, str] | None = None  # score, -rank, cards, tricks, deal
    loops: int = 0
    cycles: list[str] = field(default_factory=list)  # keys seen, in the order first seen
    seat_blind: list[str] = field(default_factory=list)
    new_cycles: int = 0
    finds: int = 0


class EveryRun(RunHandler):
    """One enumeration: start it new or resume it, then `run()` until its range is done, its
    time or iterations are used up, or it is stopped."""

    kind = "every"
    options_type = EveryOptions
    progress_type = EveryProgress
    work = staticmethod(every_chunk)
    warm = staticmethod(warm_every)

    def __init__(
        self,
        store: Store,
        options: EveryOptions,
        run_id: int | None = None,
        backend: Backend | None = None,
    ):
        self.totals = Totals()
        self.hunt = Hunt()  # cycles summarised this session, by key
        self.known = {row.key: row for row in store.loops()}
        self.pending: dict[str, int] = {}  # cycle keys seen since the last commit
        self._finds: list[tuple[int, int, np.ndarray, np.ndarray]] = []
        self._stored_best: int | None = None  # the best score stored with the run
        self._warned = False
        super().__init__(store, options, run_id, backend)
        if run_id is not None:  # its finds in the store, every sitting's, as its deals are
            self.totals.finds = store.run_tally(run_id)[0]
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
        self.progress.done = self._done(self.games, self.spent)

    @property
    def streams(self) -> int:
        return self.options.workers

    @property
    def games(self) -> int:
        return sum(s.next - s.first for s in self.states)

    def _restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        o = self.options
        self.states = [EveryState(*(o.slice_of(w)[0],) * 2) for w in range(o.workers)]
        from bmn.records.store.saved import EVERY_TOTALS, every_stream, json_state

        for w, (blob, _, _) in checkpoints.items():  # checked by the store: StoreDamaged
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

    def _new_progress(self) -> EveryProgress:
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

    def _stream_games(self, stream: int) -> int:
        return self.states[stream].next - self.states[stream].first

    def _state(self, stream: int) -> EveryState:
        return self.states[stream]

    def _chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        left = self.options.quota(stream) - planned
        if left <= 0:
            return 0
        return sized_chunk(
            rate, left, self.deadline(), ahead,
            first=FIRST_CHUNK, least=LEAST_CHUNK, seconds=CHUNK_SECONDS,
        )  # fmt: skip

    def _absorb(self, result: Result) -> None:
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
        for deal, key, seat_blind in found.cycles:
            self._count_cycle(deal, key, seat_blind)

    def _count_cycle(self, deal: tuple, key: str, seat_blind: str) -> None:
        """Count a looping deal under its cycle; a cycle new to the store is summarised by
        backward play (the loop hunt's record_loop)."""
        t = self.totals
        if key not in self.known and key not in self.hunt.cycles:
            record_loop(self.hunt, deal, self.options.max_basin_states)
        for seen, keys, name in (
            (self._keys, t.cycles, key),
            (self._blind, t.seat_blind, seat_blind),
        ):
            if name not in seen:
                seen.add(name)
                keys.append(name)
        self.pending[key] = self.pending.get(key, 0) + 1

    def commit_seconds(self) -> float:
        return COMMIT_SECONDS

    def _save(self, seconds: float) -> None:
        """The chunks' finds, the run's best, the cycles seen, every stream's next rank and
        the totals, in one transaction."""
        o = self.options
        finds, bulks = split_finds(self._finds, o.strategy, o.hand_sizes, seconds)
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
        rows.append((o.workers, json.dumps(asdict(t)).encode(), self.games, seconds))
        t.finds += self.store.save_progress(
            self.run_id, rows, finds, update, holder=self.holder, bulks=bulks, loops=loops
        )
        self._finds = []
        self._show_totals(self.progress)

    def _finish(self) -> EverySummary:
        self._store_best()
        return super()._finish()

    def _store_best(self) -> None:
        """The run's longest game as a find, once, when a sitting ends. A deal of at least
        --keep-above cards is stored already (in bulk or as a row, with its chunk), and a best
        that a later chunk beats is no find: so the finds do not depend on how the range is
        cut into streams (--workers) nor on when commits come."""
        t = self.totals
        if t.best is None or t.best[2] >= self.options.keep_above:
            return
        seconds = self.spent + self.elapsed()
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

    def _status(self, seconds: float) -> str:
        """'finished' once every rank of the range is visited; 'stopped' when its --time or
        --iterations ran out first (--resume goes on from the next rank); else
        'interrupted'."""
        if self.games >= self.options.ranks:
            return "finished"
        return "stopped" if self.complete(seconds) else "interrupted"

    def _done(self, games: int, seconds: float) -> float | None:
        """The share of the ranks visited; on the way, the time left at this session's rate,
        and once a note if --time cannot finish the range."""
        planned = self._planned()
        p = getattr(self, "progress", None)
        if p is not None and p.rate > 0:
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
            f"note: the {self.options.ranks:,} deals of this range take about {span(whole)} at"
            f" {p.rate:,.0f} deals/s; --time {duration(self.options.seconds)} covers about"
            f" {self.options.seconds / whole:.1%}; resume goes on from the next rank with:"
            f" bmn search --resume {self.run_id}{store_option(str(self.store.path))}"
        )

    def _summary(self, status: str, seconds: float) -> EverySummary:
        o, t, p = self.options, self.totals, self.progress
        best = (None,) * 5 if t.best is None else t.best  # no finished game: no best deal
        rate = p.rate or (self.games / seconds if seconds else 0.0)
        return EverySummary(
            self.run_id, status, o.deck, list(o.hand_sizes), o.from_rank, o.to_rank,
            self.games, self.games >= o.ranks, best[4], best[2], best[3],
            None if best[1] is None else -best[1], t.loops, len(t.cycles), len(t.seat_blind),
            t.new_cycles, t.finds, seconds, o.ranks / rate if rate else None,
            str(self.store.path),
        )  # fmt: skip
