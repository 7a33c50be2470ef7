"""Growing cycles of a deck: the runner behind `bmn search --objective grow`.

A grow run is a piece hunt (bmn.search.cycles.piece_hunt) held by the run loop
(bmn.search.runs.loop), the loop hunt's sibling. Each stream is one hunt; its chunk is one
*round*: random descents for closed pieces (bmn.search.cycles.pieces) added to the library, then a
few deals of the deck (`--deck`, the standard one by default) assembled from the library and
played; a deal that falls into a cycle the stream has not seen is played backwards
(bmn.kernels.cycles.balance) to its most balanced starting deal: the one with hand sizes nearest
`--hand-sizes` (even by default). `--iterations` counts rounds. On the standard deck a hunt works
on the published cycle's control (`J-`, the big hand to lead); on any other deck its rounds go
over every control the deck holds (pieces.controls_for), each with its own library, most often to
those that assembled deals (piece_hunt.HuntState.next_control).

Two ways to start (`--grow-from`):
- `known` (the default): the library starts with the pieces of known cycles (the published
  cycle and the store's standard-deck cycles, fixed when the run is made and kept with it), and
  every other deal is built around one of them. The published pieces alone make four 62-trick
  cycles: the published one and three more, all with 26/26 starting deals, found in the first
  round.
- `descent`: the library starts empty: cycles grown from nothing but random descents (no even
  starting deal so far: docs/endless-games.md).

A stream's state between chunks is its HuntState as JSON, the checkpoint blob too (every
stream's in one blob, committed together), so a resumed run continues exactly. Every cycle is
stored once in the loops table under its seat-blind key (`rotation_key`), with the seat-aware
key of the cycle its stored deal enters (`key`), that deal (`example_deal`: the most balanced
starting deal found) and the deal as assembled (`first_deal`; with several streams, that of
the stream whose round was committed first: everything else a seeded run stores is the same
however it was cut or interrupted).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import Deal, DealError, parse_deal
from bmn.kernels.decks import (
    STANDARD_COUNTS,
    STANDARD_COUNTS_TEXT,
    DeckInputError,
    counts_of,
    counts_text,
    even_sizes,
    parse_deck,
)
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.records.store import DEFAULT_PATH, Loop, Store
from bmn.records.store.saved import (
    A_DEAL,
    CYCLE_KEY,
    HAND,
    RNG,
    U64,
    exactly,
    flag,
    items,
    record,
    whole,
)
from bmn.search.backends.base import Backend, Result
from bmn.search.cycles.piece_hunt import HuntFind, HuntOptions, HuntState, hunt_chunk, known_pieces
from bmn.search.cycles.pieces import PUBLISHED_CONTROL, Control, controls_for
from bmn.search.runs.chunks import stream_quota
from bmn.search.runs.job import OptionValueError, RunContext, rules_for
from bmn.search.runs.kinds.cycle_streams import CycleStreamsJob
from bmn.search.runs.progress import CyclesProgress
from bmn.search.runs.said import rules_option, store_option
from bmn.search.runs.settings import GROW_FROM, default_of
from bmn.search.words import counted

STANDARD_DECK = STANDARD_COUNTS_TEXT
GROW_BASIN_STATES = default_of("basin_states", "grow")
TRIES = 200_000  # random descents per round: about a third of a second on one core
DEALS = 8  # deals assembled per round


@dataclass
class GrowOptions:
    """Everything that defines a grow run; stored with it so `--resume` needs nothing else."""

    strategy: ClassVar[None] = None  # it has none: --objective grow selects the kind
    objective: ClassVar[str] = "grow"
    seconds: float | None = None
    iterations: int | None = None  # rounds
    workers: int = default_of("workers", "grow")
    seed: int = 0
    grow_from: str = default_of("grow_from", "grow")
    basin_states: int = GROW_BASIN_STATES
    tries: int = TRIES
    deals: int = DEALS
    known: list[str] = field(default_factory=list)  # deals of the cycles the library starts from
    deck: str = "standard"  # 'standard' or counts N,J,Q,K,A
    hand_sizes: tuple[int, ...] | None = None  # the split sought (seat 0 first); None: even
    controls: list[str] = field(default_factory=list)  # Control specs, filled in from the deck
    rules: str = DEFAULT_RULES  # the rule set it plays (kernels/rules/sets.py); before: bmn's

    def __post_init__(self) -> None:
        self.rules = rules_for(self.rules, 2)
        if self.grow_from not in GROW_FROM:
            why = f"grow from one of {', '.join(GROW_FROM)}, not {self.grow_from!r}"
            raise OptionValueError("grow_from", why)
        counts, self.hand_sizes = check_grow_input(self.deck, self.hand_sizes)
        self.deck = "standard" if counts == STANDARD_COUNTS else counts_text(counts)
        self.known = [d for d in self.known if deal_counts(d) == counts]
        if not self.controls:
            if counts == STANDARD_COUNTS:
                self.controls = [PUBLISHED_CONTROL]
            else:
                self.controls = controls_for(counts)
        if not self.controls:
            raise DeckInputError(
                "deck", f"the deck {self.deck} holds no control state to grow cycles from"
            )

    @property
    def counts(self) -> tuple[int, ...]:
        return parse_deck(self.deck)

    def hunt(self) -> HuntOptions:
        first = Control.from_spec(self.controls[0])
        return HuntOptions(
            small=first.spec().split("/")[0],
            small_leads=first.small_leads,
            tail=first.spec().split("/")[2],
            deck=self.counts,
            hand_sizes=self.hand_sizes,
            controls=tuple(self.controls[1:]),
            tries=self.tries,
            deals=self.deals,
            basin_states=self.basin_states,
            rules=self.rules,
        )


def check_grow_input(deck: str, sizes) -> tuple[tuple[int, ...], tuple[int, int]]:
    """A grow run's deck counts and hand sizes: 'standard' or counts N,J,Q,K,A with a court
    card, 4 to 64 cards, dealt into two hands (even by default, seat 0 first);
    DeckInputError naming the option otherwise."""
    try:
        counts = parse_deck(deck)
    except DealError as err:
        raise DeckInputError("deck", str(err)) from None
    if not 4 <= sum(counts) <= 64 or sum(counts[1:]) == 0:
        raise DeckInputError(
            "deck",
            f"{deck!r}: a grow run takes a deck of 4 to 64 cards with a court card"
            " ('standard' or counts N,J,Q,K,A, like 14,2,2,2,0)",
        )
    total = sum(counts)
    pair = even_sizes(total, 2) if sizes is None else tuple(int(n) for n in sizes)
    if len(pair) != 2 or min(pair) < 1 or sum(pair) != total:
        raise DeckInputError(
            "hand_sizes",
            f"hand sizes {','.join(map(str, pair))}: a grow run deals two hands that add up"
            f" to the deck's {total} cards",
        )
    return counts, (pair[0], pair[1])


def deal_counts(deal: str) -> tuple[int, ...]:
    return counts_of(v for hand in parse_deal(deal) for v in hand)


def known_deals(db: Store, deck: str | None = None, rules: str = DEFAULT_RULES) -> list[str]:
    """Deals of the known cycles of a deck (counts text; None: of every deck, which a grow
    run's options keep only those of its deck of): the published looping games (standard
    deck) first, then the store's cycles under `rules` in the order found."""
    from bmn.records.published import published_games

    deck = STANDARD_DECK if deck == "standard" else deck
    deals = []
    if deck in (STANDARD_DECK, None):
        deals = [game.deal for game in published_games() if game.status == "loop"]
    stored = db.loops(rules=rules)
    return deals + [row.example_deal for row in stored if deck in (row.deck, None)]


def stream_seed(seed: int, stream: int) -> int:
    """Stream w's own seed: independent hunts from one run seed."""
    return int(np.random.SeedSequence([seed, stream]).generate_state(1, np.uint64)[0] >> 1)


def start_states(options: GrowOptions) -> list[dict]:
    """Every stream's first state: a fresh hunt, its library holding the known pieces."""
    deals: list[Deal] = [parse_deal(d) for d in options.known]
    controls = options.hunt().all_controls()
    known = [known_pieces(c, deals) if deals else [] for c in controls]
    return [
        HuntState.start(stream_seed(options.seed, w), known[0], known[1:]).as_json()
        for w in range(options.workers)
    ]


# A stream's state as grow_work returns it and the checkpoint keeps it, as its restore checks
# it (StoreDamaged): HuntState.as_json (bmn.search.cycles.piece_hunt), its finds HuntFind's.
_HUNT_FIND = exactly(
    "key",
    "period_cards",
    "period_tricks",
    "cycle_deal",
    "best",
    "balanced",
    "basin_states",
    "basin_complete",
    "balanced_deals",
    "mirrored_balanced_deals",
)(
    record(
        key=CYCLE_KEY,
        period_cards=whole(),
        period_tricks=whole(),
        cycle_deal=A_DEAL,
        best=record(
            optional={
                "sizes": items(whole(0, 52), 2),
                "deal": A_DEAL,
                "pre_tricks": whole(),
                "pre_cards": whole(),
                "mirrored": flag,
                "count": whole(),
            }
        ),
        balanced=flag,
        basin_states=whole(),
        basin_complete=flag,
        optional={"balanced_deals": whole(), "mirrored_balanced_deals": whole()},
    )
)
GROW_STREAM = record(
    descents=items(whole(0, U64), 4),
    rng=RNG,
    pieces=items(HAND),
    cycles=items(_HUNT_FIND),
    chunks=whole(),
    assembled=whole(),
    optional={
        "anchors": items(HAND),
        "extra_pieces": items(items(HAND)),
        "extra_anchors": items(items(HAND)),
    },
)


def grow_work(
    stream: int, chunk: int, state: dict, options: GrowOptions, iterations: int
) -> tuple[dict, list[HuntFind], int]:
    """`iterations` rounds of one stream's hunt (see bmn.search.backends.base): the new state, the
    cycles new to the stream, and the rounds done. The state given is left untouched."""
    hunt = HuntState.from_json(state)
    finds: list[HuntFind] = []
    for _ in range(iterations):
        finds += hunt_chunk(hunt, options.hunt()).new
    return hunt.as_json(), finds, iterations


def warm_grow() -> None:
    """Compile (or load from cache) the descent kernel before the clock starts."""
    from bmn.kernels.rng import seed_state
    from bmn.search.cycles.pieces import Control, sample_pieces

    sample_pieces(Control.parse("J-", False, "-"), seed_state(0), [0.5] + [0.125] * 4, 10)


def loop_record(find: HuntFind, rules: str = DEFAULT_RULES) -> Loop:
    """A cycle as the store keeps it: under the seat-aware key of the cycle its most balanced
    starting deal enters under `rules` (that deal falling into the cycle with the seats
    swapped names the mirror image, and its even-deal counts swap with it)."""
    deal = find.best.get("deal", find.cycle_deal)
    loop = analyse(parse_deal(deal), rules=rules)
    exact, mirror = find.balanced_deals, find.mirrored_balanced_deals
    if find.best.get("mirrored"):
        exact, mirror = mirror, exact
    cards = [v for hand in parse_deal(find.cycle_deal) for v in hand]
    return Loop(
        key=loop.key or "",
        rotation_key=find.key,
        deck=",".join(str(cards.count(v)) for v in range(5)),
        period_cards=find.period_cards,
        period_tricks=find.period_tricks,
        cycle_states=find.period_tricks,
        balanced_states=len(loop.balanced_states),
        balanced_deals=exact,
        mirrored_balanced_deals=mirror,
        basin_states=find.basin_states,
        basin_complete=find.basin_complete,
        example_deal=deal,
        first_deal=find.cycle_deal,
        rules=rules,
    )


def sizes_text(options: GrowOptions) -> str:
    return "/".join(str(n) for n in options.hand_sizes)


def split_text(best: dict) -> str:
    """A best deal's hand sizes: '26/26', or '31/21 mirrored' for a deal into the cycle with
    the seats swapped."""
    sizes = best.get("sizes") or [0, 0]
    return f"{sizes[0]}/{sizes[1]}" + (" mirrored" if best.get("mirrored") else "")


def imbalance(best: dict, target: tuple[int, int] | None = None) -> tuple[int, bool]:
    """How far a best deal is from the hand sizes sought (even by default; a mirrored deal a
    little farther)."""
    sizes = best.get("sizes") or [0, 10**6]
    if target is None:
        return abs(sizes[0] - sizes[1]), bool(best.get("mirrored"))
    return abs(sizes[0] - target[0]), bool(best.get("mirrored"))


def cycles_of(deck: str, n: int, adjective: str = "") -> str:
    """A count of a run's cycles: '3 standard-deck cycles', '1 distinct cycle of the deck
    14,2,2,2,0' (with the adjective 'distinct ')."""
    cycles = "cycle" if n == 1 else "cycles"
    if deck == "standard":
        return f"{n:,} {adjective}standard-deck {cycles}"
    return f"{n:,} {adjective}{cycles} of the deck {deck}"


@dataclass
class GrowProgress(CyclesProgress):
    """What the display shows; updated after every commit."""

    grow_from: str = default_of("grow_from", "grow")
    pieces: int = 0
    assembled: int = 0
    balanced: int = 0
    best_split: str = "-"
    last: str = ""
    deck: str = "standard"
    sizes: str = "26/26"
    rules: str = DEFAULT_RULES

    command = "bmn search --objective grow"

    def setting(self) -> str:
        rules = f", rules {self.rules}" if self.rules != DEFAULT_RULES else ""
        streams = counted(self.workers, "stream")
        return f"from {self.grow_from} pieces, {streams}{rules}, seed {self.seed}"

    def rows(self) -> list[tuple[str, str]]:
        return [
            *self.opening_rows(("hunt", self.setting()), backend=False),
            ("rounds", f"{self.games:,}"),
            ("rounds/s", f"{self.rate:,.2f}"),
            ("closed pieces", f"{self.pieces:,}"),
            ("deals assembled", f"{self.assembled:,}"),
            self.cycles_row(),
            ("deck", self.deck),
            ("balanced", f"{self.balanced} reached from a {self.sizes} deal"),
            ("most balanced", self.best_split),
            ("last new", self.last),
        ]

    def line(self) -> str:
        return (
            f"{self.line_opening('round')}, {counted(self.pieces, 'closed piece')}, "
            f"{self.found(cycles_of(self.deck, self.cycles))}, {self.balanced} balanced"
            + ("" if self.best_split == "-" else f", most balanced {self.best_split}")
        )


@dataclass
class GrowSummary:
    run: int
    status: str
    games: int
    seconds: float
    seed: int
    grow_from: str
    cycles: int
    new_cycles: int
    balanced: int
    best_split: str
    store: str = DEFAULT_PATH
    deck: str = "standard"
    sizes: str = "26/26"
    rules: str = DEFAULT_RULES

    def text(self) -> str:
        listing = "bmn records loops" + (" --standard" if self.deck == "standard" else "")
        listing += rules_option(self.rules)
        rules = f", rules {self.rules}" if self.rules != DEFAULT_RULES else ""
        return (
            f"run {self.run} ({self.status}): {counted(self.games, 'round')} in "
            f"{self.seconds:,.1f} s; "
            f"seed {self.seed}, from {self.grow_from} pieces{rules}\n"
            f"{cycles_of(self.deck, self.cycles, 'distinct ')} "
            f"({self.new_cycles:,} new to the store), {self.balanced:,} "
            f"reached from a {self.sizes} deal{self._most_balanced()}; "
            f"list them with:\n  {listing}{store_option(self.store)}"
        )

    def _most_balanced(self) -> str:
        """', most balanced starting deal 26/26'; nothing before a cycle was found."""
        return "" if self.best_split == "-" else f", most balanced starting deal {self.best_split}"

    def as_dict(self) -> dict:
        return {
            "run": self.run,
            "status": self.status,
            "games": self.games,
            "seconds": self.seconds,
            "distinct_cycles": self.cycles,
            "new_cycles": self.new_cycles,
            "balanced_cycles": self.balanced,
            "most_balanced": None if self.best_split == "-" else self.best_split,
            "deck": self.deck,
            "hand_sizes": self.sizes,
        }


class GrowJob(CycleStreamsJob):
    """One grow run: start it new or resume it, then `run()` until done or stopped.

    One stream per worker, each a piece hunt advancing one round per chunk; every
    COMMIT_SECONDS the new cycles, every stream's state (one checkpoint) and the run's totals
    are committed in one transaction.
    """

    kind = "grow"
    options_type = GrowOptions
    work = staticmethod(grow_work)
    stream_shape = staticmethod(GROW_STREAM)
    warm = staticmethod(warm_grow)

    @classmethod
    def prepare(
        cls, options: GrowOptions, given: Collection[str], store: Store, backend: Backend | None
    ) -> None:
        """Its known cycles (--grow-from known): the published one and the store's."""
        if options.grow_from == "known":  # those of its deck, as its options keep them
            known = known_deals(store, rules=options.rules)
            options.known = [d for d in known if deal_counts(d) == options.counts]

    def __init__(self, run: RunContext, options: GrowOptions):
        super().__init__(run, options)  # its pending cycles are keyed seat-blind
        stored = run.store.loops(rules=options.rules)
        self.known: dict[str, Loop] = {row.rotation_key: row for row in stored}
        self._round_seconds = 0.0  # how long the latest round took, for streams yet to play one

    def restore(self, checkpoints: dict[int, tuple[bytes, int, float]]) -> None:
        self.states = self.saved_streams(checkpoints, start_states)
        self.new_cycles = len(self.store.loops(self.run_id))  # the cycles it found first

    def _cycles(self) -> dict[str, dict]:
        """The run's distinct cycles (seat-blind key -> the first stream's find)."""
        found: dict[str, dict] = {}
        for state in self.states:
            for find in state["cycles"]:
                found.setdefault(find["key"], find)
        return found

    def new_progress(self) -> GrowProgress:
        o = self.options
        p = GrowProgress(
            self.run_id, grow_from=o.grow_from, deck=o.deck, sizes=sizes_text(o), rules=o.rules
        )
        self._tally(p)
        return p

    def _tally(self, p: GrowProgress) -> None:
        cycles = self._cycles()
        p.pieces = sum(len(s["pieces"]) for s in self.states)
        p.assembled = sum(s["assembled"] for s in self.states)
        p.cycles, p.new_cycles = len(cycles), self.new_cycles
        p.balanced = sum(1 for f in cycles.values() if f["balanced"])
        if cycles:
            target = self.options.hand_sizes
            best = min((f["best"] for f in cycles.values()), key=lambda b: imbalance(b, target))
            p.best_split = split_text(best)

    def chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        """One round; none once the time is up or the stream's share of the rounds is done,
        nor one that would end more than half a round past the time (a round, seconds long,
        cannot be cut short: --time is kept within half a round)."""
        o, left = self.options, self.seconds_left()
        if left is not None:
            round_seconds = 1 / rate if rate else self._round_seconds
            if left <= 0 or left < round_seconds / 2:
                return 0
        share = stream_quota(o.iterations, o.workers, stream)
        return 1 if share is None else max(min(1, share - planned), 0)

    def absorb(self, result: Result) -> None:
        """A round's new cycles: stored once each under their seat-blind key."""
        self.states[result.stream] = result.state
        self._round_seconds = result.seconds / max(result.games, 1)  # any stream's last round
        for find in result.finds:
            record = self.known.get(find.key)
            if record is None:
                record = self.known[find.key] = loop_record(find, self.options.rules)
                self.progress.last = (
                    f"period {find.period_tricks} tricks, {split_text(find.best)}: {find.key}"
                )
            self.count(find.key, record)

    def summary(self, status: str, seconds: float) -> GrowSummary:
        p = self.progress
        return GrowSummary(
            self.run_id,
            status,
            self.games,
            seconds,
            self.options.seed,
            self.options.grow_from,
            p.cycles,
            p.new_cycles,
            p.balanced,
            p.best_split,
            str(self.store.path),
            self.options.deck,
            sizes_text(self.options),
            self.options.rules,
        )
