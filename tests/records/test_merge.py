"""`bmn records merge`: stores made on two machines (two HOMEs and BMN_HOST names) made one,
every find replayed before it is written, nothing of a source written when one does not replay,
and a merge that adds nothing the second time."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from children import wait_until
from old_stores import STAMP, add_old_run, old_store, tamper_first_batch

from bmn.kernels import reference
from bmn.kernels.deal import parse_deal
from bmn.records import MergeRefused, merge_stores
from bmn.records.store import Find, Store, StoreError


def search_on(machine: str, folder: Path, bmn, *args: object) -> Path:
    """A short search as a user on `machine` runs it: its own HOME and host name."""
    home = folder / machine
    home.mkdir(exist_ok=True)
    store = folder / f"{machine}.sqlite"
    env = {"HOME": str(home), "BMN_HOST": machine}
    result = bmn("search", "--workers", "1", "--store", store, *args, env=env)
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture(scope="module")
def two_machines(tmp_path_factory):
    from click.testing import CliRunner

    from bmn.frontends.cli.main import cli

    def bmn(*args, env=None):
        return CliRunner().invoke(cli, [str(a) for a in args], env=env, prog_name="bmn")

    folder = tmp_path_factory.mktemp("machines")
    laptop = search_on("laptop", folder, bmn, "--iterations", 20_000, "--seed", 1)
    desktop = search_on("desktop", folder, bmn, "--iterations", 20_000, "--seed", 2)
    return laptop, desktop


def finds_of(path: Path) -> set[tuple[str, int, int]]:
    with Store(path, create=False, read_only=True) as db:
        return {(f.deal, f.cards, f.tricks) for f in db.all_finds()}


def test_two_machines_stores_merge_with_provenance_and_twice_adds_nothing(
    two_machines, tmp_path, bmn
):
    laptop, desktop = two_machines
    target = tmp_path / "all.sqlite"
    first = bmn("records", "merge", laptop, desktop, "--store", target)
    assert first.exit_code == 0, first.output
    lines = first.stdout.splitlines()
    assert lines[0].startswith("laptop.sqlite: runs 1 new, 0 here; finds ")
    assert lines[1].startswith("desktop.sqlite: runs 1 new, 0 here; finds ")
    assert finds_of(target) == finds_of(laptop) | finds_of(desktop)
    with Store(target, create=False, read_only=True) as db:
        runs = db.runs()
    assert [(r.host, Path(r.origin_store).name, r.origin_run) for r in runs] == [
        ("laptop", "laptop.sqlite", 1),
        ("desktop", "desktop.sqlite", 1),
    ]
    shown = bmn("records", "runs", "--store", target).stdout
    assert "threads on laptop, laptop.sqlite run 1" in shown
    assert "threads on desktop, desktop.sqlite run 1" in shown
    # The best across both machines is the best of either.
    top = bmn("records", "top", "-n", "1", "--json", "--store", target).stdout
    best = max(finds_of(laptop) | finds_of(desktop), key=lambda f: f[1])
    assert f'"cards": {best[1]}' in top

    again = bmn("records", "merge", desktop, laptop, "--store", target)
    assert again.exit_code == 0, again.output
    for line in again.stdout.splitlines():
        assert "runs 0 new, 1 here; finds 0 new, " in line, line
        assert len(line) <= 80, line
    with Store(target, create=False, read_only=True) as db:
        assert len(db.runs()) == 2
    assert finds_of(target) == finds_of(laptop) | finds_of(desktop)


def test_a_merged_store_merged_on_keeps_the_first_origin(two_machines, tmp_path):
    laptop, desktop = two_machines
    middle, last = tmp_path / "middle.sqlite", tmp_path / "last.sqlite"
    merge_stores([laptop], middle)
    merge_stores([middle, laptop, desktop], last)
    with Store(last, create=False, read_only=True) as db:
        origins = [(Path(r.origin_store).name, r.origin_run, r.host) for r in db.runs()]
    assert origins == [("laptop.sqlite", 1, "laptop"), ("desktop.sqlite", 1, "desktop")]


def test_a_find_that_does_not_replay_refuses_its_source_and_writes_nothing_of_it(
    two_machines, tmp_path, bmn, failed
):
    laptop, desktop = two_machines
    bad = tmp_path / "bad.sqlite"
    with Store(desktop, create=False, read_only=True) as db, sqlite3.connect(bad) as copy:
        db._db.backup(copy)
    tamper_first_batch(bad)
    target = tmp_path / "all.sqlite"
    result = bmn("records", "merge", laptop, bad, "--store", target)
    failed(result, 1, "bad.sqlite: not merged, nothing of it written", "stored", ", replayed")
    # the source before it went in
    assert result.stdout.startswith("laptop.sqlite: runs 1 new, 0 here;")
    assert finds_of(target) == finds_of(laptop)


def test_a_row_find_that_does_not_replay_is_named(tmp_path):
    source = tmp_path / "source.sqlite"
    deal = "-J--/Q---"
    game = reference.play(parse_deal(deal))
    with Store(source) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(deal, game.cards + 2, game.tricks)])
        db.update_run(run, status="finished")
    with pytest.raises(MergeRefused, match=f"stored {game.cards + 2} cards") as refused:
        merge_stores([source], tmp_path / "t.sqlite")
    assert len(refused.value.problems) == 1


def test_cycles_merge_once_with_their_times_seen(tmp_path, bmn):
    hunt = tmp_path / "hunt.sqlite"
    args = ("--objective", "loop", "--deck", "8,2,2,2,0", "--iterations", 20_000)
    result = bmn("search", "--workers", "1", *args, "--store", hunt)
    assert result.exit_code == 0, result.output
    target = tmp_path / "t.sqlite"
    merged = merge_stores([hunt, hunt], target)
    with Store(hunt, create=False, read_only=True) as db:
        hunted = [(row.key, row.times_seen, row.first_deal) for row in db.loops()]
    assert hunted and [(m.loops_new, m.loops_known) for m in merged] == [
        (len(hunted), 0),
        (0, len(hunted)),
    ]
    with Store(target, create=False, read_only=True) as db:
        assert [(row.key, row.times_seen, row.first_deal) for row in db.loops()] == hunted
    wrong = tmp_path / "wrong.sqlite"
    with Store(hunt, create=False, read_only=True) as db, sqlite3.connect(wrong) as copy:
        db._db.backup(copy)
    with sqlite3.connect(wrong) as conn:
        conn.execute("UPDATE loops SET period_cards = period_cards + 2 WHERE id = 1")
    with pytest.raises(MergeRefused, match="stored a period of .* cards, replayed"):
        merge_stores([wrong], tmp_path / "other.sqlite")


def test_an_older_store_is_merged_as_it_is(tmp_path):
    older = tmp_path / "v6.sqlite"
    conn = old_store(older, 6)
    run = add_old_run(conn, "walk", "cards")
    deal = "-J--/Q---"
    game = reference.play(parse_deal(deal))
    conn.execute(
        "INSERT INTO finds (deal, cards, tricks, status, run_id, strategy, found_at, elapsed)"
        " VALUES (?, ?, ?, 'finished', ?, 'walk', ?, 0)",
        (deal, game.cards, game.tricks, run, STAMP),
    )
    conn.close()
    before = older.read_bytes()
    merged = merge_stores([older], tmp_path / "t.sqlite")
    assert (merged[0].runs_new, merged[0].finds_new) == (1, 1)
    assert older.read_bytes() == before  # read through the migrations in memory
    with Store(tmp_path / "t.sqlite", create=False, read_only=True) as db:
        (copied,) = db.runs()
    assert (copied.host, copied.origin_run, copied.status) == (None, run, "interrupted")


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p.write_text("not a store"), "not an SQLite database"),
        (lambda p: sqlite3.connect(p).execute("CREATE TABLE x (a)"), "not a bmn record store"),
        (lambda p: None, "no record store at"),
    ],
)
def test_a_source_that_is_not_a_bmn_store_is_one_line(tmp_path, bmn, failed, make, message):
    source, target = tmp_path / "source.sqlite", tmp_path / "t.sqlite"
    make(source)
    failed(bmn("records", "merge", source, "--store", target), 1, message)
    assert not target.exists()


def test_a_newer_source_and_a_target_that_is_a_source_are_refused(tmp_path, bmn, failed):
    newer = tmp_path / "newer.sqlite"
    with Store(newer):
        pass
    sqlite3.connect(newer).execute("PRAGMA user_version = 99").connection.close()
    target = tmp_path / "t.sqlite"
    failed(bmn("records", "merge", newer, "--store", target), 1, "newer than this bmn")
    failed(bmn("records", "merge", target, "--store", target), 1, "is the target store itself")
    with pytest.raises(StoreError, match="target store itself"):
        merge_stores([newer, newer], newer)


KILLED_MERGE = """
import os, sys, time
from bmn.records import merge_stores
from bmn.records.store import merged
real = merged._insert_batches
def slow(db, run_id, source, deals):
    added = real(db, run_id, source, deals)
    open(sys.argv[3], "w").close()  # inside the transaction, a find written: kill me now
    time.sleep(600)
    return added
merged._insert_batches = slow
merge_stores([sys.argv[1]], sys.argv[2])
"""


@pytest.mark.slow
def test_a_merge_killed_inside_its_transaction_leaves_the_target_as_before(two_machines, tmp_path):
    laptop, desktop = two_machines
    target, inside = tmp_path / "t.sqlite", tmp_path / "inside"
    merge_stores([laptop], target)
    before = finds_of(target)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_MERGE, str(desktop), str(target), str(inside)]
    )
    try:
        wait_until(lambda: inside.exists() or child.poll() is not None, "the merge's write")
        assert child.poll() is None
        os.kill(child.pid, signal.SIGKILL)
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
    with Store(target) as db:
        assert db.check() == ["ok"] and len(db.runs()) == 1
    assert finds_of(target) == before
    assert merge_stores([desktop], target)[0].runs_new == 1  # and after, whole
    assert finds_of(target) == before | finds_of(desktop)


def test_a_target_that_cannot_be_written_is_one_line_and_left_as_it_is(
    two_machines, tmp_path, bmn, failed
):
    laptop, _ = two_machines
    failed(
        bmn("records", "merge", laptop, "--store", tmp_path / "absent" / "t.sqlite"),
        1,
        "its folder",
    )
    foreign = tmp_path / "foreign.sqlite"
    sqlite3.connect(foreign).execute("CREATE TABLE mine (a)").connection.close()
    before = foreign.read_bytes()
    failed(bmn("records", "merge", laptop, "--store", foreign), 1, "not a bmn record store")
    assert foreign.read_bytes() == before


def test_the_library_twin_refuses_a_single_path(tmp_path):
    from bmn.records import QueryError

    with pytest.raises(QueryError, match="a list of stores"):
        merge_stores(tmp_path / "a.sqlite", tmp_path / "t.sqlite")
