"""The registry of run kinds: it covers every kind `bmn search` makes and the store holds, the
refusals generated from it are today's (kind by kind, option by option), a new run is written
with its kind, and --resume makes each stored run with the job its kind names."""

import dataclasses
import json
import threading

import pytest
from old_stores import add_old_run, old_store

from bmn.frontends.cli import search as search_cli
from bmn.records.store import Store, StoreError
from bmn.search.runs import registry as kinds
from bmn.search.runs import start
from bmn.search.runs.job import options_from_run
from bmn.search.runs.kinds.loop_hunt import LoopHuntOptions
from bmn.search.runs.loop import RunLoop
from bmn.search.runs.registry import KIND_SETTINGS, KINDS, get_kind, kind_for, refusal
from bmn.search.runs.settings import SETTINGS

NAMES = ["longest", "longest-cuda", "loop-hunt", "grow", "true-cycles", "every", "every-cuda"]


def test_the_registry_names_every_kind_with_its_job_and_options():
    assert list(KINDS) == NAMES
    for name, kind in KINDS.items():
        job = kind.job_class()
        assert job.kind == name and get_kind(name) is kind
        assert job.options_type is kind.options_class()
        fields = {f.name for f in dataclasses.fields(kind.options_class())}
        assert set(kind.fields().values()) <= fields, name
        # a kind has a strategy exactly where it stores one: the runs table holds no stand-in
        has_strategy = "strategy" in fields
        assert has_strategy == (kind.fields().get("strategy") == "strategy"), name
    with pytest.raises(kinds.UnknownKind, match="unknown kind of run 'magic'; this bmn knows"):
        get_kind("magic")


def test_every_objective_and_device_selects_one_kind_or_none():
    objectives = next(p for p in search_cli.search.params if p.name == "objective").type.choices
    assert sorted(objectives) == sorted({o for k in KINDS.values() for o in k.objectives})
    chosen = {(o, d): kind_for(o, d) for o in objectives for d in ("cpu", "cuda")}
    assert {key: k.name for key, k in chosen.items() if k is not None} == {
        ("cards", "cpu"): "longest",
        ("tricks", "cpu"): "longest",
        ("cards", "cuda"): "longest-cuda",
        ("tricks", "cuda"): "longest-cuda",
        ("loop", "cpu"): "loop-hunt",
        ("grow", "cpu"): "grow",
    }
    # A strategy that is a kind of its own selects it, with any objective it plays.
    assert [kind_for(o, "cpu", "every").name for o in objectives] == [
        "every" if o != "grow" else "grow" for o in objectives
    ]
    # ... on the GPU too, where every deal of a deck is enumerated as on the CPU.
    assert [kind_for(o, "cuda", "every") for o in objectives] == [
        KINDS["every-cuda"] if o != "grow" else None for o in objectives
    ]


def test_every_setting_is_a_search_option_and_refusable_where_not_taken():
    params = {p.name for p in search_cli.search.params}
    assert params >= KIND_SETTINGS
    assert {
        "strategy", "objective", "seconds", "iterations", "workers", "seed", "keep_above",
        "patience", "history", "players", "loop_deck", "basin_states", "grow_from", "device",
        "device_threads", "deck", "hand_sizes", "from_rank", "to_rank", "rules",
    } == KIND_SETTINGS  # fmt: skip
    assert set(SETTINGS) >= KIND_SETTINGS  # each declared: the order refusals are checked in


# What each kind refuses, option by option: the messages bmn gave before the registry. None:
# the kind takes it.
MATRIX = {
    (): {
        "--patience 9": "--patience is for --strategy climb only; walk does not restart",
        "--history 9": "--history is for --strategy lahc only; walk keeps no history",
        "--loop-deck standard": "--loop-deck is for --objective loop only, not cards",
        "--basin-states 5": "--basin-states is for --objective loop or grow, not cards",
        "--grow-from descent": "--grow-from is for --objective grow only, not cards",
        "--device-threads 8": "--device-threads is for --device cuda only",
        "--strategy climb --history 9": "--history is for --strategy lahc only; climb keeps no"
        " history",
        "--strategy random --patience 9": "--patience is for --strategy climb only; random does"
        " not restart",
        "--objective tricks --loop-deck standard": "--loop-deck is for --objective loop only,"
        " not tricks",
    },
    ("--device", "cuda"): {
        "--workers 2": "--workers sets CPU threads; with --device cuda use --device-threads",
        "--patience 9": "--patience is for --strategy climb only; walk does not restart",
        "--history 9": "--history is for --strategy lahc only; walk keeps no history",
        "--loop-deck standard": "--loop-deck is for --objective loop only, not cards",
        "--basin-states 5": "--basin-states is for --objective loop or grow, not cards",
        "--grow-from descent": "--grow-from is for --objective grow only, not cards",
        "--scheduler tcp://h:1": "--scheduler runs on a Dask cluster; --device cuda runs on this"
        " machine",
        "--scheduler-file f.json": "--scheduler-file runs on a Dask cluster; --device cuda runs"
        " on this machine",
        "--cluster local": "--cluster runs on a Dask cluster; --device cuda runs on this machine",
        "--strategy climb": "--strategy climb runs on the CPU only; with --device cuda choose"
        " walk or random",
        "--players 3": "--players must be 2 with --device cuda: the GPU kernel plays two seats",
        "--device-threads 200": "'--device-threads': must be 1 to 128 or a multiple of 128",
        "--objective loop": "--device cuda searches for the longest games; a loop hunt runs on"
        " the CPU",
        "--deck 14,2,2,2,0": "--deck is for the CPU search: --device cuda deals the standard"
        " deck 26/26 only",
        "--hand-sizes 27,25": "--hand-sizes is for the CPU search: --device cuda deals the"
        " standard deck 26/26 only",
    },
    ("--objective", "loop"): {
        "--keep-above 9": "--keep-above does nothing with --objective loop: a loop hunt plays"
        " random deals",
        "--patience 9": "--patience does nothing with --objective loop: a loop hunt plays random"
        " deals",
        "--history 9": "--history does nothing with --objective loop: a loop hunt plays random"
        " deals",
        "--strategy climb": "--strategy does nothing with --objective loop: a loop hunt plays"
        " random deals",
        "--strategy random": "--strategy does nothing with --objective loop: a loop hunt plays"
        " random deals",
        "--grow-from descent": "--grow-from is for --objective grow only, not loop",
        "--device-threads 8": "--device-threads is for --device cuda only",
        "--device cuda": "--device cuda searches for the longest games; a loop hunt runs on the"
        " CPU",
        "--hand-sizes 27,25": "--hand-sizes is for --objective cards or tricks or grow, not loop",
    },
    ("--objective", "grow"): {
        **{
            f"{option} 9": f"{option} does nothing with --objective grow: it builds deals from"
            " pieces"
            for option in ("--keep-above", "--patience", "--history")
        },
        "--device-threads 8": "--device-threads does nothing with --objective grow: it builds"
        " deals from pieces",
        "--strategy random": "--strategy does nothing with --objective grow: it builds deals"
        " from pieces",
        "--loop-deck standard": "--loop-deck does nothing with --objective grow: it builds"
        " deals from pieces",
        "--strategy climb": "--strategy does nothing with --objective grow: it builds deals from"
        " pieces",
        **{
            f"{option} {value}": f"{option} runs on a Dask cluster; a grow run runs on this machine"
            for option, value in [
                ("--scheduler", "tcp://h:1"),
                ("--scheduler-file", "f.json"),
                ("--cluster", "local"),
            ]  # fmt: skip
        },
        "--device cuda": "--device cuda searches for the longest games; a grow run runs on the CPU",
    },
}
# Options every kind is asked about: those not refused above are taken.
ASKED = [
    "--time 10s", "--iterations 10", "--workers 2", "--seed 5", "--keep-above 9",
    "--patience 9", "--history 9", "--loop-deck standard", "--basin-states 5",
    "--grow-from descent", "--device-threads 8", "--scheduler tcp://h:1",
    "--scheduler-file f.json", "--cluster local", "--strategy climb", "--strategy random",
    "--players 3", "--players 2", "--device cuda", "--objective loop", "--objective tricks",
    "--deck 14,2,2,2,0", "--hand-sizes 27,25",
]  # fmt: skip
CASES = [
    (base, extra, MATRIX[base].get(extra))
    for base in MATRIX
    for extra in dict.fromkeys([*ASKED, *MATRIX[base]])
    if not (base and extra.split()[0] == base[0])  # not --device cuda --device cuda
]
KIND_OF = {(): "longest", ("--device", "cuda"): "longest-cuda"}
KIND_OF |= {("--objective", "loop"): "loop-hunt", ("--objective", "grow"): "grow"}


@pytest.fixture
def made(monkeypatch):
    """`bmn search` up to the run it would make: every new run's kind and options (nothing
    connects to a cluster, CUDA is taken as present, nothing runs)."""
    runs = []

    def new_run(db, kind, settings, backend, options):
        runs.append((kind.name, options))
        raise SystemExit(0)

    monkeypatch.setattr(start, "new_run", new_run)
    monkeypatch.setattr(search_cli, "cluster_backend", lambda *args: None)
    monkeypatch.setattr(start, "require_device", lambda kind: None)
    return runs


@pytest.mark.parametrize(
    "base, extra, message", CASES, ids=[f"{' '.join(b) or 'cards'} {e}" for b, e, _ in CASES]
)
def test_each_kind_refuses_what_it_does_not_take_as_before(
    bmn, failed, made, tmp_path, base, extra, message
):
    store = tmp_path / "s.sqlite"
    result = bmn("search", *base, *extra.split(), "--store", store)
    if message is None:
        assert result.exit_code == 0, result.output
        chosen = {"--objective loop": "loop-hunt", "--device cuda": "longest-cuda"}
        if base == ("--objective", "grow") and extra == "--players 3":
            chosen[extra] = "true-cycles"  # three or four seats grow true cycles
        assert [name for name, _ in made] == [chosen.get(extra, KIND_OF[base])]
    else:
        failed(result, 2, message)
        assert made == [] and not store.exists()


@pytest.mark.parametrize("option", ["--objective", "--device", "--loop-deck", "--seed"])
def test_resume_takes_no_setting(bmn, failed, made, option):
    value = {"--objective": "loop", "--device": "cpu", "--loop-deck": "mixed"}.get(option, "1")
    failed(bmn("search", "--resume", option, value), 2, f"from the run; drop {option}")


def test_refusal_names_the_first_option_refused():
    """Two settings a kind does not take: the first given (the caller gives them in the
    order they are declared) is named; `bmn search` names the first in its --help's order."""
    option, why = refusal("cards", "cpu", "walk", 2, ["grow_from", "history"])
    assert (option, str(why)) == ("grow_from", "is for --objective grow only, not cards")
    assert why.python() == "is for objective='grow' only, not cards"
    option, why = refusal("cards", "cpu", "walk", 2, ["history", "grow_from"])
    assert (option, str(why)) == ("history", "is for --strategy lahc only; walk keeps no history")
    assert refusal("loop", "cpu", "walk", 2, [], {"scheduler"}) is None
    assert refusal("grow", "cpu", "walk", 2, [], set()) is None  # a cluster the environment's
    assert refusal("grow", "cpu", "walk", 2, [], {"scheduler"})[0] == "scheduler"


# -- what a new run is made with, and how a stored one resumes -----------------------------------


def command_options(**chosen) -> dict:
    """`bmn search`'s option dict as click hands it over, defaults and all."""
    ctx = search_cli.search.make_context("search", [], resilient_parsing=True)
    options = {k: v for k, v in ctx.params.items() if k in KIND_SETTINGS}
    return {**options, **chosen}


def test_a_new_run_gets_its_kinds_typed_options_and_is_stored_with_its_kind(tmp_path):
    with Store(tmp_path / "s.sqlite") as db:
        chosen = dict(iterations=500, workers=1, seed=3, loop_deck="5,2,2,0,0", basin_states=7)
        hunt = start.new_run(db, KINDS["loop-hunt"], command_options(**chosen), None)
        assert hunt.options == LoopHuntOptions(
            seconds=None, iterations=500, workers=1, seed=3, deck="5,2,2,0,0", basin_states=7
        )
        grow = start.new_run(db, KINDS["grow"], command_options(seed=4), None)
        assert (grow.options.seconds, grow.options.seed, grow.options.workers) == (60.0, 4, 1)
        assert grow.options.grow_from == "known" and grow.options.known  # the published cycle
        assert [run.kind for run in db.runs()] == ["loop-hunt", "grow"]


def test_a_run_stored_under_an_option_s_old_name_resumes_with_its_value(tmp_path):
    """Runs stored before `max_basin_states` was named `basin_states`, as every kind's setting
    is, keep their value when resumed (and it is checked as a new run's would be)."""
    with Store(tmp_path / "s.sqlite") as db:
        params = dict(iterations=500, workers=1, seed=3, deck="5,2,2,0,0", max_basin_states=7)
        old = db.create_run(None, "loop", 3, params, kind="loop-hunt")
        db.update_run(old, status="interrupted")
        assert start.resumed_run(db, old, KINDS["loop-hunt"], None).options.basin_states == 7
        bad = db.create_run(None, "loop", 3, {**params, "max_basin_states": 0}, kind="loop-hunt")
        db.update_run(bad, status="interrupted")
        with pytest.raises(StoreError, match=f"run {bad} cannot be resumed"):
            start.resumed_run(db, bad, KINDS["loop-hunt"], None)


def test_a_gpu_run_stored_with_its_threads_as_workers_resumes_with_them(tmp_path):
    """--device-threads was stored as `workers` by the GPU search; it is `device_threads` now,
    as the GPU enumeration has always stored it."""
    with Store(tmp_path / "s.sqlite") as db:
        params = {"device": "cuda", "workers": 64, "seed": 7, "strategy": "random"}
        run = db.get_run(db.create_run("random", "cards", 7, params, kind="longest-cuda"))
    options = options_from_run(KINDS["longest-cuda"].options_class(), run)
    assert (options.device_threads, options.workers, options.strategy) == (64, 64, "random")
    assert "workers" not in dataclasses.asdict(options)


class FakeJob:
    """What --resume makes, in place of a run: it says which job it holds."""

    made: list = []

    def __init__(self, job, run_id, backend):
        self.job, self.run_id, self.stop = job, run_id, threading.Event()
        FakeJob.made.append((job, run_id, backend))

    def run(self, on_progress):
        return self

    status = "finished"

    def as_dict(self):
        return {}

    def text(self):
        return "resumed"


@pytest.fixture
def resumed(monkeypatch):
    """Which job each --resume asks the run loop to resume which run with (CUDA taken as
    present)."""

    def resume(cls, db, job, run, backend=None):
        return FakeJob(job, run, backend)

    FakeJob.made = []
    monkeypatch.setattr(RunLoop, "resume", classmethod(resume))
    monkeypatch.setattr(start, "require_device", lambda kind: None)
    monkeypatch.setattr(search_cli, "cluster_backend", lambda *args: None)
    return FakeJob.made


# What a stored run of each kind needs beyond its options' defaults (the GPU enumerates a deck
# whose ranks fit in 63 bits).
STORED = {"every-cuda": {"deck": "14,2,2,2,0"}}


def test_resume_dispatches_on_the_stored_kind(bmn, resumed, tmp_path):
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        for name in NAMES:
            run = db.create_run("walk", "cards", 1, STORED.get(name, {}), kind=name)
            db.update_run(run, status="interrupted")
    for run in range(1, len(NAMES) + 1):
        result = bmn("search", "--resume", run, "--store", store)
        assert result.exit_code == 0, result.output
    assert [(job.kind, run) for job, run, _ in resumed] == [
        (name, run) for run, name in enumerate(NAMES, start=1)
    ]


def test_resume_of_a_version_four_store_takes_the_kind_from_the_migration(bmn, resumed, tmp_path):
    store = tmp_path / "v4.sqlite"
    conn = old_store(store, 4)
    for strategy, objective, params in [
        ("walk", "cards", "{}"),
        ("walk", "tricks", '{"device": "cuda", "workers": 8}'),
        ("random", "loop", "{}"),
        ("grow", "loop", "{}"),
    ]:
        run = add_old_run(conn, strategy, objective, params=params)
        conn.execute("UPDATE runs SET status = 'interrupted' WHERE id = ?", (run,))
    conn.close()
    for run in range(1, 5):
        assert bmn("search", "--resume", run, "--store", store).exit_code == 0
    assert [job.kind for job, _, _ in resumed] == NAMES[:4]  # the kinds of version 4


def test_a_run_that_takes_no_cluster_refuses_one_on_resume(bmn, failed, resumed, tmp_path):
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        for name in NAMES:
            db.update_run(db.create_run("walk", "cards", 1, {}, kind=name), status="interrupted")
    gpu = bmn("search", "--resume", 2, "--cluster", "local", "--store", store)
    failed(gpu, 2, "--cluster runs on a Dask cluster; run 2, a GPU search, runs on this machine")
    grow = bmn("search", "--resume", 4, "--scheduler", "tcp://h:1", "--store", store)
    failed(grow, 2, "--scheduler runs on a Dask cluster; run 4, a grow run, runs on this machine")
    assert resumed == []


def test_a_run_of_a_kind_this_bmn_does_not_know_is_one_line(bmn, failed, tmp_path):
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        db.update_run(db.create_run("walk", "cards", 1, {}, kind="magic"), status="interrupted")
    failed(bmn("search", "--resume", "--store", store), 1, "cannot resume run 1: unknown kind")


# Runs as version 5 wrote them: each kind with the stand-in strategy and objective it stored
# in its columns and its settings (a loop hunt 'loophunt', a grow run 'grow' and 'loop').
V5_RUNS = [
    ("longest", "climb", "cards", {"strategy": "climb", "objective": "cards", "seed": 5}),
    ("loop-hunt", "loophunt", "loop", {"strategy": "loophunt", "objective": "loop", "seed": 6}),
    ("grow", "grow", "loop", {"strategy": "grow", "objective": "loop", "seed": 7}),
    ("every", "every", "tricks", {"strategy": "every", "objective": "tricks", "deck": "4,1,1,0,0"}),
]


def test_a_version_five_store_says_what_ran_and_resumes_with_the_same_options(tmp_path):
    """Migration 6: strategy only where the kind has one, grow's objective its own, no stand-in
    left in the settings; the options each run resumes with are those it was stored with."""
    store = tmp_path / "v5.sqlite"
    conn = old_store(store, 5)
    for kind, strategy, objective, params in V5_RUNS:
        run = add_old_run(conn, strategy, objective, params=json.dumps(params, sort_keys=True))
        conn.execute("UPDATE runs SET kind = ?, status = 'stopped' WHERE id = ?", (kind, run))
    damaged = add_old_run(conn, "loophunt", "loop", params="not json")
    conn.execute("UPDATE runs SET kind = 'loop-hunt' WHERE id = ?", (damaged,))
    conn.execute(
        "INSERT INTO finds (deal, cards, tricks, status, run_id, strategy, found_at, elapsed)"
        " VALUES ('-J/Q-', 4, 1, 'finished', 4, 'every', '2026-01-01T00:00:00Z', 1.0)"
    )
    conn.close()
    with Store(store) as db:
        runs = db.runs()
        assert [(r.kind, r.strategy, r.objective) for r in runs] == [
            ("longest", "climb", "cards"),
            ("loop-hunt", None, "loop"),
            ("grow", None, "grow"),
            ("every", None, "tricks"),
            ("loop-hunt", None, "loop"),
        ]
        assert [r.found_by for r in runs] == ["climb", "loop-hunt", "grow", "every", "loop-hunt"]
        assert [r.params for r in runs[:4]] == [
            {"strategy": "climb", "objective": "cards", "seed": 5},
            {"seed": 6},
            {"seed": 7},
            {"objective": "tricks", "deck": "4,1,1,0,0"},
        ]
        assert runs[4].params == {"unreadable settings": "not json"}  # left as it was
        assert [f.strategy for f in db.run_finds(4)] == ["every"]
        for (kind, _, _, params), run in zip(V5_RUNS, runs, strict=False):
            options = options_from_run(KINDS[kind].options_class(), run)
            assert (options.strategy, options.objective) == (
                (params["strategy"] if kind == "longest" else None),
                {"grow": "grow", "loop-hunt": "loop"}.get(kind, params["objective"]),
            )
            assert options.seed == params.get("seed", 0)
        # A new run of a kind that has no strategy stores none; its finds carry the kind.
        options = KINDS["every"].options_class()(deck="4,1,1,0,0", workers=1)
        RunLoop(db, KINDS["every"].job_class(), options).run()
        made = db.runs()[-1]
        assert (made.kind, made.strategy, made.objective) == ("every", None, "cards")
        assert "strategy" not in made.params
        assert {f.strategy for f in db.run_finds(made.id)} == {"every"}


def test_a_kinds_own_defaults_are_its_settings_declaration():
    """Where kinds default a setting differently, each reads its default from the setting's
    one declaration (settings.py), and the help names the same figures."""
    from bmn.search.runs.kinds.grow import GrowOptions
    from bmn.search.runs.kinds.loop_hunt import LoopHuntOptions
    from bmn.search.runs.kinds.true_cycles import TrueCyclesOptions
    from bmn.search.runs.settings import SETTINGS

    basin, workers = SETTINGS["basin_states"].defaults, SETTINGS["workers"].defaults
    assert LoopHuntOptions(workers=1).basin_states == basin["loop"]
    assert LoopHuntOptions(workers=1, players=3).basin_states == basin["loop_seats"]
    assert LoopHuntOptions(workers=1).deck == SETTINGS["deck"].defaults["loop"]
    grow = {f.name: f.default for f in dataclasses.fields(GrowOptions)}
    true = {f.name: f.default for f in dataclasses.fields(TrueCyclesOptions)}
    assert (grow["basin_states"], grow["workers"]) == (basin["grow"], workers["grow"])
    assert grow["grow_from"] == SETTINGS["grow_from"].defaults["grow"]
    assert (true["basin_states"], true["workers"]) == (basin["grow_seats"], workers["grow"])
    said = SETTINGS["basin_states"].help
    assert all(f"{n:,}" in said for n in basin.values()) and "{" not in said
    # A timed run given neither --time nor --iterations runs for the declared default.
    from bmn.search.runs.settings import read_duration
    from bmn.search.runs.start import plan

    timed = SETTINGS["seconds"].defaults["timed"]
    assert plan(KINDS["loop-hunt"], {"workers": 1}, {"workers"}).seconds == read_duration(timed)
    assert f"[default: {timed}, unless" in SETTINGS["seconds"].help
