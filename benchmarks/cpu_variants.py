"""One thread's games/s for each CPU kernel variant, beside the C baselines, in one run.

    python benchmarks/cpu_variants.py --baseline-dir /tmp/base --cpu 1 [--deals 1000000]

The C baselines are built from ../shared/baseline/ (README there) into --baseline-dir:
`ring` and `bits` (bmn.c, 2 seats) and `nseat` (nseat.c, 3 and 4 seats). This process is
pinned to one CPU (`--cpu`) with numba on one thread, and each baseline runs under
`taskset -c CPU`. Every variant and baseline runs once a round, alternating, for `--rounds`
rounds; the median of each is printed with its ratio against the C ring (2 seats) or the C
N-seat ring (3 and 4 seats) of the same run, and `lscpu`'s model name. A variant times its
batch scorer alone: the deals are made and the kernel compiled before the clock starts.

The variants measured and not kept are beside this script (variants_flight.py: games in
flight, a free play chosen by masks; variants_events.py: a branch-free event machine;
variants_nseat.py: N-seat table arrays lent a block of deals). "today, 8 deals cycled" is
today's kernel on the same 8 deals over and over: what it costs that the predictor cannot
learn the branches of a fresh deal (docs/development.md, "CPU kernel speed").
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bmn.kernels.benchmark import DEFAULT_SEED
from bmn.kernels.config import FAST_CAP
from bmn.kernels.cpu import nseat, two
from bmn.kernels.dealer import random_deals
from bmn.kernels.results import Scores
from bmn.kernels.rng import seed_state
from bmn.kernels.score import numba_threads

sys.path.insert(0, str(Path(__file__).parent))  # the measured variants beside this script
import variants_events  # noqa: E402
import variants_flight  # noqa: E402
import variants_nseat  # noqa: E402
from c_baselines import games_per_s, model_name  # noqa: E402

Scorer = Callable[[np.ndarray, np.ndarray, np.ndarray, Scores], None]


def _two_today(batch, sizes, rows, out) -> None:
    n0 = np.ascontiguousarray(sizes[:, 0])
    n1 = np.ascontiguousarray(sizes[:, 1])
    two._score_rows(batch.reshape(-1), batch.shape[1], n0, n1, rows, FAST_CAP, out.arrays())


def _two_scorer(compiled) -> Scorer:
    """A scorer through a compiled two-seat `_score_rows(flat, width, n0, n1, rows, cap, out)`."""

    def scorer(batch, sizes, rows, out) -> None:
        n0 = np.ascontiguousarray(sizes[:, 0])
        n1 = np.ascontiguousarray(sizes[:, 1])
        compiled(batch.reshape(-1), batch.shape[1], n0, n1, rows, FAST_CAP, out.arrays())

    return scorer


_SELECT = variants_flight.selected()


def _nseat_today(batch, sizes, rows, out) -> None:
    nseat.score_rows(batch, sizes, rows, out, FAST_CAP)


def _cycled(scorer: Scorer, deals: int = 8) -> Scorer:
    """`scorer` on the batch's first `deals` deals of near-mean length, over and over: the same
    code on games whose branches the predictor has learnt (the cost of those it has not)."""

    def cycled(batch, sizes, rows, out) -> None:
        if id(batch) not in _CYCLED:
            probe = Scores.empty(min(len(batch), 4096))
            scorer(batch, sizes, np.arange(len(probe)), probe)
            mean = probe.cards.mean()
            near = np.argsort(np.abs(probe.cards - mean))[:deals]
            reps = -(-len(batch) // deals)
            _CYCLED.clear()
            _CYCLED[id(batch)] = (
                np.ascontiguousarray(np.tile(batch[near], (reps, 1))[: len(batch)]),
                np.ascontiguousarray(np.tile(sizes[near], (reps, 1))[: len(batch)]),
            )
        cycled_batch, cycled_sizes = _CYCLED[id(batch)]
        scorer(cycled_batch, cycled_sizes, rows, out)

    return cycled


def _blocks(batch, sizes, rows, out) -> None:
    variants_nseat.score_rows(batch, sizes, rows, out, FAST_CAP)


_CYCLED: dict[int, tuple[np.ndarray, np.ndarray]] = {}
LEARNT = "today, 8 deals cycled"


VARIANTS: dict[int, dict[str, Scorer]] = {
    2: {
        "today (one game)": _two_today,
        "2 in flight": _two_scorer(variants_flight._score_rows2),
        "4 in flight": _two_scorer(variants_flight._score_rows4),
        "events (one game)": _two_scorer(variants_events._score_rows1),
        "events, 2 in flight": _two_scorer(variants_events._score_rows2),
        "select (one game)": _two_scorer(_SELECT["_score_rows"]),
        "select, 2 in flight": _two_scorer(_SELECT["_score_rows2"]),
        "select, 4 in flight": _two_scorer(_SELECT["_score_rows4"]),
        "a loop for each seat to lead": _two_scorer(variants_flight._score_rows_by_leader),
        LEARNT: _cycled(_two_today),
    },
    3: {
        "today (one game)": _nseat_today,
        "table arrays per block": _blocks,
        LEARNT: _cycled(_nseat_today),
    },
    4: {
        "today (one game)": _nseat_today,
        "table arrays per block": _blocks,
        LEARNT: _cycled(_nseat_today),
    },
}


def time_variant(scorer: Scorer, batch, sizes) -> tuple[float, str]:
    """(games/s, digest of the cards) of one timed pass over the batch, on one thread."""
    rows = np.arange(len(batch), dtype=np.int64)
    out = Scores.empty(len(batch))
    with numba_threads(1):
        scorer(batch, sizes, rows[:256], out)  # compile or load
        start = time.perf_counter()
        scorer(batch, sizes, rows, out)
        seconds = time.perf_counter() - start
    check = f"{int(out.cards.sum())}/{int(out.tricks.sum())}"
    return len(batch) / seconds, check


def time_c(command: list[str], cpu: int) -> float:
    """games/s a C baseline prints, run pinned to `cpu`."""
    return games_per_s(["taskset", "-c", str(cpu), *command])


def baselines(seats: int, base: Path, deals: int) -> dict[str, list[str]]:
    """The C baselines for a seat count: name -> command line."""
    if seats == 2:
        data = base / "deals.bin"
        if not data.exists():
            subprocess.run([str(base / "ring"), "gen", str(deals), "12345", str(data)], check=True)
        return {
            "C ring": [str(base / "ring"), "bench", str(data)],
            "C bit-queue": [str(base / "bits"), "bench", str(data)],
        }
    return {"C N-seat ring": [str(base / "nseat"), "bench", str(seats), "1", str(deals)]}


def run(seats: int, deals: int, rounds: int, base: Path, cpu: int) -> None:
    """Print the medians and ratios for one seat count."""
    batch, sizes = random_deals(deals, seed_state(DEFAULT_SEED), seats)
    variants = VARIANTS[seats]
    commands = baselines(seats, base, deals)
    figures: dict[str, list[float]] = {name: [] for name in [*variants, *commands]}
    checks: dict[str, set[str]] = {name: set() for name in variants}
    for _ in range(rounds):
        for name, scorer in variants.items():
            rate, check = time_variant(scorer, batch, sizes)
            figures[name].append(rate)
            checks[name].add(check)
        for name, command in commands.items():
            figures[name].append(time_c(command, cpu))
    reference = statistics.median(figures["C ring" if seats == 2 else "C N-seat ring"])
    today = statistics.median(figures["today (one game)"])
    print(f"seats={seats} deals={deals} rounds={rounds} (median games/s, one thread)")
    for name, rates in figures.items():
        mid = statistics.median(rates)
        line = f"  {name:<30} {mid:>12,.0f}  x{mid / reference:5.2f} C  x{mid / today:5.2f} today"
        if name in checks and name != LEARNT:  # LEARNT plays other deals
            line += f"  cards/tricks {','.join(sorted(checks[name]))}"
        print(line, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-dir", type=Path, required=True)
    parser.add_argument("--cpu", type=int, default=1)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    os.sched_setaffinity(0, {args.cpu})
    print(f"machine: {model_name()}, pinned to CPU {args.cpu}")
    for seats in args.seats:
        run(seats, args.deals, args.rounds, args.baseline_dir, args.cpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
