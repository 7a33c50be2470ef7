"""Speed and agreement checks of the compiled kernels on random standard deals of 2-4 seats.

`bench` times the compiled batch kernel alone: the deals are generated and the kernel compiled
(or loaded from the cache) before the clock starts. Two seats time the two-seat kernel's total
(kernels/cpu/two.py, or its copy for a rule set: every rule set through the same loop); three
and four seats the N-seat kernel's batch scorer (kernels/cpu/nseat.py), the kernel
kernels/score.py registers for them. `kernel` picks the scalar kernels or their twins in SIMD
lanes (kernels/cpu/lanes.py, lanes_nseat.py: the same entry points), by default the one
kernels/cpu/choice.py chooses. `selfcheck` plays random deals with the kernel and with the
reference engine, through the one verifier (kernels/claims.py), and stops at the first
difference.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numba
import numpy as np

from bmn.kernels.claims import BOTH, Claim, verify
from bmn.kernels.config import FAST_CAP
from bmn.kernels.cpu.choice import choose
from bmn.kernels.cpu.choice import chosen as chosen_kernel
from bmn.kernels.deal import decode
from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import STANDARD_DECK, even_sizes
from bmn.kernels.results import Scores
from bmn.kernels.rng import seed_state
from bmn.kernels.rules.sets import RuleSet, rule_set
from bmn.kernels.score import LANES, kernel_for, numba_threads

DEFAULT_SEED = 20_240_601


@dataclass(frozen=True)
class BenchResult:
    """Throughput on `deals` random standard deals of `players` seats with `threads` threads."""

    deals: int
    threads: int
    seconds: float
    games_per_s: float
    cards_per_s: float
    mean_cards: float
    mean_tricks: float
    players: int = 2
    kernel: str = "scalar"  # the scalar kernels or the lanes (kernels/cpu/choice.py)
    lanes: int = 1  # games a step

    def as_dict(self) -> dict:
        return asdict(self)


def bench(
    deals: int = 1_000_000,
    threads: int | None = None,
    seed: int = DEFAULT_SEED,
    players: int = 2,
    rules: str | RuleSet | None = None,
    kernel: str | None = None,
) -> BenchResult:
    """Time the compiled kernel on `deals` random standard deals (compile and deal outside)
    under `rules` (a rule set's name or RuleSet; None: the default), the scalar kernel or the
    lanes as `kernel` says (kernels/cpu/choice.py's requests; None: the process's choice).
    ValueError for a rule set no compiled kernel plays with `players` seats."""
    chosen = rule_set(rules)
    engine = choose(kernel) if kernel is not None else chosen_kernel()
    device = LANES if engine.uses_lanes else "cpu"
    kernel = kernel_for(players, device, chosen, engine.lanes if engine.uses_lanes else None)
    if kernel is None:
        raise ValueError(f"no compiled kernel plays rule set {chosen.name!r} with {players} seats")
    batch, sizes = random_deals(deals, seed_state(seed), players)
    with numba_threads(threads):
        used = numba.get_num_threads()
        if players == 2:  # the two-seat kernel's own total, under every rule set alike
            seconds, cards, tricks = _time_two(kernel.total_cards, batch, 4 * used)
        else:
            seconds, cards, tricks = _time_rows(kernel, batch, sizes, 4 * used)
    seconds = max(seconds, 1e-9)
    return BenchResult(
        deals=deals,
        threads=used,
        seconds=seconds,
        games_per_s=deals / seconds,
        cards_per_s=cards / seconds,
        mean_cards=cards / max(deals, 1),
        mean_tricks=tricks / max(deals, 1),
        players=players,
        kernel=engine.engine,
        lanes=engine.lanes,
    )


def _time_two(total_cards: Callable, batch, warm: int) -> tuple[float, int, int]:
    """The two-seat kernel's total over the batch (`total_cards` of kernels/cpu/two.py or of
    its copy for a rule set): (seconds, cards, tricks)."""
    n0, n1 = even_sizes(len(STANDARD_DECK), 2)  # 26/26: every standard two-player deal
    total_cards(batch[:warm], n0, n1)  # compile or load, start threads
    start = time.perf_counter()
    cards, tricks = total_cards(batch, n0, n1)
    return time.perf_counter() - start, cards, tricks


def _time_rows(kernel, batch, sizes, warm: int) -> tuple[float, int, int]:
    """A kernel's batch scorer over the batch: (seconds, cards, tricks)."""
    rows = np.arange(len(batch), dtype=np.int64)
    out = Scores.empty(len(batch))
    kernel.score_rows(batch, sizes, rows[:warm], out, FAST_CAP)  # compile or load
    start = time.perf_counter()
    kernel.score_rows(batch, sizes, rows, out, FAST_CAP)
    seconds = time.perf_counter() - start
    return seconds, int(out.cards.sum()), int(out.tricks.sum())


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
    players: int = 2,
    rules: str | RuleSet | None = None,
) -> Disagreement | None:
    """Play random standard deals of `players` seats with the kernel registered for them
    (kernels/score.py) and with the reference engine, under `rules` (a rule set's name or
    RuleSet; None: the default), each a claim the one verifier plays with both engines
    (kernels/claims.py); the first on which they differ.

    `progress(k)` is called after each k deals checked.
    """
    chosen = rule_set(rules)
    state = seed_state(seed)
    done = 0
    while done < deals:
        n = min(chunk, deals - done)
        batch, sizes = random_deals(n, state, players)
        claims = [
            Claim(
                batch[i, : sizes[i].sum()].tobytes(), tuple(map(int, sizes[i])), rules=chosen.name
            )
            for i in range(n)
        ]
        for i, verdict in enumerate(verify(claims, BOTH)):
            if verdict.engines is not None:
                kernel, slow = verdict.engines
                deal = decode(batch[i], sizes[i])
                return Disagreement(done + i, deal, kernel.as_dict(), slow.as_dict())
        done += n
        if progress is not None:
            progress(n)
    return None
