"""Compiler flags come from kernels/config.py only: no njit, cuda.jit or overload in kernels/ or
search/ spells its own (a hard-coded `cache=True` silently differs from the rest)."""

import ast
from pathlib import Path

import pytest

from bmn.kernels import config

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("kernels", "search")
# Decorators that compile, as the name called: `njit(...)`, `cuda.jit(...)`, `numba.njit(...)`.
COMPILERS = {"njit", "jit", "overload", "register_jitable", "vectorize", "guvectorize", "cfunc"}
CONFIG = "bmn.kernels.config"


def _module_path(module: str) -> Path | None:
    """The file of a bmn module (bmn.kernels.x -> kernels/x.py or kernels/x/__init__.py)."""
    if not module.startswith("bmn."):
        return None
    base = ROOT.joinpath(*module.split(".")[1:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.exists():
            return path
    return None


class Module:
    """One parsed module: its imports from bmn modules and its module-level assignments."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.tree = ast.parse(path.read_text(), str(path))
        self.imported: dict[str, tuple[str, str]] = {}  # local name -> (module, name there)
        self.assigned: dict[str, ast.expr] = {}
        for node in self.tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.imported[alias.asname or alias.name] = (node.module, alias.name)
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                self.assigned[node.targets[0].id] = node.value

    def from_config(self, expr: ast.expr, seen: frozenset = frozenset()) -> bool:
        """Whether `expr` (the value after `**`) is flags kernels/config.py gives: one of its
        names, a call of one of its functions, or a name bound to either here or elsewhere."""
        if isinstance(expr, ast.Call):
            return self.from_config(expr.func, seen)
        if not isinstance(expr, ast.Name) or (self.path, expr.id) in seen:
            return False
        seen = seen | {(self.path, expr.id)}
        if expr.id in self.imported:
            module, name = self.imported[expr.id]
            if module == CONFIG:
                return hasattr(config, name)
            path = _module_path(module)
            return path is not None and Module(path).from_config(ast.Name(name), seen)
        if expr.id in self.assigned:
            return self.from_config(self.assigned[expr.id], seen)
        return False

    def from_typing(self, expr: ast.expr) -> bool:
        """typing's @overload: type hints for a checker, no compiler."""
        name = getattr(expr, "id", None)
        return name in self.imported and self.imported[name][0] == "typing"

    def hard_coded(self) -> list[str]:
        """Each compiler call or decorator whose flags are not kernels/config.py's."""
        found = []
        for node in ast.walk(self.tree):
            decorators = getattr(node, "decorator_list", [])
            for bare in decorators:  # `@njit` without flags: numba's defaults, not config's
                if _compiler(bare) and not self.from_typing(bare):
                    found.append(f"{self.path}:{bare.lineno}: bare @{ast.unparse(bare)}")
            if not isinstance(node, ast.Call) or not _compiler(node.func):
                continue
            for keyword in node.keywords:
                if keyword.arg is not None or not self.from_config(keyword.value):
                    found.append(f"{self.path}:{node.lineno}: {ast.unparse(node)}")
        return found


def _compiler(expr: ast.expr) -> bool:
    name = expr.attr if isinstance(expr, ast.Attribute) else getattr(expr, "id", None)
    return name in COMPILERS


def _modules() -> list[Path]:
    return sorted(path for folder in FOLDERS for path in (ROOT / folder).rglob("*.py"))


def test_every_compiler_flag_comes_from_config():
    found = [line for path in _modules() for line in Module(path).hard_coded()]
    assert found == []


def test_the_scan_sees_the_compiled_modules():
    scanned = {path.relative_to(ROOT).as_posix() for path in _modules()}
    compiled = {"kernels/cpu/two.py", "kernels/cuda/two.py", "search/strategies/cuda/kernels.py"}
    assert compiled <= scanned


@pytest.mark.parametrize(
    "source",
    [
        "from numba import njit\n@njit(cache=True)\ndef f(): pass\n",
        "from numba import njit\n@njit\ndef f(): pass\n",
        "from numba import cuda\n@cuda.jit(device=True)\ndef f(): pass\n",
        "from numba import njit\nfrom bmn.kernels.config import JIT\n"
        "@njit(**JIT, inline='always')\ndef f(): pass\n",
        "from numba import njit\nMINE = {'cache': True}\n@njit(**MINE)\ndef f(): pass\n",
        "from bmn.kernels.config import JIT\nMINE = {**JIT, 'inline': 'always'}\n"
        "g = njit(**MINE)(f)\n",
        "from numba.extending import overload\n@overload(f, inline='always')\ndef g(x): pass\n",
    ],
)
def test_the_scan_catches_hard_coded_flags(source, tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(source)
    assert len(Module(path).hard_coded()) == 1


@pytest.mark.parametrize(
    "source",
    [
        "from bmn.kernels.config import JIT\n@njit(**JIT)\ndef f(): pass\n",
        "from bmn.kernels.config import cuda_device\nDEVICE = cuda_device(True)\n"
        "@cuda.jit(**DEVICE)\ndef f(): pass\n",
        "from bmn.kernels.cuda.two import DEVICE\n@cuda.jit(**DEVICE)\ndef f(): pass\n",
        "from bmn.kernels.config import INLINE_OVERLOAD\n"
        "@overload(f, **INLINE_OVERLOAD)\ndef g(x): pass\n",
    ],
)
def test_flags_from_config_pass(source, tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(source)
    assert Module(path).hard_coded() == []
