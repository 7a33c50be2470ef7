"""The odds of a longer game in words (the figures: bmn.search.measure.odds): the live panel's
row and the search summary's line."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bmn.search.measure.odds import DealOdds, Milestone, Odds


def odds_row(odds: Odds, lines: bool = False) -> str:
    """The live panel's odds row, brief: how rare the best is, how lucky the run, the waits.
    With `lines`, each expected wait on a line of its own (a panel's cell wraps at spaces,
    and would part a name from its figure: 'Paulhus 1999' / '(4,791) ~3.6h')."""
    rarity = f"best is 1 random deal in {big_count(odds.one_in)}"
    row = f"{rarity}; {luck(odds.luckier_than, 'runs this size', longer_share(odds))}"
    row += " (estimate: fitted tail)"
    waits = [f"{milestone(m, odds.unit, False)} ~{long_wait(m.seconds)}" for m in odds.milestones]
    if odds.rate > 0 and waits:
        if lines:
            return "\n".join([row, "expected waits:", *(f"  {wait}" for wait in waits)])
        row = row.removesuffix(" (estimate: fitted tail)")
        row += f"; expected waits: {', '.join(waits)} (estimate: fitted tail)"
    return row


def milestone(m: Milestone, unit: str, with_unit: bool = True) -> str:
    """A milestone by its name, with its length where the name does not say it ('the record
    (2,500 cards)'; its unit left out in the live panel's brief row)."""
    if m.name.endswith(unit):
        return m.name
    return f"{m.name} ({m.length:,}{f' {unit}' if with_unit else ''})"


def odds_line(odds: Odds) -> str:
    """The odds in a sentence, for the run's summary and its log: what the estimate rests on,
    how rare the best is, how lucky the run, and the expected waits at its rate."""
    line = (
        f"odds (an estimate from {odds.model}): {odds.best:,} {odds.unit} is one random deal in"
        f" {big_count(odds.one_in)}; this run is"
        f" {luck(odds.luckier_than, f'runs of {odds.deals:,} random deals', longer_share(odds))}"
    )
    waits = [
        f"{milestone(m, odds.unit)} in about {long_wait(m.seconds)} (one deal in"
        f" {big_count(m.one_in)})"
        for m in odds.milestones
    ]
    if odds.rate > 0 and waits:
        line += f"; at {odds.rate:,.0f} games/s, expect {' and '.join(waits)}"
    return line


def deal_odds_line(odds: DealOdds) -> str:
    """`bmn play --odds`: how rare the deal's game is among random deals, by cards and tricks."""
    return (
        f"odds (an estimate from {odds.model}): a game at least {odds.cards:,} cards long is"
        f" one random deal in {_in(odds.cards_one_in)}; at least {odds.tricks:,} tricks, one"
        f" in {_in(odds.tricks_one_in)}"
    )


def _in(n: float) -> str:
    """big_count, with a tenth under 10: a short game is one deal in 1.3, not in 1."""
    return f"{n:.2g}" if n < 10 else big_count(n)


def luck(shorter: float, runs: str, longer: float | None = None) -> str:
    """'luckier than 80% of runs this size': `shorter` is the share of runs whose best is
    shorter, `longer` the rest (given when it was worked out apart, so that a share too near 1
    to tell from it in a float keeps its figure). One phrasing whatever the share, so a live
    row does not flip between two as the run goes on; a share near 0 or 1 as one run in so
    many, never as a floor ('under 0.01%') that hides how far past it the run is."""
    longer = 1 - shorter if longer is None else longer
    if shorter < 0.01:
        return f"luckier than only {_one_in(shorter)} {runs}"
    if longer < 0.01:
        return f"luckier than all but {_one_in(longer)} {runs}"
    return f"luckier than {shorter:.0%} of {runs}"


def _one_in(share: float) -> str:
    """'1 in 3.1 million': a share as one in so many."""
    if share <= 0:  # past a float's range: (1 - S)^n below 1e-308
        return "1 in more than 1e308"
    return f"1 in {big_count(1 / share)}"


def longer_share(odds: Odds) -> float:
    """1 - (1 - S)^n, the share of runs whose best is at least the run's, worked out without
    the rounding of 1 minus a share near 1 (the odds of a run barely begun)."""
    share = 1 / odds.one_in
    if share >= 1:
        return 1.0
    return -math.expm1(odds.deals * math.log1p(-share))


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
