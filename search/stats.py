"""The numbers behind `bmn stats`: game length distribution over random standard deals.

Lengths are summarised over the games that finished (a loop's "length" is only where its
repeat was seen); the looping fraction is reported beside them. The upper tail of the length
distribution is close to exponential, so it is summarised by one decay rate fitted by
log-linear least squares on the empirical survival function.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)
# Default deal counts: two players use the two-hand kernel (~10^5-10^6 deals/s), 3-4 the
# general path (a few thousand deals/s), so fewer by default.
DEFAULT_DEALS = {2: 1_000_000, 3: 20_000, 4: 20_000}
CHUNK = 100_000


@dataclass(frozen=True)
class TailFit:
    """log S(x) ~ intercept - rate * x for x >= threshold, S the fraction of games >= x."""

    threshold: float
    rate: float  # natural-log decay per unit (card or trick)
    intercept: float
    points: int

    @property
    def tenfold(self) -> float:
        """How many more units of length make a game ten times rarer."""
        return math.log(10) / self.rate if self.rate > 0 else math.inf

    def survival(self, x: np.ndarray) -> np.ndarray:
        """The fitted fraction of games at least `x` long."""
        return np.exp(self.intercept - self.rate * np.asarray(x, dtype=float))

    def as_dict(self) -> dict:
        return {**asdict(self), "tenfold": self.tenfold}


def percentile_key(q: float) -> str:
    """'p50', 'p99.9': JSON-friendly names for percentiles."""
    return f"p{q:g}"


def summary(values: np.ndarray) -> dict:
    """Mean, median and upper percentiles (numpy's default linear interpolation), longest."""
    values = np.asarray(values, dtype=np.int64)
    if values.size == 0:
        return {"mean": None, "longest": None, **{percentile_key(q): None for q in PERCENTILES}}
    qs = np.percentile(values, PERCENTILES)
    return {
        "mean": float(values.mean()),
        **{percentile_key(q): float(v) for q, v in zip(PERCENTILES, qs, strict=True)},
        "longest": int(values.max()),
    }


def tail_fit(values: np.ndarray, quantile: float = 0.9, min_count: int = 10) -> TailFit | None:
    """Fit an exponential to the upper tail of `values` (those at or above `quantile`).

    The survival function is evaluated at each distinct value in the tail, stopping where
    fewer than `min_count` games remain (the last few points are too noisy to weigh equally),
    and ln S is fitted against x by least squares. None when the tail is too small to fit.
    """
    values = np.sort(np.asarray(values, dtype=float))
    n = values.size
    if n == 0:
        return None
    threshold = float(np.quantile(values, quantile))
    distinct, first = np.unique(values, return_index=True)
    remaining = n - first  # how many games are at least this long
    keep = (distinct >= threshold) & (remaining >= min_count)
    if keep.sum() < 3:
        return None
    x = distinct[keep]
    y = np.log(remaining[keep] / n)
    slope, intercept = np.polyfit(x, y, 1)
    return TailFit(threshold, float(-slope), float(intercept), int(keep.sum()))


def length_stats(cards: np.ndarray, tricks: np.ndarray, status: np.ndarray) -> dict:
    """Every figure `bmn stats` reports, from per-game cards, tricks and status (0 finished)."""
    cards, tricks, status = np.asarray(cards), np.asarray(tricks), np.asarray(status)
    done = status == 0
    out: dict = {
        "deals": int(status.size),
        "finished": int(done.sum()),
        "looping": int((status == 1).sum()),
        "loop_fraction": float((status == 1).mean()) if status.size else 0.0,
    }
    for name, values in (("cards", cards[done]), ("tricks", tricks[done])):
        fit = tail_fit(values)
        out[name] = {**summary(values), "tail": fit.as_dict() if fit else None}
    return out


def standard_deals(n: int, players: int, rng: np.random.Generator) -> np.ndarray:
    """n shuffled standard decks dealt round the table, as (n, 52) rows of hands in seat order.

    The same dealing as kernels/deal.py's deal_round, vectorised: seat s gets deck[s::players].
    """
    from bmn.kernels.deal import STANDARD_DECK

    decks = rng.permuted(np.tile(np.array(STANDARD_DECK, dtype=np.uint8), (n, 1)), axis=1)
    return np.ascontiguousarray(np.concatenate([decks[:, s::players] for s in range(players)], 1))


def standard_sizes(players: int) -> np.ndarray:
    """Hand sizes of the standard deal: as even as possible, seat 0 first."""
    return np.array([len(range(s, 52, players)) for s in range(players)], dtype=np.int64)


def score_random(n: int, players: int, seed: int, progress=None):
    """Score n random standard deals with the compiled kernels: (cards, tricks, status) arrays.

    Deals are made and scored in chunks so memory stays small; `progress(done)` is called
    after each chunk. Two players use the dedicated dealer of kernels/two.py.
    """
    from bmn.kernels.rng import seed_state
    from bmn.kernels.score import score

    sizes_row = standard_sizes(players)
    state = seed_state(seed)
    rng = np.random.default_rng(seed % 2**64)  # numpy wants a non-negative seed
    parts = []
    done = 0
    while done < n:
        m = min(CHUNK, n - done)
        if players == 2:
            from bmn.kernels.two import random_deals

            deals = random_deals(m, state)
        else:
            deals = standard_deals(m, players, rng)
        scores = score(deals, np.tile(sizes_row, (m, 1)))
        parts.append((scores.cards, scores.tricks, scores.status))
        done += m
        if progress is not None:
            progress(done)
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))
