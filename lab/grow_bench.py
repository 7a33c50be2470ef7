"""Measure the piece hunt, bounded in time, and a grow run's recall against known cycles.

`bmn search --objective grow` runs the piece hunt as a stored, resumable search; this runs it
without a store:

    python -m lab.grow_bench pieces --seconds 60 --json cycles.jsonl

`pieces` runs the piece hunt (bmn.search.cycles.piece_hunt): closed pieces, standard-deck
cycles assembled from them, and for each the most balanced starting deal. Figures go to
stdout, with the seconds they took.

The half-period search (`halves`), measured and lost (docs/endless-games.md), was deleted
after commit c8d7263, which holds it.

`swaps` walks out from a peer's cycles (by default the Italian deck's, as `recall`), the ones
that swap roles or the others: every state of a cycle with two cards of different value swapped
or the cut moved by one or two cards, played by the compiled kernel; each new cycle that holds
the whole deck is walked from in turn, until none is new or --seconds are up. It says how many
cycles the walk met and which of them swap roles:

    python -m lab.grow_bench swaps --start others --seconds 300
    python -m lab.grow_bench swaps \\
        --deal=---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA

`recall` reads a grow run's store and says which of the cycles of a peer's looping deals it
found, and when (seconds after the run started): by default the 9 cycles of the Italian deck's
20/20 deals that N1k06/stracciacamicia's exhaustive search found (tests/data/peers/n1k06_40.csv).
Every peer deal and every stored deal is replayed by the reference engine first:

    bmn search --objective grow --deck 28,4,4,4,0 --hand-sizes 20,20 --workers 2 --seed 1 \
        --time 5m --store italian.sqlite
    python -m lab.grow_bench recall --store italian.sqlite
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime

import numpy as np

from bmn.kernels.config import LOOP as LOOPS  # a kernel's status code for a loop
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import parse_deal
from bmn.kernels.decks import counts_of
from bmn.kernels.reference import play
from bmn.kernels.score import score
from bmn.records.store import Store
from bmn.search.cycles.piece_hunt import HuntFind, HuntOptions, HuntState, hunt_chunk
from bmn.search.cycles.pieces import Control, controls_for, pieces_of

PEERS = "tests/data/peers/n1k06_40.csv"


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


def peer_cycles(path: str) -> dict[str, list[str]]:
    """The cycles of a peer file's looping deals (N1k06's digits: 0 a numeral, 1-3 J, Q, K;
    the first half to seat 0, which leads), seat-blind key -> its deals, each replayed."""
    cycles: dict[str, list[str]] = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["outcome"] != "INFINITO":
                continue
            deal = peer_deal(row["deck"])
            assert play(deal).status == LOOP, row["deck"]
            cycles.setdefault(analyse(deal).rotation_key, []).append(row["deck"])
    return cycles


def peer_deal(digits: str) -> tuple[list[int], list[int]]:
    """A deal of a peer file: its digits (0 a numeral, 1-3 J, Q, K), half to each seat."""
    cards = [int(c) for c in digits]
    return cards[: len(cards) // 2], cards[len(cards) // 2 :]


def _stamp(value: str | datetime) -> datetime:
    return value if isinstance(value, datetime) else datetime.fromisoformat(value.rstrip("Z"))


def run_recall(args: argparse.Namespace) -> None:
    cycles = peer_cycles(args.peers)
    with Store(args.store) as db:
        starts = {run.id: _stamp(run.started_at) for run in db.runs()}
        rows = {row.rotation_key: row for row in db.loops()}
    found = []
    for key, deals in cycles.items():
        deal = peer_deal(deals[0])
        loop = analyse(deal)
        row = rows.get(key)
        seconds = None
        if row is not None:
            stored = parse_deal(row.example_deal)
            assert play(stored).status == LOOP and analyse(stored).rotation_key == key
            seconds = (_stamp(row.found_at) - starts[row.run]).total_seconds()
            found.append(seconds)
        print(
            f"{'found' if row else 'not found':9} "
            f"{'' if seconds is None else f'{seconds:6.1f}s':>7} period {loop.period_tricks:3} "
            f"tricks, {_form(loop, deal):22}, "
            f"{len(deals):3} peer deals, {row.example_deal if row else key}"
        )
    last = f", the last after {max(found):.1f} s" if found else ""
    print(f"{len(found)} of {len(cycles)} cycles found{last}; {len(rows)} cycles in the store")


def run_swaps(args: argparse.Namespace) -> None:
    start = time.monotonic()
    seen: dict[str, bool] = {}  # cycle (seat-blind key) -> swaps roles
    queue = deque()
    if args.deal:
        loops = [analyse(parse_deal(text)) for text in args.deal]
        if any(loop.status != LOOP for loop in loops):
            raise SystemExit("grow_bench.py swaps: every --deal must loop")
    else:
        loops = [analyse(peer_deal(deals[0])) for deals in peer_cycles(args.peers).values()]
    for loop in loops:
        seen[loop.rotation_key] = loop.swaps_roles
        if args.deal or loop.swaps_roles == (args.start == "role-swapping"):
            queue.append(loop)
    peers = dict(seen)
    met: set[str] = set()
    played = 0
    while queue and time.monotonic() - start < args.seconds:
        loop = queue.popleft()
        deals = [n for s in loop.states for n in _neighbours(s.hands, s.leader)]
        rows, sizes = _batch(deals)
        found = score(rows, sizes)
        played += len(deals)
        for i in np.flatnonzero(found.status == LOOPS):
            cards, cut = deals[i]
            other = analyse((cards[:cut], cards[cut:]))
            key = other.rotation_key
            if peers.get(key) and key not in met:
                met.add(key)
                print(f"met a peer's role-swapping cycle, period {other.period_tricks} tricks")
            if key in seen:
                continue
            seen[key] = other.swaps_roles
            print(f"{'swaps roles' if seen[key] else 'new'}: period {other.period_tricks}, {key}")
            hands = other.states[0].hands
            if all(hands) and sum(map(len, hands)) == len(cards):  # the whole deck, both in
                queue.append(other)
    new = {key: swaps for key, swaps in seen.items() if key not in peers}
    print(
        f"{time.monotonic() - start:.1f}s: {played:,} states played, {len(new)} new cycles, "
        f"{sum(new.values())} of them role-swapping; {len(queue)} cycles left to walk from"
    )


def _neighbours(hands, leader: int) -> list[tuple[list[int], int]]:
    """A state's cards (seat to lead first) with two of different value swapped, or the cut
    between the hands moved by one or two cards: (cards, cut) pairs."""
    a, b = hands if leader == 0 else hands[::-1]
    cards, cut = list(a) + list(b), len(a)
    out = []
    for p in range(len(cards)):
        for q in range(p + 1, len(cards)):
            if cards[p] != cards[q]:
                swapped = cards[:]
                swapped[p], swapped[q] = cards[q], cards[p]
                out.append((swapped, cut))
    out += [(cards, cut + d) for d in (-2, -1, 1, 2) if 0 < cut + d < len(cards)]
    return out


def _batch(deals: list[tuple[list[int], int]]) -> tuple[np.ndarray, np.ndarray]:
    rows = np.array([cards for cards, _ in deals], dtype=np.uint8)
    sizes = np.array([(cut, len(cards) - cut) for cards, cut in deals], dtype=np.int64)
    return rows, sizes


def _form(loop, deal: tuple[list[int], list[int]]) -> str:
    """'swaps roles', or the first of the deck's controls (pieces.controls_for) whose closed
    pieces the cycle is made of, or 'no control'."""
    if loop.swaps_roles:
        return "swaps roles"
    for spec in controls_for(counts_of(deal[0] + deal[1])):
        if pieces_of(Control.from_spec(spec), deal):
            return f"pieces of {spec}"
    return "no control"


def _split(find: HuntFind) -> str:
    sizes = find.best.get("sizes", [0, 0])
    return f"{sizes[0]}/{sizes[1]}" + (" mirrored" if find.best.get("mirrored") else "")


def _imbalance(find: HuntFind) -> tuple:
    sizes = find.best.get("sizes", [0, 99])
    return abs(sizes[0] - sizes[1]), bool(find.best.get("mirrored"))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m lab.grow_bench", description=__doc__)
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
    r = sub.add_parser("recall", help="which of a peer's cycles a grow run's store holds")
    r.add_argument("--store", required=True, help="the grow run's record store")
    r.add_argument("--peers", default=PEERS, help="a peer file (N1k06's form) of looping deals")
    r.set_defaults(run=run_recall)
    w = sub.add_parser("swaps", help="cycles a swap of two cards away from a peer's cycles")
    w.add_argument("--start", choices=("others", "role-swapping"), default="others")
    w.add_argument("--deal", action="append", help="a looping deal to start from (--deal=T)")
    w.add_argument("--peers", default=PEERS, help="a peer file (N1k06's form) of looping deals")
    w.add_argument("--seconds", type=float, default=300.0)
    w.set_defaults(run=run_swaps)
    return p


def main(argv: Sequence[str] | None = None) -> None:
    args = parser().parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
