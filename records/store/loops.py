"""Cycles of non-terminating games, one row per canonical cycle key and rule set: a hunt that
sees a known cycle again only adds to how often it was seen. The same key under two rule sets
is two games (what a state leads to hangs on the rules), so two rows."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Generic

from bmn.kernels.cycles.backward import CycleSummary
from bmn.kernels.cycles.loops import ALL_IN, REDUCED, key_seats
from bmn.kernels.deal import Deal, format_deal
from bmn.kernels.decks import counts_of, counts_text
from bmn.records.store.connection import Connection, sql_errors
from bmn.records.store.errors import StoreError
from bmn.records.store.values import DECK, INT64_MAX, Row, Stamp, canonical_deal, now, plain


@dataclass(frozen=True)
class Loop:
    """A cycle of a non-terminating game, to be stored under its canonical key.

    `deck` names the cards (counts of numerals, J, Q, K, A: '36,4,4,4,4' is the standard
    deck); balanced deals are starting deals split evenly, seat 0 first, found by backward
    play within `basin_states` states (`basin_complete` when that was the whole basin). The
    seats and the kind are read from `key` (seat-bound: one hand per seat, 'x' for a seat out),
    so 3- and 4-seat cycles need no column of their own; `rotation_key` is the seat-blind key,
    that of the cycle among the seats still in. `first_deal` is a deal into the cycle, the one
    the example and basin figures were found from: of the deals offered for a key, the store
    keeps the first in rank order (`deal_order`). `rules` names the rule set the cycle was
    found under (kernels/rules/sets.py): a cycle is known by its key and its rules."""

    key: str
    rotation_key: str
    deck: str
    period_cards: int
    period_tricks: int
    cycle_states: int
    balanced_states: int
    balanced_deals: int
    mirrored_balanced_deals: int
    basin_states: int
    basin_complete: bool
    example_deal: str
    first_deal: str
    # Keyword-only, so that LoopRow's fields without a default may follow it.
    rules: str = field(default="bmn", kw_only=True)

    @property
    def seats(self) -> int:
        """The seats at the table, read from the key (one hand each, 'x' for a seat out)."""
        return key_seats(self.key)[0]

    @property
    def seats_out(self) -> tuple[int, ...]:
        """The seats out on the cycle (a cycle left after they went out), from the key."""
        return key_seats(self.key)[1]

    @property
    def kind(self) -> str:
        """'all-in' (every seat keeps cards for ever) or 'reduced' (seats went out)."""
        return REDUCED if self.seats_out else ALL_IN

    @property
    def balanced_reachable(self) -> bool | None:
        """True if a balanced deal reaches the cycle, False if none does, None if unknown (the
        basin search stopped at its limit without finding one)."""
        if self.balanced_deals:
            return True
        return False if self.basin_complete else None


@dataclass(frozen=True)
class LoopRow(Loop, Generic[Stamp]):
    """A stored cycle: the run that first found it, when, and how often hunts have seen it."""

    reachable: bool | None
    run: int
    found_at: Stamp
    times_seen: int

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["balanced_reachable"] = out.pop("reachable")
        out.update(seats=self.seats, seats_out=list(self.seats_out), kind=self.kind)
        return out


def summarised(summary: CycleSummary, first_deal: Deal, rules: str) -> Loop:
    """A cycle as the store keeps it, from its summary by backward play (kernels/cycles) and
    the deal it was summarised from: what a hunt stores, and what a merge replays a stored
    cycle to."""
    example = summary.example if summary.example is not None else first_deal
    return Loop(
        key=summary.key,
        rotation_key=summary.rotation_key,
        deck=counts_text(counts_of(v for hand in first_deal for v in hand)),
        period_cards=summary.period_cards,
        period_tricks=summary.period_tricks,
        cycle_states=summary.period_tricks,  # one trick-boundary state per trick of the cycle
        balanced_states=summary.balanced_states,
        balanced_deals=summary.balanced_deals,
        mirrored_balanced_deals=summary.mirrored_balanced_deals,
        basin_states=summary.basin_states,
        basin_complete=summary.basin_complete,
        example_deal=format_deal(example),
        first_deal=format_deal(first_deal),
        rules=rules,
    )


LOOP_FIELDS = tuple(f.name for f in fields(Loop))

_LOOP_COLUMNS = ", ".join(LOOP_FIELDS) + ", balanced_reachable, run_id, found_at, times_seen"
_LOOP_SETS = ", ".join(f"{name} = ?" for name in LOOP_FIELDS)


def deal_order(deal: str) -> tuple[int, tuple[int, ...]]:
    """Where a deal comes among the deals into its cycle: the rank of its cards (hands joined,
    seat 0 first: kernels/ranks.py, the order an enumeration visits them), then its hand sizes.
    A cycle's stored first deal is the first in this order of the deals offered for it."""
    from bmn.kernels.deal import parse_deal
    from bmn.kernels.ranks import rank_of

    hands = parse_deal(deal)
    return rank_of([card for hand in hands for card in hand]), tuple(len(h) for h in hands)


_COUNTS = tuple(f.name for f in fields(Loop) if f.type == "int")
# times_seen plus a count (bound twice), held at 2**63 - 1: SQLite turns an integer sum past
# that into a REAL, which no read of the store takes.
_SEEN_MORE = f"CASE WHEN times_seen > {INT64_MAX} - ? THEN {INT64_MAX} ELSE times_seen + ? END"


class Loops(Connection):
    """The loops table: storing the cycles a hunt found, and reading them back."""

    @sql_errors
    def add_loops(self, run_id: int, loops: Iterable[tuple[Loop, int]]) -> int:
        """Store cycles found by a run, (cycle, times seen) pairs, in one transaction: a cycle
        whose key is known under its rule set adds its times seen, and takes the offered deal
        and its summary when that deal comes first in rank order (`deal_order`), so what a row
        holds does not hang on which run or stream wrote first. Returns how many cycles were
        new."""
        with self.transaction() as db:
            return self._add_loops(db, run_id, loops)

    def _add_loops(
        self, db: sqlite3.Connection, run_id: int, loops: Iterable[tuple[Loop, int]]
    ) -> int:
        stamp = now()
        new = 0
        if db.execute("SELECT 1 FROM runs WHERE id = ?", (int(run_id),)).fetchone() is None:
            raise StoreError(f"no run {run_id} in record store {self.path}")
        for loop, seen in loops:
            values = [plain(getattr(loop, name)) for name in LOOP_FIELDS]
            values[LOOP_FIELDS.index("example_deal")] = canonical_deal(loop.example_deal)
            first = values[LOOP_FIELDS.index("first_deal")] = canonical_deal(loop.first_deal)
            known = (loop.key, loop.rules)
            stored = db.execute(
                "SELECT id, first_deal FROM loops WHERE key = ? AND rules = ?", known
            )
            row = stored.fetchone()
            if row is not None:  # the row's first deal, checked: it is ordered against ours
                row = (Row(self.path, "loops", row[0]).deal("first_deal", row[1]),)
            if row is None:
                db.execute(
                    f"INSERT INTO loops ({_LOOP_COLUMNS}) VALUES"
                    f" ({', '.join('?' * (len(LOOP_FIELDS) + 4))})",
                    (*values, loop.balanced_reachable, int(run_id), stamp, int(seen)),
                )
                new += 1
            elif first != row[0] and deal_order(first) < deal_order(row[0]):
                db.execute(
                    f"UPDATE loops SET {_LOOP_SETS}, balanced_reachable = ?,"
                    f" times_seen = {_SEEN_MORE} WHERE key = ? AND rules = ?",
                    (*values, loop.balanced_reachable, int(seen), int(seen), *known),
                )
            else:
                db.execute(
                    f"UPDATE loops SET times_seen = {_SEEN_MORE} WHERE key = ? AND rules = ?",
                    (int(seen), int(seen), *known),
                )
        return new

    @sql_errors
    def loops(self, run_id: int | None = None, rules: str | None = None) -> list[LoopRow]:
        """Every stored cycle (or those a run found first, or those of one rule set), in the
        order first found."""
        terms = {"run_id": None if run_id is None else int(run_id), "rules": rules}
        asked = {column: value for column, value in terms.items() if value is not None}
        where = " AND ".join(f"{column} = ?" for column in asked)
        sql = f"SELECT id, {_LOOP_COLUMNS} FROM loops {'WHERE ' + where if where else ''}"
        # fetchall: done before a row can fail (connection.py)
        rows = self._db.execute(f"{sql} ORDER BY id", tuple(asked.values())).fetchall()
        return [_loop_row(self.path, row) for row in rows]


def _loop_row(path: Path, row: tuple) -> LoopRow:
    """A cycle from its row (its id first), each value checked."""
    r = Row(path, "loops", row[0])
    values = dict(zip(LOOP_FIELDS, row[1 : len(LOOP_FIELDS) + 1], strict=True))
    for name in _COUNTS:
        values[name] = r.whole(name, values[name])
    for name in ("key", "rotation_key"):
        values[name] = r.key(name, values[name])
    values["rules"] = r.text("rules", values["rules"])
    values["deck"] = r.text("deck", values["deck"], shape=DECK, what="deck counts ('36,4,4,4,4')")
    values["basin_complete"] = r.flag("basin_complete", values["basin_complete"])
    values["example_deal"] = r.deal("example_deal", values["example_deal"])
    values["first_deal"] = r.deal("first_deal", values["first_deal"])
    reachable, run, found_at, seen = row[len(LOOP_FIELDS) + 1 :]
    return LoopRow(
        **values,
        reachable=r.flag("balanced_reachable", reachable, null=True),
        run=r.whole("run_id", run, 1),
        found_at=r.stamp("found_at", found_at),
        times_seen=r.whole("times_seen", seen),
    )
