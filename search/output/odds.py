"""The odds of a longer game in words (the figures: bmn.search.measure.odds): the live panel's
row and the search summary's line."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bmn.search.measure.odds import Odds


def odds_row(odds: Odds) -> str:
    """The live panel's odds row, brief: how rare the best is, how lucky the run, the waits."""
    rarity = f"best is 1 random deal in {big_count(odds.one_in)}"
    row = f"{rarity}; {luck(odds.luckier_than)} runs this size"
    waits = [
        f"{m.name if m.name.endswith(odds.unit) else f'{m.name} ({m.length:,})'}"
        f" ~{long_wait(m.seconds)}"
        for m in odds.milestones
    ]
    if odds.rate > 0 and waits:
        row += f"; expected waits: {', '.join(waits)}"
    return row + " (estimate: fitted tail)"


def odds_line(odds: Odds) -> str:
    """The odds in a sentence, for the run's summary and its log: what the estimate rests on,
    how rare the best is, how lucky the run, and the expected waits at its rate."""
    line = (
        f"odds (an estimate from {odds.model}): {odds.best:,} {odds.unit} is one random deal in"
        f" {big_count(odds.one_in)}; this run is {luck(odds.luckier_than)} runs of"
        f" {odds.deals:,} random deals"
    )
    waits = [
        f"{m.name if m.name.endswith(odds.unit) else f'{m.name} ({m.length:,} {odds.unit})'}"
        f" in about {long_wait(m.seconds)} (one deal in {big_count(m.one_in)})"
        for m in odds.milestones
    ]
    if odds.rate > 0 and waits:
        line += f"; at {odds.rate:,.0f} games/s, expect {' and '.join(waits)}"
    return line


def luck(shorter: float) -> str:
    """'luckier than 80% of': `shorter` is the share of runs whose best is shorter. One
    phrasing whatever the share, so a live row does not flip between two as the run goes on;
    a share near 0 or 1 gets the digits that tell it apart."""
    return f"luckier than {_percent(shorter)} of"


def _percent(share: float) -> str:
    if share > 0.9999:
        return "over 99.99%"
    if share < 0.0001:
        return "under 0.01%"
    return f"{share:.0%}" if 0.01 <= share <= 0.99 else f"{share:.2%}"


def big_count(n: float) -> str:
    """A count in words past a million: 9,600, 3.1 million, 42 billion, 2.5e15."""
    for size, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if size <= n < 1000 * size:
            return f"{n / size:.2g} {word}" if n < 10 * size else f"{n / size:,.0f} {word}"
    return f"{n:,.0f}" if n < 1e6 else _scientific(n)


def long_wait(seconds: float | None) -> str:
    """A wait from seconds to ages: 1s (the least), 40s, 9.5m, 3h, 4 days, 12 years, 3.2e7
    years."""
    if seconds is None:
        return "-"
    for size, unit in ((365.25 * 86400, " years"), (86400, " days"), (3600, "h"), (60, "m")):
        if seconds >= size:
            value = seconds / size
            if value >= 1e6:
                return _scientific(value) + unit
            return f"{value:.2g}{unit}" if value < 10 else f"{value:,.0f}{unit}"
    return f"{max(seconds, 1):.0f}s"


def _scientific(x: float) -> str:
    """2.5e15, not 2.5e+15."""
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa.removesuffix('.0')}e{int(exponent)}"
