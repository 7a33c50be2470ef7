"""The published record games, shipped as package data, and their replay by the reference engine.

Two players: published.csv, the record games found and published since 1999. Three and four
players: nobody had published a table before bmn, so published_3.csv and published_4.csv hold
bmn's own longest finds (how each was found is in its note). Every file has one column per
hand, hand_1 (seat 0, who leads) to hand_N.
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass
from functools import cache
from importlib import resources

from bmn.kernels.deal import parse_deal
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.kernels.rules.sets import rule_set

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
    """A published game beside what the reference engine gives for it."""

    name: str
    year: int
    deal: str
    status: str
    cards: int
    tricks: int
    replayed_status: str
    replayed_cards: int
    replayed_tricks: int
    rules: str = DEFAULT_RULES  # the rule set replayed under; the published figures are bmn's

    @property
    def matches(self) -> bool:
        return (self.status, self.cards, self.tricks) == (
            self.replayed_status,
            self.replayed_cards,
            self.replayed_tricks,
        )

    def as_dict(self) -> dict:
        return {**asdict(self), "matches": self.matches}


def published_games(players: int = 2) -> list[PublishedGame]:
    """Every game of the `players`-seat table, in the order they were found."""
    name = FILES[players]
    text = resources.files("bmn.records").joinpath(name).read_text(encoding="utf-8")
    return [
        PublishedGame(
            row["name"],
            int(row["year"]),
            tuple(row[f"hand_{seat}"] for seat in range(1, players + 1)),
            row["status"],
            int(row["cards"]),
            int(row["tricks"]),
            row["note"],
        )
        for row in csv.DictReader(io.StringIO(text))
    ]


def replay_published(players: int = 2, rules: str | None = None) -> list[Replayed]:
    """Replay every game of the `players`-seat table through the reference engine, under
    `rules` (a rule set's name; None: bmn's, under which every table was published).

    Each table is replayed once per process and rule set: the games and the engine never
    change.
    """
    return list(_replayed(players, rule_set(rules).name))


@cache
def _replayed(players: int, rules: str) -> tuple[Replayed, ...]:
    from bmn.kernels.reference import play

    rows = []
    for game in published_games(players):
        result = play(parse_deal(list(game.hands)), rules=rules)
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
                rules,
            )
        )
    return tuple(rows)
