"""Measuring: each search strategy's speed and tail rate (quality.py, `bmn search-bench`), the
length distribution of random deals (stats.py, `bmn stats`), and the fitted tail of that
distribution (tail.py, length_tail.json) behind a run's odds of a longer game (odds.py)."""
