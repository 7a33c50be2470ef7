"""`bmn records serve` against hostile requests and a store that changes under it.

Every route answers a page of its own or a 4xx page (a 503 once the store is gone), never a
traceback; serve's stdout holds only its URL line and its stderr one line per problem of the
server's own. In this process through Datasette's client (the real app, no server): hostile
query strings on every route (hypothesis, bounded), the store deleted, replaced or made
read-only, the bounds of a deal's page. In a child process (`bmn records serve --port 0`,
urllib to 127.0.0.1): the same answers and what serve prints, and the folder left as it was.
"""

from __future__ import annotations

import asyncio
import html
import os
import random
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from old_stores import old_store
from samples import PAULHUS
from tiers import diagonal, sizes

from bmn.frontends.serve import pages
from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.reference import play
from bmn.records.store import Find, Store

# Datasette leaves a failed facet's other queries unawaited (`?_facet=x`); serve ignores the
# warning as this does (server.run), so the in-process answers here are read as serve's are.
pytestmark = pytest.mark.filterwarnings("ignore:coroutine .* was never awaited:RuntimeWarning")

HANG_SECONDS = 600.0  # a server that has not answered by then never will
NAME = "records"  # the store's file is records.sqlite: Datasette names its database so
BMN_ROUTES = ["/", *(f"{pages.PREFIX}/{page}" for page in ("finds", "runs", "loops"))]
BMN_ROUTES += [f"{pages.PREFIX}/{page}" for page in ("published", "deal", "trajectory.png")]
DATASETTE_ROUTES = [f"/{NAME}", f"/{NAME}/finds", f"/{NAME}/runs", f"/{NAME}.json"]
DATASETTE_ROUTES += [f"/{NAME}/finds.json", f"/{NAME}/finds/1", "/-/versions", "/nonexistent"]
ROUTES = BMN_ROUTES + DATASETTE_ROUTES
# The names each route reads, and Datasette's own table and query parameters.
NAMES = ["n", "seats", "by", "deal", "sql", "_sort", "_sort_desc", "_size", "_col", "_nocol"]
NAMES += ["_facet", "_next", "_search", "_where", "_through", "_shape", "_labels", "_json"]
HOSTILE = ["", " ", "²", "٣", "-1", "0", "1.5", "1e9", "NaN", "9" * 5000, "1" * 30, "\x00"]
HOSTILE += ["%", "%zz", "ünï", "[]", "{}", "'; drop table finds; --", "-J/Q-/", "/", "./."]
HOSTILE += ["cards", "tricks", "finds", "deal", "x" * 3000, "select * from finds", "max"]
RAW = ["%", "%%", "%zz=1", "&&&", "==", "n", "n=", "deal=%ff%fe", "by=cards&by=x", "a" * 8000]


def make_store(path: Path) -> Path:
    """A small store: a run with one find kept as a row."""
    with Store(path) as db:
        run = db.create_run("walk", "cards", 1, {})
        result = play(parse_deal(PAULHUS))
        db.add_finds(run, [Find(PAULHUS, result.cards, result.tricks, elapsed=1.0)])
        db.update_run(run, status="finished", best_deal=PAULHUS, best_cards=result.cards)
    return path


@pytest.fixture
def store(tmp_path) -> Path:
    return make_store(tmp_path / f"{NAME}.sqlite")


@pytest.fixture
def served(store):
    """get(url, method) -> (status, text) through Datasette's client, on `store`."""
    pytest.importorskip("datasette")
    from bmn.frontends.serve.server import app

    datasette = app(store)

    def get(url: str, method: str = "GET") -> tuple[int, str]:
        response = asyncio.run(datasette.client.request(method, url))
        return response.status_code, response.content.decode("utf-8", "replace")

    return get


def answered(status: int, page: str, url: str) -> None:
    """A page, a redirect or a refusal of the request, never a 5xx: bmn's error page, but for
    JSON and Datasette's SQL page, which shows a query's error beside the query to fix."""
    assert status < 500 and "Traceback" not in page, (url, status, page[:2000])
    path, _, query = url.partition("?")
    if status >= 400 and not path.endswith(".json") and "sql=" not in query:
        assert 'id="bmn-error"' in page, (url, status, page[:2000])


# -- hostile requests, in this process -------------------------------------------------------


QUERIES = st.dictionaries(
    st.sampled_from(NAMES),
    st.sampled_from(HOSTILE)
    | st.text(max_size=40)
    | st.integers(min_value=-(2**70), max_value=2**70).map(str),
    max_size=3,
)


@pytest.mark.parametrize("examples", sizes(40, 150))
def test_every_route_answers_hostile_query_strings(served, capfd, examples):
    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(route=st.sampled_from(ROUTES), query=QUERIES)
    def answers(route, query):
        url = f"{route}?{urllib.parse.urlencode(query)}"
        answered(*served(url), url)
        out, err = capfd.readouterr()
        assert out == "" and err == "", (url, out, err)

    answers()


@pytest.mark.parametrize("route, raw", diagonal(ROUTES, RAW))
def test_raw_query_strings(served, capfd, route, raw):
    answered(*served(f"{route}?{raw}"), f"{route}?{raw}")
    assert capfd.readouterr() == ("", "")


def test_other_methods_are_refused(served, capfd):
    for method in ("POST", "PUT", "DELETE"):
        for route in (*BMN_ROUTES, f"/{NAME}/finds", f"/{NAME}/finds/-/insert", f"/{NAME}"):
            status, page = served(route, method)
            assert 400 <= status < 500 and 'id="bmn-error"' in page, (method, route, status)
    assert capfd.readouterr() == ("", "")


def test_refusals_say_what_is_wrong(served):
    cases = {
        "/-/bmn/finds?n=%C2%B2": "n is a whole number from 1 to 1000, not '²'",
        "/-/bmn/finds?n=" + "9" * 5000: "characters)'",  # echoed cut short
        "/-/bmn/deal?deal=-J/Q-/": "drop the '/' for a deal of 2 hands",  # as `bmn play` says
        f"/{NAME}/finds?_sort=nope": "Cannot sort table by nope",
        f"/{NAME}?sql=delete+from+finds": "Statement must be a SELECT",
        "/nonexistent": "no page at /nonexistent",
        f"/{NAME}/nonexistent": "Table not found",
        "/-/bmn/nothing": "no page at /-/bmn/nothing",
    }
    for url, text in cases.items():
        status, page = served(url)
        page = html.unescape(page)
        assert 400 <= status < 500 and text in page and 'id="bmn-error"' in page, (url, page)
    status, page = served(f"/{NAME}.json?sql=select+zz")
    assert status == 400 and '"ok": false' in page and "no such column: zz" in page
    status, page = served("/-/bmn/runs", "POST")
    assert status == 405 and "answer GET, not POST" in page


# -- a store that changes under the server -----------------------------------------------------


def replace_with_older(store: Path, how: str) -> None:
    """An older bmn's store where `store` was: moved in (a new file), or copied over it."""
    older = store.with_name("older.sqlite")
    old_store(older, 4).close()
    if how == "moved":
        os.replace(older, store)
    else:
        shutil.copyfile(older, store)
        older.unlink()


@pytest.mark.parametrize("change", ["deleted", "moved", "copied"])
def test_a_store_gone_or_replaced_is_a_503_page_said_once(served, store, capfd, change):
    assert served("/")[0] == 200
    if change == "deleted":
        store.unlink()
    else:
        replace_with_older(store, change)
    why = {"deleted": "is gone (deleted or moved)", "moved": "was replaced"}.get(
        change, "is now at schema version 4"
    )
    for url in ("/", "/-/bmn/runs", "/-/bmn/finds?seats=3", pages.deal_url(PAULHUS)):
        status, page = served(url)
        assert status == 503 and why in page and 'id="bmn-error"' in page, (url, page)
    status, page = served(f"/{NAME}/finds.json")
    assert status in (200, 503), page  # an older store's own table reads as it is
    out, err = capfd.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and why in err, err


@pytest.mark.parametrize(
    "table, column, value, url",
    [("finds", "cards", "many", "/"), ("runs", "seats", 7, "/-/bmn/runs")]
    + [("runs", "seconds", "nan", "/-/bmn/runs")],
)
def test_a_damaged_value_is_a_503_page_naming_it_said_once(
    served, store, capfd, table, column, value, url
):
    conn = sqlite3.connect(store)
    conn.execute(f"UPDATE {table} SET {column} = ?", (value,))
    conn.commit()
    conn.close()
    why = f"is damaged: table {table}, row 1, column {column} holds {value!r}"
    for _ in range(2):
        status, page = served(url)
        assert status == 503 and why in html.unescape(page) and 'id="bmn-error"' in page, page
    assert served(f"{pages.PREFIX}/published")[0] == 200  # a page that reads no store
    out, err = capfd.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and why in err, err


def test_an_upgraded_store_is_served_again(served, store, capfd):
    replace_with_older(store, "copied")
    assert served("/-/bmn/runs")[0] == 503
    with Store(store, create=False):  # a writer upgrades it: what `bmn records upgrade` does
        pass
    assert served("/-/bmn/runs")[0] == 200
    assert len(capfd.readouterr().err.splitlines()) == 1


def test_a_store_made_read_only_is_still_read(served, store):
    store.chmod(0o444)
    try:
        for url in ("/", "/-/bmn/runs", pages.deal_url(PAULHUS), f"/{NAME}/finds"):
            assert served(url)[0] == 200, url
    finally:
        store.chmod(0o644)


def test_an_archived_store_refuses_a_bad_request_as_any_other(store, monkeypatch):
    """A store in a read-only folder is read as immutable; checking it after an error makes
    nothing beside it either, and a bad request stays a 400, not a store gone."""
    pytest.importorskip("datasette")
    from bmn.frontends.serve.server import app
    from bmn.records.store import paths as store_paths

    folder = store.parent
    before = sorted(folder.iterdir())
    real = store_paths.writable
    monkeypatch.setattr(store_paths, "writable", lambda p: p != folder and real(p))
    datasette = app(store)
    assert not datasette.get_database().is_mutable
    for url, status in ((f"/{NAME}/finds?_sort=nope", 400), ("/-/bmn/runs", 200)):
        assert asyncio.run(datasette.client.get(url)).status_code == status, url
    assert sorted(folder.iterdir()) == before


# -- what one request may cost ---------------------------------------------------------------


def long_deal() -> str:
    """A 1,000-card deal (19 decks and some) whose game runs past 170,000 cards."""
    deck = ([0] * 36 + [1, 2, 3, 4] * 4) * 19 + [0] * 12
    random.Random(2).shuffle(deck)
    return format_deal((tuple(deck[:500]), tuple(deck[500:])))


def test_a_long_deal_page_is_bounded_and_says_so(served):
    deal = long_deal()
    status, page = served(pages.deal_url(deal))
    assert status == 200 and len(page) < 1_000_000
    assert 'id="bmn-status">limit<' in page and f"at most {pages.REPLAY_CARDS:,} cards" in page
    assert page.count("<tr>") < pages.TRICKS_SHOWN + 50  # the table, cut
    assert f"The first {pages.TRICKS_SHOWN:,} tricks of" in page
    assert "No picture for a deal of more than 208 cards (this one has 1,000)" in page
    assert 'id="bmn-picture"' not in page
    status, page = served(pages.picture_url(deal))
    assert status == 400 and "no picture for a deal of more than 208 cards" in page


# -- a real server, in a child process -------------------------------------------------------


def fetch(url: str, method: str = "GET") -> tuple[int, str]:
    data = b"a=1" if method != "GET" else None
    request = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=HANG_SECONDS) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode("utf-8", "replace")


@contextmanager
def serving(*args: object, stop: int = signal.SIGINT) -> Iterator[tuple[str, dict]]:
    """`bmn records serve ARGS --port 0` in a child, stopped by the signal `stop`: (its URL,
    what it printed once stopped, filled in on leaving: {"out": ..., "err": ..., "code": ...})."""
    command = [sys.executable, "-m", "bmn.frontends.cli", "records", "serve", *map(str, args)]
    child = subprocess.Popen(
        [*command, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    said: dict = {}
    try:
        ready, _, _ = select.select([child.stdout], [], [], HANG_SECONDS)
        assert ready, "bmn records serve printed no URL"
        url = child.stdout.readline()
        assert url.startswith("http://127.0.0.1:"), (url, child.stderr.read())
        said["url"] = url
        yield url.strip(), said
    finally:
        child.send_signal(stop)
        try:
            out, err = child.communicate(timeout=HANG_SECONDS)
        finally:
            child.kill()
        said |= {"out": said.get("url", "") + out, "err": err, "code": child.returncode}


def test_a_served_store_answers_hostile_requests_and_prints_only_its_url(store, monkeypatch):
    folder = sorted(store.parent.iterdir())
    monkeypatch.setenv("BMN_STORE", str(store))  # as every records command finds its store
    with serving(stop=signal.SIGTERM) as (url, said):  # stopped as a service manager stops it
        assert fetch(url)[0] == 200  # the pages read the store: SQLite's -wal and -shm
        queries = ("n=%C2%B2&_sort=x", "_facet=nothing", RAW[0])  # each route one, in turn
        urls = [f"{route}?{queries[i % len(queries)]}" for i, route in enumerate(ROUTES)]
        for path in urls + [f"/{NAME}?sql=select+zz", "/-/bmn/deal?deal=-J/Q-/"]:
            answered(*fetch(url.rstrip("/") + path), path)
        for method in ("POST", "PUT", "DELETE"):
            for path in ("/", f"/{NAME}/finds", f"/{NAME}/finds/-/insert"):
                status, page = fetch(url.rstrip("/") + path, method)
                assert 400 <= status < 500 and 'id="bmn-error"' in page, (method, path)
    assert said["code"] == 0 and said["out"] == f"{url}\n"
    lines = said["err"].splitlines()
    assert len(lines) == 2 and lines[1] == f"stopped serving {store}", lines
    assert sorted(store.parent.iterdir()) == folder  # no -wal or -shm left beside it


@pytest.mark.slow
def test_a_store_that_changes_under_a_real_server(store):
    with serving("--store", store) as (url, said):
        base = url.rstrip("/")
        assert fetch(f"{base}/-/bmn/runs")[0] == 200
        replace_with_older(store, "copied")
        status, page = fetch(f"{base}/-/bmn/runs")
        assert status == 503 and "schema version 4" in page
        make_store(store.with_name("new.sqlite"))
        os.replace(store.with_name("new.sqlite"), store)
        for path in ("/", "/-/bmn/runs", f"/{NAME}/finds", "/nonexistent"):
            status, page = fetch(base + path)
            assert status == 503 and "was replaced" in page, (path, page)
        store.unlink()
        for path in ("/", f"/{NAME}/finds", pages.deal_url(PAULHUS)):
            status, page = fetch(base + path)
            assert status == 503 and "is gone" in page, (path, page)
    assert said["code"] == 0 and said["out"] == f"{url}\n"
    lines = said["err"].splitlines()
    assert len(lines) == 5 and lines[-1] == f"stopped serving {store}", lines
    assert "schema version 4" in lines[1] and "replaced" in lines[2] and "gone" in lines[3]
