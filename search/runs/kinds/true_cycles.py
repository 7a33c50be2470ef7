"""True cycles of three or four seats: the run behind `bmn search --objective grow --players 3|4`.

A true cycle is one in which every seat keeps cards for ever, so no seat is ever asked for a
card it lacks and every reading of the rules plays it alike (docs/endless-games.md). Each
stream is a true-cycle hunt (bmn.search.cycles.true_run): a chunk is CHUNK_SECONDS of a hunt
over numeral-heavy sub-decks, then growth from the cycles it found and the largest known.
`--iterations` counts chunks. A stream's state between chunks is its TrueRunState as JSON, the
checkpoint blob too (every stream's in one blob), so a resumed run goes on from its cycles.

Every new cycle is stored once in the loops table (`bmn records loops --players 3`), under the
key of the cycle its deal enters, with the most balanced starting deal backward play reaches
within --basin-states states. A hunt is timed, not counted: unlike a seeded search, the same
seed finds what the machine's speed lets it find.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import parse_deal
from bmn.records.store import DEFAULT_PATH, Loop
from bmn.records.store.saved import A_DEAL, exactly, items, record, whole
from bmn.search.backends.base import Result
from bmn.search.runs.chunks import stream_quota
from bmn.search.runs.job import OptionValueError, RunContext
from bmn.search.runs.kinds.cycle_book import loop_record, new_cycle
from bmn.search.runs.kinds.cycle_streams import CycleStreamsJob
from bmn.search.runs.progress import CyclesProgress
from bmn.search.runs.said import store_option
from bmn.search.runs.settings import default_of
from bmn.search.words import counted

CHUNK_SECONDS = 20.0  # a hunt, then growth: long enough for a grow step to finish
# backward play per new cycle, toward an evenly dealt deal
TRUE_BASIN_STATES = default_of("basin_states", "grow_seats")


@dataclass
class TrueCyclesOptions:
    """Everything that defines a true-cycle run; stored with it so `--resume` needs nothing
    else."""

    strategy: ClassVar[None] = None  # it has none: --objective grow --players 3|4 selects it
    objective: ClassVar[str] = "grow"
    seconds: float | None = None
    iterations: int | None = None  # chunks
    workers: int = default_of("workers", "grow")
    seed: int = 0
    players: int = 3
    basin_states: int = TRUE_BASIN_STATES
    chunk_seconds: float = CHUNK_SECONDS

    def __post_init__(self) -> None:
        if self.players not in (3, 4):
            why = f"true cycles are grown for 3 or 4 seats, not {self.players}"
            raise OptionValueError("players", why)


def stream_states(options: TrueCyclesOptions) -> list[dict]:
    """Every stream's first state: a hunt with nothing found, seeded apart."""
    from bmn.search.cycles.true_run import TrueRunState

    return [
        TrueRunState(options.players, seed=options.seed * 1000 + w).as_dict()
        for w in range(options.workers)
    ]


# A stream's state as true_work returns it and the checkpoint keeps it, as its restore checks
# it (StoreDamaged): TrueRunState.as_dict (bmn.search.cycles.true_run).
TRUE_STREAM = exactly("seats", "seed", "chunks", "found", "beam", "jumps", "grow_from")(
    record(
        seats=whole(3, 4),
        seed=whole(),
        chunks=whole(),
        found=items(A_DEAL),
        beam=whole(1, 10**6),
        jumps=whole(0, 10**9),
        grow_from=whole(0, 10**6),
    )
)


def true_work(
    stream: int, chunk: int, state: dict, options: TrueCyclesOptions, iterations: int
) -> tuple[dict, list[str], int]:
    """`iterations` chunks of one stream's hunt (see bmn.search.backends.base): the new
    state, a deal on each cycle new to the stream, the chunks done. `state` is left as it is."""
    from bmn.search.cycles.true_run import TrueRunState, true_chunk

    hunt = TrueRunState.from_dict(json.loads(json.dumps(state)))
    found: list[str] = []
    for _ in range(iterations):
        found += [cycle.text() for cycle in true_chunk(hunt, options.chunk_seconds)]
    return hunt.as_dict(), found, iterations


def warm_true() -> None:
    """Compile (or load from the cache) the N-seat kernel the hunt scores states with."""
    from bmn.kernels.api import score_deals

    score_deals(["J--/-J-/-J-", "-J-/-J-/-J-/-J-"])


def deck_cards(deck: str) -> int:
    """The cards of a stored deck's counts: 40 for '36,2,1,0,1'."""
    return sum(int(n) for n in deck.split(","))


def composition(deck: str) -> str:
    """'36 numerals, 2 J, 1 Q, 0 K, 1 A' from stored counts '36,2,1,0,1'."""
    counts = deck.split(",")
    return f"{counts[0]} numerals, " + ", ".join(
        f"{n} {name}" for n, name in zip(counts[1:], "JQKA", strict=True)
    )


@dataclass
class TrueCyclesProgress(CyclesProgress):
    """What the display shows of a true-cycle run."""

    command = "bmn search --objective grow"

    players: int = 3
    largest: str = "-"  # the largest so far: its cards and composition

    def title(self) -> str:
        return f"{self.command} --players {self.players}, run {self.run}"

    def setting(self) -> str:
        return f"true cycles of {self.players} seats, {counted(self.workers, 'stream')}"

    def rows(self) -> list[tuple[str, str]]:
        return [
            *self.opening_rows(("hunt", f"{self.setting()}, seed {self.seed}"), backend=False),
            ("chunks", f"{self.games:,}"),
            self.cycles_row(),
            ("largest", self.largest),
        ]

    def line(self) -> str:
        return (
            f"{self.line_opening('chunk')}, {self.found(counted(self.cycles, 'true cycle'))},"
            f" largest {self.largest}"
        )


@dataclass
class TrueCyclesSummary:
    run: int
    status: str
    games: int
    seconds: float
    seed: int
    players: int
    cycles: int
    new_cycles: int
    largest_cards: int | None
    largest_deal: str | None
    store: str = DEFAULT_PATH

    def text(self) -> str:
        largest = (
            "none found"
            if self.largest_deal is None
            else f"the largest {self.largest_cards} cards:\n  {self.largest_deal}"
        )
        return (
            f"run {self.run} ({self.status}): {counted(self.games, 'chunk')} in"
            f" {self.seconds:,.1f} s; seed {self.seed}\n"
            f"{counted(self.cycles, 'true cycle')} of {self.players} seats"
            f" ({self.new_cycles:,} new to the store), {largest}\n"
            f"list them with:\n  bmn records loops --players {self.players}"
            + store_option(self.store)
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "status": self.status,
            "games": self.games,
            "seconds": self.seconds,
            "players": self.players,
            "true_cycles": self.cycles,
            "new_cycles": self.new_cycles,
            "largest_cards": self.largest_cards,
            "largest_deal": self.largest_deal,
        }


class TrueCyclesJob(CycleStreamsJob):
    """One true-cycle run: its streams are independent hunts, a chunk each at a time; every
    COMMIT_SECONDS the new cycles, every stream's state (one checkpoint) and the run's totals
    are committed in one transaction."""

    kind = "true-cycles"
    options_type = TrueCyclesOptions
    work = staticmethod(true_work)
    stream_shape = staticmethod(TRUE_STREAM)
    warm = staticmethod(warm_true)

    def __init__(self, run: RunContext, options: TrueCyclesOptions):
        super().__init__(run, options)  # its pending cycles are keyed seat-aware
        self.found: dict[str, Loop] = {}  # the run's cycles by key

    def restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        self.states = self.saved_streams(checkpoints, stream_states)
        for row in self.store.loops(self.run_id):
            self.found[row.key] = row
        self.new_cycles = len(self.found)

    def new_progress(self) -> TrueCyclesProgress:
        p = TrueCyclesProgress(self.run_id, players=self.options.players)
        self._tally(p)
        return p

    def _tally(self, p: TrueCyclesProgress) -> None:
        p.cycles, p.new_cycles = len(self.found), self.new_cycles
        largest = self._largest()
        if largest is not None:
            p.largest = f"{deck_cards(largest.deck)} cards ({composition(largest.deck)})"

    def _largest(self) -> Loop | None:
        rows = self.found.values()
        return max(rows, key=lambda row: deck_cards(row.deck)) if rows else None

    def chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        """One chunk; none once the time left is under half a chunk, or the stream's share of
        --iterations is done (a chunk is timed: --time is kept within half a chunk)."""
        o, left = self.options, self.seconds_left()
        if left is not None and left < o.chunk_seconds / 2:
            return 0
        share = stream_quota(o.iterations, o.workers, stream)
        return 1 if share is None else max(min(1, share - planned), 0)

    def absorb(self, result: Result) -> None:
        """A chunk's cycles, counted under their keys; a new one summarised once by backward
        play toward an even deal (a key is found by playing forward, which is cheap: two
        streams that meet one cycle summarise it once)."""
        self.states[result.stream] = result.state
        for text in result.finds:
            deal = parse_deal(text)
            key = analyse(deal).key
            if key is None:  # a chunk returns deals that loop: a bug, said as one
                raise ValueError(f"{text} does not loop")
            known = self.found.get(key)  # a cycle met before (restored rows are Loops too)
            if known is None:
                known = self.found[key] = loop_record(new_cycle(deal, self.options.basin_states))
            self.count(key, known)

    def summary(self, status: str, seconds: float) -> TrueCyclesSummary:
        p, largest = self.progress, self._largest()
        cards = None if largest is None else deck_cards(largest.deck)
        return TrueCyclesSummary(
            self.run_id,
            status,
            self.games,
            seconds,
            self.options.seed,
            self.options.players,
            p.cycles,
            p.new_cycles,
            cards,
            None if largest is None else largest.example_deal,
            str(self.store.path),
        )
