"""`bmn.search.search` keeps the library's contract: every setting is read by its one
declaration (search/runs/settings.py) before a store is opened or made, a bad one raises
SearchOptionError naming it in Python's words, and nothing else escapes but the documented
exceptions (a property test over hostile values); a run another thread searches is refused;
a stored run whose settings cannot be read is one StoreError; the search's time leaves out
time the process was stopped."""

from __future__ import annotations

import json
import math
import sqlite3
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tiers import sizes

import bmn.search as searching
from bmn.kernels.cuda import env
from bmn.records.store import Store, StoreError
from bmn.search.runs import clock, start
from bmn.search.runs.said import Resume, Words, named
from bmn.search.runs.settings import SETTINGS


@pytest.mark.parametrize(
    "setting, value, words",
    [
        ("strategy", "nope", "'nope' is not one of 'walk'"),
        ("objective", "nope", "'nope' is not one of 'cards'"),
        ("device", "nope", "'nope' is not one of 'cpu', 'cuda'"),
        ("keep_above", 2**63, "too large: expected at most 2**63 - 1"),
        ("history", 10**9, "too large: expected at most 10,000,000"),
        ("workers", 10**6, "too large: expected at most 1,024"),
        ("basin_states", 10**30, "too large"),
        ("seconds", math.nan, "must be positive"),
        ("seconds", "forever", "is not a duration"),
        ("from_rank", "²", "is not a rank"),
        ("deck", f"{2**64},4,4,4,4", "the compiled kernels play at most 64 cards"),
        ("hand_sizes", (26.5, 25.5), "expected 2 to 4 hand sizes"),
    ],
)
def test_a_bad_value_is_refused_before_a_store_is_made(tmp_path, setting, value, words):
    store = tmp_path / "s.sqlite"
    extra = {"strategy": "every"} if setting == "from_rank" else {}
    with pytest.raises(searching.SearchOptionError) as caught:
        searching.search(store, **{setting: value, **extra})
    assert caught.value.option == setting and words in str(caught.value)
    assert "\n" not in str(caught.value) and not store.exists()


def test_refusals_speak_python(tmp_path):
    with pytest.raises(searching.SearchOptionError) as caught:
        searching.search(tmp_path / "s.sqlite", objective="loop", keep_above=10)
    assert str(caught.value) == (
        "keep_above does nothing with objective='loop': a loop hunt plays random deals"
    )
    with pytest.raises(searching.SearchOptionError, match="objective='loop' or 'grow'"):
        searching.search(tmp_path / "s.sqlite", basin_states=5)
    note = Words("warning: ", named("keep_above"), " 10 keeps ...; resume with: ", Resume(3, "a b"))
    assert note.python() == "warning: keep_above 10 keeps ...; resume with: search(store, resume=3)"
    assert str(note) == (
        "warning: --keep-above 10 keeps ...; resume with: bmn search --resume 3 --store 'a b'"
    )
    assert Words(named("objective", "loop", "grow")).python() == "objective='loop' or 'grow'"


def test_a_duration_is_read_as_the_command_line_reads_it(tmp_path):
    store = tmp_path / "s.sqlite"
    searching.search(store, seconds="1h30m", iterations=2000, workers=1, seed=1)
    searching.search(store, seconds=5400, iterations=2000, workers=1, seed=1)
    with Store(store) as db:
        assert [run.params["seconds"] for run in db.runs()] == [5400.0, 5400.0]


def test_a_deck_is_read_alike_as_text_or_as_counts(tmp_path):
    """The same deck in every form it can be given: text, a list or a tuple of counts."""
    store = tmp_path / "s.sqlite"
    for deck in ("20,2,2,2,0", [20, 2, 2, 2, 0], (20, 2, 2, 2, 0)):
        searching.search(store, deck=deck, iterations=2000, workers=1, seed=1)
    with Store(store) as db:
        assert [run.params["deck"] for run in db.runs()] == ["20,2,2,2,0"] * 3
    for bad in ([20, 2, 2], [20.0, 2, 2, 2, 0], [True, 2, 2, 2, 0], [-1, 2, 2, 2, 0]):
        with pytest.raises(searching.SearchOptionError, match="^deck "):
            searching.search(tmp_path / "bad.sqlite", deck=bad, iterations=10)
    assert not (tmp_path / "bad.sqlite").exists()


def test_no_gpu_is_one_documented_error_and_no_store(tmp_path, monkeypatch):
    monkeypatch.setattr(env, "available", lambda: "no CUDA GPU found (a test says so)")
    store = tmp_path / "s.sqlite"
    with pytest.raises(searching.CudaUnavailable, match="no CUDA GPU found"):
        searching.search(store, device="cuda", seconds=1)
    assert not store.exists()


def test_a_run_another_thread_searches_is_refused_and_its_finds_stored_once(tmp_path):
    store = tmp_path / "s.sqlite"
    first = searching.search(store, iterations=2000, workers=1, seed=3)
    with Store(store) as db:
        db.update_run(first.run, status="interrupted")  # as if stopped: resumable
        finds = len(db.run_finds(first.run))
    inside, leave = threading.Event(), threading.Event()

    def held(progress):
        inside.set()
        leave.wait()

    thread = threading.Thread(
        target=searching.search, args=(store,), kwargs=dict(resume=first.run, on_progress=held)
    )
    thread.start()
    try:
        inside.wait()
        with pytest.raises(searching.RunHeld, match="by this process already, in another thread"):
            searching.search(store, resume=first.run)
    finally:
        leave.set()
        thread.join()
    with Store(store) as db:
        assert len(db.run_finds(first.run)) == finds  # nothing stored twice


@pytest.mark.parametrize(
    "params, why",
    [
        ({"keep_above": "lots"}, "'lots' is not a whole number"),
        ({"history": 10**12}, "too large"),
        ({"deck": 5}, "is not a deck"),
        ({"strategy": "dance"}, "'dance' is not one of"),
        ({"workers": 3, "seed": "x", "iterations": 10}, "'x' is not a seed"),
    ],
)
def test_a_stored_run_whose_settings_cannot_be_read_is_one_line(tmp_path, bmn, params, why):
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("walk", "cards", 1, params)
        db.update_run(run, status="interrupted")
        db.release_run(run, db.get_run(run).holder)
    with pytest.raises(StoreError, match=f"run {run} cannot be resumed") as caught:
        searching.search(store, resume=run)
    assert why in str(caught.value)
    result = bmn("search", "--resume", "--store", store)
    assert result.exit_code == 1 and result.stderr.startswith("Error: run 1 cannot be resumed")
    assert len(result.stderr.splitlines()) == 1


def test_a_stored_run_whose_settings_are_not_json_lists_but_is_never_resumed(tmp_path, bmn):
    store = tmp_path / "s.sqlite"
    with Store(store) as db:
        run = db.create_run("walk", "cards", 1, {"iterations": 10})
        db.update_run(run, status="interrupted")
        db.release_run(run, db.get_run(run).holder)
    with sqlite3.connect(store) as conn:  # a row damaged by hand: its settings are not JSON
        conn.execute("UPDATE runs SET params = '{not json'")
    conn.close()
    listed = bmn("records", "runs", "--store", store, "--json")
    assert listed.exit_code == 0 and json.loads(listed.stdout)[0]["status"] == "interrupted"
    with pytest.raises(StoreError, match="cannot be read [(]not JSON: '{not json'[)]"):
        searching.search(store, resume=run)
    result = bmn("search", "--resume", "--store", store)
    assert result.exit_code == 1 and result.stderr.startswith("Error: run 1 cannot be resumed")
    assert len(result.stderr.splitlines()) == 1


def test_time_the_process_was_stopped_is_not_search_time(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(clock.time, "monotonic", lambda: now[0])
    counted = clock.SearchClock()
    now[0] += 0.05
    counted._add()
    now[0] += 3600.0  # SIGSTOP for an hour: no tick came
    counted._add()
    assert counted._counted == pytest.approx(0.05 + clock.CAP_SECONDS)


# -- every setting against hostile values ---------------------------------------------------

HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["", " ", "10s", "0", "-1", "1e999", "standard", "mixed", "6,2,1,1,0",
                     "10,10", "²", "loop", "every", "cuda", "cpu", "known", "x" * 2000,
                     "no", "threads", "١٤,2,2,2,0", "١٠,١٠"]),
    st.lists(st.integers(min_value=-3, max_value=70), max_size=5),
    st.tuples(st.floats(), st.floats()),
    st.binary(max_size=5),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)  # fmt: skip
NAMES = st.sampled_from([*SETTINGS, "resume", "colour", "", "display", "backend", "on_progress"])


class Accepted(Exception):
    """The settings were taken: the run would be made now."""


@pytest.mark.parametrize("examples", sizes(60, 400))
def test_hostile_settings_raise_only_documented_errors_and_make_no_store(
    tmp_path_factory, examples
):
    settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])(
        given(chosen=st.dictionaries(NAMES, HOSTILE, min_size=1, max_size=3))(hostile_settings)
    )(tmp_path_factory)


def hostile_settings(tmp_path_factory, chosen):
    folder = tmp_path_factory.mktemp("hostile")
    store = folder / "s.sqlite"

    def accepted(*args, **kwargs):
        raise Accepted

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(start, "open_run", accepted)  # nothing runs: what is refused is refused first
        try:
            searching.search(store, **chosen)
        except Accepted:
            return
        except (searching.SearchOptionError, searching.CudaUnavailable) as err:
            assert "\n" not in str(err)
        except (searching.RunNotFound, searching.NothingToResume, StoreError) as err:
            assert "resume" in chosen, err  # resuming a store that is not there
        assert not store.exists(), chosen
