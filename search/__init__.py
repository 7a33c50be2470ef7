"""Searching for long games and endless ones, and the library's search. Floors, lowest first
(tests/test_layers.py walks them): words.py (plain words every floor shares); strategies/,
enumeration/, backends/, cycles/, measure/; runs/; then api.py and benchmark.py on top. The
front ends that show them (the command line, the web page, what they print) are bmn.frontends.

- words.py: counts with their noun, durations, clock times, ordinals (imports nothing of bmn).
- strategies/: what a search stream computes (the compiled loop, moves, walk/random/climb/lahc).
- enumeration/: every deal of a deck in rank order, compiled for the CPU and a GPU.
- backends/: where a run's chunks run: threads on this machine, or a Dask cluster.
- cycles/: building cycles from pieces (the cycle factory behind `--objective grow`).
- measure/: the length distribution of random deals, the fitted tail behind the odds, and the
  odds in words.
- runs/: the kinds of run (longest game on the CPU or a GPU, loop hunt, grow, every deal), each
  a job held by one run loop.
- benchmark.py: `bmn search-bench`'s trials, each strategy's speed and far-tail rate in
  real runs.

The library's search (api.py; docs/library.md), exported here lazily: importing bmn.search
imports no numba and no click.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bmn.kernels.exports import lazy_exports

if TYPE_CHECKING:  # what a type checker reads; at run time __getattr__ imports on first use
    from bmn.search.api import *  # noqa: F403 (the names of api.__all__, the one list)

__getattr__, __dir__ = lazy_exports(__name__, globals(), "bmn.search.api")
