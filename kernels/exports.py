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


def front_door(
    api: str, declared: dict[str, str]
) -> tuple[dict[str, tuple[str, str]], Callable[[str], Any]]:
    """The front ends' door of an engine package's API module `api` (bmn.kernels.api): the
    names beyond the library that bmn.frontends takes from it, declared as {module: names},
    the module under the package and its names split by spaces, `door=name` where the door
    calls one otherwise (the library has a name of other meaning). Gives the door, {door name:
    (module, name)}, and the API module's `__getattr__`: it imports a name's module on first
    use (so `bmn --help` imports no numba) and looks the name up at each use (a test that
    patches the module is seen)."""
    package = api.rpartition(".")[0]
    door = {}
    for module, names in declared.items():
        for item in names.split():
            called, _, name = item.rpartition("=")
            door[called or name] = (f"{package}.{module}", name)

    def __getattr__(name: str) -> Any:
        if name not in door:
            raise AttributeError(f"module {api!r} has no attribute {name!r}")
        module, attribute = door[name]
        return getattr(importlib.import_module(module), attribute)

    return door, __getattr__
