"""`bmn records merge` takes nothing on faith: a source edited by hand in any row it brings (a
run, a find, a bulk batch, a checkpoint, a cycle) is refused whole in one line, exit 1, no
traceback, and the target is left as it was, readable by every records command; what a source
derives (a run's best, a batch's best, a cycle's key and summary) comes from the replay; and a
find is one find per run and deal, whoever brought it."""

from __future__ import annotations

import csv
import shutil
import sqlite3
from pathlib import Path

import pytest
from old_stores import tamper_first_batch
from samples import RECORD

from bmn.records import merge_stores
from bmn.records.store import INT64_MAX, Find, Store, bulk

# (what is edited, the SQL that edits the source): each a break a hostile pass tried.
TAMPERED = {
    "run games not a number": "UPDATE runs SET games = 'abc' WHERE id = 1",
    "run of seven seats": "UPDATE runs SET seats = 7 WHERE id = 1",
    "run seconds below zero": "UPDATE runs SET seconds = -1 WHERE id = 1",
    "run started at no time": "UPDATE runs SET started_at = 'yesterday' WHERE id = 1",
    "run settings not JSON": "UPDATE runs SET params = 'not json' WHERE id = 1",
    "run deck not a deck": """UPDATE runs SET params = '{"deck": 17}' WHERE id = 1""",
    "run hands of three seats": """UPDATE runs SET params = '{"hand_sizes": [18, 17, 17]}'
                                   WHERE id = 1""",
    "run of an unknown rule set": "UPDATE runs SET rules = 'nope' WHERE id = 1",
    "run best a card more": "UPDATE runs SET best_cards = best_cards + 1 WHERE id = 1",
    "run best another deal": "UPDATE runs SET best_deal = '-J/Q-' WHERE id = 1",
    "find a card more": "UPDATE finds SET cards = cards + 1",
    "find of an unknown status": "UPDATE finds SET status = 'won'",
    "find of a run not held": "UPDATE finds SET run_id = 99",
    "find of three hands": "UPDATE finds SET deal = deal || '/-'",
    "batch figures a card more": None,  # edited in its blob: tamper_first_batch
    "batch of other hand sizes": "UPDATE find_batches SET sizes = '26/25'",
    "batch of no hands": "UPDATE find_batches SET sizes = '0/0'",
    "batch of a billion finds": "UPDATE find_batches SET count = 1000000000",
    "batch blobs cut short": "UPDATE find_batches SET decks = substr(decks, 1, 10)",
    "batch figures not a blob": "UPDATE find_batches SET figures = 'text'",
    "batch of three seats": "UPDATE find_batches SET seats = 3",
    "batch of a run not held": "UPDATE find_batches SET run_id = 99",
    "batch first game not a number": "UPDATE find_batches SET first_game = 'a'",
    "checkpoint games not a number": "UPDATE checkpoints SET games = 'abc'",
    "checkpoint state not a blob": "UPDATE checkpoints SET state = 12",
    "checkpoint of a run not held": "UPDATE checkpoints SET run_id = 99 WHERE rowid = 1",
    "cycle key edited": "UPDATE loops SET key = '0:-J/Q-' WHERE id = 1",
    "cycle deck edited": "UPDATE loops SET deck = '1,1,1,1,1' WHERE id = 1",
    "cycle period two cards more": "UPDATE loops SET period_cards = period_cards + 2",
    "cycle basin of a trillion states": "UPDATE loops SET basin_states = 1000000000000",
    "cycle balanced deals made up": "UPDATE loops SET balanced_deals = balanced_deals + 5",
    "cycle example deal of another": "UPDATE loops SET example_deal = first_deal || '-'",
    "cycle of a run not held": "UPDATE loops SET run_id = 99",
    "cycle seen a text of times": "UPDATE loops SET times_seen = 'often'",
}
QUICK = {  # one of each table in the fast tier; every break in the slow one
    "run games not a number",
    "run best a card more",
    "find a card more",
    "batch figures a card more",
    "batch of a billion finds",
    "checkpoint state not a blob",
    "cycle key edited",
    "cycle balanced deals made up",
}
READERS = [  # every records command that reads a whole store
    ("runs",),
    ("top",),
    ("compare",),
    ("export",),
    ("loops",),
    ("coverage",),
]


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A store as searches write it: a walk with finds in bulk and one in a row, and its
    checkpoint; a loop hunt with its cycles; an unfinished enumeration."""
    from click.testing import CliRunner

    from bmn.frontends.cli.main import cli

    path = tmp_path_factory.mktemp("hostile") / "source.sqlite"
    for args in (
        ("--iterations", 3000, "--keep-above", 100, "--seed", 3),
        ("--objective", "loop", "--deck", "8,2,2,2,0", "--iterations", 20_000, "--seed", 1),
        ("--strategy", "every", "--deck", "6,2,1,1,0", "--iterations", 1000),
    ):
        command = ["search", "--workers", "1", "--quiet", "--store", str(path), *map(str, args)]
        result = CliRunner().invoke(cli, command, prog_name="bmn")
        assert result.exit_code == 0, result.output
    with Store(path) as db:
        db.add_finds(1, [Find(RECORD, 8344, 1164)])  # a find kept as a row
    return path


def tampered(source: Path, folder: Path, name: str) -> Path:
    copy = folder / "edited.sqlite"
    shutil.copy(source, copy)
    if TAMPERED[name] is None:
        tamper_first_batch(copy)
    else:
        with sqlite3.connect(copy) as conn:
            conn.execute("PRAGMA ignore_check_constraints = ON")  # as another program might
            assert conn.execute(TAMPERED[name]).rowcount >= 1, name
        conn.close()
    return copy


def readable(bmn, target: Path) -> None:
    for command in READERS:
        result = bmn("records", *command, "--store", target)
        assert result.exit_code == 0, (command, result.output)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=() if n in QUICK else pytest.mark.slow) for n in TAMPERED]
)
def test_an_edited_source_is_refused_whole_and_the_target_kept(bmn, failed, source, tmp_path, name):
    target = tmp_path / "target.sqlite"
    assert bmn("records", "merge", source, "--store", target).exit_code == 0  # a first machine
    before = target.read_bytes()
    edited = tampered(source, tmp_path, name)
    line = failed(bmn("records", "merge", edited, "--store", target), 1, "edited.sqlite")
    assert "not merged" in line or "is damaged" in line, line
    assert target.read_bytes() == before  # nothing of it written
    readable(bmn, target)


def test_a_sound_source_merges_to_a_target_every_command_reads(bmn, source, tmp_path):
    target = tmp_path / "target.sqlite"
    result = bmn("records", "merge", source, "--store", target)
    assert result.exit_code == 0, result.output
    readable(bmn, target)
    with Store(source, create=False, read_only=True) as a, Store(target) as b:
        assert [r.best_deal for r in a.runs()][1:] == [r.best_deal for r in b.runs()][1:]
        # the walk's best is derived from what replayed: its longest find, the record game
        assert b.get_run(1).best_deal == RECORD and a.get_run(1).best_deal != RECORD
        assert [(c.key, c.balanced_deals) for c in a.loops()] == [
            (c.key, c.balanced_deals) for c in b.loops()
        ]


def test_an_unknown_kind_is_refused_by_the_runs_own_declarations(bmn, failed, source, tmp_path):
    edited = tmp_path / "edited.sqlite"
    shutil.copy(source, edited)
    with sqlite3.connect(edited) as conn:
        conn.execute("UPDATE runs SET kind = 'zzz' WHERE id = 2")
    conn.close()
    line = failed(bmn("records", "merge", edited, "--store", tmp_path / "t.sqlite"), 1)
    assert "run 2: it is of kind 'zzz', unknown to this bmn" in line
    assert not (tmp_path / "t.sqlite").exists()


def test_times_seen_near_the_largest_integer_stays_an_integer(bmn, source, tmp_path):
    target = tmp_path / "target.sqlite"
    merge_stores([source], target)
    edited = tmp_path / "edited.sqlite"
    shutil.copy(source, edited)
    with sqlite3.connect(edited) as conn:  # another copy of the hunt, seen near 2**63 times
        conn.execute("UPDATE runs SET seed = seed + 1 WHERE kind = 'loop-hunt'")
        conn.execute(f"UPDATE loops SET times_seen = {INT64_MAX - 1}")
    conn.close()
    merge_stores([edited], target)
    with sqlite3.connect(target) as conn:
        kinds = conn.execute("SELECT DISTINCT typeof(times_seen), max(times_seen) FROM loops")
        assert kinds.fetchall() == [("integer", INT64_MAX)]
    conn.close()
    readable(bmn, target)


def recut(path: Path) -> None:
    """Each bulk batch of the walk cut in two at another point, as another sitting of the same
    run would have committed it (same deals, other batches)."""
    conn = sqlite3.connect(path)
    rows = conn.execute(
        "SELECT id, run_id, stream, first_game, sizes, strategy, found_at, elapsed, count,"
        " figures, decks FROM find_batches"
    ).fetchall()
    for batch_id, run, stream, first, sizes, strategy, found_at, elapsed, count, f, d in rows:
        hands = tuple(int(n) for n in sizes.split("/"))
        decks = bulk.unpack_decks(d, count, sum(hands))
        figures = bulk.Batch(run, strategy, found_at, elapsed, sizes, count, f, d).figures
        conn.execute("DELETE FROM find_batches WHERE id = ?", (batch_id,))
        half = max(count // 3, 1)
        for at, part in ((first, slice(0, half)), (first + 1, slice(half, None))):
            if not len(decks[part]):
                continue
            packed = bulk.pack(bulk.Bulk(stream, at, elapsed, hands, decks[part], figures[part]))
            values = {**packed, "run_id": run, "strategy": strategy, "found_at": found_at}
            conn.execute(
                f"INSERT INTO find_batches ({', '.join(values)})"
                f" VALUES ({', '.join(':' + c for c in values)})",
                values,
            )
    conn.commit()
    conn.close()


def test_the_same_run_finished_on_two_machines_merges_each_find_once(bmn, source, tmp_path):
    other = tmp_path / "other.sqlite"
    shutil.copy(source, other)
    recut(other)
    target = tmp_path / "target.sqlite"
    first, second = merge_stores([source, other], target)
    assert (second.runs_new, second.finds_new) == (0, 0)  # every run and deal known
    exported = bmn("records", "export", "--store", target).stdout
    pairs = [(row["deal"], row["run"]) for row in csv.DictReader(exported.splitlines())]
    assert len(pairs) == len(set(pairs)) == first.finds_new
    checked = bmn("score", "-", input=exported)  # and every one replays as stored
    assert checked.exit_code == 0, checked.output
