"""Values as the store keeps them: each written as its column holds it (time stamps, deals in
record notation, plain numbers sqlite3 can bind, text one of a column's allowed values), and
each read back checked where the store reads it: a value of the wrong type, out of range, a
blob of the wrong size or a text of the wrong shape (a damaged file, a hand edit, another
program's write) makes the store damaged, StoreDamaged, in one line naming the table, the row
and what is wrong, never a TypeError deep in a report or a compiled kernel.

SQLite keeps any value in any column (a column's type is only an affinity), so nothing about a
value read back is taken on trust: `Row` checks each as the row is turned into a record.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

from bmn.records.store.errors import StoreDamaged

INT64_MAX = 2**63 - 1
_HAND = r"(?:[-JQKA]*|\.)"
# A deal as the store keeps it: record notation, 2 to 4 hands joined by '/'.
DEAL = re.compile(rf"{_HAND}(?:/{_HAND}){{1,3}}")
# A cycle's key (kernels/cycles/loops.state_text): the leader, ':', the hands ('x' for out).
KEY = re.compile(rf"[0-3]:(?:{_HAND}|x)(?:/(?:{_HAND}|x)){{1,3}}")
DECK = re.compile(r"[0-9]{1,3}(?:,[0-9]{1,3}){4}")  # counts N,J,Q,K,A
SIZES = re.compile(r"[0-9]{1,3}(?:/[0-9]{1,3}){1,3}")  # hand sizes, '26/26'
SHOWN = 40  # characters of a bad value quoted in the line
# A time stamp: ISO-8601 UTC text as the store keeps it (and the command line shows it), or the
# datetime the library reads it as (records/api.py): Run[datetime], Run[str].
Stamp = TypeVar("Stamp", str, datetime)
_CANONICAL = re.compile(r"[-JQKA]*(/[-JQKA]*){1,3}")


# -- values as they are written ---------------------------------------------------------------


def now() -> str:
    """The current time as ISO-8601 UTC text, to the millisecond."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def canonical_deal(text: str) -> str:
    """A deal in record notation with hands joined by '/', whatever notation it came in."""
    if _CANONICAL.fullmatch(text) and text.strip("/"):  # the usual case, the search's: as is
        return text
    from bmn.kernels.deal import format_deal, parse_deal

    return format_deal(parse_deal(text))


def require(value: str, allowed: Sequence[str], what: str) -> None:
    """ValueError unless `value` is one of `allowed` (a column's CHECK, said before SQLite)."""
    if value not in allowed:
        raise ValueError(f"{what} must be one of {', '.join(allowed)}, got {value!r}")


def plain(value: Any) -> Any:
    """Numpy scalars and the like as plain Python numbers, which sqlite3 can bind."""
    return value.item() if hasattr(value, "item") else value


# -- values as they are read back, checked -----------------------------------------------------


def damaged(path: Path | str, where: str, what: str) -> StoreDamaged:
    """The error for a store whose `where` (table, row, column) holds what it should not."""
    return StoreDamaged(f"record store {path} is damaged: {where} {what}; it was left as it is")


def shown(value: object) -> str:
    """A bad value as the line quotes it: its repr, cut short; a blob by its size."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"a blob of {len(value):,} bytes"
    text = repr(value)
    return text if len(text) <= SHOWN else f"{text[: SHOWN - 3]}..."


class Row:
    """One row read from `table`, checked column by column; `row` names it in the line
    ('3', or 'run 1, worker 0')."""

    def __init__(self, path: Path | str, table: str, row: object):
        self.path, self.table, self.row = path, table, row

    def bad(self, column: str, what: str) -> StoreDamaged:
        return damaged(self.path, f"table {self.table}, row {self.row}, column {column}", what)

    def whole(
        self, column: str, value: Any, low: int = 0, high: int = INT64_MAX, null: bool = False
    ) -> Any:
        """A whole number from `low` to `high` (None too, if `null`)."""
        if value is None and null:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.bad(column, f"holds {shown(value)}, not a whole number")
        if not low <= value <= high:
            raise self.bad(column, f"holds {value}, out of range ({low} to {high:,})")
        return value

    def number(self, column: str, value: Any, low: float = 0.0, null: bool = False) -> Any:
        """A finite number of at least `low` (None too, if `null`)."""
        if value is None and null:
            return None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise self.bad(column, f"holds {shown(value)}, not a number")
        if not math.isfinite(value) or value < low:
            raise self.bad(column, f"holds {value}, out of range (a finite number >= {low:g})")
        return value

    def text(
        self,
        column: str,
        value: Any,
        allowed: tuple[str, ...] = (),
        shape: re.Pattern[str] | None = None,
        null: bool = False,
        what: str = "",
    ) -> Any:
        """Text: one of `allowed`, or of the `shape` (`what` says it), or any non-empty text."""
        if value is None and null:
            return None
        if not isinstance(value, str):
            raise self.bad(column, f"holds {shown(value)}, not text")
        if allowed and value not in allowed:
            raise self.bad(column, f"holds {shown(value)}, not one of {', '.join(allowed)}")
        if shape is not None and not shape.fullmatch(value):
            raise self.bad(column, f"holds {shown(value)}, not {what}")
        if not allowed and shape is None and not value:
            raise self.bad(column, "is empty")
        return value

    def deal(self, column: str, value: Any, null: bool = False) -> Any:
        return self.text(column, value, shape=DEAL, null=null, what="a deal ('-J/Q-')")

    def key(self, column: str, value: Any) -> str:
        return self.text(column, value, shape=KEY, what="a cycle key ('0:-J/Q-')")

    def stamp(self, column: str, value: Any) -> str:
        """An ISO-8601 time stamp, as the store writes them."""
        self.text(column, value)
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise self.bad(column, f"holds {shown(value)}, not an ISO-8601 time") from None
        return value

    def flag(self, column: str, value: Any, null: bool = False) -> Any:
        """0 or 1 as a bool (None too, if `null`)."""
        if value is None and null:
            return None
        return bool(self.whole(column, value, 0, 1))

    def blob(self, column: str, value: Any, size: int | None = None) -> bytes:
        """A blob (of `size` bytes, if given)."""
        if not isinstance(value, bytes):
            raise self.bad(column, f"holds {shown(value)}, not a blob")
        if size is not None and len(value) != size:
            raise self.bad(column, f"holds {len(value):,} bytes where its row needs {size:,}")
        return value
