"""The backends by name: the one place a run's backend is chosen (see base.py for the interface)."""

from __future__ import annotations

import importlib
from typing import Any

from bmn.search.backends.base import Backend

# name -> "module:class"; imported on use.
BACKENDS = {
    "threads": "bmn.search.backends.threads:ThreadBackend",
    "dask": "bmn.search.backends.dask_cluster:DaskBackend",
}


def get_backend(name: str = "threads", **settings: Any) -> Backend:
    """The backend registered under `name`, made with `settings`."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    module, _, cls = BACKENDS[name].partition(":")
    return getattr(importlib.import_module(module), cls)(**settings)
