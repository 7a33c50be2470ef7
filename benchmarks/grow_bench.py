"""Measure the piece hunt, bounded in time: `python benchmarks/grow_bench.py pieces`.

`bmn search --objective grow` runs the piece hunt as a stored, resumable search; this runs it
without a store:

    python benchmarks/grow_bench.py pieces --seconds 60 --json cycles.jsonl

`pieces` runs the piece hunt (bmn.search.cycles.piece_hunt): closed pieces, standard-deck
cycles assembled from them, and for each the most balanced starting deal. Figures go to
stdout, with the seconds they took.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict

from bmn.search.cycles.piece_hunt import HuntFind, HuntOptions, HuntState, hunt_chunk


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
    q = sub.add_parser("pieces", help="standard-deck cycles from closed pieces")
    q.add_argument("--small", default="J-", help="the small hand of the control state")
    q.add_argument("--small-leads", action="store_true")
    q.add_argument("--tail", default="-")
    q.add_argument("--basin-states", type=int, default=100_000)
    q.add_argument("--json", help="write every cycle found here, one JSON object a line")
    q.set_defaults(run=run_pieces)
    for s in (q,):
        s.add_argument("--seconds", type=float, default=120.0)
        s.add_argument("--seed", type=int, default=1)
        s.add_argument("--threads", type=int, default=2)
    return p


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
