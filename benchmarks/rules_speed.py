"""Each rule set's speed beside bmn's rules and the C baselines, in one run (issue 33's table).

    python benchmarks/rules_speed.py --ring ./ring --nseat ./nseat --cpu 1
    python benchmarks/rules_speed.py --ring ./ring --nseat ./nseat --cpu 1 \\
        --before /path/to/older/checkout/.venv/bin/bmn

For each seat count, each round times, back to back on one pinned CPU: the C ring-buffer
simulator (../shared/baseline: `bmn.c` for 2 seats, `nseat.c` for 3 and 4; build them as its
README says), this bmn's `bench` (kernels/cpu/benchmark.py, in this process, one thread) under every
rule set that plays those seats (kernels/rules/sets.py), and with `--before` an older bmn's `bmn
bench --threads 1 --json` (bmn's rules: an older bmn has no others). The rounds alternate, so a
disturbance of the shared machine falls on all alike; each figure is the median of the rounds,
and each ratio is taken between medians of this run: against the C ring, and against bmn's
rules. `bench` times play only (deals made and the kernel compiled or loaded before its clock
starts), every two-seat rule set through the same loop; the C simulators time their own play.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections import defaultdict

from c_baselines import games_per_s, model_name

from bmn.kernels.cpu.benchmark import bench
from bmn.kernels.rules.sets import names, rule_set

DEALS = {2: 1_000_000, 3: 300_000, 4: 300_000}


def rule_sets(seats: int) -> list[str]:
    """The rule sets that play `seats` seats (not their aliases), bmn's first."""
    return [n for n in names() if rule_set(n).name == n and rule_set(n).plays(seats)]


def time_rules(seats: int, deals: int, rules: str) -> float:
    """Games a second of this bmn's bench on one thread, under `rules`."""
    return bench(deals, threads=1, players=seats, rules=rules).games_per_s


def time_before(binary: str, seats: int, deals: int) -> float:
    """Games a second of an older bmn's `bmn bench` on one thread, under its own rules."""
    args = [binary, "bench", "--players", str(seats), "--threads", "1", "--deals", str(deals)]
    args += ["--json"]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return float(json.loads(out)["games_per_s"])


def time_ring(ring: str, nseat: str, seats: int, deals: int, deck_file: str) -> float:
    """Games a second of the C ring simulator: bmn.c on a deal file (2 seats), else nseat.c."""
    if seats == 2:
        args = [ring, "bench", deck_file]
    else:
        args = [nseat, "bench", str(seats), "1", str(deals)]
    return games_per_s(args)


def measure(seats: int, rounds: int, args: argparse.Namespace) -> dict[str, float]:
    """Median games a second of each contender over `rounds` alternating rounds."""
    times: dict[str, list[float]] = defaultdict(list)
    deals = DEALS[seats]
    for _ in range(rounds):
        times["C ring"].append(time_ring(args.ring, args.nseat, seats, deals, args.deals_file))
        if args.before:
            times["before: bmn"].append(time_before(args.before, seats, deals))
        for name in rule_sets(seats):
            times[name].append(time_rules(seats, deals, name))
    return {name: statistics.median(values) for name, values in times.items()}


def table(seats: int, medians: dict[str, float]) -> list[str]:
    """Rows of a markdown table: games/s, against the C ring, against bmn's rules."""
    ring, ours = medians["C ring"], medians["bmn"]
    rows = []
    for name, rate in medians.items():
        rows.append(f"| {seats} | {name} | {rate:,.0f} | {rate / ring:.2f} | {rate / ours:.2f} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ring", required=True, help="the C ring simulator built from bmn.c")
    parser.add_argument("--nseat", required=True, help="the C N-seat simulator from nseat.c")
    parser.add_argument("--deals-file", default="deals.bin", help="bmn.c's `gen` output")
    parser.add_argument("--before", help="an older bmn's command, timed under its own rules")
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", type=int, help="pin every contender to this CPU")
    args = parser.parse_args(argv)
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})  # this process's kernels, and every child
    print(f"machine: {model_name()}; {args.rounds} alternating rounds, medians, one thread")
    print("| seats | rule set | games/s | / C ring | / bmn's rules |")
    print("|---|---|---|---|---|")
    for seats in args.seats:
        for row in table(seats, measure(seats, args.rounds, args)):
            print(row, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
