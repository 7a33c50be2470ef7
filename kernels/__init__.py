"""The game itself: deal notation, the pure-Python reference engine (the oracle), random deals,
the compiled scorers chosen by (seats, device), and the analysis of games that never end.

- deal.py: notation, validation, encoding, deck compositions; reference.py: the rules in plain
  Python; rng.py and dealer.py: the explicit generator and the one random dealer; config.py:
  njit and CUDA flags and shared constants; two_tricks.py: the two-seat trick rules, one source
  that targets.py compiles for the CPU and the GPU; score.py: the (seats, device) kernel
  registry; results.py, lines.py: batch results and deal files; benchmark.py: bench and
  selfcheck.
- cpu/: the compiled scorers for the CPU (two.py; nseat.py and its table, nseat_table.py);
  cuda/: the same on a GPU; cycles/: loops, backward play.
"""
