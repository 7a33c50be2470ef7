"""Deals a second of the enumeration (bmn search --strategy every) against the kernel's bench on
random deals of the same deck, in the same process, alternating so both see the same load.

    .venv/bin/python benchmarks/every_bench.py --deck 14,2,2,2,0 --threads 1 --rounds 3

The enumeration walks the whole deck (or --deals of it) with the compiled loop
(search/enumeration/cpu.py: score, keep, next arrangement) on `threads` streams of equal rank
slices; the bench scores as many random deals of the deck, dealt into the same hands, with the
batch kernel (kernels/cpu/two.py's total_cards, as `bmn bench`; the N-seat batch scorer for 3
and 4 seats). Prints both rates and their ratio per round, and the best of each.

    .venv/bin/python benchmarks/every_bench.py --nseat --deck 14,2,2,2,0 --threads 2

With --nseat, one run measures 3 and 4 seats (hands as even as possible) against the N-seat
kernel's bench on random deals of the same deck in the same hands: the enumeration at 3 and 4
seats (target: at least 0.9 of the bench) and the 3-seat loop hunt (`bmn search --objective loop
--players 3 --deck DECK` into a scratch store: dealing, scoring, naming every loop's cycle and
storing; target: at least 0.8), the best round of each, and whether each target is met.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from bmn.kernels.cpu.two import total_cards
from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import counts_text, even_sizes, parse_deck
from bmn.kernels.ranks import arrangements, deck_of, unrank
from bmn.kernels.rng import seed_state
from bmn.kernels.score import numba_threads, score
from bmn.search.enumeration.cpu import score_run, warm_visit


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


def hunt_rate(counts, seats: int, deals: int, threads: int) -> float:
    """Deals a second of a loop hunt of `deals` deals of the deck round `seats` seats, as the
    run reports it (its own clock: from its first batch to its last commit)."""
    from bmn.records.store import Store
    from bmn.search.runs.kinds.loop_hunt import LoopHuntJob, LoopHuntOptions
    from bmn.search.runs.loop import RunLoop

    deck = counts_text(counts)
    options = LoopHuntOptions(iterations=deals, workers=threads, seed=1, deck=deck, players=seats)
    with tempfile.TemporaryDirectory() as scratch, Store(Path(scratch) / "hunt.sqlite") as store:
        summary = RunLoop(store, LoopHuntJob, options).run()
    return summary.games / summary.seconds


# --nseat: what is measured against the bench, and the least ratio each should reach.
TARGETS = {"every 3": 0.9, "every 4": 0.9, "loop hunt 3": 0.8}


def nseat(counts, deals: int | None, threads: int, rounds: int) -> None:
    """The enumeration at 3 and 4 seats and the 3-seat loop hunt, each against the bench on
    the same deck and hands, alternating round by round; then the best of each and the
    targets."""
    from bmn.search.runs.kinds.loop_hunt import warm_loop

    warm_visit()
    warm_loop()
    n = min(deals or arrangements(counts), arrangements(counts))
    sizes = {seats: even_sizes(sum(counts), seats) for seats in (3, 4)}
    for seats in (3, 4):
        bench_rate(counts, sizes[seats], 10_000, threads)
    best: dict[str, float] = {}
    for _ in range(rounds):
        measured = {
            "every 3": enumeration_rate(counts, sizes[3], n, threads),
            "bench 3": bench_rate(counts, sizes[3], n, threads),
            "loop hunt 3": hunt_rate(counts, 3, n, threads),
            "every 4": enumeration_rate(counts, sizes[4], n, threads),
            "bench 4": bench_rate(counts, sizes[4], n, threads),
        }
        print(json.dumps(measured), flush=True)
        best = {k: max(v, best.get(k, 0.0)) for k, v in measured.items()}
    ratios = {k: best[k] / best[f"bench {k[-1]}"] for k in TARGETS}
    summary = {"deck": counts_text(counts), "deals": n, "threads": threads, **best}
    summary["ratios"] = ratios
    summary["targets_met"] = {k: ratios[k] >= TARGETS[k] for k in TARGETS}
    print(json.dumps(summary))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", default="14,2,2,2,0")
    parser.add_argument("--hand-sizes", default=None)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=None, help="default: the whole deck")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--nseat", action="store_true", help="3 and 4 seats and the 3-seat loop hunt, one run"
    )
    args = parser.parse_args()
    counts = parse_deck(args.deck)
    if args.nseat:
        nseat(counts, args.deals, args.threads, args.rounds)
        return
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
