"""Each kind of run, one Job in a module of its own (registered by name in ../registry.py), and
the rooms two kinds share.

The kinds: the longest game on the CPU (longest.py) or a GPU (longest_cuda.py), the loop hunt
(loop_hunt.py), cycle growing (grow.py), true cycles (true_cycles.py), and every deal of a deck
in rank order on the CPU (every.py) or a GPU (every_cuda.py). No kind imports another: what
kinds share lives in rooms named for it, a kind's CPU and GPU twins' common part
(longest_base.py, every_base.py, with what an enumeration shows in every_shown.py), what the GPU
kinds share (on_gpu.py), the book of cycles a hunt keeps (cycle_book.py) and the streams of
cycles grow and true cycles play (cycle_streams.py).
"""
