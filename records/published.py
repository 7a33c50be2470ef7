"""The published record games, shipped as package data, and their replay by the reference engine."""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass
from importlib import resources

from bmn.kernels.deal import parse_deal


@dataclass(frozen=True)
class PublishedGame:
    """One row of published.csv: hand_1 leads; cards and tricks as published."""

    name: str
    year: int
    hand_1: str
    hand_2: str
    status: str
    cards: int
    tricks: int
    note: str

    @property
    def deal(self) -> str:
        return f"{self.hand_1}/{self.hand_2}"


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

    @property
    def matches(self) -> bool:
        return (self.status, self.cards, self.tricks) == (
            self.replayed_status,
            self.replayed_cards,
            self.replayed_tricks,
        )

    def as_dict(self) -> dict:
        return {**asdict(self), "matches": self.matches}


def published_games() -> list[PublishedGame]:
    """Every published record game, in the order they were found."""
    text = resources.files("bmn.records").joinpath("published.csv").read_text(encoding="utf-8")
    return [
        PublishedGame(
            row["name"],
            int(row["year"]),
            row["hand_1"],
            row["hand_2"],
            row["status"],
            int(row["cards"]),
            int(row["tricks"]),
            row["note"],
        )
        for row in csv.DictReader(io.StringIO(text))
    ]


def replay_published() -> list[Replayed]:
    """Replay every published game through the reference engine."""
    from bmn.kernels.reference import play

    rows = []
    for game in published_games():
        result = play(parse_deal([game.hand_1, game.hand_2]))
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
            )
        )
    return rows
