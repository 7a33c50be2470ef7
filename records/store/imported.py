"""Finds another program made, stored as finished runs of kind 'import' (`records import`):
each run and its finds in one transaction, and a table imported before known by its content.

An import run's settings name the table (its file name, for people; the digest of its bytes,
how it was read and under which rule set: what the table is) and, as a search's do, the deck
and hand sizes of the deals it holds, so that every listing keeps them apart as it keeps a
search's decks apart."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from bmn.records.store.connection import sql_errors
from bmn.records.store.finds import Find
from bmn.records.store.merged import Merges
from bmn.records.store.runs import _to_json, host_name
from bmn.records.store.values import now

IMPORT_KIND = "import"


class ImportKey(NamedTuple):
    """What a table is, whatever its file is called: the digest of its bytes, how it was read
    (notation, the seats a run of cards is cut for) and the rule set it was played under."""

    sha256: str
    notation: str
    players: int
    rules: str


@dataclass(frozen=True)
class Stored:
    """What storing an import did: its run, finds new, finds not stored again (a deal the
    table gives twice, or every deal of a table imported before), and whether the same table
    was imported before (then nothing was written)."""

    run: int
    new: int
    known: int
    again: bool


# An import run's key in SQL: its settings' digest, notation and rule set, and the seats a
# run of cards was cut for (2 in runs imported before bmn kept it), the file name left out. A
# run imported before runs kept their deck is not the table imported: importing it again
# stores it with its decks.
_KEY = (
    "kind = 'import' AND json_valid(params) AND json_extract(params, '$.sha256') = :sha256"
    " AND json_extract(params, '$.deck') IS NOT NULL"
    " AND json_extract(params, '$.notation') = :notation"
    " AND coalesce(json_extract(params, '$.players'), 2) = :players"
    " AND coalesce(json_extract(params, '$.rules'), rules) = :rules"
)


class Imports(Merges):
    """Storing the finds of an imported table."""

    @sql_errors
    def imports_of(self, key: ImportKey) -> list[int]:
        """The import runs that hold the table `key` names, oldest first."""
        rows = self._db.execute(f"SELECT id FROM runs WHERE {_KEY} ORDER BY id", key._asdict())
        return [int(run) for (run,) in rows.fetchall()]

    @sql_errors
    def add_import(
        self, params: dict, seats: int, rules: str, finds: Sequence[Find], seconds: float
    ) -> Stored:
        """One finished import run holding `finds` (replayed already), written in one
        transaction; a run of the same table, seats, rule set and deck (whatever the file's
        name) is the table imported before: nothing is written, and its run is returned."""
        text = _to_json(params)
        key = ImportKey(params["sha256"], params["notation"], params["players"], params["rules"])
        with self.transaction() as db:
            known = db.execute(
                f"SELECT id FROM runs WHERE {_KEY} AND seats = :seats AND rules = :ruled"
                " AND json_extract(params, '$.deck') IS :deck"
                " AND json_extract(params, '$.hand_sizes') IS json(:sizes)",
                {
                    **key._asdict(),
                    "seats": int(seats),
                    "ruled": rules,
                    "deck": params.get("deck"),
                    "sizes": _to_json(params.get("hand_sizes")),
                },
            ).fetchone()
            if known is not None:
                return Stored(int(known[0]), 0, len(finds), True)
            best = max(finds, key=lambda f: (f.status == "finished", f.cards, f.tricks))
            stamp = now()
            cursor = db.execute(
                "INSERT INTO runs (started_at, updated_at, strategy, objective, seed, params,"
                " status, games, seconds, best_deal, best_cards, best_tricks, seats, backend,"
                " kind, rules, host) VALUES (?, ?, NULL, 'cards', 0, ?, 'finished', ?, ?, ?, ?,"
                " ?, ?, 'threads', ?, ?, ?)",
                (
                    *(stamp, stamp, text, len(finds), float(seconds)),
                    *(best.deal, best.cards, best.tricks, int(seats), IMPORT_KIND, rules),
                    host_name(),
                ),
            )
            run = int(cursor.lastrowid)
            new = self._add_finds(db, run, finds)
        return Stored(run, new, len(finds) - new, False)


def params_of(name: str, key: ImportKey, rows: int, deck: str, hand_sizes: Sequence[int]) -> dict:
    """An import run's settings: the table's file name, what the table is (`key`), how many
    rows it has, and the deck (counts N,J,Q,K,A) and hand sizes of the deals the run holds."""
    return {
        "file": name,
        **key._asdict(),
        "rows": rows,
        "deck": deck,
        "hand_sizes": [int(n) for n in hand_sizes],
    }
