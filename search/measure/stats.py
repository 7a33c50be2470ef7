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

from bmn.kernels.rules.sets import RuleSet

PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)
# Default deal counts: every seat count has a compiled kernel (about 10^6 deals/s a thread
# for two seats, several 10^5 for three and four).
DEFAULT_DEALS = {2: 1_000_000, 3: 1_000_000, 4: 1_000_000}
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


def score_random(
    n: int, players: int, seed: int, progress=None, rules: str | RuleSet | None = None
):
    """Score n random standard deals (kernels/score.py) under `rules` (a rule set's name or
    RuleSet; None: bmn's): (cards, tricks, status) arrays.

    Deals are made and scored in chunks so memory stays small; `progress(done)` is called
    after each chunk. The deals are those of kernels/dealer.py's random_deals(n, seed_state(seed),
    players), however they are chunked.
    """
    from bmn.kernels.dealer import random_deals
    from bmn.kernels.rng import seed_state
    from bmn.kernels.score import score

    state = seed_state(seed)
    parts = []
    done = 0
    while done < n:
        m = min(CHUNK, n - done)
        scores = score(*random_deals(m, state, players), rules=rules)
        parts.append((scores.cards, scores.tricks, scores.status))
        done += m
        if progress is not None:
            progress(done)
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(3))
