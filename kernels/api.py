"""The game as a library: play a deal, score many, deal at random, read and write deals, and
study the games that never end. What `bmn.kernels` exports (docs/library.md walks through it).

Each function is a thin typed wrapper over the module that owns the rule (reference.py,
score.py, dealer.py, deal.py, cycles/): it only reads its input into the form that module takes
and turns bad input into DealError. The compiled kernels are imported on first use, so
importing this module imports no numba and compiles nothing.

>>> result = play("---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---")
>>> result.status, result.cards, result.tricks, result.winner
('finished', 8344, 1164, 1)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from bmn.kernels.config import MAX_DEAL_CARDS, MAX_SEATS, MIN_SEATS
from bmn.kernels.cycles.backward import BasinSearch, PreimageDeal
from bmn.kernels.cycles.loops import LoopAnalysis, analyse
from bmn.kernels.deal import (
    VALUE_SYMBOL,
    Deal,
    DealError,
    deal_texts,
    format_deal,
    parse_deal,
    too_many_cards,
)
from bmn.kernels.decks import deck_values
from bmn.kernels.reference import Result, Trick
from bmn.kernels.results import Scores

__all__ = [
    "BasinSearch",
    "Deal",
    "DealError",
    "DealLike",
    "Deals",
    "LoopAnalysis",
    "PreimageDeal",
    "Result",
    "Scores",
    "Trick",
    "as_deal",
    "cycle",
    "format_deal",
    "parse_deal",
    "play",
    "random_deals",
    "reaching_deals",
    "score_deals",
]

# A deal as the API takes it: text ('-J/Q-'), its hands as texts (['-J', 'Q-']), or hands of
# penalty values ((0, 1), (2, 0)): 0 for a numeral, 1-4 for J, Q, K, A.
DealLike = str | Sequence[str] | Sequence[Sequence[int]]


def as_deal(deal: DealLike) -> Deal:
    """Any form a deal is given in, read and checked: hands of penalty values in seat order.

    >>> as_deal("-J/Q-")
    ((0, 1), (2, 0))
    >>> as_deal([[0, 1], [2, 0]])
    ((0, 1), (2, 0))
    """
    if isinstance(deal, str) or all(isinstance(hand, str) for hand in deal):
        return parse_deal(deal)  # type: ignore[arg-type]  # a str or a sequence of them
    hands = tuple(tuple(_value(v, seat) for v in hand) for seat, hand in enumerate(deal))
    if sum(map(len, hands)) > MAX_DEAL_CARDS:  # as for a deal given as text
        raise too_many_cards(sum(map(len, hands)))
    if not MIN_SEATS <= len(hands) <= MAX_SEATS:
        raise DealError(f"a deal has {MIN_SEATS} to {MAX_SEATS} hands, got {len(hands)}")
    if not any(hands):
        raise DealError("every hand is empty; a deal needs at least one card")
    return hands


def _value(v: object, seat: int) -> int:
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= v < 5:
        return int(v)
    raise DealError(
        f"hand {seat + 1}: {v!r} is not a penalty value; expected 0 (numeral) to 4"
        f" ({', '.join(f'{i} {s}' for i, s in enumerate(VALUE_SYMBOL) if i)})"
    )


def play(deal: DealLike, *, limit: int | None = None, trace: bool = False) -> Result:
    """Play one deal with the reference engine (seat 0 leads), as `bmn play` does.

    Any 2 to 4 hands of any sizes and deck. The game stops when it finishes, at its first
    repeated state (status 'loop', with where the cycle starts and its period), or after
    `limit` cards (status 'limit'). With `trace`, `result.trace` lists every trick: its
    taker, its cards and every hand's size after it.

    >>> play("-J/Q-", trace=True).trace
    (Trick(taker=0, cards=4, hand_sizes=(4, 0)),)
    >>> loop = play("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA")
    >>> loop.status, loop.period_cards, loop.period_tricks
    ('loop', 440, 62)
    >>> play("---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---", limit=100).status
    'limit'
    """
    from bmn.kernels.reference import play as reference_play

    if limit is not None and limit < 1:
        raise DealError(f"limit must be at least 1 card, got {limit}")
    return reference_play(as_deal(deal), limit=limit, trace=trace)


@dataclass(frozen=True)
class Deals:
    """Deals as the compiled kernels take them: `rows`, uint8 (N, W), each deal's hands
    concatenated in seat order (penalty values, zero padded), and `sizes`, int64 (N, S), each
    deal's hand sizes."""

    rows: np.ndarray
    sizes: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    def texts(self) -> list[str]:
        """Every deal in record notation, hands joined by '/'.

        >>> random_deals(2, seed=1).texts()[0].count("/")
        1
        """
        if len(self) and (self.sizes == self.sizes[0]).all():  # one shape: all at once
            return deal_texts(self.rows, tuple(int(n) for n in self.sizes[0]))
        return [deal_texts(row[None], tuple(map(int, n)))[0] for row, n in self]

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(row, hand sizes) of each deal."""
        return iter(zip(self.rows, self.sizes, strict=True))


def random_deals(
    n: int,
    seed: int = 0,
    *,
    players: int = 2,
    deck: str | Sequence[int] = "standard",
    sizes: Sequence[int] | None = None,
    stream: int = 0,
) -> Deals:
    """`n` random deals from `seed`, reproducibly: each a fresh shuffle of the deck.

    `deck` is 'standard' or the counts of numerals, J, Q, K, A ('36,4,4,4,4' or a sequence
    of five); each shuffle is dealt one card at a time from seat 0 round `players` seats, or
    cut into hands of `sizes` (seat 0 first). The same seat and seed give the deal of
    `bmn deal --seed`; `stream` picks another independent sequence for the same seed.

    >>> deals = random_deals(3, seed=7, players=3)
    >>> len(deals), deals.sizes[0].tolist()
    (3, [18, 17, 17])
    >>> random_deals(1, seed=7, deck="20,0,2,2,2", sizes=[14, 12]).sizes.tolist()
    [[14, 12]]
    """
    from bmn.kernels.dealer import random_deals as deal_random
    from bmn.kernels.rng import seed_state

    if n < 0:
        raise DealError(f"the number of deals must be at least 0, got {n}")
    if not 0 <= seed < 2**64:
        raise DealError(f"seed must be 0 to 2**64 - 1, got {seed}")
    rows, hands = deal_random(n, seed_state(seed, stream), players, deck_values(deck), sizes)
    return Deals(rows, hands)


def score_deals(
    deals: Deals | np.ndarray | Iterable[DealLike],
    sizes: np.ndarray | Sequence[int] | None = None,
    *,
    threads: int | None = None,
    device: str = "cpu",
) -> Scores:
    """Score many deals at once with the compiled kernels, as `bmn score` does.

    `deals` is a Deals (from random_deals), a uint8 array of rows (hands concatenated, zero
    padded) with `sizes` (one row of hand sizes for every deal, or one per deal), or any
    iterable of deals in the forms `play` takes. `threads` caps the CPU threads; `device`
    'cuda' scores two-seat deals on an NVIDIA GPU. Returns a Scores of numpy arrays, one slot
    per deal: cards, tricks, status (0 finished, 1 loop, 2 limit), winner (-1 for none) and
    the loop figures; `scores.result(i)` is deal i's result as `play` gives it. Deals too long
    for a kernel, and seat counts a device has no kernel for, are played by the reference
    engine: slower, never refused.

    >>> scores = score_deals(["-J/Q-", "--K/J-/---"])
    >>> scores.cards.tolist(), scores.winner.tolist()
    ([4, 10], [0, 1])
    >>> int(score_deals(random_deals(1000, seed=1)).cards.max()) > 0
    True
    """
    from bmn.kernels.score import score, score_values

    if device not in ("cpu", "cuda"):
        raise DealError(f"device must be 'cpu' or 'cuda', got {device!r}")
    if isinstance(deals, Deals):
        return score(deals.rows, deals.sizes, threads, device)
    if isinstance(deals, np.ndarray):
        if sizes is None:
            raise DealError("an array of deals needs their hand sizes: sizes=(26, 26), say")
        hands = np.asarray(sizes, dtype=np.int64)
        if hands.ndim == 1:
            hands = np.broadcast_to(hands, (len(deals), len(hands)))
        return score(deals, hands, threads, device)
    if sizes is not None:
        raise DealError("sizes are for an array of deals; deals given as text carry their own")
    values, shapes = [], []
    for i, deal in enumerate(deals):
        try:
            hands_of = as_deal(deal)
        except DealError as err:
            raise DealError(f"deal {i + 1}: {err}") from None
        values.append(bytes(v for hand in hands_of for v in hand))
        shapes.append(tuple(len(hand) for hand in hands_of))
    return score_values(values, shapes, threads, device)


def cycle(deal: DealLike) -> LoopAnalysis:
    """The cycle a looping deal falls into, as `bmn loop` describes it: where it starts, its
    period, every state on it (hands and the seat to lead), which are balanced, and its key,
    the same from every deal that reaches the cycle. A deal that finishes comes back with
    status 'finished' and its length.

    >>> c = cycle("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA")
    >>> c.loop_start_tricks, c.period_tricks, len(c.states), len(c.balanced_states)
    (4, 62, 62, 0)
    """
    return analyse(as_deal(deal))


def reaching_deals(
    deal: DealLike,
    hand_sizes: Sequence[int] | None = None,
    *,
    max_depth: int | None = None,
    max_states: int | None = 1_000_000,
    seat_bound: bool = False,
    report: BasinSearch | None = None,
) -> Iterator[PreimageDeal]:
    """Every starting deal whose game falls into the same cycle as a looping deal of 2 to 4
    seats, nearest the cycle first, each confirmed by forward play (`bmn preimages`).

    Only deals with `hand_sizes` (default: the deal's own) and seat 0 to lead; seat-blind by
    default (a deal reaching the cycle with the seats swapped is listed, `mirrored`; with 3 or
    4 seats, any seating of the cycle among the seats still in, and `cycle_key` names the
    seat-bound cycle each deal falls into), only the same seats with `seat_bound`. Backward
    play stops after `max_depth` tricks or `max_states` states; pass a BasinSearch as `report`
    to learn whether the whole basin was searched (`report.complete`). DealError for a deal
    that finishes, hand sizes that do not fit it, or a deal of more than 104 cards (backward
    play's cost grows steeply with the deck).

    >>> found = list(reaching_deals("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"))
    >>> len(found), sum(d.mirrored for d in found)
    (30, 12)
    >>> [d.as_dict()["deal"] for d in reaching_deals("J--/-J-/-J-", seat_bound=True)]
    ['J--/-J-/-J-']
    """
    from bmn.kernels.cycles import backward, backward_seats

    hands = as_deal(deal)
    total, seats = sum(len(hand) for hand in hands), len(hands)
    if total > backward.BACKWARD_MAX_CARDS:
        raise DealError(
            f"backward play takes deals of at most {backward.BACKWARD_MAX_CARDS} cards, this"
            f" one has {total:,}"
        )
    if hand_sizes is not None and (
        len(hand_sizes) != seats or min(hand_sizes) < 1 or sum(hand_sizes) != total
    ):
        raise DealError(
            f"hand sizes {tuple(hand_sizes)}: expected {seats} sizes of at least 1 adding up to"
            f" the deal's {total} cards"
        )
    loop = analyse(hands)
    if loop.status != "loop":
        raise DealError(f"the deal does not loop: it finishes after {loop.cards} cards")
    play_back = backward.preimage_deals if seats == 2 else backward_seats.preimage_deals
    return play_back(hands, hand_sizes, max_depth, max_states, report, mirror=not seat_bound)
