"""From a cycle to its starting deals: which hand sizes reach it, and the most balanced deal.

Backward play (bmn.kernels.cycles.backward) visits the basin of a two-player cycle: every state
whose game falls into it. A basin state with seat 0 to lead is a starting deal; one with seat 1 to
lead, its hands swapped, is a starting deal that falls into the cycle with the seats swapped
(the same cycle up to seat numbering, one seat-blind key). `basin_splits` collects the hand
sizes of all of them and the nearest deal for each; `most_balanced` picks the even split
(26/26 for 52 cards) or the nearest to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bmn.kernels import reference
from bmn.kernels.cycles.backward import BasinSearch, basin
from bmn.kernels.cycles.loops import LOOP, Reading, analyse
from bmn.kernels.deal import Deal, format_deal


@dataclass(frozen=True)
class SplitFind:
    """The nearest starting deal (seat 0 to lead) with these hand sizes, and how many there are."""

    sizes: tuple[int, int]
    deal: Deal
    pre_tricks: int
    pre_cards: int
    mirrored: bool
    count: int

    def as_dict(self) -> dict:
        return {
            "sizes": list(self.sizes),
            "deal": format_deal(self.deal),
            "pre_tricks": self.pre_tricks,
            "pre_cards": self.pre_cards,
            "mirrored": self.mirrored,
            "count": self.count,
        }


@dataclass
class Splits:
    """Every hand split of the starting deals that reach a cycle (within the search limits)."""

    key: str
    period_cards: int
    period_tricks: int
    states: int = 0
    complete: bool = False
    by_sizes: dict[tuple[tuple[int, int], bool], SplitFind] = field(default_factory=dict)

    def most_balanced(self) -> SplitFind | None:
        """The deal with the most even hands, seat 0 first when the cards are odd (the even deal
        of docs/rules.md); a deal into the cycle itself before one into its mirror image."""
        if not self.by_sizes:
            return None
        total = sum(next(iter(self.by_sizes.values())).sizes)
        even = ((total + 1) // 2, total // 2)

        def rank(found: SplitFind) -> tuple:
            return (abs(found.sizes[0] - even[0]), found.sizes != even, found.mirrored)

        return min(self.by_sizes.values(), key=rank)

    def balanced(self) -> bool:
        best = self.most_balanced()
        if best is None:
            return False
        total = sum(best.sizes)
        return best.sizes == ((total + 1) // 2, total // 2)

    def as_dict(self) -> dict:
        best = self.most_balanced()
        return {
            "key": self.key,
            "period_cards": self.period_cards,
            "period_tricks": self.period_tricks,
            "basin_states": self.states,
            "basin_complete": self.complete,
            "balanced": self.balanced(),
            "most_balanced": None if best is None else best.as_dict(),
            "splits": sorted([*f.sizes, f.mirrored] for f in self.by_sizes.values()),
        }


def basin_splits(
    deal: Sequence[Sequence[int]], max_states: int | None = 200_000, rules: str | None = None
) -> Splits:
    """Play backwards from the cycle a looping two-hand deal falls into under `rules` (None:
    bmn's) and collect, for every hand split, the nearest starting deal (seat 0 to lead)
    reaching the cycle, exactly or with the seats swapped. ValueError if the deal does not
    loop."""
    loop = analyse(deal, rules=rules)
    if loop.status != LOOP or len(deal) != 2:
        raise ValueError(f"{format_deal(deal)} is not a looping two-hand deal")
    out = Splits(loop.rotation_key or "", loop.period_cards or 0, loop.period_tricks or 0)
    report = BasinSearch()
    cycle = [(s.hands, s.leader) for s in loop.states]
    for state in basin(cycle, max_states=max_states, report=report, reading=Reading.of(rules)):
        h0, h1 = state.hands
        mirrored = state.leader == 1
        start = (h1, h0) if mirrored else (h0, h1)
        sizes = (len(start[0]), len(start[1]))
        known = out.by_sizes.get((sizes, mirrored))
        if known is None:
            out.by_sizes[(sizes, mirrored)] = SplitFind(
                sizes, start, state.pre_tricks, state.pre_cards, mirrored, 1
            )
        else:
            out.by_sizes[(sizes, mirrored)] = SplitFind(
                sizes, known.deal, known.pre_tricks, known.pre_cards, mirrored, known.count + 1
            )
    out.states, out.complete = report.states, report.complete
    return out


def confirm(found: SplitFind, key: str, rules: str | None = None) -> bool:
    """Forward play: the deal loops (reference engine) into the cycle with this seat-blind key,
    under `rules` (None: bmn's)."""
    if reference.play(found.deal, rules=rules).status != LOOP:
        return False
    return analyse(found.deal, rules=rules).rotation_key == key
