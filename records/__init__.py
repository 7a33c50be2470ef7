"""The record store (store/, SQLite) and the published record games shipped as package data
(published.py and the CSVs), with the reports built from them (report.py). It stands on
bmn.kernels alone: the web page over a store (`bmn records serve`) is a front end, in
bmn.frontends.serve beside the command line.

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
    from bmn.records.api import *  # noqa: F403 (the names of api.__all__, the one list)

__getattr__, __dir__ = lazy_exports(__name__, globals(), "bmn.records.api")
