"""Cycles built from pieces: a small hand that keeps coming back, and a big hand it works through.

In the published 62-trick cycle one hand keeps returning to `J-` with the other hand (the big
hand) to lead. Between two such returns the game lays a stretch of the big hand's top cards (a
*piece*) and puts the piles the big hand takes under its bottom card (the piece's *output*),
without ever reaching the big hand's cards past the piece. So the big hand is a queue of pieces,
each worked through on its own.

A *control* names the returning state: the small hand, which seat leads there, and a *tail*
(cards at the bottom of the big hand, behind the last piece). When a piece's output ends with
the tail, put the tail in front instead: g(P) = tail + output minus its last len(tail) cards.
A big hand `P1 P2 ... Pk + tail` is worked into `g(P1) g(P2) ... g(Pk) + tail` (because
`tail + O1 + O2 = g(P1) + g(P2) + tail` when every Oi ends with the tail). A piece is *closed*
when g(P) splits (by play) into closed pieces again. Then any big hand made of closed pieces and
the tail, in any order, with the small hand, never ends: it is a queue of finitely many pieces
with the card counts fixed, worked through forever. The published cycle is of this kind
(small hand `J-`, big hand to lead, tail `-`, three pieces).

So cycles on the standard deck come from sets of closed pieces whose card counts add up to
the standard deck less the small hand and the tail: a knapsack over piece compositions. Pieces
are found by random descent (the big hand's cards drawn one at a time as play asks for them,
until the small hand is back), closed ones kept. Growth in this form is an insertion of a whole
closed piece at a piece boundary, which keeps the loop by construction. Every deal built here is
still played by the compiled kernel with exact loop detection before it is reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from bmn.kernels.config import INLINE_JIT, JIT
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import VALUE_SYMBOL, Deal, format_hand, parse_hand
from bmn.kernels.decks import STANDARD_COUNTS, counts_of
from bmn.kernels.rng import bounded
from bmn.kernels.rules.targets import compile_for

BIG, SMALL = 0, 1
DONE, SHORT, DEAD = "done", "short", "dead"


@dataclass(frozen=True)
class Control:
    """The returning state: the small hand, whether it leads there, the big hand's tail."""

    small: bytes
    small_leads: bool
    tail: bytes

    @classmethod
    def parse(cls, small: str, small_leads: bool, tail: str) -> Control:
        return cls(bytes(parse_hand(small)), small_leads, bytes(parse_hand(tail)))

    def text(self) -> str:
        who = "small" if self.small_leads else "big"
        return f"small {format_hand(self.small)}, {who} leads, tail {format_hand(self.tail)}"

    def spec(self) -> str:
        """The control as stored with a run: 'small/big/tail', 'J-/big/-' (who leads)."""
        who = "small" if self.small_leads else "big"
        return f"{format_hand(self.small)}/{who}/{format_hand(self.tail)}"

    @classmethod
    def from_spec(cls, spec: str) -> Control:
        small, who, tail = spec.split("/")
        return cls.parse(small, who == "small", tail)

    def fits(self, deck: Sequence[int]) -> bool:
        """Whether the deck holds the small hand and the tail with a card to spare."""
        fixed = composition(self.small + self.tail)
        return sum(deck) > sum(fixed) and all(f <= d for f, d in zip(fixed, deck, strict=True))

    def deal(self, pieces: Iterable[bytes]) -> Deal:
        """The deal (seat 0 to lead) of a big hand made of `pieces` then the tail."""
        big = tuple(b"".join(pieces) + self.tail)
        small = tuple(self.small)
        return (small, big) if self.small_leads else (big, small)


def lay(card: int, seat: int, layer: int, owed: int) -> tuple[int, int, int, bool]:
    """`seat` lays `card` on a trick whose last court card `layer` laid (-1: none yet), `owed`
    cards still owed: (the next to lay, the last court card's layer, cards owed, whether the
    trick is taken). Played here in Python (play) and compiled in the piece hunt (_descend)."""
    if card:
        return 1 - seat, seat, card, False
    if layer >= 0:
        return seat, layer, owed - 1, owed == 1
    return 1 - seat, layer, owed, False


(_lay,) = compile_for((lay,), njit(**INLINE_JIT))


def play(
    control: Control,
    next_card: Callable[[], int | None],
    max_small: int = 64,
    peak: list[int] | None = None,
):
    """Play from the control state, the big hand's cards coming from `next_card` (None when
    there are no more), until the control state is back: (DONE, output), or (SHORT, None) when
    the big hand's cards ran out first, or (DEAD, None) when the game would end (a hand out of
    cards, docs/rules.md two-player play) or the small hand passes `max_small` cards."""
    small = bytearray(control.small)
    out = bytearray()
    first = SMALL if control.small_leads else BIG
    leader = first
    while True:
        pile = bytearray()
        seat, layer, owed = leader, -1, 0
        while True:
            if seat == SMALL:
                if not small:
                    return DEAD, None
                card = small.pop(0)
            else:
                card = next_card()
                if card is None:
                    return SHORT, None
            pile.append(card)
            seat, layer, owed, taken = lay(card, seat, layer, owed)
            if taken:
                break
        if layer == SMALL:
            small += pile
            if len(small) > max_small:
                return DEAD, None
            if peak is not None and len(small) > peak[0]:
                peak[0] = len(small)
        else:
            if not small:  # the trick leaves the small hand empty: the game is over
                return DEAD, None
            out += pile
        leader = layer
        if leader == first and small == control.small:
            return DONE, bytes(out)


def word_reader(word: bytes) -> tuple[Callable[[], int | None], list[int]]:
    """(next card of `word`, None once it is read out; [how many cards read so far])."""
    at = [0]

    def next_card() -> int | None:
        if at[0] >= len(word):
            return None
        at[0] += 1
        return word[at[0] - 1]

    return next_card, at


def piece_output(control: Control, word: bytes) -> bytes | None:
    """The output of `word` if it is exactly a piece (the control state is first back when the
    word is used up), else None."""
    next_card, at = word_reader(word)
    status, out = play(control, next_card)
    return out if status == DONE and at[0] == len(word) else None


def piece_peak(control: Control, word: bytes) -> int:
    """The most cards the small hand holds while `word` is worked through."""
    peak = [len(control.small)]
    play(control, word_reader(word)[0], peak=peak)
    return peak[0]


def split(control: Control, cards: bytes) -> list[bytes] | None:
    """`cards` cut into pieces by play, or None if they do not cut exactly."""
    parts = []
    start = 0
    while start < len(cards):
        next_card, at = word_reader(cards[start:])
        status, _ = play(control, next_card)
        if status != DONE:
            return None
        parts.append(cards[start : start + at[0]])
        start += at[0]
    return parts


def successor(control: Control, word: bytes) -> list[bytes] | None:
    """g(word) cut into pieces: what the piece becomes after one pass; None if it is not a
    piece, its output does not end with the tail, or g(word) does not cut into pieces."""
    out = piece_output(control, word)
    t = len(control.tail)
    if out is None or out[len(out) - t :] != control.tail:
        return None
    return split(control, control.tail + out[: len(out) - t])


def pieces_of(control: Control, deal: Sequence[Sequence[int]]) -> list[bytes] | None:
    """The pieces of the cycle a looping two-hand deal falls into, for this control: the big
    hand at a state of the cycle that is the control state, less the tail, cut by play. None
    if the deal does not loop or its cycle never passes through the control state."""
    loop = analyse(deal)
    if loop.status != LOOP or len(deal) != 2:
        return None
    t = len(control.tail)
    for state in loop.states:
        for small_seat in (0, 1):
            small, big = (bytes(h) for h in (state.hands[small_seat], state.hands[1 - small_seat]))
            if small != control.small or (state.leader == small_seat) != control.small_leads:
                continue
            if big[len(big) - t :] != control.tail:
                continue
            parts = split(control, big[: len(big) - t])
            if parts:
                return parts
    return None


def orbit(control: Control, word: bytes, limit: int = 10_000) -> dict[bytes, list[bytes]] | None:
    """Every piece reached from `word` by passes, each with its successor pieces; None if any
    fails (then `word` is not closed)."""
    seen: dict[bytes, list[bytes]] = {}
    todo = [word]
    while todo:
        w = todo.pop()
        if w in seen:
            continue
        nxt = successor(control, w)
        if nxt is None or len(seen) >= limit:
            return None
        seen[w] = nxt
        todo += nxt
    return seen


@njit(**JIT)
def _descend(
    small0,
    small_leads,
    cum,
    late,
    switch,
    min_len,
    max_len,
    max_small,
    tries,
    state,
    words,
    lens,
):
    """`tries` random descents: the big hand's cards drawn one at a time as play asks for
    them, until the control state is back (play() with random cards); the pieces found go into
    words/lens.

    `cum` holds the cumulative weights of numeral, J, Q, K, A out of 65,536, `late` those used
    once the small hand has held `switch` cards; the small hand is a ring buffer. Returns how
    many pieces were written (at most len(words))."""
    size = max_small + 64
    ring = np.zeros(size, dtype=np.uint8)
    pile = np.zeros(2 * max_len + size, dtype=np.uint8)
    found = 0
    h = small0.shape[0]
    first = 1 if small_leads else 0
    for _ in range(tries):
        if found == words.shape[0]:
            break
        for i in range(h):
            ring[i] = small0[i]
        head, count, n, leader, ok, weights = 0, h, 0, first, True, cum
        while ok:
            seat, layer, owed, laid = leader, -1, 0, 0
            while True:
                if seat == 1:
                    if count == 0:
                        ok = False
                        break
                    card = ring[head]
                    head = (head + 1) % size
                    count -= 1
                else:
                    if n >= max_len:
                        ok = False
                        break
                    r = bounded(state, 65536)
                    card = 0
                    while card < 4 and r >= weights[card]:
                        card += 1
                    words[found, n] = card
                    n += 1
                pile[laid] = card
                laid += 1
                seat, layer, owed, taken = _lay(card, seat, layer, owed)
                if taken:
                    break
            if not ok:
                break
            if layer == 1:
                if count + laid > max_small:
                    break
                for i in range(laid):
                    ring[(head + count + i) % size] = pile[i]
                count += laid
                if count >= switch:
                    weights = late
            elif count == 0:
                break
            leader = layer
            if leader == first and count == h:
                same = True
                for i in range(h):
                    if ring[(head + i) % size] != small0[i]:
                        same = False
                        break
                if same:  # the first return ends the piece, long enough or not
                    if n >= min_len:
                        lens[found] = n
                        found += 1
                    break
    return found


def _cumulative(weights: Sequence[float]) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    cum = np.round(np.cumsum(w / w.sum()) * 65536).astype(np.int64)
    cum[-1] = 65536
    return cum


def sample_pieces(
    control: Control,
    state: np.ndarray,
    weights: Sequence[float],
    tries: int,
    min_len: int = 1,
    max_len: int = 48,
    max_small: int = 40,
    late: Sequence[float] | None = None,
    switch: int = 1 << 30,
) -> list[bytes]:
    """The pieces of `min_len` cards or more found by `tries` random descents (values drawn by
    `weights` for numeral, J, Q, K, A; randomness from the xoshiro `state` of bmn.kernels.rng,
    advanced in place).
    With `late`, the cards are drawn by those weights once the small hand has held `switch`
    cards: build the small hand up with numerals, then bring it back with court cards."""
    cum = _cumulative(weights)
    late_cum = cum if late is None else _cumulative(late)
    words = np.zeros((min(tries, 1 << 16), max_len), dtype=np.uint8)
    lens = np.zeros(len(words), dtype=np.int64)
    small = np.frombuffer(control.small, dtype=np.uint8).copy()
    args = (cum, late_cum, switch, min_len, max_len, max_small, tries, state, words, lens)
    n = _descend(small, control.small_leads, *args)
    return [words[i, : lens[i]].tobytes() for i in range(n)]


def composition(word: bytes) -> tuple[int, ...]:
    return counts_of(word)


PUBLISHED_CONTROL = "J-/big/-"  # the published cycle's: the small hand J-, the big hand leads


def controls_for(deck: Sequence[int], spare: int = 3) -> list[str]:
    """The controls a hunt on `deck` tries, as specs: the published cycle's first (if the deck
    holds it), then every small hand of one court card among up to `spare` numerals, with
    either hand to lead, tail '-'. On small decks cycles seldom pass through `J-`: of the
    three cycles of 14,2,0,0,2 found by a loop hunt, two pass through `--J-` with the big hand
    to lead, one through no such state (docs/endless-games.md)."""
    specs = [PUBLISHED_CONTROL]
    for size in range(spare + 1):
        for value in range(1, 5):
            for before in range(size + 1):
                small = "-" * before + VALUE_SYMBOL[value] + "-" * (size - before)
                specs += [f"{small}/big/-", f"{small}/small/-"]
    found = list(dict.fromkeys(specs))
    return [spec for spec in found if Control.from_spec(spec).fits(deck)]


class Library:
    """The closed pieces of one control, by composition (numerals, J, Q, K, A)."""

    def __init__(self, control: Control, pieces: Iterable[bytes] = ()):
        self.control = control
        self.by_counts: dict[tuple[int, ...], list[bytes]] = {}
        self.closed: set[bytes] = set()
        self.ordered: list[bytes] = []  # in the order added: a library rebuilt from it is equal
        self.failed: set[bytes] = set()  # a cache only: results never depend on it
        for w in pieces:
            self._add(w)

    def _add(self, word: bytes) -> None:
        if word not in self.closed:
            self.closed.add(word)
            self.ordered.append(word)
            self.by_counts.setdefault(composition(word), []).append(word)

    def offer(self, word: bytes) -> int:
        """Test a piece; add it and its orbit if closed. Returns how many pieces were new."""
        if word in self.closed or word in self.failed:
            return 0
        found = orbit(self.control, word)
        if found is None:
            self.failed.add(word)
            return 0
        before = len(self.closed)
        for w in found:
            self._add(w)
        return len(self.closed) - before

    def target(self, deck: Sequence[int] = STANDARD_COUNTS) -> tuple[int, ...]:
        """The counts the pieces must add up to: the deck less the small hand and the tail."""
        fixed = composition(self.control.small + self.control.tail)
        return tuple(d - f for d, f in zip(deck, fixed, strict=True))


def sums_reachable(counts: Iterable[tuple[int, ...]], target: Sequence[int]) -> set[tuple]:
    """Every composition up to `target` that is a sum of the given piece compositions (with
    repetition), the empty sum included: a boolean grid over compositions, each piece shifting
    it until nothing changes."""
    counts = [c for c in set(counts) if all(a <= b for a, b in zip(c, target, strict=True))]
    grid = np.zeros([t + 1 for t in target], dtype=bool)
    grid[(0,) * len(target)] = True
    changed = True
    while changed:
        before = int(grid.sum())
        for c in counts:
            dst = tuple(slice(a, None) for a in c)
            src = tuple(slice(0, t + 1 - a) for a, t in zip(c, target, strict=True))
            grid[dst] |= grid[src]
        changed = int(grid.sum()) != before
    return {tuple(int(v) for v in at) for at in np.argwhere(grid)}


def assemble(
    library: Library,
    target: Sequence[int],
    rng: np.random.Generator,
    reach: set[tuple] | None = None,
) -> list[bytes] | None:
    """Random closed pieces adding up to `target` exactly, in random order; None if no set of
    the library's compositions does. `reach` (sums_reachable's answer) saves recomputing it."""
    target = tuple(target)
    reach = reach if reach is not None else sums_reachable(library.by_counts, target)
    if target not in reach:
        return None
    left, pieces = target, []
    while any(left):
        options = [
            c
            for c in library.by_counts
            if tuple(a - b for a, b in zip(left, c, strict=True)) in reach
        ]
        counts = options[int(rng.integers(len(options)))]
        words = library.by_counts[counts]
        pieces.append(words[int(rng.integers(len(words)))])
        left = tuple(a - b for a, b in zip(left, counts, strict=True))
    return [pieces[i] for i in rng.permutation(len(pieces))]


def assemble_with(
    library: Library,
    anchor: bytes,
    target: Sequence[int],
    rng: np.random.Generator,
    reach: set[tuple],
) -> list[bytes] | None:
    """Closed pieces adding up to `target` with `anchor` among them, in random order; None if
    the rest cannot be made from the library. `reach` is sums_reachable's answer for `target`
    (it holds every reachable sum up to it, so it serves the rest too)."""
    rest = tuple(a - b for a, b in zip(target, composition(anchor), strict=True))
    if min(rest) < 0 or rest not in reach:
        return None
    pieces = [*assemble(library, rest, rng, reach), anchor]
    return [pieces[i] for i in rng.permutation(len(pieces))]
