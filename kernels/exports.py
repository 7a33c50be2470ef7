"""Lazy exports: a package's public names, imported from their modules on first use.

`bmn.kernels`, `bmn.records` and `bmn.search` each name what they offer as "module:attr" and
hand the table to `lazy_exports`, which gives them the module-level `__getattr__` and `__dir__`
(PEP 562). So `import bmn.kernels` imports no numba and compiles nothing, and `bmn --help`
stays instant: a function's module is imported when the function is first asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, namespace: dict[str, Any], exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """(`__getattr__`, `__dir__`) for `package`, whose globals are `namespace`: a name of
    `exports` is imported from its "module:attr" on first use and kept in `namespace`."""

    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attr = target.partition(":")
        value = getattr(importlib.import_module(module), attr)
        namespace[name] = value  # the next lookup finds it without a call
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
