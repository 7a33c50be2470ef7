"""What a search stream computes: the strategy registry (registry.py), the compiled loop that
runs every strategy on the CPU (cpu.py) and its twin on an NVIDIA GPU (cuda/: the device kernels,
their host, the streams' arrays), the moves they share (moves.py), each strategy's propose and
settle steps (walk.py, random_restart.py, climb.py, lahc.py), and a worker's state as plain
arrays (worker.py)."""
