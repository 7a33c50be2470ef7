"""Rule sets: the points on which published engines read the rules differently, one named
choice on each (docs/rules.md, "Rule sets").

A rule set is plain data. The reference engine (kernels/reference.py) reads it plainly; the
compiled kernels read its `code`, a small integer each kernel is specialised on, so a rule set
costs compile time only when it is used. `bmn`, the default, is the reading that reproduces
every published 2-player record.
"""

from __future__ import annotations

from dataclasses import dataclass

# A seat that must pay and holds no card (3-4 seats; with 2 seats every reading is the same).
TAKER = "taker"  # the seat that laid the last court card takes the pile (bmn)
NEXT_PAYS = "next-pays"  # the seat drops out and the next seat still in pays the rest (Paulhus)

# When a seat with an empty hand is out.
WHEN_ASKED = "when-asked"  # when it must lay a card and holds none (bmn)
AT_ONCE = "at-once"  # as soon as its hand empties: the game ends there (2 seats)


@dataclass(frozen=True)
class RuleSet:
    """One reading of every point on which published engines differ."""

    name: str
    title: str  # one line, for tables and help
    source: str  # the engine or text it follows, with file and line
    out_while_paying: str = TAKER
    empty_hand: str = WHEN_ASKED
    code: int = 0  # what compiled kernels are specialised on: one per rule set

    def __post_init__(self) -> None:
        if self.out_while_paying not in (TAKER, NEXT_PAYS):
            raise ValueError(f"unknown out_while_paying {self.out_while_paying!r}")
        if self.empty_hand not in (WHEN_ASKED, AT_ONCE):
            raise ValueError(f"unknown empty_hand {self.empty_hand!r}")


DEFAULT = "bmn"

RULE_SETS: dict[str, RuleSet] = {
    rules.name: rules
    for rules in (
        RuleSet(
            "bmn",
            "bmn's reading: every published 2-player record",
            "docs/rules.md",
        ),
        RuleSet(
            "paulhus",
            "Paulhus (1999): a seat out while paying drops out; the next seat pays the rest",
            "oli-sanders/BeggarMyNeighbour README, rule 6",
            out_while_paying=NEXT_PAYS,
            code=1,
        ),
    )
}


def rule_set(name: str | RuleSet | None) -> RuleSet:
    """The rule set named (None: the default); ValueError naming the choices if none is."""
    if isinstance(name, RuleSet):
        return name
    if name is None:
        return RULE_SETS[DEFAULT]
    try:
        return RULE_SETS[name]
    except KeyError:
        choices = ", ".join(RULE_SETS)
        raise ValueError(f"unknown rule set {name!r}; choose one of: {choices}") from None
