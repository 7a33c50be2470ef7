"""The published record games, shipped as package data, and their replay by the reference engine.

Two players: published.csv, the record games found and published since 1999. Three and four
players: nobody had published a table before bmn, so published_3.csv and published_4.csv hold
bmn's own longest finds (how each was found is in its note). Every file has one column per
hand, hand_1 (seat 0, who leads) to hand_N, and a `rules` column: the rule set (docs/rules.md)
whose play its status, cards and tricks are. The 2-player records are all bmn's rules; the 3-
and 4-player tables add the endless deals bmn found under Paulhus's reading (`paulhus`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass
from functools import cache
from importlib import resources

from bmn.kernels.deal import parse_deal
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.kernels.rules.sets import RULE_SETS, rule_set

# Seats -> the package data file of that table.
FILES = {2: "published.csv", 3: "published_3.csv", 4: "published_4.csv"}


@dataclass(frozen=True)
class PublishedGame:
    """One row of a table: hands[0] leads; cards and tricks as published."""

    name: str
    year: int
    hands: tuple[str, ...]
    status: str
    cards: int
    tricks: int
    note: str
    rules: str = DEFAULT_RULES  # the rule set the figures are of: a replay under it gives them

    @property
    def hand_1(self) -> str:
        return self.hands[0]

    @property
    def hand_2(self) -> str:
        return self.hands[1]

    @property
    def deal(self) -> str:
        return "/".join(self.hands)


@dataclass(frozen=True)
class Replayed:
    """A published game beside what the reference engine gives for it, and whether it plays
    as published (`matches`: the one verifier's verdict, kernels/claims.py)."""

    name: str
    year: int
    deal: str
    status: str
    cards: int
    tricks: int
    replayed_status: str
    replayed_cards: int
    replayed_tricks: int
    rules: str = DEFAULT_RULES  # the rule set replayed under
    published_rules: str = DEFAULT_RULES  # the rule set the game's row claims its figures under
    matches: bool | None = None  # None: judged when made, from the figures above
    differs: str = ""  # how it differs, in the verifier's words ('' when it matches)

    def __post_init__(self) -> None:
        if self.matches is None:  # made from figures alone: the verifier judges them
            from bmn.kernels.claims import Claim, Stated, judge
            from bmn.kernels.reference import Result

            said = Stated(self.cards, self.tricks, self.status)
            claim = Claim.of(self.deal, said, self.rules)
            replayed = Result(self.replayed_status, self.replayed_cards, self.replayed_tricks, None)
            verdict = judge(claim, replayed)
            object.__setattr__(self, "matches", verdict.agrees)  # frozen: set once, here
            object.__setattr__(self, "differs", verdict.words("published"))

    def as_dict(self) -> dict:
        return asdict(self)


def published_games(players: int = 2) -> list[PublishedGame]:
    """Every game of the `players`-seat table, in the order they were found."""
    name = FILES[players]
    text = resources.files("bmn.records").joinpath(name).read_text(encoding="utf-8")
    return read_published(text, players, name)


def read_published(text: str, players: int, source: str = "the table") -> list[PublishedGame]:
    """The games of a table's CSV text (`source` names it in errors). ValueError for a table
    without a rules column, or a row whose rule set bmn does not know or that does not play
    `players` seats: its figures could not be replayed as it claims."""
    reader = csv.DictReader(io.StringIO(text))
    if "rules" not in (reader.fieldnames or ()):
        raise ValueError(f"{source}: no rules column (the rule set each row's figures are of)")
    games = []
    for line, row in enumerate(reader, start=2):
        games.append(
            PublishedGame(
                row["name"],
                int(row["year"]),
                tuple(row[f"hand_{seat}"] for seat in range(1, players + 1)),
                row["status"],
                int(row["cards"]),
                int(row["tricks"]),
                row["note"],
                _claimed(row["rules"], players, f"{source} line {line} ({row['name']})"),
            )
        )
    return games


def _claimed(name: str, players: int, where: str) -> str:
    """The rule set a row claims, by its own name (an alias would hide which one it is)."""
    if name not in RULE_SETS:
        choices = ", ".join(RULE_SETS)
        raise ValueError(f"{where}: unknown rule set {name!r}; choose one of: {choices}")
    if not RULE_SETS[name].plays(players):
        raise ValueError(f"{where}: the {name} rule set does not play {players} seats")
    return name


def replay_published(players: int = 2, rules: str | None = None) -> list[Replayed]:
    """Replay every game of the `players`-seat table through the reference engine: each under
    the rule set its row claims, or every one under `rules` (a rule set's name) when given.

    Each table is replayed once per process and rule set: the games and the engine never
    change.
    """
    return list(_replayed(players, None if rules is None else rule_set(rules).name))


@cache
def _replayed(players: int, rules: str | None) -> tuple[Replayed, ...]:
    from bmn.kernels.claims import REFERENCE, Claim, Stated, verify

    games = published_games(players)
    claims = [
        Claim.of(parse_deal(list(g.hands)), Stated(g.cards, g.tricks, g.status), rules or g.rules)
        for g in games
    ]
    rows = []
    for game, verdict in zip(games, verify(claims, REFERENCE), strict=True):
        result = verdict.result
        assert result is not None  # a row's rule set plays its seats (read_published)
        rows.append(
            Replayed(
                game.name,
                game.year,
                game.deal,
                game.status,
                game.cards,
                game.tricks,
                result.status,
                result.cards,
                result.tricks,
                verdict.claim.rules,
                game.rules,
                verdict.agrees,
                verdict.words("published"),
            )
        )
    return tuple(rows)
