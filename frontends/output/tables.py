"""The shape of bmn's text output: lines of text and `Table`s, printed by the command line's
`echo` (bmn.frontends.cli.options; nothing here imports click): on a terminal each table is drawn by
rich; anywhere else (a pipe, a file, a test) as plain columns two spaces apart, so a script that
cuts columns or greps rows reads the same text whatever the window. JSON is not made here:
--json prints each result's `as_dict()` (records/report.py for the store's lists).

What each command prints is built beside its reader: games.py (one game: play, loop), records.py
(the store and the published records), measures.py (stats, search-bench), odds.py (the odds of a
longer game, in the live panel and the search summary).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.table import Table as RichTable


GAP = 2  # spaces between columns, in plain text and on a terminal alike
SUMMARY_WIDTH = 80  # a search's summary on a terminal fits the narrowest bmn writes for


@dataclass(frozen=True)
class Table:
    """Rows of cells under a head: right-aligned (numbers) but for the columns in `left`.

    A whole number is written with thousands separators (a run number or a year is given as
    text, so it is not). On a terminal no cell is ever split but those of the `wrap` columns
    (words), which wrap at spaces; the `spare` columns, first named first, are left out (and
    the table says so) when the window is too narrow for them. `folds` keeps what a spare column
    says when it is left out: {spare column: (another column, its cells then)}, a cell None where
    the other column's own cell says enough (a loop's length written `loop (474)` in the cards
    column when the status column gives way)."""

    head: Sequence[str]
    rows: Sequence[Sequence[Any]]
    left: Collection[int] = ()
    wrap: Collection[int] = ()
    spare: Sequence[int] = ()
    folds: Mapping[int, tuple[int, Sequence[Any]]] = field(default_factory=dict)

    def cells(self, left_out: Collection[int] = ()) -> list[list[str]]:
        """The head and rows as text; with the columns `left_out`, what they fold into others."""
        rows = [[cell_text(c) for c in row] for row in self.rows]
        for gone, (into, instead) in self.folds.items():
            if gone in left_out:
                for row, cell in zip(rows, instead, strict=True):
                    if cell is not None:
                        row[into] = cell_text(cell)
        return [[str(c) for c in self.head]] + rows

    def plain(self) -> str:
        """Columns two spaces apart, each as wide as its widest cell; no trailing spaces."""
        cells = self.cells()
        widths = [max(len(row[c]) for row in cells) for c in range(len(self.head))]

        def line(row: list[str]) -> str:
            parts = [
                cell.ljust(w) if c in self.left else cell.rjust(w)
                for c, (cell, w) in enumerate(zip(row, widths, strict=True))
            ]
            return (" " * GAP).join(parts).rstrip()

        return "\n".join(line(row) for row in cells)

    def fit(self, width: int) -> Fitted | None:
        """The columns to draw in a window `width` wide, and how wide each; None if the table
        cannot fit. Spare columns give way, in order, before a word column wraps."""
        spare = [c for c in self.spare if c < len(self.head)]
        tries = [((), spare[:k]) for k in range(len(spare) + 1)] + [(self.wrap, spare)]
        for wrap, left_out in tries:
            shown = [c for c in range(len(self.head)) if c not in left_out]
            widths = _widths(self.cells(left_out), shown, wrap, width)
            if widths is not None:
                return Fitted(shown, widths, [self._gone(c, shown) for c in left_out])
        return None

    def _gone(self, column: int, shown: Collection[int]) -> str:
        """A column left out, as the note under the table names it: 'status (in cards)' for one
        whose cells another column shown now carries."""
        into = self.folds.get(column, (None, ()))[0]
        return f"{self.head[column]} (in {self.head[into]})" if into in shown else self.head[column]

    def rich(self, fitted: Fitted) -> RichTable:
        """The table for a terminal, its columns as `fit` chose: only word columns wrap."""
        from rich import box
        from rich.table import Table as RichTable

        table = RichTable(
            box=box.SIMPLE_HEAD,
            header_style="bold",
            show_edge=False,
            pad_edge=False,
            collapse_padding=True,
        )
        for c, w in zip(fitted.columns, fitted.widths, strict=True):
            justify = "left" if c in self.left else "right"
            table.add_column(self.head[c], justify=justify, overflow="fold", width=w)
        left_out = [c for c in range(len(self.head)) if c not in fitted.columns]
        for row in self.cells(left_out)[1:]:
            table.add_row(*(row[c] for c in fitted.columns))
        return table


def cell_text(value: Any) -> str:
    """A cell as text: one way to write a whole number, with thousands separators."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


@dataclass(frozen=True)
class Fitted:
    """A table's layout in a window: the columns drawn, their widths, the heads left out."""

    columns: list[int]
    widths: list[int]
    left_out: list[str]


def _widths(
    cells: list[list[str]], shown: list[int], wrap: Collection[int], width: int
) -> list[int] | None:
    """Each shown column's width within `width`, or None if the table cannot fit. A column is
    as wide as its widest cell; a word column may narrow to its longest word. A head wraps at
    spaces, so it asks only for its longest word."""
    widest = [max(len(row[c]) for row in cells[1:]) if len(cells) > 1 else 0 for c in shown]
    head = [max(map(len, cells[0][c].split() or [""])) for c in shown]
    words = [
        max((len(word) for row in cells[1:] for word in row[c].split()), default=0) for c in shown
    ]
    least = [max(head[i], words[i] if c in wrap else widest[i]) for i, c in enumerate(shown)]
    natural = [max(len(cells[0][c]), widest[i], least[i]) for i, c in enumerate(shown)]
    room = width - GAP * (len(shown) - 1)
    if sum(least) > room:
        return None
    widths = natural[:]
    # Heads give way first (wrapped at their spaces), then word columns, the widest first.
    for i in range(len(shown)):
        widths[i] -= max(0, min(sum(widths) - room, widths[i] - max(widest[i], least[i])))
    while sum(widths) > room:
        words_left = [i for i, c in enumerate(shown) if c in wrap and widths[i] > least[i]]
        widths[max(words_left, key=lambda i: widths[i])] -= 1
    return widths


Block = str | Table


def plain(blocks: Iterable[Block]) -> str:
    """Blocks as plain text, one line or table after another."""
    return "\n".join(b.plain() if isinstance(b, Table) else b for b in blocks)


def terminal(blocks: Iterable[Block], width: int) -> list[RichTable | str]:
    """Blocks for a terminal `width` columns wide: a table drawn by rich where it fits (spare
    columns left out, and said so below it), else as plain columns (whole, as into a pipe, where
    rich would drop columns); lines of text wrapped at spaces. A deal or a number is never split
    to fit."""
    shown: list[RichTable | str] = []
    for block in blocks:
        if not isinstance(block, Table):
            shown.append(wrap_words(block, width))
            continue
        fitted = block.fit(width)
        if fitted is None:
            shown.append(block.plain())
            continue
        shown.append(block.rich(fitted))
        if fitted.left_out:
            note = (
                f"(left out to fit {width} columns: {', '.join(fitted.left_out)}; a wider"
                " window, a pipe or --json shows every column)"
            )
            shown.append(wrap_words(note, width))
    return shown


def wrap_words(text: str, width: int) -> str:
    """Each line of `text` wrapped at spaces to `width`, never inside a word (a deal, a number,
    a key) nor between a number and its unit ('0.5 s', '1,234 games/s'), the rest of a wrapped
    line indented two spaces more than its start."""
    import textwrap

    lines = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        indent = " " * (len(line) - len(line.lstrip(" "))) + "  "
        held = _UNIT.sub(lambda m: m.group(0).replace(" ", _KEPT), line)
        wrapped = textwrap.wrap(
            held,
            width,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )
        lines += [part.replace(_KEPT, " ") for part in wrapped]
    return "\n".join(lines)


# A number and the unit after it, kept on one line by wrap_words (the space held as _KEPT).
_UNIT = re.compile(r"\d (?:s|ms|%|games/s|cards/s|deals/s)(?=\W|$)")
_KEPT = "\x00"


def fit_summary(text: str) -> str:
    """A search's summary for stdout: on a terminal, fitted to SUMMARY_WIDTH (its sentences
    wrapped at spaces; a line indented two spaces, a deal or a command to copy, kept whole, on
    its own); into a pipe or a file, each sentence one line, as every message bmn writes
    there (a script greps a line, not a paragraph)."""
    if not stdout_is_terminal():
        return text
    return "\n".join(
        line if line.startswith("  ") else wrap_words(line, SUMMARY_WIDTH)
        for line in text.split("\n")
    )


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()
