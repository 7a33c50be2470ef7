"""The two-seat piece construction (search/cycles/pieces.py) for 3 and 4 seats: true cycles
built from one big hand and small hands that keep coming back.

A *control* names the returning state: the small hands of seats 1 to N-1, the seat to lead, and
a tail (cards at the bottom of the big hand, seat 0's). From it, play lays a stretch of the big
hand's top cards (a *piece*) until the small hands and the leader are back; the piles the big
hand takes go under its bottom card (the piece's *output*). As with two seats, when every
output ends with the tail and g(P) = tail + output less its last len(tail) cards cuts into
pieces again, the piece is *closed*, and any big hand of closed pieces and the tail, with the
small hands, is a queue worked through for ever. Play here also refuses a small hand that is
empty at a trick boundary (it would go out when next asked), so every such cycle keeps every
seat in: a true cycle, of any size the pieces add up to. `largest` assembles the most cards the
standard deck allows from a library's compositions (pieces.sums_reachable, pieces.assemble).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np

from bmn.kernels.deal import format_hand, parse_hand
from bmn.kernels.decks import STANDARD_COUNTS, counts_of
from bmn.search.cycles.pieces import (
    DEAD,
    DONE,
    SHORT,
    Library,
    assemble,
    sums_reachable,
    word_reader,
)
from bmn.search.cycles.true_cycles import Seated, TrueCycle
from bmn.search.cycles.true_growth import Growth

BIG = 0


@dataclass(frozen=True)
class SeatControl:
    """The returning state: the small hands (seats 1 to N-1), the seat to lead, the tail."""

    smalls: tuple[bytes, ...]
    leader: int
    tail: bytes

    @classmethod
    def parse(cls, spec: str) -> SeatControl:
        """From 'J-,-J-/0/-': the small hands, the seat to lead, the tail."""
        smalls, leader, tail = spec.split("/")
        hands = tuple(bytes(parse_hand(h)) for h in smalls.split(","))
        return cls(hands, int(leader), bytes(parse_hand(tail)))

    def spec(self) -> str:
        smalls = ",".join(format_hand(h) for h in self.smalls)
        return f"{smalls}/{self.leader}/{format_hand(self.tail)}"

    @property
    def seats(self) -> int:
        return len(self.smalls) + 1

    def fixed(self) -> tuple[int, ...]:
        """The composition of the small hands and the tail."""
        return counts_of(b"".join(self.smalls) + self.tail)

    def state(self, pieces: Sequence[bytes]) -> Seated:
        """The control state with a big hand of `pieces` and the tail, seated from its leader."""
        big = tuple(b"".join(pieces) + self.tail)
        hands = (big, *(tuple(h) for h in self.smalls))
        return hands[self.leader :] + hands[: self.leader]


def play(control: SeatControl, next_card: Callable[[], int | None], max_small: int = 40):
    """Play from the control state, the big hand's cards from `next_card`, until the control
    state is back: (DONE, output), (SHORT, None) when the cards ran out first, or (DEAD, None)
    when a small hand must lay and has none, is empty after a trick, or passes `max_small`."""
    smalls = [bytearray(h) for h in control.smalls]
    n = control.seats
    out = bytearray()
    leader = control.leader
    while True:
        pile = bytearray()
        seat, layer, owed = leader, -1, 0
        while True:
            if seat == BIG:
                card = next_card()
                if card is None:
                    return SHORT, None
            else:
                hand = smalls[seat - 1]
                if not hand:
                    return DEAD, None
                card = hand.pop(0)
            pile.append(card)
            if card:
                seat, layer, owed = (seat + 1) % n, seat, card
            elif layer >= 0:
                owed -= 1
                if owed == 0:
                    break
            else:
                seat = (seat + 1) % n
        if layer == BIG:
            out += pile
        else:
            smalls[layer - 1] += pile
            if len(smalls[layer - 1]) > max_small:
                return DEAD, None
        if not all(smalls):
            return DEAD, None
        leader = layer
        if leader == control.leader and all(
            bytes(h) == c for h, c in zip(smalls, control.smalls, strict=True)
        ):
            return DONE, bytes(out)


def split(control: SeatControl, cards: bytes) -> list[bytes] | None:
    """`cards` cut into pieces by play, or None if they do not cut exactly."""
    parts, start = [], 0
    while start < len(cards):
        next_card, at = word_reader(cards[start:])
        status, _ = play(control, next_card)
        if status != DONE:
            return None
        parts.append(cards[start : start + at[0]])
        start += at[0]
    return parts


def successor(control: SeatControl, word: bytes) -> list[bytes] | None:
    """g(word) cut into pieces, or None (not a piece, output not ending with the tail, or g
    does not cut)."""
    next_card, at = word_reader(word)
    status, out = play(control, next_card)
    t = len(control.tail)
    if status != DONE or at[0] != len(word) or out[len(out) - t :] != control.tail:
        return None
    return split(control, control.tail + out[: len(out) - t])


def orbit(control: SeatControl, word: bytes, limit: int = 2000) -> list[bytes] | None:
    """Every piece reached from `word` by passes; None if any fails (`word` is not closed)."""
    seen: set[bytes] = set()
    todo = [word]
    while todo:
        w = todo.pop()
        if w in seen:
            continue
        nxt = successor(control, w)
        if nxt is None or len(seen) >= limit:
            return None
        seen.add(w)
        todo += nxt
    return sorted(seen)


def descend(
    control: SeatControl, rng: random.Random, weights: Sequence[float], max_len: int = 40
) -> bytes | None:
    """One random descent: the big hand's cards drawn (numeral, J, Q, K, A by `weights`) as
    play asks for them until the control state is back; the piece, or None."""
    word = bytearray()

    def next_card() -> int | None:
        if len(word) >= max_len:
            return None
        word.append(rng.choices(range(5), weights)[0])
        return word[-1]

    status, _ = play(control, next_card)
    return bytes(word) if status == DONE else None


class SeatLibrary(Library):
    """pieces.Library for a SeatControl: closed pieces by composition."""

    def offer(self, word: bytes) -> int:
        if word in self.closed or word in self.failed:
            return 0
        found = orbit(self.control, word)  # type: ignore[arg-type]
        if found is None:
            self.failed.add(word)
            return 0
        before = len(self.closed)
        for w in found:
            self._add(w)
        return len(self.closed) - before

    def target(self, deck: Sequence[int] = STANDARD_COUNTS) -> tuple[int, ...]:
        fixed = self.control.fixed()  # type: ignore[attr-defined]
        return tuple(d - f for d, f in zip(deck, fixed, strict=True))


def largest(library: SeatLibrary, rng: np.random.Generator) -> list[bytes] | None:
    """Closed pieces adding up to the most cards the standard deck leaves beside the small
    hands and the tail (among the sums with most cards, one at random); None if none."""
    target = library.target()
    if min(target) < 0 or not library.by_counts:
        return None
    reach = sums_reachable(library.by_counts, target)
    most = max(sum(c) for c in reach)
    if most == 0:
        return None
    best = [c for c in reach if sum(c) == most]
    return assemble(library, best[int(rng.integers(len(best)))], rng, reach)


def controls(seats: int, smalls: Sequence[str] = ("J-", "-J-", "J", "Q-", "K-", "A-")) -> list:
    """Every control of `seats` seats with small hands from `smalls`, any seat to lead, tail '-'."""
    out = []
    for hands in product(smalls, repeat=seats - 1):
        for leader in range(seats):
            out.append(SeatControl.parse(f"{','.join(hands)}/{leader}/-"))
    return out


def controls_of(cycle_states: Sequence[Seated], max_small: int = 8, tails: int = 2) -> list:
    """Every control a true cycle passes through with its closed pieces: for each state and
    each seat as the big hand (the others holding at most `max_small` cards), each tail of up
    to `tails` cards the big hand ends with, the big hand's pieces if it cuts into pieces and
    each is closed. A list of (control, pieces)."""
    found: dict[SeatControl, list[bytes]] = {}
    for hands in cycle_states:
        n = len(hands)
        for b in range(n):
            turned = hands[b:] + hands[:b]  # the big hand at seat 0; the leader moves with it
            if max(len(h) for h in turned[1:]) > max_small:
                continue
            big = bytes(turned[0])
            for t in range(1, min(tails, len(big) - 1) + 1):
                control = SeatControl(
                    tuple(bytes(h) for h in turned[1:]), (n - b) % n, big[len(big) - t :]
                )
                if control in found:
                    continue
                parts = split(control, big[: len(big) - t])
                if parts and all(orbit(control, p) is not None for p in parts):
                    found[control] = parts
    return list(found.items())


def from_cycles(
    cycles: Iterable[TrueCycle],
    seconds: float,
    rng: random.Random,
    descents: int = 2000,
    growth: Growth | None = None,
) -> Growth:
    """True cycles assembled from the pieces of known ones, largest first, for `seconds`: each
    control a cycle passes through (controls_of) gets a library of its pieces and of
    `descents` random descents' closed pieces, and the largest assembly is scored."""
    growth = growth if growth is not None else Growth()
    nrng = np.random.default_rng(rng.randrange(2**32))
    for cycle in sorted(cycles, key=lambda c: -c.cards):
        for control, parts in controls_of(cycle.states):
            if growth.elapsed() >= seconds:
                return growth
            library = SeatLibrary(control)  # type: ignore[arg-type]
            _assemble(library, parts, rng, nrng, descents, growth)
    return growth


def descended(
    seats: int,
    seconds: float,
    rng: random.Random,
    descents: int = 2000,
    growth: Growth | None = None,
) -> Growth:
    """True cycles assembled from the closed pieces random descents find, control by control
    (`controls`), round and round for `seconds`; each control's library is kept between its
    turns, so its pieces add up."""
    growth = growth if growth is not None else Growth()
    nrng = np.random.default_rng(rng.randrange(2**32))
    libraries = {c: SeatLibrary(c) for c in controls(seats)}  # type: ignore[arg-type]
    every = list(libraries)
    while growth.elapsed() < seconds:
        control = rng.choice(every)
        _assemble(libraries[control], [], rng, nrng, descents, growth)
    return growth


def _assemble(
    library: SeatLibrary,
    parts: Sequence[bytes],
    rng: random.Random,
    nrng: np.random.Generator,
    descents: int,
    growth: Growth,
) -> None:
    """Offer `parts` and `descents` random descents' pieces to the library, then score the
    largest assembly of its closed pieces."""
    control: SeatControl = library.control  # type: ignore[assignment]
    for word in parts:
        library.offer(word)
    for _ in range(descents):
        weights = [rng.uniform(0.3, 0.9)] + [rng.uniform(0.0, 0.2) for _ in range(4)]
        word = descend(control, rng, weights)
        if word:
            library.offer(word)
    pieces = largest(library, nrng)
    if pieces:
        growth.score([control.state(pieces)], threads=1)
