"""Deal tables: the one reader of files of deals (`bmn score`, `bmn records import`, the
library's `bmn.kernels.read_table`).

A table holds one deal per line, and may state how long its game is. It is read as its writer
meant it: bmn's own exports (CSV with a header; JSON), `deal,cards` and `deal cards tricks`
lines, JSON lines (`bmn score --json`, `bmn play --json`), exercism's canonical-data JSON, and
the peers' layouts (docs/peers.md). The deal is found by its column's name (deal, deck, hands,
hand_a..., playerA...) or, without a header, by its shape; cards, tricks and a status beside it
are read as what the row states, for the caller to hold against the replayed game.

Cards are in any notation bmn reads (kernels/deal.py). A field of digits 0-4 only, at least
DIGIT_DEAL_CARDS long (any length with notation 'digits'), is a deal in N1k06's and ab0214's
digits (0 a numeral, 1-4 J Q K A). A deal written as one run of cards, no '/' (in digits, in
a column named deal or deck, or with notation 'halves'), is cut into even hands, seat 0
first (acinnes, N1k06), or with notation 'alternate' dealt card by card round the seats
(ab0214); elsewhere a run of cards is one hand, as `bmn play` reads it. Notation 'rank' or
'camicia' reads the deal field as a standard deal's number in bmn's or camicia.dev's order.
A number after a deal is never a card (kernels/deal.py: number_after).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from bmn.kernels.claims import NOTHING_STATED, Stated
from bmn.kernels.config import MAX_DEAL_CARDS, MAX_SEATS, MIN_SEATS
from bmn.kernels.deal import (
    SEPARATORS,
    Deal,
    DealError,
    format_deal,
    number_after,
    parse_deal,
    parse_hand,
    shorten,
    too_many_cards,
)
from bmn.kernels.decks import Counts, read_counts
from bmn.kernels.tables.header import HAND_COLUMN, Header, table_header, unruled
from bmn.kernels.tables.lines import INPUT_PAUSED, LineError

NOTATIONS = ("auto", "digits", "halves", "alternate", "rank", "camicia")
DIGIT_DEAL_CARDS = 10  # a shorter field of digits is a number, unless notation says digits
JSON_DOCUMENT = 1 << 26  # characters of a JSON document read whole (a list of one item a line
# streams, as bmn's export writes it; a larger document is refused: JSON lines stream)

_RECORD_LINE = re.compile(r"[-JQKAjqka]+(?:/[-JQKAjqka]+){1,3}")
_RECORD_VALUE = str.maketrans("-JQKAjqka", "\x00\x01\x02\x03\x04\x01\x02\x03\x04")
_DIGITS = re.compile(r"[0-4]+")
_TOKEN = re.compile(r"[^\s,;]+")
# N1k06's report names its columns in Italian: sequenza (the deal), esito (the outcome),
# turni_pre_loop (cards, to the end or to the first repeated state).
_STATED_COLUMNS = {
    "cards": ("cards", "turns", "length", "cards_played", "turni_pre_loop"),
    "tricks": ("tricks", "battles"),
    "status": ("status", "outcome", "result", "esito"),
    "winner": ("winner",),
    "period_cards": ("period_cards",),
    "period_tricks": ("period_tricks",),
}
_DECK_COLUMN = "deck_counts"  # the deck a row says its deal is of (bmn's export): N,J,Q,K,A
_WHOLE = re.compile(r"[0-9]{1,19}")  # a stated figure: ASCII digits, a signed 64-bit number
_LONGEST_FIGURE = 2**63 - 1
# A note before a table's header ('Candidati totali nel file: 305'): a label, a colon, a value.
_NOTE = re.compile(r"[^\W\d][^:/,]*:(?:\s.*)?")
_STATUS_WORDS = {
    "finished": "finished",
    "terminata": "finished",
    "loop": "loop",
    "infinito": "loop",
    "infinite": "loop",
    "endless": "loop",
    "limit": "limit",
}


class TableRow(NamedTuple):
    """One deal of a table: where it is (1-based line, or item of a JSON list), its canonical
    notation, its cards (penalty values, hands concatenated), hand sizes, what it states."""

    line: int
    where: str | None  # None: 'line {line}'
    deal: str
    values: bytes
    sizes: tuple[int, ...]
    stated: Stated
    rules: str | None = None  # the rule set the row names (a 'rules' column or key)
    deck: Counts | None = None  # the deck the row says its deal is of ('deck_counts')


def read_table(
    lines: Iterable[str | None],
    notation: str = "auto",
    players: int = 2,
    keep_going: bool = False,
) -> Iterator[TableRow | LineError | None]:
    """The deals of a table, in order; blank and '#' lines are skipped and INPUT_PAUSED is
    passed on. LineError for a row that is not a deal, after every row before it; with
    `keep_going`, each such LineError is yielded in the row's place and reading goes on.

    `players`: the hands a deal written as one run of cards, or a deal number, is cut into.

    >>> [row.deal for row in read_table(["deal,cards", "-J/Q-,5"])]
    ['-J/Q-']
    """
    if notation not in NOTATIONS:
        raise ValueError(f"notation {notation!r} is not one of {', '.join(NOTATIONS)}")
    if not MIN_SEATS <= players <= MAX_SEATS:
        raise ValueError(f"players is {MIN_SEATS} to {MAX_SEATS}, got {players}")
    return _Reader(notation, players, keep_going).rows(lines)


class _Reader:
    def __init__(self, notation: str, players: int, keep_going: bool):
        self.notation = notation
        self.players = players
        self.keep_going = keep_going

    def _one(self, make: Any, *args: Any) -> TableRow | LineError:
        """make(*args): a row, or (keep_going) the LineError it raised."""
        try:
            return make(*args)
        except LineError as err:
            if not self.keep_going:
                raise
            return err

    def rows(self, lines: Iterable[str | None]) -> Iterator[TableRow | LineError | None]:
        """The first line that is not blank or a comment says what the table is; the rest
        is read as that. Notes before a header ('Candidati analizzati: 305', as N1k06's
        report opens) are passed over; before anything else they are read as rows."""
        content = _content(lines)
        notes: list[tuple[int, str]] = []
        for item in content:
            if item is INPUT_PAUSED:
                yield None
                continue
            number, text = item
            if _NOTE.fullmatch(text):
                notes.append(item)
                continue
            if text[0] == "[" or (text[0] == "{" and not _one_object(text)):
                yield from self._document(number, text, content)
            elif text[0] == "{":
                yield self._one(self._json_line, number, text)
                yield from self._each(content, self._json_line)
            elif (header := table_header(number, text)) is not None:
                yield from self._each(unruled(content), lambda n, t: self._csv_row(n, header, t))
            else:
                yield from self._plain_lines(iter([*notes, item]))
                yield from self._plain_lines(content)
            return
        yield from self._plain_lines(iter(notes))  # notes and nothing else: read as rows

    def _each(self, content: Iterator, read: Any) -> Iterator[TableRow | LineError | None]:
        for item in content:
            yield None if item is INPUT_PAUSED else self._one(read, *item)

    # -- lines of deals, with or without what they state ---------------------------------------

    def _plain_lines(self, content: Iterator) -> Iterator[TableRow | LineError | None]:
        record = _RECORD_LINE.fullmatch if self.notation == "auto" else None
        for item in content:
            if item is INPUT_PAUSED:
                yield None
            elif record is not None and record(item[1]):  # most lines of large files
                yield self._one(_record_row, item[0], None, item[1], NOTHING_STATED)
            else:
                yield self._one(self._plain, *item)

    def _plain(self, number: int, text: str) -> TableRow:
        """A line without a header: a deal, and what it states after it (or, a deal in
        digits, before it: N1k06's `rank status cards tricks digits`)."""
        where = None  # 'line {number}', written only for an error
        if self.notation == "auto" and _RECORD_LINE.fullmatch(text):
            return _record_row(number, where, text, NOTHING_STATED)
        try:
            if self.notation in ("rank", "camicia"):
                tokens = _TOKEN.findall(text)
                if not tokens:
                    raise DealError(f"no deal number in {shorten(text)!r}")
                return self._row(number, where, tokens[0], _stated_from(tokens[1:]))
            deal_text, fields = peel(text, self.notation in ("halves", "alternate"))
            try:
                return self._row(number, where, deal_text, _stated_from(fields))
            except DealError as err:
                try:
                    found = self._by_shape(number, where, text)
                except DealError:
                    found = None
                if found is None:
                    raise err from None
                return found
        except DealError as err:
            raise LineError(number, str(err), where) from None

    def _by_shape(self, number: int, where: str | None, text: str) -> TableRow | None:
        """A line whose deal is one field among others, found by its shape: digits 0-4, or a
        deal with '/'."""
        tokens = _TOKEN.findall(text)
        for i, token in enumerate(tokens):
            if self._is_digits(token) or ("/" in token and not _is_number(token)):
                before, after = tokens[:i], tokens[i + 1 :]
                numbers = [t for t in after if _is_number(t)]
                if not numbers:  # [rank,] cards[, tricks] before the deal
                    numbers = [t for t in before if _is_number(t)]
                    numbers = numbers[1:] if len(numbers) > 2 else numbers
                words = [t for t in before + after if not _is_number(t)]
                return self._row(number, where, token, _stated_from(words + numbers))
        return None

    # -- tables with a header ------------------------------------------------------------------

    def _csv_row(self, number: int, header: Header, text: str) -> TableRow:
        try:
            cells = header.split(number, text)
            if len(cells) != len(header.names):
                raise DealError(
                    f"{len(cells)} fields where the header (line {header.line}) has"
                    f" {len(header.names)}"
                )
            deal = header.deal(cells, self.notation)
            fields = header.fields(cells)
            return _with_named(self._row(number, None, deal, _stated_of(fields), cut=True), fields)
        except DealError as err:
            raise LineError(number, str(err)) from None

    # -- JSON --------------------------------------------------------------------------------

    def _json_line(self, number: int, text: str) -> TableRow:
        return self._object(number, f"line {number}", _json(number, text, "a JSON object"))

    def _document(self, number: int, first: str, content: Iterator):
        """A whole JSON document: a list of deals or objects (bmn's export), or an object with
        'cases' (exercism's canonical data). A list opened on a line of its own and written an
        item a line, as bmn's export writes it, is read an item at a time; any other document
        once it has all come, up to JSON_DOCUMENT characters."""
        if first == "[":
            yield from self._listed(number, content)
            return
        parts, size = [first], len(first)
        for item in content:
            if item is not INPUT_PAUSED:
                parts.append(item[1])
                size += len(item[1]) + 1
            if size > JSON_DOCUMENT:
                raise LineError(
                    number,
                    f"a JSON document of more than {JSON_DOCUMENT:,} characters; write one"
                    " deal a line (JSON lines, as `bmn score --json` does) or a list of one"
                    " item a line (`bmn records export --format json`)",
                )
        document = _json(number, "\n".join(parts), "JSON")
        for i, item in enumerate(_items(document), start=1):
            yield self._one(self._object, i, f"item {i}", item)

    def _listed(self, number: int, content: Iterator):
        """A JSON list written '[' then one item a line (a comma after each but the last),
        then ']': each item read as its line comes."""
        i = 0
        for item in content:
            if item is INPUT_PAUSED:
                yield None
                continue
            line, text = item
            if text == "]":
                return
            i += 1
            value = _json(line, text.removesuffix(","), "an item of a JSON list a line")
            yield self._one(self._object, i, f"item {i} (line {line})", value)
        raise LineError(number, "a JSON list that never ends: no ']' after its items")

    def _object(self, number: int, where: str, item: Any) -> TableRow:
        try:
            if isinstance(item, str):
                return self._row(number, where, item, Stated())
            if not isinstance(item, dict):
                raise DealError(f"a deal is a text or an object, got {type(item).__name__}")
            said = item.get("expected") if isinstance(item.get("expected"), dict) else item
            row = self._row(number, where, _object_deal(item), _stated_of(said), cut=True)
            return _with_named(row, item)
        except DealError as err:
            raise LineError(number, str(err), where) from None

    # -- one deal ------------------------------------------------------------------------------

    def _row(
        self,
        number: int,
        where: str | None,
        deal: str | Sequence[str],
        stated: Stated,
        cut: bool = False,
    ) -> TableRow:
        """A row of `deal` (its hands' texts, or one text; `cut`: a run of cards is cut into
        hands, as a column named deal or deck means it)."""
        if isinstance(deal, str):
            deal = deal.strip()
            if self.notation == "auto" and _RECORD_LINE.fullmatch(deal):
                return _record_row(number, where, deal, stated)
            hands = self._deal(deal, cut or self.notation in ("halves", "alternate"))
        else:
            hands = parse_deal([str(hand) for hand in deal], typed=True)
        values = bytes(v for hand in hands for v in hand)
        sizes = tuple(len(hand) for hand in hands)
        return TableRow(number, where, format_deal(hands), values, sizes, stated)

    def _deal(self, text: str, cut: bool) -> Deal:
        if self.notation in ("rank", "camicia"):
            return self._numbered(text)
        if "/" not in text:
            if self._is_digits(text):
                return self._cut([int(c) for c in text])
            if cut and len(cards := parse_hand(text.strip(SEPARATORS))) >= self.players:
                return self._cut(list(cards))
        return parse_deal(text, typed=True)

    def _numbered(self, text: str) -> Deal:
        """The standard deal of a number in bmn's or camicia.dev's order, cut evenly."""
        from bmn.kernels.ranks import numbered_standard

        if not _WHOLE.fullmatch(text) and not re.fullmatch(r"[0-9]{1,100}", text):
            raise DealError(f"{shorten(text)!r} is not a deal number ({self.notation}'s)")
        order = "bmn" if self.notation == "rank" else "camicia"
        try:
            return numbered_standard(order, int(text), self.players)
        except ValueError as err:
            raise DealError(f"deal number {shorten(text)}: {err}") from None

    def _is_digits(self, text: str) -> bool:
        if not _DIGITS.fullmatch(text):
            return False
        return self.notation == "digits" or len(text) >= DIGIT_DEAL_CARDS

    def _cut(self, cards: list[int]) -> Deal:
        """A run of cards cut into the seats' hands: in even hands, seat 0 first, or (notation
        'alternate') dealt one card at a time from seat 0."""
        if len(cards) > MAX_DEAL_CARDS:
            raise too_many_cards(len(cards))
        n = self.players
        if self.notation == "alternate":
            return tuple(tuple(cards[seat::n]) for seat in range(n))
        from bmn.kernels.decks import even_sizes

        hands, at = [], 0
        for size in even_sizes(len(cards), n):
            hands.append(tuple(cards[at : at + size]))
            at += size
        return tuple(hands)


def peel(text: str, one_run: bool = False) -> tuple[str, list[str]]:
    """A line cut into its deal and the fields after it: numbers that are not cards
    (kernels/deal.py: number_after; `one_run`, a deal written as one run of cards, as notation
    halves and alternate read it) and status words, in order."""
    body = text.strip(SEPARATORS)
    spans = [(m.start(), m.group()) for m in _TOKEN.finditer(body)]
    first = len(spans)  # the run of numbers and words at the end of the line
    while first > 1 and (_is_number(spans[first - 1][1]) or _is_status(spans[first - 1][1])):
        first -= 1
    for i in range(first, len(spans)):
        start, token = spans[i]
        before = body[:start]
        if _is_status(token) or number_after((before + token).split("/"), one_run=one_run):
            return before.rstrip(SEPARATORS), [t for _, t in spans[i:]]
    return body, []


def _is_status(token: str) -> bool:
    return token.lower() in _STATUS_WORDS


def _is_number(token: str) -> bool:
    """Whether a field is a whole number in ASCII digits (not '²', which int() cannot read)."""
    return token.isascii() and token.isdigit()


def _figure(name: str, value: object) -> int:
    """A stated figure: a whole number of at most 2**63 - 1 (DealError naming it otherwise,
    its digits read no further than that)."""
    text = str(value).strip()
    if isinstance(value, bool) or not _is_number(text):
        raise DealError(f"{name} is {shorten(text)!r}, not a whole number")
    if not _WHOLE.fullmatch(text) or int(text) > _LONGEST_FIGURE:
        raise DealError(f"{name} is {shorten(text)}, past the largest figure bmn holds (2**63 - 1)")
    return int(text)


def _record_row(number: int, where: str | None, text: str, stated: Stated) -> TableRow:
    """A deal in record notation, read without the general parser (files of millions)."""
    if len(text) - text.count("/") > MAX_DEAL_CARDS:
        raise LineError(number, str(too_many_cards(len(text) - text.count("/"))), where)
    canonical = text.upper()
    values = canonical.replace("/", "").translate(_RECORD_VALUE).encode("ascii")
    sizes = tuple(len(hand) for hand in canonical.split("/"))
    return TableRow(number, where, canonical, values, sizes, stated)


def _content(lines: Iterable[str | None]) -> Iterator[tuple[int, str] | None]:
    """(line number, text stripped) of each line that is not blank or a comment ('#'), and
    INPUT_PAUSED where the input paused."""
    number = 0
    for line in lines:
        if line is INPUT_PAUSED:
            yield None
            continue
        number += 1
        text = line.strip()
        if text and not text.startswith("#"):
            yield number, text


def _with_named(row: TableRow, fields: dict[str, Any]) -> TableRow:
    """The row with the rule set its 'rules' field names and the deck its 'deck_counts' field
    names (bmn's export, `score --json`)."""
    name, deck = fields.get("rules"), fields.get(_DECK_COLUMN)
    if name not in (None, ""):
        from bmn.kernels.rules.sets import rule_set

        try:
            row = row._replace(rules=rule_set(str(name).strip()).name)
        except ValueError as err:
            raise DealError(f"rules: {err}") from None
    if deck not in (None, ""):
        counts = read_counts(str(deck).strip()) if isinstance(deck, str) else None
        if counts is None:
            raise DealError(f"{_DECK_COLUMN} is {shorten(str(deck))!r}, not counts N,J,Q,K,A")
        row = row._replace(deck=counts)
    return row


def _stated_from(fields: Sequence[str]) -> Stated:
    """Fields beside a deal: a status word anywhere, then numbers as cards and tricks."""
    status = None
    numbers = []
    for field in fields:
        if field.lower() in _STATUS_WORDS:
            status = _STATUS_WORDS[field.lower()]
        elif _is_number(field):
            numbers.append(_figure("a number after the deal", field))
        else:
            raise DealError(f"{shorten(field)!r} after the deal is neither a number nor a status")
    if len(numbers) > 2:
        raise DealError(f"{len(numbers)} numbers after the deal; a row states cards and tricks")
    cards, tricks = (numbers + [None, None])[:2]
    return Stated(cards, tricks, status)


def _stated_of(item: dict[str, Any]) -> Stated:
    """What a JSON object or a CSV row (as a dict) states, by its keys' names."""
    found: dict[str, Any] = {}
    for field, names in _STATED_COLUMNS.items():
        for key, value in item.items():
            if str(key).strip().lower() in names and value not in (None, ""):
                found[field] = value
                break
    for field in ("cards", "tricks", "winner", "period_cards", "period_tricks"):
        if field in found:
            found[field] = _figure(field, found[field])
    if "status" in found:
        word = str(found["status"]).strip().lower()
        if word not in _STATUS_WORDS:
            known = ", ".join(sorted(set(_STATUS_WORDS.values())))
            raise DealError(f"status {shorten(str(found['status']))!r} is not one of {known}")
        found["status"] = _STATUS_WORDS[word]
    return Stated(**found)


def _object_deal(item: dict[str, Any]) -> str | list[str]:
    """The deal of a JSON object: 'deal' (text, or a list of hands), 'deck' or 'hands', or
    hands by name (exercism's input.playerA...)."""
    for key in ("deal", "deck", "hands"):
        value = item.get(key)
        if isinstance(value, str) or _texts(value):
            return value
    named = item.get("input") if isinstance(item.get("input"), dict) else item
    hands = sorted(
        (m.group(1), value)
        for key, value in named.items()
        if (m := HAND_COLUMN.fullmatch(str(key).lower())) and isinstance(value, str)
    )
    if len(hands) >= MIN_SEATS:
        return [value for _, value in hands]
    raise DealError("no deal in this object: give 'deal' (or 'deck', 'hands', 'playerA'...)")


def _texts(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _items(document: Any) -> Iterator[Any]:
    """The rows of a JSON document: a list's items; an object's 'cases', nested as exercism
    nests them."""
    if isinstance(document, list):
        yield from document
    elif isinstance(document, dict) and isinstance(document.get("cases"), list):
        for case in document["cases"]:
            if isinstance(case, dict) and "cases" in case:
                yield from _items(case)
            else:
                yield case
    else:
        yield document


def _one_object(text: str) -> bool:
    """Whether a line is one JSON object of a deal (JSON lines), not a document's start or a
    document of cases on one line."""
    try:
        item = json.loads(text)
    except (ValueError, RecursionError):
        return False
    return isinstance(item, dict) and "cases" not in item


def _json(number: int, text: str, what: str) -> Any:
    """`text` as JSON; LineError saying it is not `what` (JSON nested too deeply for the
    parser is not JSON bmn reads either)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise LineError(number, f"not {what}: nested too deeply") from None
    except ValueError as err:
        raise LineError(number, f"not {what} ({err})") from None
