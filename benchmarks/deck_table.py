"""The deck table of docs/endless-games.md: every deal of a deck, and grow's recall against it.

For each deck: `bmn search --strategy every --deck D --objective loop` (bmn's own command, into a
fresh store) visits every deal (even hands, seat 0 first and leading) and gives the deals, the
looping deals, the cycles (seat-blind keys) and the longest finished game; every looping deal
stored is replayed with the reference engine (kernels/reference.py) and must loop (a sample of
--replay of them when there are more). Then `bmn search --objective grow --deck D` runs for
--grow-seconds into another fresh store, and its recall is how many of the enumeration's cycles
it stored (grow also stores cycles no even deal reaches; they are counted apart).

With --players 3 or 4 the enumeration deals the deck round that many seats (even_sizes: as even
as possible, seat 0 first and leading) and the row counts the cycles read back from the store by
kind: 'all-in' (every seat keeps cards for ever) and 'reduced' (left after seats went out), by
how many seats remain, each counted seat-bound (its key) and seat-blind (its rotation_key). The
longest finished game is replayed with the reference engine too. Grow is not run: it builds
two-seat cycles only, and the row says so.

    python benchmarks/deck_table.py                                  # the small decks
    nice -n 15 python benchmarks/deck_table.py --decks 16,2,2,2,2 --out big.jsonl
    nice -n 15 python benchmarks/deck_table.py --players 3 --decks 6,3,0,0,0 9,3,0,0,0

Prints one markdown row per deck as it finishes (stdout) and appends each deck's figures as a
JSON line to --out.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP
from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.decks import parse_deck
from bmn.kernels.ranks import arrangements
from bmn.records.store import Store

SMALL_DECKS = ["14,2,0,0,2", "14,2,2,2,0"]
SEATS_DECKS = {3: ["6,3,0,0,0", "9,3,0,0,0", "12,1,1,1,0"], 4: ["8,4,0,0,0", "8,2,2,0,0"]}
HEADER = (
    "| deck | deals | looping deals | cycles (seat-blind) | longest finished game | enumeration"
    " time | grow: cycles recalled in {grow} s | grow: other cycles |\n" + "|---" * 8 + "|"
)


def bmn(*args: str) -> dict:
    """Run `bmn ... --quiet --json` (this interpreter's bmn) and return its JSON summary."""
    command = [str(Path(sys.executable).with_name("bmn")), *args, "--quiet", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return json.loads(done.stdout)


def looping_deals(store: Path) -> list[str]:
    """Every looping deal the enumeration stored (status loop)."""
    with Store(store) as db:
        return [f.deal for f in db.all_finds() if f.status == "loop"]


def replay(deals: list[str], most: int, seed: int = 0) -> tuple[int, int]:
    """How many of (a sample of `most` of) these deals loop with the reference engine, and how
    many were replayed."""
    sample = deals if len(deals) <= most else random.Random(seed).sample(deals, most)
    looped = sum(reference.play(parse_deal(d)).status == LOOP for d in sample)
    return looped, len(sample)


def cycle_keys(store: Path) -> set[str]:
    with Store(store) as db:
        return {row.rotation_key for row in db.loops()}


def one_deck(deck: str, work: Path, workers: int, grow_seconds: int, most: int) -> dict:
    """A two-seat row's figures: the enumeration, the replays and grow's recall."""
    counts = parse_deck(deck)
    every_store = work / f"every-{deck}.sqlite"
    start = time.perf_counter()
    summary = bmn(
        "search", "--strategy", "every", "--deck", deck, "--objective", "loop",
        "--workers", str(workers), "--store", str(every_store),
    )  # fmt: skip
    seconds = time.perf_counter() - start
    loops = looping_deals(every_store)
    looped, replayed = replay(loops, most)
    keys = cycle_keys(every_store)
    grow_store = work / f"grow-{deck}.sqlite"
    grown = bmn(
        "search", "--objective", "grow", "--deck", deck, "--time", f"{grow_seconds}s",
        "--seed", "1", "--store", str(grow_store),
    )  # fmt: skip
    grow_keys = cycle_keys(grow_store)
    return {
        "deck": deck,
        "deals": arrangements(counts),
        "visited": summary["deals"],
        "hand_sizes": summary["hand_sizes"],
        "looping_deals": summary["loops"],
        "looping_deals_stored": len(loops),
        "replayed": replayed,
        "replayed_looping": looped,
        "cycles": len(keys),
        "seat_blind_cycles": summary.get("seat_blind_cycles"),
        "longest_cards": summary["best_cards"],
        "longest_tricks": summary["best_tricks"],
        "longest_deal": summary["best_deal"],
        "seconds": round(seconds, 1),
        "workers": workers,
        "grow_seconds": grow_seconds,
        "grow_rounds": grown["games"],
        "grow_cycles": len(grow_keys),
        "recalled": len(keys & grow_keys),
        "grow_other": len(grow_keys - keys),
    }


def cycles_by_kind(store: Path, players: int) -> dict:
    """The stored cycles by the seats they keep ('all-in' when every seat does, else 'reduced'
    with the seats left), each counted seat-bound (key) and seat-blind (rotation_key)."""
    with Store(store) as db:
        rows = db.loops()
    bound: dict[int, int] = {}
    blind: dict[int, set[str]] = {}
    for loop in rows:
        seats_in = loop.seats - len(loop.seats_out)
        if loop.seats != players or (seats_in == players) != (loop.kind == "all-in"):
            raise SystemExit(f"{loop.key}: {loop.seats} seats, {loop.kind}: not a {players}-seat")
        bound[seats_in] = bound.get(seats_in, 0) + 1
        blind.setdefault(seats_in, set()).add(loop.rotation_key)
    return {
        "cycles": len(rows),
        "seat_blind_cycles": len({loop.rotation_key for loop in rows}),
        # by seats kept on the cycle, most first: [seats in, seat-bound, seat-blind]
        "by_seats_in": [[n, bound[n], len(blind[n])] for n in sorted(bound, reverse=True)],
    }


def one_deck_seats(deck: str, work: Path, workers: int, most: int, players: int) -> dict:
    """A 3- or 4-seat row's figures: bmn's enumeration of every deal of `deck` round `players`
    seats, its cycles read back from the store by kind, every stored looping deal (or a sample
    of `most`) and the longest finished game replayed with the reference engine."""
    counts = parse_deck(deck)
    store = work / f"every-{players}-{deck}.sqlite"
    start = time.perf_counter()
    summary = bmn(
        "search", "--strategy", "every", "--players", str(players), "--deck", deck,
        "--objective", "loop", "--workers", str(workers), "--store", str(store),
    )  # fmt: skip
    seconds = time.perf_counter() - start
    loops = looping_deals(store)
    looped, replayed = replay(loops, most)
    cycles = cycles_by_kind(store, players)
    best = summary["best_deal"]
    longest_checked = None
    if best:
        game = reference.play(parse_deal(best))
        longest_checked = (game.status, game.cards, game.tricks) == (
            "finished", summary["best_cards"], summary["best_tricks"],
        )  # fmt: skip
    return {
        "deck": deck,
        "players": players,
        "deals": arrangements(counts),
        "visited": summary["deals"],
        "complete": summary["complete"],
        "hand_sizes": summary["hand_sizes"],
        "looping_deals": summary["loops"],
        "looping_deals_stored": len(loops),
        "replayed": replayed,
        "replayed_looping": looped,
        **cycles,
        "run_cycles": summary["cycles"],
        "run_seat_blind_cycles": summary["seat_blind_cycles"],
        "longest_cards": summary["best_cards"],
        "longest_tricks": summary["best_tricks"],
        "longest_deal": format_deal(parse_deal(best)) if best else "",
        "longest_checked": longest_checked,
        "seconds": round(seconds, 1),
        "workers": workers,
        "grow": "not run: grow builds two-seat cycles",
        "command": f"python benchmarks/deck_table.py --players {players} --decks {deck}",
    }


def check(r: dict) -> None:
    """Stop at a figure the reference engine or the store contradicts."""
    if r["replayed_looping"] != r["replayed"]:
        raise SystemExit(f"{r['deck']}: a stored looping deal does not loop: {r}")
    if r.get("longest_checked") is False:
        raise SystemExit(f"{r['deck']}: the reference engine plays the longest game otherwise: {r}")
    if "players" in r and (r["cycles"], r["seat_blind_cycles"]) != (
        r["run_cycles"], r["run_seat_blind_cycles"],
    ):  # fmt: skip
        raise SystemExit(f"{r['deck']}: the store's cycles are not the run's: {r}")


def seats_cycles(r: dict) -> tuple[str, str]:
    """The all-in and reduced cycles of a row in words: '1 (1 seat-blind)', and '3 left: 12
    (2 seat-blind); 2 left: 6 (1)'."""
    all_in, reduced = "none", []
    for seats_in, bound, blind in r["by_seats_in"]:
        if seats_in == r["players"]:
            all_in = f"{bound} ({blind} seat-blind)"
        else:
            reduced.append(f"{seats_in} left: {bound} ({blind} seat-blind)")
    return all_in, "; ".join(reduced) or "none"


SEATS_HEADER = (
    "| deck | seats, hands | deals | looping deals | all-in cycles | reduced cycles, by seats left"
    " | longest finished game | enumeration time | grow |\n" + "|---" * 9 + "|"
)


def seats_row(r: dict) -> str:
    """A 3- or 4-seat row of the table."""
    replay_note = (
        "" if r["replayed"] == r["looping_deals_stored"] else f", {r['replayed']:,} replayed"
    )
    all_in, reduced = seats_cycles(r)
    longest = (
        f"{r['longest_cards']:,} cards, {r['longest_tricks']:,} tricks (`{r['longest_deal']}`)"
        if r["longest_deal"]
        else "none"
    )
    sizes = "/".join(map(str, r["hand_sizes"]))
    return (
        f"| `{r['deck']}` | {r['players']}, {sizes} | {r['deals']:,} | {r['looping_deals']:,}"
        f"{replay_note} | {all_in} | {reduced} | {longest} | {r['seconds']:,.0f} s"
        f" | not run (two seats only) |"
    )


def row(r: dict) -> str:
    replay_note = (
        "" if r["replayed"] == r["looping_deals_stored"] else f", {r['replayed']:,} replayed"
    )
    return (
        f"| `{r['deck']}` | {r['deals']:,} | {r['looping_deals']:,}{replay_note} | {r['cycles']}"
        f" | {r['longest_cards']} cards, {r['longest_tricks']} tricks (`{r['longest_deal']}`)"
        f" | {r['seconds']:,.0f} s | {r['recalled']} of {r['cycles']} | {r['grow_other']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", nargs="+", default=None, help="decks, each N,J,Q,K,A")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="seats")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--grow-seconds", type=int, default=120)
    parser.add_argument("--replay", type=int, default=20_000, help="most looping deals replayed")
    parser.add_argument("--out", type=Path, default=None, help="append JSON lines here")
    parser.add_argument("--keep", type=Path, default=None, help="keep the stores in this folder")
    args = parser.parse_args()
    two = args.players == 2
    decks = args.decks or (SMALL_DECKS if two else SEATS_DECKS[args.players])
    print(HEADER.format(grow=args.grow_seconds) if two else SEATS_HEADER, flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        for deck in decks:
            if two:
                figures = one_deck(deck, work, args.workers, args.grow_seconds, args.replay)
            else:
                figures = one_deck_seats(deck, work, args.workers, args.replay, args.players)
            check(figures)
            print(row(figures) if two else seats_row(figures), flush=True)
            if args.out is not None:
                with args.out.open("a") as out:
                    out.write(json.dumps(figures) + "\n")


if __name__ == "__main__":
    main()
