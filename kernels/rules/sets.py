"""Rule sets: the points on which published engines read the rules differently, one named
choice on each (docs/rules.md, "Rule sets").

A rule set is plain data. The reference engine (kernels/reference.py) reads its fields plainly;
the compiled kernels are compiled on the fields that change play for a seat count
(kernels/rules/flags.py), so sets alike there share code, and a rule set costs compile time only
when it is used. `code` names each set with a small integer, one per set. `bmn`, the default,
is the reading that reproduces every published 2-player record; each field's first choice is
bmn's.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

# A seat that must pay and holds no card (3-4 seats; with 2 seats every reading is the same).
TAKER = "taker"  # the seat that laid the last court card takes the pile (bmn)
NEXT_PAYS = "next-pays"  # the seat drops out and the next seat still in pays the rest (Paulhus)

# When a seat with an empty hand is out.
WHEN_ASKED = "when-asked"  # when it must lay a card and holds none (bmn)
AT_ONCE = "at-once"  # as soon as it lays its last card: the game ends there (2 seats)

# When a trick leaves every other seat empty-handed.
AT_TRICK = "at-trick"  # the game finishes there (bmn)
PLAY_ON = "play-on"  # play goes on: the taker leads and each empty seat goes out when asked

# What `tricks` counts.
TAKEN = "taken"  # every pile taken, the last included (bmn)
WON = "won"  # piles won by a penalty paid in full; a pile left when the game stops is not one
BATTLES = "battles"  # court cards laid with no penalty owed (battles started), bar a game's last

# Where a loop is looked for.
AT_TRICKS = "tricks"  # trick-boundary states; figures when the repeat is seen there (bmn)
NO_LOOPS = "none"  # an endless game plays on to the limit (no limit: found as bmn finds it)
# Peers that look before every card (N1k06, pelagaletto2) find the same repeat: with 2 seats only
# a pile taken can lead two states into one, so a cycle is entered at a trick boundary.

# Where `limit` stops a game.
BEFORE_CARD = "card"  # before the card that would pass the limit (bmn)
AT_LEAD = "lead"  # at the first turn with no penalty owed once the limit is reached

CHOICES: dict[str, tuple[str, ...]] = {
    "out_while_paying": (TAKER, NEXT_PAYS),
    "empty_hand": (WHEN_ASKED, AT_ONCE),
    "finish": (AT_TRICK, PLAY_ON),
    "tricks": (TAKEN, WON, BATTLES),
    "loops": (AT_TRICKS, NO_LOOPS),
    "limit_at": (BEFORE_CARD, AT_LEAD),
}


@dataclass(frozen=True)
class RuleSet:
    """One reading of every point on which published engines differ."""

    name: str
    title: str  # one line, for tables and help
    source: str  # the engine or text it follows, with file and line
    out_while_paying: str = TAKER
    empty_hand: str = WHEN_ASKED
    finish: str = AT_TRICK
    tricks: str = TAKEN
    loops: str = AT_TRICKS
    limit_at: str = BEFORE_CARD
    players: tuple[int, ...] | None = None  # the seat counts it is defined for (None: any)
    code: int = 0  # a small integer naming the set: one per rule set

    def __post_init__(self) -> None:
        for field, choices in CHOICES.items():
            if getattr(self, field) not in choices:
                raise ValueError(f"unknown {field} {getattr(self, field)!r}")
        if self.empty_hand == AT_ONCE and self.players != (2,):
            raise ValueError("the at-once ending is defined for 2 seats only")

    def plays(self, players: int) -> bool:
        """Whether this rule set is defined for `players` seats."""
        return self.players is None or players in self.players

    @property
    def seat_counts(self) -> str:
        """The seat counts it is defined for, in words: '2', '3 or 4', or 'any'."""
        return " or ".join(map(str, self.players)) if self.players else "any"

    def choices(self, players: int) -> tuple[str, ...]:
        """Every choice as played by `players` seats: two sets play alike there when equal.

        With 2 seats a seat out while paying leaves one seat, the court card's, so both readings
        of that point give it the pile.
        """
        values = [getattr(self, field) for field in CHOICES]
        if players == 2:
            values[0] = TAKER
        return tuple(values)

    def plays_as(self, players: int) -> str:
        """The first rule set (in RULE_SETS' order) that plays exactly as this one with
        `players` seats: its own name unless an earlier one is the same there."""
        mine = self.choices(players)
        for other in RULE_SETS.values():
            if other.plays(players) and other.choices(players) == mine:
                return other.name
        return self.name


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
            "oli-sanders/BeggarMyNeighbour Readme.md:22 (rule 6)",
            out_while_paying=NEXT_PAYS,
            code=1,
        ),
        RuleSet(
            "n1k06",
            "N1k06's Italian tables and acinnes's first state machine: play on into an empty hand",
            "N1k06/stracciacamicia cuda-simulation/40_cards/inspect_hits_40.py:18-73 "
            "(check_infinite), limit as straccia_common.py:64; acinnes/bmn playbmn_fsm.cpp:479-493",
            finish=PLAY_ON,
            limit_at=AT_LEAD,
            players=(2,),
            code=2,
        ),
        RuleSet(
            "n1k06-gpu",
            "N1k06's capped counts (its GPU search): no loop check; the cap checked at a lead",
            "N1k06/stracciacamicia cuda-simulation/20_cards/straccia_common.py:56-98 (simulate)",
            loops=NO_LOOPS,
            limit_at=AT_LEAD,
            players=(2,),
            code=3,
        ),
        RuleSet(
            "at-once",
            "the game ends when a hand empties; the other seat takes the pile",
            "matthewmayer/beggarmypython PR #7 (commit c481e20), beggarmypython/__init__.py:71",
            empty_hand=AT_ONCE,
            players=(2,),
            code=4,
        ),
        RuleSet(
            "leodog896",
            "LeoDog896: the game ends when a hand empties; tricks are battles started",
            "LeoDog896/beggar-my-neighbour src/lib.rs:158-210",
            empty_hand=AT_ONCE,
            tricks=BATTLES,
            players=(2,),
            code=5,
        ),
        RuleSet(
            "pelagaletto2",
            "pelagaletto2 and ab0214: the game ends when a hand empties; only won piles count",
            "alessandro-gentilini/pelagaletto2 pelagaletto.cpp:188-296; "
            "ab0214/Beggar-My-Neighbour src/game/Game.cpp:10-81",
            empty_hand=AT_ONCE,
            tricks=WON,
            players=(2,),
            code=6,
        ),
    )
}

# Peers whose published figures one of the rule sets above reproduces as it stands.
ALIASES: dict[str, str] = {
    "acinnes": "bmn",  # acinnes/bmn's published figures (README.md): its fixed CUDA state machine
    "acinnes-fsm": "n1k06",  # acinnes/bmn playbmn_fsm.cpp, the state machine before that fix
    "exercism": "bmn",  # exercism/problem-specifications exercises/camicia/canonical-data.json
    "ab0214": "pelagaletto2",  # ab0214/Beggar-My-Neighbour src/game/Game.cpp:10-81
}

FIELDS = tuple(field.name for field in fields(RuleSet))


def names() -> tuple[str, ...]:
    """Every name a rule set answers to: the sets, then the aliases."""
    return (*RULE_SETS, *ALIASES)


def rule_set(name: str | RuleSet | None) -> RuleSet:
    """The rule set named (None: the default); ValueError naming the choices if none is."""
    if isinstance(name, RuleSet):
        return name
    if name is None:
        return RULE_SETS[DEFAULT]
    try:
        return RULE_SETS[ALIASES.get(name, name)]
    except KeyError:
        choices = ", ".join(names())
        raise ValueError(f"unknown rule set {name!r}; choose one of: {choices}") from None
