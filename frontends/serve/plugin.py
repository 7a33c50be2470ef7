"""bmn's pages inside Datasette: a plugin that server.py registers (not an entry point, so an
installed Datasette run for other files never shows them).

Routes: "/" (the longest finds of each seat count; Datasette's own list of databases and
tables stays one link away), and under /-/bmn/: finds, runs, loops, published, deal (one
deal replayed) and trajectory.png. Each page's reads run in Datasette's read-only connection,
in one read transaction (pages.SnapshotReader); the content comes from pages.py.

Every error page, Datasette's own among them, is bmn's (bmn_error.html, or JSON for a .json
URL): a 4xx for what a request asked, a 503 once the store is gone, replaced or no longer
readable as this bmn's, or when a page meets a value the store should not hold (StoreDamaged,
naming the table, the row and what is wrong), a 500 for anything else. Serve's stdout holds
only its URL line, so Datasette's own error handler, which prints a traceback with its
locals there, never runs; a problem of the server's own says one line on stderr.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import sqlite3
import sys
import weakref
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from datasette import Response, hookimpl
from datasette.utils.asgi import Base400, NotFound, Request
from datasette.views.base import DatasetteError
from markupsafe import Markup

from bmn.frontends.serve import pages
from bmn.kernels.api import DealError, shorten
from bmn.records.api import SCHEMA_VERSION, Store, StoreError, connect_store, store_version

PLAYERS = pages.SEATS
View = Callable[[Any, Any], Awaitable[Response]]


class StoreChanged(RuntimeError):
    """The store is no longer one this bmn reads: a 503 page (the exception handler's check
    of the store says how it changed)."""


class Unanswerable(ValueError):
    """A request naming something no page can show (a deal bmn cannot read, a bad choice):
    a 400 page saying what is wrong. Raised here and turned into the page by `answers`, not
    left to Datasette, which prints the traceback of any error a view raises."""


def answers(view: View) -> View:
    @functools.wraps(view)
    async def answer(datasette: Any, request: Any) -> Response:
        try:
            return await view(datasette, request)
        except (Unanswerable, DealError) as err:
            return await _error(datasette, request, 400, str(err))

    return answer


@hookimpl
def register_routes() -> list[tuple[str, Callable]]:
    at = pages.PREFIX
    return [
        (r"^/$", index),
        (rf"^{at}/finds$", finds),
        (rf"^{at}/runs$", runs),
        (rf"^{at}/loops$", loops),
        (rf"^{at}/published$", published),
        (rf"^{at}/deal$", deal),
        (rf"^{at}/trajectory\.png$", picture),
    ]


@hookimpl(wrapper=True)
def handle_exception(datasette: Any, request: Any, exception: Exception) -> Any:
    """Answer every error with bmn's page. A wrapper, so that it can drop the answer of
    Datasette's own handler before that runs (it returns a function not yet called)."""
    yield
    return [_refusal(datasette, request, exception)]


@hookimpl
def forbidden(datasette: Any, request: Any, message: str) -> Callable[[], Awaitable[Response]]:
    """A 403 (a write the read-only store refuses) on bmn's error page too."""
    return lambda: _error(datasette, request, 403, message)


@hookimpl
def asgi_wrapper(datasette: Any) -> Callable[[Any], Any]:
    """Before each request: a 405 page for any method but GET (the store is read-only here,
    and some of Datasette's views fail when posted to), a 503 page once the store is not the
    file serving began with; and a last net for any error raised outside a view, which
    uvicorn would print with its traceback."""
    watch = _WATCHES[datasette] = Watch(Path(datasette.get_database().path))

    def wrap(app: Any) -> Any:
        async def guarded(scope: dict, receive: Any, send: Any) -> None:
            if scope["type"] != "http" or scope["path"].startswith("/-/static"):
                return await app(scope, receive, send)
            started = False

            async def sending(message: dict) -> None:
                nonlocal started
                started = started or message["type"] == "http.response.start"
                await send(message)

            try:
                # Outside Datasette's CSRF layer, which gives its pages a token; ours post nothing.
                request = Request({"csrftoken": lambda: ""} | scope, receive)
                # Once per app (a no-op after): a refusal can come before Datasette's router,
                # which starts it, has seen a request; its page needs the templates set up.
                await datasette.invoke_startup()
                response = await _refused(datasette, watch, request)
                if response is None:
                    return await app(scope, receive, sending)
            except Exception as err:  # noqa: BLE001 - the last net: one line, never a traceback
                _say(f"{scope.get('method')} {scope['path']}: {_what(err)}")
                if started:
                    return  # half a page sent: the client sees it cut off
                response = Response.text("bmn records serve could not answer this", status=500)
            await response.asgi_send(send)

        return guarded

    return wrap


@answers
async def index(datasette: Any, request: Any) -> Response:
    by = _choice(request, "by", pages.RANKS, "cards")
    tops = await _read(datasette, lambda store: pages.overview(store, by))
    return await _page(datasette, request, "bmn_index.html", tops=tops, by=by)


@answers
async def finds(datasette: Any, request: Any) -> Response:
    by = _choice(request, "by", pages.RANKS, "cards")
    seats = int(_choice(request, "seats", tuple(map(str, PLAYERS)), "2"))
    n = _count(request, "n", pages.TOP_DEFAULT, pages.TOP_MOST)
    found = await _read(datasette, lambda store: pages.longest(store, seats, by, n))
    return await _page(datasette, request, "bmn_finds.html", found=found, players=PLAYERS)


@answers
async def runs(datasette: Any, request: Any) -> Response:
    table = await _read(datasette, pages.runs)
    return await _page(datasette, request, "bmn_runs.html", table=table)


@answers
async def loops(datasette: Any, request: Any) -> Response:
    table = await _read(datasette, pages.loops)
    return await _page(datasette, request, "bmn_loops.html", table=table)


@answers
async def published(datasette: Any, request: Any) -> Response:
    tables = [(players, pages.published(players)) for players in PLAYERS]
    return await _page(datasette, request, "bmn_published.html", tables=tables)


@answers
async def deal(datasette: Any, request: Any) -> Response:
    text, rules = _deal(request), request.args.get("rules", "")
    shown = await _read(datasette, lambda store: pages.replay(store, text, rules))
    return await _page(datasette, request, "bmn_deal.html", replay=shown)


@answers
async def picture(datasette: Any, request: Any) -> Response:
    text, rules = _deal(request), request.args.get("rules", "")
    draw = functools.partial(pages.trajectory_png, text, rules)
    png = await asyncio.get_running_loop().run_in_executor(None, draw)
    return Response(png, content_type="image/png")


# -- helpers -------------------------------------------------------------------------------


async def _read(datasette: Any, read: Callable[[Store], Any]) -> Any:
    """`read(store)` in Datasette's read-only connection to the store, as one snapshot."""
    db = datasette.get_database()

    def in_snapshot(conn: Any) -> Any:
        if store_version(conn) != SCHEMA_VERSION:  # copied over by another release's
            raise StoreChanged(f"{db.path} is no longer at schema version {SCHEMA_VERSION}")
        return pages.SnapshotReader(conn, db.path).snapshot(read)

    return await db.execute_fn(in_snapshot)


async def _page(datasette: Any, request: Any, template: str, **context: Any) -> Response:
    return Response.html(await _html(datasette, request, template, **context))


async def _html(datasette: Any, request: Any, template: str, **context: Any) -> str:
    db = datasette.get_database()
    context |= {"store": db.path, "tables_url": datasette.urls.database(db.name)}
    context |= {"at": pages.PREFIX, "deal_url": pages.deal_url, "finds_url": pages.finds_url}
    context |= {"rule_sets": pages.RULE_NAMES}
    return await datasette.render_template(template, context, request=request)


def _deal(request: Any) -> str:
    text = request.args.get("deal", "").strip()
    if not text:
        raise Unanswerable("name a deal: ?deal=HANDS (hands joined by '/', in any notation)")
    pages.read_deal(text)  # as `bmn play` reads it; DealError: a 400 page (answers)
    return text


def _choice(request: Any, name: str, allowed: Sequence[str], default: str) -> str:
    value = request.args.get(name, default)
    if value not in allowed:
        raise Unanswerable(f"{name} is one of {', '.join(allowed)}, not {shorten(value)!r}")
    return value


def _count(request: Any, name: str, default: int, most: int) -> int:
    value = request.args.get(name, str(default))
    # ASCII digits only: str.isdigit() takes '²', which int() refuses; and a short number,
    # since int() refuses (and is slow near) thousands of digits.
    if not re.fullmatch(r"[0-9]{1,9}", value) or not 1 <= int(value) <= most:
        raise Unanswerable(f"{name} is a whole number from 1 to {most}, not {shorten(value)!r}")
    return int(value)


# -- errors --------------------------------------------------------------------------------

GONE = "The store is gone or changed"
DAMAGED = "The store cannot be read"


class Watch:
    """The store as serving found it (its device and inode), to tell when the file is gone,
    replaced, or (deep: read again) no longer a store of this bmn's schema."""

    def __init__(self, path: Path):
        self.path = path
        self.identity = self._identity()
        self._said: set[str] = set()

    def _identity(self) -> tuple[int, int] | None:
        try:
            info = os.stat(self.path)
        except OSError:
            return None
        return info.st_dev, info.st_ino

    def problem(self, deep: bool) -> str | None:
        """One line saying why the store can no longer be served, or None."""
        now = self._identity()
        restart = "; restart bmn records serve to serve a store again"
        if now is None:
            return f"the record store {self.path} is gone (deleted or moved) since serving began"
        if now != self.identity:
            return f"the record store {self.path} was replaced since serving began{restart}"
        if not deep:
            return None
        try:  # the store's own reader: it makes nothing beside an archived store
            conn = connect_store(self.path, create=False, read_only=True)
            try:
                version = store_version(conn)
            finally:
                conn.close()
        except (StoreError, sqlite3.Error) as err:
            return f"cannot read the record store {self.path} any more: {err}"
        if version != SCHEMA_VERSION:
            return (
                f"the record store {self.path} is now at schema version {version}, not this"
                f" bmn's ({SCHEMA_VERSION}): it was replaced or changed since serving began"
                " (bmn records upgrade --store upgrades an older one)"
            )
        return None

    def say(self, problem: str) -> None:
        """The problem on stderr once, however many requests meet it."""
        if problem not in self._said:
            self._said.add(problem)
            _say(problem)


_WATCHES: weakref.WeakKeyDictionary[Any, Watch] = weakref.WeakKeyDictionary()


async def _refused(datasette: Any, watch: Watch, request: Any) -> Response | None:
    """The page refusing a request before Datasette sees it, or None to let it through."""
    if request.method not in ("GET", "HEAD"):
        message = f"the store is read-only here: its pages answer GET, not {request.method}"
        return await _error(datasette, request, 405, message)
    if (gone := watch.problem(deep=False)) is not None:
        watch.say(gone)
        return await _error(datasette, request, 503, gone, GONE)
    return None


async def _refusal(datasette: Any, request: Any, exception: Exception) -> Response:
    """The error page for an exception a view raised: what was asked, or what went wrong."""
    if isinstance(exception, Base400):
        message = str(exception.args[0]) if exception.args else ""
        # One store served: a first part of a path that names no page is no database either.
        if isinstance(exception, NotFound) and message in ("", "404", "Database not found"):
            message = f"no page at {shorten(request.path)}"
        return await _error(datasette, request, exception.status, message)
    watch = _WATCHES.get(datasette) or Watch(Path(datasette.get_database().path))
    if (gone := watch.problem(deep=True)) is not None:
        watch.say(gone)
        return await _error(datasette, request, 503, gone, GONE)
    if isinstance(exception, StoreError):  # a value the store holds is not bmn's: StoreDamaged
        watch.say(str(exception))
        return await _error(datasette, request, 503, str(exception), DAMAGED)
    if isinstance(exception, DatasetteError):
        # Raised for what a request asked; its default status, 500, is a bad _sort's too.
        message = Markup(exception.message) if exception.message_is_html else exception.message
        status = exception.status if exception.status < 500 else 400
        return await _error(datasette, request, status, message, exception.title)
    if request.query_string and not _ours(request.path):
        # Datasette's pages fail on some malformed parameters with a bare exception
        # (`_through=` a JSONDecodeError): with the store found sound, the request's doing.
        message = f"Datasette cannot read this request's parameters: {_what(exception)}"
        return await _error(datasette, request, 400, message)
    _say(f"{request.method} {shorten(request.path)}: {_what(exception)}")
    return await _error(datasette, request, 500, f"bmn records serve failed: {_what(exception)}")


async def _error(
    datasette: Any, request: Any, status: int, message: str, title: str | None = None
) -> Response:
    """bmn's error page (JSON for a .json URL, as Datasette answers those)."""
    if request.path.endswith(".json"):
        body = {"ok": False, "error": message, "status": status, "title": title}
        return Response.json(body, status=status)
    try:
        page = await _html(
            datasette, request, "bmn_error.html", message=message, title=title, status=status
        )
    except Exception as err:  # noqa: BLE001 - a page about an error must not fail itself
        _say(f"cannot render the error page: {_what(err)}")
        return Response.text(f"{status}: {message}", status=status)
    return Response.html(page, status=status)


def _ours(path: str) -> bool:
    """Whether `path` is one of bmn's pages (the others are Datasette's)."""
    return path == "/" or path.startswith(f"{pages.PREFIX}/")


def _what(err: BaseException) -> str:
    return shorten(f"{type(err).__name__}: {err}".replace("\n", " "), 300)


def _say(line: str) -> None:
    print(f"bmn records serve: {line}", file=sys.stderr, flush=True)
