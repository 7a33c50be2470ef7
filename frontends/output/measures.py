"""Many games measured, in text: `bmn stats`' distribution and `bmn search-bench`'s table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bmn.frontends.output.tables import Block, Table, fit_summary
from bmn.kernels.api import DEFAULT as DEFAULT_RULES


def format_stats(figures: dict) -> list[Block]:
    """`bmn stats`: the deals line, a table of cards and tricks, the fitted tails."""
    from bmn.search.api import PERCENTILES, percentile_key

    looped = figures["looping"]
    heading = (
        f"deals: {figures['deals']:,} ({figures.get('players', 2)} players, seed "
        f"{figures.get('seed')}); finished {figures['finished']:,}; looping {looped:,} "
        f"({figures['loop_fraction']:.4%})"
    )
    head = ["", "mean", "median"] + [percentile_key(q) for q in PERCENTILES[1:]] + ["longest"]
    keys = ["mean"] + [percentile_key(q) for q in PERCENTILES] + ["longest"]
    rows, tails = [], []
    for name in ("cards", "tricks"):
        s = figures[name]
        rows.append([name] + [_number(s[k], 1 if k == "mean" else 0) for k in keys])
        if s["tail"] is not None:
            t = s["tail"]
            tails.append(
                f"{name} tail above {t['threshold']:,.0f}: tenfold rarer every "
                f"{t['tenfold']:,.1f} {name} (decay {t['rate']:.5f} per {name[:-1]})"
            )
    return [heading, Table(head, rows, left=(0,)), *tails]


def _number(value: float | None, decimals: int) -> str:
    """Table cells: the mean to a decimal, percentiles rounded (JSON keeps them exact)."""
    return "-" if value is None else f"{value:,.{decimals}f}"


def trial_line(strategy: str, seed: int, rate: float, best: int, tail: dict[int, int]) -> str:
    """`bmn search-bench`'s line as each trial ends: 'walk seed 1: 1,234,567 games/s, best
    3,210 cards, 12 deals of 2,000+ cards, 3 of 2,500+, 0 of 3,000+'."""
    counts = [
        f"{n:,} {'deal' if n == 1 else 'deals'} of {t:,}+ cards" if i == 0 else f"{n:,} of {t:,}+"
        for i, (t, n) in enumerate(sorted(tail.items()))
    ]
    return f"{strategy} seed {seed}: {rate:,.0f} games/s, best {best:,} cards, {', '.join(counts)}"


def bench_table(rows: Sequence[dict], thresholds: Sequence[int]) -> Table:
    """`bmn search-bench`: each strategy's rate and far-tail finds (rows of
    bmn.search.benchmark.table)."""
    head = ["strategy", "games/s", "vs bench", "best (median)"]
    head += [name for t in thresholds for name in (f">={t:,}/M", f">={t:,}/min")]
    body = [
        [
            row["strategy"],
            f"{row['rate']:,.0f}",
            f"{row['rate_vs_bench']:.2f}",
            f"{row['best_cards_median']:,.0f}",
        ]
        + [f"{row[f'per_{unit}_{t}']:,.2f}" for t in thresholds for unit in ("million", "minute")]
        for row in rows
    ]
    return Table(head, body, left=(0,))


def bench_line(
    deals: str, where: str, seconds: float, figures: Mapping[str, float], rules: str
) -> str:
    """`bmn bench`'s line, on the CPU or a GPU: '2,000,000 2-player deals on 2 threads in
    1.234 s: 1,234,567 games/s, ... cards/s; mean 310.52 cards, 44.12 tricks' (the rule set
    named after the deals where it is not bmn's)."""
    named = "" if rules == DEFAULT_RULES else f" ({rules}'s rules)"
    return fit_summary(
        f"{deals}{named} on {where} in {seconds:.3f} s: {figures['games_per_s']:,.0f} games/s,"
        f" {figures['cards_per_s']:,.0f} cards/s; mean {figures['mean_cards']:.2f} cards,"
        f" {figures['mean_tricks']:.2f} tricks"
    )


def kernels_line(
    mine: Mapping[str, float], other: Mapping[str, float], chosen: str, forced: bool
) -> str:
    """`bmn bench`'s second line: both CPU kernels' rates and which plays, 'lanes (8 games a
    step) 4,032,560 games/s, scalar 2,019,888 games/s: the lanes 2.00 times as fast; bmn
    plays lanes, 8 games a step (znver4, 512-bit vectors)'."""
    rates = {row["kernel"]: row for row in (mine, other)}
    lanes, scalar = rates["lanes"], rates["scalar"]
    ratio = lanes["games_per_s"] / max(scalar["games_per_s"], 1e-9)
    asked = ", as --kernel or BMN_KERNEL asks" if forced else ""
    return fit_summary(
        f"lanes ({lanes['lanes']} games a step) {lanes['games_per_s']:,.0f} games/s, scalar"
        f" {scalar['games_per_s']:,.0f} games/s: the lanes {ratio:.2f} times as fast;"
        f" bmn plays {chosen}{asked}"
    )
