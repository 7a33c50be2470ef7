"""The search benchmark (`bmn search-bench`): each strategy's throughput and how often it
reaches the far tail, as kernels/cpu/benchmark.py is `bmn bench`'s.

Every strategy runs for the same time with the same workers on several seeds, into a
throwaway store; the kernel's own speed (`bmn bench`) on as many threads is measured in the
same run, so the throughput inside a search is quoted as a ratio against it. It times real
runs (search/runs/), so it stands on them, beside the library (api.py), below the command
line.
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from bmn.records.store import Store
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.loop import RunLoop

THRESHOLDS = (2000, 2500, 3000)


@dataclass(frozen=True)
class Trial:
    """One strategy run on one seed."""

    strategy: str
    seed: int
    games: int
    seconds: float
    best_cards: int
    tail: dict[int, int]  # threshold -> distinct deals of at least that many cards

    @property
    def rate(self) -> float:
        return self.games / self.seconds

    def as_dict(self) -> dict:
        return {**asdict(self), "rate": self.rate}


def trial(strategy: str, seed: int, seconds: float, workers: int, folder: Path) -> Trial:
    """Run one timed search into a store of its own and count its far-tail deals."""
    options = LongestOptions(
        strategy=strategy, seconds=seconds, workers=workers, seed=seed, keep_above=min(THRESHOLDS)
    )
    with Store(folder / f"{strategy}-{seed}.sqlite") as store:
        summary = RunLoop(store, LongestJob, options).run()
        cards = [find.cards for find in store.run_finds(summary.run)]
    tail = {t: sum(c >= t for c in cards) for t in THRESHOLDS}
    return Trial(strategy, seed, summary.games, summary.seconds, summary.best_cards, tail)


def compare(
    strategies: Sequence[str],
    seeds: Sequence[int],
    seconds: float,
    workers: int,
    on_trial: Callable[[Trial], None] = lambda t: None,
) -> list[Trial]:
    """Every strategy on every seed, interleaved so machine noise falls on all alike."""
    trials = []
    with tempfile.TemporaryDirectory(prefix="bmn-search-bench-") as folder:
        for seed in seeds:
            for strategy in strategies:
                trials.append(trial(strategy, seed, seconds, workers, Path(folder)))
                on_trial(trials[-1])
    return trials


def table(trials: Sequence[Trial], kernel_rate: float) -> list[dict]:
    """One row per strategy: medians over seeds, tail counts per million and per minute."""
    rows = []
    for strategy in dict.fromkeys(t.strategy for t in trials):
        mine = [t for t in trials if t.strategy == strategy]
        games = sum(t.games for t in mine)
        minutes = sum(t.seconds for t in mine) / 60
        row = {
            "strategy": strategy,
            "seeds": len(mine),
            "rate": statistics.median(t.rate for t in mine),
            "best_cards_median": statistics.median(t.best_cards for t in mine),
            "best_cards": [t.best_cards for t in mine],
        }
        row["rate_vs_bench"] = row["rate"] / kernel_rate
        for threshold in THRESHOLDS:
            found = sum(t.tail[threshold] for t in mine)
            row[f"per_million_{threshold}"] = found / games * 1e6
            row[f"per_minute_{threshold}"] = found / minutes
        rows.append(row)
    return rows
