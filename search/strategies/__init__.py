"""What a search stream computes: the strategy registry (registry.py), the compiled loop that
runs every strategy on the CPU (cpu.py), the same loop fed by the lane kernels (lanes.py: blocks
of proposals scored several games a step, settled in order), and its twin on an NVIDIA GPU
(cuda/: the device kernels, their host, the streams' arrays), the moves they share (moves.py),
each strategy's propose, settle and speculate steps (walk.py, random_restart.py, climb.py,
lahc.py), and a worker's state as plain arrays (worker.py)."""
