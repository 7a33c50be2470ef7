"""Score batches of deals: the compiled two-player kernel in parallel, the reference for the rest.

`score` takes deals as rows of penalty values (hands concatenated, zero padded) with their hand
sizes. Two-seat deals of at most 64 cards run through kernels/two.py over all threads: a card
cap keeps the fast path cheap and the rare deals past it are replayed exactly. Any other deal
(3 or 4 seats, bigger decks) goes through the reference engine: slower, never refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numba
import numpy as np
from numba import prange

from bmn.kernels import reference
from bmn.kernels.config import FINISHED, LIMIT, LOOP, PARALLEL_JIT, STATUS_NAMES
from bmn.kernels.deal import Deal, DealError, format_deal, parse_deal
from bmn.kernels.two import MAX_CARDS, play_exact_at, play_fast_at

# Random deals average about 255 cards and the longest known finishing game has 8,344: past
# this many cards a game is replayed with exact loop detection.
FAST_CAP = 20_000
BATCH_LINES = 65_536

_STATUS_CODE = {"finished": FINISHED, "loop": LOOP, "limit": LIMIT}


@dataclass
class Scores:
    """Per-deal results as numpy arrays; loop fields are -1 unless the status is loop."""

    cards: np.ndarray
    tricks: np.ndarray
    status: np.ndarray
    winner: np.ndarray
    loop_start_cards: np.ndarray
    loop_start_tricks: np.ndarray
    period_cards: np.ndarray
    period_tricks: np.ndarray

    @classmethod
    def empty(cls, n: int) -> Scores:
        longs = [np.full(n, -1, dtype=np.int64) for _ in range(6)]
        status = np.zeros(n, dtype=np.uint8)
        winner = np.full(n, -1, dtype=np.int8)
        cards, tricks, *loops = longs
        return cls(cards, tricks, status, winner, *loops)

    def __len__(self) -> int:
        return len(self.cards)

    def result(self, i: int) -> reference.Result:
        """Deal i's result in the reference engine's own form."""
        status = STATUS_NAMES[int(self.status[i])]
        loop = [int(a[i]) for a in self.loop_arrays()] if status == "loop" else [None] * 4
        winner = int(self.winner[i])
        return reference.Result(
            status, int(self.cards[i]), int(self.tricks[i]), None if winner < 0 else winner, *loop
        )

    def as_dict(self, i: int) -> dict:
        """Deal i's result, exactly as `reference.play(deal).as_dict()` gives it."""
        return self.result(i).as_dict()

    def loop_arrays(self) -> tuple[np.ndarray, ...]:
        return self.loop_start_cards, self.loop_start_tricks, self.period_cards, self.period_tricks

    def set_from(self, i: int, result: reference.Result) -> None:
        """Store a reference engine result as deal i."""
        self.status[i] = _STATUS_CODE[result.status]
        self.cards[i] = result.cards
        self.tricks[i] = result.tricks
        self.winner[i] = -1 if result.winner is None else result.winner
        if result.status == "loop":
            self.loop_start_cards[i] = result.loop_start_cards
            self.loop_start_tricks[i] = result.loop_start_tricks
            self.period_cards[i] = result.period_cards
            self.period_tricks[i] = result.period_tricks


@numba.njit(**PARALLEL_JIT)
def _score_two(flat, width, n0, n1, rows, cap, cards, tricks, status, winner, loops):
    """Score deals `rows` (two seats, <= 64 cards) of a flat batch of rows `width` long.

    Runs in parallel; each deal writes only its own slots.
    """
    for r in prange(rows.shape[0]):
        i = rows[r]
        at = i * width
        c, t, code = play_fast_at(flat, at, n0[i], n1[i], cap)
        if code < 2:
            cards[i], tricks[i], status[i], winner[i] = c, t, FINISHED, code
            continue
        st, c, t, w, start_c, start_t, period_c, period_t = play_exact_at(flat, at, n0[i], n1[i])
        cards[i], tricks[i], status[i], winner[i] = c, t, st, w
        if st == LOOP:
            loops[0, i], loops[1, i] = start_c, start_t
            loops[2, i], loops[3, i] = period_c, period_t


@numba.njit(**PARALLEL_JIT)
def _total_cards(flat, width, n, n0, n1, cap):
    """The bench kernel: n two-seat deals of a flat batch; cards and tricks summed."""
    cards = np.zeros(n, dtype=np.int64)
    tricks = np.zeros(n, dtype=np.int64)
    for i in prange(n):
        c, t, code = play_fast_at(flat, i * width, n0, n1, cap)
        if code == 2:
            _, c, t, _, _, _, _, _ = play_exact_at(flat, i * width, n0, n1)
        cards[i] = c
        tricks[i] = t
    return cards.sum(), tricks.sum()


def total_cards(deals: np.ndarray, n0: int, n1: int, cap: int = FAST_CAP) -> tuple[int, int]:
    """Total cards and tricks over deals (N, W), every one with hands of n0 and n1 cards."""
    deals = np.ascontiguousarray(deals, dtype=np.uint8)
    return _total_cards(deals.reshape(-1), deals.shape[1], len(deals), n0, n1, cap)


def _check(deals: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    deals = np.ascontiguousarray(deals, dtype=np.uint8)
    if not deals.flags.writeable:  # one array type for the compiled kernel, compiled once
        deals = deals.copy()
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    if deals.ndim != 2 or sizes.ndim != 2 or len(deals) != len(sizes):
        raise DealError(
            f"deals must be (N, W) and sizes (N, S) with the same N; got {deals.shape} and"
            f" {sizes.shape}"
        )
    if sizes.size and (sizes.min() < 0 or sizes.sum(axis=1).max() > deals.shape[1]):
        raise DealError("hand sizes must be >= 0 and add up to at most the row width")
    if deals.size and deals.max() > 4:
        raise DealError("card values must be penalty values 0-4 (numeral, J, Q, K, A)")
    return deals, sizes


def score(deals: np.ndarray, sizes: np.ndarray, threads: int | None = None) -> Scores:
    """Score N deals: rows of penalty values (hands concatenated, zero padded), (N, S) sizes."""
    deals, sizes = _check(deals, sizes)
    out = Scores.empty(len(deals))
    if sizes.shape[1] == 2:
        fast = sizes.sum(axis=1) <= MAX_CARDS
        rows = np.flatnonzero(fast).astype(np.int64)
        loops = np.full((4, len(deals)), -1, dtype=np.int64)
        with _threads(threads):
            _score_two(
                deals.reshape(-1),
                deals.shape[1],
                sizes[:, 0].copy(),
                sizes[:, 1].copy(),
                rows,
                FAST_CAP,
                out.cards,
                out.tricks,
                out.status,
                out.winner,
                loops,
            )
        out.loop_start_cards, out.loop_start_tricks, out.period_cards, out.period_tricks = loops
    else:
        fast = np.zeros(len(deals), dtype=bool)
    for i in np.flatnonzero(~fast):
        ends = np.cumsum(sizes[i])
        row = deals[i]
        deal = tuple(
            tuple(int(v) for v in row[e - s : e]) for s, e in zip(sizes[i], ends, strict=True)
        )
        out.set_from(int(i), reference.play(deal))
    return out


def score_deals(deals: Sequence[Deal], threads: int | None = None) -> Scores:
    """Score parsed deals (tuples of hands); deals with different seat counts may be mixed."""
    values = [bytes(v for hand in deal for v in hand) for deal in deals]
    return _score_encoded(values, [tuple(len(hand) for hand in deal) for deal in deals], threads)


def _score_encoded(
    values: Sequence[bytes], sizes: Sequence[tuple[int, ...]], threads: int | None
) -> Scores:
    """Score deals given as their concatenated values and hand sizes, grouped by seat count."""
    out = Scores.empty(len(values))
    by_seats: dict[int, list[int]] = {}
    for i, hands in enumerate(sizes):
        by_seats.setdefault(len(hands), []).append(i)
    for seats, idx in by_seats.items():
        part = [values[i] for i in idx]
        width = max(len(v) for v in part)
        if all(len(v) == width for v in part):  # the usual case: one deck size
            rows = np.frombuffer(bytearray(b"".join(part)), dtype=np.uint8).reshape(len(idx), width)
        else:
            rows = np.zeros((len(idx), width), dtype=np.uint8)
            for r, v in enumerate(part):
                rows[r, : len(v)] = np.frombuffer(v, dtype=np.uint8)
        hands = np.array([sizes[i] for i in idx], dtype=np.int64).reshape(len(idx), seats)
        scored = score(rows, hands, threads)
        for field in out.__dataclass_fields__:
            getattr(out, field)[idx] = getattr(scored, field)
    return out


# Deals are handed to threads in chunks as they free up, not split evenly up front: game
# lengths vary, and on a shared machine one thread may be slowed by other work.
PARALLEL_CHUNK = 4096


class _threads:
    """Run a block with numba's thread count (and dynamic chunks) set, restoring both after."""

    def __init__(self, threads: int | None):
        self.threads = threads

    def __enter__(self):
        self.before = numba.get_num_threads()
        self.chunk = numba.get_parallel_chunksize()
        numba.set_parallel_chunksize(PARALLEL_CHUNK)
        if self.threads is not None:
            numba.set_num_threads(max(1, min(self.threads, numba.config.NUMBA_NUM_THREADS)))

    def __exit__(self, *exc):
        numba.set_num_threads(self.before)
        numba.set_parallel_chunksize(self.chunk)


# Record notation only ('-' and J Q K A, hands joined by '/'): read without the general parser.
_RECORD_LINE = re.compile(r"[-JQKAjqka]*(?:/[-JQKAjqka]*){1,3}")
_RECORD_VALUE = str.maketrans("-JQKAjqka", "\x00\x01\x02\x03\x04\x01\x02\x03\x04")


def read_line(line: str) -> tuple[str, bytes, tuple[int, ...]]:
    """One deal in any notation bmn parses (hands joined by '/').

    Returns its canonical notation, its penalty values (hands concatenated) and hand sizes.
    """
    text = line.strip()
    if _RECORD_LINE.fullmatch(text) and text.replace("/", ""):
        canonical = text.upper()
        values = canonical.replace("/", "").translate(_RECORD_VALUE).encode("ascii")
        return canonical, values, tuple(len(hand) for hand in canonical.split("/"))
    deal = parse_deal(text)
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
    lines: Iterable[str], threads: int | None = None, batch: int = BATCH_LINES
) -> Iterator[ScoredBatch]:
    """Score a stream of deal lines batch by batch; blank and '#' lines are skipped.

    On a bad line, the good lines before it are yielded as a last batch, then LineError is
    raised, so no result before the bad line is lost.
    """
    texts: list[str] = []
    values: list[bytes] = []
    sizes: list[tuple[int, ...]] = []
    consumed = 0

    def scored(used: int) -> ScoredBatch:
        return ScoredBatch(list(texts), _score_encoded(values, sizes, threads), used)

    for number, line in enumerate(lines, start=1):
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
