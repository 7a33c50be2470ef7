"""A search on an NVIDIA GPU: the device code (kernels.py: the walk's and random restart's
search kernels), the host that launches them (host.py: DeviceSearch, a chunk, the bench) and the
streams' state as host arrays (streams.py: the checkpoint, no GPU needed).

Importing this package imports no CUDA; kernels.py and host.py import numba's CUDA target.
"""
