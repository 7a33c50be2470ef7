"""Decks: a deck's composition as counts of numerals, J, Q, K, A ("N,J,Q,K,A"), read,
checked against the kernels and described in words, for every run kind, the library and the
command line alike; the standard deck, and the loop hunt's 'mixed' deck (a random sub-deck of
the standard deck per batch).

Notation of single deals is deal.py's; numbering a deck's arrangements is ranks.py's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from bmn.kernels.config import MAX_CARDS, MAX_HAND, MAX_SEATS, MIN_SEATS
from bmn.kernels.deal import VALUE_SYMBOL, DealError

Counts = tuple[int, ...]  # a deck's composition: how many numerals, J, Q, K, A (values 0-4)
STANDARD_COUNTS: Counts = (36, 4, 4, 4, 4)
STANDARD = "standard"
MIXED = "mixed"  # the loop hunt's default deck: a random sub-deck of the standard deck per batch
_DIGITS = re.compile(r"[0-9]+")


def deck_of(counts: Sequence[int]) -> tuple[int, ...]:
    """The penalty values of a deck of `counts` numerals, J, Q, K, A, in value order."""
    return tuple(value for value, n in enumerate(counts) for _ in range(n))


def counts_of(cards: Iterable[int]) -> Counts:
    """How many numerals, J, Q, K, A `cards` (penalty values, or bytes of them) hold."""
    if isinstance(cards, (bytes, bytearray)):  # a table's rows: counted in C, a value at a time
        count = cards.count
        return count(0), count(1), count(2), count(3), count(4)
    counts = [0] * len(VALUE_SYMBOL)
    for value in cards:
        counts[value] += 1
    return tuple(counts)


def counts_text(counts: Sequence[int]) -> str:
    """A composition as written on the command line and in the store: '36,4,4,4,4'."""
    return ",".join(str(int(n)) for n in counts)


def read_counts(text: str) -> tuple[int, ...] | None:
    """Comma-separated whole numbers written in ASCII digits ('36,4,4,4,4'), as every number
    bmn reads is; None for anything else (int() would take '١٤', '+4', ' 4' and '1_0')."""
    parts = text.split(",")
    if not all(_DIGITS.fullmatch(part) for part in parts):
        return None
    try:
        return tuple(int(part) for part in parts)
    except ValueError:  # past int()'s limit of digits: no count of anything
        return None


def parse_counts(text: str) -> Counts:
    """Read 'N,J,Q,K,A' (five counts >= 0); DealError (a ValueError) for anything else."""
    counts = read_counts(text) or ()
    if len(counts) != len(VALUE_SYMBOL) or min(counts) < 0:
        raise DealError(f"{text!r}: expected five counts N,J,Q,K,A of numerals and court cards")
    if max(counts) > MAX_CARDS:  # past any deck the kernels play (and past what ints index)
        raise DealError(
            f"{text[:60]!r} counts {max(counts):.3g} cards of one value; the compiled kernels"
            f" play at most {MAX_CARDS} cards"
        )
    return counts


STANDARD_DECK = deck_of(STANDARD_COUNTS)
STANDARD_COUNTS_TEXT = counts_text(STANDARD_COUNTS)


def even_sizes(cards: int, seats: int) -> tuple[int, ...]:
    """Hand sizes of `cards` dealt one at a time round `seats` seats from seat 0: as even as
    possible, seat 0 first (52 cards: 26/26, 18/17/17, 13 each)."""
    return tuple(len(range(seat, cards, seats)) for seat in range(seats))


def is_standard(deal: Sequence[Sequence[int]]) -> bool:
    """True for the 52-card deck dealt as evenly as possible, seat 0 first."""
    sizes = tuple(len(hand) for hand in deal)
    cards = sorted(v for hand in deal for v in hand)
    return sizes == even_sizes(len(STANDARD_DECK), len(deal)) and tuple(cards) == STANDARD_DECK


class DeckInputError(DealError):
    """A deck, hand sizes or rank range a run cannot take; `option` names the setting
    ('deck', 'hand_sizes', 'from_rank', 'to_rank') as the command line's parameter."""

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option


def check_deck(
    deck: str, hand_sizes: Sequence[int] | None, players: int = 2
) -> tuple[Counts, tuple[int, ...]]:
    """A run's deck counts and hand sizes: 'standard' or 'N,J,Q,K,A', dealt into `hand_sizes`
    or as evenly as possible over `players`, seat 0 first. DeckInputError naming the option
    otherwise (a bad default split is the deck's fault)."""
    try:
        counts = parse_deck(deck)
    except DealError as err:
        standard = f"or 'standard' ({counts_text(STANDARD_COUNTS)})"
        raise DeckInputError("deck", f"{err}, {standard}") from None
    sizes = hand_sizes or even_sizes(sum(counts), players)
    try:
        return counts, check_hand_sizes(counts, sizes)
    except DealError as err:
        raise DeckInputError("hand_sizes" if hand_sizes else "deck", str(err)) from None


def parse_deck(text: str) -> Counts:
    """A deck option as counts of numerals, J, Q, K, A: 'standard' or 'N,J,Q,K,A' (spaces
    anywhere ignored). DealError (a ValueError) for anything else or a deck of no card."""
    spec = "".join(text.split()).lower()
    if spec == "standard":
        return STANDARD_COUNTS
    counts = parse_counts(spec)
    if sum(counts) == 0:
        raise DealError(f"{text!r}: the deck has no card")
    return counts


def deck_spec(text: str) -> str:
    """A deck option as stored with a run: 'standard', or the counts without spaces."""
    counts = parse_deck(text)
    return "standard" if "".join(text.split()).lower() == "standard" else counts_text(counts)


def check_hand_sizes(counts: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...]:
    """The hand sizes, checked against the deck and the compiled kernels; DealError naming
    what is wrong otherwise."""
    sizes = tuple(int(n) for n in sizes)
    cards = sum(counts)
    if not MIN_SEATS <= len(sizes) <= MAX_SEATS:
        raise DealError(f"{len(sizes)} hand sizes given: a deal has {MIN_SEATS} to {MAX_SEATS}")
    if min(sizes) < 0 or sum(sizes) != cards:
        raise DealError(
            f"hand sizes {','.join(map(str, sizes))} add up to {sum(sizes)}; the deck"
            f" {counts_text(counts)} has {cards} cards"
        )
    if cards > MAX_CARDS or max(sizes) > MAX_HAND:
        raise DealError(
            f"the deck {counts_text(counts)} has {cards} cards; the compiled kernels play at most"
            f" {MAX_CARDS} cards, {MAX_HAND} in one hand"
        )
    return sizes


def describe(counts: Sequence[int]) -> str:
    """A deck in words: '20 cards (14 numerals, 2 J, 2 Q, 2 K)'."""
    parts = [f"{counts[0]} numerals"] + [
        f"{n} {VALUE_SYMBOL[v]}" for v, n in enumerate(counts) if v and n
    ]
    return f"{sum(counts)} cards ({', '.join(parts)})"


def hunt_counts(spec: str) -> Counts | None:
    """A loop hunt's deck option as counts; None for 'mixed' (a random sub-deck of the
    standard deck per batch). ValueError for anything else."""
    if spec == MIXED:
        return None
    if spec == STANDARD:
        return STANDARD_COUNTS
    try:
        counts = parse_counts(spec)
    except ValueError:
        counts = ()
    if len(counts) != 5 or not 2 <= sum(counts) <= MAX_CARDS or sum(counts[1:]) == 0:
        raise ValueError(
            f"{spec!r}: expected 'mixed', 'standard' or five counts N,J,Q,K,A of numerals and"
            f" court cards (at least one court card, 2 to {MAX_CARDS} cards), like 20,4,4,0,0"
        )
    return counts


def check_search_deck(
    deck: str, hand_sizes: Sequence[int] | None, players: int = 2
) -> tuple[Counts, tuple[int, ...]]:
    """A search's deck counts and hand sizes, as check_deck; a deck of one card value has a
    single deal: nothing to search, and no two cards a move could swap."""
    counts, sizes = check_deck(deck, hand_sizes, players)
    if sum(n > 0 for n in counts) < 2:
        raise DeckInputError(
            "deck", f"the deck {counts_text(counts)} holds one card value: it has a single deal,"
            " so there is nothing to search; give a deck of two values at least",
        )  # fmt: skip
    return counts, sizes


def deck_words(values: Iterable[int]) -> str:
    """'53 cards: 36 numerals, 4 J, 4 Q, 4 K, 5 A'."""
    counts = counts_of(values)
    courts = ", ".join(f"{counts[v]} {VALUE_SYMBOL[v]}" for v in range(1, 5))
    return f"{sum(counts)} cards: {counts[0]} numerals, {courts}"


def unmeant_deck(values: Iterable[int], counted: bool = False) -> str | None:
    """What is wrong with a deal that holds the standard deck's court cards, 4 each of J Q K
    A, with more or fewer than its 36 numerals: most often a slip (a card dropped, a number
    read as numerals) rather than a deck meant, so commands refuse it unless told the deck is
    meant. None for any other deal: the standard deck, or a deck plainly of its own (fewer
    court cards, two decks). `counted`: `values` are the deal's counts already."""
    counts = tuple(values) if counted else counts_of(values)
    if counts[1:] != STANDARD_COUNTS[1:] or counts[0] == STANDARD_COUNTS[0]:
        return None
    courts, numerals = sum(STANDARD_COUNTS[1:]), STANDARD_COUNTS[0]
    return (
        f"{sum(counts)} cards: the standard deck's {courts} court cards with {counts[0]}"
        f" numerals, not {numerals}"
    )


def not_standard_warning(
    values: Sequence[int], what: str = "this deal", doing: str = "playing"
) -> str | None:
    """The warning for a deal whose cards are not the 52-card deck's values, or None."""
    if counts_of(values) == STANDARD_COUNTS:
        return None
    return (
        f"warning: {what} is not the standard 52-card deck (36 numerals, 4 each of J Q K A):"
        f" it has {deck_words(values)}; {doing} it as given"
    )
