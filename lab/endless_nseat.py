"""The search for an endless 3-player (18/17/17) or 4-player (13 each) deal of the standard deck,
by two routes, each bounded in time; prints progress lines and the best reached as JSON.

    .venv/bin/python -m lab.endless_nseat elimination --seconds 600
    .venv/bin/python -m lab.endless_nseat true --seconds 600 --players 4

elimination: a seat goes out and the other two fall into a known two-seat standard-deck cycle.
Backward play from the cycle's states and its two-seat basin (kernels/cycles/backward.py), the
other seats out, where one trick back a seat out may have been in and gone out
(lab/cycles/elimination.py), best first towards the hand sizes of a standard deal seated
from its leader. The cycles: the published one and any in `--store` (`bmn search --objective
grow` stores them), or only those of `--cycle DEAL` (repeatable), each searched for an equal
share of the time. Reports the most balanced state reached (hand sizes seated from the leader:
-1 for a seat out) and every deal found, replayed by the reference engine.

    .venv/bin/python -m lab.endless_nseat elimination --seconds 120 \
        --cycle=----AAJ-Q----K---Q-KQAJ--J/-----KA-K-J-----------Q---

true: cycles in which every seat keeps cards for ever, grown from the smallest (J--/-J-/-J-, and
-J-/-J-/-J-/-J- shapes for 4 seats) one card at a time: every state of every cycle in the beam,
with one card of the standard deck's remainder put anywhere in any hand, is scored by the N-seat
kernel (the seat to lead moved to seat 0); the deals that loop are named by their cycle
(search/runs/kinds/loop_hunt.name_loops), and those whose cycle keeps every seat in make the next
beam (at most `--beam`, drawn at random from the new ones). When no cycle one card larger is
found, up to `--plateau` rounds move one card of a state elsewhere (the same deck) for new
cycles to grow from. The seeds: the smallest cycles above, then, round after round, those a
loop hunt over random sub-decks finds in `--hunt-seconds`. Reports the seeds by deck size, and
the largest deck reached with its most balanced state.
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
from lab.cycles.elimination import search

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
    deals = args.cycle or cycles_from(args.store, args.cycles)
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
    from bmn.search.runs.kinds.loop_hunt import name_loops, random_batch, random_counts

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


def _insertions(beam: dict) -> list[tuple]:
    """Every state of every cycle with one card of the standard deck's remainder put anywhere."""
    out = []
    for states in beam.values():
        held = counts_of(b"".join(bytes(h) for h in states[0]))
        left = [v for v, (n, c) in enumerate(zip(STANDARD_COUNTS, held, strict=True)) if n > c]
        for hands in states:
            for seat, hand in enumerate(hands):
                for at in range(len(hand) + 1):
                    for value in left:
                        new = tuple(hand[:at]) + (value,) + tuple(hand[at:])
                        out.append(hands[:seat] + (new,) + hands[seat + 1 :])
    return out


def _moves(beam: dict) -> list[tuple]:
    """Every state of every cycle with one card taken out and put back anywhere else."""
    out = []
    for states in beam.values():
        for hands in states:
            for seat, hand in enumerate(hands):
                for at in range(len(hand)):
                    if len(hand) == 1:
                        continue  # every seat keeps a card
                    rest = hands[:seat] + (tuple(hand[:at]) + tuple(hand[at + 1 :]),)
                    rest += hands[seat + 1 :]
                    for to, other in enumerate(rest):
                        for put in range(len(other) + 1):
                            new = tuple(other[:put]) + (hand[at],) + tuple(other[put:])
                            out.append(rest[:to] + (new,) + rest[to + 1 :])
    return out


def _named(candidates: list[tuple], seats: int, args, seen: set) -> dict:
    """The cycles keeping every seat in that the candidates fall into, new to `seen` (which
    takes them): rotation key -> seated states; 'scored': how many candidates were scored."""
    from bmn.search.runs.kinds.loop_hunt import name_loops

    found: dict = {"scored": len(candidates)}
    for part in range(0, len(candidates), 200_000):
        rows, sizes = _rows(candidates[part : part + 200_000], seats)
        for deal, _, _ in name_loops(rows, sizes, args.threads):
            loop = analyse(deal)
            if loop.rotation_key in seen or any(h is None for h in loop.states[0].hands):
                continue  # known, or a cycle left after seats went out
            seen.add(loop.rotation_key)
            found[loop.rotation_key] = _seated(loop)
    return found


def _pick(cycles: dict, rng: random.Random, n: int) -> dict:
    keys = list(cycles)
    rng.shuffle(keys)
    return {k: cycles[k] for k in keys[:n]}


def true_cycles(args) -> None:
    seats = args.players
    rng = random.Random(args.seed)
    hunt_rng = np.random.default_rng(args.seed)
    begin = time.perf_counter()
    seen: set = set()
    report = {"route": "true", "players": seats, "largest": None, "scored": 0, "seeds": {}}
    first = {}
    for text in SEEDS[seats]:
        loop = analyse(parse_deal(text))
        first[loop.rotation_key] = _seated(loop)
    while time.perf_counter() - begin < args.seconds:  # rounds: hunt seeds, grow each
        seeds = first or hunt_seeds(seats, args.hunt_seconds, hunt_rng, args.threads)
        first = {}
        seeds = {k: v for k, v in seeds.items() if k not in seen}
        seen |= set(seeds)
        for states in seeds.values():
            n = sum(len(h) for h in states[0])
            report["seeds"][n] = report["seeds"].get(n, 0) + 1
            _note(report, min(states, key=_gap))
        for key in sorted(seeds, key=lambda k: -sum(len(h) for h in seeds[k][0])):  # largest first
            if time.perf_counter() - begin >= args.seconds:
                break
            _grow({key: seeds[key]}, seats, args, seen, rng, begin, report)
    report["seeds"] = dict(sorted(report["seeds"].items()))  # deck size -> cycles
    largest = report["largest"]
    if largest is not None:
        deal = parse_deal(largest["most_balanced"])
        largest["reference"] = reference.play(deal).status
        largest["every_seat_in"] = all(h is not None for h in analyse(deal).states[0].hands)
    report["seconds"] = round(time.perf_counter() - begin, 1)
    print(json.dumps(report))


def _note(report: dict, hands) -> None:
    """Keep `hands` (a state of a cycle keeping every seat in) as the largest reached if its
    deck is larger, or as large and more balanced."""
    known = report["largest"]
    rank = (sum(len(h) for h in hands), -_gap(hands))
    if known is None or rank > (known["cards"], min(known["sizes"]) - max(known["sizes"])):
        report["largest"] = {"cards": rank[0], "sizes": [len(h) for h in hands]}
        report["largest"]["most_balanced"] = "/".join(format_hand(h) for h in hands)


def _grow(beam: dict, seats: int, args, seen: set, rng, begin: float, report: dict) -> None:
    """Grow from a beam of cycles of one deck size until no larger cycle is found or the time
    is up; the largest deck reached (its most balanced state) goes into `report`."""
    plateau = 0
    while beam and time.perf_counter() - begin < args.seconds:
        cards = sum(len(h) for h in next(iter(beam.values()))[0])
        best = min((hands for states in beam.values() for hands in states), key=_gap)
        _note(report, best)
        seconds = round(time.perf_counter() - begin, 1)
        line = {"cards": cards, "cycles": len(beam), "sizes": [len(h) for h in best]}
        print(json.dumps({**line, "scored": report["scored"], "seconds": seconds}), flush=True)
        if cards >= 52:
            return
        grown = _named(_insertions(beam), seats, args, seen)
        report["scored"] += grown.pop("scored")
        if not grown and plateau < args.plateau:  # no cycle one card larger: move a card
            moved = _named(_moves(beam), seats, args, seen)
            report["scored"] += moved.pop("scored")
            if moved:
                plateau += 1
                beam = _pick(moved, rng, args.beam)
                continue
        plateau = 0
        beam = _pick(grown, rng, args.beam)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("route", choices=["elimination", "true"])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--players", type=int, choices=[3, 4], default=3)
    parser.add_argument("--store", default=None, help="elimination: grow's cycles from a store")
    parser.add_argument("--cycles", type=int, default=4, help="elimination: of the store's")
    parser.add_argument(
        "--cycle", action="append", help="elimination: a deal into a cycle (these only)"
    )
    parser.add_argument("--basin", type=int, default=5000, help="elimination: 2-seat states")
    parser.add_argument("--beam", type=int, default=200, help="true: cycles kept a deck size")
    parser.add_argument("--plateau", type=int, default=20, help="true: rounds of moves")
    parser.add_argument("--hunt-seconds", type=float, default=15.0, help="true: each hunt")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.route == "elimination":
        elimination(args)
    else:
        true_cycles(args)


if __name__ == "__main__":
    main()
