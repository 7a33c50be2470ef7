"""Searching for long games and endless ones, and the `bmn` command line.

- strategies/: what a search stream computes (the compiled loop, moves, walk/random/climb/lahc).
- runs/: the kinds of run (longest game on the CPU or a GPU, loop hunt, grow) on one run handler.
- backends/: where a run's chunks run: threads on this machine, or a Dask cluster.
- cycles/: building cycles from pieces (the cycle factory behind `--objective grow`).
- output/: what bmn prints (text and tables), draws live (progress) and plots (pictures).
- measure/: search quality and the length distribution of random deals.
- cli/: the command line; nothing outside it imports click.
"""
