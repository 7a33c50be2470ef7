"""A dead end, kept for comparison: grow cycles by inserting cards into a cycle's states.

Nothing in `bmn` runs this: `bmn search --objective grow` builds cycles from closed pieces
(bmn.search.cycles.pieces and piece_hunt). It stays so that `python benchmarks/grow_bench.py`
can compare the two, and its tests show what it reaches; do not build on it.


A cycle on a smaller deck is a set of trick-boundary states. Put one more card (or several)
into one of them, anywhere in either hand, and play the new deal: if it loops, the deal falls
into a cycle of the bigger deck (not always one through the changed state: any loop counts).
The compiled kernel (kernels/score.py) scores every candidate of a state in one batch and
proves each loop exactly; each loop is then named by its seat-blind key (kernels/cycles/loops.py).

The engine is pure data and functions, for a run loop to call chunk by chunk:
`GrowState` (the beam, the keys seen, the generator state; JSON round trip) and
`grow_chunk(state, options, items)`, which expands up to `items` parent states and returns
the cycles it found as plain `GrownCycle` records. A chunk's result depends only on the state
and options it is given, so a run cut into other chunks, or resumed from JSON, finds the same
cycles.

Every state of a cycle is taken with seat 0 to lead: a state where seat 1 leads is mirrored
(hands swapped), which is the same cycle up to seat numbering, the key used here.

Variants (`GrowOptions.variant`):
- `insert`: one card into every position of every (or a sample of the) cycle states;
- `multi`: `cards` cards at once, random positions, `samples` candidates per state;
- `drift` is not a variant but what `insert` and `multi` do when a generation finds nothing
  bigger (with `drift=True`): move one card of a state elsewhere (same deck), keep the new
  cycles, and try to grow from them.

Why it is a dead end: growing a card or a few at a time, runs die out well short of the
standard deck (what each variant reached, measured: docs/endless-games.md, "A dead end");
bmn.search.cycles.pieces reaches it, by inserting whole closed pieces.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bmn.kernels.config import LOOP as LOOP_CODE
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import STANDARD_COUNTS, Deal, format_deal, parse_deal
from bmn.kernels.deal import counts_of as _counts_of

VARIANTS = ("insert", "multi")
ORDERS = ("numerals-first", "courts-first", "any")


def counts_of(deal: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """How many numerals, J, Q, K, A a deal holds."""
    return _counts_of(v for hand in deal for v in hand)


def digest(key: str) -> str:
    """A short stable name for a cycle key (the keys seen are kept as these)."""
    return hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


@dataclass(frozen=True)
class GrownCycle:
    """A cycle: its seat-blind key, deck, period, a state on it (seat 0 to lead), and where it
    came from (the parent cycle's key digest and the kind of step)."""

    key: str
    deck: tuple[int, ...]
    period_cards: int
    period_tricks: int
    deal: Deal
    parent: str | None = None
    how: str = "seed"

    @property
    def size(self) -> int:
        return sum(self.deck)

    def as_dict(self) -> dict:
        return {
            "key": self.key,
            "deck": list(self.deck),
            "period_cards": self.period_cards,
            "period_tricks": self.period_tricks,
            "deal": format_deal(self.deal),
            "parent": self.parent,
            "how": self.how,
        }

    @classmethod
    def from_dict(cls, d: dict) -> GrownCycle:
        return cls(
            d["key"],
            tuple(d["deck"]),
            d["period_cards"],
            d["period_tricks"],
            parse_deal(d["deal"]),
            d["parent"],
            d["how"],
        )


def _lead_first(hands, leader: int) -> Deal:
    """A state as a deal with seat 0 to lead: mirrored when seat 1 leads."""
    h0, h1 = (tuple(h) for h in hands)
    return (h0, h1) if leader == 0 else (h1, h0)


def cycle_of(deal: Sequence[Sequence[int]], parent: str | None = None, how: str = "seed"):
    """The cycle a two-hand deal (seat 0 leads) falls into, or None if its game finishes."""
    loop = analyse(deal)
    if loop.status != LOOP:
        return None
    first = loop.states[0]
    return GrownCycle(
        loop.rotation_key or "",
        counts_of(deal),
        loop.period_cards or 0,
        loop.period_tricks or 0,
        _lead_first(first.hands, first.leader),
        parent,
        how,
    )


def cycle_states(deal: Sequence[Sequence[int]]) -> list[Deal]:
    """Every state of the cycle a looping deal falls into, in play order, seat 0 to lead."""
    loop = analyse(deal)
    if loop.status != LOOP:
        raise ValueError(f"{format_deal(deal)} does not loop")
    return [_lead_first(s.hands, s.leader) for s in loop.states]


# -- candidates: numpy rows of penalty values (hands concatenated) and hand sizes ---------------


def _row(state: Deal) -> tuple[np.ndarray, int, int]:
    return np.array(state[0] + state[1], dtype=np.uint8), len(state[0]), len(state[1])


def _insert(rows: np.ndarray, n0: np.ndarray, slot: np.ndarray, value: np.ndarray):
    """Insert value[i] into row i at slot[i]: slots 0..n0 go into hand 0 (slot n0 under its
    bottom card), slots n0+1..n+1 into hand 1 (slot n0+1 on its top). Returns the new rows
    and the new size of hand 0."""
    n, width = rows.shape
    pos = np.where(slot <= n0, slot, slot - 1)
    if width == 0:  # a deal of one card
        return np.asarray(value, dtype=np.uint8).reshape(n, 1), n0 + (slot <= n0)
    j = np.arange(width + 1)[None, :]
    src = np.minimum(j - (j > pos[:, None]), width - 1)
    out = np.take_along_axis(rows, src, axis=1)
    out[np.arange(n), pos] = value
    return out, n0 + (slot <= n0)


def insertions(state: Deal, values: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every deal made by putting one card of a value in `values` anywhere into either hand
    (duplicates removed): rows (N, n + 1) and sizes (N, 2)."""
    row, n0, n1 = _row(state)
    n = n0 + n1
    slots = np.tile(np.arange(n + 2), len(values))
    vals = np.repeat(np.asarray(values, dtype=np.uint8), n + 2)
    rows = np.tile(row, (len(slots), 1))
    out, m0 = _insert(rows, np.full(len(slots), n0), slots, vals)
    return _unique(out, m0)


def moves(state: Deal) -> tuple[np.ndarray, np.ndarray]:
    """Every deal made by taking one card out of a hand and putting it back anywhere in either
    hand (the state itself and duplicates removed)."""
    row, n0, n1 = _row(state)
    n = n0 + n1
    take = np.repeat(np.arange(n), n + 1)
    slots = np.tile(np.arange(n + 1), n)
    keep = np.ones((len(take), n), dtype=bool)
    keep[np.arange(len(take)), take] = False
    rest = np.tile(row, (len(take), 1))[keep].reshape(len(take), n - 1)
    out, sizes = _unique(*_insert(rest, n0 - (take < n0), slots, row[take]))
    same = (sizes[:, 0] == n0) & (out == row).all(axis=1)
    return out[~same], sizes[~same]


def random_insertions(
    state: Deal, pool: Sequence[int], cards: int, samples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """`samples` deals, each with `cards` cards drawn from `pool` (a multiset of missing
    values, drawn without replacement) put into random slots of either hand."""
    row, n0, n1 = _row(state)
    pool = np.asarray(pool, dtype=np.uint8)
    draws = rng.permuted(np.tile(pool, (samples, 1)), axis=1)[:, :cards]
    rows = np.tile(row, (samples, 1))
    m0 = np.full(samples, n0)
    for k in range(draws.shape[1]):
        slot = rng.integers(0, n0 + n1 + k + 2, samples)
        rows, m0 = _insert(rows, m0, slot, draws[:, k])
    return _unique(rows, m0)


def _unique(rows: np.ndarray, n0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    both = np.concatenate([n0[:, None].astype(np.uint8), rows], axis=1)
    both = np.unique(both, axis=0)
    n0 = both[:, 0].astype(np.int64)
    return both[:, 1:].copy(), np.stack([n0, rows.shape[1] - n0], axis=1)


def looping(rows: np.ndarray, sizes: np.ndarray, threads: int | None = None) -> np.ndarray:
    """Indices of the candidates whose games loop (proven by exact detection)."""
    from bmn.kernels.score import score

    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(score(rows, sizes, threads=threads).status == LOOP_CODE)


def seed_cycles(
    deck: Sequence[int], deals: int, rng: np.random.Generator, threads: int | None = None
) -> list[GrownCycle]:
    """The distinct cycles among `deals` random even deals of a deck (counts of numerals, J, Q,
    K, A), to grow from."""
    from bmn.search.runs.loop_hunt import deck_of, random_batch

    rows, sizes = random_batch(rng, deck_of(deck), deals, even=True)
    cycles: dict[str, GrownCycle] = {}
    for i in looping(rows, sizes, threads):
        n0 = int(sizes[i, 0])
        found = cycle_of((tuple(int(v) for v in rows[i, :n0]), tuple(int(v) for v in rows[i, n0:])))
        if found is not None:
            cycles.setdefault(found.key, found)
    return list(cycles.values())


def missing_values(deck: Sequence[int], target: Sequence[int], order: str) -> list[int]:
    """The values a step may add: numerals before court cards, or the reverse, or any."""
    short = [v for v in range(5) if deck[v] < target[v]]
    if order == "numerals-first" and 0 in short:
        return [0]
    if order == "courts-first" and any(v > 0 for v in short):
        return [v for v in short if v > 0]
    return short


def missing_pool(deck: Sequence[int], target: Sequence[int], order: str) -> list[int]:
    """The missing cards as a multiset, restricted as missing_values is."""
    allowed = missing_values(deck, target, order)
    return [v for v in allowed for _ in range(target[v] - deck[v])]


# -- the beam search ----------------------------------------------------------------------------


@dataclass
class GrowOptions:
    """What defines a growth run (with the seed in GrowState, all a chunk depends on)."""

    target: tuple[int, ...] = STANDARD_COUNTS
    variant: str = "insert"
    order: str = "numerals-first"
    beam: int = 64
    states_per_cycle: int | None = 8  # None: every state of every cycle
    cards: int = 2  # cards per candidate for 'multi'
    samples: int = 2000  # candidates per state for 'multi' (and drift, per state)
    drift: bool = True
    max_named: int = 400  # loops named (analysed) per parent state, to bound Python work
    threads: int | None = None

    def __post_init__(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {self.variant!r}")
        if self.order not in ORDERS:
            raise ValueError(f"order must be one of {', '.join(ORDERS)}, got {self.order!r}")
        if len(self.target) != 5 or min(self.target) < 0:
            raise ValueError("target must be five counts: numerals, J, Q, K, A")


@dataclass
class GrowState:
    """Everything a growth run carries between chunks; `as_json`/`from_json` round-trip it.

    `beam` holds the parents of the current generation and `queue` the (parent, state index)
    items left to expand; `children` collects this generation's new cycles; `drifting` says the
    generation moves cards (same deck) instead of adding them.
    """

    rng: dict
    beam: list[GrownCycle]
    queue: list[tuple[int, int]] = field(default_factory=list)
    children: list[GrownCycle] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    best: GrownCycle | None = None
    found: list[GrownCycle] = field(default_factory=list)  # cycles on the target deck
    drifting: bool = False
    generation: int = 0
    candidates: int = 0
    loops: int = 0
    dead: bool = False

    @classmethod
    def start(cls, seeds: Sequence[GrownCycle], seed: int) -> GrowState:
        """A fresh run from seed cycles (all on one deck size is usual, not required)."""
        rng = np.random.default_rng(seed)
        state = cls(rng.bit_generator.state, list(seeds))
        state.seen = {digest(c.key) for c in seeds}
        state.best = max(seeds, key=lambda c: c.size) if seeds else None
        return state

    def as_json(self) -> dict:
        return {
            "rng": self.rng,
            "beam": [c.as_dict() for c in self.beam],
            "queue": [list(q) for q in self.queue],
            "children": [c.as_dict() for c in self.children],
            "seen": sorted(self.seen),
            "best": None if self.best is None else self.best.as_dict(),
            "found": [c.as_dict() for c in self.found],
            "drifting": self.drifting,
            "generation": self.generation,
            "candidates": self.candidates,
            "loops": self.loops,
            "dead": self.dead,
        }

    @classmethod
    def from_json(cls, d: dict) -> GrowState:
        cycles = GrownCycle.from_dict
        return cls(
            d["rng"],
            [cycles(c) for c in d["beam"]],
            [tuple(q) for q in d["queue"]],
            [cycles(c) for c in d["children"]],
            set(d["seen"]),
            None if d["best"] is None else cycles(d["best"]),
            [cycles(c) for c in d["found"]],
            d["drifting"],
            d["generation"],
            d["candidates"],
            d["loops"],
            d["dead"],
        )


@dataclass
class ChunkReport:
    """What one chunk did: candidates scored, loops among them, the new cycles (any deck)."""

    candidates: int = 0
    loops: int = 0
    new: list[GrownCycle] = field(default_factory=list)


_STATES: dict[str, list[Deal]] = {}  # cycle states by key: recomputed freely, never saved


def _states_of(cycle: GrownCycle) -> list[Deal]:
    if cycle.key not in _STATES:
        if len(_STATES) > 4096:
            _STATES.clear()
        _STATES[cycle.key] = cycle_states(cycle.deal)
    return _STATES[cycle.key]


def grow_chunk(state: GrowState, options: GrowOptions, items: int = 16) -> ChunkReport:
    """Expand up to `items` parent states of the current generation; start the next generation
    when this one is done. Updates `state` in place and reports what it found."""
    rng = np.random.default_rng()
    rng.bit_generator.state = state.rng
    report = ChunkReport()
    for _ in range(items):
        if state.dead:
            break
        if not state.queue:
            _next_generation(state, options, rng)
            continue
        parent, index = state.queue.pop()
        _expand(state, options, state.beam[parent], index, rng, report)
    state.rng = rng.bit_generator.state
    return report


def _expand(state, options, parent: GrownCycle, index: int, rng, report: ChunkReport) -> None:
    """Score the candidates of one parent state; record every new cycle they fall into."""
    cycle_state = _states_of(parent)[index]
    rows, sizes = _candidates(state, options, parent, cycle_state, rng)
    hits = looping(rows, sizes, options.threads)
    report.candidates += len(rows)
    report.loops += len(hits)
    state.candidates += len(rows)
    state.loops += len(hits)
    how = "drift" if state.drifting else options.variant
    if len(hits) > options.max_named:
        hits = np.sort(rng.choice(hits, options.max_named, replace=False))
    for i in hits:
        n0 = int(sizes[i, 0])
        deal = (tuple(int(v) for v in rows[i, :n0]), tuple(int(v) for v in rows[i, n0:]))
        child = cycle_of(deal, digest(parent.key), how)
        if child is None or digest(child.key) in state.seen:
            continue
        state.seen.add(digest(child.key))
        state.children.append(child)
        report.new.append(child)
        _note(state, options, child)


def _note(state: GrowState, options: GrowOptions, child: GrownCycle) -> None:
    if state.best is None or child.size > state.best.size:
        state.best = child
    if child.deck == tuple(options.target):
        state.found.append(child)


def _candidates(state, options, parent: GrownCycle, cycle_state: Deal, rng):
    if state.drifting:
        rows, sizes = moves(cycle_state)
        if len(rows) > options.samples:
            pick = np.sort(rng.choice(len(rows), options.samples, replace=False))
            rows, sizes = rows[pick], sizes[pick]
        return rows, sizes
    if options.variant == "insert":
        return insertions(cycle_state, missing_values(parent.deck, options.target, options.order))
    pool = missing_pool(parent.deck, options.target, options.order)
    return random_insertions(cycle_state, pool, options.cards, options.samples, rng)


def _next_generation(state: GrowState, options: GrowOptions, rng: np.random.Generator) -> None:
    """Pick the next beam from this generation's new cycles and queue its states.

    Bigger children win; with none, a drift generation (cards moved, same deck) widens the
    beam, and growth resumes from the drifted cycles and the old beam together. A drift that
    finds nothing new ends the run (`dead`)."""
    parents = state.beam
    bigger = [c for c in state.children if c.size > max((p.size for p in parents), default=0)]
    if state.generation > 0 or state.children:
        if bigger:
            state.beam, state.drifting = select(bigger, options.beam, rng), False
        elif options.drift and not state.drifting:
            state.drifting = True
        elif state.drifting and state.children:
            pool = state.children + parents
            state.beam, state.drifting = select(pool, options.beam, rng), False
        else:
            state.dead = True
            return
    state.children = []
    state.generation += 1
    state.queue = _queue(state.beam, options, rng)
    if not state.queue:
        state.dead = True


def _queue(beam: list[GrownCycle], options: GrowOptions, rng) -> list[tuple[int, int]]:
    """(parent, state index) items: every state of every parent, or a sample per parent."""
    items = []
    for p, cycle in enumerate(beam):
        n = cycle.period_tricks
        k = n if options.states_per_cycle is None else min(n, options.states_per_cycle)
        items += [(p, int(i)) for i in np.sort(rng.choice(n, k, replace=False))]
    return items[::-1]  # popped from the end: parents in beam order


def select(cycles: list[GrownCycle], width: int, rng: np.random.Generator) -> list[GrownCycle]:
    """Up to `width` cycles, as diverse as possible: one from each period (longest periods
    first) in turn, at random within a period. Short periods would otherwise crowd out the
    rest: they are many, and have few states to grow from."""
    groups: dict[int, list[GrownCycle]] = {}
    for c in cycles:
        groups.setdefault(c.period_tricks, []).append(c)
    for g in groups.values():
        order = rng.permutation(len(g))
        g[:] = [g[i] for i in order]
    picked: list[GrownCycle] = []
    periods = sorted(groups, reverse=True)
    while len(picked) < width and any(groups.values()):
        for p in periods:
            if groups[p] and len(picked) < width:
                picked.append(groups[p].pop())
    return picked
