"""Runs and their leases: a run is held by the one live process searching it, which refreshes
its heartbeat with every commit; a run whose holder died reads as interrupted, and any process
may claim it to resume it."""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Generic

from bmn.records.store.connection import Connection, sql_errors
from bmn.records.store.errors import RunHeld, RunNotFound, StoreError
from bmn.records.store.values import (
    INT64_MAX,
    Row,
    Stamp,
    canonical_deal,
    now,
    plain,
    require,
    shown,
)

OBJECTIVES = ("cards", "tricks", "loop", "grow")  # what --objective asked for
RUN_STATUSES = ("running", "stopped", "finished", "interrupted")
# A run's holder refreshes its heartbeat with every commit (about once a second, and at least
# every few seconds while compiling); one silent for this long has died.
STALE_SECONDS = 60.0
_RUN_COLUMNS = (
    "id, started_at, updated_at, strategy, objective, seed, params, status,"
    " games, seconds, best_deal, best_cards, best_tricks, seats, backend, holder, heartbeat_at,"
    " kind, rules, host, origin_store, origin_run"
)
_RUN_FIELDS = ("status", "games", "seconds", "best_deal", "best_cards", "best_tricks")


@dataclass(frozen=True)
class Run(Generic[Stamp]):
    """One search run, as stored (its time stamps as text; the library's, as datetimes)."""

    id: int
    started_at: Stamp
    updated_at: Stamp
    strategy: str | None  # None for a kind of run that has none (a loop hunt, grow, every)
    objective: str
    seed: int
    params: dict[str, Any]
    status: str
    games: int
    seconds: float
    best_deal: str | None
    best_cards: int | None
    best_tricks: int | None
    seats: int = 2
    backend: str = "threads"
    holder: str | None = None
    heartbeat_at: float | None = None
    kind: str = "longest"  # its kind in bmn.search.runs.registry
    rules: str = "bmn"  # the rule set it plays (bmn.kernels.rules.sets)
    host: str | None = None  # the machine it ran on (None: a run made before bmn kept it)
    origin_store: str | None = None  # the store it was merged in from (None: it ran here)
    origin_run: int | None = None  # its number in that store

    @property
    def found_by(self) -> str:
        """What its finds are labelled with: its strategy, or its kind where it has none."""
        return self.strategy or self.kind

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        del out["holder"], out["heartbeat_at"]  # lease bookkeeping, not part of the run
        return out


def host_name() -> str:
    """The name this machine's runs are stored under: env BMN_HOST, or its host name (which a
    container or a cloud machine may make meaningless; `records merge` shows it)."""
    return os.environ.get("BMN_HOST") or socket.gethostname()


def holder_name() -> str:
    """This process as a run holder: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


def holder_alive(holder: str | None, heartbeat_at: float | None, at: float | None = None) -> bool:
    """Whether a run's holder is still searching it.

    A holder on this host is alive exactly while its process is; one elsewhere while its
    heartbeat is younger than STALE_SECONDS.
    """
    if not holder or heartbeat_at is None:
        return False
    host, _, pid = holder.rpartition(":")
    if host == socket.gethostname() and pid.isdigit():
        return _process_alive(int(pid))
    return (time.time() if at is None else at) - heartbeat_at < STALE_SECONDS


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True


class Runs(Connection):
    """The runs table: creating, claiming, refreshing, releasing, updating and reading runs."""

    @sql_errors
    def create_run(
        self,
        strategy: str | None,
        objective: str,
        seed: int,
        params: dict,
        *,
        seats: int = 2,
        backend: str = "threads",
        kind: str = "longest",
        rules: str = "bmn",
    ) -> int:
        """Record a new run of `kind` with status 'running', held by this process; returns its
        number. `strategy` is None for a kind that has none."""
        require(objective, OBJECTIVES, "objective")
        if not -(2**63) <= int(seed) <= INT64_MAX:
            raise ValueError(f"seed {seed} does not fit in a signed 64-bit integer")
        stamp = now()
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO runs (started_at, updated_at, strategy, objective, seed, params,"
                " seats, backend, holder, heartbeat_at, kind, rules, host)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    stamp,
                    stamp,
                    strategy,
                    objective,
                    int(seed),
                    _to_json(params),
                    int(seats),
                    backend,
                    holder_name(),
                    time.time(),
                    kind,
                    rules,
                    host_name(),
                ),
            )
        return int(cursor.lastrowid)

    @sql_errors
    def claim_run(self, run_id: int, holder: str, backend: str | None = None) -> Run:
        """Take a run for `holder` (to resume it); RunHeld if a live process holds it.

        The check and the claim are one write transaction, so of two processes claiming at
        once exactly one succeeds."""
        with self.transaction() as db:
            row = db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (int(run_id),))
            row = next(iter(row.fetchall()), None)
            if row is None:
                raise StoreError(f"no run {run_id} in record store {self.path}")
            run = _run(self.path, row)
            if run.holder not in (None, holder) and holder_alive(run.holder, run.heartbeat_at):
                age = time.time() - (run.heartbeat_at or 0.0)
                raise RunHeld(
                    f"run {run_id} is being searched by {run.holder} (last heard from"
                    f" {age:.0f} s ago); stop that search first"
                )
            values = {"holder": holder, "hb": time.time(), "id": int(run_id)}
            sets = "holder = :holder, heartbeat_at = :hb"
            if backend is not None:
                sets += ", backend = :backend"
                values["backend"] = backend
            db.execute(f"UPDATE runs SET {sets} WHERE id = :id", values)
        return self.get_run(run_id)

    @sql_errors
    def heartbeat(self, run_id: int, holder: str) -> None:
        """Refresh a held run's heartbeat (commits through save_progress do this too)."""
        with self.transaction() as db:
            self._beat(db, run_id, holder)

    @sql_errors
    def release_run(self, run_id: int, holder: str) -> None:
        """Give a run up: it is no longer held by anyone."""
        with self.transaction() as db:
            db.execute(
                "UPDATE runs SET holder = NULL, heartbeat_at = NULL WHERE id = ? AND holder = ?",
                (int(run_id), holder),
            )

    def _beat(self, db: sqlite3.Connection, run_id: int, holder: str | None) -> None:
        if holder is not None:
            db.execute(
                "UPDATE runs SET heartbeat_at = ? WHERE id = ? AND holder = ?",
                (time.time(), int(run_id), holder),
            )

    @sql_errors
    def update_run(
        self,
        run_id: int,
        *,
        status: str | None = None,
        games: int | None = None,
        seconds: float | None = None,
        best_deal: str | None = None,
        best_cards: int | None = None,
        best_tricks: int | None = None,
    ) -> None:
        """Set the given columns of a run (None leaves a column as it is)."""
        values = dict(
            status=status,
            games=games,
            seconds=seconds,
            best_deal=best_deal,
            best_cards=best_cards,
            best_tricks=best_tricks,
        )
        with self.transaction() as db:
            self._update_run(db, run_id, values)

    def _update_run(self, db: sqlite3.Connection, run_id: int, values: dict[str, Any]) -> None:
        unknown = set(values) - set(_RUN_FIELDS)
        if unknown:
            raise ValueError(f"not a run column: {', '.join(sorted(unknown))}")
        given = {key: plain(value) for key, value in values.items() if value is not None}
        if "status" in given:
            require(given["status"], RUN_STATUSES, "run status")
        if "best_deal" in given:
            given["best_deal"] = canonical_deal(given["best_deal"])
        sets = "".join(f", {key} = :{key}" for key in given)  # keys come from _RUN_FIELDS only
        cursor = db.execute(
            f"UPDATE runs SET updated_at = :updated_at{sets} WHERE id = :id",
            {**given, "updated_at": now(), "id": int(run_id)},
        )
        if cursor.rowcount != 1:
            raise StoreError(f"no run {run_id} in record store {self.path}")

    @sql_errors
    def get_run(self, run_id: int) -> Run:
        """One run by number; RunNotFound (a StoreError) if there is none."""
        rows = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (int(run_id),))
        row = next(iter(rows.fetchall()), None)
        if row is None:
            raise RunNotFound(f"no run {run_id} in record store {self.path}")
        return _run(self.path, row)

    @sql_errors
    def latest_run(self) -> Run | None:
        """The most recently started run, or None in a store without runs."""
        rows = self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id DESC LIMIT 1")
        row = next(iter(rows.fetchall()), None)
        return None if row is None else _run(self.path, row)

    def latest_unfinished_run(self) -> Run | None:
        """The most recently started run that is not finished (and not held by a live
        process), or None."""
        for run in reversed(self.runs()):
            if run.status in ("interrupted", "stopped"):
                return run
        return None

    @sql_errors
    def runs(self) -> list[Run]:
        """Every run, oldest first."""
        return [
            _run(self.path, row)
            for row in self._db.execute(f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY id").fetchall()
        ]


def _to_json(params: dict) -> str:
    def default(value: Any) -> Any:
        if hasattr(value, "tolist"):
            return value.tolist()
        if isinstance(value, os.PathLike):
            return os.fspath(value)
        raise TypeError(f"run parameter of type {type(value).__name__} is not JSON")

    return json.dumps(params, sort_keys=True, default=default)


def _run(path: Path, row: tuple) -> Run:
    """A run from its row, each value checked (values.py); a run still marked running whose
    holder died reads as interrupted."""
    (id_, started, updated, strategy, objective, seed, params, status, *rest) = row
    (
        games,
        seconds,
        best_deal,
        best_cards,
        best_tricks,
        seats,
        backend,
        holder,
        beat,
        kind,
        rules,
        host,
        origin_store,
        origin_run,
    ) = rest
    r = Row(path, "runs", id_)
    status = r.text("status", status, RUN_STATUSES)
    holder = r.text("holder", holder, null=True)
    beat = r.number("heartbeat_at", beat, null=True)
    if status == "running" and not holder_alive(holder, beat):
        status = "interrupted"
    return Run(
        r.whole("id", id_, 1),
        r.stamp("started_at", started),
        r.stamp("updated_at", updated),
        r.text("strategy", strategy, null=True),
        r.text("objective", objective, OBJECTIVES),
        r.whole("seed", seed, -INT64_MAX - 1),
        _sizes(r, _settings(r.text("params", params, shape=_ANY, what="text"))),
        status,
        r.whole("games", games),
        r.number("seconds", seconds),
        r.deal("best_deal", best_deal, null=True),
        r.whole("best_cards", best_cards, null=True),
        r.whole("best_tricks", best_tricks, null=True),
        r.whole("seats", seats, 2, 4),
        r.text("backend", backend),
        holder,
        beat,
        r.text("kind", kind),
        r.text("rules", rules),
        r.text("host", host, null=True),
        r.text("origin_store", origin_store, null=True),
        r.whole("origin_run", origin_run, 1, null=True),
    )


UNREADABLE = "unreadable settings"  # the key a run's settings are kept under when not JSON
_ANY = re.compile(r".*", re.DOTALL)


def _settings(text: str) -> dict:
    """A run's stored settings; text that is not a JSON object (a damaged row) is kept under
    UNREADABLE, so the run still lists, and resuming it is refused as a run whose settings
    cannot be read (search/runs/start.py), not a traceback."""
    try:
        settings = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        settings = None
    return settings if isinstance(settings, dict) else {UNREADABLE: str(text)[:80]}


def _sizes(r: Row, settings: dict) -> dict:
    """`settings`, once its hand sizes (which the records commands read themselves, to name a
    run's deck) are found a list of whole numbers, or absent; the others are read back by their
    declarations when the run is resumed (search/runs/settings.py)."""
    sizes = settings.get("hand_sizes")
    if sizes is not None and not (
        isinstance(sizes, list)
        and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 10**4 for n in sizes)
    ):
        raise r.bad("params", f"holds hand_sizes {shown(sizes)}, not a list of hand sizes")
    return settings
