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

from bmn.kernels import reference
from bmn.kernels.deal import STANDARD_DECK, decode, even_sizes
from bmn.kernels.dealer import random_deals
from bmn.kernels.rng import seed_state
from bmn.kernels.score import numba_threads, score
from bmn.kernels.two import total_cards

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


def bench(
    deals: int = 1_000_000, threads: int | None = None, seed: int = DEFAULT_SEED
) -> BenchResult:
    """Time the compiled kernel on `deals` random standard deals (compile and deal outside)."""
    batch, _ = random_deals(deals, seed_state(seed))
    n0, n1 = even_sizes(len(STANDARD_DECK), 2)  # 26/26: every standard two-player deal
    with numba_threads(threads):
        used = numba.get_num_threads()
        total_cards(batch[: 4 * used], n0, n1)  # compile or load, start threads
        start = time.perf_counter()
        cards, tricks = total_cards(batch, n0, n1)
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
        batch, sizes = random_deals(n, state)
        scores = score(batch, sizes)
        for i in range(n):
            deal = decode(batch[i], sizes[i])
            want = reference.play(deal).as_dict()
            got = scores.as_dict(i)
            if got != want:
                return Disagreement(done + i, deal, got, want)
        done += n
        if progress is not None:
            progress(n)
    return None
