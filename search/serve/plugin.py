"""bmn's pages inside Datasette: a plugin that server.py registers (not an entry point, so an
installed Datasette run for other files never shows them).

Routes: "/" (the longest finds of each seat count; Datasette's own list of databases and
tables stays one link away), and under /-/bmn/: finds, runs, loops, published, deal (one
deal replayed) and trajectory.png. Each page's reads run in Datasette's read-only connection,
in one read transaction (pages.SnapshotReader); the content comes from pages.py.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from datasette import Response, hookimpl

from bmn.kernels.deal import DealError, parse_deal
from bmn.records.store import Store
from bmn.search.serve import pages

PLAYERS = pages.SEATS
View = Callable[[Any, Any], Awaitable[Response]]


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
            page = await _html(datasette, request, "bmn_error.html", message=str(err))
            return Response.html(page, status=400)

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
    text = _deal(request)
    shown = await _read(datasette, lambda store: pages.replay(store, text))
    return await _page(datasette, request, "bmn_deal.html", replay=shown)


@answers
async def picture(datasette: Any, request: Any) -> Response:
    text = _deal(request)
    png = await asyncio.get_running_loop().run_in_executor(None, pages.trajectory_png, text)
    return Response(png, content_type="image/png")


# -- helpers -------------------------------------------------------------------------------


async def _read(datasette: Any, read: Callable[[Store], Any]) -> Any:
    """`read(store)` in Datasette's read-only connection to the store, as one snapshot."""
    db = datasette.get_database()

    def in_snapshot(conn: Any) -> Any:
        return pages.SnapshotReader(conn, db.path).snapshot(read)

    return await db.execute_fn(in_snapshot)


async def _page(datasette: Any, request: Any, template: str, **context: Any) -> Response:
    return Response.html(await _html(datasette, request, template, **context))


async def _html(datasette: Any, request: Any, template: str, **context: Any) -> str:
    db = datasette.get_database()
    context |= {"store": db.path, "tables_url": datasette.urls.database(db.name)}
    context |= {"at": pages.PREFIX, "deal_url": pages.deal_url, "finds_url": pages.finds_url}
    return await datasette.render_template(template, context, request=request)


def _deal(request: Any) -> str:
    text = request.args.get("deal", "").strip()
    if not text:
        raise Unanswerable("name a deal: ?deal=HANDS (hands joined by '/', in any notation)")
    parse_deal(text)  # DealError: a 400 page (answers) saying what is wrong
    return text


def _choice(request: Any, name: str, allowed: Sequence[str], default: str) -> str:
    value = request.args.get(name, default)
    if value not in allowed:
        raise Unanswerable(f"{name} is one of {', '.join(allowed)}, not {value!r}")
    return value


def _count(request: Any, name: str, default: int, most: int) -> int:
    value = request.args.get(name, str(default))
    if not value.isdigit() or not 1 <= int(value) <= most:
        raise Unanswerable(f"{name} is a whole number from 1 to {most}, not {value!r}")
    return int(value)
