"""The library's checks of its arguments (kernels/api.py): each names the argument, what it was
given and what it takes, as one DealError, before anything is computed. A value of the wrong
type is refused like one out of range, never cast (1.7 is not 1, 257 is not 1, NaN is not 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

import numpy as np

from bmn.kernels.config import (
    MAX_BATCH_CARDS,
    MAX_DEAL_CARDS,
    MAX_DEALS,
    MAX_SEATS,
    MIN_SEATS,
)
from bmn.kernels.deal import DealError, shorten


def shown(value: object) -> str:
    """A value as a message shows it: short values as written, anything else by its type."""
    if value is None or isinstance(value, (bool, int, float, str, np.integer, np.floating)):
        return shorten(repr(value))
    return f"a value of type {type(value).__name__}"


def is_whole(value: object) -> bool:
    """A Python or numpy integer; a bool is not a number here."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def whole(value: object, name: str, low: int | None = None, high: int | None = None) -> int:
    """`value` as an int within [low, high]; DealError naming `name` otherwise."""
    if not is_whole(value):
        raise DealError(f"{name} must be a whole number, got {shown(value)}")
    number = int(value)  # type: ignore[call-overload]  # is_whole: an int or numpy integer
    if (low is not None and number < low) or (high is not None and number > high):
        span = f"at least {low:,}" if high is None else f"{low:,} to {high:,}"
        raise DealError(f"{name} must be {span}, got {number:,}")
    return number


def index(key: object, length: int) -> int:
    """One item's index, counted from the end when negative, as numpy takes it; IndexError in
    numpy's words for one out of range, however large (numpy itself overflows past int64)."""
    i = int(key)  # type: ignore[call-overload]  # is_whole: an int or numpy integer
    if not -length <= i < length:
        raise IndexError(f"index {i} is out of bounds for axis 0 with size {length}")
    return i


def index_keys(key: object, length: int) -> None:
    """IndexError for unsigned indices past int64 in an array or list of indices, which numpy
    would wrap round to negative ones (2**64 - 1 would pick the last item)."""
    if not isinstance(key, (list, np.ndarray)):
        return
    try:
        keys = np.asarray(key)
    except (TypeError, ValueError, OverflowError):  # numpy says its own words when indexing
        return
    if keys.dtype.kind == "u" and keys.size and int(keys.max()) > np.iinfo(np.int64).max:
        raise IndexError(f"index {int(keys.max())} is out of bounds for axis 0 with size {length}")


def optional_whole(value: object, name: str, low: int, high: int | None = None) -> int | None:
    return None if value is None else whole(value, name, low, high)


def flag(value: object, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise DealError(f"{name} must be True or False, got {shown(value)}")
    return bool(value)


def one_of(value: object, name: str, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        listed = " or ".join(repr(a) for a in allowed)
        raise DealError(f"{name} must be {listed}, got {shown(value)}")
    return value


def seed(value: object, name: str = "seed") -> int:
    """A seed or stream number: what the generator takes without folding two into one."""
    return whole(value, name, 0, 2**64 - 1)


def integer_array(value: object, name: str) -> np.ndarray:
    """`value` as a numpy array of whole numbers (any integer dtype), never cast from floats,
    text or Python objects."""
    try:
        array = np.asarray(value)
        if not isinstance(value, np.ndarray) and _holds_bool(value):  # True is not 1 here
            array = np.asarray(None)
    except (TypeError, ValueError, OverflowError):  # ragged lists, numbers past int64
        array = np.asarray(None)
    if array.size == 0 and array.ndim and array.dtype.kind == "f":  # (): no value to cast
        array = array.astype(np.int64)
    if array.dtype.kind not in "iu" or (array.size == 0 and array.ndim == 0):
        raise DealError(f"{name} must be whole numbers, got {shown(value)} ({array.dtype} values)")
    return array


def _holds_bool(value: object) -> bool:
    return any(isinstance(v, (bool, np.bool_)) for v in np.asarray(value, dtype=object).flat)


def hand_sizes(value: object, deals: int, cards: int | None = None) -> np.ndarray:
    """Hand sizes, (S,) for every deal or (deals, S) one row per deal, as int64 (deals, S):
    2 to 4 seats, none negative, adding up to `cards` if given."""
    sizes = integer_array(value, "sizes")
    if sizes.ndim not in (1, 2) or (sizes.ndim == 2 and len(sizes) != deals):
        raise DealError(
            f"sizes are (S,) for every deal or (N, S) one row per deal of the {deals:,};"
            f" got shape {sizes.shape}"
        )
    seats = sizes.shape[-1]
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise DealError(f"a deal has {MIN_SEATS} to {MAX_SEATS} hands, got {seats} hand sizes")
    if sizes.size and sizes.min() < 0:
        raise DealError(f"hand sizes must be at least 0, got {int(sizes.min()):,}")
    if cards is not None and sizes.size and np.any(sizes.sum(axis=-1) != cards):
        raise DealError(f"hand sizes must add up to the {cards:,} cards dealt")
    wide = np.broadcast_to(sizes.astype(np.int64), (deals, seats))
    return np.ascontiguousarray(wide)


def deal_rows(rows: object, sizes: object) -> tuple[np.ndarray, np.ndarray]:
    """Deals given as numbers: uint8 (N, W) rows of penalty values (hands concatenated, zero
    padded) and int64 (N, S) hand sizes, checked as a deal given as text is: 2 to 4 hands, at
    least one card and at most MAX_DEAL_CARDS; at most MAX_DEALS deals."""
    values = integer_array(rows, "deals")
    if values.ndim != 2:
        raise DealError(f"deals must be rows (N, W), one deal a row; got shape {values.shape}")
    count(len(values), values.size)
    hands = hand_sizes(sizes, len(values))
    if values.size and (values.min() < 0 or values.max() > 4):
        raise DealError("card values must be penalty values 0-4 (numeral, J, Q, K, A)")
    totals = hands.sum(axis=1)
    if len(totals) and totals.max() > values.shape[1]:
        raise DealError(f"hand sizes add up to {int(totals.max()):,}, past the rows' width")
    if len(totals) and totals.max() > MAX_DEAL_CARDS:
        from bmn.kernels.deal import too_many_cards

        raise too_many_cards(int(totals.max()))
    if len(totals) and totals.min() == 0:
        raise DealError("every hand of a deal is empty; a deal needs at least one card")
    return np.ascontiguousarray(values, dtype=np.uint8), hands


def count(deals: int, cards: int) -> None:
    """Refuse a call of more deals, or cards in all, than one call makes or scores."""
    if deals > MAX_DEALS:
        raise DealError(
            f"one call takes at most {MAX_DEALS:,} deals, got {deals:,} or more;"
            " split the work over several calls"
        )
    if cards > MAX_BATCH_CARDS:
        raise DealError(
            f"one call takes at most {MAX_BATCH_CARDS:,} cards in all, got {cards:,} in"
            f" {deals:,} deals; split the work over several calls"
        )


def deck_counts(deck: object) -> tuple[int, ...]:
    """A deck as five counts of numerals, J, Q, K, A: 'standard', 'N,J,Q,K,A' or five whole
    numbers (a sequence or a numpy array), each form read by the same rule, so a value is
    taken or refused alike in each; at least one card and at most MAX_DEAL_CARDS."""
    from bmn.kernels.decks import STANDARD, STANDARD_COUNTS, read_counts

    if isinstance(deck, str):  # the same counts as the five numbers, read by the same rule
        spec = "".join(deck.split()).lower()
        given = STANDARD_COUNTS if spec == STANDARD else read_counts(spec)
        if given is None or len(given) != 5:
            raise DealError(
                f"deck must be 'standard' or five counts N,J,Q,K,A of numerals and court cards"
                f" in ASCII digits, got {shown(deck)}"
            )
        deck = given
    if isinstance(deck, np.ndarray) and deck.ndim == 1:  # five counts as numpy holds them
        deck = list(deck)
    if isinstance(deck, Sequence) and len(deck) == 5:
        counts = tuple(whole(n, "a deck count", 0, MAX_DEAL_CARDS) for n in deck)
    else:
        raise DealError(
            f"deck must be 'standard' or five counts N,J,Q,K,A of numerals and court cards,"
            f" got {shown(deck)}"
        )
    if not 0 < sum(counts) <= MAX_DEAL_CARDS:
        raise DealError(f"a deck holds 1 to {MAX_DEAL_CARDS:,} cards, got {sum(counts):,}")
    return counts


def bounded_items(items: object, most: int, what: str, expected: str = "a sequence") -> list:
    """The first `most` + 1 items of an iterable (enough to tell there are too many, without
    reading an endless one); DealError saying what `what` is for anything else."""
    if not isinstance(items, (bytes, bytearray, dict, set)):
        try:
            return list(islice(iter(items), most + 1))  # type: ignore[call-overload]
        except TypeError:
            pass
    raise DealError(f"{what} is {expected}, got {shown(items)}")


def split_of(sizes: object, hands: Sequence[Sequence[int]]) -> tuple[int, ...] | None:
    """Hand sizes to deal `hands`' cards into (None: their own), as a tuple: one size of at
    least 1 a seat, adding up to the deal's cards."""
    if sizes is None:
        return None
    if isinstance(sizes, str):  # not read a character at a time
        raise DealError(f"hand_sizes is two to four whole numbers, got {shown(sizes)}")
    items = bounded_items(sizes, MAX_SEATS, "hand_sizes", "two to four whole numbers")
    split = tuple(whole(n, "a hand size", 0, MAX_DEAL_CARDS) for n in items)
    seats, total = len(hands), sum(len(hand) for hand in hands)
    if len(split) != seats or min(split, default=0) < 1 or sum(split) != total:
        raise DealError(
            f"hand sizes {split}: expected {seats} sizes of at least 1 adding up to the deal's"
            f" {total} cards"
        )
    return split
