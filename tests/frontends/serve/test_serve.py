"""`bmn records serve`: the store in a web browser, on Datasette.

Fast: the refusals (one line, exit 1, nothing written), each page's content through
Datasette's own client (no server), bulk finds listed with the others, read-only and one
snapshot per page while a writer holds the store. Slow: the whole thing end to end, a real
search, `bmn records serve` in a child process and headless Chromium following a find from the
top page to its replay, whose figures must be `bmn play`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from old_stores import old_store
from samples import CASELLA, PAULHUS, RECORD

from bmn.frontends.serve import pages
from bmn.frontends.serve.server import Listening, listen
from bmn.kernels.deal import encode, format_deal, parse_deal
from bmn.kernels.dealer import shuffled_deal
from bmn.kernels.reference import play
from bmn.records.store import Find, Store, bulk
from bmn.records.store import paths as store_paths

HANG_SECONDS = 600.0  # a server or browser that has not answered by then never will
THREE = "--A-JQ--K-A-----Q-/J-------KJ---A-Q-/-K----J--QA-----K"  # any 3-seat deal


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- refusals --------------------------------------------------------------------------------


def test_a_missing_store_is_one_line(bmn, failed, tmp_path):
    missing = tmp_path / "none.sqlite"
    failed(bmn("records", "serve", missing), 1, f"no record store at {missing}")
    assert not missing.exists()


def test_the_store_as_an_argument_as_store_or_from_bmn_store(bmn, failed, tmp_path):
    missing, other = tmp_path / "none.sqlite", tmp_path / "other.sqlite"
    failed(bmn("records", "serve", "--store", missing), 1, f"no record store at {missing}")
    env = {"BMN_STORE": str(missing)}
    failed(bmn("records", "serve", env=env), 1, f"no record store at {missing}")
    failed(bmn("records", "serve", other, env=env), 1, f"no record store at {other}")
    failed(bmn("records", "serve", other, "--store", missing), 2, "two stores named")
    assert not missing.exists() and not other.exists()


def test_a_file_that_is_not_a_bmn_store_is_one_line_and_untouched(bmn, failed, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n")
    failed(bmn("records", "serve", text), 1, "is not an SQLite database")
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE birds (name TEXT)")
    before = digest(other)
    failed(bmn("records", "serve", other), 1, "not a bmn record store", "birds")
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    failed(bmn("records", "serve", empty), 1, "is empty, not a bmn record store")
    failed(bmn("records", "serve", tmp_path), 1, "is a directory")
    assert digest(other) == before and text.read_text() == "not a database\n"
    assert empty.stat().st_size == 0


def test_an_older_store_is_refused_not_upgraded(bmn, failed, path):
    old_store(path, 4).close()
    before = digest(path)
    failed(bmn("records", "serve", path), 1, "schema version 4", "bmn records upgrade --store")
    assert digest(path) == before


def test_a_port_in_use_is_one_line(bmn, failed, path):
    Store(path).close()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        failed(
            bmn("records", "serve", path, "--port", port),
            1,
            f"port {port} on 127.0.0.1 is in use",
            "--port 0",
        )


def test_a_host_that_is_not_this_machine_is_one_line(bmn, failed, path):
    Store(path).close()
    failed(bmn("records", "serve", path, "--host", "no-such-host.invalid"), 1, "cannot listen")


def test_without_datasette_says_how_to_install_it(bmn, failed, path, monkeypatch):
    Store(path).close()
    monkeypatch.setitem(sys.modules, "datasette", None)  # as if not installed
    failed(bmn("records", "serve", path), 1, "needs Datasette", "pip install 'bmn[serve]'")


def test_who_can_read_and_the_url():
    local = Listening("127.0.0.1", 8001)
    assert local.url == "http://127.0.0.1:8001/"
    assert "only this machine" in local.who_can_read()
    shared = Listening("0.0.0.0", 8080)
    assert shared.url == f"http://{socket.gethostname()}:8080/"
    line = shared.who_can_read()
    assert "anyone who can reach any address of this machine on port 8080" in line
    assert "no password" in line and "read-only" in line
    assert Listening("::1", 5).url == "http://[::1]:5/" and Listening("::1", 5).local_only
    with listen("127.0.0.1", 0) as sock:  # port 0: any free one, named by the socket
        assert sock.getsockname()[1] > 0


# -- the pages -------------------------------------------------------------------------------


def random_deals(count: int, seed: int) -> list[str]:
    return [format_deal(shuffled_deal(2, seed + i)) for i in range(count)]


def as_bulk(deals: list[str]) -> bulk.Bulk:
    """Finished standard deals as a search packs them (bmn.records.store.bulk)."""
    results = [play(parse_deal(d)) for d in deals]
    assert all(r.status == "finished" and r.cards < bulk.BULK_BELOW for r in results)
    decks = np.array([encode(parse_deal(d))[0] for d in deals], dtype=np.uint8)
    figures = np.array([[r.cards, r.tricks] for r in results], dtype=np.int64)
    return bulk.Bulk(0, 0, 1.5, (26, 26), decks, figures)


@pytest.fixture
def store(path):
    """A store of two runs: finds one row each (2 and 3 seats) and a batch of bulk finds."""
    with Store(path) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(PAULHUS, 4791, 670, elapsed=1.0)])
        packed = as_bulk(random_deals(50, 7))
        db.save_progress(run, [], [], {"games": 100, "seconds": 2.0}, bulks=[packed])
        db.update_run(run, status="finished", best_deal=PAULHUS, best_cards=4791)
        three = db.create_run("random", "cards", 2, {}, seats=3)
        result = play(parse_deal(THREE))
        db.add_finds(three, [Find(THREE, result.cards, result.tricks, elapsed=0.5)])
    return path


@pytest.fixture
def served(store):
    """get(url) -> (status, text, content type) through Datasette's client, on `store`."""
    pytest.importorskip("datasette")
    from bmn.frontends.serve.server import app

    datasette = app(store)

    def get(url: str) -> tuple[int, str | bytes, str]:
        response = asyncio.run(datasette.client.get(url))
        kind = response.headers["content-type"]
        body = response.text if kind.startswith("text/") else response.content
        return response.status_code, body, kind

    get.datasette = datasette
    return get


def cells(page: str, table_id: str, column: str) -> list[str]:
    """The texts of one column of a table of a page, by its head."""
    table = re.search(rf'<table[^>]*id="{table_id}".*?</table>', page, re.S).group(0)
    head = [re.sub("<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table)]
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("</thead>")[1], re.S)
    at = head.index(column)
    return [re.sub("<[^>]+>", "", re.findall(r"<td[^>]*>(.*?)</td>", r)[at]) for r in rows]


def test_the_top_page_lists_bulk_finds_like_the_others(served, store):
    status, page, _ = served("/")
    assert status == 200
    with Store(store, create=False) as db:
        two = db.top(n=10, seats=2)
    assert cells(page, "top-2", "deal") == [f.deal for f in two]  # `bmn records top`'s order
    assert cells(page, "top-2", "cards") == [f"{f.cards:,}" for f in two]
    assert cells(page, "top-3", "deal") == [THREE]
    bulk_only = {f.deal for f in two} - {PAULHUS}
    assert len(bulk_only) == 9  # nine of the ten are only in find_batches
    assert f'href="{pages.deal_url(two[1].deal).replace("&", "&amp;")}"' in page
    assert 'id="top-4"' not in page  # no 4-seat finds, no 4-seat list


def test_the_top_page_lists_each_deck_apart_and_loops_unranked(served, store):
    with Store(store) as db:
        small = db.create_run("climb", "cards", 3, {"deck": "14,2,2,2,0", "hand_sizes": [10, 10]})
        db.add_finds(small, [Find("Q--KKJ----/J-------Q-", 453, 76)])
        db.add_finds(small, [Find(CASELLA, 474, 66, "loop")])
    _, page, _ = served("/")
    assert cells(page, "top-2-1", "deal") == ["Q--KKJ----/J-------Q-"]  # not among the 52s
    assert "Q--KKJ----/J-------Q-" not in cells(page, "top-2", "deal")
    assert "deck 14,2,2,2,0 dealt 10/10" in page
    assert cells(page, "top-loops", "deal") == [CASELLA]  # listed apart, with no card rank
    assert "cards" not in re.search(r'<table[^>]*id="top-loops".*?</thead>', page, re.S).group(0)


def test_a_store_of_loops_and_cycles_says_so_on_its_top_page(served, path, tmp_path):
    from bmn.frontends.serve.server import app

    loops_only = tmp_path / "loops.sqlite"
    with Store(loops_only) as db:
        db.add_finds(db.create_run("walk", "loop", 1, {}), [Find(CASELLA, 474, 66, "loop")])
    page = asyncio.run(app(loops_only).client.get("/")).text
    assert "No finds in the store yet" not in page
    said = "No finished games in the store yet, only games that\nnever end:\n"
    assert said + "1 looping deal\n(" in page  # no "0 cycles"
    assert cells(page, "top-loops", "deal") == [CASELLA]
    from bmn.records.store import Loop

    cycle = Loop(
        key="0:-J/Q-", rotation_key="0:-J/Q-", deck="36,4,4,4,4", period_cards=440,
        period_tricks=62, cycle_states=62, balanced_states=0, balanced_deals=18,
        mirrored_balanced_deals=12, basin_states=2670, basin_complete=True,
        example_deal=CASELLA, first_deal=CASELLA,
    )  # fmt: skip
    cycles_only = tmp_path / "cycles.sqlite"
    with Store(cycles_only) as db:
        db.add_loops(db.create_run("loop-hunt", "loop", 1, {}), [(cycle, 1)])
    page = asyncio.run(app(cycles_only).client.get("/")).text
    assert said + "1 cycle\n(" in page and "looping deal" not in page  # not "0 looping deals"


def test_the_longest_finds_page_by_seats_and_by_tricks(served, store):
    status, page, _ = served("/-/bmn/finds?seats=2&by=tricks&n=60")
    assert status == 200
    with Store(store, create=False) as db:
        expected = db.top(by="tricks", n=60, seats=2)
    assert len(expected) == 51 and cells(page, "finds", "deal") == [f.deal for f in expected]
    for bad in ("seats=5", "by=time", "n=0", "n=x", f"n={pages.TOP_MOST + 1}"):
        status, page, _ = served(f"/-/bmn/finds?{bad}")
        assert status == 400 and 'id="bmn-error"' in page, bad


def test_runs_loops_and_published_pages(served):
    status, page, _ = served("/-/bmn/runs")
    assert status == 200 and cells(page, "runs", "run") == ["1", "2"]
    assert cells(page, "runs", "best deal") == [PAULHUS, "-"] and 'id="run-2"' in page
    status, page, _ = served("/-/bmn/loops")
    assert status == 200 and "no cycles in the store" in page
    status, page, _ = served("/-/bmn/published")
    assert status == 200
    assert cells(page, "published-2", "deal")[0] == PAULHUS
    assert "Nessler 2022" in cells(page, "published-2", "name")
    assert len(cells(page, "published-3", "name")) >= 1
    name = served.datasette.get_database().name  # Datasette's own pages stay: its tables
    status, page, _ = served(f"/{name}")
    assert status == 200 and f'href="/{name}/find_batches"' in page


def test_a_deal_replayed(served):
    status, page, _ = served(pages.deal_url(RECORD))
    assert status == 200
    assert re.search(r'id="bmn-cards">8,344<', page) and re.search(r'id="bmn-tricks">1,164<', page)
    assert 'data-seat="1"' in page and "finished: 8,344 cards, 1,164 tricks; seat 1 wins" in page
    assert "the published record Nessler 2022: 1st of the 9 published games" in page
    assert len(cells(page, "bmn-tricks-table", "trick")) == 1164
    assert "not in the store" in page
    status, page, _ = served(pages.deal_url(PAULHUS))
    assert cells(page, "bmn-finds", "run") == ["1"] and cells(page, "bmn-finds", "cards") == [
        "4,791"
    ]
    status, page, _ = served(pages.deal_url(CASELLA))
    assert "loop: never ends" in page and "440 cards, 62 tricks" in page
    assert 'id="bmn-rank" class="bmn-empty"' in page  # a loop has no length to rank
    status, page, _ = served(pages.deal_url(THREE))
    assert "bmn&#39;s table" in page or "in bmn's table" in page or "would rank" in page


def test_a_bulk_find_replays_with_its_run(served, store):
    with Store(store, create=False) as db:
        find = db.top(n=2, seats=2)[1]
    _, page, _ = served(pages.deal_url(find.deal))
    assert cells(page, "bmn-finds", "run") == ["1"]
    assert cells(page, "bmn-finds", "cards") == [f"{find.cards:,}"]
    assert re.search(rf'id="bmn-cards">{find.cards:,}<', page)


def found_on(folder: Path, hosts: list[str], monkeypatch) -> list[Path]:
    """A store made on each host (BMN_HOST, as `records merge`'s tests make them), each of
    one run that found PAULHUS."""
    sources = []
    for seed, host in enumerate(hosts, start=1):
        monkeypatch.setenv("BMN_HOST", host)
        with Store(folder / f"{host}.sqlite") as db:
            run = db.create_run("climb", "cards", seed, {})
            db.add_finds(run, [Find(PAULHUS, 4791, 670, elapsed=3.0)])
            db.update_run(run, status="finished", best_deal=PAULHUS, best_cards=4791)
            sources.append(db.path)
    monkeypatch.delenv("BMN_HOST")
    return sources


def test_merged_runs_say_where_they_ran_and_came_from(served, store, tmp_path, monkeypatch):
    """The runs page and a deal's page say where each run ran, in `bmn records runs`' words:
    a merged run's host, and the store and run it came from."""
    from bmn.records import merge_stores

    merge_stores(found_on(tmp_path, ["laptop", "desktop"], monkeypatch), store)
    shown = ["threads on laptop, laptop.sqlite run 1", "threads on desktop, desktop.sqlite run 1"]
    _, page, _ = served("/-/bmn/runs")
    assert cells(page, "runs", "run") == ["1", "2", "3", "4"]
    assert cells(page, "runs", "ran on") == ["threads", "threads", *shown]
    _, page, _ = served(pages.deal_url(PAULHUS))
    assert cells(page, "bmn-finds", "run") == ["1", "3", "4"]  # the run here, and both merged
    assert cells(page, "bmn-finds", "ran on") == ["threads", *shown]
    assert 'href="/-/bmn/runs#run-3"' in page


def test_the_trajectory_picture_and_bad_deals(served):
    status, png, kind = served(pages.picture_url("-J/Q-"))
    assert status == 200 and kind == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n"
    for url in ("/-/bmn/deal", "/-/bmn/deal?deal=xx", "/-/bmn/trajectory.png?deal=-Z/Q"):
        status, page, _ = served(url)
        assert status == 400 and 'id="bmn-error"' in page, url
    _, page, _ = served("/-/bmn/deal?deal=xx")
    assert "a deal has 2 to 4 hands, got 1" in page


def test_the_form_takes_the_readmes_spaced_deal_and_refuses_in_its_own_words(served):
    """The README's `bmn play HAND HAND` deal, typed into the form with its space, replays as
    the deal joined by '/'; a refusal names the form's separators, not command-line
    arguments; a standard deal's page gives its numbers (Kleber 1999's camicia.dev number)."""
    spaced = RECORD.replace("/", " ")
    status, page, _ = served(f"/-/bmn/deal?deal={spaced}")
    assert status == 200 and re.search(r'id="bmn-cards">8,344<', page)
    assert served(pages.deal_url(spaced))[1] == served(pages.deal_url(RECORD))[1]
    status, page, _ = served("/-/bmn/deal?deal=---AJ--Q---------QAKQJJ-QK")
    assert status == 400 and "separate the hands with &#39;/&#39;" in page
    assert "argument" not in page
    kleber = "---JQ---K-A----A-J-K---QK-/-J-----------AJQA----K---Q"
    _, page, _ = served(pages.deal_url(kleber))
    assert "497985732634057566415 in camicia.dev" in page


def test_the_published_page_writes_years_as_years(served):
    _, page, _ = served("/-/bmn/published")
    assert cells(page, "published-2", "year")[:2] == ["1999", "1999"]
    assert set(cells(page, "published-3", "year")) == {"2026"}


# -- read-only, and one snapshot a page ------------------------------------------------------


def test_serving_writes_nothing_and_cannot(served, store):
    before = digest(store)
    name = served.datasette.get_database().name
    for url in ("/", "/-/bmn/runs", pages.deal_url(PAULHUS), f"/{name}/finds", f"/{name}/runs"):
        assert served(url)[0] == 200, url
    assert digest(store) == before
    db = served.datasette.get_database()
    assert db.is_mutable  # mode=ro, not immutable=1: it sees what a search commits

    def write(conn):
        conn.execute("CREATE TABLE mine (x)")

    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        asyncio.run(db.execute_fn(write))


def test_a_store_in_a_read_only_folder_is_served_where_it_lies(store, monkeypatch):
    """An archived store (nothing beside it, its folder read-only) is read as immutable:
    no -wal or -shm can be made beside it, and none is needed."""
    pytest.importorskip("datasette")
    from bmn.frontends.serve.server import app

    folder = store.parent
    before = sorted(p.name for p in folder.iterdir())
    subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False)
    try:
        if store_paths.writable(folder):  # no chattr here: tell the store's check instead
            real = store_paths.writable
            monkeypatch.setattr(store_paths, "writable", lambda p: p != folder and real(p))
        datasette = app(store)
        assert not datasette.get_database().is_mutable
        response = asyncio.run(datasette.client.get("/-/bmn/runs"))
        assert response.status_code == 200 and "walk" in response.text
    finally:
        subprocess.run(["chattr", "-i", str(folder)], capture_output=True, check=False)
    assert sorted(p.name for p in folder.iterdir()) == before


def test_pages_read_while_a_search_writes(served, store):
    writer = sqlite3.connect(store, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")  # a search's commit, half done
        writer.execute(
            "INSERT INTO finds (deal, cards, tricks, status, run_id, strategy, found_at,"
            " elapsed) VALUES (?, 8344, 1164, 'finished', 1, 'walk', '2026-01-01T00:00:00Z', 3)",
            (RECORD,),
        )
        status, page, _ = served("/")
        assert status == 200  # not blocked, and not half a commit:
        assert RECORD not in cells(page, "top-2", "deal")
        writer.execute("COMMIT")
        status, page, _ = served("/")
        assert cells(page, "top-2", "deal")[0] == RECORD
    finally:
        writer.close()


def test_a_page_reads_one_snapshot(store):
    """The reads of one page see one commit, even when a writer commits between them."""
    conn = sqlite3.connect(f"{store.absolute().as_uri()}?mode=ro", uri=True)
    reader = pages.SnapshotReader(conn, store)

    def read_twice(db):
        first = db.top(n=3, seats=2)
        with Store(store, create=False) as writer:
            writer.add_finds(1, [Find(RECORD, 8344, 1164)])
        return first, db.top(n=3, seats=2)

    try:
        first, second = reader.snapshot(read_twice)
        assert first == second and RECORD not in {f.deal for f in second}
        assert reader.snapshot(lambda db: db.top(n=1, seats=2))[0].deal == RECORD
    finally:
        conn.close()


# -- end to end, in a browser ----------------------------------------------------------------


def browser_or_skip():
    """Chromium and its driver from the distribution (.ci/run installs them), and selenium."""
    pytest.importorskip("datasette")
    pytest.importorskip("selenium")
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    if missing:
        message = (
            f"{' and '.join(missing)} not installed (apt-get install chromium chromium-driver)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)  # CI installs them: a missing browser is a broken CI
        pytest.skip(message)


def chromium(folder: Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={folder}",
        "--window-size=1280,1800",
    ):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def url_line(server: subprocess.Popen) -> str:
    """The server's first line of stdout: the URL (it is printed once the port is bound)."""
    ready, _, _ = select.select([server.stdout], [], [], HANG_SECONDS)
    assert ready, "bmn records serve printed no URL"
    line = server.stdout.readline().strip()
    assert line.startswith("http://127.0.0.1:"), (line, server.stderr.read())
    return line


class Served:
    """What `served_in_chromium` gives: the page's URL and the browser on it; once the server
    is stopped, its exit status and what it said on stderr."""

    def __init__(self, url: str, browser) -> None:
        self.url, self.browser = url, browser
        self.returncode: int | None = None
        self.said = ""


@contextlib.contextmanager
def served_in_chromium(store: Path, folder: Path) -> Iterator[Served]:
    """`bmn records serve STORE` on a free port, as a user starts it, and Chromium on its URL;
    after, the browser quit and the server stopped by Ctrl-C, as a user stops it."""
    command = [sys.executable, "-m", "bmn.frontends.cli", "records", "serve", str(store)]
    server = subprocess.Popen(
        [*command, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    browser = None
    try:
        url = url_line(server)
        browser = chromium(folder)
        browser.set_page_load_timeout(HANG_SECONDS)
        browser.get(url)
        served = Served(url, browser)
        yield served
    finally:
        if browser is not None:
            browser.quit()
        server.send_signal(signal.SIGINT)
        try:
            server.wait(HANG_SECONDS)
        finally:
            server.kill()
            _, said = server.communicate()
    served.returncode, served.said = server.returncode, said


@pytest.mark.slow
def test_a_find_in_the_browser_replays_as_bmn_play_does(bmn, tmp_path):
    browser_or_skip()
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    store = tmp_path / "night.sqlite"
    args = ["--iterations", "6000", "--seed", "5", "--workers", "2", "--keep-above", "0"]
    searched = bmn("search", *args, "--store", store, "--json", "--quiet")
    assert searched.exit_code == 0, searched.output
    best = json.loads(searched.stdout)

    with served_in_chromium(store, tmp_path / "chromium") as served:
        browser, url = served.browser, served.url
        top = browser.find_element(By.ID, "top-2")
        link = top.find_element(By.CSS_SELECTOR, "td.deal a")
        deal = link.text
        assert deal == best["best_deal"]  # the longest find, kept in bulk like every other
        link.click()
        WebDriverWait(browser, HANG_SECONDS).until(lambda b: b.find_elements(By.ID, "bmn-cards"))
        figures = {
            name: browser.find_element(By.ID, f"bmn-{name}").text
            for name in ("deal", "status", "cards", "tricks", "summary")
        }
        winner = browser.find_element(By.ID, "bmn-winner").get_attribute("data-seat")
        played = json.loads(bmn("play", deal, "--json").stdout)
        text = bmn("play", deal).stdout.splitlines()
        assert figures["deal"] == deal == text[0].removeprefix("deal: ")
        assert figures["summary"] == text[1]
        cards, tricks = (int(figures[name].replace(",", "")) for name in ("cards", "tricks"))
        assert (figures["status"], cards, tricks) == (
            played["status"],
            played["cards"],
            played["tricks"],
        )
        assert int(winner) == played["winner"]
        assert cards == best["best_cards"]
        rows = browser.find_elements(By.CSS_SELECTOR, "#bmn-tricks-table tbody tr")
        assert len(rows) == played["tricks"]
        found = browser.find_elements(By.CSS_SELECTOR, "#bmn-finds tbody tr")
        assert len(found) == 1 and found[0].text.startswith("1 walk")
        assert browser.find_element(By.ID, "bmn-rank").text.endswith("of 10")
        WebDriverWait(browser, HANG_SECONDS).until(
            lambda b: b.execute_script(
                "const i = document.getElementById('bmn-picture');"
                " return i.complete && i.naturalWidth > 0;"
            )
        )
        shot = Path(os.environ.get("BMN_SERVE_SCREENSHOT", tmp_path / "find.png"))
        assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        browser.get(f"{url}-/bmn/published")  # the notes wrap: no table scrolls sideways
        for players in (2, 3, 4):
            wide, seen = browser.execute_script(
                f"const t = document.getElementById('published-{players}');"
                " const w = t.closest('.table-wrapper'); return [w.scrollWidth, w.clientWidth];"
            )
            assert wide <= seen, (players, wide, seen)
    assert served.returncode == 0  # Ctrl-C is how a server stops: not an error
    assert served.said.strip().endswith(f"stopped serving {store}"), served.said
