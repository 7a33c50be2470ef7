"""`bmn records serve`: a record store in a web browser, on Datasette (the `serve` extra).

- server.py: the checks made before serving (the store, read-only; the port; Datasette), the
  line saying who can read the pages, and the server (Datasette on uvicorn);
- plugin.py: bmn's pages as a Datasette plugin (routes rendering templates/);
- pages.py: what each page shows, from the store and the reference engine (no Datasette).

Importing this package imports no Datasette; server.app and server.run do.
"""

from __future__ import annotations

from bmn.frontends.serve.server import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    Listening,
    ServeError,
    check_datasette,
    check_store,
    listen,
    listening,
)

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "Listening",
    "ServeError",
    "check_datasette",
    "check_store",
    "listen",
    "listening",
]
