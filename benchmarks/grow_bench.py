"""Measure the ways of growing cycles, bounded in time: `python benchmarks/grow_bench.py`.

`bmn search --objective grow` runs the piece hunt as a stored, resumable search; this runs
and compares the engines without a store:

    python benchmarks/grow_bench.py grow --deck part:26 --variant insert --seconds 120
    python benchmarks/grow_bench.py pieces --seconds 60 --json cycles.jsonl

`grow` runs the insertion beam search (bmn.search.cycles.insertion_beam) from the cycles of random
deals of a deck, restarting from fresh seeds when a run dies out, and prints each generation and the
largest deck reached. `pieces` runs the piece hunt (bmn.search.cycles.piece_hunt): closed pieces,
standard-deck cycles assembled from them, and for each the most balanced starting deal.
Figures go to stdout; both print the seconds they took.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict

import numpy as np

from bmn.search.cycles.insertion_beam import (
    STANDARD_COUNTS,
    GrowOptions,
    GrowState,
    grow_chunk,
    seed_cycles,
    select,
)
from bmn.search.cycles.piece_hunt import HuntFind, HuntOptions, HuntState, hunt_chunk


def run_grow(args: argparse.Namespace) -> None:
    start = time.monotonic()
    rng = np.random.default_rng(args.seed)
    options = GrowOptions(
        variant=args.variant,
        order=args.order,
        beam=args.beam,
        states_per_cycle=args.states or None,
        cards=args.cards,
        samples=args.samples,
        drift=args.drift,
        threads=args.threads,
    )
    best, runs, cycles = None, Counter(), 0
    while time.monotonic() - start < args.seconds:
        seeds = _seeds(args, rng)
        if not seeds:
            continue
        state = GrowState.start(select(seeds, args.beam, rng), int(rng.integers(1 << 62)))
        print(f"{time.monotonic() - start:7.1f}s run {sum(runs.values())}: {len(seeds)} seeds")
        generation = 0
        while time.monotonic() - start < args.seconds and not state.dead:
            cycles += len(grow_chunk(state, options, items=4).new)
            if state.generation != generation:
                generation = state.generation
                print(f"{time.monotonic() - start:7.1f}s   {_generation(state)}", flush=True)
        runs[state.best.size] += 1
        if best is None or state.best.size > best.size:
            best = state.best
    print(
        f"{time.monotonic() - start:.1f}s: {sum(runs.values())} runs, largest deck reached "
        f"(cards: runs) {dict(sorted(runs.items()))}, {cycles} new cycles; largest "
        f"{best.size if best else 0} cards"
    )
    if best is not None:
        print(json.dumps(best.as_dict()))


def _seeds(args: argparse.Namespace, rng: np.random.Generator) -> list:
    """Seed cycles: from random deals of one deck, or (part:N) of random N-card parts of the
    standard deck, a new part for every `deals` deals, until `min_seeds` cycles or 30 s."""
    if not args.deck.startswith("part:"):
        deck = tuple(int(x) for x in args.deck.split(","))
        return seed_cycles(deck, args.deals, rng, args.threads)
    size, seeds, begun = int(args.deck[5:]), {}, time.monotonic()
    while len(seeds) < args.min_seeds and time.monotonic() - begun < 30:
        part = tuple(int(c) for c in rng.multivariate_hypergeometric(STANDARD_COUNTS, size))
        for c in seed_cycles(part, args.deals, rng, args.threads):
            seeds.setdefault(c.key, c)
    return list(seeds.values())


def _generation(state: GrowState) -> str:
    sizes = sorted({c.size for c in state.beam})
    periods = sorted(c.period_tricks for c in state.beam)
    kind = "drift" if state.drifting else "grow"
    return (
        f"generation {state.generation} ({kind}): beam {len(state.beam)}, decks {sizes[0]}-"
        f"{sizes[-1]} cards, periods {periods[0]}-{periods[-1]} tricks; {state.candidates:,} "
        f"candidates, {state.loops:,} loops, {len(state.seen)} cycles; largest {state.best.size}"
    )


def run_pieces(args: argparse.Namespace) -> None:
    start = time.monotonic()
    options = HuntOptions(small=args.small, small_leads=args.small_leads, tail=args.tail)
    options.basin_states = args.basin_states
    state = HuntState.start(args.seed)
    first = None
    while time.monotonic() - start < args.seconds:
        report = hunt_chunk(state, options)
        if report.new and first is None:
            first = time.monotonic() - start
        print(
            f"{time.monotonic() - start:7.1f}s chunk {state.chunks}: {len(state.pieces)} closed "
            f"pieces, {report.assembled} deals assembled, {len(report.new)} new cycles, "
            f"{len(state.cycles)} in all",
            flush=True,
        )
    finds = sorted(state.cycles.values(), key=_imbalance)
    if args.json:
        with open(args.json, "w") as out:
            for find in finds:
                out.write(json.dumps(asdict(find)) + "\n")
    periods = sorted({f.period_tricks for f in finds})
    print(
        f"{time.monotonic() - start:.1f}s: {state.assembled} deals assembled, {len(finds)} "
        f"distinct standard-deck cycles (first after {first or 0:.1f}s), periods {periods} "
        f"tricks; splits of the most balanced deals {dict(Counter(_split(f) for f in finds))}"
    )
    if finds:
        print(json.dumps(asdict(finds[0])))


def _split(find: HuntFind) -> str:
    sizes = find.best.get("sizes", [0, 0])
    return f"{sizes[0]}/{sizes[1]}" + (" mirrored" if find.best.get("mirrored") else "")


def _imbalance(find: HuntFind) -> tuple:
    sizes = find.best.get("sizes", [0, 99])
    return abs(sizes[0] - sizes[1]), bool(find.best.get("mirrored"))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python benchmarks/grow_bench.py", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grow", help="insertion beam search from random cycles of a deck")
    g.add_argument(
        "--deck", default="part:26", help="seed deck: numerals,J,Q,K,A, or part:N (random parts)"
    )
    g.add_argument("--min-seeds", type=int, default=8, help="seed cycles per run (part:N)")
    g.add_argument("--deals", type=int, default=50_000, help="random deals per seeding")
    g.add_argument("--variant", default="insert", choices=["insert", "multi"])
    g.add_argument("--order", default="any", choices=["numerals-first", "courts-first", "any"])
    g.add_argument("--beam", type=int, default=64)
    g.add_argument("--states", type=int, default=8, help="states per cycle (0: all)")
    g.add_argument("--cards", type=int, default=2, help="cards per candidate (multi)")
    g.add_argument("--samples", type=int, default=2000, help="candidates per state (multi)")
    g.add_argument("--drift", action=argparse.BooleanOptionalAction, default=True)
    g.set_defaults(run=run_grow)
    q = sub.add_parser("pieces", help="standard-deck cycles from closed pieces")
    q.add_argument("--small", default="J-", help="the small hand of the control state")
    q.add_argument("--small-leads", action="store_true")
    q.add_argument("--tail", default="-")
    q.add_argument("--basin-states", type=int, default=100_000)
    q.add_argument("--json", help="write every cycle found here, one JSON object a line")
    q.set_defaults(run=run_pieces)
    for s in (g, q):
        s.add_argument("--seconds", type=float, default=120.0)
        s.add_argument("--seed", type=int, default=1)
        s.add_argument("--threads", type=int, default=2)
    return p


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
