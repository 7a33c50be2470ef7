"""bmn's CUDA kernels compiled by NVIDIA's compiler (NVVM, then ptxas), no GPU needed.

The simulator tests run the kernels as Python; here every kernel bmn launches is compiled for
the A100's and the H100/H200's architectures (lab/cuda_compiled.py, in child
interpreters without the simulator), and must compile, must not spill to local memory, and
must keep its registers within the bounds below: more registers means fewer threads resident,
which is the GPU's speed. A kernel added to bmn without a line in compiled.KERNELS (and a
bound here) fails the test.
"""

import pytest

from lab import cuda_compiled
from lab.cuda_compiled import ARCHITECTURES, KERNELS, arch_of, parse_ptxas

# Registers per thread measured 2026-12-02 (numba-cuda 0.30.4, NVVM and ptxas of CUDA 12.9,
# `python -m lab.cuda_compiled`); a kernel may take HEADROOM more.
MEASURED = {
    ("score", "sm_80"): 43,
    ("score", "sm_90a"): 45,
    ("walk", "sm_80"): 78,
    ("walk", "sm_90a"): 78,
    ("random", "sm_80"): 64,
    ("random", "sm_90a"): 64,
    ("every", "sm_80"): 80,
    ("every", "sm_90a"): 70,
    ("walk_64_registers", "sm_80"): 64,
    ("walk_64_registers", "sm_90a"): 64,
    # A rule set's copies (2026-12-03): the same registers as bmn's
    ("score_leodog896", "sm_80"): 43,
    ("score_leodog896", "sm_90a"): 45,
    ("walk_leodog896", "sm_80"): 78,
    ("walk_leodog896", "sm_90a"): 78,
    ("every_leodog896", "sm_80"): 80,
    ("every_leodog896", "sm_90a"): 70,
}
HEADROOM = 8
# Spill bytes (stores and loads each) a kernel may have: none, but for the walk capped at 64
# registers, which spills by design (60 and 68 bytes on both architectures, 2026-12-02): the
# device check measures what that costs. The bound catches a blow-up.
SPILLS = {"walk_64_registers": 128}

# ptxas -v on the 64-register walk for sm_90a, as it printed it (the mangled name shortened).
REPORT = """\
ptxas info    : Overriding maximum register limit 256 for '_ZN3bmn_walk' with  64 of maxrregcount option
ptxas info    : 200 bytes gmem
ptxas info    : Compiling entry function '_ZN3bmn_walk' for 'sm_90a'
ptxas info    : Function properties for _ZN3bmn_walk
    96 bytes stack frame, 60 bytes spill stores, 68 bytes spill loads
ptxas info    : Used 64 registers, used 1 barriers, 96 bytes cumulative stack size, 4 bytes smem
ptxas info    : Compile time = 168.841 ms
"""  # noqa: E501


def test_a_ptxas_report_gives_the_figures():
    assert parse_ptxas(REPORT) == {
        "registers": 64,
        "spill_stores": 60,
        "spill_loads": 68,
        "stack_bytes": 96,
        "local_bytes": 96,
        "shared_bytes": 4,
    }
    plain = "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    assert (
        parse_ptxas(plain + "ptxas info    : Used 45 registers, used 0 barriers")["shared_bytes"]
        == 0
    )
    with pytest.raises(ValueError, match="no register count"):
        parse_ptxas("ptxas fatal   : Unresolved extern function 'f'")


def test_architectures_are_named_as_numba_cuda_launches_name_them():
    assert [arch_of(cc) for cc in ((8, 0), (8, 9), (9, 0), (10, 0))] == [
        "sm_80",
        "sm_89",
        "sm_90a",
        "sm_100a",
    ]


def test_every_kernel_and_architecture_has_a_bound():
    listed = {(k.name, arch) for k in KERNELS for arch in ARCHITECTURES}
    assert listed == set(MEASURED)
    assert len({k.name for k in KERNELS}) == len(KERNELS)


def _problems(row: dict) -> list[str]:
    """What is wrong with one kernel's figures for one architecture."""
    where = f"{row['kernel']} {row['arch']}"
    if "error" in row:
        return [f"{where} does not compile: {row['error']}"]
    problems = []
    bound = MEASURED[row["kernel"], row["arch"]] + HEADROOM
    if row["max_registers"]:
        bound = min(bound, row["max_registers"])
    if row["registers"] > bound:
        problems.append(f"{where}: {row['registers']} registers, bound {bound}")
    spills = SPILLS.get(row["kernel"], 0)
    if max(row["spill_stores"], row["spill_loads"]) > spills:
        loads = row["spill_loads"]
        problems.append(f"{where}: spills {row['spill_stores']} / {loads} bytes (at most {spills})")
    return problems


@pytest.mark.slow  # two children compile for 16-18 s of CPU: 18-48 s on two shared cores
def test_every_kernel_compiles_without_spills_within_its_registers():
    assert cuda_compiled.missing() is None  # the test extra brings ptxas
    compiled = cuda_compiled.compile_kernels()
    assert compiled.errors() == []
    # The kernels found in bmn's modules are those listed, no more and no fewer.
    assert compiled.found == sorted({k.qualified for k in KERNELS})
    assert compiled.unlisted() == []
    assert {(r["kernel"], r["arch"]) for r in compiled.rows} == set(MEASURED)
    assert [p for row in compiled.rows for p in _problems(row)] == []
    assert "release 12." in compiled.toolkit
    walk = [r for r in compiled.rows if r["kernel"] == "walk"]
    assert all(r["shared_bytes"] == 4 and r["local_bytes"] >= 52 for r in walk)  # taken, deck


def test_the_bounds_catch_registers_spills_and_errors():
    row = {"kernel": "walk", "arch": "sm_90a", "max_registers": None}
    fine = row | {"registers": 86, "spill_stores": 0, "spill_loads": 0}
    assert _problems(fine) == []
    assert _problems(fine | {"registers": 87}) == ["walk sm_90a: 87 registers, bound 86"]
    assert _problems(fine | {"spill_loads": 4}) == ["walk sm_90a: spills 0 / 4 bytes (at most 0)"]
    capped = fine | {"kernel": "walk_64_registers", "max_registers": 64, "spill_stores": 60}
    assert _problems(capped) == ["walk_64_registers sm_90a: 86 registers, bound 64"]
    assert _problems(row | {"error": "ptxas fatal"}) == [
        "walk sm_90a does not compile: ptxas fatal"
    ]
