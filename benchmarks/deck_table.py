"""The deck table of docs/endless-games.md: every deal of a deck, and grow's recall against it.

For each deck: `bmn search --strategy every --deck D --objective loop` (bmn's own command, into a
fresh store) visits every deal (even hands, seat 0 first and leading) and gives the deals, the
looping deals, the cycles (seat-blind keys) and the longest finished game; every looping deal
stored is replayed with the reference engine (kernels/reference.py) and must loop (a sample of
--replay of them when there are more). Then `bmn search --objective grow --deck D` runs for
--grow-seconds into another fresh store, and its recall is how many of the enumeration's cycles
it stored (grow also stores cycles no even deal reaches; they are counted apart).

    python benchmarks/deck_table.py                                  # the small decks
    nice -n 15 python benchmarks/deck_table.py --decks 16,2,2,2,2 --out big.jsonl

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
from bmn.kernels.deal import parse_deal
from bmn.kernels.decks import parse_deck
from bmn.kernels.ranks import arrangements
from bmn.records.store import Store

SMALL_DECKS = ["14,2,0,0,2", "14,2,2,2,0"]
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
    parser.add_argument("--decks", nargs="+", default=SMALL_DECKS, help="decks, each N,J,Q,K,A")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--grow-seconds", type=int, default=120)
    parser.add_argument("--replay", type=int, default=20_000, help="most looping deals replayed")
    parser.add_argument("--out", type=Path, default=None, help="append JSON lines here")
    parser.add_argument("--keep", type=Path, default=None, help="keep the stores in this folder")
    args = parser.parse_args()
    decks = args.decks
    print(HEADER.format(grow=args.grow_seconds), flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        for deck in decks:
            figures = one_deck(deck, work, args.workers, args.grow_seconds, args.replay)
            if figures["replayed_looping"] != figures["replayed"]:
                raise SystemExit(f"{deck}: a stored looping deal does not loop: {figures}")
            print(row(figures), flush=True)
            if args.out is not None:
                with args.out.open("a") as out:
                    out.write(json.dumps(figures) + "\n")


if __name__ == "__main__":
    main()
