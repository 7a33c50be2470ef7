"""Columns and listings: each `bmn records` listing declared once, as its columns (listings.py
declares them), and rendered by one renderer as text (a Table, fitted to a terminal by
tables.py), JSON and CSV.

A column says everything about itself in one place: its key (in JSON and CSV), its heading
(in text), how a row gives its value and its text cell, whether it is left-aligned or wraps at
spaces, and when it gives way at a narrow terminal. A column with no heading is data only (JSON
and CSV); one with no key is text only (a rank, a cell made of several values).

A listing of a whole store (`records export`: millions of finds) streams: its rows come as
blocks of columns (a bulk batch of finds at a time, records/store/finds.FindBlock), each column
read from a block once (`of_block`), each line written as the csv and json modules write it,
with a block's shared values written by them once.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from bmn.frontends.output.tables import Table


@dataclass(frozen=True)
class Column:
    """One column of a listing."""

    key: str | None  # its JSON key and CSV heading; None: a text column only
    value: Callable[[Any], Any]  # a row's value (its text cell too, unless `cell` says)
    heading: str | None = None  # its text heading; None: a data column only (JSON, CSV)
    cell: Callable[[Any], Any] | None = None  # a row's text cell, where not its value
    left: bool = False  # left-aligned (words, deals); else right (numbers)
    wrap: bool = False  # its words wrap at spaces on a narrow terminal
    gives_way: int = 0  # left out at a narrow terminal: 1 first, then 2, ...; 0 never
    # What another column (by heading) says when this one gives way, a row's cell there or
    # None to leave it: a status folded into the cards, 'loop (474)'.
    fold: tuple[str, Callable[[Any], Any]] | None = None
    # Streaming (records export): the column of a block of rows, a list of values, or a
    # Shared value of all of them; `plain`, its text never needs quoting or escaping.
    of_block: Callable[[Any], Any] | None = None
    plain: bool = False


@dataclass(frozen=True)
class Shared:
    """A value every row of a block shares (a batch's run, time stamp, strategy)."""

    value: Any


@dataclass(frozen=True)
class Listing:
    """The columns of one listing, rendered by `table`, `dicts`, `csv` and `stream_*`."""

    columns: Sequence[Column]
    # The data columns' order in JSON and CSV, where it is not the text's (JSON keys and CSV
    # columns are a contract scripts read by: their order is older than the text layout).
    order: Sequence[str] = ()

    @property
    def keys(self) -> list[str]:
        return [c.key for c in self._data()]

    def _data(self) -> list[Column]:
        data = [c for c in self.columns if c.key is not None]
        if not self.order:
            return data
        by_key = {c.key: c for c in data}
        return [by_key[key] for key in self.order]

    def table(self, rows: Sequence[Any]) -> Table:
        """The text table: the columns with a heading, in order."""
        shown = [c for c in self.columns if c.heading is not None]
        head = [c.heading for c in shown]
        body = [[(c.cell or c.value)(row) for c in shown] for row in rows]
        spare = sorted((c.gives_way, i) for i, c in enumerate(shown) if c.gives_way)
        where = {c.heading: i for i, c in enumerate(shown)}
        folds = {
            i: (where[c.fold[0]], [c.fold[1](row) for row in rows])
            for i, c in enumerate(shown)
            if c.fold is not None
        }
        return Table(
            head,
            body,
            left=tuple(i for i, c in enumerate(shown) if c.left),
            wrap=tuple(i for i, c in enumerate(shown) if c.wrap),
            spare=tuple(i for _, i in spare),
            folds=folds,
        )

    def dicts(self, rows: Iterable[Any]) -> list[dict[str, Any]]:
        """Each row as JSON writes it: key to value, in the columns' order."""
        data = self._data()
        return [{c.key: c.value(row) for c in data} for row in rows]

    def json(self, rows: Iterable[Any]) -> str:
        return json.dumps(self.dicts(rows))

    def stream_csv(self, blocks: Iterable[Any], out: IO[str]) -> None:
        """Blocks of rows as CSV, a heading line first: each line what csv.writer writes."""
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.keys)
        for columns in self._blocks(blocks):
            out.write("".join(_csv_lines(columns)))

    def stream_json(self, blocks: Iterable[Any], out: IO[str]) -> None:
        """Blocks of rows as a JSON list, an object a line: each object what json.dumps
        writes of it."""
        out.write("[")
        first = True
        for columns in self._blocks(blocks):
            for line in _json_lines(columns):
                out.write(("\n" if first else ",\n") + line)
                first = False
        out.write("\n]\n")

    def _blocks(self, blocks: Iterable[Any]) -> Iterable[list[tuple[Column, Any]]]:
        data = self._data()
        for block in blocks:
            yield [(c, c.of_block(block)) for c in data]  # type: ignore[misc]


def _csv_lines(columns: list[tuple[Column, Any]]) -> Iterable[str]:
    """A block's CSV lines: shared values written by the csv module once, into the line's
    pattern; plain values as they are (in quotes, where the column's first holds a comma);
    any other value by the csv module."""
    pattern, each = [], []
    for column, values in columns:
        if isinstance(values, Shared):
            pattern.append(_csv_cell(values.value).replace("%", "%%"))
        elif column.plain:
            pattern.append("%s" if all(_bare(v) for v in values[:1]) else '"%s"')
            each.append(values)
        else:
            pattern.append("%s")
            each.append([_csv_cell(v) for v in values])
    return _lines(",".join(pattern) + "\n", each)


def _bare(value: Any) -> bool:
    """Whether a plain column's values go into CSV as they are (no comma, quote or break)."""
    return not isinstance(value, str) or not any(c in value for c in ',"\r\n')


def _csv_cell(value: Any) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow([value])
    return out.getvalue()


def _json_lines(columns: list[tuple[Column, Any]]) -> Iterable[str]:
    """A block's JSON objects, one a line: shared values written by json.dumps once, into the
    line's pattern; plain text in quotes as it is; any other value by json.dumps."""
    pattern, each = [], []
    for column, values in columns:
        key = json.dumps(column.key)
        if isinstance(values, Shared):
            pattern.append(f"{key}: {json.dumps(values.value)}".replace("%", "%%"))
        elif column.plain:
            text = values[:1] and isinstance(values[0], str)
            pattern.append(f'{key}: "%s"' if text else f"{key}: %s")
            each.append(values)
        else:
            pattern.append(f"{key}: %s")
            each.append([json.dumps(v) for v in values])
    return _lines("{" + ", ".join(pattern) + "}", each)


def _lines(pattern: str, each: list[Sequence[Any]]) -> list[str]:
    """The pattern filled with each row's values (a block whose every value is shared: one)."""
    if not each:
        return [pattern.replace("%%", "%")]
    return [pattern % row for row in zip(*each, strict=True)]


def numbered(rows: Sequence[Any]) -> list[tuple[int, Any]]:
    """Rows with their place in a ranked list, from 1 (a listing's '#' column reads it)."""
    return list(enumerate(rows, start=1))
