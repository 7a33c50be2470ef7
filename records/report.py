"""Formatting for `bmn records`: tables of finds and runs, exports, and ranking against the
published record games. Pure functions over store rows; no SQL here."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from bmn.records.published import PublishedGame, published_games
from bmn.records.store import FIND_KEYS, TOP_KEYS, FindRow, Run


def format_duration(seconds: float) -> str:
    """A short human duration: 42.0s, 7m05s, 8h02m, 3d04h."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    if days:
        return f"{days}d{hours:02d}h"
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s"


def short_time(stamp: str) -> str:
    """An ISO-8601 UTC stamp to the minute: 2026-11-29 16:11."""
    return stamp[:16].replace("T", " ")


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def table(head: Sequence[str], rows: Iterable[Sequence[Any]], left: Sequence[int] = ()) -> str:
    """Plain aligned columns: numbers right, the columns numbered in `left` to the left."""
    cells = [[str(c) for c in head]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[c]) for row in cells) for c in range(len(head))]

    def line(row: list[str]) -> str:
        parts = [
            cell.ljust(w) if c in left else cell.rjust(w)
            for c, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    return "\n".join(line(row) for row in cells)


# -- top, runs, export ---------------------------------------------------------------------


def top_json(rows: Sequence[FindRow]) -> str:
    return json.dumps([row.as_dict(TOP_KEYS) for row in rows])


def top_text(rows: Sequence[FindRow]) -> str:
    if not rows:
        return "no finds in the store match"
    head = ["rank", "cards", "tricks", "status", "run", "found (UTC)", "deal"]
    body = [
        [i, r.cards, r.tricks, r.status, r.run, short_time(r.found_at), r.deal]
        for i, r in enumerate(rows, start=1)
    ]
    return table(head, body, left=(3, 5, 6))


def runs_json(runs: Sequence[Run]) -> str:
    return json.dumps([run.as_dict() for run in runs])


def runs_text(runs: Sequence[Run]) -> str:
    if not runs:
        return "no runs in the store"
    head = ["run", "strategy", "objective", "status", "games", "time", "best cards", "tricks"]
    head.append("started (UTC)")
    body = [
        [
            r.id,
            r.strategy,
            r.objective,
            r.status,
            f"{r.games:,}",
            format_duration(r.seconds),
            "-" if r.best_cards is None else r.best_cards,
            "-" if r.best_tricks is None else r.best_tricks,
            short_time(r.started_at),
        ]
        for r in runs
    ]
    return table(head, body, left=(1, 2, 3, 8))


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


def published_ranking() -> list[PublishedGame]:
    """The published games that finish, longest first (loops are not ranked by length)."""
    games = [game for game in published_games() if game.status == "finished"]
    return sorted(games, key=lambda game: -game.cards)


@dataclass(frozen=True)
class Rank:
    """Where a deal of `cards` cards stands among the published finishing records."""

    rank: int
    of: int
    published: str | None  # the name, when the deal is itself a published record

    def describe(self) -> str:
        if self.published:
            return f"the published record {self.published}: rank {self.rank} of {self.of}"
        if self.rank == self.of:
            return f"below all published records: rank {self.rank} of {self.of}"
        return f"would rank {ordinal(self.rank)} of {self.of}"

    def as_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "of": self.of, "published": self.published}


def rank_among(deal: str, cards: int, ranking: Sequence[PublishedGame]) -> Rank:
    """A published deal keeps its own place; any other deal ranks as if added to the list,
    level with the published games of equal length."""
    for i, game in enumerate(ranking, start=1):
        if game.deal == deal:
            return Rank(i, len(ranking), game.name)
    return Rank(1 + sum(game.cards > cards for game in ranking), len(ranking) + 1, None)


def compare_json(rows: Sequence[FindRow], ranking: Sequence[PublishedGame]) -> str:
    published = [
        {"rank": i, "name": g.name, "year": g.year, "deal": g.deal}
        | {"cards": g.cards, "tricks": g.tricks}
        for i, g in enumerate(ranking, start=1)
    ]
    finds = [
        row.as_dict(TOP_KEYS) | rank_among(row.deal, row.cards, ranking).as_dict() for row in rows
    ]
    return json.dumps({"published": published, "finds": finds})


def compare_text(rows: Sequence[FindRow], ranking: Sequence[PublishedGame]) -> str:
    """The published records and the store's finds in one list, longest first."""
    entries = [
        (g.cards, g.tricks, g.name, f"{i} of {len(ranking)} published", g.deal)
        for i, g in enumerate(ranking, start=1)
    ]
    entries += [
        (r.cards, r.tricks, f"run {r.run}", rank_among(r.deal, r.cards, ranking).describe(), r.deal)
        for r in rows
    ]
    entries.sort(key=lambda e: -e[0])
    text = table(["cards", "tricks", "found by", "rank", "deal"], entries, left=(2, 3, 4))
    if not rows:
        text += "\nthe store has no finished finds yet"
    return text


# -- show ------------------------------------------------------------------------------------


def show_dict(deal: str, result: dict[str, Any], finds: Sequence[FindRow]) -> dict[str, Any]:
    """One deal: the replayed result, every time it was found, whether they agree, and its
    rank among the published records (for a finished standard two-player deal only)."""
    from bmn.kernels.deal import is_standard, parse_deal

    rank = rank_among(deal, result["cards"], published_ranking())
    hands = parse_deal(deal)
    comparable = result["status"] == "finished" and len(hands) == 2 and is_standard(hands)
    return {
        "deal": deal,
        "result": result,
        "finds": [row.as_dict() for row in finds],
        "matches": all(_agrees(row, result) for row in finds),
        "published_rank": rank.as_dict() if comparable else None,
    }


def show_text(shown: dict[str, Any], summary: str) -> str:
    lines = [f"deal: {shown['deal']}", f"replayed: {summary}"]
    finds = shown["finds"]
    if not finds:
        lines.append("not in the store")
    else:
        lines.append(f"found {len(finds)} time{'s' if len(finds) > 1 else ''}:")
        for row in finds:
            differs = (
                "" if _agrees(FindRow(**row), shown["result"]) else "  <-- differs from replay"
            )
            lines.append(
                f"  run {row['run']} ({row['strategy']}) at {short_time(row['found_at'])} UTC,"
                f" {format_duration(row['elapsed'])} into the run: stored {row['cards']} cards,"
                f" {row['tricks']} tricks{differs}"
            )
    rank = shown["published_rank"]
    if rank is not None:
        lines.append("against the published records: " + Rank(**rank).describe())
    return "\n".join(lines)


def _agrees(row: FindRow, result: dict[str, Any]) -> bool:
    return (row.status, row.cards, row.tricks) == (
        result["status"],
        result["cards"],
        result["tricks"],
    )
