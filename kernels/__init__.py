"""The game itself: deal notation, the pure-Python reference engine (the oracle), random deals,
the compiled scorers chosen by (seats, device), and the analysis of games that never end.

- deal.py: notation, validation, encoding; reference.py: the rules in plain Python;
  rng.py and dealer.py: the explicit generator and the one random dealer; config.py: njit flags
  and shared constants; score.py: the (seats, device) kernel registry; results.py, lines.py:
  batch results and deal files; benchmark.py: bench and selfcheck.
- cpu/: the compiled scorers for the CPU; cuda/: the same on a GPU; cycles/: loops, backward play.
"""
