"""The CPU kernels in SIMD lanes against the scalar kernels and the C simulators, in one run.

    python benchmarks/lanes_bench.py kernels --ring /tmp/base/ring --nseat /tmp/base/nseat \\
        --deals-file /tmp/base/deals.bin --cpu 1 [--rounds 5] [--seats 2 3 4]
    python benchmarks/lanes_bench.py tail --ring /tmp/base/ring [--bits /tmp/base/bits] \\
        [--seconds 25] [--rounds 3]

`kernels`: one thread pinned to --cpu. Each round times, in turn, the C ring simulator
(../shared/baseline: `ring bench` on bmn.c's `gen` deals for two seats, `nseat bench` for three
and four), then `bmn bench`'s kernel (kernels/cpu/benchmark.bench: 1,000,000 random standard
deals with two seats, 300,000 with three and four) as the lanes at 8 and at 4 lanes and as
the scalar kernel. Printed: the medians of the rounds' games/s and of each round's ratios to the
C ring and to the scalar kernel, with the CPU's model name and the lane choice.

`tail`: the far tail a search reaches on two cores. Each round runs `bmn search --strategy walk
--workers 2` for --seconds on the lanes and on the scalar kernel (a throwaway store, keeping
every deal of 2,000 cards or more: search/benchmark.py's trial), then the C sampler (bmn.c's
`rand`: shuffle and play in one loop, a process on each core; with --bits its bit-queue build
too) for as long. Printed: games/s, deals of 2,500 cards or more and their rate; for the C
sampler the deals it would reach at its games/s (its games times the share of random deals
that long, from the fitted tail that bmn's odds use), so the ratio is of expected far-tail
finds a second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from c_baselines import games_per_s, model_name

DEALS = {2: 1_000_000, 3: 300_000, 4: 300_000}
KERNELS = ("lanes8", "lanes4", "scalar")
TAIL = 2_500


def time_c(args: argparse.Namespace, seats: int) -> float:
    if seats == 2:
        return games_per_s([args.ring, "bench", args.deals_file])
    return games_per_s([args.nseat, "bench", str(seats), "1", str(DEALS[seats])])


def time_bmn(seats: int, kernel: str) -> float:
    from bmn.kernels.cpu.benchmark import bench

    return bench(DEALS[seats], threads=1, players=seats, kernel=kernel).games_per_s


def kernels(args: argparse.Namespace) -> None:
    from bmn.kernels.cpu.choice import chosen

    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})  # this process's kernels, and every child
    print(f"machine: {model_name()}; bmn chooses {chosen().words()}")
    print(f"{args.rounds} alternating rounds, one thread; medians of games/s and of ratios")
    print("| seats | kernel | games/s | / C ring | / scalar kernel |")
    print("|---|---|---|---|---|")
    for seats in args.seats:
        for kernel in KERNELS:
            time_bmn(seats, kernel)  # compiled or loaded before any round
        rates: dict[str, list[float]] = defaultdict(list)
        for _ in range(args.rounds):
            rates["C ring"].append(time_c(args, seats))
            for kernel in KERNELS:
                rates[kernel].append(time_bmn(seats, kernel))
        for name, values in rates.items():
            ring = ratio(values, rates["C ring"])
            scalar = ratio(values, rates["scalar"])
            label = {"lanes8": "lanes, 8", "lanes4": "lanes, 4"}.get(name, name)
            print(
                f"| {seats} | {label} | {statistics.median(values):,.0f} | {ring:.2f} |"
                f" {scalar:.2f} |",
                flush=True,
            )


def ratio(mine: list[float], theirs: list[float]) -> float:
    """The median of the rounds' ratios (each round's pair measured side by side)."""
    return statistics.median(a / b for a, b in zip(mine, theirs, strict=True))


def tail(args: argparse.Namespace) -> None:
    from bmn.kernels.cpu import choice
    from bmn.search.benchmark import trial
    from bmn.search.measure.tail import tail_model

    share = tail_model(2, "cards").survival(TAIL)
    print(f"machine: {model_name()}; {args.seconds:g} s a trial on 2 workers, walk")
    print(f"share of random deals of {TAIL:,}+ cards (fitted tail): {share:.3g}")
    rows: dict[str, list[tuple[float, float]]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="bmn-lanes-tail-") as folder:
        for r in range(args.rounds):
            for kernel in ("lanes", "scalar"):
                choice.force(kernel)
                where = Path(folder) / kernel
                where.mkdir(exist_ok=True)
                run = trial("walk", 100 + r, args.seconds, 2, where)
                rows[kernel].append((run.rate, run.tail[TAIL] / run.seconds))
                print(f"  round {r + 1} {kernel}: {run.rate:,.0f} games/s, {run.tail[TAIL]} deals")
            for name, binary in samplers(args):
                rate = c_sampler(binary, args.seconds)
                rows[name].append((rate, rate * share))
                print(f"  round {r + 1} {name}: {rate:,.0f} games/s", flush=True)
    print("| contender | games/s | deals of 2,500+ a second | / C sampler (ring) |")
    print("|---|---|---|---|")
    for name, values in rows.items():
        tails = [t for _, t in values]
        against = ratio(tails, [t for _, t in rows["C sampler (ring)"]])
        rate = statistics.median(g for g, _ in values)
        print(f"| {name} | {rate:,.0f} | {statistics.median(tails):.2f} | {against:.2f} |")


def samplers(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The C samplers: bmn.c's ring buffers, and its bit-queues where --bits names them."""
    named = [("C sampler (ring)", args.ring)]
    return named + ([("C sampler (bits)", args.bits)] if args.bits else [])


def c_sampler(ring: str, seconds: float) -> float:
    """Games a second of two `ring rand` processes, one a core, each sized to about
    `seconds` by a short run first."""
    probe = games_per_s([ring, "rand", "200000", "1"])
    deals = str(int(probe * seconds))
    children = [
        subprocess.Popen([ring, "rand", deals, str(seed)], stdout=subprocess.PIPE, text=True)
        for seed in (1, 2)
    ]
    outputs = [child.communicate()[0] for child in children]
    return sum(float(out.split("games/s=")[1].split()[0]) for out in outputs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    k = sub.add_parser("kernels", help="one thread: lanes, scalar kernel, C ring")
    k.add_argument("--ring", required=True, help="the C ring simulator built from bmn.c")
    k.add_argument("--nseat", required=True, help="the C N-seat simulator from nseat.c")
    k.add_argument("--deals-file", default="deals.bin", help="bmn.c's `gen` output")
    k.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    k.add_argument("--rounds", type=int, default=5)
    k.add_argument("--cpu", type=int, help="pin every contender to this CPU")
    t = sub.add_parser("tail", help="two cores: the search's far tail against the C sampler")
    t.add_argument("--ring", required=True, help="the C ring simulator built from bmn.c")
    t.add_argument("--bits", help="the C bit-queue simulator built from bmn.c, beside it")
    t.add_argument("--seconds", type=float, default=25.0)
    t.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    kernels(args) if args.what == "kernels" else tail(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
