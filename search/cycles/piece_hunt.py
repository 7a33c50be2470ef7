"""A piece hunt, chunk by chunk: closed pieces in, standard-deck cycles and their best deals out.

Each chunk samples pieces for one control (bmn.search.cycles.pieces), adds the closed ones to the
library, assembles a few deals on the target deck from the library, and plays each one's cycle
backwards (bmn.kernels.cycles.balance) for the most balanced starting deal. `HuntState` holds
everything a chunk depends on (both generator states, the library in the order it grew, the
cycles found) and round-trips through JSON, so a run loop can checkpoint after any chunk and a
resumed hunt continues exactly.

Pieces found by random descent never let the small hand grow to what an even deal needs (the
published cycle's long piece does), so a hunt may start from known cycles (`known_pieces`: the
pieces of the published cycle, say): its library then holds their pieces from the first chunk,
and every other deal it assembles is built around one of them (an *anchor*), the rest of the
deck filled from the library. The published pieces alone assemble into exactly four cycles:
the published one and the same three pieces in another cyclic order or phase. What hunts
found, measured: docs/endless-games.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from bmn.kernels.cycles.balance import Splits, basin_splits
from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import Deal, format_deal, format_hand, parse_hand
from bmn.kernels.rng import seed_state
from bmn.search.cycles.pieces import (
    STANDARD_COUNTS,
    Control,
    Library,
    assemble,
    assemble_with,
    pieces_of,
    sample_pieces,
)
from bmn.search.cycles.pieces import sums_reachable as _sums


@dataclass
class HuntOptions:
    """What defines a piece hunt (with the seed in HuntState, all a chunk depends on)."""

    small: str = "J-"
    small_leads: bool = False
    tail: str = "-"
    deck: tuple[int, ...] = STANDARD_COUNTS
    numeral_weights: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9)
    tries: int = 200_000  # random descents per chunk, shared among the weights
    min_len: int = 4
    deals: int = 8  # deals assembled per chunk
    basin_states: int = 100_000

    def control(self) -> Control:
        return Control.parse(self.small, self.small_leads, self.tail)


@dataclass(frozen=True)
class HuntFind:
    """A cycle: its seat-blind key, period, the assembled deal on it, the most balanced
    starting deal reaching it (SplitFind.as_dict) and what the basin search covered."""

    key: str
    period_cards: int
    period_tricks: int
    cycle_deal: str
    best: dict
    balanced: bool
    basin_states: int
    basin_complete: bool
    balanced_deals: int = 0  # even starting deals (seat 0 to lead) into the cycle itself
    mirrored_balanced_deals: int = 0  # into the cycle with the seats swapped


@dataclass
class HuntState:
    """A hunt between chunks; `as_json`/`from_json` round-trip it."""

    descents: np.ndarray  # the xoshiro state sampling draws from
    rng: dict  # numpy generator state for assembling deals
    pieces: list[bytes] = field(default_factory=list)  # the library, in the order it grew
    cycles: dict[str, HuntFind] = field(default_factory=dict)
    chunks: int = 0
    assembled: int = 0
    anchors: list[bytes] = field(default_factory=list)  # known pieces every other deal holds

    @classmethod
    def start(cls, seed: int, known: list[bytes] | None = None) -> HuntState:
        """A fresh hunt; with `known` pieces (known_pieces' answer) in its library and as its
        anchors."""
        state = cls(seed_state(seed), np.random.default_rng(seed).bit_generator.state)
        state.pieces, state.anchors = list(known or []), list(known or [])
        return state

    def as_json(self) -> dict:
        return {
            "descents": [int(v) for v in self.descents],
            "rng": self.rng,
            "pieces": [format_hand(p) for p in self.pieces],
            "cycles": [asdict(c) for c in self.cycles.values()],
            "chunks": self.chunks,
            "assembled": self.assembled,
            "anchors": [format_hand(p) for p in self.anchors],
        }

    @classmethod
    def from_json(cls, d: dict) -> HuntState:
        return cls(
            np.array(d["descents"], dtype=np.uint64),
            d["rng"],
            [bytes(parse_hand(p)) for p in d["pieces"]],
            {c["key"]: HuntFind(**c) for c in d["cycles"]},
            d["chunks"],
            d["assembled"],
            [bytes(parse_hand(p)) for p in d.get("anchors", [])],
        )


@dataclass
class HuntReport:
    """What one chunk did: closed pieces added, deals assembled, the new cycles."""

    pieces: int = 0
    assembled: int = 0
    new: list[HuntFind] = field(default_factory=list)


_FAILED: dict[Control, set[bytes]] = {}  # pieces known not to be closed: saves time only


def hunt_chunk(state: HuntState, options: HuntOptions) -> HuntReport:
    """Sample pieces, grow the library, assemble and judge `options.deals` deals. Updates
    `state` in place."""
    library = Library(options.control(), state.pieces)
    library.failed = _FAILED.setdefault(library.control, set())
    if len(library.failed) > 2_000_000:
        library.failed.clear()
    report = HuntReport()
    before = len(library.ordered)
    for p in options.numeral_weights:
        weights = [p] + [(1 - p) / 4] * 4
        tries = options.tries // len(options.numeral_weights)
        found = sample_pieces(library.control, state.descents, weights, tries, options.min_len)
        for word in sorted(set(found)):  # sorted: set order varies from one process to another
            library.offer(word)
    report.pieces = len(library.ordered) - before
    state.pieces = list(library.ordered)
    target = library.target(options.deck)
    reach = _sums(library.by_counts, target)
    rng = np.random.default_rng()
    rng.bit_generator.state = state.rng
    for k in range(options.deals if target in reach else 0):
        pieces = None
        if state.anchors and k % 2 == 0:
            anchor = state.anchors[int(rng.integers(len(state.anchors)))]
            pieces = assemble_with(library, anchor, target, rng, reach)
        if pieces is None:
            pieces = assemble(library, target, rng, reach)
        deal = library.control.deal(pieces)
        report.assembled += 1
        if analyse(deal).rotation_key in state.cycles:  # known: skip the backward search
            continue
        find = judge(deal, options.basin_states)
        state.cycles[find.key] = find
        report.new.append(find)
    state.rng = rng.bit_generator.state
    state.assembled += report.assembled
    state.chunks += 1
    return report


def judge(deal, basin_states: int = 100_000) -> HuntFind:
    """A looping deal's cycle and the most balanced starting deal that reaches it."""
    splits = basin_splits(deal, basin_states)
    best = splits.most_balanced()
    return HuntFind(
        splits.key,
        splits.period_cards,
        splits.period_tricks,
        format_deal(deal),
        {} if best is None else best.as_dict(),
        splits.balanced(),
        splits.states,
        splits.complete,
        _even_count(splits, deal, False),
        _even_count(splits, deal, True),
    )


def _even_count(splits: Splits, deal: Deal, mirrored: bool) -> int:
    """How many even starting deals (seat 0 first) reach the cycle, or its mirror image."""
    total = sum(len(h) for h in deal)
    found = splits.by_sizes.get((((total + 1) // 2, total // 2), mirrored))
    return 0 if found is None else found.count


def known_pieces(control: Control, deals: list[Deal]) -> list[bytes]:
    """The closed pieces of the cycles these looping deals fall into, for this control, with
    everything they turn into (their orbits), in a fixed order: a hunt's library to start
    from. Deals whose cycle does not pass through the control state add nothing."""
    library = Library(control)
    for deal in deals:
        for word in pieces_of(control, deal) or []:
            library.offer(word)
    return list(library.ordered)
