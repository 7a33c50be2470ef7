"""Measuring: the length distribution of random deals (stats.py, `bmn stats`), and the fitted
tail of that distribution (tail.py, length_tail.json) behind a run's odds of a longer game
(odds.py). Each strategy's speed and tail rate (`bmn search-bench`) times real runs, so it
stands on them: search/benchmark.py."""
