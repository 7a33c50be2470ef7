"""What a low --keep-above costs: a search's games/s and store growth, against the default.

    python benchmarks/keep_above.py [--seconds 15] [--workers 2] [--thresholds 3000,1500,0]

Runs the same walk (same seed, same workers) for the same time with each threshold, each on a
fresh store in a temporary folder, the default threshold first as the baseline, and prints one
line per threshold: games/s, finds kept per second, store megabytes, and games/s as a ratio of
the baseline's. The kernels are compiled before the first timed run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path


def store_bytes(path: Path) -> int:
    """The store with its write-ahead log (a running store's rows may still be in the log)."""
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def measure(folder: Path, keep_above: int, seconds: float, workers: int, index: int = 0) -> dict:
    from bmn.records.store import Store
    from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
    from bmn.search.runs.loop import RunLoop

    path = folder / f"{index}-keep-{keep_above}.sqlite"  # a threshold may come twice
    options = LongestOptions(seconds=seconds, workers=workers, seed=1, keep_above=keep_above)
    with Store(path) as db:
        summary = RunLoop(db, LongestJob, options).run()
        finds = db.run_tally(summary.run)[0]
    return {
        "keep_above": keep_above,
        "games_per_s": summary.games / summary.seconds,
        "finds_per_s": finds / summary.seconds,
        "megabytes": store_bytes(path) / 1e6,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--thresholds", default="3000,1500,0", help="the first is the baseline")
    args = parser.parse_args(argv)
    from bmn.search.runs.kinds.longest import warm_search

    warm_search()
    thresholds = [int(t) for t in args.thresholds.split(",")]
    with tempfile.TemporaryDirectory() as folder:
        rows = [
            measure(Path(folder), t, args.seconds, args.workers, i)
            for i, t in enumerate(thresholds)
        ]
    base = rows[0]["games_per_s"]
    for row in rows:
        print(
            f"--keep-above {row['keep_above']:>5}: {row['games_per_s']:>11,.0f} games/s"
            f" ({row['games_per_s'] / base:6.3f} of the first), {row['finds_per_s']:>9,.0f}"
            f" finds/s, store {row['megabytes']:8.1f} MB after {args.seconds:g} s"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
