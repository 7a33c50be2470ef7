"""Deal files: read one deal per line in any notation, score them batch by batch.

Lines in record notation ('-' and J Q K A, hands joined by '/') are read without the general
parser, since files of millions of deals are mostly in that form; anything else goes through
kernels/deal.py. A bad line stops the stream with its line number, after every good line
before it has been scored. Lines are deals a person or a program wrote: an empty hand must be
written '.' (kernels/deal.py), and a deal holds at most MAX_DEAL_CARDS cards.

Lines are scored in batches of BATCH_LINES, and sooner when the input pauses: the reader puts
INPUT_PAUSED among the lines when no more input is ready, so a live stream (a FIFO, a pipe from
a slow program) gets its results as it goes, not 65,536 lines later.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from bmn.kernels.config import MAX_DEAL_CARDS
from bmn.kernels.deal import DealError, format_deal, parse_deal, too_many_cards
from bmn.kernels.results import Scores
from bmn.kernels.rules.sets import RuleSet
from bmn.kernels.score import score_values

BATCH_LINES = 65_536
INPUT_PAUSED = None  # among the lines: no more input is ready yet; score what has come

_RECORD_LINE = re.compile(r"[-JQKAjqka]+(?:/[-JQKAjqka]+){1,3}")
_RECORD_VALUE = str.maketrans("-JQKAjqka", "\x00\x01\x02\x03\x04\x01\x02\x03\x04")


def read_line(line: str) -> tuple[str, bytes, tuple[int, ...]]:
    """One deal in any notation bmn parses (hands joined by '/').

    Returns its canonical notation, its penalty values (hands concatenated) and hand sizes.
    """
    text = line.strip()
    if _RECORD_LINE.fullmatch(text):
        if len(text) - text.count("/") > MAX_DEAL_CARDS:
            raise too_many_cards(len(text) - text.count("/"))
        canonical = text.upper()
        values = canonical.replace("/", "").translate(_RECORD_VALUE).encode("ascii")
        return canonical, values, tuple(len(hand) for hand in canonical.split("/"))
    deal = parse_deal(text, typed=True)
    values = bytes(v for hand in deal for v in hand)
    return format_deal(deal), values, tuple(len(hand) for hand in deal)


class LineError(DealError):
    """A line of a deal file that bmn cannot read; `line` is its 1-based number."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass
class ScoredBatch:
    """One batch of scored lines: canonical deals, their results, the input characters used."""

    deals: list[str]
    scores: Scores
    consumed: int

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
) -> Iterator[ScoredBatch]:
    """Score a stream of deal lines batch by batch (on `device`: kernels/score.py's
    registry) under `rules` (a rule set's name or RuleSet; None: bmn's); blank and '#' lines
    are skipped. An INPUT_PAUSED among the lines scores the
    lines read so far at once (a batch shorter than `batch`).

    On a bad line, the good lines before it are yielded as a last batch, then LineError is
    raised, so no result before the bad line is lost.
    """
    texts: list[str] = []
    values: list[bytes] = []
    sizes: list[tuple[int, ...]] = []
    consumed = 0

    def scored(used: int) -> ScoredBatch:
        scores = score_values(values, sizes, threads, device, rules)
        return ScoredBatch(list(texts), scores, used)

    number = 0
    for line in lines:
        if line is INPUT_PAUSED:
            if texts:
                yield scored(consumed)
                texts, values, sizes, consumed = [], [], [], 0
            continue
        number += 1
        consumed += len(line)
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            canonical, row, hands = read_line(text)
        except DealError as err:
            if texts:
                yield scored(consumed - len(line))
            raise LineError(number, str(err)) from None
        texts.append(canonical)
        values.append(row)
        sizes.append(hands)
        if len(texts) >= batch:
            yield scored(consumed)
            texts, values, sizes, consumed = [], [], [], 0
    if texts or consumed:
        yield scored(consumed)
