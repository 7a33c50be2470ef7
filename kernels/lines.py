"""Deal files scored batch by batch: the rows kernels/tables.py reads, scored by the compiled
kernels in batches of BATCH_LINES, and sooner when the input pauses: the reader puts
INPUT_PAUSED among the lines when no more input is ready, so a live stream (a FIFO, a pipe from
a slow program) gets its results as it goes, not 65,536 lines later. A bad line stops the
stream with its line number, after every good line before it has been scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from bmn.kernels.deal import DealError
from bmn.kernels.decks import unmeant_deck
from bmn.kernels.results import Scores
from bmn.kernels.rules.sets import RuleSet, rule_set
from bmn.kernels.score import score_values
from bmn.kernels.tables import INPUT_PAUSED, LineError, Stated, TableRow, read_table

__all__ = [
    "BATCH_LINES",
    "INPUT_PAUSED",
    "LineError",
    "ScoredBatch",
    "UnmeantDeckLine",
    "score_lines",
]

BATCH_LINES = 65_536


@dataclass
class ScoredBatch:
    """One batch of scored lines: canonical deals, their results, the input characters used,
    and what each line stated of its game (kernels/tables.py)."""

    deals: list[str]
    scores: Scores
    consumed: int
    stated: list[Stated] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)  # the rule set each deal was played under

    def rows(self) -> Iterator[tuple[str, dict]]:
        """(canonical deal, result dict) for each deal in input order."""
        for i, deal in enumerate(self.deals):
            yield deal, self.scores.as_dict(i)


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
    """Score a table of deals (kernels/tables.py reads it, in `notation`, one-run deals cut
    for `players`) batch by batch, on `device` (kernels/score.py's registry), under `rules`
    (a rule set's name or RuleSet; None: bmn's), or the rule set a row names (its 'rules'
    column: bmn's export of a store that plays several). An INPUT_PAUSED among the lines scores the
    lines read so far at once (a batch shorter than `batch`). Not `any_deck`, a deal of the
    standard deck's court cards with other than 36 numerals is a bad line (UnmeantDeckLine).

    On a bad line (one the reader cannot read, or a deal of a seat count the rule set does
    not play), the good lines before it are yielded as a last batch, then LineError is
    raised, so no result before the bad line is lost.
    """
    ruled = rule_set(rules)
    counted = _Counted(lines)
    rows: list[TableRow] = []
    used = 0

    def scored() -> ScoredBatch:
        nonlocal used
        played = [row.rules or ruled.name for row in rows]
        scores = _score_by_rules(rows, played, threads, device)
        done = ScoredBatch([r.deal for r in rows], scores, counted.chars - used)
        done.stated, done.rules = [r.stated for r in rows], played
        used = counted.chars
        return done

    try:
        for row in read_table(counted, notation, players):
            if row is INPUT_PAUSED:
                if rows:
                    yield scored()
                    rows = []
                continue
            _check_seats(row, rule_set(row.rules) if row.rules else ruled)
            if not any_deck:
                _check_deck(row)
            rows.append(row)
            if len(rows) >= batch:
                yield scored()
                rows = []
    except DealError:
        counted.chars -= counted.last  # the bad line is not scored
        if rows:
            yield scored()
        raise
    if rows or counted.chars > used:
        yield scored()


def _score_by_rules(
    rows: list[TableRow], played: list[str], threads: int | None, device: str
) -> Scores:
    """The rows scored, each under its rule set: one call of the kernels a rule set."""
    groups: dict[str, list[int]] = {}
    for i, name in enumerate(played):
        groups.setdefault(name, []).append(i)
    if len(groups) <= 1:
        name = next(iter(groups), None)
        return score_values(
            [r.values for r in rows], [r.sizes for r in rows], threads, device, name
        )
    out = Scores.empty(len(rows))
    for name, picked in groups.items():
        part = score_values(
            [rows[i].values for i in picked], [rows[i].sizes for i in picked], threads, device, name
        )
        for whole, piece in zip(out.arrays(), part.arrays(), strict=True):
            whole[picked] = piece
    return out


def _check_seats(row: TableRow, rules: RuleSet) -> None:
    seats = len(row.sizes)
    if rules.players is None or rules.plays(seats):
        return
    played = " or ".join(map(str, rules.players))
    raise LineError(
        row.line,
        f"a deal of {seats} hands; rule set {rules.name!r} plays {played} seats",
        row.where,
    )


class UnmeantDeckLine(LineError):
    """A row of the standard deck's court cards with other than 36 numerals, refused unless
    the caller says any deck is meant (decks.unmeant_deck)."""


def _check_deck(row: TableRow) -> None:
    if (problem := unmeant_deck(row.values)) is not None:
        raise UnmeantDeckLine(row.line, problem, row.where)


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
