"""Measuring: each search strategy's speed and tail rate (quality.py, `bmn search-bench`) and the
length distribution of random deals (stats.py, `bmn stats`)."""
