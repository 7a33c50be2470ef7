"""Deals another program found, brought into a store (`bmn records import`): the table is read
as `bmn score` reads it (kernels/tables/: the one line reader, the one reader of rows, each row
a claim), every deal judged by the one verifier (kernels/claims.py) with both engines, the
compiled kernel and the reference engine, under the named rule set, and stored as the finds of
finished runs of kind 'import' that name the file: one run per seat count, rule set and deck
(with its hand sizes), so that each run knows what it holds, as a search's run does.

Nothing is taken on trust: a row that is not a deal, deals a seat count the rule set does not
play, is of another deck than the table's (unless `any_deck`), states a length its game does
not have, or ends at the rule set's card limit is named with its line, and nothing is stored
unless every row reads (or `skip_bad` stores the rest). The figures stored are the replayed
ones. The table streams: its lines are read a chunk at a time, in bounded memory, and a file
that never ends a line is refused at the reader's limit. A table is known by its content (its
bytes' digest, how it was read and the rule set): the same table imported again, under any
file name, adds nothing, and a regular file imported before is said so before it is replayed.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bmn.kernels.claims import BOTH, KERNEL, Claim, Verdict, verify
from bmn.kernels.deal import shorten
from bmn.kernels.decks import counts_of, counts_text
from bmn.kernels.rules.sets import RULE_SETS, RuleSet, rule_set
from bmn.kernels.tables.lines import LineError, TableLines
from bmn.kernels.tables.reader import TableRow, read_table
from bmn.kernels.tables.scored import TableClaims, UnmeantDeckLine
from bmn.records.store import Find, Store
from bmn.records.store.imported import ImportKey, params_of

MOST_NAMED = 5  # bad rows named in the message; `problems` holds them all
REPLAY_CHUNK = 4096  # deals replayed at once (the reference engine plays each: a few seconds)
TRIED = 20  # stated figures that differ, replayed under every rule set for a hint


class ImportRefused(ValueError):
    """A table with rows that do not read or do not replay: nothing of it was stored.
    `problems` holds one line for each; the message names the first five, and `hint` may say
    the rule set whose figures the table's are; `decks`, whether a deal was refused for its
    deck (any_deck takes several decks)."""

    def __init__(self, path: str, problems: list[str], hint: str = "", decks: bool = False):
        self.path, self.problems, self.hint, self.decks = path, list(problems), hint, decks
        more = len(problems) - MOST_NAMED
        named = "; ".join(problems[:MOST_NAMED]) + (f"; and {more} more" if more > 0 else "")
        super().__init__(f"{path}: not imported, nothing stored: {named}{hint}")


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


# The finds of one import run: its seat count, rule set, deck counts and hand sizes.
Group = tuple[int, str, tuple[int, ...], tuple[int, ...]]


def import_table(
    path: str | os.PathLike[str],
    target: str | os.PathLike[str],
    rules: str | RuleSet = "bmn",
    notation: str = "auto",
    players: int = 2,
    skip_bad: bool = False,
    any_deck: bool = False,
    say: Callable[[str], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Imported:
    """Read the table of deals at `path`, replay every deal under `rules`, and store them in
    `target` (made if missing) as import runs. ImportRefused for a table with bad rows (unless
    `skip_bad`: then they are skipped, and listed in the result) or no deals; OSError for a
    file that cannot be read. `say` hears a line before the replay, `progress` the bytes read
    so far as it goes."""
    ruled = rule_set(rules)
    name = Path(path).name
    key = ImportKey("", notation, players, ruled.name)
    if (digest := _digest_first(path)) is not None:
        known = _known(target, key._replace(sha256=digest))
        if known:
            if say is not None:
                say(f"{name}: imported before as run {', '.join(map(str, known))}; not replayed")
            return Imported(str(path), runs=known, again=True)
    start = time.perf_counter()
    with open(path, "rb") as source:
        lines = TableLines(source)
        reading = _Reading(ruled, any_deck, say, name)
        try:
            for row in read_table(lines, notation, players, keep_going=True):
                reading.take(row)
                if progress is not None:
                    progress(lines.read)
        except LineError as err:  # the file as a whole: not UTF-8, a line past the limit
            raise ImportRefused(name, [str(err)]) from None
        reading.replay()
    problems = reading.problems
    if problems and not skip_bad:
        raise ImportRefused(name, problems, _hint(reading.differing, ruled), reading.decks)
    if not reading.finds:
        raise ImportRefused(name, problems or ["no deals in it"])
    key = key._replace(sha256=lines.digest.hexdigest())
    return _store(target, name, key, reading, time.perf_counter() - start, str(path))


class _Reading:
    """A table's rows as they come: claims replayed a chunk at a time, their finds by group,
    and one line for each row that is not stored."""

    def __init__(self, rules: RuleSet, any_deck: bool, say: Callable | None, name: str):
        self.claims = TableClaims(rules, any_deck)
        self.say, self.name = say, name
        self.rows = 0
        self.pending: list[tuple[TableRow, Claim]] = []
        self.finds: dict[Group, list[Find]] = {}
        self.problems: list[str] = []
        self.differing: list[Claim] = []  # claims whose stated figures do not replay
        self.decks = False  # a deal refused for its deck

    def take(self, row: TableRow | LineError | None) -> None:
        if row is None:  # the input paused: a file never does
            return
        if isinstance(row, LineError):
            self.problems.append(str(row))
            return
        self.rows += 1
        try:
            self.pending.append((row, self.claims.claim(row)))
        except LineError as err:
            self.problems.append(str(err))
            self.decks = self.decks or isinstance(err, UnmeantDeckLine)
        if len(self.pending) >= REPLAY_CHUNK:
            self.replay()

    def replay(self) -> None:
        """Play the pending claims with both engines; each stored as a find or named."""
        if not self.pending:
            return
        if self.say is not None and not self.finds and not self.problems:
            self.say(f"{self.name}: replaying its deals under rules {self.claims.rules.name}")
        claims = [claim for _, claim in self.pending]
        verdicts = verify(claims, BOTH, refused_none=True)  # TableClaims asked refusal
        for (row, _), verdict in zip(self.pending, verdicts, strict=True):
            self._judged(row, verdict)
        self.pending = []

    def _judged(self, row: TableRow, verdict: Verdict) -> None:
        where = f"{row.where or f'line {row.line}'}: {shorten(row.deal)}"
        result, claim = verdict.result, verdict.claim
        if not verdict.agrees:
            self.problems.append(f"{where}: {verdict.words()}")
            if verdict.engines is None and verdict.played:
                self.differing.append(claim)
        elif result is not None and result.status == "limit":
            self.problems.append(
                f"{where} stops at rule set {claim.rules!r}'s card limit; only finished and"
                " endless games are stored"
            )
        elif result is not None:
            group = (len(claim.sizes), claim.rules, counts_of(claim.values), claim.sizes)
            find = Find(row.deal, result.cards, result.tricks, result.status)
            self.finds.setdefault(group, []).append(find)


def _hint(differing: Sequence[Claim], rules: RuleSet) -> str:
    """Where stated figures differ: the rule sets under which the first of them all agree
    (peers count otherwise: docs/rules.md), as the --rules to give; else a plain hint."""
    if not differing:
        return ""
    tried = differing[:TRIED]
    fits = []
    for name, other in RULE_SETS.items():
        if other == rules or not all(other.plays(len(c.sizes)) for c in tried):
            continue
        again = [Claim(c.values, c.sizes, c.stated, name, c.deck) for c in tried]
        if all(verdict.agrees for verdict in verify(again, KERNEL)):
            fits.append(name)
    if fits:
        given = " or ".join(f"--rules {name}" for name in fits)
        return f" (the figures are those of another rule set: give {given})"
    return f" (figures of another rule set than {rules.name}? give --rules: docs/rules.md)"


def _digest_first(path: str | os.PathLike[str]) -> str | None:
    """A regular file's content digest, read once before the replay (cheap), so that a table
    imported before is known at once; None for anything else (a pipe is read only once)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        digest = hashlib.sha256()
        with open(path, "rb") as source:
            while chunk := source.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None  # the import's own open says what is wrong
    return digest.hexdigest()


def _known(target: str | os.PathLike[str], key: ImportKey) -> list[int]:
    """The import runs of `target` that hold this table already (none without a store)."""
    if not Path(target).is_file():
        return []
    with Store(target, create=False, read_only=True) as db:
        return db.imports_of(key)


def _store(
    target: str | os.PathLike[str],
    name: str,
    key: ImportKey,
    reading: _Reading,
    seconds: float,
    path: str,
) -> Imported:
    """The finds of each group stored as its run (a table stored before: nothing)."""
    done = Imported(path, rows=reading.rows, skipped=reading.problems)
    with Store(target) as db:
        for group in sorted(reading.finds):
            seats, rules, counts, sizes = group
            params = params_of(name, key, reading.rows, counts_text(counts), sizes)
            stored = db.add_import(params, seats, rules, reading.finds[group], seconds)
            done.runs.append(stored.run)
            done.new += stored.new
            done.known += stored.known
            done.again = stored.again
    return done
