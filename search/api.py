"""A search from Python: the run `bmn search` makes, its settings as keyword arguments, what
`bmn.search` exports (docs/library.md walks through it).

The command line starts its runs through the same module (search/runs/start.py), so a setting
is checked, defaulted and refused (saying why) the same way here and there; bad settings raise
SearchOptionError instead of a usage error. Ctrl-C (KeyboardInterrupt in a notebook), SIGTERM or
SIGHUP (a closed terminal; ignored where the process was started under nohup) stops the run
after a checkpoint, and the summary comes back with status 'interrupted'; resume
it with `search(store, resume=run)`. One that comes before the run begins (while its store opens
or its kernels compile) is not waited out: StoppedBeforeRun (a KeyboardInterrupt) is raised at
once, naming the run made by then (released, for resume) or None.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Union

from bmn.kernels.cuda.env import CudaUnavailable
from bmn.kernels.exports import front_door
from bmn.records.store import DEFAULT_PATH, RunHeld, RunNotFound, StoreError
from bmn.search.runs.said import in_python
from bmn.search.runs.settings import SearchOptionError, check_settings
from bmn.search.runs.start import NothingToResume, StoppedBeforeRun

if TYPE_CHECKING:
    from bmn.kernels.api import DealLike
    from bmn.search.backends.base import Backend
    from bmn.search.measure.odds import DealOdds
    from bmn.search.runs.kinds.grow import GrowSummary
    from bmn.search.runs.kinds.longest_base import LongestSummary
    from bmn.search.runs.kinds.loop_hunt import LoopHuntSummary
    from bmn.search.runs.progress import RunProgress

__all__ = [
    "CudaUnavailable",
    "NothingToResume",
    "RunHeld",
    "RunNotFound",
    "SearchOptionError",
    "StoppedBeforeRun",
    "StoreError",
    "odds",
    "search",
]

# What a run returns when it stops: `as_dict()` is `bmn search --json`, `text()` its lines.
SearchSummary = Union["LongestSummary", "LoopHuntSummary", "GrowSummary"]


def search(
    store: str | os.PathLike[str] = DEFAULT_PATH,
    *,
    objective: str | None = None,
    strategy: str | None = None,
    seconds: float | str | None = None,
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
    seconds, rate, its best, ...), a copy of that moment's that the run no longer changes;
    `display` draws bmn search's live display on stderr.
    `backend` runs the chunks elsewhere (a Dask backend from bmn.search.backends.registry).

    Every setting is read and checked as the command line reads it (a duration as 90, 90.0
    or '90s'; a whole number as 5 or '5'), and the run's kind refuses the settings it has no
    use for, before a store is opened or made. Raises SearchOptionError for a bad or
    conflicting setting (and for `display` other than True or False, or a `backend` that is
    no backend object, such as its name), CudaUnavailable for a GPU run where CUDA cannot
    run; RunNotFound, NothingToResume or RunHeld (also for a run another thread of this
    process searches) for a run that cannot be resumed; StoreError for a store that cannot be
    used, or a stored run whose settings cannot be read.

    >>> summary = search("doctest.sqlite", iterations=20_000, seed=1, workers=1)
    >>> summary.status, summary.games
    ('finished', 20000)
    >>> search("doctest.sqlite", objective="loop", keep_above=10)
    Traceback (most recent call last):
    ...
    bmn.search.runs.settings.SearchOptionError: keep_above does nothing with objective='loop': ...
    """
    from bmn.records.store import Store
    from bmn.search.runs import start

    named = dict(objective=objective, strategy=strategy, seconds=seconds, iterations=iterations)
    named.update(workers=workers, players=players, seed=seed, device=device)
    try:
        _check_call(store, on_progress, display, backend)
        given = check_settings({**named, **settings})
        asked = start.request(given, set(given), resume)
    except SearchOptionError as err:
        raise err from None
    with start.Stopping(store) as stopping, Store(store, create=resume is None) as db:
        try:
            job = start.open_run(db, asked, backend)  # resuming never makes a store
        except SearchOptionError as err:
            raise err from None
        return _run(stopping, job, on_progress, display)


# What the run handler calls on a backend (search/backends/base.py's Backend).
_BACKEND_CALLS = ("details", "default_streams", "start", "submit", "next_result", "cancel", "close")


def _check_call(store: Any, on_progress: Any, display: Any, backend: Any) -> None:
    """The arguments of `search` that are no setting of the run: a store path, a callable, a
    flag (True or False: 'no' is not taken as true) and a backend object (a name is not one)."""
    import numpy as np

    if not isinstance(store, (str, os.PathLike)) or not str(os.fspath(store)).strip():
        raise SearchOptionError("store", f"is the path of a record store file, not {store!r}")
    if on_progress is not None and not callable(on_progress):
        raise SearchOptionError("on_progress", f"is a function or None, not {on_progress!r}")
    if not isinstance(display, (bool, np.bool_)):
        raise SearchOptionError("display", f"is True or False, not {_shown(display)}")
    if backend is not None and not all(
        callable(getattr(backend, call, None)) for call in _BACKEND_CALLS
    ):
        raise SearchOptionError(
            "backend",
            f"is a backend object, made by bmn.search.backends.registry.get_backend(name),"
            f" or None for this machine's threads; not {_shown(backend)}",
        )


def _shown(value: Any) -> str:
    from bmn.kernels.arguments import shown

    return shown(value)


def _run(stopping: Any, job: Any, on_progress: Callable[[Any], None] | None, display: bool) -> Any:
    """Run `job` until done or stopped, with the callback and, if asked, the live display;
    the run's notes (warnings) in Python's words."""
    from bmn.frontends.output.progress import Display  # the live panel, the front end's
    from bmn.search.runs.progress import starts_too

    with Display(quiet=not display, say=in_python) as shown:

        def progress(p: Any) -> None:
            p.notes[:] = [in_python(note) for note in p.notes]
            shown.update(p)
            if on_progress is not None and getattr(p, "starting", None) is None:
                # after commits only, as promised; a copy of this moment's progress, since the
                # run goes on updating its own (a list of them is each moment, not the last)
                on_progress(copy.deepcopy(p))

        # The display hears the start too (the kernels compiling), as bmn search's does.
        return stopping.run(job, starts_too(progress) if display else progress)


def odds(deal: DealLike) -> DealOdds | None:
    """How rare `deal`'s game is, as `bmn play --odds` says it: of random standard deals of
    its seat count, one in `cards_one_in` finishes at least as many cards long, one in
    `tricks_one_in` at least as many tricks, from the fitted tail the live display reads (an
    estimate; docs/searching.md). None for a game that does not finish; DealError for a deal
    bmn cannot read or one that is not the standard deck dealt evenly (the tail's yardstick).

    >>> rare = odds("---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---")
    >>> rare.cards, f"{rare.cards_one_in:.1e}"
    (8344, '3.2e+17')
    """
    from bmn.kernels.api import as_deal
    from bmn.kernels.deal import DealError, format_deal, shorten
    from bmn.kernels.decks import is_standard
    from bmn.kernels.reference import play
    from bmn.search.measure.odds import deal_odds

    hands = as_deal(deal)
    if not is_standard(hands):
        raise DealError(
            f"odds are for the standard deck dealt evenly (the fitted tail's yardstick), not"
            f" {shorten(format_deal(hands))}"
        )
    result = play(hands)
    if result.status != "finished":
        return None
    return deal_odds(len(hands), result.cards, result.tricks)


# -- the front ends' door (not the library) -------------------------------------------------
# What bmn.frontends takes from bmn.search beyond __all__: the front ends import the engine only
# from its api modules (tests/test_layers.py), and each name here is imported from its module
# when first asked for (kernels/exports.py). Not in __all__, nor in dir(bmn.search).
FRONT_ENDS, __getattr__ = front_door(
    __name__,
    {
        "backends.base": "Backend BackendError",
        "backends.dask_cluster": "quiet_dask_logs=quiet_logs read_scheduler_file",
        "backends.registry": "get_backend",
        "backends.threads": "default_workers",
        "benchmark": (
            "search_bench_compare=compare search_bench_table=table "
            "SEARCH_BENCH_THRESHOLDS=THRESHOLDS"
        ),
        "measure.odds": "deal_odds Odds",
        "measure.odds_words": "deal_odds_line odds_row",
        "measure.stats": "DEFAULT_DEALS length_stats percentile_key PERCENTILES score_random",
        "runs.kinds.grow": "GrowSummary",
        "runs.kinds.longest_base": "LongestSummary",
        "runs.kinds.loop_hunt": "LoopHuntSummary",
        "runs.loop": "RunLoop",
        "runs.progress": "starts_too",
        "runs.registry": "CLUSTER_OPTIONS",
        "runs.said": "store_option",
        "runs.settings": (
            "DEVICES MAX_DEVICE_THREADS MAX_WORKERS read_duration read_whole Refused "
            "SEED_WORDS Setting SETTINGS"
        ),
        "runs.start": (
            "DeckValueError Request settings_problem start_request=request "
            "start_run=open_run Stopping"
        ),
        "strategies.cuda.host": "gpu_bench=bench",
        "strategies.registry": "STRATEGIES",
        "words": "counted duration format_duration ordinal short_time",
    },
)
