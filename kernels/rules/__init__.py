"""The rules a kernel plays, and the copies compiled on them.

sets.py: the named rule sets (plain Python, no numba); flags.py: which of a rule set's points a
kernel is compiled on; copies.py: a kernel module's copies compiled on a rule set's points (the
functions that reach a rule, derived by reading the code); two_tricks.py: the two-seat trick
rules, one source that targets.py compiles for the CPU and the GPU.
"""
