"""Which points of a rule set a compiled kernel must play differently, for a seat count.

A compiled kernel is specialised on the points where a rule set differs from the default
(kernels/rules/sets.py), not on the rule set's name: two rule sets that play some seat count
alike run the same compiled code there (Paulhus's rule set is bmn's with two seats), and a
rule set costs compile time only where it differs. A kernel that meets a point it does not
play says so (its `for_rules` gives None) and the reference engine plays those deals.
"""

from __future__ import annotations

from dataclasses import fields

from bmn.kernels.config import MAX_SEATS
from bmn.kernels.rules import sets as rulesets
from bmn.kernels.rules.sets import RuleSet

# RuleSet fields that describe a rule set rather than choose a rule; and `limit_at`, which only
# a game stopped at a card limit reads: the kernels' batches play every game to its end.
_ABOUT = frozenset({"name", "title", "source", "code", "players", "limit_at"})
# Where a loop is looked for: the kernels prove loops at trick boundaries; under `loops` "none"
# (a peer that only stops at a limit) they report the loop they prove. So `loops` changes no
# compiled code.
_LOOPS = "loops"
# Points that cannot matter with two seats: with two, the next seat still in is the court
# card's layer, so out while paying both readings give it the pile.
_MULTI_SEAT = frozenset({"out_while_paying"})

# Two seats: the points kernels/rules/two_tricks.py plays, as its constants, by value.
_TWO_SEAT = {
    "empty_hand": ("AT_ONCE", {"when-asked": False, "at-once": True}),
    "finish": ("ASKED", {"at-trick": False, "play-on": True}),
    "tricks": ("TRICKS", {"taken": 0, "won": 1, "battles": 2}),
}


def differences(rules: RuleSet, seats: int) -> dict[str, object]:
    """The points (field name -> value) on which `rules` plays `seats` seats unlike the default."""
    default = rulesets.rule_set(None)
    found = {}
    for field in fields(RuleSet):
        name = field.name
        if name in _ABOUT or name == _LOOPS or (seats <= 2 and name in _MULTI_SEAT):
            continue
        if getattr(rules, name) != getattr(default, name):
            found[name] = getattr(rules, name)
    return found


def two_seat_flags(rules: RuleSet) -> tuple[tuple[str, object], ...] | None:
    """kernels/rules/two_tricks.py's constants for `rules` ((name, value) pairs, sorted), or
    None for a rule set with a two-seat point it does not play."""
    points = differences(rules, 2)
    flags: dict[str, object] = {"AT_ONCE": False, "ASKED": False, "TRICKS": 0}  # bmn's
    for point, value in points.items():
        if point not in _TWO_SEAT or value not in _TWO_SEAT[point][1]:
            return None
        constant, by_value = _TWO_SEAT[point]
        flags[constant] = by_value[value]
    if flags["ASKED"] and flags["TRICKS"] == 2:  # battles after the extra lead: not played
        return None
    return tuple(sorted(flags.items()))


def table_flags(rules: RuleSet, looping: bool = False) -> tuple[tuple[str, object], ...] | None:
    """kernels/cpu/nseat_table.py's constant for `rules` with 3 or 4 seats (NEXT_PAYS: a seat
    out while paying hands the rest to the next), or None for a rule set with another point
    the table does not play. `looping`: for games that loop (cycle ids: kernels/cpu/
    cycle_ids.py), which only that point reaches (the others part where a two-seat hand
    empties, which ends such a game), so every rule set has the table's flags."""
    points = differences(rules, MAX_SEATS)
    if not looping and set(points) - {"out_while_paying"}:
        return None
    return (("NEXT_PAYS", rules.out_while_paying == rulesets.NEXT_PAYS),)


def flags_tag(flags: tuple[tuple[str, object], ...]) -> str:
    """A name for compiled copies made for `flags` (Numba's cache keeps them apart by it)."""
    return "_".join(f"{name.lower()}{int(value)}" for name, value in flags)
