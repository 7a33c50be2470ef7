"""The longest-game search on the CPU: its options, its chunk of work and what it commits (the
part it shares with the GPU search, longest_cuda.py, its display and summary among them, is in
longest_base.py).

Each stream (worker w, drawing from generator stream w and scoring a fixed share of the
iterations) advances by chunks of its strategy's compiled loop, about a second of work each
(`search_chunk`, run by a backend: threads of this process by default). The run loop
(bmn.search.runs.loop) commits every chunk as it comes, in the process that owns the store: the
worker's checkpoint, its finds and the run's totals in one transaction. A crash or kill loses
at most the chunks in flight, and a resumed run replays them exactly.
"""

from __future__ import annotations

import copy
import functools
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from bmn.kernels.config import FINISHED
from bmn.kernels.deal import deal_text
from bmn.kernels.decks import (
    STANDARD_COUNTS,
    STANDARD_DECK,
    check_search_deck,
    counts_text,
    deck_of,
    describe,
    even_sizes,
    parse_deck,
)
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.records.store import Find
from bmn.records.store.bulk import BULK_BELOW, Bulk, in_bulk
from bmn.search.backends.base import Result
from bmn.search.backends.threads import default_workers
from bmn.search.runs.chunks import sized_chunk
from bmn.search.runs.job import RunContext, rules_for
from bmn.search.runs.kinds.longest_base import COMMIT_FINDS, LongestBase, LongestProgress, RunBest
from bmn.search.runs.progress import cpu_kernels
from bmn.search.runs.said import Named, Words, named
from bmn.search.runs.settings import KEEP_ABOVE
from bmn.search.strategies.cpu import run_chunk
from bmn.search.strategies.moves import OBJECTIVES
from bmn.search.strategies.registry import (
    DEFAULT_HISTORY,
    DEFAULT_PATIENCE,
    DEFAULT_STRATEGY,
    history_length,
)
from bmn.search.strategies.worker import (
    BEST,
    BEST_CARDS,
    BEST_TRICKS,
    GAMES,
    LoopFinds,
    WorkerState,
    new_worker,
)

CHUNK_SECONDS = 1.0
FIRST_CHUNK = 20_000
CHUNK_FINDS = 1 << 18  # finds one chunk may hold: twenty megabytes of result
# The least time between commits. A chunk is about a second, so this changes nothing at the
# usual --keep-above; with a low one, chunks stop early at CHUNK_FINDS and come several a
# second a stream, and one transaction (one fsync) for all of them keeps the search fast.
COMMIT_SECONDS = 0.5
# Short finds stored in bulk (bmn.records.store.bulk) cost well under a microsecond each; a commit
# of more than this many (about 30 MB of store) is due at once, to keep memory in bounds.
COMMIT_BULK_FINDS = 1 << 20
# More finds a second than this and the search warns of the store they fill: about FIND_BYTES
# each in a row of their own, BULK_FIND_BYTES in bulk (measured with benchmarks/keep_above.py).
FINDS_PER_SECOND_WARNING = 20.0
FIND_BYTES = 250
BULK_FIND_BYTES = 31


@dataclass
class LongestOptions:
    """Everything that defines a run; stored with it so `--resume` needs nothing else (runs
    stored before `deck` and `hand_sizes` searched the standard deck dealt evenly)."""

    strategy: str = DEFAULT_STRATEGY
    objective: str = "cards"
    seconds: float | None = None
    iterations: int | None = None
    workers: int = field(default_factory=default_workers)
    seed: int = field(default_factory=lambda: secrets.randbits(62))
    keep_above: int = KEEP_ABOVE
    patience: int = DEFAULT_PATIENCE
    history: int = DEFAULT_HISTORY
    players: int = 2  # seats; runs stored before this option searched two
    deck: str = "standard"  # 'standard' or counts N,J,Q,K,A (kernels/ranks.py)
    hand_sizes: tuple[int, ...] | None = None  # seat 0 first; None: as even as possible
    rules: str = (
        DEFAULT_RULES  # a rule set's name (kernels/rules/sets.py); runs stored before: bmn's
    )

    def __post_init__(self) -> None:
        """The deck checked and stored as 'standard' or plain counts, the hand sizes made
        explicit, the seats they give, and the rule set by its own name."""
        counts, sizes = check_search_deck(self.deck, self.hand_sizes, self.players)
        self.deck = "standard" if counts == STANDARD_COUNTS else counts_text(counts)
        self.hand_sizes, self.players = sizes, len(sizes)
        self.rules = rules_for(self.rules, self.players)

    @property
    def sizes(self) -> tuple[int, ...]:
        """The hand sizes, seat 0 first (the standard deck by default: 26/26, 18/17/17, 13 each)."""
        return tuple(self.hand_sizes)

    @property
    def cards(self) -> np.ndarray:
        """The deck's cards (penalty values) in value order: what a worker shuffles and deals."""
        return np.array(deck_of(parse_deck(self.deck)), dtype=np.uint8)

    @property
    def standard(self) -> bool:
        """Whether it searches the standard deck dealt evenly: the deals the published records,
        their table and the odds of random deals are about."""
        counts = parse_deck(self.deck)
        return counts == STANDARD_COUNTS and self.sizes == even_sizes(sum(counts), self.players)

    def deck_words(self) -> str:
        """The deck and its hands in words: '20 cards (14 numerals, 2 J, 2 Q, 2 K), hands 10/10'."""
        return f"{describe(parse_deck(self.deck))}, hands {'/'.join(map(str, self.sizes))}"


def best_of(states: list[WorkerState]) -> WorkerState | None:
    """The worker holding the best deal; ties go to the lowest worker, so runs reproduce."""
    scored = [s for s in states if s.counters[BEST] >= 0]
    return max(scored, key=lambda s: s.counters[BEST], default=None)


def search_chunk(
    stream: int, chunk: int, state: WorkerState, options: LongestOptions, iterations: int
) -> tuple[WorkerState, tuple[np.ndarray, np.ndarray], int]:
    """One chunk of a search (see bmn.search.backends.base): up to `iterations` deals of the
    strategy from `state`, left untouched; the new state, the finds (rows of cards, rows of (cards,
    tricks, status)) and the deals scored. The compiled loop stops whenever its finds buffer
    (LOOP_FINDS) fills; this goes on from there, so a low --keep-above still makes chunks of
    about a second, until CHUNK_FINDS finds keep a chunk's result small. Whatever the cut, a
    stream's deals and finds are the same."""
    state = copy.deepcopy(state)
    buffer = _finds_buffer(len(state.deck))
    objective = OBJECTIVES.index(options.objective)
    decks, meta, done, kept = [], [], 0, 0
    while done < iterations and kept < CHUNK_FINDS:
        n, n_finds = run_chunk(
            options.strategy,
            state,
            buffer,
            iterations - done,
            objective,
            options.keep_above,
            options.patience,
            options.rules,
        )
        done, kept = done + n, kept + n_finds
        decks.append(buffer.decks[:n_finds].copy())
        meta.append(buffer.meta[:n_finds].copy())
        if n_finds < len(buffer.meta):  # the loop ran to the end, not into a full buffer
            break
    return state, (np.concatenate(decks), np.concatenate(meta)), done


_BUFFERS = threading.local()


def _finds_buffer(width: int) -> LoopFinds:
    """This thread's finds buffer for deals of `width` cards, made once: a fresh one per chunk
    (a third of a megabyte) costs a low --keep-above's many short chunks page faults on every
    write."""
    buffers = _BUFFERS.__dict__.setdefault("finds", {})
    if width not in buffers:
        buffers[width] = LoopFinds.empty(width)
    return buffers[width]


def warm_search(
    strategy: str = DEFAULT_STRATEGY, players: int = 2, rules: str = DEFAULT_RULES
) -> None:
    """Compile (or load from the cache) what a search of `strategy` on `players` seats under
    `rules` runs: its strategy's loop and its seat count's kernel, nothing else (a first
    compile costs seconds a function); a zero-iteration chunk (a plain function: a backend may
    run it on other machines). Any deck of those seats runs the same compiled code."""
    sizes = even_sizes(len(STANDARD_DECK), players)
    run_chunk(strategy, new_worker(0, 0, sizes=sizes), LoopFinds.empty(), 0, 0, 0, 1, rules)


class LongestJob(LongestBase):
    """One run of a search: start it new or resume it, then `run()` until done or stopped.

    `Search(store, options, run_id=None, backend=None)`: a new run, or run `run_id` resumed
    with its stored options (`Search.resume(store, run_id)`); chunks run on `backend`,
    threads of this process by default.
    """

    kind = "longest"
    options_type = LongestOptions
    progress_type = LongestProgress
    work = staticmethod(search_chunk)
    warm = staticmethod(warm_search)
    # A two-seat walk's first compile on two cores (benchmarks/first_run.py, 2026-12-02: 16 s).
    compile_seconds = 16.0
    streams_per_worker = True  # one per core, or per worker thread of a cluster

    def __init__(self, run: RunContext, options: LongestOptions):
        super().__init__(run, options)
        self._checkpoints: dict[int, WorkerState] = {}  # absorbed, not yet committed
        self._in_bulk = self._one_by_one = 0  # of the finds absorbed
        self._kept = 0  # finds this session, for the --keep-above warning
        self._warned = False

    @property
    def streams(self) -> int:
        return self.options.workers

    @property
    def games(self) -> int:
        return sum(int(s.counters[GAMES]) for s in self.states)

    @property
    def seats(self) -> int:
        return self.options.players

    def warm_call(self) -> Callable[[], object]:
        o = self.options
        return functools.partial(self.warm, o.strategy, o.players, o.rules)

    def _fresh(self, worker: int) -> WorkerState:
        o = self.options
        history = history_length(o.strategy, o.history)
        return new_worker(o.seed, worker, history, o.sizes, o.cards)

    def new_progress(self) -> LongestProgress:
        p = super().new_progress()
        p.deck = "" if self.options.standard else self.options.deck_words()
        p.kernel = cpu_kernels(self.run.backend.name)
        return p

    def _deck(self) -> str:
        return self.options.deck

    def restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        self.states = [
            self._saved(checkpoints[w][0], w) if w in checkpoints else self._fresh(w)
            for w in range(self.options.workers)
        ]

    def _saved(self, blob: bytes, worker: int) -> WorkerState:
        """A stream's checkpoint, checked against a fresh state of the run by the store
        (StoreDamaged, one line, for one not of this run's shape)."""
        from bmn.records.store.saved import array_state

        fresh = vars(self._fresh(worker))
        array_state(blob, fresh, ("deck", "best"), optional=("sizes",), any_length=("history",))
        return WorkerState.from_bytes(blob)

    def _best(self) -> RunBest | None:
        leader = best_of(self.states)
        if leader is None:
            return None
        deal = deal_text(leader.best, leader.sizes)
        cards, tricks = int(leader.counters[BEST_CARDS]), int(leader.counters[BEST_TRICKS])
        return RunBest(int(leader.counters[BEST]), deal, cards, tricks)

    def stream_games(self, stream: int) -> int:
        return int(self.states[stream].counters[GAMES])

    def stream_state(self, stream: int) -> WorkerState:
        return self.states[stream]

    def _sized(
        self, rate: float | None, left: int | None, deadline: float | None, ahead: float
    ) -> int:
        return chunk_size(rate, left, deadline, ahead)

    def _hand_sizes(self) -> tuple[int, ...]:
        return self.options.sizes

    def absorb(self, result: Result) -> None:
        self.states[result.stream] = self._checkpoints[result.stream] = result.state
        decks, meta = result.finds
        first = int(result.state.counters[GAMES]) - result.games
        self._finds.append((result.stream, first, decks, meta))
        bulky = int(np.count_nonzero(in_bulk(meta, FINISHED)))
        self._in_bulk += bulky
        self._one_by_one += len(meta) - bulky

    def commit_seconds(self) -> float:
        return COMMIT_SECONDS

    def commit_due(self, saved: float) -> bool:
        return (
            super().commit_due(saved)
            or self._one_by_one >= COMMIT_FINDS
            or self._in_bulk >= COMMIT_BULK_FINDS
        )

    def _checkpoint_rows(self, seconds: float) -> list[tuple[int, bytes, int, float]]:
        return [
            (w, state.to_bytes(), int(state.counters[GAMES]), seconds)
            for w, state in self._checkpoints.items()
        ]

    def _committed(self, finds: list[Find], bulks: list[Bulk]) -> None:
        self._checkpoints, self._in_bulk, self._one_by_one = {}, 0, 0
        # Only what the threshold keeps: each worker's early improvements are finds too, but
        # they stop within seconds whatever --keep-above is.
        keep = self.options.keep_above
        self._kept += sum(find.cards >= keep for find in finds)
        self._kept += sum(int(np.count_nonzero(b.figures[:, 0] >= keep)) for b in bulks)
        self._warn_of_many_finds()

    def _warn_of_many_finds(self) -> None:
        """Once a second of search (or a thousand finds) shows the rate, warn if --keep-above
        keeps too many."""
        elapsed, rate = self.elapsed(), self._kept / max(self.elapsed(), 1e-6)
        settled = elapsed >= 1.0 or self._kept >= 1000  # a short fast run has a rate too
        if self._warned or not settled or rate <= FINDS_PER_SECOND_WARNING:
            return
        self._warned = True
        keep = self.options.keep_above
        size = BULK_FIND_BYTES if keep < BULK_BELOW else FIND_BYTES
        gigabytes = rate * size * 3600 / 1e9
        cost = f"about {rate:,.0f} finds a second (about {gigabytes:,.1f} GB of store an hour)"
        self.progress.notes.append(Words(*_many_finds_words(keep, cost)))


def _many_finds_words(keep: int, cost: str) -> tuple[str | Named, ...]:
    """The warning's parts: of a threshold that is not the default, or of the default itself,
    given or not, which a strategy that dwells among long deals (climb) can pass often."""
    if keep != KEEP_ABOVE:
        return (
            "warning: ",
            named("keep_above"),
            f" {keep:,} keeps {cost}; a higher threshold keeps fewer (the default,"
            f" {KEEP_ABOVE:,}, a few a second at most)",
        )
    return (
        "warning: the default ",
        named("keep_above"),
        f", {KEEP_ABOVE:,} cards, keeps {cost} in this run, whose strategy dwells among long"
        " deals; a higher ",
        named("keep_above"),
        " keeps fewer",
    )


def chunk_size(
    rate: float | None, left: int | None, deadline: float | None, ahead: float = 0.0
) -> int:
    """Deals for a worker's next chunk: about CHUNK_SECONDS of work, never past its quota or
    the deadline (see chunks.sized_chunk)."""
    return sized_chunk(
        rate, left, deadline, ahead, first=FIRST_CHUNK, least=1000, seconds=CHUNK_SECONDS
    )
