"""Is this deal played as stated? The one verifier of figures bmn did not compute itself.

Every door where a deal comes in with figures said of it asks this module: a table scored or
imported (`bmn score`, `records import`), another store merged (`records merge`), the
published record games (`records published`), a stored find beside its replay (`records
show`, the web page), and bench's self-check (the kernel against the reference engine). A
`Claim` goes in: a deal, the rule set it is played under, the deck it must be of, and what is
`Stated` of it (cards, tricks, status, winner, a cycle's period). A `Verdict` comes out: the
game as replayed, and each `Difference` between that and the claim, worded here, once, for
every front end (`Verdict.words`).

The engines: the compiled kernels (kernels/score.py) play every claim, a batch at a time; where
`engines` is BOTH the reference engine (kernels/reference.py) plays each one again, and should
the two differ the verdict says so (`Verdict.engines`): that is a fault of bmn's, not of the
claim. A batch of millions (a merged store's finds kept in bulk) is held against the kernel in
arrays (`disagreeing`), each difference then judged here as any other.

>>> verdict = verify([Claim.of("-J/Q-", Stated(cards=5, tricks=1))])[0]
>>> verdict.agrees, verdict.words()
(False, 'stated 5 cards, replayed 4')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from bmn.kernels.config import STATUS_CODES, STATUS_NAMES
from bmn.kernels.deal import Deal, decode, format_deal
from bmn.kernels.decks import Counts, counts_of, counts_text
from bmn.kernels.reference import Result
from bmn.kernels.results import Scores
from bmn.kernels.rules.sets import DEFAULT, RuleSet, rule_set

# Which engines play a claim: the compiled kernel alone (a table of millions), the reference
# engine alone (a handful of published games), or both, each held against the other.
KERNEL, REFERENCE, BOTH = "kernel", "reference", "both"
ENGINES = (KERNEL, REFERENCE, BOTH)

# What a claim may state of its game, in the order differences are said.
FIGURES = ("status", "cards", "tricks", "winner", "period_cards", "period_tricks")


@dataclass(frozen=True)
class Stated:
    """What is said of a deal's game; None for what is not said."""

    cards: int | None = None
    tricks: int | None = None
    status: str | None = None
    winner: int | None = None
    period_cards: int | None = None
    period_tricks: int | None = None

    def __bool__(self) -> bool:
        if self is NOTHING_STATED:  # most rows of a large table
            return False
        return any(value is not None for value in vars(self).values())

    def as_dict(self) -> dict[str, Any]:
        """The figures said, by name (`bmn score --json`'s 'stated')."""
        return {name: value for name, value in vars(self).items() if value is not None}


NOTHING_STATED = Stated()


class Claim(NamedTuple):
    """A deal (its cards as penalty values, hands concatenated, and its hand sizes), the rule
    set it is played under, the deck it must be of (counts N,J,Q,K,A; None: any deck) and
    what is stated of its game. (A named tuple, as Verdict: a table of millions makes one a
    row.)"""

    values: bytes
    sizes: tuple[int, ...]
    stated: Stated = NOTHING_STATED
    rules: str = DEFAULT
    deck: Counts | None = None

    @classmethod
    def of(
        cls,
        deal: str | Sequence[Sequence[int]],
        stated: Stated = NOTHING_STATED,
        rules: str | RuleSet | None = None,
        deck: Counts | None = None,
    ) -> Claim:
        """A claim of a deal given as text ('-J/Q-') or as hands of penalty values."""
        from bmn.kernels.deal import parse_deal

        hands = parse_deal(deal, typed=True) if isinstance(deal, str) else deal
        values = bytes(int(v) for hand in hands for v in hand)
        sizes = tuple(len(hand) for hand in hands)
        return cls(values, sizes, stated, rule_set(rules).name, deck)

    @property
    def hands(self) -> Deal:
        return decode(self.values, self.sizes)

    @property
    def deal(self) -> str:
        """The deal in record notation, hands joined by '/'."""
        return format_deal(self.hands)


@dataclass(frozen=True)
class Difference:
    """One way a replay differs from its claim: the figure (one of FIGURES, 'deck' or
    'seats'), what the claim says and what the replay gives (None: the replay has none)."""

    figure: str
    stated: Any
    replayed: Any

    def words(self, said: str = "stated") -> str:
        """'stated 2,411 cards, replayed 2,410' (`said`: the claim's source, in a word)."""
        figure, stated, replayed = self.figure, self.stated, self.replayed
        if figure == "seats":
            return f"a deal of {stated} hands; rule set {replayed!r} plays {_seats(replayed)} seats"
        if figure == "deck":
            return (
                f"a deal of {sum(replayed):,} cards (deck {counts_text(replayed)}), not of deck"
                f" {counts_text(stated)} ({sum(stated):,} cards)"
            )
        if figure == "status":
            return f"{said} {stated}, replayed {replayed}"
        if figure == "winner":
            got = "no winner" if replayed is None else f"seat {replayed}"
            return f"{said} seat {stated} the winner, replayed {got}"
        if figure.startswith("period_"):
            unit = figure.removeprefix("period_")
            got = "no cycle" if replayed is None else f"{replayed:,}"
            return f"{said} a period of {stated:,} {unit}, replayed {got}"
        return f"{said} {stated:,} {figure}, replayed {replayed:,}"


class Verdict(NamedTuple):
    """A claim held against its replay: `result` (None where the claim was refused before
    play: a seat count its rule set does not play, another deck than the one it must be of),
    each difference, and `engines` (the kernel's result, then the reference engine's) where
    the two engines disagree, in which case `result` is the reference engine's."""

    claim: Claim
    result: Result | None
    differences: tuple[Difference, ...] = ()
    engines: tuple[Result, Result] | None = None

    @property
    def agrees(self) -> bool:
        """Whether the deal is played as stated, by engines that agree."""
        return not self.differences and self.engines is None

    @property
    def played(self) -> bool:
        """Whether the claim was played (not refused for its seats or deck)."""
        return self.result is not None

    def words(self, said: str = "stated") -> str:
        """Why it does not agree, in one line ('' when it does): the engines' disagreement
        first (a fault of bmn's), then each figure, `said` naming the claim's source."""
        if self.engines is not None:
            kernel, reference = self.engines
            return f"the kernel plays {outcome(kernel)}, the reference engine {outcome(reference)}"
        return "; ".join(difference.words(said) for difference in self.differences)


def outcome(result: Result) -> str:
    """A game's outcome in a few words: 'finished, 8,344 cards, 1,164 tricks, seat 1 wins'."""
    figures = f"{result.status}, {result.cards:,} cards, {result.tricks:,} tricks"
    if result.status == "loop":
        return f"{figures}, a period of {result.period_cards:,} cards"
    return f"{figures}, {_winner(result.winner)}" if result.status == "finished" else figures


def judge(claim: Claim, result: Result) -> Verdict:
    """The verdict on a claim whose game one engine has played: each stated figure held
    against `result` (what `verify` does for every claim once played)."""
    stated, found = claim.stated, []
    if stated is NOTHING_STATED:  # most rows of a large table: nothing to hold it against
        return Verdict(claim, result)
    for figure in FIGURES:
        said = getattr(stated, figure)
        if said is not None and said != getattr(result, figure):
            found.append(Difference(figure, said, getattr(result, figure)))
    return Verdict(claim, result, tuple(found))


def refusal(claim: Claim) -> Difference | None:
    """Why a claim cannot be played as given, or None: a seat count its rule set does not
    play, or a deal of another deck than the claim's."""
    if not _plays(claim.rules, len(claim.sizes)):
        return Difference("seats", len(claim.sizes), rule_set(claim.rules).name)
    if claim.deck is not None and (counts := counts_of(claim.values)) != tuple(claim.deck):
        return Difference("deck", tuple(claim.deck), counts)
    return None


@cache
def _plays(rules: str, seats: int) -> bool:
    return rule_set(rules).plays(seats)


def verify(
    claims: Sequence[Claim],
    engines: str = BOTH,
    threads: int | None = None,
    device: str = "cpu",
    refused_none: bool = False,
) -> list[Verdict]:
    """Play every claim under its rule set by `engines` (KERNEL, REFERENCE or BOTH) and judge
    it: one verdict a claim, in order. A claim refused before play (`refusal`) is not played;
    `refused_none` says the caller has asked `refusal` of each already. `threads` and `device`
    are the kernel's (kernels/score.py)."""
    if engines not in ENGINES:
        raise ValueError(f"engines is one of {', '.join(ENGINES)}, not {engines!r}")
    verdicts: list[Verdict | None] = [None] * len(claims)
    playable: dict[str, list[int]] = {}
    for i, claim in enumerate(claims):
        refused = None if refused_none else refusal(claim)
        if refused is not None:
            verdicts[i] = Verdict(claim, None, (refused,))
        else:
            playable.setdefault(claim.rules, []).append(i)
    for rules, picked in playable.items():
        kernel = _kernel(claims, picked, rules, threads, device) if engines != REFERENCE else None
        for k, i in enumerate(picked):
            played = kernel[k] if kernel is not None else None
            verdicts[i] = _verdict(claims[i], played, engines != KERNEL)
    return [verdict for verdict in verdicts if verdict is not None]


def _kernel(
    claims: Sequence[Claim], picked: list[int], rules: str, threads: int | None, device: str
) -> list[Result]:
    from bmn.kernels.score import score_values  # compiles the kernels: on first use

    values = [claims[i].values for i in picked]
    sizes = [claims[i].sizes for i in picked]
    scores = score_values(values, sizes, threads, device, rules)
    return results(scores)


def results(scores: Scores) -> list[Result]:
    """Every deal's Result of a batch, as `scores[i]` gives each (read a column at a time: a
    table of millions makes a Result a row)."""
    columns = [array.tolist() for array in scores.arrays()]
    out = []
    for cards, tricks, status, winner, *loop in zip(*columns, strict=True):
        name = STATUS_NAMES[status]
        loop = loop if name == "loop" else (None, None, None, None)
        out.append(Result(name, cards, tricks, None if winner < 0 else winner, *loop))
    return out


def _verdict(claim: Claim, kernel: Result | None, reference: bool) -> Verdict:
    """A played claim's verdict: by the kernel's result, or the reference engine's, and where
    both played, held against each other first."""
    if not reference:
        assert kernel is not None
        return judge(claim, kernel)
    from bmn.kernels.reference import play

    slow = play(claim.hands, rules=claim.rules)
    if kernel is not None and kernel.as_dict() != slow.as_dict():
        return Verdict(claim, slow, judge(claim, slow).differences, (kernel, slow))
    return judge(claim, slow)


def disagreeing(
    decks: np.ndarray,
    sizes: Sequence[int],
    stated: np.ndarray,
    rules: str = DEFAULT,
    status: str = "finished",
) -> tuple[int, list[Verdict]]:
    """Deals of one hand-size shape (`decks`: rows of penalty values) stated to end with
    `status` after the cards and tricks of `stated` (rows of two numbers), played by the
    kernel in one batch: how many do not agree, and their verdicts (`judge`'s). For the
    millions of finds a store keeps in bulk, each of which a Claim would cost too much."""
    from bmn.kernels.score import score

    decks = np.ascontiguousarray(decks, dtype=np.uint8)
    hands = np.tile(np.asarray(sizes, dtype=np.int64), (len(decks), 1))
    scores = score(decks, hands, rules=rules)
    cards, tricks = stated[:, 0], stated[:, 1]
    code = STATUS_CODES[status]
    wrong = np.flatnonzero(
        (scores.cards != cards) | (scores.tricks != tricks) | (scores.status != code)
    )
    verdicts = []
    for i in wrong:
        said = Stated(int(cards[i]), int(tricks[i]), status)
        claim = Claim(decks[i].tobytes(), tuple(int(n) for n in sizes), said, rules)
        verdicts.append(judge(claim, scores.result(int(i))))
    return len(wrong), verdicts


def first_disagreement(verdicts: Iterable[Verdict]) -> Verdict | None:
    """The first verdict that does not agree, or None."""
    return next((verdict for verdict in verdicts if not verdict.agrees), None)


def _seats(rules: str) -> str:
    return rule_set(rules).seat_counts


def _winner(seat: int | None) -> str:
    return "no winner" if seat is None else f"seat {seat} wins"
