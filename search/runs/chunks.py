"""How a run's work is cut: each stream's share of --iterations, chunks of about a second
that never pass a quota or the deadline, and a chunk's finds split into rows and bulk."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from bmn.kernels.config import FINISHED, STATUS_NAMES
from bmn.kernels.deal import deal_texts
from bmn.records.store import Find
from bmn.records.store.bulk import Bulk, in_bulk


def stream_quota(iterations: int | None, streams: int, stream: int) -> int | None:
    """How many games stream `stream` of `streams` plays over the whole run (None: until the
    time is up): an even share of the iterations, the first streams one more."""
    if iterations is None:
        return None
    share, extra = divmod(iterations, streams)
    return share + (stream < extra)


def stream_quotas(iterations: int | None, streams: int) -> np.ndarray | None:
    """Every stream's quota (stream_quota) as an array."""
    if iterations is None:
        return None
    share, extra = divmod(iterations, streams)
    return share + (np.arange(streams) < extra)


def sized_chunk(
    rate: float | None,
    left: int | None,
    deadline: float | None,
    ahead: float = 0.0,
    *,
    first: int,
    least: int,
    seconds: float,
) -> int:
    """Games for a stream's next chunk: about `seconds` of work at `rate` (`first` before the
    rate is known, at least `least`), never past the `left` of its quota nor the deadline
    (time.monotonic()); 0 once the time is up, and for a chunk queued behind `ahead` seconds of
    work that would start in the last `seconds`: the last chunk is sized when it starts, on
    the time left then, rather than on a guess of when the chunks ahead of it will end."""
    size = first if rate is None else max(least, int(rate * seconds))
    if deadline is not None:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or (ahead > 0 and remaining - ahead < seconds):
            return 0
        if rate is not None:
            size = min(size, int(rate * remaining) + 1)
    return size if left is None else max(min(size, left), 0)


def split_finds(
    parts: Sequence[tuple[int, int, np.ndarray, np.ndarray]], strategy: str,
    sizes: Sequence[int], seconds: float,
) -> tuple[list[Find], list[Bulk]]:  # fmt: skip
    """Finds of chunks, (stream, its games before the chunk, decks, rows of (cards, tricks,
    status)), as those stored one by one and the short ones in bulk, one bulk per chunk."""
    finds, bulks = [], []
    for stream, first, decks, meta in parts:
        bulky = in_bulk(meta, FINISHED)
        one = ~bulky
        texts = deal_texts(decks[one], sizes)
        finds += [
            Find(deal, c, t, STATUS_NAMES[s], strategy, seconds)
            for deal, (c, t, s) in zip(texts, meta[one].tolist(), strict=True)
        ]
        if one.any():
            decks, meta = decks[bulky], meta[bulky]
        bulks.append(Bulk(stream, first, seconds, tuple(sizes), decks, meta[:, :2]))
    return finds, bulks
