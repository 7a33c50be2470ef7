"""The record store (store/, SQLite) and the published record games shipped as package data
(published.py and the CSVs), with the reports built from them (report.py); serve/ shows a store
in a web browser (`bmn records serve`, on Datasette).

The library (docs/library.md, api.py), exported here lazily: importing bmn.records imports
nothing compiled.

>>> import bmn.records as records
>>> [game.name for game in records.published_games()][0]
'Paulhus 1999'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bmn.kernels.exports import lazy_exports

if TYPE_CHECKING:  # what a type checker reads; at run time __getattr__ imports on first use
    from bmn.records.api import (
        DEFAULT_PATH,
        FindRow,
        LoopRow,
        PublishedGame,
        Replayed,
        Run,
        RunHeld,
        RunNotFound,
        StoreError,
        StoreReader,
        open_store,
        published_games,
        replay_published,
    )

__all__ = [
    "DEFAULT_PATH",
    "FindRow",
    "LoopRow",
    "PublishedGame",
    "Replayed",
    "Run",
    "RunHeld",
    "RunNotFound",
    "StoreError",
    "StoreReader",
    "open_store",
    "published_games",
    "replay_published",
]
_EXPORTS = {name: f"bmn.records.api:{name}" for name in __all__}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
