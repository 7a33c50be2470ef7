"""Every command that takes a store, against every way a store path can be unusable: one
error line, the right exit status, and nothing created or changed beside the store; a store
that can be read is read where it lies, writing nothing (no migration, no -wal or -shm).

Real files throughout. Running as root defeats chmod, so a read-only file or folder is made
with `chattr +i` where the file system allows it; failing that (and for an unreadable file,
which root reads whatever its mode), the store's permission check is told the path is not
writable or readable (`deny`), which exercises the same code path short of the kernel's
refusal."""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from errors import COMMANDS, error_line
from old_stores import add_old_run, old_store
from samples import RECORD

from bmn.records.store import SCHEMA_VERSION, Find, Store, StoreError, paths

# The commands that take --store, with what makes each run quickly. A new one must be added
# here (test_every_store_command_is_walked); `records serve` serves a store until stopped, so
# tests/frontends/serve/ holds it to this contract, and `records merge` reads other stores into
# --store, made if missing, so tests/records/test_merge.py does.
READERS = {
    ("records", "top"): [],
    ("records", "runs"): [],
    ("records", "loops"): [],
    ("records", "export"): [],
    ("records", "compare"): [],
    ("records", "show"): [RECORD],
    ("records", "plot"): ["-o", "{out}/progress.png"],
}
SEARCH = ["search", "--iterations", "10", "--workers", "1", "--quiet"]
RESUME = ["search", "--resume", "1"]
WRITERS = {"search": SEARCH, "search --resume": RESUME, "records upgrade": ["records", "upgrade"]}
NOT_WALKED = {
    ("records", "serve"),
    ("records", "merge"),
    ("records", "import"),
}  # test_merge.py, test_import.py
READERS[("records", "coverage")] = []


def test_every_store_command_is_walked():
    takes_store = {
        path for path, command in COMMANDS.items() if any(p.name == "store" for p in command.params)
    }
    assert takes_store == set(READERS) | {("search",), ("records", "upgrade")} | NOT_WALKED


# -- stores and conditions ---------------------------------------------------------------------


def good_store(path: Path) -> None:
    with Store(path) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(RECORD, 8344, 1164)])
        db.update_run(run, status="finished")


def with_version(version: int) -> Callable[[Path], Path]:
    def make(store: Path) -> Path:
        good_store(store)
        conn = sqlite3.connect(store)
        conn.execute(f"PRAGMA user_version = {version}")
        conn.close()
        return store

    return make


def write(data: bytes) -> Callable[[Path], Path]:
    def make(store: Path) -> Path:
        store.write_bytes(data)
        return store

    return make


def foreign(store: Path) -> Path:
    conn = sqlite3.connect(store)
    conn.execute("CREATE TABLE notes (x)")
    conn.close()
    return store


def truncated(store: Path) -> Path:
    good_store(store)
    data = store.read_bytes()
    store.write_bytes(data[: len(data) // 2])
    return store


def fifo(store: Path) -> Path:
    os.mkfifo(store)
    return store


def unix_socket(store: Path) -> Path:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(store))
    sock.close()
    return store


def link(target: str) -> Callable[[Path], Path]:
    def make(store: Path) -> Path:
        store.symlink_to(target)
        return store

    return make


def inside_a_file(store: Path) -> Path:
    store.write_bytes(b"")
    return store / "s.sqlite"


def name_too_long(store: Path) -> Path:
    return store.parent / ("d" * 300) / "s.sqlite"


def no_room_for_its_journal(store: Path) -> Path:
    """A store renamed to 255 bytes, which -journal would take past the longest name."""
    good_store(store)
    return store.rename(store.parent / ("d" * 248 + ".sqlite"))


def path_too_long_for_sqlite(store: Path) -> Path:
    deep = store.parent / ("a" * 200) / ("b" * 200) / ("c" * 100)
    deep.mkdir(parents=True)
    good_store(store)
    return store.rename(deep / "s.sqlite")


MISSING = "no record store at"
# name -> (make the store path from a fresh path, the error every command gives: (code, text))
FAILING: dict[str, tuple[Callable[[Path], Path], str]] = {
    "directory": (lambda p: (p.mkdir(), p)[1], "is a directory, not a file"),
    "fifo": (fifo, "is a FIFO (named pipe), not a file"),
    "socket": (unix_socket, "is a socket, not a file"),
    "dev-null": (link("/dev/null"), "is a character device, not a file"),
    "link-loop": (link("s.sqlite"), "its path has a loop of symbolic links"),
    "name-too-long": (name_too_long, "a name in its path is too long"),
    "inside-a-file": (inside_a_file, "a part of its path is a file, not a folder"),
    "no-room-for-journal": (no_room_for_its_journal, "too long for the files SQLite keeps"),
    "path-too-long": (path_too_long_for_sqlite, "longer than SQLite opens (504)"),
    "empty-path": (lambda p: "", "the record store's path is empty"),
    "not-sqlite": (write(b"\x89PNG\r\n" + bytes(range(256)) * 8), "not an SQLite database"),
    "bare-header": (write(b"SQLite format 3\x00" + bytes(84)), "damaged or not a database"),
    "truncated": (truncated, "damaged"),
    "foreign": (foreign, "not a bmn record store"),
    "newer": (with_version(SCHEMA_VERSION + 1), "newer than this bmn understands"),
    "version-minus-1": (with_version(-1), "damaged or of an unknown version"),
    "version-0": (with_version(0), "damaged or of an unknown version"),
    "version-2": (with_version(2), "damaged or of an unknown version"),
    "version-4": (with_version(4), "damaged or of an unknown version"),
}


def listing(folder: Path) -> dict[str, tuple]:
    """Every file under `folder` (not following links): its kind, size, mode and mtime."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            where = Path(root, name)
            info = where.lstat()
            size = info.st_size if stat.S_ISREG(info.st_mode) else 0
            found[str(where.relative_to(folder))] = (info.st_mode, size, info.st_mtime_ns)
    return found


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """The store's folder; outputs (a plot) go beside it, not in it. Undoes `chattr +i`."""
    (tmp_path / "out").mkdir()
    folder = tmp_path / "stores"
    folder.mkdir()
    yield folder
    for path in [folder, *folder.rglob("*")]:
        if not path.is_symlink():
            chattr("-i", path)
            path.chmod(0o755 if path.is_dir() else 0o644)


def chattr(flag: str, path: Path) -> None:
    """Set or clear a file attribute where the tool and the file system allow it."""
    with contextlib.suppress(OSError):  # no chattr here
        subprocess.run(["chattr", flag, str(path)], capture_output=True, check=False)


def command(args: list[str], store: Path | str, folder: Path) -> list[str]:
    out = folder.parent / "out"
    return [arg.replace("{out}", str(out)) for arg in args] + ["--store", str(store)]


def refused(bmn, args: list[str], store: Path | str, folder: Path, code: int, text: str) -> None:
    before = listing(folder)
    result = bmn(*command(args, store, folder))
    line = error_line(result, code)
    assert text in line, line
    assert result.stderr.strip() == line  # one line: no usage hint, no warning, no traceback
    assert result.stdout == ""
    assert listing(folder) == before


ALL = [" ".join(path) for path in READERS] + list(WRITERS)


def args_of(name: str) -> list[str]:
    if name in WRITERS:
        return WRITERS[name]
    path = tuple(name.split(" "))
    return [*path, *READERS[path]]


# The fast tier takes every condition on one reader and on a new search, and every command on
# one condition of its own; the slow tier walks the rest of the product (the same code paths).
FIRST = ("records top", "search")


def pairs_of(names: list[str], conditions: list[str]) -> list:
    return [
        pytest.param(
            name,
            condition,
            marks=() if name in FIRST or j == i % len(conditions) else pytest.mark.slow,
        )
        for i, name in enumerate(names)
        for j, condition in enumerate(conditions)
    ]


@pytest.mark.parametrize("name, condition", pairs_of(ALL, sorted(FAILING)))
def test_an_unusable_store_is_one_line_and_left_as_it_is(bmn, folder, name, condition):
    make, text = FAILING[condition]
    store = make(folder / "s.sqlite")
    refused(bmn, args_of(name), store, folder, 1, text)


@pytest.mark.parametrize("name", ALL)
def test_a_missing_store_is_made_only_by_a_new_search(bmn, folder, name):
    for store in (folder / "s.sqlite", link("nowhere.sqlite")(folder / "t.sqlite")):
        if name == "records show":  # replays the deal without a store
            result = bmn(*command(args_of(name), store, folder))
            assert result.exit_code == 0 and f"no record store at {store}" in result.stdout
        elif name != "search":
            refused(bmn, args_of(name), store, folder, 1, MISSING)
    no_folder = folder / "absent" / "s.sqlite"
    if name == "search":
        refused(bmn, args_of(name), no_folder, folder, 1, f"its folder {no_folder.parent} does")
        assert bmn(*command(SEARCH, folder / "s.sqlite", folder)).exit_code == 0
        with Store(folder / "s.sqlite", create=False) as db:
            assert db.version == SCHEMA_VERSION
    elif name != "records show":
        refused(bmn, args_of(name), no_folder, folder, 1, MISSING)


@pytest.mark.parametrize("name", ALL)
def test_an_empty_file_is_no_store_except_to_a_new_search(bmn, folder, name):
    store = write(b"")(folder / "s.sqlite")
    if name == "search":
        assert bmn(*command(SEARCH, store, folder)).exit_code == 0
        assert store.stat().st_size > 0
    else:
        refused(bmn, args_of(name), store, folder, 1, "is empty, not a bmn record store")


# -- permissions -------------------------------------------------------------------------------


def deny(monkeypatch, path: Path, mode: int) -> None:
    """Make `path` lack `mode` (os.R_OK or os.W_OK) for this process: by `chattr +i` for
    writing where the kernel then refuses even root, else by telling the store's check."""
    if mode == os.W_OK:
        path.chmod(path.stat().st_mode & ~0o222)
        if not paths.writable(path):
            return
        chattr("+i", path)
        if not paths.writable(path):
            return
    elif mode == os.R_OK:
        path.chmod(0)
        if not os.access(path, os.R_OK, effective_ids=os.access in os.supports_effective_ids):
            return
    real = paths._access

    def access(where: Path, asked: int) -> bool:
        return asked != mode and real(where, asked) if Path(where) == path else real(where, asked)

    monkeypatch.setattr(paths, "_access", access)


@pytest.mark.parametrize("name", ALL)
def test_an_unreadable_store_is_one_line(bmn, folder, monkeypatch, name):
    store = folder / "s.sqlite"
    good_store(store)
    deny(monkeypatch, store, os.R_OK)
    refused(bmn, args_of(name), store, folder, 1, "cannot read record store")


@pytest.mark.parametrize("name, where", pairs_of(ALL, ["file", "folder"]))
def test_a_read_only_store_is_read_where_it_lies(bmn, folder, monkeypatch, name, where):
    store = folder / "s.sqlite"
    good_store(store)
    deny(monkeypatch, store if where == "file" else folder, os.W_OK)
    before = listing(folder)
    if name in WRITERS:
        text = "is read-only: searching or upgrading" if where == "file" else "read-only folder"
        refused(bmn, args_of(name), store, folder, 1, text)
        return
    result = bmn(*command(args_of(name), store, folder))
    assert result.exit_code == 0, result.output
    assert listing(folder) == before  # no -wal, no -shm, the store untouched
    if name in ("records top", "records export", "records show"):
        assert RECORD in result.stdout


def test_a_new_store_in_a_read_only_folder_is_refused(bmn, folder, monkeypatch):
    deny(monkeypatch, folder, os.W_OK)
    refused(bmn, SEARCH, folder / "s.sqlite", folder, 1, "its folder")


# -- versions ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [" ".join(path) for path in READERS])
def test_reading_an_older_store_never_migrates_it(bmn, folder, name):
    store = folder / "old.sqlite"
    conn = old_store(store, 4)
    add_old_run(conn, "walk", "cards")
    conn.execute(
        "INSERT INTO finds (deal, cards, tricks, status, run_id, strategy, found_at, elapsed)"
        f" VALUES ('{RECORD}', 8344, 1164, 'finished', 1, 'walk', '2026-01-01T00:00:00Z', 1.0)"
    )
    conn.close()
    before, data = listing(folder), store.read_bytes()
    result = bmn(*command(args_of(name), store, folder))
    assert result.exit_code == 0, result.output
    if name in ("records top", "records export", "records show"):
        assert RECORD in result.stdout
    assert store.read_bytes() == data
    assert {p: v[:2] for p, v in listing(folder).items()} == {p: v[:2] for p, v in before.items()}
    upgraded = bmn("records", "upgrade", "--store", store)  # a writer still upgrades it
    assert upgraded.stdout == f"{store}: upgraded from schema version 4 to {SCHEMA_VERSION}\n"
    again = bmn("records", "upgrade", "--store", store)  # nothing left to do, and it says so
    assert again.stdout == f"{store}: already current (schema version {SCHEMA_VERSION})\n"
    with sqlite3.connect(store) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_reader_sees_an_older_store_as_this_bmn_does(folder):
    store = folder / "old.sqlite"
    conn = old_store(store, 2)
    add_old_run(conn, "walk", "cards", seed=5)
    conn.close()
    with Store(store, create=False, read_only=True) as db:
        assert db.version == SCHEMA_VERSION
        (run,) = db.runs()
        assert (run.seed, run.seats, run.kind) == (5, 2, "longest")
    with sqlite3.connect(store) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2


# -- how a reader opens a store ----------------------------------------------------------------


@pytest.mark.parametrize(
    "file_writable, folder_writable, beside, mode",
    [
        (True, True, {}, "mode=rw"),  # closes like a writer: its -wal and -shm go with it
        (False, True, {}, "mode=ro&immutable=1"),
        (True, False, {}, "mode=ro&immutable=1"),
        (False, False, {}, "mode=ro&immutable=1"),
        (False, False, {"-wal": b""}, "mode=ro&immutable=1"),  # what a reader leaves: empty
        (False, False, {"-wal": b"x", "-shm": b"x"}, "mode=ro"),  # a writer may be at work
        (True, False, {"-shm": b"x"}, "mode=ro"),
        (True, False, {"-journal": b"x"}, "mode=ro"),
        (False, True, {"-wal": b"x"}, "mode=ro"),  # finds left in the log: SQLite makes -shm
        (False, False, {"-wal": b"x"}, "which SQLite reads only with a s.sqlite-shm beside it"),
    ],
)
def test_a_reader_opens_immutable_only_when_no_writer_can_be_at_work(
    folder, monkeypatch, file_writable, folder_writable, beside, mode
):
    store = folder / "s.sqlite"
    good_store(store)
    for suffix, data in beside.items():
        Path(f"{store}{suffix}").write_bytes(data)
    allowed = {store: file_writable, folder: folder_writable}
    monkeypatch.setattr(paths, "writable", lambda path: allowed[Path(path)])
    if mode.startswith("mode="):
        assert paths.open_mode(store, create=False, read_only=True) == mode
    else:
        with pytest.raises(StoreError, match=mode):
            paths.open_mode(store, create=False, read_only=True)


def archive_of_a_live_store(folder: Path) -> Path:
    """A store copied with the -wal of a search still at work, its last find only in the
    log, and without the -shm (as a copy of the two files makes)."""
    live = folder / "live" / "s.sqlite"
    live.parent.mkdir()
    good_store(live)
    archive = folder / "archive"
    archive.mkdir()
    with Store(live, create=False) as writer:
        writer.add_finds(1, [Find("-J/Q-", 4, 1)])
        for suffix in ("", "-wal"):
            (archive / f"s.sqlite{suffix}").write_bytes(Path(f"{live}{suffix}").read_bytes())
    return archive / "s.sqlite"


def test_an_archive_whose_log_holds_finds_is_read_whole_or_refused(bmn, folder, monkeypatch):
    store = archive_of_a_live_store(folder)
    deny(monkeypatch, store, os.W_OK)
    read = bmn("records", "top", "--store", store)
    assert read.exit_code == 0 and "-J/Q-" in read.stdout, read.output  # the find in the log
    Path(f"{store}-shm").unlink()  # the index SQLite had to make to read the log
    deny(monkeypatch, store.parent, os.W_OK)
    refused(bmn, ["records", "top"], store, store.parent, 1, "copy the store with its s.sqlite-wal")


def test_a_reader_writes_nothing_even_if_asked(folder):
    store = folder / "s.sqlite"
    good_store(store)
    with (
        Store(store, create=False, read_only=True) as db,
        pytest.raises(StoreError, match="attempt to write a readonly database"),
    ):
        db.create_run("walk", "cards", 2, {})
    with Store(store, create=False) as db:
        assert len(db.runs()) == 1


def test_a_store_that_a_search_writes_is_read_consistently(folder):
    """A reader beside a live writer (its -wal open) sees every committed find."""
    store = folder / "s.sqlite"
    good_store(store)
    with Store(store, create=False) as writer:
        run = writer.create_run("walk", "cards", 3, {})
        writer.add_finds(run, [Find("-J/Q-", 4, 1)])
        assert Path(f"{store}-wal").exists()
        with Store(store, create=False, read_only=True) as reader:
            assert len(reader.top()) == 2
        assert writer.add_finds(run, [Find("Q/J/-/-", 6, 3)]) == 1


def test_a_figure_drawn_over_the_store_is_refused(bmn, folder):
    store = folder / "progress.png"  # a store named like a figure, and -o naming it
    good_store(store)
    before = listing(folder)
    for output in (store, link("progress.png")(folder / "other.png")):
        result = bmn("records", "plot", "-o", output, "--store", store)
        assert "is the record store (--store)" in error_line(result, 2)
    with Store(store, create=False, read_only=True) as db:
        assert db.version == SCHEMA_VERSION
    assert {k: v for k, v in listing(folder).items() if k != "other.png"} == before
