"""bmn's front ends: what a user types and reads. Floors, lowest first (tests/test_layers.py
walks them): output/, then serve/ and cli/ on top.

- output/: what bmn prints (text and tables on stdout), draws live (progress on stderr) and
  plots (pictures), from the figures the engine gives.
- serve/: `bmn records serve`, a store in a web browser (Datasette).
- cli/: the command line; nothing outside it imports click.

The engine (bmn.kernels, bmn.records, bmn.search) imports none of these and no click, rich or
Datasette (tests/test_layers.py holds it), with one door: the library's `search(display=True)`
shows the command line's live panel (output/progress.py), imported when it is asked for.
"""
