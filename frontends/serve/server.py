"""Serving a record store: the checks made before anything starts, and the server itself.

Read-only without freezing the file: Datasette opens a database it treats as mutable with
SQLite's `mode=ro` (it reads, never writes) and not `immutable=1` (which tells SQLite the file
never changes, so it would skip locks and the WAL and could show a half-written commit of a
search writing the same store). The store's WAL journal lets pages read while a search writes.

Everything that can be wrong is found before the server starts, each as one line: a missing
or foreign store (StoreError, as every bmn command says it), a port in use or a host that
cannot be listened on, Datasette not installed (ServeError). The listening socket is bound
here, then handed to the server, so the port checked is the port served (and port 0 picks any
free one).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import ipaddress
import os
import signal
import socket
import sqlite3
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bmn.records.api import (
    SCHEMA_VERSION,
    STORE_BESIDE,
    StoreError,
    check_store_identity,
    connect_store,
    store_found,
    store_open_mode,
    store_version,
)
from bmn.records.api import explain_query as explain

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8001  # Datasette's own default
TEMPLATES = Path(__file__).with_name("templates")
INSTALL = "pip install 'bmn[serve]'"


class ServeError(Exception):
    """Serving cannot start: the port is in use, the host cannot be listened on, or Datasette
    is not installed. The message is one line saying what to do."""


# -- the checks ------------------------------------------------------------------------------


def check_store(path: str | Path) -> Path:
    """The store at `path`, checked without writing a byte: it exists, is a bmn store, and is
    at this bmn's schema (serving cannot upgrade what it only reads). StoreError otherwise."""
    path = Path(path)
    if not store_found(path):  # StoreError for a folder, a FIFO, a device, a bad path
        raise StoreError(
            f"no record store at {path}; run `bmn search` to make one, or name an existing store"
        )
    # The store's own reader: it leaves no -wal or -shm beside the store (a mode=ro
    # connection would), and reads a store it may not write as every bmn reader does.
    conn = connect_store(path, create=False, read_only=True)
    try:
        empty = check_store_identity(conn, path)
        version = store_version(conn)
    except sqlite3.Error as err:
        raise StoreError(explain(path, err)) from err
    finally:
        conn.close()
    if empty:
        raise StoreError(f"{path} is empty, not a bmn record store")
    if version < SCHEMA_VERSION:
        raise StoreError(
            f"record store {path} has schema version {version}, older than this bmn's"
            f" ({SCHEMA_VERSION}); serving only reads, so upgrade it first:"
            f" bmn records upgrade --store {path}"
        )
    return path


def check_datasette() -> None:
    """ServeError unless Datasette (the `serve` extra) is installed."""
    try:
        import datasette  # noqa: F401
    except ImportError:
        raise ServeError(f"bmn records serve needs Datasette: {INSTALL}") from None


def listen(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> socket.socket:
    """A socket bound to (host, port) and listening; ServeError if the port is taken or the
    host is not an address of this machine."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as err:
        raise ServeError(f"cannot listen on host {host!r}: {err}") from None
    sock = socket.socket(family, kind, proto)
    # Reuse a port a server that just stopped leaves in TIME_WAIT; a live listener still
    # refuses the bind on Linux.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as err:
        sock.close()
        if err.errno == errno.EADDRINUSE:
            raise ServeError(
                f"port {port} on {host} is in use by another program; choose another with"
                " --port (--port 0 takes any free one)"
            ) from None
        raise ServeError(f"cannot listen on {host} port {port}: {err.strerror}") from None
    return sock


# -- what it says ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Listening:
    """Where a bound socket serves, and who can reach it."""

    host: str
    port: int

    @property
    def local_only(self) -> bool:
        """Bound to a loopback address: only programs on this machine can connect."""
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return self.host == "localhost"

    @property
    def everywhere(self) -> bool:
        """Bound to every interface of the machine (0.0.0.0 or ::)."""
        try:
            return ipaddress.ip_address(self.host).is_unspecified
        except ValueError:
            return False

    @property
    def url(self) -> str:
        host = socket.gethostname() if self.everywhere else self.host
        if ":" in host:  # an IPv6 address
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def who_can_read(self) -> str:
        """One line: who can open the pages (nobody can change the store through them)."""
        if self.local_only:
            return (
                f"read-only; only this machine can open it (bound to {self.host});"
                " --host shares it; Ctrl-C stops"
            )
        where = "any address of this machine" if self.everywhere else self.host
        return (
            f"read-only, shared: anyone who can reach {where} on port {self.port} can read"
            " the whole store (there is no password); Ctrl-C stops"
        )


def listening(sock: socket.socket, host: str) -> Listening:
    """What a socket from `listen` serves: the host asked for, the port bound (0 was any)."""
    return Listening(host, sock.getsockname()[1])


# -- the server ------------------------------------------------------------------------------


def app(path: Path) -> Any:
    """A Datasette over the store at `path` (checked by check_store), with bmn's pages."""
    from datasette.app import Datasette
    from datasette.plugins import pm

    from bmn.frontends.serve import plugin

    if not pm.is_registered(plugin):
        pm.register(plugin, name="bmn")
    name = path.stem
    metadata = {
        "title": f"bmn record store: {path.name}",
        "description": "Read-only. The bmn pages list finds kept in bulk with the others.",
        "databases": {
            name: {
                "tables": {
                    "find_batches": {
                        "description": "Short finds of a search, packed a chunk's to a row:"
                        " bmn's pages (the top page, /-/bmn/finds) list them with the others."
                    },
                    "checkpoints": {"hidden": True},
                }
            }
        },
    }
    # A store we could write beside is opened mutable (mode=ro, see the docstring); one in a
    # read-only folder with nothing beside it can have no writer: read as immutable, which
    # needs no -shm beside it (the store's own readers decide the same way).
    frozen = "immutable" in store_open_mode(path, create=False, read_only=True)
    where = {"immutables" if frozen else "files": [str(path.absolute())]}
    datasette = Datasette(
        **where,
        metadata=metadata,
        template_dir=str(TEMPLATES),
        settings={"default_allow_sql": True, "sql_time_limit_ms": 3000},
    )
    # A visitor's bad SQL is answered on its error page; serve's stderr is for the server's
    # own problems, not one line per query a visitor got wrong.
    db = datasette.get_database()
    db.execute = _quiet(db.execute)
    return datasette


def _quiet(execute: Any) -> Any:
    """Datasette's Database.execute, never logging a failed query (its callers ask it to)."""

    @functools.wraps(execute)
    async def quietly(*args: Any, **kwargs: Any) -> Any:
        return await execute(*args, **(kwargs | {"log_sql_errors": False}))

    return quietly


class _Stopped(Exception):
    """SIGTERM, raised where Ctrl-C raises KeyboardInterrupt."""


def _stopped(signum: int, frame: object) -> None:
    raise _Stopped


def run(datasette: Any, sock: socket.socket) -> None:
    """Serve on the socket `listen` bound until Ctrl-C or SIGTERM, then return, leaving the
    store's folder as it was."""
    import uvicorn

    path = Path(datasette.get_database().path)
    before = _beside(path)
    # "error": uvicorn's warnings are about what clients sent (an invalid request), and every
    # error a page meets is answered by the plugin, in one line on stderr at most.
    config = uvicorn.Config(datasette.app(), log_level="error", lifespan="on")
    # uvicorn stops on Ctrl-C or SIGTERM, then raises the signal again, which would kill the
    # process before it tidies: here stopping is what was asked for.
    previous = signal.signal(signal.SIGTERM, _stopped)
    try:
        with contextlib.suppress(KeyboardInterrupt, _Stopped), warnings.catch_warnings():
            # Datasette leaves a failed facet's other queries unawaited (`?_facet=nothing`):
            # not worth three lines on serve's stderr for each such request.
            warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)
            uvicorn.Server(config).run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)
        for database in datasette.databases.values():
            database.close()
        if _beside(path) - before:
            _tidy(path)


def _beside(path: Path) -> set[Path]:
    """The files SQLite keeps beside the store that are there now."""
    real = os.path.realpath(path)
    return {Path(f"{real}{end}") for end in STORE_BESIDE if os.path.lexists(f"{real}{end}")}


def _tidy(path: Path) -> None:
    """Remove the -wal and -shm that Datasette's read-only connections leave: the store's own
    reader (read-write, kept query-only) removes them as it closes, when no other connection
    (a search's) has the store open, and SQLite keeps them while one has."""
    try:
        conn = connect_store(path, create=False, read_only=True)
    except StoreError:
        return  # gone, replaced or read-only: nothing serving may tidy
    try:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("PRAGMA user_version")  # opens the WAL: closing is what tidies
    finally:
        conn.close()
