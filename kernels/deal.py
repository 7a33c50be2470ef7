"""Deal notation: parse, validate, format and encode hands of penalty values.

A card is its penalty value: 0 for a numeral, 1-4 for J, Q, K, A. A hand is listed
top card first; a deal lists hands in seat order, seat 0 first. An empty hand is written '.'
(an empty text between '/' is read too, as older bmn wrote it in its stores, except where a
deal is given to bmn: there it is refused as the slip it usually is, `parse_deal(...,
typed=True)`, the one reading of every surface: the command line, files of deals, the web page
and the library's `bmn.kernels.parse_deal`). A deal holds at most MAX_DEAL_CARDS cards, so no
deal can cost more than seconds and megabytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import numpy as np

from bmn.kernels.config import MAX_DEAL_CARDS, MAX_SEATS, MIN_SEATS

VALUE_SYMBOL = "-JQKA"
EMPTY_HAND = "."

Hand = tuple[int, ...]
Deal = tuple[Hand, ...]

# One card: a rank (or the record notation's '-'), then an optional suit.
_CARD = re.compile(r"(10|[2-9TJQKA\-])([SHDC\u2660-\u2667]?)", re.IGNORECASE)
SEPARATORS = " \t,;"  # between the cards of a hand
# numerals, J, Q, K, A: kernels/decks.py's STANDARD_COUNTS (decks.py imports this module)
_STANDARD = (36, 4, 4, 4, 4)
_RECORD_TEXT = re.compile(r"[-JQKAjqka.]+(?:/[-JQKAjqka.]+)*")
_RANK_VALUE = {"J": 1, "Q": 2, "K": 3, "A": 4}
_SUIT = {"\u2660": "S", "\u2661": "H", "\u2662": "D", "\u2663": "C"}
_SUIT |= {"\u2664": "S", "\u2665": "H", "\u2666": "D", "\u2667": "C"}
_EXPECTED = "a card: '-', 2-9, 10 or T, J, Q, K, A, optionally followed by a suit S H D C"
# The advice for a wrong number of hands, in the library's words: each front end says it in
# its own (the command line's arguments, the web page's form).
HANDS_JOINED = "join the hands with '/', or give them as a list"


class DealError(ValueError):
    """A deal or hand that bmn cannot read; the message says where and what was expected."""


def parse_hand(text: str, seat: int = 0, most: int = MAX_DEAL_CARDS) -> Hand:
    """Read one hand, top card first, in record notation, ranks, or ranks with suits; '.' is
    the empty hand. DealError past `most` cards (read no further: a hostile text is cheap)."""
    if text.strip(SEPARATORS) == EMPTY_HAND:
        return ()
    values = []
    pos = 0
    while pos < len(text):
        if text[pos] in SEPARATORS:
            pos += 1
            continue
        match = _CARD.match(text, pos)
        if match is None:
            raise DealError(
                f"hand {seat + 1} ({shorten(text)!r}): unexpected {text[pos]!r} at position"
                f" {pos + 1}; expected {_EXPECTED}"
            )
        values.append(_RANK_VALUE.get(match.group(1).upper(), 0))
        if len(values) > most:
            raise too_many_cards()
        pos = match.end()
    return tuple(values)


def too_many_cards(cards: int | None = None) -> DealError:
    """The error for a deal past MAX_DEAL_CARDS."""
    has = f"{cards:,} cards" if cards is not None else "more"
    return DealError(
        f"a deal holds at most {MAX_DEAL_CARDS:,} cards, far past any real deck (the bound"
        f" keeps one game to seconds and megabytes); this one has {has}"
    )


def shorten(text: str, keep: int = 60) -> str:
    """A text cut to about `keep` characters for a message: a 1 MB deal is not echoed whole."""
    return text if len(text) <= keep else f"{text[:keep]}... ({len(text):,} characters)"


def split_deal(args: Sequence[str] | str) -> list[str]:
    """Hands given as a list of texts, joined by '/', or both."""
    if isinstance(args, str):
        args = [args]
    return [part for arg in args for part in arg.split("/")]


def parse_deal(args: Sequence[str] | str, typed: bool = False) -> Deal:
    """Read a deal of 2 to 4 hands; any sizes and deck, as long as every card is valid and
    there are at most MAX_DEAL_CARDS. `typed` (a deal a person wrote: the command line, a file
    of deals) refuses an empty hand not written as '.', the trace of a stray '/' or an empty
    argument."""
    if not isinstance(args, str) and not (
        isinstance(args, Sequence) and all(isinstance(arg, str) for arg in args)
    ):
        raise DealError(
            "a deal is text ('-J/Q-') or its hands as texts (['-J', 'Q-']),"
            f" got a value of type {type(args).__name__}"
        )
    texts = split_deal(args)
    if typed and texts:  # before the count of hands: a number given as a hand is named so
        own = not isinstance(args, str) and len(args) > 1 and "/" not in args[-1]
        if (number := number_after(texts, whole_last=own)) is not None:
            before = "/".join(t.strip(SEPARATORS) for t in texts[:-1])
            head = texts[-1].strip(SEPARATORS)[: -len(number)].strip(SEPARATORS)
            deal = f"{before}/{head}" if head else before
            raise DealError(
                f"{number} after the deal is not a card; did you mean the deal alone,"
                f" {shorten(deal, 220)}"
            )
    if not MIN_SEATS <= len(texts) <= MAX_SEATS:
        raise DealError(
            f"a deal has {MIN_SEATS} to {MAX_SEATS} hands, got {len(texts)}; {HANDS_JOINED}"
        )
    if typed:
        _check_written_hands(texts, [args] if isinstance(args, str) else list(args))
    deal, left = [], MAX_DEAL_CARDS
    for seat, text in enumerate(texts):
        deal.append(parse_hand(text, seat, left))
        left -= len(deal[-1])
    if not any(deal):
        raise DealError("every hand is empty; a deal needs at least one card")
    _check_suited_cards(texts)
    return tuple(deal)


def is_record_notation(text: str) -> bool:
    """Whether `text` is a deal in record notation ('-' and J Q K A, '.' for an empty hand,
    hands joined by '/'), the notation bmn writes: it has no digits."""
    return _RECORD_TEXT.fullmatch(text) is not None


def number_after(
    texts: Sequence[str], whole_last: bool = False, one_run: bool = False
) -> str | None:
    """The number a deal's last hand ends in, after a space, comma or tab (or, `whole_last`,
    that is the last hand: a separate argument), when it cannot be meant as cards: the deal
    before it is in record notation (which writes no digits) or is the standard deck, or the
    number does not read as cards. `one_run`: the deal is one run of cards, to be cut into
    hands. None when there is no such number."""
    last = texts[-1].strip(SEPARATORS)
    token = re.search(r"[0-9]+$", last)
    if token is None:
        return None
    head = last[: token.start()]
    if (head and head[-1] not in SEPARATORS) or (not head and not whole_last):
        return None
    before = [*texts[:-1], head] if head.strip(SEPARATORS) else list(texts[:-1])
    if len(before) < (1 if one_run else MIN_SEATS):
        return None
    number = token.group()
    if is_record_notation("/".join(t.strip(SEPARATORS) for t in before)):
        return number
    if _is_standard_deck(before) or not _reads_as_cards(number):
        return number
    return None


def _reads_as_cards(text: str) -> bool:
    try:
        parse_hand(text)
    except DealError:
        return False
    return True


def _is_standard_deck(texts: Sequence[str]) -> bool:
    try:
        values = [v for seat, text in enumerate(texts) for v in parse_hand(text, seat)]
    except DealError:
        return False
    return tuple(values.count(v) for v in range(5)) == _STANDARD


def _check_written_hands(texts: Sequence[str], args: Sequence[str]) -> None:
    """Refuse a hand with nothing written in it: an empty hand is written '.' on purpose."""
    for seat, text in enumerate(texts):
        if text.strip(SEPARATORS):
            continue
        written = "/".join(t.strip(SEPARATORS) or EMPTY_HAND for t in texts)
        fix = (
            f"write '{EMPTY_HAND}' for a seat that holds no cards on purpose ({shorten(written)!r})"
        )
        if seat == len(texts) - 1 and args and args[-1].rstrip(SEPARATORS).endswith("/"):
            given = "/".join(texts[:-1])
            fix = f"drop the '/' for a deal of {seat} hands ({shorten(given)!r}), or {fix}"
        raise DealError(f"hand {seat + 1} is empty; {fix}")


def _suited_cards(text: str) -> Iterator[str]:
    """The suited cards of one hand's text, named like 'AS' or '10H' (a card written as '-',
    or without a suit, names no single card)."""
    for match in _CARD.finditer(text):
        rank, suit = match.group(1).upper(), match.group(2).upper()
        if suit and rank != "-":
            yield ("10" if rank == "T" else rank) + _SUIT.get(suit, suit)


def _check_suited_cards(texts: Sequence[str]) -> None:
    """Refuse a suited card given twice: a deck has one of each card."""
    seen: dict[str, int] = {}
    for seat, text in enumerate(texts, start=1):
        for card in _suited_cards(text):
            if card in seen:
                first = seen[card]
                where = f"in hand {seat}" if first == seat else f"in hands {first} and {seat}"
                raise DealError(f"the card {card} is given twice ({where}); a deck has one of each")
            seen[card] = seat


def format_hand(hand: Sequence[int]) -> str:
    """The record notation of a hand: '-' for numerals, J Q K A for court cards; '.' for a
    hand of no cards, so that every deal bmn prints reads back as it was."""
    return "".join(VALUE_SYMBOL[int(v)] for v in hand) or EMPTY_HAND


def format_deal(deal: Sequence[Sequence[int]]) -> str:
    """The canonical form of a deal: record notation, hands joined by '/'."""
    return "/".join(format_hand(hand) for hand in deal)


def encode(
    deal: Sequence[Sequence[int]], width: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """One deal as a row of penalty values (hands concatenated, zero padded) and its hand sizes."""
    sizes = np.array([len(hand) for hand in deal], dtype=np.int64)
    total = int(sizes.sum())
    width = total if width is None else width
    if total > width:
        raise DealError(f"deal has {total} cards; this batch holds at most {width}")
    row = np.zeros(width, dtype=np.uint8)
    row[:total] = [v for hand in deal for v in hand]
    return row, sizes


def decode(row: np.ndarray, sizes: Sequence[int]) -> Deal:
    """The inverse of encode: split a row back into hands."""
    ends = np.cumsum(sizes)
    return tuple(
        tuple(int(v) for v in row[end - size : end]) for size, end in zip(sizes, ends, strict=False)
    )


def deal_text(row: np.ndarray, sizes: Sequence[int] = (26, 26)) -> str:
    """A worker's deal (hands concatenated) in record notation, cut into hands of `sizes`
    (a search passes its own; two seats, 26/26, by default)."""
    return format_deal(decode(row, tuple(int(n) for n in sizes)))


_NOTATION = np.frombuffer(b"-JQKA", dtype=np.uint8)  # penalty value -> record notation


def deal_texts(decks: np.ndarray, sizes: Sequence[int] = (26, 26)) -> list[str]:
    """`deal_text` of every row at once: a low --keep-above makes every deal scored a find,
    and one format_deal per row would cost the search more than its kernel."""
    # the cards, a '/' between hands and a '.' for each empty hand (as format_hand writes it)
    width = sum(max(int(n), 1) for n in sizes) + len(sizes) - 1
    chars = np.empty((len(decks), width), dtype=np.uint8)
    at = start = 0
    for seat, n in enumerate(int(n) for n in sizes):
        if seat:
            chars[:, at] = ord("/")
            at += 1
        if n == 0:
            chars[:, at] = ord(EMPTY_HAND)
            at += 1
            continue
        chars[:, at : at + n] = _NOTATION[decks[:, start : start + n]]
        at, start = at + n, start + n
    text = chars.tobytes().decode("ascii")
    return [text[i : i + width] for i in range(0, len(text), width)]
