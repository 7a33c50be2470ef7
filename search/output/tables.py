"""The shape of bmn's text output: lines of text and `Table`s, printed by the command line's
`echo` (bmn.search.cli.options; nothing here imports click): on a terminal each table is drawn by
rich; anywhere else (a pipe, a file, a test) as plain columns two spaces apart, so a script that
cuts columns or greps rows reads the same text whatever the window. JSON is not made here:
--json prints each result's `as_dict()` (records/report.py for the store's lists).

What each command prints is built beside its reader: games.py (one game: play, loop), records.py
(the store and the published records), measures.py (stats, search-bench), odds.py (the odds of a
longer game, in the live panel and the search summary).
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.table import Table as RichTable


@dataclass(frozen=True)
class Table:
    """Rows of cells under a head: right-aligned (numbers) but for the columns in `left`."""

    head: Sequence[str]
    rows: Sequence[Sequence[Any]]
    left: Collection[int] = ()

    def cells(self) -> list[list[str]]:
        return [[str(c) for c in self.head]] + [[str(c) for c in row] for row in self.rows]

    def plain(self) -> str:
        """Columns two spaces apart, each as wide as its widest cell; no trailing spaces."""
        cells = self.cells()
        widths = [max(len(row[c]) for row in cells) for c in range(len(self.head))]

        def line(row: list[str]) -> str:
            parts = [
                cell.ljust(w) if c in self.left else cell.rjust(w)
                for c, (cell, w) in enumerate(zip(row, widths, strict=True))
            ]
            return "  ".join(parts).rstrip()

        return "\n".join(line(row) for row in cells)

    def rich(self) -> RichTable:
        """The same table for a terminal; cells too wide for the window fold, never cut."""
        from rich import box
        from rich.table import Table as RichTable

        table = RichTable(
            box=box.SIMPLE_HEAD,
            header_style="bold",
            show_edge=False,
            pad_edge=False,
            collapse_padding=True,
        )
        for c, name in enumerate(self.head):
            justify = "left" if c in self.left else "right"
            table.add_column(name, justify=justify, overflow="fold")
        for row in self.cells()[1:]:
            table.add_row(*row)
        return table


Block = str | Table


def plain(blocks: Iterable[Block]) -> str:
    """Blocks as plain text, one line or table after another."""
    return "\n".join(b.plain() if isinstance(b, Table) else b for b in blocks)


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()
