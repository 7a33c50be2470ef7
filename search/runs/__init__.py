"""The kinds of run: one run handler (handler.py) and a registry of run kinds (kinds.py), each a
module here: the longest game on the CPU (longest.py) or a GPU (longest_cuda.py), on one base
(longest_base.py), the loop hunt (loop_hunt.py) and cycle growing (grow.py)."""
