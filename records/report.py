"""The data behind `bmn records`: JSON lists, CSV export, and ranking against the published
record games. Pure functions over store rows; no SQL here, and no text layout
(search/output/records.py draws the tables)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from bmn.kernels.decks import STANDARD_COUNTS_TEXT
from bmn.records.published import PublishedGame, published_games
from bmn.records.store import FIND_KEYS, TOP_KEYS, FindRow, LoopRow, Run

# -- top, runs, loops, export ----------------------------------------------------------------


def top_json(rows: Sequence[FindRow]) -> str:
    return json.dumps([row.as_dict(TOP_KEYS) for row in rows])


def runs_json(runs: Sequence[Run]) -> str:
    return json.dumps([run.as_dict() for run in runs])


LOOP_KEYS = (
    "key",
    "rotation_key",
    "deck",
    "period_cards",
    "period_tricks",
    "balanced_reachable",
    "balanced_deals",
    "basin_complete",
    "example_deal",
    "times_seen",
    "run",
    "found_at",
)


def loops_json(rows: Sequence[LoopRow]) -> str:
    return json.dumps([{k: row.as_dict()[k] for k in LOOP_KEYS} for row in rows])


STANDARD_DECK = STANDARD_COUNTS_TEXT
# `records loops --standard`: the stored deal (`deal`, the most balanced starting deal found),
# its hand sizes, and whether an even deal reaches the cycle (either way round the seats).
STANDARD_KEYS = (
    "deal",
    "split",
    "balanced",
    "period_cards",
    "period_tricks",
    "rotation_key",
    "key",
    "balanced_deals",
    "mirrored_balanced_deals",
    "basin_states",
    "basin_complete",
    "first_deal",
    "times_seen",
    "run",
    "found_at",
)


def standard_loops(rows: Sequence[LoopRow]) -> list[dict[str, Any]]:
    """The standard-deck cycles, one per seat-blind key (the row with the most even deal), the
    most balanced deals first, then in the order found."""
    best: dict[str, LoopRow] = {}
    for row in rows:
        if row.deck != STANDARD_DECK:
            continue
        known = best.get(row.rotation_key)
        if known is None or _imbalance(row) < _imbalance(known):
            best[row.rotation_key] = row
    out = []
    for row in sorted(best.values(), key=_imbalance):
        d = row.as_dict()
        sizes = [len(hand) for hand in row.example_deal.split("/")]
        d.update(
            deal=row.example_deal,
            split="/".join(map(str, sizes)),
            balanced=bool(row.balanced_deals or row.mirrored_balanced_deals),
        )
        out.append({k: d[k] for k in STANDARD_KEYS})
    return out


def _imbalance(row: LoopRow) -> int:
    sizes = [len(hand) for hand in row.example_deal.split("/")]
    return max(sizes) - min(sizes)


def export_csv(rows: Iterable[FindRow], out: IO[str]) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIND_KEYS)
    for row in rows:
        writer.writerow(row.as_dict(FIND_KEYS).values())


def export_json(rows: Iterable[FindRow], out: IO[str]) -> None:
    """A JSON list written row by row, so a large store never sits in memory at once."""
    out.write("[")
    for i, row in enumerate(rows):
        out.write(("," if i else "") + "\n" + json.dumps(row.as_dict(FIND_KEYS)))
    out.write("\n]\n")


# -- ranking against the published records ------------------------------------------------


def published_ranking(players: int = 2) -> list[PublishedGame]:
    """The `players`-seat table's games that finish, longest first (loops are not ranked by
    length)."""
    games = [game for game in published_games(players) if game.status == "finished"]
    return sorted(games, key=lambda game: -game.cards)


@dataclass(frozen=True)
class Rank:
    """Where a deal of `cards` cards stands among the published finishing records."""

    rank: int
    of: int
    published: str | None  # the name, when the deal is itself a published record

    def as_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "of": self.of, "published": self.published}


def rank_among(deal: str, cards: int, ranking: Sequence[PublishedGame]) -> Rank:
    """A published deal keeps its own place; any other deal ranks as if added to the list,
    level with the published games of equal length."""
    for i, game in enumerate(ranking, start=1):
        if game.deal == deal:
            return Rank(i, len(ranking), game.name)
    return Rank(1 + sum(game.cards > cards for game in ranking), len(ranking) + 1, None)


def compare_json(
    rows: Sequence[FindRow], ranking: Sequence[PublishedGame], players: int = 2
) -> str:
    published = [
        {"rank": i, "name": g.name, "year": g.year, "deal": g.deal}
        | {"cards": g.cards, "tricks": g.tricks}
        for i, g in enumerate(ranking, start=1)
    ]
    finds = [
        row.as_dict(TOP_KEYS) | rank_among(row.deal, row.cards, ranking).as_dict() for row in rows
    ]
    return json.dumps({"players": players, "published": published, "finds": finds})


# -- show ------------------------------------------------------------------------------------


def show_dict(
    deal: str, result: dict[str, Any], finds: Sequence[FindRow] | None, store: str | None = None
) -> dict[str, Any]:
    """One deal: the replayed result, every time it was found, whether they agree, and its
    rank among the published records (for a finished standard two-player deal only).
    `finds` None: there is no store; "store" is then None, else the store's path."""
    from bmn.kernels.deal import parse_deal
    from bmn.kernels.decks import is_standard

    rank = rank_among(deal, result["cards"], published_ranking())
    hands = parse_deal(deal)
    comparable = result["status"] == "finished" and len(hands) == 2 and is_standard(hands)
    return {
        "deal": deal,
        "result": result,
        "finds": [row.as_dict() for row in finds or ()],
        "matches": all(agrees(row, result) for row in finds or ()),
        "published_rank": rank.as_dict() if comparable else None,
        "store": None if finds is None else store,
    }


def agrees(row: FindRow, result: dict[str, Any]) -> bool:
    return (row.status, row.cards, row.tricks) == (
        result["status"],
        result["cards"],
        result["tricks"],
    )
