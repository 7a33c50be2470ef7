"""A deal table's header line (kernels/tables/reader.py): the columns it names, which of
them hold the deal, and how its lines split into cells."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator

from bmn.kernels.config import MIN_SEATS
from bmn.kernels.deal import DealError
from bmn.kernels.tables.lines import INPUT_PAUSED, LineError

HAND_COLUMN = re.compile(r"(?:hand|player)[ _-]?([a-d1-4])")
DEAL_COLUMNS = ("deal", "deck", "hands", "digits", "sequenza")
NUMBER_COLUMNS = ("number", "rank", "deal_number", "camicia")
RULER = re.compile(r"[-=+|: ]{3,}")  # a line under a header that rules it off


class Header:
    """A table's header: its column names, how its lines split, which columns hold what."""

    def __init__(self, line: int, names: list[str], delimiter: str | None):
        self.line = line
        self.names = [name.strip().lower() for name in names]
        self.delimiter = delimiter

    def split(self, number: int, text: str) -> list[str]:
        if self.delimiter is None:
            return text.split()
        return cells(number, text, self.delimiter)

    def deal(self, cells: list[str], notation: str) -> str | list[str]:
        columns = self.names
        wanted = NUMBER_COLUMNS if notation in ("rank", "camicia") else DEAL_COLUMNS
        for name in wanted:
            if name in columns:
                return cells[columns.index(name)]
        hands = sorted(
            (m.group(1), i) for i, n in enumerate(columns) if (m := HAND_COLUMN.fullmatch(n))
        )
        if len(hands) >= MIN_SEATS:
            return [cells[i] for _, i in hands]
        if any(name in columns for name in NUMBER_COLUMNS):
            raise DealError(
                "the header names deal numbers but no deal; read them as numbers in notation"
                " 'rank' (bmn's numbers) or 'camicia' (camicia.dev's)"
            )
        raise DealError(
            f"the header (line {self.line}) names no deal column: one of"
            f" {', '.join(DEAL_COLUMNS)}, or hand_a, hand_b..."
        )

    def fields(self, cells: list[str]) -> dict[str, str]:
        """A line's cells by their columns' names."""
        return dict(zip(self.names, cells, strict=True))


def table_header(line: int, text: str) -> Header | None:
    """The header a table's first line is, if it names a column bmn knows."""
    delimiter = "," if "," in text else "\t" if "\t" in text else None
    names = text.split() if delimiter is None else cells(line, text, delimiter)
    known = (*DEAL_COLUMNS, *NUMBER_COLUMNS)
    if any(n.strip().lower() in known or HAND_COLUMN.fullmatch(n.strip().lower()) for n in names):
        return Header(line, names, delimiter)
    return None


def cells(number: int, text: str, delimiter: str) -> list[str]:
    """A CSV line's fields; LineError for one the csv module refuses (a field past its limit,
    131,072 characters: no deal is near that long)."""
    try:
        return next(csv.reader([text], delimiter=delimiter), [])
    except csv.Error as err:
        raise LineError(number, f"not a line of CSV ({err})") from None


def unruled(content: Iterator) -> Iterator:
    """A table's lines after its header, the first passed over if it only rules the header
    off ('-----', as N1k06's report does): a line of '-' is otherwise a hand of numerals."""
    for item in content:
        if item is INPUT_PAUSED:
            yield item
            continue
        if not RULER.fullmatch(item[1]):
            yield item
        yield from content
        return
