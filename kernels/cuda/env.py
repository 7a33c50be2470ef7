"""Whether the CUDA kernel can run here, asked without importing it.

The kernel (kernels/cuda/two.py) needs the NVIDIA-maintained `numba-cuda` package (the
`bmn[cuda]` extra, which brings the CUDA toolkit's compiler libraries as wheels) and a GPU, or
Numba's CUDA simulator (`NUMBA_ENABLE_CUDASIM=1`, set before numba is first imported), which
runs the same kernel on the CPU, slowly, for tests. Numba itself still ships an older built-in
CUDA target; bmn does not use it.
"""

from __future__ import annotations

import importlib.util

INSTALL_HINT = "pip install 'bmn[cuda]'"
# The kernels' threads per block (kernels/cuda/two.py), here so that the command line can check
# a number of device threads without importing numba's CUDA target.
THREADS_PER_BLOCK = 128


class CudaUnavailable(RuntimeError):
    """The CUDA kernel cannot run here; the message is one line saying what is missing."""


def simulated() -> bool:
    """True when Numba's CUDA simulator stands in for a GPU in this process."""
    from numba.core import config

    return bool(config.ENABLE_CUDASIM)


def available() -> str | None:
    """None when the CUDA kernel can run here; else one line saying what is missing."""
    if importlib.util.find_spec("numba_cuda") is None:
        return f"the CUDA kernel needs the numba-cuda package: {INSTALL_HINT}"
    if simulated():
        return None
    from numba import cuda

    try:
        if not cuda.is_available():
            return "no CUDA GPU found (numba-cuda sees no NVIDIA driver or device)"
        from numba.cuda.cudadrv import nvvm

        nvvm.NVVM()  # the compiler library: the toolkit wheels of the extra, or a local toolkit
    except Exception as error:  # the driver's and loader's errors have no common base
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return f"CUDA is not usable here ({first}); {INSTALL_HINT} brings the toolkit libraries"
    return None


def require() -> None:
    """Raise CudaUnavailable (one line) unless the CUDA kernel can run here."""
    missing = available()
    if missing is not None:
        raise CudaUnavailable(missing)
