"""The game itself: deal notation, the pure-Python reference engine (the oracle), random deals,
the compiled scorers chosen by (seats, device), and the analysis of games that never end.

- deal.py: notation, validation, encoding; decks.py: a deck's counts N,J,Q,K,A (read, checked,
  described; the standard and 'mixed' decks); reference.py: the rules in plain Python; rng.py
  and dealer.py: the explicit generator, the one random dealer and its shuffles; config.py: njit
  and CUDA flags and the shared constants (seats, card bounds); score.py: the (seats, device,
  rules) kernel registry; results.py: batch results; ranks.py: a deck's
  arrangements in rank order (count, rank, unrank, the compiled next-arrangement step); api.py:
  the library's game functions, arguments.py: the checks of their arguments; claims.py: the one
  verifier of figures from elsewhere (a claim about a deal in, a verdict out).
- tables/: tables of deals (the one line reader, the one reader of rows, a table scored);
  rules/: the named rule sets and the kernel copies compiled on them; cpu/: the compiled
  scorers for the CPU (two.py; nseat.py and its table, nseat_table.py; benchmark.py: bench and
  selfcheck); cuda/: the same on a GPU; cycles/: loops, backward play.

The library (docs/library.md), exported here lazily from api.py's `__all__` (exports.py):
importing bmn.kernels imports no numba; a function's module is imported, and its kernel
compiled, on first use.

>>> import bmn.kernels as game
>>> game.play("-J/Q-").cards
4
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bmn.kernels.exports import lazy_exports

if TYPE_CHECKING:  # what a type checker reads; at run time __getattr__ imports on first use
    from bmn.kernels.api import *  # noqa: F403 (the names of api.__all__, the one list)

__getattr__, __dir__ = lazy_exports(__name__, globals(), "bmn.kernels.api")
