"""A search from Python: the run `bmn search` makes, its settings as keyword arguments, what
`bmn.search` exports (docs/library.md walks through it).

The command line starts its runs through the same module (search/runs/start.py), so a setting
is checked, defaulted and refused (saying why) the same way here and there; bad settings raise
SearchOptionError instead of a usage error. Ctrl-C (KeyboardInterrupt in a notebook) or SIGTERM
stops the run after a checkpoint, and the summary comes back with status 'interrupted'; resume
it with `search(store, resume=run)`. One that comes before the run begins (while its store opens
or its kernels compile) is not waited out: StoppedBeforeRun (a KeyboardInterrupt) is raised at
once, naming the run made by then (released, for resume) or None.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Union

from bmn.records.store import DEFAULT_PATH, RunHeld, RunNotFound, StoreError
from bmn.search.runs.kinds import SETTINGS
from bmn.search.runs.start import NothingToResume, SearchOptionError, StoppedBeforeRun

if TYPE_CHECKING:
    from bmn.search.backends.base import Backend
    from bmn.search.runs.grow import GrowSummary
    from bmn.search.runs.handler import RunProgress
    from bmn.search.runs.longest_base import Summary
    from bmn.search.runs.loop_hunt import LoopSummary

__all__ = [
    "NothingToResume",
    "RunHeld",
    "RunNotFound",
    "SearchOptionError",
    "StoppedBeforeRun",
    "StoreError",
    "search",
]

# What a run returns when it stops: `as_dict()` is `bmn search --json`, `text()` its lines.
SearchSummary = Union["Summary", "LoopSummary", "GrowSummary"]
# The least value of each whole-number setting (the command line's types say the same).
AT_LEAST = {
    "iterations": 1,
    "workers": 1,
    "players": 2,
    "seed": 0,
    "keep_above": 0,
    "patience": 1,
    "history": 1,
    "basin_states": 1,
    "device_threads": 1,
}


def search(
    store: str | os.PathLike[str] = DEFAULT_PATH,
    *,
    objective: str | None = None,
    strategy: str | None = None,
    seconds: float | None = None,
    iterations: int | None = None,
    workers: int | None = None,
    players: int | None = None,
    seed: int | None = None,
    device: str | None = None,
    resume: int | str | None = None,
    on_progress: Callable[[RunProgress], None] | None = None,
    display: bool = False,
    backend: Backend | None = None,
    **settings: Any,
) -> SearchSummary:
    """Run a search as `bmn search` does, keeping its finds in `store`; its summary.

    Settings are `bmn search`'s options by their Python names (seconds for --time,
    keep_above, loop_deck, basin_states, grow_from, device_threads, ...), each defaulting as
    there: cards, the walk strategy, a minute unless `iterations` is given, every core, two
    seats, a random seed (stored with the run). `resume` continues run number N, or with
    'latest' the latest unfinished run, from its checkpoints, with its stored settings (give
    none). `on_progress` is called after every commit with the run's progress (games,
    seconds, rate, its best, ...); `display` draws bmn search's live display on stderr.
    `backend` runs the chunks elsewhere (a Dask backend from bmn.search.backends.registry).

    Raises SearchOptionError for a bad or conflicting setting, RunNotFound, NothingToResume
    or RunHeld for a run that cannot be resumed, StoreError for a store that cannot be used.

    >>> summary = search("doctest.sqlite", iterations=20_000, seed=1, workers=1)
    >>> summary.status, summary.games
    ('finished', 20000)
    >>> search("doctest.sqlite", objective="loop", keep_above=10)
    Traceback (most recent call last):
    ...
    bmn.search.runs.start.SearchOptionError: keep_above does nothing with --objective loop: ...
    """
    from bmn.records.store import Store
    from bmn.search.runs import start

    given = _given(locals(), settings)
    if resume is not None:
        if given:
            name = sorted(given)[0]
            raise SearchOptionError(name, "is stored with the run; resume takes no setting")
        target = _resume_target(resume)
        with start.Stopping(store) as stopping, Store(store, create=False) as db:
            run_id, kind = start.stored_run(db, target)  # resuming never makes a store
            job = start.resumed_run(db, run_id, kind, backend)
            return _run(stopping, job, on_progress, display)
    kind = start.check_new_run(
        objective or "cards", device or "cpu", strategy or "walk", players or 2, set(given)
    )
    start.check_deck(kind, given)  # before a store is made
    with start.Stopping(store) as stopping, Store(store) as db:
        return _run(stopping, start.new_run(db, kind, given, backend), on_progress, display)


def _resume_target(resume: int | str) -> int | str:
    """A run number (1 or more) or 'latest'."""
    if resume == "latest":
        return resume
    if isinstance(resume, int) and not isinstance(resume, bool) and resume >= 1:
        return resume
    raise SearchOptionError("resume", f"is a run number (1 or more) or 'latest', not {resume!r}")


def _given(arguments: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """The settings the caller gave (None: bmn search's default), checked by name and range."""
    named = ("objective", "strategy", "seconds", "iterations", "workers", "players", "seed")
    given = {name: arguments[name] for name in (*named, "device") if arguments[name] is not None}
    for name, value in settings.items():
        if name not in SETTINGS:
            known = ", ".join(sorted(SETTINGS))
            raise SearchOptionError(name, f"is not a setting of a search; the settings: {known}")
        if value is not None:
            given[name] = value
    for name, value in given.items():
        if name in AT_LEAST and (isinstance(value, bool) or not isinstance(value, int)):
            raise SearchOptionError(name, f"must be a whole number, got {value!r}")
        if name in AT_LEAST and value < AT_LEAST[name]:
            raise SearchOptionError(name, f"must be at least {AT_LEAST[name]}, got {value}")
    if given.get("seed", 0) >= 2**63:
        raise SearchOptionError("seed", f"must be 0 to 2**63 - 1, got {given['seed']}")
    seconds = given.get("seconds")
    if seconds is not None and not 0 < seconds <= 365 * 86400:
        raise SearchOptionError("seconds", f"must be more than 0 and at most 365 days: {seconds}")
    return given


def _run(stopping: Any, job: Any, on_progress: Callable[[Any], None] | None, display: bool) -> Any:
    """Run `job` until done or stopped, with the callback and, if asked, the live display."""
    from bmn.search.output.progress import Display

    with Display(quiet=not display) as shown:

        def progress(p: Any) -> None:
            shown.update(p)
            if on_progress is not None:
                on_progress(p)

        return stopping.run(job, progress)
