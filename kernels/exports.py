"""Lazy exports: a package's public names, imported from its API module on first use.

`bmn.kernels`, `bmn.records` and `bmn.search` each name the module that holds their library
(its `__all__` is the one list of their public names) and hand it to `lazy_exports`, which
gives them the module-level `__getattr__` and `__dir__` (PEP 562). So `import bmn.kernels`
imports no numba and compiles nothing, and `bmn --help` stays instant: the API module is
imported when one of its names (or the package's `__all__`, or `dir()`) is first asked for.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Any


def lazy_exports(
    package: str, namespace: dict[str, Any], api: str
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(`__getattr__`, `__dir__`) for `package`, whose globals are `namespace`: a name of the
    module `api`'s `__all__` is taken from it on first use and kept in `namespace`."""

    def __getattr__(name: str) -> Any:
        # Dunders asked by tools, and submodules not imported yet (`from bmn.kernels import
        # reference` asks here first, maybe while api.py itself is importing): never the API.
        if name.startswith("_") and name != "__all__" or _submodule(package, name):
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if importlib.util.find_spec(f"{package}.{name}") is not None:
            # `from bmn.kernels import reference` before the submodule is loaded asks here
            # first: AttributeError lets the import system load it, where importing the API
            # module could come back round to a module only half imported.
            raise AttributeError(f"module {package!r} has not imported {name!r} yet")
        module = importlib.import_module(api)
        if name == "__all__":
            value: Any = list(module.__all__)
        elif name in module.__all__:
            value = getattr(module, name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        namespace[name] = value  # the next lookup finds it without a call
        return value

    def __dir__() -> list[str]:
        # The public names and the package's submodules and dunders; not what its own
        # imports left in its namespace (TYPE_CHECKING, annotations, lazy_exports, and this
        # module, a submodule of bmn.kernels that its __init__ imports to export lazily).
        kept = {n for n in namespace if n.startswith("__") or _submodule(package, n)}
        kept.discard(__name__.rpartition(".")[2] if __name__.startswith(f"{package}.") else "")
        return sorted(kept | set(importlib.import_module(api).__all__))

    return __getattr__, __dir__


def _submodule(package: str, name: str) -> bool:
    return name != "__all__" and importlib.util.find_spec(f"{package}.{name}") is not None
