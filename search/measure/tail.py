"""The tail of the length distribution of random standard deals, as a model shipped with bmn.

For each seat count (2, 3, 4) and length (cards, tricks), length_tail.json beside this module
holds the survival function S(x), the share of random deals whose game finishes at least x long:
measured (a table of points) up to a threshold, and past it a discrete exponential tail,
S(x) = S(u) exp(-rate (x - u)), its rate the maximum-likelihood fit to the deals past the
threshold u. Games are memoryless enough for this to hold far out (checked on held-out deals by
benchmarks/length_tail.py, which makes the file), but the far tail that records live in (4,000
to 8,000 cards, one deal in 10^9 to 10^18) is an extrapolation: the odds built on it
(odds.py) are estimates, and say so.

Regenerate the file with `python benchmarks/length_tail.py` (minutes on a few cores).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import asdict, dataclass
from importlib import resources

import numpy as np

MODEL_FILE = "length_tail.json"
UNITS = ("cards", "tricks")
# Where the fitted tail starts: the length past which this share of random deals go. The rate
# fitted past any share from 10% down to 0.001% is the same within its standard error (measured
# on 40 million two-seat deals); 1% keeps a margin from the body and leaves 400,000 deals of
# 40 million to fit.
TAIL_SHARE = 0.01
# The measured part of S(x) is kept at this many points (log-spaced shares), enough to read a
# short run's best from.
TABLE_POINTS = 24


@dataclass(frozen=True)
class TailModel:
    """S(x) for random standard deals of `players` seats, x in `unit` (cards or tricks)."""

    players: int
    unit: str
    deals: int  # random deals the model was fitted to
    seed: int
    threshold: int  # u: the fitted tail starts here
    above: float  # S(u)
    rate: float  # per card (trick) past u: S(x) = above * exp(-rate (x - u))
    rate_se: float  # the rate's standard error
    table: tuple[tuple[int, float], ...]  # (x, S(x)) measured, x from 0 up to u

    @property
    def tenfold(self) -> float:
        """How much longer a game is ten times rarer, past the threshold."""
        return math.log(10) / self.rate

    def survival(self, x: float) -> float:
        """The share of random deals whose game is at least `x` long (finished games only:
        random standard deals loop too rarely to count)."""
        if x >= self.threshold:
            return self.above * math.exp(-self.rate * (x - self.threshold))
        xs, ss = zip(*self.table, strict=True)
        return float(np.exp(np.interp(x, xs, np.log(ss))))

    def length_at(self, share: float) -> float:
        """The length that `share` of random deals reach (the inverse of survival, on the
        fitted tail: share <= above)."""
        return self.threshold + math.log(self.above / share) / self.rate

    def describe(self) -> str:
        return (
            f"an exponential tail fitted to {self.deals:,} random {self.players}-seat deals past"
            f" {self.threshold:,} {self.unit}"
        )

    def as_dict(self) -> dict:
        return {**asdict(self), "table": [list(p) for p in self.table]}


def fit_tail(
    counts: np.ndarray, players: int, unit: str, seed: int, share: float = TAIL_SHARE
) -> TailModel:
    """The model from `counts[x]`, how many random deals finished exactly x long.

    The threshold u is the least length that at most `share` of the deals reach; the deals past
    it, as y = x - u, are fitted by a geometric law P(Y >= y) = q^y, whose maximum-likelihood q
    is m / (1 + m) with m the mean of y (rate = -ln q, standard error (1 - q) / sqrt(q k) over
    k deals)."""
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.sum()
    reach = n - np.concatenate(([0.0], np.cumsum(counts)[:-1]))  # reach[x]: deals >= x
    threshold = int(np.argmax(reach <= share * n))
    k = reach[threshold]
    m = float((counts[threshold:] * np.arange(len(counts) - threshold)).sum() / k)
    q = m / (1 + m)
    rate_se = (1 - q) / math.sqrt(q * k)
    shares = np.geomspace(1.0, reach[threshold] / n, TABLE_POINTS)
    xs = sorted({int(np.argmax(reach <= s * n)) for s in shares[1:]} | {0, threshold})
    table = tuple((x, float(reach[x] / n)) for x in xs)
    return TailModel(
        players, unit, int(n), seed, threshold, float(k / n), -math.log(q), rate_se, table
    )


def length_counts(n: int, players: int, seed: int, threads: int | None = None):
    """Score n random standard deals (kernels/dealer.py's random_deals(n, seed_state(seed),
    players), in chunks): counts of finished games by cards and by tricks, and the loops."""
    from bmn.kernels.dealer import random_deals
    from bmn.kernels.rng import seed_state
    from bmn.kernels.score import score

    state, done, loops = seed_state(seed), 0, 0
    cards, tricks = np.zeros(1, np.int64), np.zeros(1, np.int64)
    while done < n:
        m = min(200_000, n - done)
        scores = score(*random_deals(m, state, players), threads=threads)
        ok = scores.status == 0
        cards = _add(cards, np.bincount(scores.cards[ok]))
        tricks = _add(tricks, np.bincount(scores.tricks[ok]))
        loops += int(m - ok.sum())
        done += m
    return cards, tricks, loops


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros(max(len(a), len(b)), np.int64)
    out[: len(a)] += a
    out[: len(b)] += b
    return out


@functools.cache
def tail_models() -> dict[tuple[int, str], TailModel]:
    """The shipped models by (players, unit)."""
    text = resources.files("bmn.search.measure").joinpath(MODEL_FILE).read_text("utf-8")
    models = {}
    for row in json.loads(text)["models"]:
        model = TailModel(**{**row, "table": tuple((int(x), s) for x, s in row["table"])})
        models[model.players, model.unit] = model
    return models


def tail_model(players: int, unit: str) -> TailModel | None:
    """The shipped model of `players` seats and `unit` (cards or tricks); None for others."""
    return tail_models().get((players, unit))
