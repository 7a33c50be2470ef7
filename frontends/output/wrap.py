"""Free text fitted to a terminal: warnings, errors, hints and the odds line broken between
words, never inside a deal, a number, a path or a command.

A word is what lies between spaces, so a deal ('-J/Q-') or a figure ('8,344') is never split;
a span in backticks and a command written out (from 'bmn' to the next ';' or the end) are kept
whole too, so what a user is asked to copy stays on one line. A unit longer than the line gets
a line of its own, whole. Off a terminal (a pipe, a file, a test's runner) text is left as it
is: one line per message, for scripts.
"""

from __future__ import annotations

import shutil
import sys
from typing import IO

INDENT = "  "  # before each continued line: it reads as the same message


def fit(text: str, width: int | None) -> str:
    """`text` broken between its units into lines of at most `width` columns (None: as it
    is); continued lines are indented."""
    if width is None or len(text) <= width:
        return text
    lines: list[str] = []
    line = ""
    for unit in units(text):
        if not line:
            line = unit
        elif len(line) + 1 + len(unit) <= width:
            line += " " + unit
        else:
            lines.append(line)
            line = INDENT + unit
    lines.append(line)
    return "\n".join(lines)


def units(text: str) -> list[str]:
    """The pieces `fit` never breaks: words, backtick spans and written-out commands."""
    words = text.split(" ")
    out: list[str] = []
    i = 0
    while i < len(words):
        j = _unit_end(words, i)
        out.append(" ".join(words[i : j + 1]))
        i = j + 1
    return [unit for unit in out if unit]


def _unit_end(words: list[str], i: int) -> int:
    """The index of the last word of the unit that starts at words[i]."""
    word = words[i]
    if word.startswith("`") and not (len(word) > 1 and word.rstrip(".,;:)").endswith("`")):
        return next((j for j in range(i + 1, len(words)) if "`" in words[j]), len(words) - 1)
    if word.lstrip("'\"(") == "bmn" and i + 1 < len(words):
        return next(
            (j for j in range(i, len(words)) if words[j].endswith((";", ","))), len(words) - 1
        )
    return i


def width_of(stream: IO[str]) -> int | None:
    """The columns of the terminal `stream` writes to; None when it is not a terminal."""
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError, OSError):
        return None
    return shutil.get_terminal_size().columns


def stderr_width() -> int | None:
    """The width free text on stderr is fitted to (tests patch this)."""
    return width_of(getattr(sys.stderr, "stream", sys.stderr))


def stdout_width() -> int | None:
    """The width free text on stdout is fitted to (tests patch this)."""
    return width_of(getattr(sys.stdout, "stream", sys.stdout))
