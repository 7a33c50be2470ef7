"""The odds of a longer game: how lucky a run's best is, and how long its next milestone
should take at the run's rate.

Both come from the fitted tail of random deals' lengths (tail.py) for the run's seat count
and objective, reading the run's deals as so many random deals: true of `random`, and of
`walk` deal by deal (each swap leaves a uniformly random deal uniformly random, and a long
game's neighbours are rarely long); `climb` and `lahc` seek long games, so against this yardstick
they look lucky. The far tail is an extrapolation of the fit, so these are estimates.

- A best of length b is reached by S(b) of random deals: one in 1 / S(b). Of runs of n random
  deals, a share (1 - S(b))^n find nothing as long: the run is luckier than that share.
- A milestone m is reached by a deal with probability S(m), so at r deals a second the wait
  for the first is 1 / (r S(m)) seconds on average, however long the run has gone already.
"""

from __future__ import annotations

import functools
import math
from dataclasses import asdict, dataclass

from bmn.search.measure.tail import TailModel, tail_model

# The round figures a run aims at: the next multiple of these past its best.
ROUND = {"cards": 1000, "tricks": 100}


@dataclass(frozen=True)
class Milestone:
    """A length past the run's best: a round figure or the next game of the published table."""

    name: str  # '5,000 cards' or 'Kleber 1999'
    length: int
    one_in: float  # one random deal in this many reaches it
    seconds: float | None  # the expected wait at the run's rate (None: no rate yet)


@dataclass(frozen=True)
class Odds:
    """A run's best against the fitted tail, and the waits for its next milestones."""

    players: int
    unit: str  # cards or tricks
    best: int
    deals: int
    rate: float  # deals a second
    one_in: float  # one random deal in this many is as long as the best
    luckier_than: float  # the share of runs of `deals` random deals whose best is shorter
    milestones: tuple[Milestone, ...]
    model: str  # what the estimate rests on, in words

    def as_dict(self) -> dict:
        return {**asdict(self), "estimate": True}


def run_odds(
    objective: str, players: int, best_cards: int, best_tricks: int, deals: int, rate: float
) -> Odds | None:
    """The odds of a longest-game run (objective cards or tricks) with this best after `deals`
    deals at `rate` deals a second; None for other objectives, seat counts without a model, or
    before the run has a best."""
    model = tail_model(players, objective)
    best = best_tricks if objective == "tricks" else best_cards
    if model is None or best < 0 or deals <= 0:
        return None
    share = max(model.survival(best), 1e-300)  # past any game: no division by zero
    return Odds(
        players,
        model.unit,
        best,
        deals,
        rate,
        1 / share,
        shorter_share(share, deals),
        tuple(milestone(model, name, length, rate) for name, length in milestones(model, best)),
        model.describe(),
    )


def shorter_share(share: float, deals: int) -> float:
    """(1 - share)^deals: the chance that none of `deals` random deals reaches a length that
    `share` of them reach."""
    return math.exp(deals * math.log1p(-share)) if share < 1 else 0.0


def milestones(model: TailModel, best: int) -> list[tuple[str, int]]:
    """The run's next milestones, shortest first: the next round figure past its best, and the
    next game of the published table (bmn's own, for 3 and 4 seats) past it, if any."""
    step = ROUND[model.unit]
    figure = (best // step + 1) * step
    found = {figure: f"{figure:,} {model.unit}"}
    table = next_published(model.players, model.unit, best)
    if table is not None:
        name, length = table
        found.setdefault(length, name)
    return [(name, length) for length, name in sorted(found.items())]


def next_published(players: int, unit: str, best: int) -> tuple[str, int] | None:
    """The shortest finishing game of the `players`-seat table longer than `best` (by cards or
    tricks): (its name, its length), or None past them all."""
    longer = [(length, name) for length, name in _table(players, unit) if length > best]
    if not longer:
        return None
    length, name = min(longer)
    return name, length


@functools.cache
def _table(players: int, unit: str) -> tuple[tuple[int, str], ...]:
    """The finishing games of the `players`-seat table as (length in `unit`, name): read once,
    the display asks on every commit."""
    from bmn.records.report import published_ranking

    return tuple((getattr(game, unit), game.name) for game in published_ranking(players))


def milestone(model: TailModel, name: str, length: int, rate: float) -> Milestone:
    share = max(model.survival(length), 1e-300)
    return Milestone(name, length, 1 / share, 1 / (rate * share) if rate > 0 else None)


@dataclass(frozen=True)
class DealOdds:
    """How rare one deal's game is: of random standard deals of its seat count, one in
    `cards_one_in` finishes at least `cards` long (the same yardstick as a run's best)."""

    players: int
    cards: int
    tricks: int
    cards_one_in: float
    tricks_one_in: float
    model: str  # what the estimate rests on, in words

    def as_dict(self) -> dict:
        return {**asdict(self), "estimate": True}


def deal_odds(players: int, cards: int, tricks: int) -> DealOdds | None:
    """The odds of a finished game of `cards` cards and `tricks` tricks, any length, from the
    fitted tail the live display reads (run_odds' one_in); None for a seat count without one."""
    by_cards, by_tricks = tail_model(players, "cards"), tail_model(players, "tricks")
    if by_cards is None or by_tricks is None:
        return None
    model = f"the length tail fitted to {by_cards.deals:,} random {players}-seat deals"
    return DealOdds(
        players,
        cards,
        tricks,
        1 / max(by_cards.survival(cards), 1e-300),
        1 / max(by_tricks.survival(tricks), 1e-300),
        model,
    )
