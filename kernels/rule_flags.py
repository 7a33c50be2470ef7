"""Which points of a rule set a compiled kernel must play differently, for a seat count.

A compiled kernel is specialised on the points where a rule set differs from the default
(kernels/rulesets.py), not on the rule set's name: two rule sets that play some seat count
alike run the same compiled code there (Paulhus's rule set is bmn's with two seats), and a
rule set costs compile time only where it differs. A kernel that meets a point it does not
play says so (its `for_rules` gives None) and the reference engine plays those deals.
"""

from __future__ import annotations

from dataclasses import fields

from bmn.kernels import rulesets
from bmn.kernels.rulesets import RuleSet

# RuleSet fields that describe a rule set rather than choose a rule.
_ABOUT = frozenset({"name", "title", "source", "code"})
# Points that cannot matter with two seats: with two, the next seat still in is the court
# card's layer, so out while paying both readings give it the pile.
_MULTI_SEAT = frozenset({"out_while_paying"})


def differences(rules: RuleSet, seats: int) -> dict[str, object]:
    """The points (field name -> value) on which `rules` plays `seats` seats unlike the default."""
    default = rulesets.rule_set(None)
    found = {}
    for field in fields(RuleSet):
        name = field.name
        if name in _ABOUT or (seats <= 2 and name in _MULTI_SEAT):
            continue
        if getattr(rules, name) != getattr(default, name):
            found[name] = getattr(rules, name)
    return found
