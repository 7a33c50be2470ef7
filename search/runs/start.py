"""Starting a run: a new one from its settings, or a stored one resumed; then running it until
it is done or Ctrl-C (SIGINT), SIGTERM or SIGHUP stops it after a checkpoint.

`bmn search` (frontends/cli/search.py) and the library's `bmn.search.search` (search/api.py) both
start runs here, so the checks and defaults are written once. Settings are named as the command
line's parameters (seconds for --time, loop_deck for --loop-deck); what each kind of run takes
is in registry.py. Nothing here imports click: bad settings raise SearchOptionError (the command
line turns it into its usage error), a store problem StoreError.
"""

from __future__ import annotations

import os
import secrets
import signal
import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from bmn.kernels.decks import DeckInputError
from bmn.records.store import RunHeld, RunNotFound, StoreError
from bmn.search.runs.job import OptionValueError
from bmn.search.runs.registry import (
    CLUSTER_OPTIONS,
    RunKind,
    UnknownKind,
    get_kind,
    kind_for,
    refusal,
)
from bmn.search.runs.said import Words, named
from bmn.search.runs.settings import (
    SETTINGS,
    SearchOptionError,
    default_of,
    read_duration,
    read_whole,
)
from bmn.search.runs.settings import check_stored as check_stored_setting

if TYPE_CHECKING:
    from bmn.records.store import Run, Store
    from bmn.search.backends.base import Backend
    from bmn.search.runs.loop import RunLoop


class DeckValueError(SearchOptionError):
    """A value a run's kind cannot take, judged by its options (a deck, hand sizes, a rank
    range): a bad value, not a conflict."""


class NothingToResume(SearchOptionError):
    """Resuming the latest unfinished run, where every run finished or there is none."""


@dataclass(frozen=True)
class Request:
    """A run asked for, its settings checked: a new run of `kind` from `settings`, or with
    `resume` ('latest' or a run number) a stored one. `typed`: the settings given on a
    command line (a cluster named only by the environment is ignored). `options`: a new
    run's, as its kind planned them."""

    kind: RunKind | None
    settings: dict[str, Any] = field(default_factory=dict)
    resume: int | str | None = None
    typed: frozenset[str] = frozenset()
    options: Any = None


def request(
    settings: dict[str, Any],
    given: Collection[str],
    resume: int | str | None = None,
    typed: Collection[str] = (),
) -> Request:
    """Check a run's settings before any store is opened: the kind they ask for, each setting
    it does not take refused (saying why), its options planned (its deck checked), and for a
    GPU run that CUDA runs here.
    `settings`: values read by their declarations (settings.py), None for a default; `given`:
    those the user set. SearchOptionError, or CudaUnavailable; nothing is written."""
    if resume is not None:
        if given:
            name = sorted(given)[0]
            raise SearchOptionError(name, "is stored with the run; resume takes no setting")
        if resume != "latest":
            what = "a run number (1 or more) or 'latest'"
            try:
                resume = read_whole(resume, 1, what=what)
            except ValueError as err:
                raise SearchOptionError("resume", str(err)) from None
        return Request(None, resume=resume, typed=frozenset(typed))
    chosen = selection(settings)
    given = check_rules(settings, chosen, given)
    kind = check_new_run(chosen, given, typed)
    options = plan(kind, settings, given)
    require_device(kind)
    return Request(kind, dict(settings), typed=frozenset(typed), options=options)


def open_run(db: Store, asked: Request, backend: Backend | None) -> RunLoop:
    """The run a request asks for, in the open store: made new, or the stored one claimed to
    continue it (RunNotFound, NothingToResume or RunHeld if it cannot be; StoreError for one
    whose stored settings cannot be read; CudaUnavailable for a GPU run where CUDA cannot
    run). A kind that runs on this machine only takes no backend, and refuses a cluster
    named on the command line."""
    if asked.kind is not None:
        return new_run(db, asked.kind, asked.settings, backend, asked.options)
    run_id, kind = stored_run(db, asked.resume or "latest")
    clusters = [option for option in CLUSTER_OPTIONS if option in asked.typed]
    if clusters and not kind.on_backend:
        why = f"runs on a Dask cluster; run {run_id}, {kind.what}, runs on this machine"
        raise SearchOptionError(clusters[0], why)
    require_device(kind)
    return resumed_run(db, run_id, kind, backend)


def require_device(kind: RunKind) -> None:
    """CudaUnavailable (one line saying what is missing) for a GPU run where CUDA cannot run."""
    if kind.device == "cuda":
        from bmn.kernels.cuda.env import require

        require()


def selection(settings: dict[str, Any]) -> tuple[str, str, str, int]:
    """What selects a new run's kind (registry.kind_for): its objective, device, strategy and
    seats, each its declaration's default where not given."""
    objective, device, strategy, players = (
        settings.get(name) or SETTINGS[name].default
        for name in ("objective", "device", "strategy", "players")
    )
    return objective, device, strategy, players


def seats_given(settings: dict[str, Any], given: Collection[str]) -> int:
    """The seats a new run deals: --players, or as many as --hand-sizes gives when --players
    is not given, so that either spelling meets the same checks."""
    sizes = settings.get("hand_sizes")
    if sizes and "players" not in given:
        return len(sizes)
    return settings.get("players") or SETTINGS["players"].default


def check_rules(
    settings: dict[str, Any], chosen: tuple[str, str, str, int], given: Collection[str]
) -> Collection[str]:
    """The settings given, the rule set refused (SearchOptionError) if it does not play the
    run's seats, and left out of them where it plays those seats as bmn's rules do: every
    kind of run takes that one, even those that play bmn's rules only. `chosen`: the
    run's selection."""
    from bmn.kernels.rules.sets import rule_set

    if "rules" not in given or settings.get("rules") is None:
        return given
    players = seats_given(settings, given)
    rules = rule_set(settings["rules"])
    if not rules.plays(players):
        why = Words(f"{rules.name} is defined for {rules.seat_counts} seats; ")
        if "players" not in given and settings.get("hand_sizes"):
            sizes = ",".join(map(str, settings["hand_sizes"]))
            why = Words(why, named("hand_sizes", sizes), f" deals {players}")
        else:
            why = Words(why, named("players"), f" is {players}")
        raise SearchOptionError("rules", why)
    kind = kind_for(*chosen)
    if rules.plays_as(players) == "bmn" and kind is not None and "rules" not in kind.takes:
        return [name for name in given if name != "rules"]
    return given


def check_new_run(
    chosen: tuple[str, str, str, int], given: Collection[str], typed: Collection[str] = ()
) -> RunKind:
    """The kind of the new run `chosen` selects, after refusing every setting it does not
    take, saying why (registry.refusal). `given`: the settings set by the user; `typed`: those
    on a command line (a cluster named only by the environment is ignored)."""
    declared = [name for name in SETTINGS if name in given]  # the first refused is named
    refused = refusal(*chosen, given=declared, typed=typed)
    if refused is not None:
        raise SearchOptionError(*refused)
    kind = kind_for(*chosen)
    assert kind is not None, "refusal names a device no kind runs on"
    return kind


def plan(kind: RunKind, settings: dict[str, Any], given: Collection[str]) -> Any:
    """A new run's options, planned by its kind from the settings it takes (None or absent:
    the default) and bmn search's defaults (a minute; a random seed), before a store is
    made: the one check of its deck, hand sizes and rank range (--loop-deck is --deck's
    first name), those `given` by the user checked against each other first.
    DeckValueError or SearchOptionError naming the setting."""
    if "deck" in kind.takes:
        chosen = {name: settings.get(name) for name in given}
        if chosen.get("deck") is not None and chosen.get("loop_deck") is not None:
            why = Words("is the first name of ", named("deck"), "; give one of them")
            raise SearchOptionError("loop_deck", why)
        sizes, players = chosen.get("hand_sizes"), chosen.get("players")
        if sizes is not None and players is not None and len(sizes) != players:
            why = Words(f"gives {len(sizes)} hands; ", named("players"), f" is {players}")
            raise SearchOptionError("hand_sizes", why)
    fields = _fields(kind, settings)
    untimed = settings.get("seconds") is None and settings.get("iterations") is None
    if untimed and kind.timed:  # an enumeration runs until its range is done
        fields["seconds"] = read_duration(default_of("seconds", "timed"))
    fields.setdefault("seed", secrets.randbits(62))
    try:
        return kind.job_class().plan(fields)
    except ValueError as err:  # what only the options can judge, naming its setting
        option = err.option if isinstance(err, (DeckInputError, OptionValueError)) else None
        if option is None:  # every refusal of a kind's options names its setting
            raise
        if option == "deck" and settings.get("loop_deck") is not None:
            option = "loop_deck"
        raise DeckValueError(option, str(err)) from None


def _fields(kind: RunKind, settings: dict[str, Any]) -> dict[str, Any]:
    """The settings given that `kind` takes, by its options' field names."""
    return {
        name: settings[opt] for opt, name in kind.fields().items() if settings.get(opt) is not None
    }


def new_run(
    db: Store,
    kind: RunKind,
    settings: dict[str, Any],
    backend: Backend | None,
    options: Any = None,
) -> RunLoop:
    """A new run of `kind` from its settings, in the open store: its options as `plan` made
    them (before the store was opened; planned here when not given), completed with what
    only the store or the backend knows."""
    from bmn.search.runs.loop import RunLoop

    job = kind.job_class()
    options = plan(kind, settings, settings) if options is None else options
    job.prepare(options, set(_fields(kind, settings)), db, backend)
    return RunLoop(db, job, options, backend=backend if kind.on_backend else None)


def stored_run(db: Store, resume: int | str) -> tuple[int, RunKind]:
    """The run to resume, and its kind: run number `resume`, or with 'latest' the latest run
    neither finished nor searched now.

    RunNotFound for a number the store does not hold; with 'latest', RunHeld if the only
    unfinished runs are being searched now, NothingToResume if there are none."""
    if resume == "latest":
        latest = db.latest_unfinished_run()
        if latest is None:
            nothing_to_resume(db)
        run_id = latest.id
    else:
        try:
            run_id = db.get_run(int(resume)).id
        except RunNotFound as err:  # not StoreDamaged: a damaged run is not a missing one
            raise RunNotFound(str(err)) from None
    run = db.get_run(run_id)
    try:
        return run.id, get_kind(run.kind)
    except UnknownKind as err:
        raise StoreError(f"cannot resume run {run.id}: {err}") from None


def nothing_to_resume(db: Store) -> NoReturn:
    """Say why there is no run to resume: no runs, every one finished, or the unfinished ones
    are being searched now (RunHeld)."""
    runs = db.runs()
    held = [run for run in runs if run.status == "running"]
    if held:
        raise RunHeld(
            f"nothing to resume in {db.path}: run {held[-1].id} is being searched now,"
            f" by {held[-1].holder}"
        )
    why = f"every run in it finished (the latest is run {runs[-1].id})" if runs else "no runs"
    raise NothingToResume(
        "resume",
        Words(
            f"nothing to resume in {db.path}: {why}; start a new search without ", named("resume")
        ),
    )


def resumed_run(db: Store, run_id: int, kind: RunKind, backend: Backend | None) -> RunLoop:
    """Stored run `run_id` of `kind`, claimed for this process to continue it (RunHeld if
    another process, or another thread of this one, searches it); a kind that runs on this
    machine takes no backend. A run whose stored settings this bmn cannot read (a store
    edited by hand, or written wrong) is StoreError, one line: never resumed."""
    from bmn.search.runs.loop import RunLoop

    check_stored(db, run_id, kind)
    return RunLoop.resume(db, kind.job_class(), run_id, backend if kind.on_backend else None)


def check_stored(db: Store, run_id: int, kind: RunKind) -> None:
    """Read a stored run's settings back by their declarations (settings.py), as a new run's
    are checked; StoreError saying why it cannot be resumed (its options, made when it is
    resumed, say the same of what only they can judge: loop.RunLoop.resume)."""
    from bmn.search.runs.job import unreadable

    try:
        _read_back(db.get_run(run_id).params, kind)
    except (ValueError, TypeError) as err:
        raise unreadable(run_id, err) from None


def settings_problem(run: Run) -> str | None:
    """Why a run another store holds could not be resumed here, its settings read back by
    its kind's declarations (`records merge` asks before it brings the run); None if it
    could. An import run is resumed by no search: its settings are the import's own."""
    from bmn.records.store import IMPORT_KIND

    if run.kind == IMPORT_KIND:
        return None
    try:
        _read_back(run.params, get_kind(run.kind))
    except UnknownKind:
        return f"it is of kind {run.kind!r}, unknown to this bmn"
    except (ValueError, TypeError) as err:
        return f"its settings cannot be read: {err}"
    return None


def _read_back(params: object, kind: RunKind) -> None:
    """ValueError or TypeError for stored settings the declarations refuse."""
    from bmn.records.store.runs import UNREADABLE
    from bmn.search.runs.job import stored_params

    if not isinstance(params, dict):
        raise TypeError(f"they are {type(params).__name__}, not a mapping")
    if UNREADABLE in params:  # not JSON in the store: records/store/runs.py kept the text
        raise ValueError(f"not JSON: {params[UNREADABLE]!r}")
    fields = stored_params(params, getattr(kind.options_class(), "RENAMED", None))
    for setting, name in kind.fields().items():  # a setting selecting the kind is its kind
        check_stored_setting(setting, fields.get(name))


class StoppedBeforeRun(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP before the run began (its store opening, its kernels compiling):
    nothing was searched. `run`: the run made or claimed by then, released so that
    `--resume` continues it, or None."""

    def __init__(self, run: int | None = None):
        super().__init__(run)
        self.run = run


class Stopping:
    """SIGINT (Ctrl-C), SIGTERM and SIGHUP (a terminal closed, an SSH session dropped) from
    before a store opens to a run's end. Before the run begins a signal raises StoppedBeforeRun
    at once (opening a store or compiling kernels is not waited out); once it runs, the run
    stops cleanly after a checkpoint and its summary says 'interrupted'. SIGHUP ignored when
    the run starts (`nohup`) stays ignored. Signals are caught only on the main thread (the
    only one Python delivers them to)."""

    def __init__(self, store: str | os.PathLike[str]):
        self.store = store
        self.job: RunLoop | None = None
        self.requested = False  # a signal came
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Stopping:
        if threading.current_thread() is threading.main_thread():
            self._previous = {
                sig: signal.signal(sig, self._signal)
                for sig in STOP_SIGNALS
                if not (sig == signal.SIGHUP and signal.getsignal(sig) == signal.SIG_IGN)
            }
        return self

    def _signal(self, signum: int, frame: object) -> None:
        self.requested = True
        if self.job is None:
            raise StoppedBeforeRun()
        self.job.stop.set()

    def check(self) -> None:
        """StoppedBeforeRun if a signal came while code that swallows KeyboardInterrupt ran
        (a Dask cluster starting)."""
        if self.requested:
            raise StoppedBeforeRun()

    def run(self, job: RunLoop, on_progress: Callable[[Any], None]) -> Any:
        """Run `job` to its end or until a signal stops it."""
        self.job = job
        return job.run(on_progress)

    def __exit__(self, kind: type | None, err: BaseException | None, tb: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        if isinstance(err, StoppedBeforeRun):
            err.run = _release_ours(self.store)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # as frontends/cli/stops.py's


def _release_ours(store: str | os.PathLike[str]) -> int | None:
    """Mark interrupted and release the runs this process holds in `store` (one made or
    claimed before a signal stopped it), so `--resume` takes them at once; the latest's
    number, or None. A run another thread of this process is searching is left to it."""
    from bmn.records.store import Store, holder_name
    from bmn.search.runs.loop import forget, held_by_other_threads

    busy = held_by_other_threads(store)
    try:
        with Store(store, create=False) as db:
            ours = [r for r in db.runs() if r.holder == holder_name() and r.id not in busy]
            for run in ours:
                if run.status == "running":
                    db.update_run(run.id, status="interrupted")
                db.release_run(run.id, holder_name())
                forget(store, run.id)
    except StoreError:
        return None
    return ours[-1].id if ours else None
