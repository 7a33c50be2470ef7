"""Deal tables scored batch by batch: each row the reader (reader.py) reads becomes a claim
(`TableClaims`), played by the compiled kernels and judged by the one verifier
(kernels/claims.py), in batches of BATCH_LINES and sooner when the input pauses: the lines
carry INPUT_PAUSED when no more input is ready, so a live stream (a FIFO, a pipe from a slow
program) gets its results as it goes, not 65,536 lines later. A bad line stops the stream with
its line number, after every good line before it has been scored.

A deal is of the deck its row names (bmn's export, `deck_counts`), else of the table's deck:
the deck its first two deals share (a table whose first two deals differ holds several decks,
as exercism's cases do). A deal of another deck is a bad line (UnmeantDeckLine: a card dropped,
a digit cut off, a number read as cards), and so is any deal of the standard deck's court cards
with another number of numerals, unless the caller says several decks are meant (`any_deck`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bmn.kernels.claims import KERNEL, Claim, Stated, Verdict, refusal, verify
from bmn.kernels.deal import DealError
from bmn.kernels.decks import Counts, counts_of, unmeant_deck
from bmn.kernels.rules.sets import RuleSet, rule_set
from bmn.kernels.tables.lines import INPUT_PAUSED, LineError
from bmn.kernels.tables.reader import TableRow, read_table

__all__ = [
    "BATCH_LINES",
    "INPUT_PAUSED",
    "LineError",
    "ScoredBatch",
    "TableClaims",
    "UnmeantDeckLine",
    "score_lines",
]

BATCH_LINES = 65_536


@dataclass
class ScoredBatch:
    """One batch of scored lines: canonical deals, their verdicts (each line's result, held
    against what it stated), and the input characters used."""

    deals: list[str]
    verdicts: list[Verdict]
    consumed: int

    @property
    def stated(self) -> list[Stated]:
        return [verdict.claim.stated for verdict in self.verdicts]

    @property
    def rules(self) -> list[str]:
        """The rule set each deal was played under."""
        return [verdict.claim.rules for verdict in self.verdicts]

    def rows(self) -> Iterator[tuple[str, dict]]:
        """(canonical deal, result dict) for each deal in input order."""
        for deal, verdict in zip(self.deals, self.verdicts, strict=True):
            assert verdict.result is not None  # a refused claim is a bad line, never scored
            yield deal, verdict.result.as_dict()


class UnmeantDeckLine(LineError):
    """A row of another deck than the table's, or a first deal of the standard deck's court
    cards with other than 36 numerals, refused unless the caller says any deck is meant."""


class TableClaims:
    """A table's rows as claims: each under the rule set it names, else `rules`; of the deck
    it names, else the table's (the deck its first two deals share), unless `any_deck`. A row
    that cannot be a claim (a seat count its rule set does not play, another deck) raises its
    LineError."""

    def __init__(self, rules: RuleSet, any_deck: bool = False):
        self.rules = rules
        self.any_deck = any_deck
        self.seen = 0  # deals read without a deck of their own
        self.first: Counts | None = None
        self.deck: Counts | None = None  # the table's, once its first two deals share it

    def claim(self, row: TableRow) -> Claim:
        rules = rule_set(row.rules).name if row.rules else self.rules.name
        deck = row.deck
        if deck is None and not self.any_deck:
            counts = counts_of(row.values)
            if (problem := unmeant_deck(counts, counted=True)) is not None:
                raise UnmeantDeckLine(row.line, problem, row.where)
            deck = self._table_deck(counts)
        claim = Claim(row.values, row.sizes, row.stated, rules, deck)
        refused = refusal(claim)
        if refused is None:
            return claim
        error = UnmeantDeckLine if refused.figure == "deck" else LineError
        raise error(row.line, refused.words(), row.where)

    def _table_deck(self, counts: Counts) -> Counts | None:
        """The deck a row of `counts` must be of: the table's, once its first two deals share
        one."""
        self.seen += 1
        if self.seen == 1:
            self.first = counts
        elif self.seen == 2:
            self.deck = counts if counts == self.first else None
        return self.deck


def score_lines(
    lines: Iterable[str | None],
    threads: int | None = None,
    batch: int = BATCH_LINES,
    device: str = "cpu",
    rules: str | RuleSet | None = None,
    notation: str = "auto",
    players: int = 2,
    any_deck: bool = True,
) -> Iterator[ScoredBatch]:
    """Score a table of deals (reader.py reads it, in `notation`, one-run deals cut for
    `players`) batch by batch, on `device` (kernels/score.py's registry), under `rules` (a rule
    set's name or RuleSet; None: bmn's), or the rule set a row names (its 'rules' column: bmn's
    export of a store that plays several). An INPUT_PAUSED among the lines scores the lines
    read so far at once (a batch shorter than `batch`). Not `any_deck`, a deal of another deck
    than the table's is a bad line (UnmeantDeckLine; TableClaims says which deck).

    On a bad line (one the reader cannot read, a deal of a seat count the rule set does not
    play, another deck), the good lines before it are yielded as a last batch, then LineError
    is raised, so no result before the bad line is lost.
    """
    claims = TableClaims(rule_set(rules), any_deck)
    counted = _Counted(lines)
    rows: list[TableRow] = []
    made: list[Claim] = []
    used = 0

    def scored() -> ScoredBatch:
        nonlocal used
        verdicts = verify(made, KERNEL, threads, device, refused_none=True)  # TableClaims asked
        done = ScoredBatch([r.deal for r in rows], verdicts, counted.chars - used)
        used = counted.chars
        return done

    try:
        for row in read_table(counted, notation, players):
            if row is INPUT_PAUSED:
                if rows:
                    yield scored()
                    rows, made = [], []
                continue
            made.append(claims.claim(row))
            rows.append(row)
            if len(rows) >= batch:
                yield scored()
                rows, made = [], []
    except DealError:
        counted.chars -= counted.last  # the bad line is not scored
        if rows:
            yield scored()
        raise
    if rows or counted.chars > used:
        yield scored()


class _Counted:
    """Lines, counting the characters handed on (a batch's share of the input, for progress)."""

    def __init__(self, lines: Iterable[str | None]):
        self.lines = lines
        self.chars = 0
        self.last = 0

    def __iter__(self) -> Iterator[str | None]:
        for line in self.lines:
            self.last = len(line) if line is not None else 0
            self.chars += self.last
            yield line
