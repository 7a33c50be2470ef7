"""The book of cycles a run keeps: every looping deal counted under its cycle's key, each new
cycle summarised once by backward play (two seats: kernels/cycles/backward.py; three or four:
backward_seats.py), and a cycle as the store keeps it, under the rule set the run plays. The
loop hunt and the enumeration both keep one."""

from __future__ import annotations

from dataclasses import dataclass, field

from bmn.kernels.cycles.backward import CycleSummary, summarise_cycle
from bmn.kernels.cycles.backward_seats import summarise_cycle as summarise_seats
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import Deal, format_deal
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.records.store import Loop
from bmn.records.store.loops import summarised
from bmn.search.runs.settings import default_of

# Backward-play states visited per new cycle, in search of its most balanced starting deal, by
# a two-seat loop hunt or enumeration (a grow run's default is its own: grow.py).
BASIN_STATES = default_of("basin_states", "loop")


@dataclass
class CycleFind:
    """One cycle: its summary, the first deal seen falling into it, how many did, and the rule
    set it was played under."""

    summary: CycleSummary
    first_deal: Deal
    deals_seen: int = 1
    rules: str = DEFAULT_RULES

    def as_dict(self) -> dict:
        return {
            **self.summary.as_dict(),
            "first_deal": format_deal(self.first_deal),
            "deals_seen": self.deals_seen,
            "rules": self.rules,
        }


@dataclass
class CycleBook:
    """The cycles a run has met: deals scored, loops seen, and the distinct cycles by key,
    each summarised once (the loop hunt's and the enumeration's)."""

    deals: int = 0
    loops: int = 0
    cycles: dict[str, CycleFind] = field(default_factory=dict)


def record_loop(
    hunt: CycleBook, deal: Deal, max_basin_states: int = 100_000, rules: str = DEFAULT_RULES
) -> CycleFind:
    """Count one looping deal (under `rules`) under its cycle's key, summarising the cycle if
    it is new."""
    loop = analyse(deal, rules=rules)
    if loop.status != LOOP or loop.key is None:
        raise ValueError(f"{format_deal(deal)} does not loop")
    hunt.loops += 1
    known = hunt.cycles.get(loop.key)
    if known is not None:
        known.deals_seen += 1
        return known
    find = hunt.cycles[loop.key] = new_cycle(deal, max_basin_states, rules)
    return find


def new_cycle(deal: Deal, max_basin_states: int = 100_000, rules: str = DEFAULT_RULES) -> CycleFind:
    """The cycle a looping deal falls into under `rules`, summarised by backward play under
    them (bounded by max_basin_states), with the deal as its first; counted nowhere yet."""
    summarise = summarise_cycle if len(deal) == 2 else summarise_seats  # 3 or 4 seats
    summary = summarise(deal, max_states=max_basin_states, rules=rules)
    return CycleFind(summary, deal, rules=rules)


def loop_record(find: CycleFind) -> Loop:
    """A hunt's cycle as the store keeps it."""
    return summarised(find.summary, find.first_deal, find.rules)
