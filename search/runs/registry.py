"""The kinds of run by name: what selects each, what it takes, and where it runs.

The one list `bmn search` reads to choose a new run's kind, to refuse the options a kind has no
use for (saying why), and to resume a stored run (`Run.kind`, written when the run is made).
Kernels (kernels/score.py), backends (search/backends/registry.py) and strategies
(search/strategies/registry.py) each have a registry like it. Plain Python that imports nothing:
a kind's job (search/runs/job.py: its options, its checks, its work) is named "module:Class"
and imported when a run is made, so `bmn --help` stays instant.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from bmn.search.runs.said import Words, named
from bmn.search.strategies.registry import CHOICES, uses

# The settings of the longest-game search that a loop hunt or a grow run has no use for.
SEARCH_SETTINGS = ("strategy", "keep_above", "patience", "history")
# What selects a new run's kind (with --strategy, which a kind may refuse): each refusal of
# them is the kind's (the seats it plays, the device it runs on), not a setting's.
SELECTING = ("objective", "device", "players")
# Where a run's chunks may go besides threads: the command line's cluster options.
CLUSTER_OPTIONS = ("scheduler", "scheduler_file", "cluster")
# Options a strategy reads only if it uses them (search/strategies/registry.py), and what a
# strategy that does not use one is (after its name: 'walk does not restart').
STRATEGY_OPTIONS = {"patience": "does not restart", "history": "keeps no history"}
# Why the GPU search refuses a deck: its kernel deals the standard deck, 26/26.
GPU_DECK = Words(
    "is for the CPU search: ", named("device", "cuda"), " deals the standard deck 26/26 only"
)
# An enumeration traces a cycle back only with --objective loop.
EVERY_BASIN = (("loop",), Words("only ", named("objective", "loop"), " traces cycles back"))
# Why the GPU kinds refuse --workers.
GPU_WORKERS = Words(
    "sets CPU threads; with ", named("device", "cuda"), " use ", named("device_threads")
)
# Why a true-cycle run refuses another rule set (one that plays its seats as bmn's rules do is
# taken: start.py): its growth steps and their scoring are written for bmn's rules.
TRUE_CYCLE_RULES = Words(
    "must play as bmn's rules here: true 3- and 4-seat cycles are grown under bmn's rules;"
    " hunt other rule sets' cycles with ",
    named("objective", "loop"),
)
# An enumeration draws nothing at random: it stores a seed, but none can be asked for.
EVERY_SEED = Words(
    "does nothing with ",
    named("strategy", "every"),
    ": it plays every deal in rank order, drawing none",
)
# A setting stored in another's field of a kind's options: --loop-deck is --deck's first name.
STORED_AS = {"loop_deck": "deck"}


@dataclass(frozen=True)
class RunKind:
    """One kind of run: the job the run loop holds for it, and the settings `bmn search` takes
    for it, each stored in the field of its options dataclass of the same name (STORED_AS
    says where not; a --strategy that selects the kind is stored as the kind)."""

    name: str  # as stored in the runs table's kind column
    job: str  # "module:Class", its Job (search/runs/job.py), which names its options type
    what: str  # the run in words: 'a loop hunt'
    objectives: tuple[str, ...]  # the --objective values that select it
    device: str = "cpu"  # the --device that selects it
    takes: tuple[str, ...] = ()  # the settings it takes (settings.py declares each)
    seats: tuple[int, ...] = (2,)  # the --players it plays
    seats_why: str = "it plays two seats"
    on_backend: bool = True  # its chunks run on a backend (threads or a Dask cluster)
    strategies: tuple[str, ...] | None = None  # the strategies it plays; None: every one
    does: str = ""  # what a kind selected by its device does, in words
    # Its own reason for options it takes in no form ('' for none), and which: None, every
    # option it does not take; others are refused as 'is for' the kinds that take them.
    idle: str = ""
    idle_options: tuple[str, ...] | None = None
    refuses: dict[str, Words] = field(default_factory=dict)  # option -> a reason of its own
    strategy: str | None = None  # the --strategy that selects it, with any of its objectives
    # Settings it takes with some of its objectives only: setting -> (objectives, why not).
    only_with: dict[str, tuple[tuple[str, ...], Words]] = field(default_factory=dict)
    timed: bool = True  # without --time or --iterations: a minute; False: until its work is done

    def fields(self) -> dict[str, str]:
        """Each setting it takes -> the field of its options that holds it (a setting that
        selects the kind has none)."""
        selects = {"strategy"} if self.strategy is not None else set()
        return {name: STORED_AS.get(name, name) for name in self.takes if name not in selects}

    def job_class(self) -> Any:
        """Its Job class, imported now."""
        return _load(self.job)

    def options_class(self) -> type:
        """Its options dataclass, imported now."""
        return self.job_class().options_type

    def selector(self) -> Words:
        """What chooses it: '--device cuda', '--objective loop', '--strategy every' on the
        command line."""
        if self.strategy is not None:
            return Words(named("strategy", self.strategy))
        if self.device != "cpu":
            return Words(named("device", self.device))
        return Words(named("objective", *self.objectives))


def _load(name: str) -> type:
    module, _, cls = name.partition(":")
    return getattr(importlib.import_module(module), cls)


_TIMED = ("seconds", "iterations")
_COMMON = (*_TIMED, "seed")
_LONGEST = ("strategy", "objective", "keep_above")
# The CPU kinds that score deals with the kernels, which play every rule set.
_RULED = ("rules",)
# An enumeration's, on the CPU or a GPU: a deck's deals in a rank range (--loop-deck: the loop
# hunt's name for --deck); each adds what runs it.
_EVERY = (
    *_LONGEST,
    *_TIMED,
    *_RULED,
    "players",
    "deck",
    "loop_deck",
    "hand_sizes",
    "from_rank",
    "to_rank",
    "basin_states",
)

KINDS: dict[str, RunKind] = {
    kind.name: kind
    for kind in (
        RunKind(
            "longest",
            "bmn.search.runs.kinds.longest:LongestJob",
            "a search",
            ("cards", "tricks"),
            takes=(
                *_LONGEST,
                *_COMMON,
                *_RULED,
                "workers",
                "patience",
                "history",
                "players",
                "deck",
                "hand_sizes",
            ),
            seats=(2, 3, 4),
        ),
        RunKind(
            "longest-cuda",
            "bmn.search.runs.kinds.longest_cuda:LongestCudaJob",
            "a GPU search",
            ("cards", "tricks"),
            device="cuda",
            takes=(*_LONGEST, *_COMMON, *_RULED, "device_threads"),
            seats_why="the GPU kernel plays two seats",
            on_backend=False,
            strategies=("walk", "random"),
            does="searches for the longest games",
            refuses={
                "workers": GPU_WORKERS,
                "deck": GPU_DECK,
                "hand_sizes": GPU_DECK,
            },
        ),
        RunKind(
            "loop-hunt",
            "bmn.search.runs.kinds.loop_hunt:LoopHuntJob",
            "a loop hunt",
            ("loop",),
            takes=(
                *_COMMON,
                "workers",
                "deck",
                "loop_deck",  # --deck's first name, kept
                "basin_states",
                "players",
                *_RULED,
            ),
            seats=(2, 3, 4),
            idle="a loop hunt plays random deals",
            idle_options=SEARCH_SETTINGS,
        ),
        RunKind(
            "grow",
            "bmn.search.runs.kinds.grow:GrowJob",
            "a grow run",
            ("grow",),
            takes=(
                *_COMMON,
                "workers",
                "grow_from",
                "basin_states",
                "deck",
                "hand_sizes",
                *_RULED,
            ),
            on_backend=False,
            idle="it builds deals from pieces",
        ),
        RunKind(
            "true-cycles",
            "bmn.search.runs.kinds.true_cycles:TrueCyclesJob",
            "a true-cycle run",
            ("grow",),
            takes=(
                *_COMMON,
                "workers",
                "players",
                "basin_states",
            ),
            seats=(3, 4),
            seats_why="it grows cycles in which every seat keeps cards",
            on_backend=False,
            refuses={"rules": TRUE_CYCLE_RULES},
            idle="it grows cycles of the standard deck's cards",
        ),
        RunKind(
            "every",
            "bmn.search.runs.kinds.every:EveryJob",
            "an enumeration",
            ("cards", "tricks", "loop"),
            takes=(*_EVERY, "workers"),
            seats=(2, 3, 4),
            refuses={"seed": EVERY_SEED},
            strategy="every",
            timed=False,
            only_with={"basin_states": EVERY_BASIN},
        ),
        RunKind(
            "every-cuda",
            "bmn.search.runs.kinds.every_cuda:EveryCudaJob",
            "a GPU enumeration",
            ("cards", "tricks", "loop"),
            device="cuda",
            takes=(*_EVERY, "device_threads"),
            seats_why="the GPU kernel plays two seats",
            on_backend=False,
            does="enumerates every deal of a deck",
            refuses={"workers": GPU_WORKERS, "seed": EVERY_SEED},
            strategy="every",
            timed=False,
            only_with={"basin_states": EVERY_BASIN},
        ),
    )
}
# The name of every setting of a run: what some kind takes, and what selects a kind (their
# declarations: settings.SETTINGS).
KIND_SETTINGS = frozenset(set(SELECTING).union(*(k.takes for k in KINDS.values())))


class UnknownKind(LookupError):
    """A stored run of a kind this bmn does not know."""


def get_kind(name: str) -> RunKind:
    """The kind registered under `name` (a run's stored kind)."""
    if name not in KINDS:
        raise UnknownKind(f"unknown kind of run {name!r}; this bmn knows {', '.join(KINDS)}")
    return KINDS[name]


def kind_for(
    objective: str, device: str = "cpu", strategy: str | None = None, players: int | None = None
) -> RunKind | None:
    """The kind a new run of this objective on this device is (a kind a strategy selects, if
    `strategy` names one that plays the objective there; of those, one that plays `players`
    seats where one does); None if none plays it."""
    plays = [k for k in KINDS.values() if objective in k.objectives and k.device == device]
    seated = [k for k in plays if players in k.seats]
    plays = seated or plays
    chosen = [k for k in plays if strategy is not None and k.strategy == strategy]
    return next(iter(chosen or [k for k in plays if k.strategy is None]), None)


def _device_kind(device: str) -> RunKind | None:
    """The kind a device other than the CPU names (the GPU search), whatever the objective."""
    if device == "cpu":
        return None
    return next(k for k in KINDS.values() if k.device == device)


def _is_for(option: str, objective: str) -> Words:
    """Why a kind refuses an option that other kinds take: it is for those (named by their
    objectives; by their strategy where only kinds a strategy selects take it)."""
    takers = [k for k in KINDS.values() if option in k.takes]
    if all(k.device != "cpu" for k in takers):
        return Words("is for ", takers[0].selector(), " only")
    if all(k.strategy is not None for k in takers):  # on the CPU and a GPU alike: named once
        strategies = dict.fromkeys(k.strategy for k in takers if k.strategy is not None)
        return Words("is for ", named("strategy", *strategies), " only")
    objectives = list(dict.fromkeys(o for k in takers if k.strategy is None for o in k.objectives))
    only = " only" if len(objectives) == 1 else ""
    return Words("is for ", named("objective", *objectives), f"{only}, not {objective}")


def _why_not(kind: RunKind, option: str, objective: str, strategy: str) -> Words | None:
    """Why `kind` refuses `option`, given on the command line; None: it takes it."""
    if option in STRATEGY_OPTIONS and "strategy" in kind.takes:
        if uses(strategy, option):
            return None
        users = named("strategy", *(name for name in CHOICES if uses(name, option)))
        others = [
            o for k in KINDS.values() if "strategy" not in k.takes and option in k.takes
            for o in k.objectives
        ]  # fmt: skip
        also = Words(" and ", named("objective", *others)) if others else Words(" only")
        return Words("is for ", users, also, f"; {strategy} {STRATEGY_OPTIONS[option]}")
    if option in kind.only_with and objective not in kind.only_with[option][0]:
        why = kind.only_with[option][1]
        with_objective = Words(kind.selector(), " ", named("objective", objective))
        return Words("does nothing with ", with_objective, ": ", why)
    if option in kind.takes:
        return None
    if option in kind.refuses:
        return kind.refuses[option]
    if kind.idle and (kind.idle_options is None or option in kind.idle_options):
        return Words("does nothing with ", kind.selector(), f": {kind.idle}")
    return _is_for(option, objective)


def _strategy_refused(kind: RunKind, objective: str, strategy: str, given: bool) -> Words | None:
    """Why `kind` refuses the strategy, given or its default: checked before the other
    settings, as it is declared before them (it selects the kind)."""
    why = _why_not(kind, "strategy", objective, strategy) if given else None
    if why is None and kind.strategies and strategy not in kind.strategies:
        choose = " or ".join(kind.strategies)
        why = Words(f"{strategy} runs on the CPU only; with ", kind.selector(), f" choose {choose}")
    return why


def refusal(
    objective: str,
    device: str,
    strategy: str,
    players: int,
    given: Sequence[str],
    typed: Collection[str] = (),
) -> tuple[str, Words] | None:
    """Why `bmn search` refuses a new run with these settings: (the option, one line saying
    why) or None. `given`: the settings set on the command line or in the environment, in
    the order they are declared (settings.SETTINGS, the order of `bmn search --help`: the
    first refused is named); `typed`: the options on the command line (a cluster named only
    by the environment is ignored by a run that takes none).

    First the kind: the seats each kind named (by --objective, then by --device) plays, and a
    device the objective's kind does not run on; then a strategy the kind does not play, and
    each setting it does not take; then a cluster for a kind that runs on this machine only."""
    family = kind_for(objective, "cpu", strategy, players)
    for by in (family, _device_kind(device)):
        if by is not None and players not in by.seats:
            low, high = by.seats[0], by.seats[-1]
            seats = f"{low}" if low == high else f"{low} to {high}"
            return "players", Words(f"must be {seats} with ", by.selector(), f": {by.seats_why}")
    kind = kind_for(objective, device, strategy, players)
    if kind is None:  # a loop hunt or grow run on a GPU
        does = _device_kind(device).does
        return "device", Words(f"{device} {does}; {family.what} runs on the CPU")
    why = _strategy_refused(kind, objective, strategy, "strategy" in given)
    if why is not None:
        return "strategy", why
    for option in (name for name in given if name not in (*SELECTING, "strategy")):
        why = _why_not(kind, option, objective, strategy)
        if why is not None:
            return option, why
    if not kind.on_backend:
        for option in CLUSTER_OPTIONS:
            if option in typed:
                where = kind.selector() if kind.device != "cpu" else Words(kind.what)
                return option, Words("runs on a Dask cluster; ", where, " runs on this machine")
    return None
