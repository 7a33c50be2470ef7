"""The deals every compiled kernel must score exactly as the reference engine: one annotated list
per seat count, and the generators of every small deal and of seeded random deals.

Each case names the rule branch (docs/rules.md, "Play" and "Loops") or the bit-queue trap it
exercises; `known` holds figures published for it (docs/rules.md's worked examples, the record
tables in records/), which the reference engine must give too. Every case holds at most 64 cards
(kernels/score.py's MAX_CARDS), so the kernels are handed all of them.

test_oracle.py scores these with every registered kernel; test_two.py, test_nseat.py and
test_cuda_two.py use them for each kernel's own entry points.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import samples

from bmn.kernels.deal import Deal, format_deal, parse_deal
from bmn.kernels.decks import STANDARD_DECK
from bmn.records.published import published_games

SEAT_COUNTS = (2, 3, 4)


@dataclass(frozen=True)
class Case:
    """One deal, why it is on the list, and any figures published for it."""

    deal: Deal
    why: str
    known: dict = field(default_factory=dict)  # a subset of reference.play(deal).as_dict()

    @property
    def text(self) -> str:
        return format_deal(self.deal)


def case(text: str, why: str, **known: object) -> Case:
    return Case(parse_deal(text), why, known)


def finished(cards: int, tricks: int, winner: int) -> dict:
    return {"status": "finished", "cards": cards, "tricks": tricks, "winner": winner}


LOOP = {"status": "loop"}


def nothing(seats: int) -> Case:
    """The deal of no cards: parse_deal refuses it, but a batch row (all sizes 0) can hold it."""
    why = "no cards at all: every seat but the last is out before a card is laid; it wins"
    return Case(((),) * seats, why, finished(0, 0, seats - 1))


TWO = [
    nothing(2),
    case("/-J", "seat 0 cannot lead: out at once, seat 1 wins with no card laid, no trick"),
    case("/J", "the same with a court card that is never laid"),
    case("-J/", "seat 1 cannot answer the first card: out on an ordinary turn; seat 0 takes it"),
    case("A/", "seat 1 holds nothing to pay an ace: out while paying, seat 0 takes the pile"),
    case("-/-", "both lay their only numeral: seat 0 is out on its turn, seat 1 takes the pile"),
    case("J/-", "a J paid with the payer's last card: the pile is taken and the game ends"),
    case("-/J", "seat 0 runs out while paying seat 1's J"),
    case("A/---", "seat 1 pays three of an ace's four cards, then is out while paying"),
    case("A/----", "an ace paid exactly with the payer's last card"),
    case("A/--", "out while paying, the penalty half paid"),
    case("---J/A---", "a court card as a seat's last card: its empty hand still wins the pile"),
    case("-J/Q-", "docs/rules.md: a court card answers a court card", **finished(4, 1, 0)),
    case("J/Q", "a court card paid with a court card, each a seat's only card"),
    case("Q/J", "the same, the second penalty smaller"),
    case("K/AAAA", "a payment stopped at its first card by a court card"),
    case("--------A/----J", "free play runs past a hand's end; tricks of unequal size"),
    case("Q" * 20 + "/JJJ", "seat 1 has courts only: every payment is a new penalty"),
    case("J" * 63 + "/-", "63 courts against one numeral: a trick with a 63-card hand behind"),
    case("J" * 64 + "/", "64 courts, seat 1 empty: out while paying the first J"),
    case("/" + "-" * 64, "64 numerals in seat 1, seat 0 empty: out before a card is laid"),
    case("-" * 63 + "/J", "64 cards, hands as unequal as they get: a 63-card numeral run"),
    case("J" * 32 + "/" + "-" * 32, "32 one-card tricks: piles collected under a full hand"),
    case("A" * 32 + "/" + "A" * 32, "64 aces: every card a penalty answered by a penalty"),
    case("-" * 32 + "/" + "-" * 32, "64 numerals: no trick until a seat runs out, a 64-card pile"),
    case(
        "-" * 40 + "K-----/Q" + "-" * 17,
        "a court card past bit 31 of its hand's masks (count-trailing-zeros on the high half)",
    ),
    case(
        "------------A-QK--J-----KQA/-AJ---Q-K----J-AQ-KJ-----",
        "a standard deck split 27/25, not as dealt",
    ),
    case(
        "-----------A-QK--J-----KQA/-AJ---Q-K----J-AQ-KJ-----",
        "one numeral short of a standard deck: 26/25",
    ),
    case(
        samples.RECORD,
        "docs/rules.md; published: Nessler 2022, the longest known game",
        **finished(8344, 1164, 1),
    ),
    case(
        samples.CASELLA,
        "docs/rules.md; published: Casella 2024, the first known game that never ends",
        status="loop",
        cards=474,
        tricks=66,
        winner=None,
        loop_start_cards=34,
        loop_start_tricks=4,
        period_cards=440,
        period_tricks=62,
    ),
    case("--J-/J-", "a loop of a tiny deck, found by enumerating tiny deals", **LOOP),
    case("-J/--J-", "a loop: the opening state comes back", **LOOP),
    case("J--/-J-", "a loop led by a court card", **LOOP),
    case("--J---------/-------J--", "a loop of two jacks among 20 numerals", **LOOP),
    case("----J-------J/-Q-----------", "a loop with a queen", **LOOP),
    case("--K--A-J--/A-JA-K-AA-", "a loop of mostly court cards", **LOOP),
    case("-----J-/---------J------", "a loop with unequal hands", **LOOP),
]

THREE = [
    nothing(3),
    case("--K/J-/---", "docs/rules.md: seat 2 out while paying seat 1's J", **finished(10, 2, 1)),
    case(
        "A--/-/K---",
        "docs/rules.md: seat 1 out on an ordinary turn, the pile stays",
        **finished(9, 2, 0),
    ),
    case(
        "---KKQ-AQJ----Q-Q-/AJ--J---A-JK-----/----------K--A---",
        "docs/rules.md: a long three-seat game",
        **finished(766, 116, 0),
    ),
    case("A/--/-", "seat 1 pays its last two cards and is out while paying"),
    case("A/-/--", "seat 1 out while paying, part paid: seat 0 takes the pile"),
    case("J/-/-", "a J paid with the payer's last card; seat 2 still holds one"),
    case("--/-/", "seat 2 out on an ordinary turn, then seat 1: seat 0 is left with the pile"),
    case("-/-/-", "seats 0 and 1 run out in one trick of numerals: seat 2 is left"),
    case("---J/A---/-", "a court card as a seat's last card, with a third seat between"),
    case("J/J/J", "every seat's only card a J: a chain round the table"),
    case("/-J/Q-", "seat 0 holds nothing: out before a card is laid, seat 1 leads"),
    case("-J//Q-", "seat 1 empty at the start, out when first asked to pay"),
    case("-//", "one holder: it lays a card and every other seat goes out"),
    case("/-/", "the middle seat holds everything"),
    case("//-", "the last seat holds everything: the others go out, no card is laid"),
    case("K/-/AAAA", "a king paid by a numeral then an ace: the payer changes mid-trick"),
    case("-" * 63 + "/J/", "64 cards, hands as unequal as they get, an empty third seat"),
    case("J" * 64 + "//", "64 courts and two empty seats: out while paying"),
    case("//" + "-" * 64, "two empty seats before a 64-card hand"),
    case("J" * 21 + "/" + "Q" * 21 + "/" + "K" * 22, "courts only: every card a new penalty"),
    case("-" * 62 + "/J/Q", "62 numerals against two court cards"),
    case(
        "-" * 34 + "A---/K" + "-" * 12 + "/" + "-" * 9 + "J",
        "a court card past bit 31 of its hand's masks",
    ),
    case("/--J-/J-", "a loop behind seat 0, out before the first card", **LOOP),
    case("-JQ/-/--J-", "a three-seat loop", **LOOP),
    case("--QJ-/KJ-/J-", "a three-seat cycle that starts at the deal itself", **LOOP),
    case("J--K/-QJ-/J-", "a three-seat loop with a king", **LOOP),
    case("-------J-/-JJ-----/-J-", "a loop of four jacks", **LOOP),
]

FOUR = [
    nothing(4),
    case("Q/J/-/-", "docs/rules.md: every court card a seat's last card", **finished(6, 3, 1)),
    case(
        "-J-----------/K------K---K-/-QA--Q--AA-Q-/J-Q-JK---AJ--",
        "docs/rules.md: a four-seat game",
        **finished(421, 55, 0),
    ),
    case("--/--/-/J", "a seat out in free play, then a court card"),
    case("J/J/J/J", "every seat's only card a J: a chain round the table"),
    case("A/A/A/A", "every seat's only card an ace"),
    case("-/-/-/-", "four numerals: three seats out in one trick"),
    case("//-J/Q-", "two empty seats before the leader"),
    case("/J/-/", "seats 0 and 3 empty: out at their first turn"),
    case("-J/Q-//", "two empty seats after the play: out while paying"),
    case("///J", "the last seat holds everything: no card is laid"),
    case("J///", "seat 0 lays its only card, the others go out while paying"),
    case("/A//", "seat 1 holds everything"),
    case("/" + "A" * 64 + "//", "64 aces in one hand"),
    case(
        "-" * 16 + "/" + "-" * 16 + "/" + "-" * 16 + "/" + "-" * 16, "64 numerals: a 64-card pile"
    ),
    case("A" * 16 + "/" + "A" * 16 + "/" + "A" * 16 + "/" + "A" * 16, "64 aces round the table"),
    case("-" * 61 + "/A/K/Q", "61 numerals against three court cards"),
    case(
        "-" * 34 + "Q---/K" + "-" * 9 + "/" + "-" * 5 + "/J----",
        "a court card past bit 31 of its hand's masks",
    ),
    case(
        "/--QJ-/KJ-/J-",
        "the three-seat cycle behind an empty seat 0: it starts after trick 1",
        **LOOP,
    ),
    case("-J-/--/J/-JJ-", "a four-seat loop", **LOOP),
    case("--J/-Q-/----/---J-", "a four-seat loop with a queen", **LOOP),
    case("-J/---/-K-/----Q-----", "a four-seat loop with a king", **LOOP),
    case("-Q/---/--Q--/-Q--", "a loop of three queens", **LOOP),
    case("-/------J-/--------J-/Q", "a loop with a short first hand", **LOOP),
    case("--J/--/JA/-", "a loop with an ace", **LOOP),
]
# Four-seat cycles in which every seat holds cards at some trick (most 3- and 4-seat cycles keep
# only two or three seats holding cards).
FULL_TABLE_LOOPS = [
    "---Q-/----Q/QQ---/--QK-",
    "---Q-/----Q/Q----/--QK-",
    "---A--/--Q---/----Q-/-----J",
    "-----Q-/--J----/Q-----------/----------J---",
]
FOUR += [
    case(text, "a four-seat cycle that keeps every seat holding", **LOOP)
    for text in FULL_TABLE_LOOPS
]


def _published(seats: int, listed: list[Case]) -> list[Case]:
    """The published record games of `seats` seats (records/), those not listed already."""
    have = {c.text for c in listed}
    return [
        case(
            game.deal,
            f"published: {game.name}",
            status=game.status,
            cards=game.cards,
            tricks=game.tricks,
        )
        for game in published_games(seats)
        if game.deal not in have and game.rules == "bmn"  # the cases' figures are bmn's
    ]


EDGE_CASES = {
    seats: cases + _published(seats, cases) for seats, cases in ((2, TWO), (3, THREE), (4, FOUR))
}


# -- every small deal --------------------------------------------------------------------------


def every_deal(seats: int, most: int) -> Iterator[Deal]:
    """Every deal of 1 to `most` cards (any values) over `seats` seats, every split."""
    for n in range(1, most + 1):
        for cards in itertools.product(range(5), repeat=n):
            for cuts in itertools.combinations_with_replacement(range(n + 1), seats - 1):
                ends = (0, *cuts, n)
                yield tuple(cards[ends[i] : ends[i + 1]] for i in range(seats))


# -- seeded random deals -----------------------------------------------------------------------

# Numerals five times as likely as each court card: long enough games, still many tricks.
BIASED = (0, 0, 0, 0, 0, 1, 2, 3, 4)


def split_deal(cards: list[int], cuts: list[int], seats: int) -> Deal:
    """Cards cut into `seats` hands at the cut points (taken modulo len + 1), seat 0 first."""
    ends = [0, *sorted(c % (len(cards) + 1) for c in cuts[: seats - 1]), len(cards)]
    return tuple(tuple(cards[ends[i] : ends[i + 1]]) for i in range(seats))


def standard_deals(n: int, seats: int, seed: int) -> list[Deal]:
    """n shuffled standard decks, each dealt one card at a time from seat 0 round the table."""
    rng = np.random.default_rng(seed)
    deck = np.array(STANDARD_DECK)
    deals = []
    for _ in range(n):
        order = [int(v) for v in rng.permutation(deck)]
        deals.append(tuple(tuple(order[s::seats]) for s in range(seats)))
    return deals


def small_decks(n: int, seats: int, seed: int) -> list[Deal]:
    """n decks of 0 to 64 cards (numerals weighted), cut anywhere: unequal and empty hands."""
    rng = np.random.default_rng(seed)
    deals = []
    for _ in range(n):
        size = int(rng.integers(0, 65))
        cards = [int(v) for v in rng.choice(BIASED, size)]
        deals.append(split_deal(cards, [int(c) for c in rng.integers(0, size + 1, 3)], seats))
    return deals


def tiny_deck(n: int, courts: dict[int, int]) -> list[int]:
    """n cards, numerals but for courts {position: value}: such decks often loop."""
    return [courts.get(at, 0) for at in range(n)]


def looping_decks(n: int, seats: int, seed: int) -> list[Deal]:
    """n decks of 8-12 cards, two or three of them jacks, cut anywhere: about 1 in 20 loops."""
    rng = np.random.default_rng(seed)
    deals = []
    for _ in range(n):
        size = int(rng.integers(8, 13))
        jacks = rng.choice(size, size=int(rng.integers(2, 4)), replace=False)
        cards = tiny_deck(size, {int(at): 1 for at in jacks})
        deals.append(split_deal(cards, [int(c) for c in rng.integers(0, size + 1, 3)], seats))
    return deals
