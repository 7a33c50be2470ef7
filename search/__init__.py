"""Searching for long games and endless ones, and the `bmn` command line.

- strategies/: what a search stream computes (the compiled loop, moves, walk/random/climb/lahc).
- runs/: the kinds of run (longest game on the CPU or a GPU, loop hunt, grow) on one run handler.
- backends/: where a run's chunks run: threads on this machine, or a Dask cluster.
- cycles/: building cycles from pieces (the cycle factory behind `--objective grow`).
- output/: what bmn prints (text and tables), draws live (progress) and plots (pictures).
- measure/: search quality and the length distribution of random deals.
- cli/: the command line; nothing outside it imports click.

The library's search (api.py; docs/library.md), exported here lazily: importing bmn.search
imports no numba and no click.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bmn.kernels.exports import lazy_exports

if TYPE_CHECKING:  # what a type checker reads; at run time __getattr__ imports on first use
    from bmn.search.api import (
        NothingToResume,
        RunHeld,
        RunNotFound,
        SearchOptionError,
        StoppedBeforeRun,
        StoreError,
        search,
    )

__all__ = [
    "NothingToResume",
    "RunHeld",
    "RunNotFound",
    "SearchOptionError",
    "StoppedBeforeRun",
    "StoreError",
    "search",
]
_EXPORTS = {name: f"bmn.search.api:{name}" for name in __all__}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
