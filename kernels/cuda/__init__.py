"""The two-seat scorer on an NVIDIA GPU (two.py) and whether CUDA can run here (env.py).

Importing this package imports no CUDA: env.py asks without importing numba.cuda, and two.py is
imported only when a command asks for the device.
"""
