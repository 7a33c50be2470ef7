"""Finds another program made, stored as one finished run of kind 'import' (`records import`):
the run and its finds in one transaction, and a table imported before known by its content."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bmn.records.store.columns import now
from bmn.records.store.connection import sql_errors
from bmn.records.store.finds import Find
from bmn.records.store.merged import Merges
from bmn.records.store.runs import _to_json, host_name

IMPORT_KIND = "import"


@dataclass(frozen=True)
class Stored:
    """What storing an import did: its run, finds new, finds not stored again (a deal the
    table gives twice, or every deal of a table imported before), and whether the same table
    was imported before (then nothing was written)."""

    run: int
    new: int
    known: int
    again: bool


class Imports(Merges):
    """Storing the finds of an imported table."""

    @sql_errors
    def add_import(
        self, params: dict, seats: int, rules: str, finds: Sequence[Find], seconds: float
    ) -> Stored:
        """One finished import run holding `finds` (replayed already), written in one
        transaction; a run of the same `params` (they name the table's content) is the table
        imported before: nothing is written, and its run is returned."""
        text = _to_json(params)
        with self.transaction() as db:
            known = db.execute(
                "SELECT id FROM runs WHERE kind = ? AND params = ? AND rules = ? AND seats = ?",
                (IMPORT_KIND, text, rules, int(seats)),
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


def params_of(name: str, digest: str, notation: str, rows: int) -> dict:
    """An import run's parameters: the table's file name and content digest, how it was read."""
    return {"file": name, "sha256": digest, "notation": notation, "rows": rows}
