"""Digests of the compiled kernels' results: one sha256 per (seats, rule set), to show that a
change to a kernel leaves every result bit for bit the same.

    python benchmarks/kernel_digest.py [--deals 1000000] [--seed 1] [--threads 1] [--save F]
    python benchmarks/kernel_digest.py --compare F

Each line hashes every result array (cards, tricks, status, winner and the loop fields, in
kernels/results.Scores' field order) of `--deals` random standard deals (kernels/dealer.py,
seeded) scored through kernels/score.score, the path every caller takes, under each rule set
bmn ships. A rule set no compiled kernel plays at a seat count is skipped (the reference
engine plays it; no kernel change reaches it). `--save` writes the lines to a file; `--compare`
prints each line against the file's and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from bmn.kernels.dealer import random_deals
from bmn.kernels.rng import seed_state
from bmn.kernels.rules.sets import RULE_SETS
from bmn.kernels.score import kernel_for, score


def digest(seats: int, rules: str, deals: int, seed: int, threads: int) -> str | None:
    """The sha256 of the results of `deals` random deals, or None if no kernel plays them."""
    if kernel_for(seats, rules=rules) is None:
        return None
    batch, sizes = random_deals(deals, seed_state(seed), seats)
    out = score(batch, sizes, threads=threads, rules=rules)
    h = hashlib.sha256()
    for array in out.arrays():
        h.update(array.astype("<i8").tobytes())
    return h.hexdigest()


def lines(deals: int, seed: int, threads: int, seats: list[int]) -> list[str]:
    """One line per (seats, rule set) a kernel plays: `seats rule-set sha256`."""
    found = []
    for n in seats:
        for name in RULE_SETS:
            value = digest(n, name, deals, seed, threads)
            if value is not None:
                found.append(f"{n} {name} {value}")
                print(found[-1], flush=True)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    parser.add_argument("--save", type=Path, help="write the digests to this file")
    parser.add_argument("--compare", type=Path, help="compare with digests saved before")
    args = parser.parse_args(argv)
    found = lines(args.deals, args.seed, args.threads, args.seats)
    if args.save:
        args.save.write_text("\n".join(found) + "\n")
    if args.compare:
        before = set(args.compare.read_text().split("\n")) - {""}
        differ = [line for line in found if line not in before]
        print(f"{len(found) - len(differ)} of {len(found)} digests equal to {args.compare}")
        for line in differ:
            print(f"differs: {line}")
        return 1 if differ else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
