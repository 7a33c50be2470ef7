"""The search for an endless 3-player (18/17/17) or 4-player (13 each) deal of the standard deck,
by two routes, each bounded in time; prints progress lines and the best reached as JSON.

    .venv/bin/python benchmarks/endless_nseat.py elimination --seconds 600
    .venv/bin/python benchmarks/endless_nseat.py true --seconds 600 --players 4

elimination: a seat goes out and the other two fall into a known two-seat standard-deck cycle.
Backward play from the cycle's states and its two-seat basin (kernels/cycles/backward.py), the
other seats out, where one trick back a seat out may have been in and gone out
(search/cycles/elimination.py), best first towards the hand sizes of a standard deal seated
from its leader. The cycles: the published one and any in `--store` (`bmn search --objective
grow` stores them). Reports the most balanced state reached (hand sizes seated from the leader:
-1 for a seat out) and any deal found, replayed by the reference engine.

true: cycles in which every seat keeps cards for ever, grown from the smallest (J--/-J-/-J-, and
-J-/-J-/-J-/-J- shapes for 4 seats) one card at a time: every state of every cycle in the beam,
with one card of the standard deck's remainder put anywhere in any hand, is scored by the N-seat
kernel (the seat to lead moved to seat 0); the deals that loop are named by their cycle
(search/runs/loop_hunt.name_loops), and those whose cycle keeps every seat in make the next
beam (at most `--beam`, drawn at random from the new ones). Reports, deck size by deck size,
how many such cycles were found, and the largest deck reached with its most balanced state.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np

from bmn.kernels import reference
from bmn.kernels.cycles.backward import BasinSearch, basin
from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import format_deal, format_hand, parse_deal
from bmn.kernels.decks import STANDARD_COUNTS, counts_of, even_sizes
from bmn.search.cycles.elimination import search

PUBLISHED = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"


def cycles_from(store: str | None, limit: int) -> list[str]:
    """The published cycle's deal, and up to `limit` standard-deck cycles' deals of a store."""
    deals = [PUBLISHED]
    if store:
        from bmn.records.store import Store

        with Store(store) as db:
            rows = [r for r in db.loops() if r.deck == "36,4,4,4,4" and r.seats == 2]
        deals += [r.example_deal for r in rows[:limit]]
    return deals


def state_text(hands, leader: int) -> str:
    return f"{leader}:" + "/".join("x" if h is None else format_hand(h) for h in hands)


def elimination(args) -> None:
    sizes = even_sizes(52, args.players)
    report: dict = {"route": "elimination", "players": args.players, "sizes": sizes}
    report.update(cycles=0, states=0, best_gap=None, best_sizes=None, best_state=None, deals=[])
    begin = time.perf_counter()
    deals = cycles_from(args.store, args.cycles)
    share = args.seconds / len(deals)
    for text in deals:
        loop = analyse(parse_deal(text))
        cycle = [(s.hands, s.leader) for s in loop.states]
        found = BasinSearch()
        states = [(b.hands, b.leader) for b in basin(cycle, max_states=args.basin, report=found)]
        reach = search(cycle, args.players, sizes, share, two_seat_basin=states)
        report["cycles"] += 1
        report["states"] += reach.states
        if report["best_gap"] is None or reach.best_gap < report["best_gap"]:
            report.update(best_gap=reach.best_gap, best_sizes=reach.sizes())
            report["best_state"] = state_text(*reach.best)
            report["best_cycle"] = text
        for hands, _ in reach.deals:
            ref = reference.play(hands)
            report["deals"].append({"deal": format_deal(hands), "reference": ref.status})
        line = {"cycle": text, "basin_states": len(states), "states": reach.states}
        line.update(gap=reach.best_gap, sizes=reach.sizes(), seconds=round(reach.seconds, 1))
        print(json.dumps(line), flush=True)
    report["seconds"] = round(time.perf_counter() - begin, 1)
    print(json.dumps(report))


SEEDS = {3: ["J--/-J-/-J-"], 4: ["J--/-J-/-J-/-J-"]}


def _seated(loop) -> list[tuple]:
    """A cycle's states, each seated from its leader (the kernel plays seat 0 first)."""
    return [s.hands[s.leader :] + s.hands[: s.leader] for s in loop.states]


def hunt_seeds(seats: int, seconds: float, rng: np.random.Generator, threads: int) -> dict:
    """Cycles keeping every seat in, from random even deals of random sub-decks of the standard
    deck (as `bmn search --objective loop --players N`): rotation key -> seated states."""
    from bmn.kernels.decks import deck_of
    from bmn.search.runs.loop_hunt import name_loops, random_batch, random_counts

    found: dict = {}
    begin = time.perf_counter()
    while time.perf_counter() - begin < seconds:
        deck = np.array(deck_of(random_counts(rng, seats)), dtype=np.uint8)
        rows, sizes = random_batch(rng, deck, 20_000, True, seats)
        for deal, _, _ in name_loops(rows, sizes, threads):
            loop = analyse(deal)
            if all(h is not None for h in loop.states[0].hands):
                found.setdefault(loop.rotation_key, _seated(loop))
    return found


def _rows(states, seats: int) -> tuple[np.ndarray, np.ndarray]:
    total = sum(len(h) for h in states[0])
    rows = np.zeros((len(states), total), dtype=np.uint8)
    sizes = np.zeros((len(states), seats), dtype=np.int64)
    for i, hands in enumerate(states):
        rows[i] = np.frombuffer(b"".join(bytes(h) for h in hands), dtype=np.uint8)
        sizes[i] = [len(h) for h in hands]
    return rows, sizes


def _gap(hands) -> int:
    sizes = [len(h) for h in hands]
    return max(sizes) - min(sizes)


def true_cycles(args) -> None:
    from bmn.search.runs.loop_hunt import name_loops

    seats = args.players
    rng = random.Random(args.seed)
    begin = time.perf_counter()
    seeds = {}  # rotation key -> a cycle's states (hands seated from the leader)
    for text in SEEDS[seats]:
        loop = analyse(parse_deal(text))
        seeds[loop.rotation_key] = _seated(loop)
    hunt_rng = np.random.default_rng(args.seed)
    seeds.update(hunt_seeds(seats, args.seconds * args.hunt_share, hunt_rng, args.threads))
    by_size: dict[int, dict] = {}
    for key, states in seeds.items():
        by_size.setdefault(sum(len(h) for h in states[0]), {})[key] = states
    print(json.dumps({"seeds": {n: len(c) for n, c in sorted(by_size.items())}}), flush=True)
    cards = min(by_size)
    beam = by_size[cards]
    largest, scored = None, 0
    while beam and time.perf_counter() - begin < args.seconds:
        best = min((hands for states in beam.values() for hands in states), key=_gap)
        largest = {"cards": cards, "cycles": len(beam), "sizes": [len(h) for h in best]}
        largest["most_balanced"] = "/".join(format_hand(h) for h in best)
        seconds = round(time.perf_counter() - begin, 1)
        print(json.dumps({**largest, "scored": scored, "seconds": seconds}), flush=True)
        if cards >= 52:
            break
        candidates = []
        for states in beam.values():
            held = counts_of(b"".join(bytes(h) for h in states[0]))
            left = [n - c for n, c in zip(STANDARD_COUNTS, held, strict=True)]
            for hands in states:
                for seat, hand in enumerate(hands):
                    for at in range(len(hand) + 1):
                        for value in (v for v, n in enumerate(left) if n):
                            new = tuple(hand[:at]) + (value,) + tuple(hand[at:])
                            candidates.append(hands[:seat] + (new,) + hands[seat + 1 :])
        grown = {}
        for part in range(0, len(candidates), 200_000):
            rows, sizes = _rows(candidates[part : part + 200_000], seats)
            scored += len(rows)
            for deal, _, _ in name_loops(rows, sizes, args.threads):
                loop = analyse(deal)
                if loop.rotation_key in grown or any(h is None for h in loop.states[0].hands):
                    continue  # known, or a cycle left after seats went out
                grown[loop.rotation_key] = _seated(loop)
            if time.perf_counter() - begin > args.seconds:
                break
        cards += 1
        grown.update(by_size.get(cards, {}))
        while not grown and any(n > cards for n in by_size):  # the next size the hunt found
            cards = min(n for n in by_size if n > cards)
            grown = dict(by_size[cards])
        keys = list(grown)
        rng.shuffle(keys)
        beam = {k: grown[k] for k in keys[: args.beam]}
    if largest is not None:
        deal = parse_deal(largest["most_balanced"])
        largest["reference"] = reference.play(deal).status
        largest["every_seat_in"] = all(h is not None for h in analyse(deal).states[0].hands)
    summary = {"route": "true", "players": seats, "largest": largest, "scored": scored}
    summary["seeds"] = {n: len(c) for n, c in sorted(by_size.items())}
    summary["seconds"] = round(time.perf_counter() - begin, 1)
    print(json.dumps(summary))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("route", choices=["elimination", "true"])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--players", type=int, choices=[3, 4], default=3)
    parser.add_argument("--store", default=None, help="elimination: grow's cycles from a store")
    parser.add_argument("--cycles", type=int, default=4, help="elimination: of the store's")
    parser.add_argument("--basin", type=int, default=5000, help="elimination: 2-seat states")
    parser.add_argument("--beam", type=int, default=200, help="true: cycles kept a deck size")
    parser.add_argument("--hunt-share", type=float, default=0.25, help="true: seeds' share")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.route == "elimination":
        elimination(args)
    else:
        true_cycles(args)


if __name__ == "__main__":
    main()
