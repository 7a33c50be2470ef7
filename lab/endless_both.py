"""Endless 3- and 4-player standard deals (18/17/17, 13 each, seat 0 to lead) that never end
under both readings of a seat out while paying: bmn's and Paulhus's (search/cycles/
both_readings.py). Prints a line a cycle and the deals found as JSON, each with its figures
under each reading from the reference engine.

    .venv/bin/python -m lab.endless_both steer --players 3 --seconds 120
    .venv/bin/python -m lab.endless_both filter --players 4 --seconds 240
    .venv/bin/python -m lab.endless_both paulhus --players 3 --seconds 240

steer: the elimination search refusing every trick in which a seat goes out while paying, so
each deal it builds plays alike under both readings. filter: the elimination search as bmn runs
it (lab/endless_nseat.py elimination), its deals kept when they loop under Paulhus's
reading too. paulhus: the elimination search with backward play under Paulhus's reading
(kernels/cycles/backward_seats.py), so every deal it builds loops under that reading; each is
listed whether or not it loops under bmn's too. The cycles: A (a grow run's), the published
cycle P and P entered at another state (docs/endless-games.md, "The standard deck"), the first
`--cycles` of `--store FILE` (after `--skip`), or those of `--cycle DEAL` (repeatable), each
searched for an equal share of the time; a cycle's line says `complete` when its search visited
every state it could reach.
"""

from __future__ import annotations

import argparse
import csv
import json
import time

from bmn.kernels.cycles.backward import BasinSearch, basin
from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.decks import even_sizes
from lab.cycles.both_readings import READINGS, outcomes, plays_alike, search

CYCLES = [
    "----AAJ-Q----K---Q-KQAJ--J/-----KA-K-J-----------Q---",  # A
    "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA",  # P
    "----K---Q-KQAJ-A----AAJ--J/-----------Q----KQ-K-J----",  # P entered elsewhere
]


def cycles_from(store: str, limit: int, skip: int) -> list[str]:
    """Up to `limit` two-seat standard-deck cycles' deals of a store (`bmn search --objective
    grow --store FILE` stores them), in the order found, after the first `skip`."""
    from bmn.records.store import Store

    with Store(store) as db:
        rows = [r for r in db.loops() if r.deck == "36,4,4,4,4" and r.seats == 2]
    return [r.example_deal for r in rows[skip : skip + limit]]


def figures(deal) -> dict:
    """The deal and its status, cards and tricks under each reading."""
    row: dict = {"deal": format_deal(deal), "alike": plays_alike(deal)}
    for rules, result in outcomes(deal).items():
        row[rules] = [result.status, result.cards, result.tricks]
    return row


COLUMNS = ["players", "deal", "alike", "period_cards", "period_tricks"] + [
    f"{rules}_{figure}" for rules in READINGS for figure in ("status", "cards", "tricks")
]


def write_csv(path: str, rows: list[dict]) -> None:
    """The deals found (figures' rows), longest game first, added to a CSV (header if new)."""
    with open(path, "a", newline="") as out:
        writer = csv.writer(out)
        if out.tell() == 0:
            writer.writerow(COLUMNS)
        for row in sorted(rows, key=lambda r: -r["bmn"][1]):
            deal = parse_deal(row["deal"])
            loop = outcomes(deal)["bmn"]
            line = [len(deal), row["deal"], row["alike"], loop.period_cards, loop.period_tricks]
            writer.writerow(line + [v for rules in READINGS for v in row[rules]])


def run(args) -> dict:
    sizes = even_sizes(52, args.players)
    report: dict = {"route": args.route, "players": args.players, "sizes": sizes}
    report.update(cycles=0, states=0, candidates=0, both=0, deals=[])
    begin = time.perf_counter()
    texts = args.cycle or (
        cycles_from(args.store, args.cycles, args.skip) if args.store else CYCLES
    )
    for text in texts:
        loop = analyse(parse_deal(text))
        cycle = [(s.hands, s.leader) for s in loop.states]
        states = [
            (b.hands, b.leader) for b in basin(cycle, max_states=args.basin, report=BasinSearch())
        ]
        share = args.seconds / len(texts)
        rules = "paulhus" if args.route == "paulhus" else "bmn"
        steer = args.route == "steer"
        reach = search(cycle, args.players, sizes, share, None, states, steer, rules)
        rows = [figures(hands) for hands, _ in reach.deals]
        needed = ("paulhus",) if args.route == "paulhus" else READINGS
        both = [r for r in rows if all(r[rules][0] == "loop" for rules in needed)]
        report["cycles"] += 1
        report["states"] += reach.states
        report["candidates"] += len(rows)
        report["both"] += len(both)
        report["deals"] += both
        line = {"cycle": text, "basin_states": len(states), "states": reach.states}
        line.update(gap=reach.best_gap, sizes=reach.sizes(), candidates=len(rows))
        line.update(both=len(both), complete=reach.complete, seconds=round(reach.seconds, 1))
        print(json.dumps(line), flush=True)
    report["seconds"] = round(time.perf_counter() - begin, 1)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("route", choices=["steer", "filter", "paulhus"])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--players", type=int, choices=[3, 4], default=3)
    parser.add_argument("--cycle", action="append", help="a deal into a cycle (these only)")
    parser.add_argument("--store", help="the two-seat cycles of a store instead")
    parser.add_argument("--cycles", type=int, default=10, help="at most, of the store's")
    parser.add_argument("--skip", type=int, default=0, help="of the store's cycles, first")
    parser.add_argument("--basin", type=int, default=5000, help="two-seat basin states")
    parser.add_argument("--csv", help="add the deals found to this CSV")
    args = parser.parse_args()
    report = run(args)
    if args.csv:
        write_csv(args.csv, report["deals"])
    print(json.dumps(report))


if __name__ == "__main__":
    main()
