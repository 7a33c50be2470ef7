"""Deals a second of the enumeration (bmn search --strategy every) against the kernel's bench on
random deals of the same deck, in the same process, alternating so both see the same load.

    .venv/bin/python benchmarks/every_bench.py --deck 14,2,2,2,0 --threads 1 --rounds 3

The enumeration walks the whole deck (or --deals of it) with the compiled loop
(search/strategies/every.py: score, keep, next arrangement) on `threads` streams of equal rank
slices; the bench scores as many random deals of the deck, dealt into the same hands, with the
batch kernel (kernels/cpu/two.py's total_cards, as `bmn bench`; the N-seat batch scorer for 3
and 4 seats). Prints both rates and their ratio per round, and the best of each.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from bmn.kernels.cpu.two import total_cards
from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import even_sizes, parse_deck
from bmn.kernels.ranks import arrangements, deck_of, unrank
from bmn.kernels.rng import seed_state
from bmn.kernels.score import numba_threads, score
from bmn.search.strategies.every import score_run, warm_visit


def enumeration_rate(counts, sizes, deals: int, threads: int) -> float:
    """Deals a second over the first `deals` ranks, cut into `threads` equal slices."""
    cuts = [deals * t // threads for t in range(threads + 1)]
    starts = [unrank(cut, counts) for cut in cuts[:-1]]
    hands = np.array(sizes, dtype=np.int64)

    def walk(t: int) -> int:
        return score_run(starts[t], hands, cuts[t + 1] - cuts[t], 0, 1 << 40).done

    begin = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        done = sum(pool.map(walk, range(threads)))
    return done / (time.perf_counter() - begin)


def bench_rate(counts, sizes, deals: int, threads: int) -> float:
    """Deals a second of the batch kernel on `deals` random deals of the deck in these hands."""
    rows, hands = random_deals(deals, seed_state(1), deck=deck_of(counts), sizes=sizes)
    with numba_threads(threads):
        begin = time.perf_counter()
        if len(sizes) == 2:
            total_cards(rows, *sizes)
        else:
            score(rows, hands, threads)
        return deals / (time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", default="14,2,2,2,0")
    parser.add_argument("--hand-sizes", default=None)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=None, help="default: the whole deck")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    counts = parse_deck(args.deck)
    sizes = (
        tuple(int(n) for n in args.hand_sizes.split(","))
        if args.hand_sizes
        else even_sizes(sum(counts), args.players)
    )
    deals = min(args.deals or arrangements(counts), arrangements(counts))
    warm_visit()
    bench_rate(counts, sizes, 10_000, args.threads)  # compile or load, start threads
    rounds = []
    for _ in range(args.rounds):
        walk = enumeration_rate(counts, sizes, deals, args.threads)
        batch = bench_rate(counts, sizes, deals, args.threads)
        rounds.append({"every": walk, "bench": batch, "ratio": walk / batch})
        print(json.dumps(rounds[-1]), flush=True)
    best = {k: max(r[k] for r in rounds) for k in ("every", "bench")}
    summary = {"deck": args.deck, "sizes": sizes, "deals": deals, "threads": args.threads}
    print(json.dumps({**summary, **best, "ratio_of_best": best["every"] / best["bench"]}))


if __name__ == "__main__":
    main()
