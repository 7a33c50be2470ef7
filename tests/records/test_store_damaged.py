"""A store whose contents are wrong (a damaged file, a hand edit, another program's write),
against every command that reads it and `search --resume`: a clean result, or exit 1 with one
`Error:` line naming the table and row that are damaged; never a traceback, and nothing else
in the store changed (records/store/values.py and saved.py check every value read).

A real store, made once by short real searches of each kind (a longest-game search keeping
finds in bulk, a loop hunt, every deal of a small deck, grow) and two finds stored as rows;
then each example edits one column of one row of one table (a wrong type, out of range,
truncated, garbage) on a copy of it.
"""

from __future__ import annotations

import functools
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from errors import error_line
from hypothesis import assume
from hypothesis import strategies as st
from samples import CASELLA, RECORD
from tiers import properties

from bmn.frontends.cli.main import cli
from bmn.records.store import Find, Store, StoreDamaged, StoreError, saved
from bmn.records.store.schema import shapes

SEARCHES = [  # the runs of the store, one of each kind; all resumable (marked stopped below)
    ["--iterations", "2000", "--workers", "2", "--keep-above", "100", "--seed", "1"],
    ["--objective", "loop", "--deck", "6,2,1,1,0", "--iterations", "200", "--seed", "4"],
    ["--strategy", "every", "--deck", "6,2,1,1,0", "--objective", "loop", "--workers", "2"],
    ["--objective", "grow", "--iterations", "1", "--seed", "5"],
]
READERS = [
    ["records", "top"],
    ["records", "top", "--json", "--players", "2"],
    ["records", "runs", "--json"],
    ["records", "runs"],
    ["records", "export"],
    ["records", "compare"],
    ["records", "loops"],
    ["records", "loops", "--standard"],
    ["records", "show", RECORD],
    ["records", "plot", "-o", "{out}/progress.png"],
]
TABLES = {
    table: sorted(columns - {"seats"} if table == "finds" else columns)  # finds.seats: derived
    for table, columns in shapes()[-1].items()
}
EDITS = [(table, column) for table, columns in sorted(TABLES.items()) for column in columns]


def bmn(*args: str):
    return CliRunner().invoke(cli, list(args), prog_name="bmn")


@functools.cache
def base_store() -> Path:
    """The store every example copies: made once per test process, by real searches."""
    path = Path(tempfile.mkdtemp(prefix="bmn-damaged-")) / "base.sqlite"
    for args in SEARCHES:
        result = bmn("search", *args, "--quiet", "--store", str(path))
        assert result.exit_code == 0, result.output
    with Store(path) as db:
        db.add_finds(1, [Find(RECORD, 8344, 1164), Find(CASELLA, 474, 66, status="loop")])
        for run in db.runs():
            db.update_run(run.id, status="stopped")
    return path


def rows(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table, read without making a file beside the store."""
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in TABLES}
    finally:
        conn.close()


# What an edit writes: a wrong type, a value out of range, the old value cut short, garbage.
BAD = st.one_of(
    st.sampled_from(["many", "nan", "", "0-J/Q-", "-J/Q-/", "{}", "[1]", "1e999"]),
    st.sampled_from([7, -5, 0, 10**9, 2**62, -(2**63), 1.5, -0.5, float("inf")]),
    st.sampled_from([b"", b"\x00garbage", b"PK\x03\x04", b"\xff" * 13, b'{"next": -1}']),
    st.builds(lambda n: ("cut", n), st.integers(0, 40)),
    st.integers(-(2**63), 2**63 - 1) | st.text(max_size=20) | st.binary(max_size=40),
)


def edit(path: Path, table: str, column: str, row: int, value: object) -> bool:
    """Set `column` of the `row`-th row (modulo the table's rows) of `table` to `value` (or
    cut its text or blob to `("cut", n)`); False where the table is empty or SQLite's own
    constraints refuse the value."""
    conn = sqlite3.connect(path)
    try:
        ids = [r for (r,) in conn.execute(f"SELECT rowid FROM {table} ORDER BY rowid")]
        if not ids:
            return False
        where = ids[row % len(ids)]
        if isinstance(value, tuple):
            sql, args = f"UPDATE {table} SET {column} = substr({column}, 1, ?)", [value[1]]
        else:
            sql, args = f"UPDATE {table} SET {column} = ?", [value]
        conn.execute(f"{sql} WHERE rowid = ?", [*args, where])
        conn.commit()
        return True
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def one_line_or_clean(result, table: str) -> str | None:
    """Exit 0, or exit 1 with one error line; a damaged store's line names the table edited.
    Returns the error line, if any."""
    assert "Traceback" not in result.output, result.output
    if result.exit_code == 0:
        return None
    line = error_line(result, 1)
    assert "damaged" not in line or f"table {table}, row" in line, (table, line)
    return line


# The whole size: 75 examples (about one per column of the schema); each resumes a real run,
# about a second, and the property runs on one core of the slow tier while the rest share the
# other (150 examples took 5 minutes of a loaded CI machine).
@properties(
    5,
    75,
    st.sampled_from(EDITS),
    st.integers(0, 10**6),
    BAD,
    st.integers(1, len(SEARCHES)),
)
def test_a_damaged_store_is_one_line_or_a_clean_result(edited, row, value, resumed):
    table, column = edited
    with tempfile.TemporaryDirectory() as folder:
        store, out = Path(folder, "s.sqlite"), Path(folder, "out")
        out.mkdir()
        shutil.copy(base_store(), store)
        assume(edit(store, table, column, row, value))
        before, names = rows(store), sorted(os.listdir(folder))
        for args in READERS:
            command = [arg.replace("{out}", str(out)) for arg in args]
            one_line_or_clean(bmn(*command, "--store", str(store)), table)
            assert rows(store) == before, command
            assert sorted(os.listdir(folder)) == names, command  # nothing left beside it
        result = bmn("search", "--resume", str(resumed), "--quiet", "--store", str(store))
        if (table, column) == ("runs", "id") and result.exit_code == 2:  # renumbered: not there
            assert f"no run {resumed} in record store" in error_line(result, 2)
        elif one_line_or_clean(result, table) is not None:
            assert rows(store) == before  # refused: the run as it was, released


def test_each_kind_of_damage_names_its_table_row_and_column(tmp_path):
    """A few edits of the issue's list, each said in the one line it should be."""
    cases = [
        ("finds", "cards", "many", "column cards holds 'many', not a whole number"),
        ("runs", "seconds", "nan", "column seconds holds 'nan', not a number"),
        ("runs", "seats", 7, "column seats holds 7, out of range (2 to 4)"),
        ("find_batches", "count", 10**9, "column figures holds"),
        ("find_batches", "figures", ("cut", 5), "column figures holds 5 bytes"),
        ("loops", "key", "0-J/Q-", "column key holds '0-J/Q-', not a cycle key"),
        ("loops", "rules", b"bmn", "column rules holds a blob of 3 bytes, not text"),
        ("runs", "params", '{"hand_sizes": 5}', "column params holds hand_sizes 5, not a list"),
    ]
    for table, column, value, said in cases:
        store = tmp_path / f"{table}-{column}.sqlite"
        shutil.copy(base_store(), store)
        assert edit(store, table, column, 0, value)
        command = {"loops": ["records", "loops"], "runs": ["records", "runs"]}
        args = command.get(table, ["records", "export"])
        line = error_line(bmn(*args, "--store", str(store)), 1)
        assert f"is damaged: table {table}, row " in line and said in line, line


def test_a_damaged_best_in_bulk_is_one_line_for_the_plot(tmp_path):
    """records plot reads each commit's best by SQL's max(), which ranks a text above every
    number: the damaged best is named, not met later as a ValueError (found by the property)."""
    store = tmp_path / "s.sqlite"
    shutil.copy(base_store(), store)
    assert edit(store, "find_batches", "best_cards", 0, "many")
    line = error_line(
        bmn("records", "plot", "-o", str(tmp_path / "p.png"), "--store", str(store)), 1
    )
    assert "table find_batches, row 1, column best_cards holds 'many', not a whole number" in line


@pytest.mark.parametrize("run", range(1, len(SEARCHES) + 1))
@pytest.mark.parametrize("state", [b"", b"garbage", b"\xff\xfe", None, "truncated"])
def test_a_damaged_or_missing_checkpoint_is_refused_or_resumed(tmp_path, run, state):
    """Each kind's checkpoint garbage, empty, cut short or missing: resuming says which row
    is damaged and changes nothing, or (missing) starts that stream again."""
    store = tmp_path / "s.sqlite"
    shutil.copy(base_store(), store)
    conn = sqlite3.connect(store)
    if state is None:
        conn.execute("DELETE FROM checkpoints WHERE run_id = ?", (run,))
    elif state == "truncated":
        conn.execute("UPDATE checkpoints SET state = substr(state, 1, 20) WHERE run_id = ?", (run,))
    else:
        conn.execute("UPDATE checkpoints SET state = ? WHERE run_id = ?", (state, run))
    conn.commit()
    conn.close()
    before = rows(store)
    result = bmn("search", "--resume", str(run), "--quiet", "--store", str(store))
    if state is None:
        assert result.exit_code == 0, result.output
        return
    line = error_line(result, 1)
    assert f"is damaged: table checkpoints, row of run {run}, worker " in line, line
    assert rows(store) == before


def test_the_library_raises_store_damaged(tmp_path):
    from bmn.records import open_store

    store = tmp_path / "s.sqlite"
    shutil.copy(base_store(), store)
    assert edit(store, "runs", "started_at", 0, "yesterday")
    with open_store(store) as reader:
        with pytest.raises(StoreDamaged, match="table runs, row 1, column started_at"):
            reader.runs()
        assert issubclass(StoreDamaged, StoreError)


def test_a_checked_state_names_what_is_wrong():
    shape = saved.record(next=saved.whole(0, 10))  # a stream of every deal's ranks 0 to 10
    blob = saved.saved(b'{"next": 99}', "s.sqlite", 3, 1)
    with pytest.raises(StoreDamaged, match=r"the state\.next is 99, out of range \(0 to 10\)"):
        saved.json_state(blob, shape)
    assert saved.json_state(saved.saved(b'{"next": 4}', "s", 3, 1), shape)


def test_a_checked_array_state_takes_the_run_s_shapes_only():
    from dataclasses import replace

    import numpy as np

    from bmn.search.strategies.worker import new_worker

    fresh = new_worker(7, 0, history=5)
    like = vars(new_worker(7, 1, history=5))

    def check(state, **kw):
        blob = saved.saved(state.to_bytes(), "s.sqlite", 2, 0)
        return saved.array_state(blob, like, ("deck", "best"), ("sizes",), ("history",), **kw)

    assert np.array_equal(check(fresh)["deck"], fresh.deck)  # another shuffle of the deck
    assert check(replace(fresh, history=np.zeros(9, np.int64)))["history"].shape == (9,)
    bad = [
        (replace(fresh, deck=np.zeros(52, np.uint8)), "deck is not a deal of this run's deck"),
        (replace(fresh, rng=fresh.rng.astype(np.int64)), "rng is int64[4], not uint64[4]"),
        (replace(fresh, counters=fresh.counters[:3]), "counters is int64[3], not int64[8]"),
        (replace(fresh, history=np.zeros(0, np.int64)), "history is int64[0], not int64[5]"),
    ]
    for state, said in bad:
        with pytest.raises(StoreDamaged, match=r"checkpoints, row of run 2, worker 0") as err:
            check(state)
        assert said in str(err.value), str(err.value)


def test_records_top_leaves_a_damaged_find_out_and_says_so():
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder, "s.sqlite")
        shutil.copy(base_store(), store)
        conn = sqlite3.connect(store)
        conn.execute("UPDATE finds SET cards = 'many' WHERE deal = ?", (RECORD,))
        conn.commit()
        conn.close()
        result = bmn("records", "top", "--store", str(store))
        assert result.exit_code == 0, result.output
        said = result.stderr.strip()
        assert said.startswith("warning: left out 1 damaged row of the store: ")
        assert "table finds, row " in said and "column cards holds 'many'" in said, said
        assert RECORD.split("/")[0] not in result.stdout and "cards" in result.stdout
        assert bmn("records", "export", "--store", str(store)).exit_code == 1  # every row, or none
