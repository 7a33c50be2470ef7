"""A table's bytes as lines of text: the one way `bmn score`, `bmn records import` and the
library's `read_table` cut a table into lines and number them, in bounded memory.

A line ends at a line feed, and only there (a carriage return before it is dropped with the
rest of the line's blank ends); a form feed, a NEL or a U+2028 inside a line is a character of
that line, which the reader then refuses as it refuses any character that is not a card. A
line is at most LONGEST bytes, so a file that never ends a line (/dev/zero) costs one buffer,
not memory without bound; a carriage return inside a line (the line ends of old Macs) is
refused, not read as one long line. Each of these, and bytes that are not UTF-8, stops the
reading with a LineError naming the line, after every line before it.
"""

from __future__ import annotations

import hashlib
import select
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from bmn.kernels.config import MAX_DEAL_CARDS
from bmn.kernels.deal import DealError

INPUT_PAUSED = None  # among the lines: no more input is ready yet (a live stream paused)
LONGEST = 1 << 20  # bytes in a line: a deal of MAX_DEAL_CARDS cards needs far fewer
CHUNK = 1 << 16  # bytes read at once: at least the reader's buffer, so each read empties it
SQLITE_MAGIC = b"SQLite format 3\x00"


class LineError(DealError):
    """A line of a table that bmn cannot read; `line` is its 1-based number (0: the table as a
    whole), `where` how the message names it ('line 7', 'item 3')."""

    def __init__(self, line: int, message: str, where: str | None = None):
        super().__init__(f"{where or f'line {line}'}: {message}")
        self.line = line


def checked(number: int, line: str) -> str:
    """Line `number` as the reader takes it: LineError for a carriage return inside it (bare
    CR line ends: every line of the file run together as one)."""
    if "\r" in line.rstrip("\r\n"):
        raise LineError(
            number,
            "a carriage return inside the line: lines end with a line feed (a file with old"
            " Mac line ends reads as one line; convert it with: tr '\\r' '\\n')",
        )
    return line


def text_lines(text: str) -> Iterator[str]:
    """The lines of a table given as text, cut and checked as a file's are."""
    start, number = 0, 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end + 1
        number += 1
        if end - start > LONGEST:
            raise too_long(number)
        yield checked(number, text[start:end])
        start = end


def given_lines(lines: Iterable[object]) -> Iterator[str]:
    """A table given as its lines (the library's read_table): each item one line of text."""
    for number, line in enumerate(lines, start=1):
        if not isinstance(line, str):
            raise DealError(f"line {number} of the table is not text: {type(line).__name__}")
        if len(line) > LONGEST:
            raise too_long(number)
        yield checked(number, line)


def too_long(number: int) -> LineError:
    return LineError(
        number,
        f"longer than {LONGEST:,} bytes; a deal holds at most {MAX_DEAL_CARDS:,} cards: is"
        " this a file of deals?",
    )


class TableLines:
    """The lines of a binary stream as text; with `pauses`, INPUT_PAUSED between them
    whenever no more input is ready (a live stream's results are printed as it pauses).

    `read` counts the bytes handed on as lines (progress), `digest` hashes every byte read
    (what a table is, whatever its file is called)."""

    def __init__(self, source: BinaryIO, pauses: bool = False):
        self.source = source
        self.pauses = pauses
        self.number = 0
        self.read = 0
        self.digest = hashlib.sha256()

    def __iter__(self) -> Iterator[str | None]:
        """Each line as text: read1 returns what has come (waiting only while nothing has),
        then select says whether more is ready."""
        read = getattr(self.source, "read1", self.source.read)
        rest = b""  # the start of a line that has not ended yet (at most LONGEST bytes)
        first = True
        while chunk := read(CHUNK):
            if first and chunk.startswith(SQLITE_MAGIC):
                raise LineError(0, _SQLITE, "the file")
            first = False
            self.digest.update(chunk)
            *ended, rest = (rest + chunk).split(b"\n")
            for raw in ended:
                yield self._line(raw + b"\n")
            if len(rest) > LONGEST:
                raise too_long(self.number + 1)
            if self.pauses and not input_ready(self.source):
                yield INPUT_PAUSED
        if rest:
            yield self._line(rest)

    def _line(self, raw: bytes) -> str:
        """The next line as text, checked."""
        self.number += 1
        self.read += len(raw)
        try:  # a byte-order mark is not part of the first deal
            line = raw.decode("utf-8-sig" if self.number == 1 else "utf-8")
        except UnicodeDecodeError as err:
            raise LineError(
                self.number,
                f"not UTF-8 text (byte {raw[err.start]:#04x} at position {err.start + 1});"
                " is this a file of deals?",
            ) from None
        return checked(self.number, line)


_SQLITE = "a SQLite file, not a table of deals; a bmn store goes in by `bmn records merge`"


def input_ready(source: object) -> bool:
    """Whether more of `source` can be read at once; a stream without a descriptor (a test's
    bytes) is always ready, and so is a regular file."""
    try:
        fd = source.fileno()  # type: ignore[attr-defined]
    except (OSError, ValueError, AttributeError):
        return True
    return bool(select.select([fd], [], [], 0)[0])
