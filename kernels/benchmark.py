"""Speed and agreement checks of the compiled kernel on random standard two-player deals.

`bench` times the compiled batch kernel alone: the deals are generated and the kernel compiled
(or loaded from the cache) before the clock starts. `selfcheck` scores random deals with the
kernel and with the reference engine and stops at the first difference.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numba
import numpy as np

from bmn.kernels import reference
from bmn.kernels.results import Scores
from bmn.kernels.rng import seed_state
from bmn.kernels.score import numba_threads, score, total_cards
from bmn.kernels.two import random_deals

DEFAULT_SEED = 20_240_601


@dataclass(frozen=True)
class BenchResult:
    """Throughput on `deals` random standard deals with `threads` threads."""

    deals: int
    threads: int
    seconds: float
    games_per_s: float
    cards_per_s: float
    mean_cards: float
    mean_tricks: float

    def as_dict(self) -> dict:
        return asdict(self)


def standard_deals(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n random standard deals (rows of 52 values) and their (26, 26) hand sizes."""
    deals = random_deals(n, seed_state(seed))
    return deals, np.full((n, 2), 26, dtype=np.int64)


def bench(
    deals: int = 1_000_000, threads: int | None = None, seed: int = DEFAULT_SEED
) -> BenchResult:
    """Time the compiled kernel on `deals` random standard deals (compile and deal outside)."""
    batch, _ = standard_deals(deals, seed)
    with numba_threads(threads):
        used = numba.get_num_threads()
        total_cards(batch[: 4 * used], 26, 26)  # compile or load, start threads
        start = time.perf_counter()
        cards, tricks = total_cards(batch, 26, 26)
        seconds = time.perf_counter() - start
    seconds = max(seconds, 1e-9)
    return BenchResult(
        deals=deals,
        threads=used,
        seconds=seconds,
        games_per_s=deals / seconds,
        cards_per_s=cards / seconds,
        mean_cards=cards / max(deals, 1),
        mean_tricks=tricks / max(deals, 1),
    )


@dataclass(frozen=True)
class Disagreement:
    """The first deal on which the kernel and the reference engine differ."""

    index: int
    deal: tuple
    kernel: dict
    reference: dict


def selfcheck(
    deals: int = 200_000,
    seed: int = DEFAULT_SEED,
    progress: Callable[[int], None] | None = None,
    chunk: int = 4096,
) -> Disagreement | None:
    """Score random standard deals with the kernel and the reference; the first difference.

    `progress(k)` is called after each k deals checked.
    """
    state = seed_state(seed)
    done = 0
    while done < deals:
        n = min(chunk, deals - done)
        batch = random_deals(n, state)
        scores: Scores = score(batch, np.full((n, 2), 26, dtype=np.int64))
        for i in range(n):
            deal = (tuple(int(v) for v in batch[i, :26]), tuple(int(v) for v in batch[i, 26:]))
            want = reference.play(deal).as_dict()
            got = scores.as_dict(i)
            if got != want:
                return Disagreement(done + i, deal, got, want)
        done += n
        if progress is not None:
            progress(n)
    return None
