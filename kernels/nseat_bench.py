"""Speed of the N-seat kernel on random standard deals, beside a C baseline run in the same go.

    python -m bmn.kernels.nseat_bench --seats 3 --deals 300000 --baseline ./nseat

times the compiled kernel alone on one thread (deals generated and the kernel compiled or
loaded before the clock starts) and, with --baseline, the C ring-buffer simulator
(baseline/nseat.c beside RULES.md, built with `gcc -O2 -o nseat nseat.c`) on the same number
of deals, back to back, `--rounds` times each; the best of each is compared.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from dataclasses import dataclass

import numba

from bmn.kernels.config import JIT
from bmn.kernels.nseat import _fast, random_deals, standard_sizes
from bmn.kernels.rng import seed_state

DEFAULT_SEED = 20_240_601
CAP = 20_000


@numba.njit(**JIT)
def _total_cards(flat, width, n, sizes, cap):
    """Cards summed over n deals of a flat batch, played one after another on this thread."""
    total = 0
    seats = sizes.shape[0]
    for i in range(n):
        cards, _, _ = _fast(flat, i * width, sizes, 0, seats, cap)
        total += cards
    return total


@dataclass(frozen=True)
class Timing:
    games_per_s: float
    mean_cards: float


def time_kernel(seats: int, deals: int, seed: int = DEFAULT_SEED) -> Timing:
    """Games per second of the kernel on one thread over `deals` random standard deals."""
    batch = random_deals(deals, seats, seed_state(seed))
    sizes = standard_sizes(seats)
    flat = batch.reshape(-1)
    _total_cards(flat, batch.shape[1], min(deals, 100), sizes, CAP)  # compile or load
    start = time.perf_counter()
    cards = _total_cards(flat, batch.shape[1], deals, sizes, CAP)
    seconds = max(time.perf_counter() - start, 1e-9)
    return Timing(deals / seconds, cards / max(deals, 1))


def time_baseline(binary: str, seats: int, deals: int, cpu: int | None) -> Timing:
    """Games per second of the C baseline (`nseat bench SEATS SEED DEALS`), as it prints them."""
    command = [binary, "bench", str(seats), "1", str(deals)]
    if cpu is not None:
        command = ["taskset", "-c", str(cpu), *command]
    text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    games = re.search(r"games/s=([0-9.]+)", text)
    mean = re.search(r"mean_cards=([0-9.]+)", text)
    if games is None or mean is None:
        raise RuntimeError(f"unexpected baseline output: {text!r}")
    return Timing(float(games.group(1)), float(mean.group(1)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--deals", type=int, default=300_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--baseline", help="the C baseline binary built from nseat.c")
    parser.add_argument("--cpu", type=int, default=None, help="pin both to this CPU (taskset)")
    args = parser.parse_args(argv)
    if args.cpu is not None:
        import os

        os.sched_setaffinity(0, {args.cpu})
    numba.set_num_threads(1)
    for seats in args.seats:
        ours: list[Timing] = []
        theirs: list[Timing] = []
        for _ in range(args.rounds):
            ours.append(time_kernel(seats, args.deals, args.seed))
            if args.baseline:
                theirs.append(time_baseline(args.baseline, seats, args.deals, args.cpu))
        best = max(ours, key=lambda t: t.games_per_s)
        line = (
            f"seats={seats} kernel games/s={best.games_per_s:,.0f} mean_cards={best.mean_cards:.1f}"
        )
        if theirs:
            base = max(theirs, key=lambda t: t.games_per_s)
            ratio = best.games_per_s / base.games_per_s
            line += f" | C games/s={base.games_per_s:,.0f} mean_cards={base.mean_cards:.1f}"
            line += f" | ratio {ratio:.2f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
