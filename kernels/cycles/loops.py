"""Cycle analysis of non-terminating games: the states of a cycle, its figures and its key.

A game never ends exactly when a trick-boundary state (every hand, which seats are out, the
seat to lead) repeats (docs/rules.md, "Counting"). This module plays a game one trick at a
time, keeps every state it passes, and describes the cycle it falls into: where it starts, its
period, every state on it, which of them are balanced, and a canonical key that names the cycle
whatever deal led into it. Plain Python, any number of seats, checked against the reference engine.

With 3 or 4 seats a cycle may hold every seat (kind ALL_IN: every seat keeps cards for ever) or
only the seats left after others went out (kind REDUCED: out is for ever, so a cycle's out seats
are the same on every state of it, and every seat still in holds cards on every state). Its
seat-blind key (`rotation_key`) is the key of the cycle among the seats still in, so a two-seat
cycle reached from a 3-seat deal has the two-seat key, and the number of hands in the key is the
number of seats in the cycle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bmn.kernels.deal import Hand, format_hand
from bmn.kernels.decks import even_sizes
from bmn.kernels.reference import FINISHED, LOOP, Result
from bmn.kernels.rules.sets import AT_ONCE, BATTLES, NEXT_PAYS, PLAY_ON, TAKEN, RuleSet, rule_set

# A trick-boundary state: every hand (None once a seat is out) and the seat to lead.
Hands = tuple[Hand | None, ...]
State = tuple[Hands, int]

# The kinds of cycle: every seat in it, or the seats left after the others went out.
ALL_IN = "all-in"
REDUCED = "reduced"


@dataclass(frozen=True)
class TrickOutcome:
    """One trick played from a state: the hands after it, the taker, the cards laid, and
    whether the game finished (then `taker` is the winner)."""

    hands: Hands
    taker: int
    cards: int
    finished: bool
    counted: int = 1  # the tricks it counts under the rule set (Reading.counted)


def _next_in(out: list[bool], seat: int) -> int:
    """The next seat after `seat` still in the game."""
    n = len(out)
    for step in range(1, n + 1):
        if not out[(seat + step) % n]:
            return (seat + step) % n
    raise AssertionError("no seat left in the game")


@dataclass(frozen=True)
class Reading:
    """The choices of a rule set that the forward step reads (kernels/rules/sets.py), as flags:
    made once a game, not looked up once a card."""

    next_pays: bool = False  # a seat out while paying drops out; the next seat pays the rest
    at_once: bool = False  # the game ends when a seat lays its last card (2 seats)
    play_on: bool = False  # a trick leaving every other seat empty-handed is no finish
    tricks: str = TAKEN  # what `tricks` counts

    @classmethod
    def of(cls, rules: str | RuleSet | None) -> Reading:
        chosen = rule_set(rules)
        return cls(
            chosen.out_while_paying == NEXT_PAYS,
            chosen.empty_hand == AT_ONCE,
            chosen.finish == PLAY_ON,
            chosen.tricks,
        )

    def counted(self, pile: Sequence[int]) -> int:
        """The tricks a trick that laid `pile` counts: every pile taken (bmn), a pile won by a
        penalty paid in full (a court card followed by exactly its value in numerals), or a
        battle started (a court card laid with none owed: the first court card of a trick)."""
        if self.tricks == TAKEN:
            return 1 if pile else 0
        courts = [at for at, v in enumerate(pile) if v]
        if self.tricks == BATTLES:
            return 1 if courts else 0
        return int(bool(courts) and len(pile) - 1 - courts[-1] == pile[courts[-1]])


BMN = Reading()


def lay_trick(
    hands: Sequence[Sequence[int] | None], leader: int, reading: Reading = BMN
) -> tuple[int, list[int], list[int], list[bool], bool]:
    """Play one trick from a trick-boundary state, by docs/rules.md "Play" (seats going out too),
    under a rule set's `reading` (bmn's by default).

    The rules once for every forward step outside the reference engine: play_trick here and
    backward play (kernels/cycles/backward.py) build their own hands from what it returns, so each
    keeps its own hand type (tuples here, bytes there). Returns (taker, laid, pile, out, last):
    the seat that takes the pile, how many cards came off the top of each hand, the pile in the
    order laid, which seats are out, and `last` when the game ends in the trick (the taker is
    the only seat left in the game, or under the at-once ending a seat laid its last card): the
    taker wins.
    """
    out = [h is None for h in hands]
    laid = [0] * len(hands)
    pile: list[int] = []
    seat, court_layer, owed = leader, -1, 0
    left = out.count(False)  # seats still in the game
    while True:
        if left == 1:  # the last seat in the game takes any pile and wins
            return out.index(False), laid, pile, out, True
        hand = hands[seat]
        if laid[seat] == len(hand):  # must lay a card, holds none: out
            out[seat] = True
            left -= 1
            if court_layer >= 0:  # out while paying
                if not reading.next_pays:  # bmn: the court card's seat takes the pile
                    return court_layer, laid, pile, out, False
                seat = _next_in(out, seat)  # Paulhus: the next seat still in pays the rest
                if seat == court_layer and left > 1:
                    return court_layer, laid, pile, out, False
                continue
            seat = _next_in(out, seat)  # out on an ordinary turn: the pile stays
            continue
        card = hand[laid[seat]]
        laid[seat] += 1
        pile.append(card)
        if reading.at_once and laid[seat] == len(hand):  # its last card: the game ends
            out[seat] = True
            return _next_in(out, seat), laid, pile, out, True
        if card > 0:  # a court card: the next seat pays
            seat, court_layer, owed = _next_in(out, seat), seat, card
        elif court_layer >= 0:  # a numeral paid towards the penalty
            owed -= 1
            if owed == 0:
                return court_layer, laid, pile, out, False
        else:  # a numeral on an ordinary turn
            seat = _next_in(out, seat)


def play_trick(hands: Hands, leader: int, reading: Reading = BMN) -> TrickOutcome:
    """Play one trick from a trick-boundary state: the hands after it, and whether the game
    finished (the last seat in the game, or, unless the rule set plays on, a taker leaving every
    other seat without cards)."""
    taker, laid, pile, out, last = lay_trick(hands, leader, reading)
    after = tuple(
        None if out[s] else tuple(hand[n:]) + (tuple(pile) if s == taker else ())
        for s, (hand, n) in enumerate(zip(hands, laid, strict=True))
    )
    others = any(h for s, h in enumerate(after) if s != taker)
    finished = last or (not others and not reading.play_on)
    return TrickOutcome(after, taker, len(pile), finished, reading.counted(pile))


@dataclass(frozen=True)
class CycleState:
    """One state on a cycle, and the cards laid in the trick played from it."""

    hands: Hands
    leader: int
    balanced: bool
    trick_cards: int

    def as_dict(self) -> dict:
        return {
            "hands": [_hand_text(h) for h in self.hands],
            "leader": self.leader,
            "balanced": self.balanced,
            "trick_cards": self.trick_cards,
        }


@dataclass(frozen=True)
class LoopAnalysis(Result):
    """A game played to its end or its first repeated state, with the cycle's states."""

    states: tuple[CycleState, ...] = ()
    key: str | None = None
    rotation_key: str | None = None

    @property
    def balanced_states(self) -> tuple[CycleState, ...]:
        return tuple(s for s in self.states if s.balanced)

    @property
    def seats(self) -> int:
        """The seats at the table (the deal's hands); 0 for a game that finished."""
        return len(self.states[0].hands) if self.states else 0

    @property
    def seats_out(self) -> tuple[int, ...]:
        """The seats out on the cycle (the same on every state of it: out is for ever)."""
        return out_seats(self.states[0].hands) if self.states else ()

    @property
    def seats_in(self) -> tuple[int, ...]:
        """The seats that keep cards for ever on the cycle."""
        return tuple(s for s in range(self.seats) if s not in self.seats_out)

    @property
    def kind(self) -> str | None:
        """ALL_IN or REDUCED for a loop, None for a game that finished."""
        return cycle_kind(self.states[0].hands) if self.states else None

    @property
    def swaps_roles(self) -> bool:
        """Whether the cycle passes through its own mirror image (swaps_roles); False for a game
        that finished."""
        return bool(self.states) and swaps_roles([(s.hands, s.leader) for s in self.states])

    def as_dict(self) -> dict:
        out = super().as_dict()
        if self.status == LOOP:
            out.update(
                key=self.key,
                rotation_key=self.rotation_key,
                seats=self.seats,
                seats_in=list(self.seats_in),
                seats_out=list(self.seats_out),
                kind=self.kind,
                balanced_states=len(self.balanced_states),
                states=[s.as_dict() for s in self.states],
            )
        return out


def _hand_text(hand: Hand | None) -> str | None:
    return None if hand is None else format_hand(hand)


def is_balanced(hands: Hands) -> bool:
    """Every seat in the game and the hand sizes those of an even deal round the table, seat 0
    first (26/26 for the standard deck and two players)."""
    if any(h is None for h in hands):
        return False
    sizes = tuple(len(h) for h in hands)
    return sizes == even_sizes(sum(sizes), len(hands))


def state_text(hands: Hands, leader: int) -> str:
    """A state as one string: the leader, ':', then the hands joined by '/' ('x' for out)."""
    return f"{leader}:" + "/".join("x" if h is None else format_hand(h) for h in hands)


def cycle_key(states: Sequence[State]) -> str:
    """The name of a cycle: the smallest state string on it, so the same cycle reached from any
    deal, entered at any state, gets the same key."""
    return min(state_text(hands, leader) for hands, leader in states)


def swaps_roles(states: Sequence[State]) -> bool:
    """Whether a two-seat cycle passes through its own mirror image (the hands exchanged, the
    other seat to lead): then every half period the hands swap roles, and no hand of the cycle
    comes back to the same seat sooner than a whole period."""
    mirror = [((hands[1], hands[0]), 1 - leader) for hands, leader in states]
    return len(states[0][0]) == 2 and cycle_key(mirror) == cycle_key(states)


def out_seats(hands: Hands) -> tuple[int, ...]:
    """The seats out of the game in a state."""
    return tuple(s for s, hand in enumerate(hands) if hand is None)


def cycle_kind(hands: Hands) -> str:
    """ALL_IN if no seat is out in a cycle's state, else REDUCED."""
    return REDUCED if out_seats(hands) else ALL_IN


def key_seats(key: str) -> tuple[int, tuple[int, ...]]:
    """The seats at the table and the seats out, read back from a cycle key (cycle_key's form:
    'leader:hand/hand/...', 'x' for a seat out), so a stored key needs no other column."""
    hands = key.split(":", 1)[1].split("/")
    return len(hands), tuple(s for s, hand in enumerate(hands) if hand == "x")


def turn(hands: Hands, leader: int, r: int) -> State:
    """The state with the seats renumbered round the table: seat s + r becomes seat s."""
    return hands[r:] + hands[:r], (leader - r) % len(hands)


def seats_in_state(hands: Hands, leader: int) -> State:
    """The state among the seats still in: out seats dropped, the others renumbered in seat
    order (play skips out seats, so this is the same game with fewer seats)."""
    kept = [s for s, hand in enumerate(hands) if hand is not None]
    return tuple(hands[s] for s in kept), kept.index(leader)


def rotation_key(states: Sequence[State]) -> str:
    """The cycle's key up to renumbering the seats round the table (seat s becomes s + r): play
    is the same under that renaming, so a cycle and its rotations are one cycle up to seats.
    With seats out it is the key of the cycle among the seats still in (seats_in_state): out
    seats take no part in play, so every way of seating that smaller cycle is one cycle."""
    inner = [seats_in_state(hands, leader) for hands, leader in states]
    n = len(inner[0][0])
    return min(cycle_key([turn(hands, leader, r) for hands, leader in inner]) for r in range(n))


def analyse(
    deal: Sequence[Sequence[int] | None], leader: int = 0, rules: str | RuleSet | None = None
) -> LoopAnalysis:
    """Play a deal from `leader` to its end or its first repeated state under `rules` (a rule
    set's name or RuleSet; None: bmn's), and describe the cycle.

    Counts follow reference.play exactly, under every rule set (a rule set that looks for no
    loops is played as reference.play plays it given no limit: looking for them); for a loop,
    `states` lists the cycle from its first state, in play order, each with the cards of the
    trick played from it. A hand may be None (a seat out), to play on from any trick-boundary
    state. ValueError for a seat count the rule set is not defined for.
    """
    chosen = rule_set(rules)
    if not chosen.plays(len(deal)):
        seats = chosen.seat_counts
        raise ValueError(f"the {chosen.name} rule set plays {seats} seats, not {len(deal)}")
    reading = Reading.of(chosen)
    hands: Hands = tuple(None if h is None else tuple(int(v) for v in h) for h in deal)
    if reading.at_once and any(h is not None and not h for h in hands):  # dealt empty:
        holders = [s for s, hand in enumerate(hands) if hand]  # over before it starts (ref)
        return LoopAnalysis(FINISHED, 0, 0, holders[0] if holders else len(hands) - 1)
    seen: dict[State, int] = {(hands, leader): 0}
    path: list[tuple[State, TrickOutcome]] = []  # every state passed and the trick from it
    while True:
        step = play_trick(hands, leader, reading)
        path.append(((hands, leader), step))
        if step.finished:
            cards, tricks = _figures(path)
            return LoopAnalysis(FINISHED, cards, tricks, step.taker)
        hands, leader = step.hands, step.taker
        if (hands, leader) in seen:
            return _loop(path, seen[(hands, leader)])
        seen[(hands, leader)] = len(path)


def _figures(path: list[tuple[State, TrickOutcome]]) -> tuple[int, int]:
    """The cards laid and the tricks counted along a stretch of play."""
    return sum(step.cards for _, step in path), sum(step.counted for _, step in path)


def _loop(path: list[tuple[State, TrickOutcome]], start: int) -> LoopAnalysis:
    cycle = path[start:]
    cards, tricks = _figures(path)
    start_cards, start_tricks = _figures(path[:start])
    states = tuple(
        CycleState(hands, leader, is_balanced(hands), step.cards) for (hands, leader), step in cycle
    )
    raw = [state for state, _ in cycle]
    return LoopAnalysis(
        LOOP,
        cards,
        tricks,
        None,
        start_cards,
        start_tricks,
        cards - start_cards,
        tricks - start_tricks,
        states=states,
        key=cycle_key(raw),
        rotation_key=rotation_key(raw),
    )
