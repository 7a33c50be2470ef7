"""Two-seat cycles that swap the hands' roles, searched for directly by their half period.

A role-swapping cycle (kernels/cycles/loops.swaps_roles) holds a state S = (A, B), seat 0 to
lead, whose play reaches (B, A), seat 1 to lead, after some tricks: half its period. Say seat 0
lays i cards in that half and seat 1 lays j, L = i + j in all. What seat 0 lays for ever is then
a (its i cards), then b (seat 1's j, the roles swapped), again and again: its hand, read from
the top as it plays, is the stream (ab)(ab)..., with A its first |A| cards and every pile it
takes written after them. Seat 1 reads the same stream from card i on. So the whole cycle is one
word Z = ab of L cards, read round and round by two heads (seat 0 from 0, seat 1 from i) and
written by two (seat 0's piles from |A|, seat 1's from i + |B|), each card of Z read once and
written once in a half period: A = Z[0:|A|] and B = Z[i:i + |B|], round Z.

`states` searches Z for given (L, i, |A|) depth first, as play asks for cards: a card read before
it is written is a choice (as the deck allows: A and B together hold the deck), a card written
after it is read is a check. It is exhaustive: every role-swapping cycle with those figures is
found, each as many times as it has states with them. The cost doubles with about every card of
L, since the checks come only once piles wrap round Z: measured (docs/endless-games.md), the
20-card deck 14,2,2,2,0's cycle (L = 37) takes 20 s, and N1k06's three on the Italian deck
(L = 78, 94, 273) are out of reach; `swap_cycles` runs L upward within a time.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import Deal


@dataclass
class _Tape:
    """Z, what of it is known, and how many cards of each value A and B hold so far."""

    deck: tuple[int, ...]
    cells: list[int]  # -1: not yet read nor written
    weight: list[int]  # how many times each cell of Z is a card of A or B
    counts: list[int] = field(default_factory=lambda: [0] * 5)
    nodes: int = 0

    def put(self, cell: int, value: int) -> bool:
        """Set a cell; False (and nothing set) for a value the deck lacks, or if A and B would
        hold more than the deck has."""
        w = self.weight[cell]
        if self.deck[value] == 0 or self.counts[value] + w > self.deck[value]:
            return False
        self.counts[value] += w
        self.cells[cell] = value
        return True

    def clear(self, cell: int) -> None:
        self.counts[self.cells[cell]] -= self.weight[cell]
        self.cells[cell] = -1


def states(deck: Sequence[int], cards: int, first: int, hand: int) -> Iterator[Deal]:
    """Every state (A, B), seat 0 to lead, with |A| = `hand`, that plays to (B, A) with seat 1
    to lead after seat 0 lays `first` cards and seat 1 `cards - first` (A and B hold `deck`,
    counts of numerals, J, Q, K, A). Each found state is on a role-swapping cycle: the caller
    replays it (`swap_cycles` does)."""
    total = sum(deck)
    weight = [0] * cards
    for p in [*range(hand), *range(first, first + total - hand)]:
        weight[p % cards] += 1
    tape = _Tape(tuple(deck), [-1] * cards, weight)
    found: list[Deal] = []
    search = _Search(tape, cards, first, hand, total - hand, found)
    search.play(0, 0, 0, 0, 0, -1, 0, ())
    yield from found


@dataclass
class _Search:
    """One search's figures: L, seat 0's share, |A| and |B|; the states found."""

    tape: _Tape
    cards: int
    first: int
    hand: int
    other: int
    found: list[Deal]

    def play(self, r0: int, r1: int, w0: int, w1: int, seat: int, layer: int, owed: int, pile):
        """Play on: r0, r1 cards read and w0, w1 written by each seat, `seat` to lay, paying
        `layer`'s court card (-1: an ordinary turn) with `owed` cards still to pay, `pile` the
        cards of the trick so far. A card not yet on Z branches over the values allowed."""
        tape = self.tape
        tape.nodes += 1
        if seat == 0:
            if r0 >= self.first or self.hand + w0 - r0 <= 0:
                return  # seat 0 lays more than its share of the half period, or runs out
            cell = r0 % self.cards
        else:
            if r1 >= self.cards - self.first or self.other + w1 - r1 <= 0:
                return
            cell = (self.first + r1) % self.cards
        if tape.cells[cell] >= 0:
            self.lay(r0, r1, w0, w1, seat, layer, owed, pile, tape.cells[cell])
            return
        for value in range(5):
            if tape.put(cell, value):
                self.lay(r0, r1, w0, w1, seat, layer, owed, pile, value)
                tape.clear(cell)

    def lay(self, r0, r1, w0, w1, seat: int, layer: int, owed: int, pile, card: int) -> None:
        """`seat` lays `card`; on to the next card, or the taker's pile written onto Z."""
        r0, r1 = (r0 + 1, r1) if seat == 0 else (r0, r1 + 1)
        pile = (*pile, card)
        if card > 0:
            self.play(r0, r1, w0, w1, 1 - seat, seat, card, pile)
        elif layer < 0:
            self.play(r0, r1, w0, w1, 1 - seat, layer, owed, pile)
        elif owed > 1:
            self.play(r0, r1, w0, w1, seat, layer, owed - 1, pile)
        else:
            self.take(r0, r1, w0, w1, layer, pile)

    def take(self, r0: int, r1: int, w0: int, w1: int, taker: int, pile) -> None:
        """The taker's pile goes onto Z after its hand; a clash with a card read ends the
        branch. At the half period's end (each seat laid its share, seat 1 to lead) the state
        is found."""
        tape, cards = self.tape, self.cards
        start = (self.hand + w0) if taker == 0 else (self.first + self.other + w1)
        written = []
        for k, card in enumerate(pile):
            cell = (start + k) % cards
            if tape.cells[cell] < 0:
                if not tape.put(cell, card):
                    break
                written.append(cell)
            elif tape.cells[cell] != card:
                break
        else:
            w0, w1 = (w0 + len(pile), w1) if taker == 0 else (w0, w1 + len(pile))
            if (r0, r1) != (self.first, cards - self.first):
                self.play(r0, r1, w0, w1, taker, -1, 0, ())
            elif taker == 1 and self.hand - self.first + w0 == self.other:
                self.found.append(_state(tape, self.first, self.hand, self.other))
        for cell in written:
            tape.clear(cell)


def _state(tape: _Tape, first: int, hand: int, other: int) -> Deal:
    cells, n = tape.cells, len(tape.cells)
    a = tuple(cells[p % n] for p in range(hand))
    b = tuple(cells[p % n] for p in range(first, first + other))
    return (a, b)


@dataclass(frozen=True)
class SwapFind:
    """A role-swapping cycle: its seat-blind key, period, a state on it, and the half period's
    figures (L cards, seat 0's share, |A|) it was found with."""

    key: str
    period_tricks: int
    period_cards: int
    deal: Deal
    figures: tuple[int, int, int]


def swap_cycles(
    deck: Sequence[int], most: int, seconds: float, least: int = 2
) -> tuple[dict[str, SwapFind], int]:
    """The role-swapping cycles of `deck` with half periods of `least` to `most` cards, L
    upward, every split of L and every |A|, until `seconds` pass (checked between searches);
    every state found replayed (analyse). Returns the cycles by key and the last L finished."""
    begin = time.monotonic()
    total = sum(deck)
    cycles: dict[str, SwapFind] = {}
    done = least - 1
    for cards in range(least, most + 1):
        for first in range(1, cards):
            for hand in range(1, total):
                if time.monotonic() - begin > seconds:
                    return cycles, done
                for deal in states(deck, cards, first, hand):
                    _keep(cycles, deal, (cards, first, hand))
        done = cards
    return cycles, done


def _keep(cycles: dict[str, SwapFind], deal: Deal, figures: tuple[int, int, int]) -> None:
    loop = analyse(deal)
    if loop.status != LOOP or loop.rotation_key in cycles:
        return
    assert loop.swaps_roles, deal
    cycles[loop.rotation_key] = SwapFind(
        loop.rotation_key or "", loop.period_tricks or 0, loop.period_cards or 0, deal, figures
    )
