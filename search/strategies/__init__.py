"""What a search stream computes: the strategy registry, the compiled loop that runs every
strategy on the CPU (cpu.py) and its twin on a GPU (cuda.py), the moves they share, each
strategy's propose/settle steps, and a worker's state as plain arrays; the enumeration's chunk of
consecutive ranks on the CPU (every.py) and a GPU (cuda_every.py); cuda_compiled.py puts every
GPU kernel through NVIDIA's compiler (NVVM and ptxas, no GPU needed) and reads its registers."""
