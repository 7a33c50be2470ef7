"""The path of a store, checked before SQLite touches it, and how SQLite is to open it.

A store is a regular file (or a symbolic link to one), or nothing yet: anything else (a
folder, a device such as /dev/null, a FIFO, a socket) is refused with one line saying what it
is, since SQLite would block on it, fail with "disk I/O error" or make a journal beside it.

Reading never writes beside a store. SQLite keeps a WAL store's -wal and -shm files next to
it; a connection that may write removes them when it closes, a read-only one leaves them. So a
store this process may write, in a folder it may write, is read over a read-write connection
kept query-only. Any other is opened read-only: through the -shm index when one lies beside
it (a writer in WAL mode keeps its -shm while it is open, so one may be at work), else as
immutable (SQLite takes no lock and makes no file), unless a -wal left by a crash still holds
finds, which SQLite reads only by making a -shm. A writer that starts during an immutable read
would have to be another user with write access to an archive this process may only read.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from bmn.records.store.errors import StoreError, StoreMissing

_WHY = {
    errno.ENAMETOOLONG: "a name in its path is too long",
    errno.ELOOP: "its path has a loop of symbolic links",
    errno.ENOTDIR: "a part of its path is a file, not a folder",
    errno.EACCES: "permission denied",
}
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)

# SQLite opens no file whose full path (links resolved) is longer than this: os_unix.c's
# MAX_PATHNAME, 512 bytes, less room for the "-journal" it may add (505 bytes fail).
SQLITE_PATH_MAX = 504
BESIDE = ("-journal", "-wal", "-shm")  # the files SQLite keeps beside a database


def missing(path: Path) -> StoreMissing:
    """The error for a store that is not there, where only an existing one will do."""
    return StoreMissing(path)


def _stat(path: Path) -> os.stat_result | None:
    """The file at `path` (through symbolic links), or None when there is none."""
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except OSError as err:
        why = _WHY.get(err.errno or 0, err.strerror or str(err))
        raise StoreError(f"cannot use record store {path}: {why}") from None


def found(path: Path) -> bool:
    """Whether a store file is at `path` (False: nothing, or a broken link); StoreError for a
    path that cannot be looked at or that names anything but a regular file."""
    if path == Path():  # '' as Path reads it
        raise StoreError(
            "the record store's path is empty or '.': name a file, such as records.sqlite"
        )
    info = _stat(path)
    if info is None:
        return False
    kind = next((what for test, what in _KINDS if test(info.st_mode)), None)
    if kind is not None or not stat.S_ISREG(info.st_mode):
        raise StoreError(f"record store {path} is {kind or 'not a regular file'}, not a file")
    return True


def writable(path: Path) -> bool:
    """Whether this process may write `path`."""
    return _access(path, os.W_OK)


def _access(path: Path, mode: int) -> bool:
    """Whether this process may use `path` so: as its effective user, as SQLite will act."""
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def _real(path: Path) -> Path:
    """The file SQLite opens: it follows links, and keeps -wal and -shm beside the target."""
    return Path(os.path.realpath(path))


def _check_length(path: Path, real: Path) -> None:
    """StoreError for a path SQLite would fail to open ("unable to open database file"): too
    long in all, or a name too long to take the suffixes of the files kept beside it."""
    whole = len(os.fsencode(real))
    if whole > SQLITE_PATH_MAX:
        raise StoreError(
            f"cannot use record store {path}: its full path is {whole:,} bytes, longer than"
            f" SQLite opens ({SQLITE_PATH_MAX})"
        )
    try:
        name_max = os.pathconf(real.parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    room = name_max - max(len(suffix) for suffix in BESIDE)
    if len(os.fsencode(real.name)) > room:
        raise StoreError(
            f"cannot use record store {path}: its name is too long for the files SQLite keeps"
            f" beside it (at most {room} bytes, to add {BESIDE[0]})"
        )


def open_mode(path: Path, create: bool, read_only: bool) -> str:
    """The URI parameters to open the store at `path` with; StoreError for a path that is no
    regular file, a missing store (unless `create`), or one that a writer cannot write."""
    there = found(path)
    _check_length(path, _real(path))
    if not there:
        if read_only or not create:
            raise missing(path)
        folder = _real(path).parent
        if not folder.is_dir():
            raise StoreError(f"cannot make record store {path}: its folder {folder} does not exist")
        if not writable(folder):
            raise StoreError(f"cannot make record store {path}: its folder {folder} is read-only")
        return "mode=rwc"
    real = _real(path)
    if not _access(real, os.R_OK):
        raise StoreError(f"cannot read record store {path}: permission denied")
    may_write = writable(real) and writable(real.parent)
    if not read_only:
        if not writable(real):
            raise StoreError(f"record store {path} is read-only: searching or upgrading writes it")
        if not may_write:
            raise StoreError(
                f"record store {path} is in a read-only folder ({real.parent}): a writer"
                " keeps its write-ahead log beside the store"
            )
        return "mode=rw"
    if may_write:
        return "mode=rw"  # kept query-only by the caller
    return _read_only_mode(path, real)


def _read_only_mode(path: Path, real: Path) -> str:
    """How to read a store this process may not write (or not beside): through SQLite's
    shared index when a writer may be at work, as immutable when nothing lies beside it."""
    shm, wal, journal = (Path(f"{real}{suffix}") for suffix in ("-shm", "-wal", "-journal"))
    if shm.exists() or journal.exists():
        return "mode=ro"  # a writer may be at work (WAL mode keeps -shm while open)
    if wal.exists() and wal.stat().st_size > 0:
        # Committed finds no one has copied into the store yet: SQLite reads them only
        # through an index it keeps in -shm, which it makes (and leaves) beside the store.
        if not writable(real.parent):
            raise StoreError(
                f"record store {path} keeps finds in {wal.name}, which SQLite reads only with"
                f" a {shm.name} beside it, and its folder is read-only: copy the store with"
                f" its {wal.name} to a folder you may write"
            )
        return "mode=ro"
    return "mode=ro&immutable=1"


def beside(path: Path) -> frozenset[str]:
    """The suffixes of the files SQLite keeps that lie beside the store now."""
    try:
        real = _real(path)
        return frozenset(suffix for suffix in BESIDE if Path(f"{real}{suffix}").exists())
    except (OSError, ValueError):
        return frozenset(BESIDE)  # cannot tell: tidy removes none


def tidy(path: Path, before: frozenset[str], made: tuple[int, int] | None) -> None:
    """After an open that failed (a full disk): remove the files SQLite made beside the store
    that were not there `before`, while its log holds nothing; and the store itself when this
    open `made` it (its device and inode) and it never became a bmn store (no application id
    in its header), so that a first search the disk cut short leaves no file that the next
    command would take for a store. Another process opening the same path at that instant
    would have made its files too; a log holding anything (a commit) keeps everything."""
    try:
        real = _real(path)
        wal = Path(f"{real}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            return
        for suffix in BESIDE:
            if suffix not in before:
                Path(f"{real}{suffix}").unlink(missing_ok=True)
        if made is not None and _ours(real, made) and not _marked(real):
            real.unlink()
    except OSError:
        pass  # nothing more can be done: the error already said what went wrong


def _ours(real: Path, made: tuple[int, int]) -> bool:
    info = real.stat()
    return (info.st_dev, info.st_ino) == made


def _marked(real: Path) -> bool:
    """Whether the file's header holds bmn's application id (SQLite keeps it at byte 68)."""
    with real.open("rb") as handle:
        header = handle.read(72)
    return len(header) == 72 and header[68:72] != bytes(4)
