"""Speed of the N-seat kernel on random standard deals, beside the C baseline in the same run.

    python benchmarks/nseat_bench.py --baseline ./nseat --cpu 1

times `bmn bench --players N --threads 1` (kernels/cpu/benchmark.py: the batch scorer
nseat.score_rows on one thread, the deals generated and the kernel compiled or loaded from the
cache before the clock starts), then the C ring-buffer simulator
(baseline/nseat.c beside RULES.md, `gcc -O2 -o nseat nseat.c`), which prints its own games/s
for the same number of random standard deals. The two run back to back, `--rounds` times each
(alternating), and the best round of each is compared: on a shared machine the best round is
the one least disturbed by other work. Both time wall-clock play only.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass

from bmn.kernels.cpu.benchmark import DEFAULT_SEED, bench


@dataclass(frozen=True)
class Timing:
    """Games per second and the mean game length over one timed batch."""

    games_per_s: float
    mean_cards: float


def time_kernel(seats: int, deals: int, seed: int = DEFAULT_SEED) -> Timing:
    """`bmn bench --players SEATS --threads 1` on `deals` random standard deals, wall clock."""
    result = bench(deals, threads=1, seed=seed, players=seats)
    return Timing(result.games_per_s, result.mean_cards)


def time_baseline(binary: str, seats: int, deals: int) -> Timing:
    """The C baseline's own figures from `nseat bench SEATS 1 DEALS`."""
    text = subprocess.run(
        [binary, "bench", str(seats), "1", str(deals)], check=True, capture_output=True, text=True
    ).stdout
    games = re.search(r"games/s=([0-9.]+)", text)
    mean = re.search(r"mean_cards=([0-9.]+)", text)
    if games is None or mean is None:
        raise RuntimeError(f"unexpected output from {binary}: {text!r}")
    return Timing(float(games.group(1)), float(mean.group(1)))


def compare(seats: int, deals: int, rounds: int, baseline: str | None) -> str:
    """One line: the kernel's best games/s and, with a baseline, the C one's and the ratio."""
    ours: list[Timing] = []
    theirs: list[Timing] = []
    for _ in range(rounds):
        ours.append(time_kernel(seats, deals))
        if baseline:
            theirs.append(time_baseline(baseline, seats, deals))
    best = max(ours, key=lambda t: t.games_per_s)
    line = f"seats={seats} kernel games/s={best.games_per_s:,.0f} mean_cards={best.mean_cards:.1f}"
    if theirs:
        base = max(theirs, key=lambda t: t.games_per_s)
        line += f" | C games/s={base.games_per_s:,.0f} mean_cards={base.mean_cards:.1f}"
        line += f" | ratio {best.games_per_s / base.games_per_s:.2f}"
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, nargs="+", default=[3, 4], choices=[2, 3, 4])
    parser.add_argument("--deals", type=int, default=300_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", help="the C baseline binary built from nseat.c")
    parser.add_argument("--cpu", type=int, help="pin this process and the baseline to one CPU")
    args = parser.parse_args(argv)
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})  # inherited by the baseline's process
    for seats in args.seats:
        print(compare(seats, args.deals, args.rounds, args.baseline), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
