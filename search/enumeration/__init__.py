"""Every deal of a deck in rank order (kernels/ranks.py): a chunk of consecutive ranks scored in
compiled code on the CPU (cpu.py, any seat count the kernels take) and on an NVIDIA GPU (cuda.py,
two seats; it imports numba's CUDA target). The kinds of run `every` and `every-cuda`
(search/runs/kinds/every.py, search/runs/kinds/every_cuda.py) run them."""
