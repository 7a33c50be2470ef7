"""The rules of Beggar-My-Neighbour in plain Python: the oracle every fast path is checked against.

Written to be read beside docs/rules.md: deques and loops, no cleverness, nothing shared with the
compiled kernels. Any number of seats, any hands, exact loop detection. Every rule set
(kernels/rules/sets.py) is played here, each choice where the rules reach it; bmn's is the default.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from bmn.kernels.rules.sets import (
    AT_LEAD,
    AT_ONCE,
    AT_TRICK,
    BATTLES,
    NO_LOOPS,
    TAKEN,
    TAKER,
    WON,
    RuleSet,
    rule_set,
)

FINISHED = "finished"
LOOP = "loop"
LIMIT = "limit"


@dataclass(frozen=True)
class Trick:
    """One taken pile: who took it, how many cards it held, every seat's hand size after."""

    taker: int
    cards: int
    hand_sizes: tuple[int, ...]


@dataclass(frozen=True)
class Result:
    """The outcome of one game. Loop fields are set only when status is 'loop'."""

    status: str
    cards: int
    tricks: int
    winner: int | None
    loop_start_cards: int | None = None
    loop_start_tricks: int | None = None
    period_cards: int | None = None
    period_tricks: int | None = None
    trace: tuple[Trick, ...] | None = None

    def as_dict(self) -> dict:
        """The JSON form: status, cards, tricks, winner, and the loop figures for a loop."""
        out = {
            "status": self.status,
            "cards": self.cards,
            "tricks": self.tricks,
            "winner": self.winner,
        }
        if self.status == LOOP:
            out.update(
                loop_start_cards=self.loop_start_cards,
                loop_start_tricks=self.loop_start_tricks,
                period_cards=self.period_cards,
                period_tricks=self.period_tricks,
            )
        return out


class _Table:
    """The hands, which seats are out, and the running counts."""

    def __init__(self, deal: Sequence[Sequence[int]], rules: RuleSet):
        self.rules = rules
        self.hands = [deque(hand) for hand in deal]
        self.out = [False] * len(deal)
        self.left = len(deal)  # seats still in the game
        self.cards = 0
        self.tricks = 0

    def go_out(self, seat: int) -> None:
        self.out[seat] = True
        self.left -= 1

    def last_seat(self) -> int:
        """The one seat still in the game (when `left` is 1)."""
        return self.out.index(False)

    def next_seat(self, seat: int) -> int:
        """The next seat after `seat` that is still in the game."""
        n = len(self.hands)
        for step in range(1, n + 1):
            if not self.out[(seat + step) % n]:
                return (seat + step) % n
        raise AssertionError("no seat left in the game")

    def take(self, seat: int, pile: list[int], won: bool) -> None:
        """`seat` takes the pile under its hand; `won`: by a penalty paid in full."""
        self.hands[seat].extend(pile)
        if self.rules.tricks == TAKEN or (self.rules.tricks == WON and won):
            self.tricks += 1

    def state(self, leader: int) -> tuple:
        """A trick-boundary state: every hand (None once a seat is out) and the leader."""
        hands = tuple(
            None if out else tuple(hand) for hand, out in zip(self.hands, self.out, strict=False)
        )
        return hands, leader

    def holder_of_most(self) -> int | None:
        sizes = [len(hand) for hand in self.hands]
        best = max(sizes)
        return sizes.index(best) if sizes.count(best) == 1 else None


def _out_while_paying(table: _Table, seat: int, court_layer: int, pile: list[int]) -> int | None:
    """`seat` is out while paying: the seat that pays next, or None once the court card's seat
    takes the pile (under taker; under next-pays, when the penalty comes round to that seat)."""
    if table.rules.out_while_paying == TAKER:
        table.take(court_layer, pile, won=False)
        return None
    payer = table.next_seat(seat)  # next-pays: the next seat still in pays what is left
    if payer == court_layer and table.left > 1:
        table.take(court_layer, pile, won=False)
        return None
    return payer


def _ended_at_once(table: _Table, seat: int, paid: bool, pile: list[int]) -> tuple[int, int]:
    """At once: `seat` has laid its last card and the game ends (2 seats). A card that pays a
    penalty in full still wins the pile for the court card's seat; else the other seat takes it."""
    other = table.next_seat(seat)
    table.go_out(seat)
    table.take(other, pile, won=paid)
    return other, len(pile)


def _play_trick(table: _Table, leader: int, limit: int | None) -> tuple[str | None, int, int]:
    """Play from `leader` until a pile is taken or the game stops.

    Returns (status or None if the game goes on, taker or winner, cards in the taken pile).
    """
    rules = table.rules
    pile: list[int] = []
    seat = leader
    court_layer = None  # the seat that laid the last court card of this trick
    owed = 0  # cards still owed to court_layer
    while True:
        if table.left == 1:  # the last seat in the game takes any pile and wins
            last = table.last_seat()
            if pile:
                table.take(last, pile, won=False)
            return FINISHED, last, len(pile)
        if not table.hands[seat]:  # required to lay a card, holds none: out
            table.go_out(seat)
            if court_layer is None:  # out on an ordinary turn: the pile stays
                seat = table.next_seat(seat)
                continue
            payer = _out_while_paying(table, seat, court_layer, pile)
            if payer is None:
                return None, court_layer, len(pile)
            seat = payer
            continue
        may_stop = court_layer is None or rules.limit_at != AT_LEAD  # at-lead: no penalty owed
        if limit is not None and table.cards >= limit and may_stop:
            return LIMIT, -1, 0
        card = table.hands[seat].popleft()
        pile.append(card)
        table.cards += 1
        paid = card == 0 and owed == 1  # this card pays the penalty in full
        if rules.empty_hand == AT_ONCE and not table.hands[seat]:
            return FINISHED, *_ended_at_once(table, seat, paid, pile)
        if card > 0:  # a court card: the next seat pays
            if court_layer is None and rules.tricks == BATTLES:  # a battle starts
                table.tricks += 1
            court_layer, owed = seat, card
            seat = table.next_seat(seat)
        elif court_layer is not None:  # a numeral paid towards the penalty
            owed -= 1
            if paid:
                table.take(court_layer, pile, won=True)
                return None, court_layer, len(pile)
        else:  # a numeral on an ordinary turn
            seat = table.next_seat(seat)


def play(
    deal: Sequence[Sequence[int]],
    limit: int | None = None,
    trace: bool = False,
    rules: str | RuleSet | None = None,
) -> Result:
    """Play a deal from seat 0 leading; stop at a finish, a repeated state, or `limit` cards.

    `rules` names the rule set (kernels/rules/sets.py; None: bmn's). ValueError for a seat count
    it is not defined for. A rule set that looks for no loops plays on to the limit; given no
    limit, it looks for them as bmn does, so that every game stops.
    """
    rules = rule_set(rules)
    if not rules.plays(len(deal)):
        raise ValueError(f"the {rules.name} rule set plays {rules.players} seats, not {len(deal)}")
    table = _Table(deal, rules)
    leader = 0
    seen = {table.state(leader): (0, 0)}
    tricks: list[Trick] = []

    def ended(status: str, winner: int | None, *loop: int) -> Result:
        done = tuple(tricks) if trace else None
        return Result(status, table.cards, table.tricks, winner, *loop, trace=done)

    if rules.empty_hand == AT_ONCE and not all(deal):  # a hand dealt empty: over before it starts
        holders = [seat for seat, hand in enumerate(deal) if hand]  # none: the last seat, as bmn
        return ended(FINISHED, holders[0] if holders else len(deal) - 1)

    while True:
        status, seat, taken = _play_trick(table, leader, limit)
        if trace and taken:
            tricks.append(Trick(seat, taken, tuple(len(hand) for hand in table.hands)))
        if status == LIMIT:
            return ended(LIMIT, table.holder_of_most())
        others = [hand for other, hand in enumerate(table.hands) if other != seat]
        if status == FINISHED or (rules.finish == AT_TRICK and not any(others)):
            return ended(FINISHED, seat)
        leader = seat  # under play-on a trick that empties every other hand is no finish
        if rules.loops == NO_LOOPS and limit is not None:
            continue
        state = table.state(leader)
        if state in seen:
            start_cards, start_tricks = seen[state]
            period = (table.cards - start_cards, table.tricks - start_tricks)
            return ended(LOOP, None, start_cards, start_tricks, *period)
        seen[state] = (table.cards, table.tricks)
