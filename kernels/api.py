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
from itertools import islice

import numpy as np

from bmn.kernels import arguments
from bmn.kernels.claims import Difference, Stated, Verdict
from bmn.kernels.config import (
    FINISHED,
    LIMIT,
    LOOP,
    MAX_BATCH_CARDS,
    MAX_DEAL_CARDS,
    MAX_DEALS,
    MAX_SEATS,
    MIN_SEATS,
)
from bmn.kernels.cuda.env import CudaUnavailable
from bmn.kernels.cycles.backward import BasinSearch, PreimageDeal
from bmn.kernels.cycles.loops import LoopAnalysis, analyse
from bmn.kernels.deal import (
    VALUE_SYMBOL,
    Deal,
    DealError,
    too_many_cards,
)
from bmn.kernels.deal import format_deal as _format_deal
from bmn.kernels.deal import parse_deal as _parse_deal
from bmn.kernels.decks import deck_of
from bmn.kernels.exports import front_door
from bmn.kernels.reference import Result, Trick
from bmn.kernels.results import Deals, Scores
from bmn.kernels.rules.sets import RULE_SETS, RuleSet, rule_set
from bmn.kernels.tables.reader import NOTATIONS, TableRow

__all__ = [
    "FINISHED",
    "LIMIT",
    "LOOP",
    "MAX_BATCH_CARDS",
    "MAX_DEALS",
    "MAX_DEAL_CARDS",
    "BasinSearch",
    "CudaUnavailable",
    "Deal",
    "DealError",
    "DealLike",
    "Deals",
    "Difference",
    "LoopAnalysis",
    "RULE_SETS",
    "PreimageDeal",
    "Result",
    "RuleSet",
    "Scores",
    "Stated",
    "TableRow",
    "Trick",
    "Verdict",
    "as_deal",
    "cycle",
    "deal_number",
    "format_deal",
    "numbered_deal",
    "parse_deal",
    "play",
    "random_deals",
    "reaching_deals",
    "read_table",
    "score_deals",
    "verify",
]

# A deal as the API takes it: text ('-J/Q-'), its hands as texts (['-J', 'Q-']), or hands of
# penalty values ((0, 1), (2, 0)): 0 for a numeral, 1-4 for J, Q, K, A.
DealLike = str | Sequence[str] | Sequence[Sequence[int]]
# A rule set as the API takes it: its name ('paulhus'), a RuleSet, or None for bmn's rules.
Rules = str | RuleSet | None
_DEAL_FORMS = "text ('-J/Q-'), its hands as texts, or its hands as penalty values"


def parse_deal(text: str | Sequence[str]) -> Deal:
    """A deal given as text ('-J/Q-', 'AS 3H/QD 10C') or its hands as texts, read as `bmn play`,
    `bmn score` and the web page read it: one parser, the same refusals. An empty hand is
    written '.'; a hand with nothing in it (a stray '/': '-J/Q-/', '/-J/Q-') is DealError.

    >>> parse_deal("-J/Q-/.")
    ((0, 1), (2, 0), ())
    """
    return _parse_deal(text, typed=True)


def read_table(
    table: str | Iterable[str], notation: str = "auto", players: int = 2
) -> list[TableRow]:
    """Every deal of a table (its whole text, or its lines) as `bmn score` and `bmn records
    import` read it: bmn's exports, `deal cards` lines, JSON, the peers' layouts, deal numbers
    (`notation`: auto, digits, halves, alternate, rank or camicia; `players`: the hands a run
    of cards or a deal number is cut into). Each row has its deal (`.deal`, canonical), where
    it is (`.line`) and what it states (`.stated`: cards, tricks, status, None where unsaid).
    DealError naming the line for a row that is not a deal.

    >>> [(row.deal, row.stated.cards) for row in read_table(["deal,cards", "-J/Q-,4"])]
    [('-J/Q-', 4)]
    """
    from bmn.kernels.tables.lines import given_lines, text_lines
    from bmn.kernels.tables.reader import read_table as rows

    notation = arguments.one_of(notation, "notation", NOTATIONS)
    players = arguments.whole(players, "players", MIN_SEATS, MAX_SEATS)
    if isinstance(table, str):
        lines: Iterable[str] = text_lines(table)  # cut at line feeds, as a file is
    elif isinstance(table, Iterable):
        lines = given_lines(table)
    else:
        raise DealError(f"a table is text or its lines, got a value of type {type(table).__name__}")
    return [row for row in rows(list(lines), notation, players) if isinstance(row, TableRow)]


def as_deal(deal: DealLike) -> Deal:
    """Any form a deal is given in, read and checked: hands of penalty values in seat order
    (text and hand texts as `parse_deal` reads them).

    >>> as_deal("-J/Q-")
    ((0, 1), (2, 0))
    >>> as_deal([[0, 1], [2, 0]])
    ((0, 1), (2, 0))
    """
    if isinstance(deal, str):
        return parse_deal(deal)
    given = arguments.bounded_items(deal, MAX_SEATS, "a deal", _DEAL_FORMS)  # endless: unread
    if given and all(isinstance(hand, str) for hand in given):
        return parse_deal(given)
    if not MIN_SEATS <= len(given) <= MAX_SEATS:
        got = len(deal) if isinstance(deal, Sequence) else f"{len(given)} or more"
        raise DealError(f"a deal has {MIN_SEATS} to {MAX_SEATS} hands, got {got}")
    hands = tuple(_hand(hand, seat) for seat, hand in enumerate(given))
    if sum(map(len, hands)) > MAX_DEAL_CARDS:  # as for a deal given as text
        raise too_many_cards(sum(map(len, hands)))
    if not any(hands):
        raise DealError("every hand is empty; a deal needs at least one card")
    return hands


def _hand(hand: object, seat: int) -> tuple[int, ...]:
    """One hand of penalty values, read no further than a deal can hold."""
    if isinstance(hand, str):
        raise DealError(f"hand {seat + 1}: {arguments.shown(hand)} is text among hands of values")
    values = arguments.bounded_items(hand, MAX_DEAL_CARDS, f"hand {seat + 1}", "penalty values")
    if len(values) > MAX_DEAL_CARDS:
        raise too_many_cards()
    return tuple(_value(v, seat) for v in values)


def _value(v: object, seat: int) -> int:
    if arguments.is_whole(v) and 0 <= v < 5:  # type: ignore[operator]  # a whole number
        return int(v)  # type: ignore[call-overload]
    raise DealError(
        f"hand {seat + 1}: {arguments.shown(v)} is not a penalty value; expected 0 (numeral) to 4"
        f" ({', '.join(f'{i} {s}' for i, s in enumerate(VALUE_SYMBOL) if i)})"
    )


def play(
    deal: DealLike, *, limit: int | None = None, trace: bool = False, rules: Rules = None
) -> Result:
    """Play one deal with the reference engine (seat 0 leads), as `bmn play` does, under
    `rules` (a rule set's name or RuleSet, kernels/rules/sets.py; None: bmn's, the default).

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

    limit = arguments.optional_whole(limit, "limit", 1)
    trace = arguments.flag(trace, "trace")
    chosen = _rules(rules)
    return reference_play(as_deal(deal), limit=limit, trace=trace, rules=chosen)


def verify(
    deal: DealLike,
    stated: Stated | None = None,
    *,
    rules: Rules = None,
    deck: Sequence[int] | None = None,
) -> Verdict:
    """Whether `deal` plays as `stated` (cards, tricks, status, winner, a cycle's period)
    under `rules`, and, given `deck` (counts of numerals, J, Q, K, A), whether it is of that
    deck: the one verifier every bmn command that takes figures from elsewhere asks. The deal
    is played by the compiled kernel and by the reference engine; the Verdict holds the game
    replayed (`.result`), whether it `.agrees`, each `.differences` and `.words()` for them.

    >>> verdict = verify("-J/Q-", Stated(cards=5, tricks=1))
    >>> verdict.agrees, verdict.words()
    (False, 'stated 5 cards, replayed 4')
    >>> verify("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA",
    ...        Stated(status="loop", period_tricks=62)).agrees
    True
    """
    from bmn.kernels.claims import Claim
    from bmn.kernels.claims import verify as judged

    hands = as_deal(deal)
    if stated is not None and not isinstance(stated, Stated):
        raise DealError(f"stated is a Stated (Stated(cards=8344)), got {arguments.shown(stated)}")
    counts = None
    if deck is not None:
        counts = tuple(arguments.bounded_items(deck, 5, "deck", "five counts N,J,Q,K,A"))
        if len(counts) != 5 or not all(arguments.is_whole(n) and n >= 0 for n in counts):
            raise DealError(f"deck is five counts of numerals, J, Q, K, A; got {deck!r}"[:200])
    claim = Claim.of(hands, stated or Stated(), _rules(rules), counts)
    return judged([claim])[0]


def _rules(rules: object) -> RuleSet:
    """The rule set named (a name, a RuleSet, or None for the default); DealError otherwise."""
    if rules is not None and not isinstance(rules, (str, RuleSet)):
        raise DealError(f"rules is a rule set's name or a RuleSet, got {arguments.shown(rules)}")
    try:
        return rule_set(rules)
    except ValueError as error:
        raise DealError(str(error)) from None


def format_deal(deal: DealLike) -> str:
    """A deal in record notation, hands joined by '/': what every bmn command reads back.

    >>> format_deal([[0, 1], [2, 0]]), format_deal("AS 3H/QD 10C")
    ('-J/Q-', 'A-/Q-')
    """
    return _format_deal(as_deal(deal))


def random_deals(
    n: int,
    seed: int = 0,
    *,
    players: int | None = None,
    deck: str | Sequence[int] = "standard",
    sizes: Sequence[int] | None = None,
    stream: int = 0,
) -> Deals:
    """`n` random deals from `seed`, reproducibly: each a fresh shuffle of the deck.

    `deck` is 'standard' or the counts of numerals, J, Q, K, A ('36,4,4,4,4' in ASCII digits,
    or five as a sequence or a numpy array: the same counts are taken or refused alike); each
    shuffle is dealt one card at a time from seat 0 round `players` seats (2 if not given), or
    cut into hands of `sizes` (seat 0 first; `players`, if given too, must be their number).
    The same seat and seed give the deal of `bmn deal --seed`; `stream` picks another
    independent sequence for the same seed. At most MAX_DEALS deals and MAX_BATCH_CARDS cards
    a call, a deck of 1 to MAX_DEAL_CARDS cards, a seed and a stream of 0 to 2**64 - 1:
    DealError otherwise, as for any argument of the wrong type (1.5 deals, a seed of '7').

    >>> deals = random_deals(3, seed=7, players=3)
    >>> len(deals), deals.sizes[0].tolist()
    (3, [18, 17, 17])
    >>> random_deals(1, seed=7, deck="20,0,2,2,2", sizes=[14, 12]).sizes.tolist()
    [[14, 12]]
    """
    from bmn.kernels.dealer import random_deals as deal_random
    from bmn.kernels.rng import seed_state

    n = arguments.whole(n, "the number of deals", 0, MAX_DEALS)
    state = seed_state(arguments.seed(seed), arguments.seed(stream, "stream"))
    seats = 2 if players is None else arguments.whole(players, "players", MIN_SEATS, MAX_SEATS)
    cards = deck_of(arguments.deck_counts(deck))
    arguments.count(n, n * len(cards))
    hands = None if sizes is None else arguments.hand_sizes(sizes, n, len(cards))
    if hands is not None and players is not None and hands.shape[1] != seats:
        raise DealError(
            f"players={seats} but sizes give {hands.shape[1]} hands: give one, or both agreeing"
        )
    rows, hands = deal_random(n, state, seats, cards, hands)
    return Deals(rows, hands)


def score_deals(
    deals: Deals | np.ndarray | DealLike | Iterable[DealLike],
    sizes: np.ndarray | Sequence[int] | None = None,
    *,
    threads: int | None = None,
    device: str = "cpu",
    rules: Rules = None,
) -> Scores:
    """Score many deals at once with the compiled kernels, as `bmn score` does, under `rules`
    (a rule set's name or RuleSet; None: the default).

    `deals` is a Deals (from random_deals), an integer array of rows (hands concatenated,
    zero padded) with `sizes` (one row of hand sizes for every deal, or one per deal), any
    iterable of deals in the forms `play` takes, or one deal (text, or hands of penalty
    values, as a `Deal`): at most MAX_DEALS deals and MAX_BATCH_CARDS cards a call. `threads`
    caps the CPU threads; `device` 'cuda' scores two-seat deals on an NVIDIA GPU. Returns a
    Scores of numpy arrays, one slot per deal: cards, tricks, status (FINISHED, LOOP or
    LIMIT), winner (-1 for none) and the loop figures; `scores[i]` is deal i's result as
    `play` gives it. Deals too long for a kernel (past 64 cards), and seat counts a device has
    no kernel for, are played by the reference engine: slower, never refused.

    >>> scores = score_deals(["-J/Q-", "--K/J-/---"])
    >>> scores.cards.tolist(), scores.winner.tolist()
    ([4, 10], [0, 1])
    >>> score_deals("-J/Q-")[0].cards
    4
    >>> int(score_deals(random_deals(1000, seed=1)).cards.max()) > 0
    True
    """
    from bmn.kernels.score import score, score_values

    device = arguments.one_of(device, "device", ("cpu", "cuda"))
    threads = arguments.optional_whole(threads, "threads", 1)
    chosen = _rules(rules)
    if isinstance(deals, (Deals, np.ndarray)):
        if isinstance(deals, np.ndarray) and sizes is None:
            raise DealError("an array of deals needs their hand sizes: sizes=(26, 26), say")
        given = deals if isinstance(deals, Deals) else Deals(deals, sizes)  # type: ignore[arg-type]
        return score(given.rows, given.sizes, threads, device, chosen)
    if sizes is not None:
        raise DealError("sizes are for an array of deals; deals given as text carry their own")
    values, shapes = _deal_values(deals)
    return score_values(values, shapes, threads, device, chosen)


def _deal_values(deals: object) -> tuple[list[bytes], list[tuple[int, ...]]]:
    """Each deal of `deals` (or `deals` itself, one deal) as its values and hand sizes."""
    if _one_deal(deals):
        deals = [deals]
    values: list[bytes] = []
    shapes: list[tuple[int, ...]] = []
    cards = 0
    given = arguments.bounded_items(deals, MAX_DEALS, "deals", f"one deal or many ({_DEAL_FORMS})")
    arguments.count(len(given), 0)
    for i, deal in enumerate(given):
        try:
            hands_of = as_deal(deal)
        except DealError as err:
            raise DealError(f"deal {i + 1}: {err}") from None
        values.append(bytes(v for hand in hands_of for v in hand))
        shapes.append(tuple(len(hand) for hand in hands_of))
        cards += len(values[-1])
        arguments.count(len(values), cards)
    return values, shapes


def _one_deal(deals: object) -> bool:
    """Text, or hands of penalty values (a Deal): one deal, not an iterable of them."""
    if isinstance(deals, str):
        return True
    if not isinstance(deals, Sequence) or not deals:
        return False
    hands = list(islice(deals, MAX_SEATS + 1))
    return all(_values_hand(hand) for hand in hands)


def _values_hand(hand: object) -> bool:
    if isinstance(hand, np.ndarray):
        return hand.ndim == 1 and hand.dtype.kind in "iu"
    if isinstance(hand, str) or not isinstance(hand, Sequence):
        return False
    return all(arguments.is_whole(v) for v in islice(hand, MAX_DEAL_CARDS + 1))


def cycle(deal: DealLike, *, rules: Rules = None) -> LoopAnalysis:
    """The cycle a looping deal falls into under `rules` (a rule set's name or RuleSet; None:
    bmn's), as `bmn loop` describes it: where it starts, its period, every state on it (hands
    and the seat to lead), which are balanced, and its key, the same from every deal that
    reaches the cycle. A deal that finishes comes back with status 'finished' and its length.
    The figures are the reference engine's under the same rules.

    >>> c = cycle("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA")
    >>> c.loop_start_tricks, c.period_tricks, len(c.states), len(c.balanced_states)
    (4, 62, 62, 0)
    >>> cycle("-J-/JJ-/---").period_tricks, cycle("-J-/JJ-/---", rules="paulhus").status
    (2, 'finished')

    DealError for a rule set not defined for the deal's seats.
    """
    hands = as_deal(deal)
    chosen = _rules(rules)
    _check_seats(chosen, len(hands))
    return analyse(hands, rules=chosen)


def _check_seats(rules: RuleSet, seats: int) -> None:
    if not rules.plays(seats):
        raise DealError(f"the {rules.name} rule set plays {rules.seat_counts} seats, not {seats}")


def reaching_deals(
    deal: DealLike,
    hand_sizes: Sequence[int] | None = None,
    *,
    max_depth: int | None = None,
    max_states: int | None = 1_000_000,
    seat_bound: bool = False,
    report: BasinSearch | None = None,
    rules: Rules = None,
) -> Iterator[PreimageDeal]:
    """Every starting deal whose game falls into the same cycle as a looping deal of 2 to 4
    seats under `rules` (None: bmn's), nearest the cycle first, each confirmed by forward play
    and the reference engine under those rules (`bmn preimages`). Backward play undoes every
    rule set's trick exactly (kernels/cycles/backward.py, backward_seats.py).

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
    arguments.optional_whole(max_depth, "max_depth", 0)
    arguments.optional_whole(max_states, "max_states", 0)
    arguments.flag(seat_bound, "seat_bound")
    if report is not None and not isinstance(report, BasinSearch):
        raise DealError(f"report must be a BasinSearch or None, got {arguments.shown(report)}")
    hand_sizes = arguments.split_of(hand_sizes, hands)
    chosen = _rules(rules)
    _check_seats(chosen, len(hands))
    total = sum(len(hand) for hand in hands)
    if total > backward.BACKWARD_MAX_CARDS:
        raise DealError(
            f"backward play takes deals of at most {backward.BACKWARD_MAX_CARDS} cards, this"
            f" one has {total:,}"
        )
    loop = analyse(hands, rules=chosen)
    if loop.status != "loop":
        raise DealError(f"the deal does not loop: it finishes after {loop.cards} cards")
    return backward_seats.play_back(
        hands, hand_sizes, max_depth, max_states, report, mirror=not seat_bound, rules=chosen
    )


# -- deal numbers (kernels/ranks.py; docs/rules.md, "Deal numbers") --------------------------

RANK_ORDERS = ("bmn", "camicia")


def deal_number(deal: DealLike, order: str = "bmn") -> int:
    """A standard deal's number, dealt evenly, as `bmn records show` gives it: its rank among
    the deck's arrangements in bmn's order (numeral < J < Q < K < A) or, for two seats,
    camicia.dev's (A < K < Q < J < numeral). DealError for another deck or split.

    >>> deal_number("---JQ---K-A----A-J-K---QK-/-J-----------AJQA----K---Q", "camicia")
    497985732634057566415
    """
    from bmn.kernels.decks import is_standard
    from bmn.kernels.ranks import rank_in

    order = arguments.one_of(order, "order", RANK_ORDERS)
    hands = as_deal(deal)
    if not is_standard(hands):
        raise DealError("deals are numbered for the standard deck dealt evenly, seat 0 first")
    if order == "camicia" and len(hands) != 2:
        raise DealError(f"camicia numbers two-player deals, not {len(hands)}")
    return rank_in(order, [v for hand in hands for v in hand])


def numbered_deal(number: int, order: str = "bmn", players: int = 2) -> Deal:
    """The standard deal of `number` in `order`, cut evenly into `players` hands, seat 0 first
    (`bmn deal --rank N`); the inverse of deal_number. DealError for a number past the deck's.

    >>> format_deal(numbered_deal(497985732634057566415, "camicia"))
    '---JQ---K-A----A-J-K---QK-/-J-----------AJQA----K---Q'
    """
    from bmn.kernels.decks import STANDARD_COUNTS
    from bmn.kernels.ranks import arrangements, numbered_standard

    order = arguments.one_of(order, "order", RANK_ORDERS)
    players = arguments.whole(players, "players", MIN_SEATS, MAX_SEATS)
    if order == "camicia" and players != 2:
        raise DealError(f"camicia numbers two-player deals, not {players}")
    number = arguments.whole(number, "number", 0, arrangements(STANDARD_COUNTS) - 1)
    return numbered_standard(order, number, players)


# -- the front ends' door (not the library) -------------------------------------------------
# What bmn.frontends takes from bmn.kernels beyond __all__: the front ends import the engine only
# from its api modules (tests/test_layers.py), and each name here is imported from its module
# when first asked for (kernels/exports.py). Not in __all__, nor in dir(bmn.kernels).
FRONT_ENDS, __getattr__ = front_door(
    __name__,
    {
        "cpu.benchmark": "BENCH_SEED=DEFAULT_SEED cpu_bench=bench cpu_selfcheck=selfcheck",
        "cpu.choice": "chosen force_kernel",
        "cuda.env": "available THREADS_PER_BLOCK",
        "cuda.two": "gpu_first_difference=first_difference gpu_name=device_name",
        "cycles.backward": "BACKWARD_MAX_CARDS",
        "cycles.backward_seats": "play_back",
        "cycles.loops": "analyse",
        "deal": (
            "deal_texts decode format_hand HANDS_JOINED parse_hand parse_typed=parse_deal "
            "shorten VALUE_SYMBOL"
        ),
        "dealer": "random_rows=random_deals",
        "decks": (
            "even_sizes is_standard not_standard_warning read_counts STANDARD_COUNTS unmeant_deck"
        ),
        "ranks": "arrangements unrank_in",
        "rng": "seed_state",
        "rules.sets": "ALIASES DEFAULT rule_names=names rule_set",
        "tables.lines": "LineError TableLines",
        "tables.reader": "NOTATIONS",
        "tables.scored": "score_lines UnmeantDeckLine",
    },
)
