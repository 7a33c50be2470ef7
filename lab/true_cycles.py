"""True 3- and 4-seat cycles (every seat keeps cards for ever): each method for the same time,
single process, and the largest true cycle each found, replayed by the reference engine.

    nice -n 10 .venv/bin/python -m lab.true_cycles --seconds 60 --players 3
    nice -n 10 .venv/bin/python -m lab.true_cycles --seconds 60 --players 4 --methods grow

Methods (search/cycles/true_growth.py):
  hunt        random even deals of random sub-decks of the standard deck (the loop hunt's decks)
  heavy       the same on sub-decks of 24-36 numerals and few court cards (heavy_counts)
  beam        heavy hunt for half the time, then the plain insertion beam from its cycles
              (no moves, no backtracking, no jumps: the growth that reached 29 and 37 before)
  grow        heavy hunt for half the time, then growth with backtracking, moves, swaps, jumps
The methods measured and lost (pieces, descents, lift: docs/endless-games.md has their
figures) were deleted after commit c8d7263, which holds them.
Each prints one JSON line: the largest true cycle (cards, composition numerals,J,Q,K,A, its
most balanced state as a deal that is on the cycle at once, its period), whether the reference
engine plays that deal into a true cycle and whether no hand ever empties inside a trick, the
states scored, and when each larger size was first met. With --even, the largest cycle of all
is played backwards (kernels/cycles/backward_seats.py) for a deal dealt as evenly as possible.
"""

from __future__ import annotations

import argparse
import json
import random

from bmn.kernels.deal import format_deal
from bmn.kernels.decks import even_sizes
from bmn.search.cycles.true_cycles import (
    TrueCycle,
    holds_under,
    is_true_cycle,
    strict,
)
from bmn.search.cycles.true_growth import (
    GrowOptions,
    Growth,
    grow,
    heavy_counts,
    hunt,
)


def _seeded(seats: int, seconds: float, rng: random.Random, then) -> Growth:
    """Rounds of a heavy hunt for half the time left, then `then(new cycles, growth)` (which
    runs to the end or until it has nothing left to try)."""
    growth = Growth()
    while growth.elapsed() < seconds - 1:
        known = set(growth.cycles)
        half = growth.elapsed() + (seconds - growth.elapsed()) / 2
        hunt(seats, half, rng, counts=heavy_counts, growth=growth)
        then([c for k, c in growth.cycles.items() if k not in known], growth)
    return growth


def run(method: str, seats: int, seconds: float, seed: int) -> Growth:
    rng = random.Random(seed)
    if method == "hunt":
        return hunt(seats, seconds, rng)
    if method == "heavy":
        return hunt(seats, seconds, rng, counts=heavy_counts)
    if method == "beam":
        plain = GrowOptions(beam=20, moves=False, backtrack=False)
        return _seeded(seats, seconds, rng, lambda c, g: grow(c, seconds, rng, plain, g))
    if method == "grow":
        full = GrowOptions(beam=20, jumps=2000)
        return _seeded(seats, seconds, rng, lambda c, g: grow(c, seconds, rng, full, g))
    raise ValueError(f"unknown method {method}")


def describe(cycle: TrueCycle | None) -> dict:
    if cycle is None:
        return {"cards": 0}
    deal = cycle.most_balanced()
    return {
        "cards": cycle.cards,
        "composition": ",".join(map(str, cycle.counts)),
        "sizes": [len(h) for h in deal],
        "deal": format_deal(deal),
        "period_seated": cycle.period,
        "reference_true": is_true_cycle(deal),
        "holds_under": holds_under(deal),
        "strict": strict(cycle),
    }


def even_deal(cycle: TrueCycle, max_states: int) -> dict:
    """A deal of even hands (seat 0 first) falling into the cycle, by backward play."""
    from bmn.kernels.cycles.backward_seats import preimage_deals

    sizes = even_sizes(cycle.cards, cycle.seats)
    for found in preimage_deals(cycle.most_balanced(), sizes, max_states=max_states, mirror=True):
        return {"even_deal": format_deal(found.deal), "tricks_before": found.pre_tricks}
    return {"even_deal": None, "searched_states": max_states}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=[3, 4], default=3)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--methods", default="hunt,heavy,beam,grow", help="comma-separated")
    parser.add_argument("--even", type=int, default=0, help="backward states for an even deal")
    args = parser.parse_args()
    best: TrueCycle | None = None
    for method in args.methods.split(","):
        growth = run(method, args.players, args.seconds, args.seed)
        cycle = growth.best()
        line = {"method": method, "players": args.players, **describe(cycle)}
        line.update(cycles=len(growth.cycles), scored=growth.scored, history=growth.history)
        line["seconds"] = round(growth.elapsed(), 1)
        print(json.dumps(line), flush=True)
        if cycle is not None and (best is None or cycle.cards > best.cards):
            best = cycle
    if best is not None and args.even:
        print(json.dumps({"largest": best.cards, **even_deal(best, args.even)}), flush=True)


if __name__ == "__main__":
    main()
