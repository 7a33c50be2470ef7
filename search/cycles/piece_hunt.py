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

from bmn.kernels.cycles.balance import SplitFind, Splits, basin_splits
from bmn.kernels.cycles.loops import LOOP, analyse
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
    hand_sizes: tuple[int, int] | None = None  # the starting split sought; None: even
    # Further controls as Control specs ('--J-/big/-'), control 0 being the one above, each with
    # its own library; HuntState.next_control says which one a chunk works on.
    controls: tuple[str, ...] = ()
    numeral_weights: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9)
    tries: int = 200_000  # random descents per chunk, shared among the weights
    min_len: int = 1  # every piece: the Italian deck's 33-trick cycles need `--J` (3 cards)
    deals: int = 8  # deals assembled per chunk
    basin_states: int = 100_000
    rules: str = "bmn"  # the rule set each assembled deal is played under (kernels/rules/sets.py)

    def control(self) -> Control:
        return Control.parse(self.small, self.small_leads, self.tail)

    def all_controls(self) -> list[Control]:
        return [self.control()] + [Control.from_spec(spec) for spec in self.controls]

    def sizes(self) -> tuple[int, int]:
        """The hand sizes a most balanced starting deal is measured against."""
        if self.hand_sizes is not None:
            return (int(self.hand_sizes[0]), int(self.hand_sizes[1]))
        total = sum(self.deck)
        return ((total + 1) // 2, total // 2)


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
    # The libraries and anchors of the further controls (HuntOptions.controls), in their order.
    extra_pieces: list[list[bytes]] = field(default_factory=list)
    extra_anchors: list[list[bytes]] = field(default_factory=list)
    visits: list[int] = field(default_factory=list)  # chunks spent on each control, by index
    dealt: list[int] = field(default_factory=list)  # deals each control assembled

    @classmethod
    def start(
        cls, seed: int, known: list[bytes] | None = None, extra: list[list[bytes]] | None = None
    ) -> HuntState:
        """A fresh hunt; with `known` pieces (known_pieces' answer) in its library and as its
        anchors, and `extra` such lists for the further controls."""
        state = cls(seed_state(seed), np.random.default_rng(seed).bit_generator.state)
        state.pieces, state.anchors = list(known or []), list(known or [])
        state.extra_pieces = [list(k) for k in extra or []]
        state.extra_anchors = [list(k) for k in extra or []]
        return state

    def library(self, index: int) -> tuple[list[bytes], list[bytes]]:
        """Control `index`'s pieces and anchors (0: the first control's)."""
        if index == 0:
            return self.pieces, self.anchors
        while len(self.extra_pieces) < index:
            self.extra_pieces.append([])
            self.extra_anchors.append([])
        return self.extra_pieces[index - 1], self.extra_anchors[index - 1]

    def next_control(self, controls: int) -> int:
        """The control this chunk works on: the one with the fewest visits weighted by what its
        visits gave (pieces.controls_for offers every control that fits the deck, and most
        close no piece: 54 of the Italian deck's 60 in a 3-minute run, which in turns would
        have taken 59 chunks in 60). A control that assembled deals counts its visits once, one
        with closed pieces but no deal yet SPARSE times, one still without a piece after PROBE
        visits IDLE times; the lowest index on a tie."""
        while len(self.visits) < controls:
            self.visits.append(0)
            self.dealt.append(0)

        def weight(index: int) -> tuple[int, int]:
            visits = self.visits[index]
            if self.dealt[index] or visits < PROBE:
                return (visits, index)
            return (visits * (SPARSE if self.library(index)[0] else IDLE), index)

        return min(range(controls), key=weight)

    def set_pieces(self, index: int, pieces: list[bytes]) -> None:
        if index == 0:
            self.pieces = pieces
        else:
            self.library(index)
            self.extra_pieces[index - 1] = pieces

    def as_json(self) -> dict:
        return {
            "descents": [int(v) for v in self.descents],
            "rng": self.rng,
            "pieces": [format_hand(p) for p in self.pieces],
            "cycles": [asdict(c) for c in self.cycles.values()],
            "chunks": self.chunks,
            "assembled": self.assembled,
            "anchors": [format_hand(p) for p in self.anchors],
            **_extra("extra_pieces", self.extra_pieces),
            **_extra("extra_anchors", self.extra_anchors),
            **({"visits": self.visits, "dealt": self.dealt} if len(self.visits) > 1 else {}),
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
            [[bytes(parse_hand(p)) for p in k] for k in d.get("extra_pieces", [])],
            [[bytes(parse_hand(p)) for p in k] for k in d.get("extra_anchors", [])],
            list(d.get("visits", [])),
            list(d.get("dealt", [])),
        )


def _extra(name: str, lists: list[list[bytes]]) -> dict:
    """A further controls' field for JSON; none when the hunt has one control (as before)."""
    return {name: [[format_hand(p) for p in k] for k in lists]} if lists else {}


@dataclass
class HuntReport:
    """What one chunk did: closed pieces added, deals assembled, the new cycles."""

    pieces: int = 0
    assembled: int = 0
    new: list[HuntFind] = field(default_factory=list)


# Visits before a control is judged, and how much rarer one that assembled no deal (SPARSE) or
# closed no piece (IDLE) is visited than one that assembles deals.
PROBE, SPARSE, IDLE = 1, 8, 64
_FAILED: dict[Control, set[bytes]] = {}  # pieces known not to be closed: saves time only


def hunt_chunk(state: HuntState, options: HuntOptions) -> HuntReport:
    """Sample pieces for this chunk's control, grow its library, assemble and judge
    `options.deals` deals. Updates `state` in place."""
    controls = options.all_controls()
    index = state.next_control(len(controls))
    state.visits[index] += 1
    pieces, anchors = state.library(index)
    library = Library(controls[index], pieces)
    library.failed = _FAILED.setdefault(library.control, set())
    if len(library.failed) > 2_000_000:
        library.failed.clear()
    report = HuntReport()
    before = len(library.ordered)
    room = sum(library.target(options.deck))  # no piece is longer than the cards it must fill
    limits = (max(min(48, room), 1), min(40, sum(options.deck)))  # max_len, max_small
    for p in options.numeral_weights:
        weights = descent_weights(p, options.deck)
        tries = options.tries // len(options.numeral_weights)
        found = sample_pieces(
            library.control, state.descents, weights, tries, options.min_len, *limits
        )
        for word in sorted(set(found)):  # sorted: set order varies from one process to another
            library.offer(word)
    report.pieces = len(library.ordered) - before
    state.set_pieces(index, list(library.ordered))
    target = library.target(options.deck)
    reach = _sums(library.by_counts, target) if min(target) >= 0 else set()
    rng = np.random.default_rng()
    rng.bit_generator.state = state.rng
    for k in range(options.deals if target in reach else 0):
        pieces = None
        if anchors and k % 2 == 0:
            anchor = anchors[int(rng.integers(len(anchors)))]
            pieces = assemble_with(library, anchor, target, rng, reach)
        if pieces is None:
            pieces = assemble(library, target, rng, reach)
        deal = library.control.deal(pieces)
        report.assembled += 1
        loop = analyse(deal, rules=options.rules)  # closed pieces loop under bmn's rules only
        if loop.status != LOOP or loop.rotation_key in state.cycles:  # known: skip it
            continue
        find = judge(deal, options.basin_states, options.sizes(), options.rules)
        state.cycles[find.key] = find
        report.new.append(find)
    state.rng = rng.bit_generator.state
    state.assembled += report.assembled
    state.dealt[index] += report.assembled
    state.chunks += 1
    return report


def descent_weights(numerals: float, deck: tuple[int, ...]) -> list[float]:
    """Weights of numeral, J, Q, K, A for a descent: `numerals` for a numeral, the rest shared
    among the court cards as the deck holds them (a quarter each on the standard deck)."""
    courts = sum(deck[1:])
    return [numerals] + [(1 - numerals) * n / courts if courts else 0.0 for n in deck[1:]]


def judge(
    deal, basin_states: int = 100_000, sizes: tuple[int, int] | None = None, rules: str = "bmn"
) -> HuntFind:
    """A looping deal's cycle under `rules` and the starting deal that reaches it with hand
    sizes nearest `sizes` (default: even, seat 0 first when the cards are odd)."""
    splits = basin_splits(deal, basin_states, rules)
    if sizes is None:
        total = sum(len(h) for h in deal)
        sizes = ((total + 1) // 2, total // 2)
    best = nearest(splits, sizes)
    return HuntFind(
        splits.key,
        splits.period_cards,
        splits.period_tricks,
        format_deal(deal),
        {} if best is None else best.as_dict(),
        best is not None and best.sizes == tuple(sizes),
        splits.states,
        splits.complete,
        _count_at(splits, sizes, False),
        _count_at(splits, sizes, True),
    )


def nearest(splits: Splits, sizes: tuple[int, int]) -> SplitFind | None:
    """The starting deal with hand sizes nearest `sizes`, into the cycle itself before one
    into its mirror image (for even sizes, Splits.most_balanced's choice)."""
    if not splits.by_sizes:
        return None

    def rank(found: SplitFind) -> tuple:
        return (abs(found.sizes[0] - sizes[0]), found.sizes != tuple(sizes), found.mirrored)

    return min(splits.by_sizes.values(), key=rank)


def _count_at(splits: Splits, sizes: tuple[int, int], mirrored: bool) -> int:
    """How many starting deals of these hand sizes (seat 0 first) reach the cycle, or its
    mirror image."""
    found = splits.by_sizes.get(((int(sizes[0]), int(sizes[1])), mirrored))
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
