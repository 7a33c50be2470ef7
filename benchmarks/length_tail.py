"""Fit the tail of random deals' game lengths (the model behind the odds bmn search shows) and
check it on held-out deals.

    python benchmarks/length_tail.py [--deals 40000000] [--seed 1001]
        [--holdout 20000000] [--holdout-seed 2002] [--players 2,3,4] [--threads N] [--check-only]

For each seat count, scores --deals random standard deals and fits S(x), the share of games at
least x cards (tricks) long (search/measure/tail.py: measured up to the 99th percentile, an
exponential past it), then scores --holdout other deals and prints, at the lengths the model
gives one deal in 10^3 ... 10^7, how many held-out deals the model expects to reach each length
and how many did (z: the difference in standard deviations, the held-out count's Poisson
noise with the fit's own error). Writes the models to search/measure/length_tail.json unless
--check-only. The defaults, 180 million deals, took 21 minutes on one thread of two busy cores
(2026-12-02); --threads spreads each batch over more.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "search" / "measure" / "length_tail.json"
SHARES = (1e-3, 1e-4, 1e-5, 1e-6, 1e-7)  # the lengths the check compares at


def fit_error(model, length: int) -> float:
    """The model's own relative error in S(length): its rate's, times the distance past the
    threshold, and its share past the threshold's (1 / sqrt of the deals there)."""
    past = model.above * model.deals
    return math.hypot(model.rate_se * max(length - model.threshold, 0), 1 / math.sqrt(past))


def holdout_rows(model, counts, holdout: int) -> list[dict]:
    """Expected and observed held-out deals at least as long as each length of SHARES."""
    reach = counts[::-1].cumsum()[::-1]  # reach[x]: held-out deals at least x long
    rows = []
    for share in SHARES:
        length = math.ceil(model.length_at(share))
        expected = holdout * model.survival(length)
        observed = int(reach[length]) if length < len(reach) else 0
        z = (observed - expected) / math.sqrt(expected + (expected * fit_error(model, length)) ** 2)
        rows.append({"length": length, "expected": expected, "observed": observed, "z": z})
    return rows


def main(argv: list[str] | None = None) -> None:
    from bmn.search.measure.tail import UNITS, fit_tail, length_counts

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=40_000_000)
    parser.add_argument("--seed", type=int, default=1001)
    parser.add_argument("--holdout", type=int, default=20_000_000)
    parser.add_argument("--holdout-seed", type=int, default=2002)
    parser.add_argument("--players", default="2,3,4")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--check-only", action="store_true", help="write no model file")
    args = parser.parse_args(argv)
    models, checks = [], []
    for players in (int(p) for p in args.players.split(",")):
        fitted = length_counts(args.deals, players, args.seed, args.threads)
        held = length_counts(args.holdout, players, args.holdout_seed, args.threads)
        for unit, counts, held_counts in zip(UNITS, fitted[:2], held[:2], strict=True):
            model = fit_tail(counts, players, unit, args.seed)
            models.append(model.as_dict())
            rows = holdout_rows(model, held_counts, args.holdout)
            checks.append({"players": players, "unit": unit, "holdout": args.holdout, "rows": rows})
            print(
                f"{players} seats, {unit}: past {model.threshold:,} ({model.above:.2%} of deals),"
                f" tenfold rarer every {model.tenfold:,.1f} (rate {model.rate:.6f}"
                f" +- {model.rate_se:.6f})"
            )
            for r in rows:
                print(
                    f"  >= {r['length']:>5,}: expected {r['expected']:>10,.1f},"
                    f" observed {r['observed']:>8,} (z {r['z']:+.2f})"
                )
    if not args.check_only:
        command = (
            f"python benchmarks/length_tail.py --deals {args.deals} --seed {args.seed}"
            f" --holdout {args.holdout} --holdout-seed {args.holdout_seed}"
            f" --players {args.players}"
        )
        write_models(command, models, checks)
        print(f"wrote {OUTPUT}")


def write_models(command: str, models: list[dict], checks: list[dict]) -> None:
    """The model file: JSON with one line per model and per check, to read and diff."""
    parts = [
        f' "command": {json.dumps(command)}',
        ' "models": [\n' + ",\n".join(f"  {json.dumps(m)}" for m in models) + "\n ]",
        ' "holdout": [\n' + ",\n".join(f"  {json.dumps(c)}" for c in checks) + "\n ]",
    ]
    OUTPUT.write_text("{\n" + ",\n".join(parts) + "\n}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
