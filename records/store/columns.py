"""Values as the store keeps them in its columns: time stamps, deals in record notation, plain
numbers sqlite3 can bind, and text checked against the values a column allows."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any, TypeVar

INT64_MAX = 2**63 - 1
# A time stamp: ISO-8601 UTC text as the store keeps it (and the command line shows it), or the
# datetime the library reads it as (records/api.py): Run[datetime], Run[str].
Stamp = TypeVar("Stamp", str, datetime)
_CANONICAL = re.compile(r"[-JQKA]*(/[-JQKA]*){1,3}")


def now() -> str:
    """The current time as ISO-8601 UTC text, to the millisecond."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def canonical_deal(text: str) -> str:
    """A deal in record notation with hands joined by '/', whatever notation it came in."""
    if _CANONICAL.fullmatch(text) and text.strip(
        "/"
    ):  # the usual case, from the search: skip the parser
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
