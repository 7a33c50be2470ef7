"""bmn's CUDA kernels compiled by NVIDIA's compiler without a GPU: registers, spills, stack.

Every kernel bmn launches (KERNELS) goes to PTX through NVVM (numba-cuda's `compile_ptx`, on
the kernel's Python source with the argument types its launch passes) and through `ptxas -v`
for each architecture, whose report gives the figures. NVVM and ptxas come as wheels with
numba-cuda[cu12] (the `cuda` and `test` extras); neither needs a GPU or a driver.

    python -m lab.cuda_compiled        # the table of docs/gpu.md

Each architecture compiles in a child interpreter: Numba's CUDA simulator must be off whatever
the parent runs under (NUMBA_ENABLE_CUDASIM is read once, when numba is first imported), and
numba-cuda compiles a device function once a process, for the compute capability current then.
Importing this module imports no CUDA. It is a diagnostic that no command runs, so it sits
in the lab (lab/README.md); the device check (benchmarks/device_check.py) uses it. bmn's kernels
are named by module in KERNELS and imported only in the child, by name. The child is started
from the repository's root (`python -m lab.cuda_compiled`), so that it finds this module.

Two questions numba-cuda and bmn put to a GPU are answered in the child (`_no_gpu`): bmn's
import-time check (kernels/cuda/env.require) asks whether the driver sees a GPU, and numba-cuda
asks the current device for its compute capability when it compiles a device function
(dispatcher.get_current_device). The NVVM check behind the first still runs.

Architectures are named as numba-cuda's launches name them: an H100/H200 (compute capability
9.0) gets `sm_90a` (numba adds the `a` from 9.0 on), an A100 `sm_80`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

ARCHITECTURES = ("sm_80", "sm_90a")  # A100; H100 and H200
# Environment the child must not see: the simulator, and numba's override of the target.
_DROPPED = ("NUMBA_ENABLE_CUDASIM", "NUMBA_FORCE_CUDA_CC")
# The packages whose modules are searched for kernels (see _found).
_PACKAGES = ("bmn.kernels", "bmn.search")
_MODULE = "lab.cuda_compiled"  # this module, also when run as __main__
_INSTALL = "pip install 'bmn[cuda]' (numba-cuda[cu12] brings NVVM and ptxas)"

# Argument types as each launch passes them (numba's signature strings): Python ints are int64,
# arrays C-contiguous device arrays.
_I64, _I64S, _I32S = "int64", "int64[::1]", "int32[::1]"
_I64_ROWS, _U8_ROWS = "int64[:, ::1]", "uint8[:, ::1]"
# kernels/cuda/two.score_rows: flat deals, width, sizes, cap, out.
_SCORE = ("uint8[::1]", _I64, _I64_ROWS, _I64, _I64_ROWS)
# search/strategies/cuda/host.DeviceSearch.run: objective, keep_above, cap, games, limits,
# backlog, window, rng, decks, bests, counters, finds, figures, n_finds, pending, n_pending.
_STREAMS = (_I64, _I64, _I64, _I64, _I64S, "boolean", _I64)
_STREAMS += ("uint64[:, ::1]", _U8_ROWS, _U8_ROWS, _I64_ROWS, _U8_ROWS, _I64_ROWS)
_STREAMS += (_I32S, _I32S, _I32S)
# search/enumeration/cuda.score_range: counts, strides, table, n0, n1, starts, lengths,
# objective, keep_above, cap, tops, done, finds, figures, n_finds.
_EVERY = (_I64S, _I64S, _I64S, _I64, _I64, _I64S, _I64S, _I64, _I64, _I64)
_EVERY += (_I64_ROWS, _I64S, _U8_ROWS, _I64_ROWS, _I32S)


@dataclass(frozen=True)
class Kernel:
    """A kernel as one launch compiles it."""

    name: str  # the table's name
    module: str
    attribute: str  # the CUDA dispatcher's name in its module
    arguments: tuple[str, ...]
    max_registers: int | None = None  # cuda_kernel_variant's cap: ptxas --maxrregcount
    rules: str | None = None  # a rule set's copy of the kernel (its module's `ruled`)

    @property
    def qualified(self) -> str:
        return f"{self.module}.{self.attribute}"


_CUDA = "bmn.search.strategies.cuda.kernels"
KERNELS = (
    Kernel("score", "bmn.kernels.cuda.two", "_score_kernel", _SCORE),
    Kernel("walk", _CUDA, "_walk_kernel", _STREAMS),
    Kernel("random", _CUDA, "_random_kernel", _STREAMS),
    Kernel("every", "bmn.search.enumeration.cuda", "_enumerate", _EVERY),
    # benchmarks/device_check.py's walk_64_registers (search/strategies/cuda/kernels.py's
    # search_kernel variant)
    Kernel("walk_64_registers", _CUDA, "_walk_kernel", _STREAMS, max_registers=64),
    # A rule set's copies (kernels/rules/sets.py): LeoDog896's plays the at-once ending and
    # counts battles, the most the trick rules change (kernels/rules/two_tricks.py).
    Kernel("score_leodog896", "bmn.kernels.cuda.two", "_score_kernel", _SCORE, rules="leodog896"),
    Kernel("walk_leodog896", _CUDA, "_walk_kernel", _STREAMS, rules="leodog896"),
    Kernel(
        "every_leodog896", "bmn.search.enumeration.cuda", "_enumerate", _EVERY, rules="leodog896"
    ),
)


@dataclass
class Compiled:
    """Figures per kernel and architecture (`rows`), and the kernels found in bmn's code."""

    rows: list[dict] = field(default_factory=list)
    found: list[str] = field(default_factory=list)  # every kernel object in bmn's modules
    toolkit: str = ""  # ptxas's release line
    seconds: float = 0.0

    def unlisted(self) -> list[str]:
        """Kernels in bmn's code that KERNELS does not name: compiled by nobody here."""
        return sorted(set(self.found) - {k.qualified for k in KERNELS})

    def errors(self) -> list[str]:
        return [f"{r['kernel']} {r['arch']}: {r['error']}" for r in self.rows if "error" in r]

    def as_dict(self) -> dict:
        return asdict(self) | {"unlisted": self.unlisted()}


def arch_of(capability: Sequence[int]) -> str:
    """The architecture numba-cuda compiles for on a GPU of this compute capability."""
    major, minor = int(capability[0]), int(capability[1])
    return f"sm_{major}{minor}{'a' if (major, minor) >= (9, 0) else ''}"


def ptxas() -> str | None:
    """The path of ptxas (the NVIDIA wheels first, then a local toolkit), or None."""
    try:
        from cuda.pathfinder import find_nvidia_binary_utility
    except ImportError:
        return None
    return find_nvidia_binary_utility("ptxas")


def missing() -> str | None:
    """None when the kernels can be compiled here; else one line saying what is missing."""
    if ptxas() is None:
        return f"ptxas not found: {_INSTALL}"
    return None


def compile_kernels(architectures: Sequence[str] = ARCHITECTURES) -> Compiled:
    """Every kernel of KERNELS compiled for each architecture, one child per architecture
    (run side by side). A kernel that does not compile has an `error` instead of figures."""
    start = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    command = [sys.executable, "-m", _MODULE, "--child"]
    root = Path(__file__).resolve().parents[1]  # where `lab` is a package
    children = {
        arch: subprocess.Popen(
            [*command, arch],
            cwd=root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for arch in architectures
    }
    compiled = Compiled()
    try:
        for arch, child in children.items():
            out, err = child.communicate(timeout=600)
            part = _read_child(arch, child.returncode, out, err)
            compiled.rows += part["rows"]
            compiled.found = compiled.found or part["found"]
            compiled.toolkit = compiled.toolkit or part["toolkit"]
    finally:  # a timeout or an interrupt leaves no child compiling
        for child in children.values():
            if child.poll() is None:
                child.kill()
    compiled.seconds = round(time.perf_counter() - start, 1)
    return compiled


def _read_child(arch: str, code: int, out: str, err: str) -> dict:
    """A child's JSON, or one error row per kernel carrying its last line of stderr."""
    if code == 0:
        return json.loads(out)
    lines = err.strip().splitlines() or [f"exit status {code}"]
    rows = [{"kernel": k.name, "arch": arch, "error": lines[-1]} for k in KERNELS]
    return {"rows": rows, "found": [], "toolkit": ""}


@contextmanager
def _no_gpu(major: int, minor: int) -> Iterator[None]:
    """Compile as if a GPU of compute capability major.minor were the current device."""
    from unittest import mock

    from numba import cuda
    from numba.cuda import dispatcher

    device = SimpleNamespace(compute_capability=(major, minor))
    with (
        mock.patch.object(cuda, "is_available", lambda: True),
        mock.patch.object(dispatcher, "get_current_device", lambda: device),
    ):
        yield


def _child(arch: str) -> dict:
    """This process's part: every kernel compiled for one architecture (numba.cuda imported)."""
    match = re.fullmatch(r"sm_(\d+)(\d)(a?)", arch)
    if match is None:
        raise ValueError(f"not an architecture: {arch!r} (sm_80, sm_90a, ...)")
    major, minor, suffix = int(match[1]), int(match[2]), match[3]
    ptxes: dict = {}  # a variant is the same PTX, assembled with a cap
    with _no_gpu(major, minor):
        found = _found()
        rows = [_compile_one(k, arch, (major, minor, suffix), ptxes) for k in KERNELS]
    return {"rows": rows, "found": found, "toolkit": _toolkit()}


def _compile_one(kernel: Kernel, arch: str, cc: tuple, ptxes: dict) -> dict:
    """One kernel's figures for one architecture, or its first error line."""
    import importlib

    from numba import cuda

    row: dict = {"kernel": kernel.name, "arch": arch, "max_registers": kernel.max_registers}
    try:
        key = (kernel.qualified, kernel.arguments)
        if key not in ptxes:
            module = importlib.import_module(kernel.module)
            if kernel.rules is None:
                function = getattr(module, kernel.attribute).py_func
            else:
                function = module.ruled(kernel.attribute, kernel.rules).py_func
            signature = f"void({', '.join(kernel.arguments)})"
            ptxes[key] = cuda.compile_ptx(function, signature, cc=cc)[0]
        return row | _assemble(ptxes[key], arch, kernel.max_registers)
    except Exception as error:  # NVVM's, numba's and ptxas's errors have no common base
        text = str(error).strip()
        return row | {"error": text.splitlines()[0] if text else type(error).__name__}


def _assemble(ptx: str, arch: str, max_registers: int | None) -> dict:
    """ptxas -v on the PTX, as the launch's linker would assemble it; its figures."""
    cap = [f"--maxrregcount={max_registers}"] if max_registers else []
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "kernel.ptx"
        source.write_text(ptx)
        command = [ptxas() or "ptxas", f"-arch={arch}", "-v", *cap, str(source)]
        done = subprocess.run(
            [*command, "-o", str(Path(folder) / "kernel.cubin")], capture_output=True, text=True
        )
    if done.returncode:
        raise RuntimeError((done.stderr + done.stdout).strip())
    return parse_ptxas(done.stderr + done.stdout)


_FIGURES = {
    "registers": r"Used (\d+) registers",
    "spill_stores": r"(\d+) bytes spill stores",
    "spill_loads": r"(\d+) bytes spill loads",
    "stack_bytes": r"(\d+) bytes stack frame",
    "local_bytes": r"(\d+) bytes lmem",
    "shared_bytes": r"(\d+) bytes smem",
}


def parse_ptxas(report: str) -> dict[str, int]:
    """The figures of one kernel's `ptxas -v` report (a figure it does not print is 0).

    `local_bytes` is the stack frame (local arrays and spills) plus any `lmem` ptxas prints:
    what the driver reports as local memory per thread (DeviceSearch.kernel_info).
    """
    if not re.search(_FIGURES["registers"], report):
        raise ValueError(f"no register count in ptxas's report: {report[:200]!r}")
    figures = {}
    for name, pattern in _FIGURES.items():
        match = re.search(pattern, report)
        figures[name] = int(match[1]) if match else 0
    figures["local_bytes"] += figures["stack_bytes"]
    return figures


def _found() -> list[str]:
    """Every CUDA kernel (not device function) defined at the top of bmn's modules that use
    `cuda.jit(`: a kernel added later shows here, listed in KERNELS or not."""
    import importlib

    from numba.cuda.dispatcher import CUDADispatcher

    kernels = set()
    for package in _PACKAGES:
        root = Path(importlib.import_module(package).__path__[0])
        for path in sorted(root.rglob("*.py")):
            if "cuda.jit(" not in path.read_text():
                continue
            parts = [package, *path.relative_to(root).with_suffix("").parts]
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            for value in vars(importlib.import_module(name)).values():
                if isinstance(value, CUDADispatcher) and not value.targetoptions.get("device"):
                    kernels.add(f"{value.py_func.__module__}.{value.py_func.__name__}")
    return sorted(kernels)


def _toolkit() -> str:
    """ptxas's release line (`Cuda compilation tools, release 12.9, V12.9.86`)."""
    done = subprocess.run([ptxas() or "ptxas", "--version"], capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if "release" in line]
    return lines[0] if lines else done.stdout.strip()


def table(compiled: Compiled) -> str:
    """The figures as a Markdown table, one row per kernel and architecture."""
    head = "| kernel | arch | registers | spill stores / loads (bytes) | stack frame (bytes) |"
    lines = [head, "|---|---|---|---|---|"]
    for row in compiled.rows:
        if "error" in row:
            lines.append(f"| {row['kernel']} | {row['arch']} | error: {row['error']} | | |")
            continue
        registers = str(row["registers"])
        if row["max_registers"]:
            registers += f" (cap {row['max_registers']})"
        spills = f"{row['spill_stores']} / {row['spill_loads']}"
        lines.append(
            f"| {row['kernel']} | {row['arch']} | {registers} | {spills} | {row['stack_bytes']} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m lab.cuda_compiled [--json] [ARCH ...]`: the table."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--child"]:
        print(json.dumps(_child(args[1])))
        return 0
    as_json = "--json" in args
    architectures = [a for a in args if a != "--json"] or list(ARCHITECTURES)
    if (reason := missing()) is not None:
        print(f"Error: {reason}", file=sys.stderr)
        return 1
    compiled = compile_kernels(architectures)
    print(json.dumps(compiled.as_dict()) if as_json else table(compiled))
    if not as_json:
        print(f"\n{compiled.toolkit}; {compiled.seconds} s", file=sys.stderr)
    return 1 if compiled.errors() or compiled.unlisted() else 0


if __name__ == "__main__":
    sys.exit(main())
