"""bmn's lab: research no command runs, method comparisons and diagnostics (lab/README.md).

Not installed and never imported by bmn; it imports bmn freely. Run its scripts from the
repository's root as modules, `python -m lab.NAME`, so that `lab` is importable.
"""
