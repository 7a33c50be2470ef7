"""Deals another program found, brought into a store (`bmn records import`): the table is read
by kernels/tables.py, every deal replayed under the named rule set by the compiled kernel and
by the reference engine, and stored as the finds of one finished run of kind 'import' that
names the file (one run per seat count and rule set: a row may name its own, as bmn's export
does).

Nothing is taken on trust: a row that is not a deal, deals a seat count the rule set does not
play, states a length its game does not have, or ends at the rule set's card limit is named
with its line, and nothing is stored unless every row reads (or `skip_bad` stores the rest).
The figures stored are the replayed ones. The same table imported again adds nothing: its run
is known by the file's content, the rule set and how the table was read.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bmn.kernels import reference
from bmn.kernels.config import STATUS_NAMES
from bmn.kernels.deal import decode, shorten
from bmn.kernels.rules.sets import RuleSet, rule_set
from bmn.kernels.tables import LineError, TableRow, read_table
from bmn.records.store import Find, Store
from bmn.records.store.imported import params_of

MOST_NAMED = 5  # bad rows named in the message; `problems` holds them all
REPLAY_CHUNK = 65_536  # deals the kernel scores at once


class ImportRefused(ValueError):
    """A table with rows that do not read or do not replay: nothing of it was stored.
    `problems` holds one line for each; the message names the first five."""

    def __init__(self, path: str, problems: list[str]):
        self.path, self.problems = path, list(problems)
        more = len(problems) - MOST_NAMED
        named = "; ".join(problems[:MOST_NAMED]) + (f"; and {more} more" if more > 0 else "")
        super().__init__(f"{path}: not imported, nothing stored: {named}")


@dataclass
class Imported:
    """What an import did: the runs it stored (or found stored before), the rows read, finds
    new and not stored again, and the rows skipped (with skip_bad), one line each."""

    path: str
    runs: list[int] = field(default_factory=list)
    rows: int = 0
    new: int = 0
    known: int = 0
    again: bool = False
    skipped: list[str] = field(default_factory=list)


def import_table(
    path: str | os.PathLike[str],
    target: str | os.PathLike[str],
    rules: str | RuleSet = "bmn",
    notation: str = "auto",
    players: int = 2,
    skip_bad: bool = False,
    say: Callable[[str], None] | None = None,
) -> Imported:
    """Read the table of deals at `path`, replay every deal under `rules`, and store them in
    `target` (made if missing) as one import run per seat count. ImportRefused for a table
    with bad rows (unless `skip_bad`: then they are skipped, and listed in the result) or no
    deals; OSError for a file that cannot be read."""
    ruled = rule_set(rules)
    data = Path(path).read_bytes()
    name = Path(path).name
    if data.startswith(b"SQLite format 3\0"):
        why = "a SQLite file, not a table of deals; a bmn store goes in by `bmn records merge`"
        raise ImportRefused(name, [why])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        why = f"not UTF-8 text (byte {err.start + 1}): is it a table of deals?"
        raise ImportRefused(name, [why]) from None
    rows, problems = _read(text, notation, players, ruled)
    if say is not None:
        say(f"{name}: {len(rows):,} deal(s), replaying them under rules {ruled.name}")
    start = time.perf_counter()
    finds, bad = _replayed(rows, ruled)
    problems += bad
    if problems and not skip_bad:
        raise ImportRefused(name, problems)
    if not finds:
        raise ImportRefused(name, problems or ["no deals in it"])
    seconds = time.perf_counter() - start
    done = Imported(str(path), rows=len(rows), skipped=problems)
    digest = hashlib.sha256(data).hexdigest()
    params = params_of(name, digest, notation, len(rows))
    with Store(target) as db:
        for seats, rules_name in sorted(finds):
            found = finds[seats, rules_name]
            stored = db.add_import(params, seats, rules_name, found, seconds)
            done.runs.append(stored.run)
            done.new += stored.new
            done.known += stored.known
            done.again = stored.again
    return done


def _read(
    text: str, notation: str, players: int, rules: RuleSet
) -> tuple[list[TableRow], list[str]]:
    """The table's rows, and one line for each row that is not a deal the rule set plays."""
    rows, problems = [], []
    for row in read_table(text.splitlines(keepends=True), notation, players, keep_going=True):
        if isinstance(row, LineError):
            problems.append(str(row))
        elif row is not None and not (ruled := _rules_of(row, rules)).plays(len(row.sizes)):
            played = " or ".join(map(str, ruled.players or ()))
            problems.append(
                f"{_where(row)}: a deal of {len(row.sizes)} hands; rule set"
                f" {ruled.name!r} plays {played} seats"
            )
        elif row is not None:
            rows.append(row)
    return rows, problems


def _rules_of(row: TableRow, rules: RuleSet) -> RuleSet:
    """The rule set a row is played under: the one it names (an export's 'rules'), else
    `rules`."""
    return rule_set(row.rules) if row.rules else rules


def _replayed(
    rows: list[TableRow], default: RuleSet
) -> tuple[dict[tuple[int, str], list[Find]], list[str]]:
    """Each row's game by the kernel and the reference engine, under its rule set: its find
    (by seat count and rule set), or a line saying why it is not stored."""
    finds: dict[tuple[int, str], list[Find]] = {}
    problems: list[str] = []
    by_rules: dict[str, list[TableRow]] = {}
    for row in rows:
        by_rules.setdefault(_rules_of(row, default).name, []).append(row)
    for name, played in by_rules.items():
        problems += _replay_under(played, rule_set(name), finds)
    return finds, problems


def _replay_under(
    rows: list[TableRow], rules: RuleSet, finds: dict[tuple[int, str], list[Find]]
) -> list[str]:
    from bmn.kernels.score import score_values  # compiles the kernels: on first use

    problems = []
    for at in range(0, len(rows), REPLAY_CHUNK):
        chunk = rows[at : at + REPLAY_CHUNK]
        scores = score_values([r.values for r in chunk], [r.sizes for r in chunk], rules=rules)
        for i, row in enumerate(chunk):
            fast = (int(scores.cards[i]), int(scores.tricks[i]), STATUS_NAMES[scores.status[i]])
            deal = decode(np.frombuffer(row.values, dtype=np.uint8), row.sizes)
            slow = reference.play(deal, rules=rules)
            if fast != (slow.cards, slow.tricks, slow.status):
                problems.append(
                    f"{_where(row)}: {shorten(row.deal)}: the kernel plays {fast}, the"
                    f" reference engine {(slow.cards, slow.tricks, slow.status)}"
                )
            elif differs := row.stated.differences(*fast):
                problems.append(f"{_where(row)}: {shorten(row.deal)}: {'; '.join(differs)}")
            elif fast[2] == "limit":
                problems.append(
                    f"{_where(row)}: {shorten(row.deal)} stops at rule set {rules.name!r}'s"
                    " card limit; only finished and endless games are stored"
                )
            else:
                find = Find(row.deal, fast[0], fast[1], fast[2])
                finds.setdefault((len(row.sizes), rules.name), []).append(find)
    return problems


def _where(row: TableRow) -> str:
    return row.where or f"line {row.line}"
