"""The library (docs/library.md): lazy exports, the functions against the command line and the
reference engine, bmn's own exceptions for bad input, the docstrings' examples as doctests,
a search from Python interrupted and resumed, and the walkthrough's code run as written."""

import dataclasses
import doctest
import importlib
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from samples import CASELLA, RECORD

import bmn.kernels as game
import bmn.records as records
import bmn.search as searching
from bmn.kernels.reference import play as reference_play
from bmn.records.store import Find, Store
from bmn.search.runs.kinds import longest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"bmn.kernels": game, "bmn.records": records, "bmn.search": searching}


def test_importing_the_packages_imports_no_numba_nor_click():
    code = (
        "import sys, bmn.kernels, bmn.records, bmn.search\n"
        "before = sorted(m for m in ('numba', 'click') if m in sys.modules)\n"
        "bmn.kernels.play('-J/Q-'); bmn.records.published_games(); bmn.search.search\n"
        "after = sorted(m for m in ('numba', 'click') if m in sys.modules)\n"
        "print(before, after)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "[]"]  # playing, reading and naming compile nothing


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_every_exported_name_resolves_and_dir_lists_it(name):
    package = PACKAGES[name]
    for export in package.__all__:
        assert getattr(package, export) is not None
        assert export in dir(package)
    with pytest.raises(AttributeError, match=f"module '{name}' has no attribute 'nothing'"):
        package.nothing  # noqa: B018


def test_a_submodule_imported_first_is_not_taken_for_an_export():
    """`from bmn.kernels import reference` in a fresh process asks the package's __getattr__
    first: it must leave the submodule to the import system, not import the API (whose own
    imports would then run in a circle)."""
    code = (
        "from bmn.kernels import reference; from bmn.search import words;"
        " from bmn.records import report; import bmn.kernels as k; print(k.play('-J/Q-').cards)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "4\n", "")


def test_play_is_bmn_play(bmn):
    for deal in (RECORD, CASELLA, "--K/J-/---"):
        out = bmn("play", deal, "--json", "--trace")
        result = game.play(deal, trace=True)
        cli = json.loads(out.stdout)
        assert {k: v for k, v in cli.items() if k != "trace"} == {
            **result.as_dict(),
            "rules": "bmn",
        }
        assert [t["cards"] for t in cli["trace"]] == [t.cards for t in result.trace]
    assert game.play([[0, 1], [2, 0]]) == game.play("-J/Q-") == game.play(["-J", "Q-"])
    assert game.play(RECORD, limit=1000).status == "limit"


def test_scores_agree_from_texts_arrays_and_random_deals():
    deals = game.random_deals(300, seed=5, players=3)
    texts = deals.texts()
    from_texts = game.score_deals(texts)
    from_array = game.score_deals(deals.rows, deals.sizes[0])
    from_deals = game.score_deals(deals, threads=1)
    for i in (0, 1, 299):
        expected = reference_play(game.parse_deal(texts[i]))
        assert from_texts.result(i) == from_array.result(i) == from_deals.result(i) == expected
    assert (from_texts.cards == from_array.cards).all()


def test_rules_reach_play_and_the_compiled_kernels():
    """`rules=` names a rule set for play (the reference engine) and score_deals (the compiled
    kernels, 2 and 3 seats): the same figures, and other figures than bmn's rules give."""
    for players, rules in ((3, "paulhus"), (2, "pelagaletto2")):
        deals = game.random_deals(200, seed=7, players=players)
        texts = deals.texts()
        scores = game.score_deals(deals, rules=rules)
        plain = game.score_deals(deals)
        for i in range(200):
            assert scores.result(i) == game.play(texts[i], rules=game.RULE_SETS[rules])
        assert (scores.cards != plain.cards).any()


def test_cycle_plays_every_rule_set_and_refuses_one_for_other_seats():
    """The library's cycle is the rule set's own play: figures as the reference engine's under
    it; a rule set not defined for the deal's seats is a DealError."""
    from bmn.kernels import reference

    for rules in game.RULE_SETS:
        loop, ref = (
            game.cycle(CASELLA, rules=rules),
            reference.play(game.parse_deal(CASELLA), rules=rules),
        )
        assert (loop.status, loop.cards, loop.tricks) == (ref.status, ref.cards, ref.tricks)
    three = "-J--J----J-K--AQK-/------Q---------Q/KA-----K-A---JQA-"  # loops under bmn's only
    assert game.cycle(three).status == "loop"
    assert game.cycle(three, rules="paulhus").status == "finished"
    with pytest.raises(game.DealError, match="at-once rule set plays 2 seats, not 3"):
        game.cycle(three, rules="at-once")


def test_random_deals_are_bmn_deal_by_seed(bmn):
    for players in (2, 4):
        out = bmn("deal", "--seed", "3", "--players", str(players))
        assert game.random_deals(1, seed=3, players=players).texts() == [out.stdout.strip()]
    odd = game.random_deals(4, seed=1, deck="14,2,2,2,0", sizes=(11, 9))
    assert odd.sizes.tolist() == [[11, 9]] * 4 and sorted(odd.rows[0].tolist())[-1] == 3
    three = game.random_deals(2, seed=1, sizes=(20, 16, 16))  # the sizes give the seats
    assert three.sizes.tolist() == [[20, 16, 16]] * 2
    assert game.random_deals(2, seed=1, players=3, sizes=(20, 16, 16)).texts() == three.texts()


def test_the_cycle_and_the_deals_that_reach_it_are_bmn_loop_and_preimages(bmn):
    analysis = game.cycle(CASELLA)
    cli = json.loads(bmn("loop", CASELLA, "--json").stdout)
    assert {**analysis.as_dict(), "rules": "bmn"} == cli
    found = [d.as_dict() for d in game.reaching_deals(CASELLA)]
    out = bmn("preimages", CASELLA, "--json").stdout
    try:  # one JSON document listing the deals, or one line per deal
        rows = json.loads(out)["deals"]
    except json.JSONDecodeError:
        rows = [json.loads(line) for line in out.splitlines()]
    assert [{**d, "mirrored": d.get("mirrored", False)} for d in found] == rows
    report = game.BasinSearch()
    bound = list(game.reaching_deals(CASELLA, seat_bound=True, report=report))
    assert len(bound) == 18 and report.complete


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: game.play("-J/Q-/X"), "unexpected 'X'"),
        (lambda: game.play([[0, 7], [1]]), "7 is not a penalty value"),
        (lambda: game.play([[0]] * 5), "2 to 4 hands, got 5"),
        (lambda: game.play([[0] * 120_000 + [1], [2]]), "at most 1,000 cards"),  # bounded
        (lambda: game.play("-" * 120_000 + "J/Q"), "at most 1,000 cards"),
        (lambda: game.play("--/--", limit=0), "limit must be at least 1"),
        (lambda: game.score_deals(["-J/Q-", "AS/AS"]), "deal 2: the card AS is given twice"),
        (lambda: game.score_deals(np.zeros((2, 4), np.uint8)), "needs their hand sizes"),
        (lambda: game.score_deals(np.full((1, 4), 9, np.uint8), (2, 2)), "penalty values 0-4"),
        (lambda: game.random_deals(2, players=5), "players must be 2 to 4"),
        (lambda: game.random_deals(2, deck="1,2,3"), "five counts"),
        (lambda: game.random_deals(2, seed=-1), "seed must be"),
        (lambda: game.random_deals(1, players=3, sizes=(26, 26)), "players=3 but sizes give 2"),
        (lambda: list(game.reaching_deals(RECORD)), "does not loop"),
        (lambda: game.reaching_deals(CASELLA, (26, 27)), "adding up to the deal's 52"),
        (lambda: records.published_games(5), "players must be 2 to 4"),
        (lambda: game.play("-J/Q-", rules="nobody"), "unknown rule set 'nobody'"),
        (lambda: game.score_deals(["-J/Q-"], rules=3), "rules is a rule set's name"),
    ],
)
def test_bad_deals_raise_deal_error(call, message):
    with pytest.raises(game.DealError, match=re.escape(message)):
        call()


def test_deals_and_scores_index_like_numpy():
    deals = game.random_deals(40, seed=3, players=3)
    scores = game.score_deals(deals)
    texts = deals.texts()
    for i in (0, 17, -1):
        assert deals.text(i) == texts[i] and deals[i] == game.parse_deal(texts[i])
        assert scores[i] == scores.result(i) == reference_play(deals[i])
    mask = scores.cards > np.median(scores.cards)
    assert deals[mask].texts() == [t for t, long in zip(texts, mask, strict=True) if long]
    assert (scores[mask].cards == game.score_deals(deals[mask]).cards).all()
    assert deals[np.array([5, 2, 5])].texts() == [texts[5], texts[2], texts[5]]
    assert deals[[5, 2]].texts() == [texts[5], texts[2]] and deals[3:6].texts() == texts[3:6]
    assert scores[3:6].tricks.tolist() == scores.tricks[3:6].tolist()
    for bad in (40, -41, 1.5, "cards", (0, 1), None, [[1], [2, 3]]):
        with pytest.raises(IndexError):
            deals[bad]
        with pytest.raises(IndexError):
            scores[bad]
    assert not hasattr(scores, "take") and not hasattr(scores, "set_from")  # private now


def test_scores_as_columns():
    scores = game.score_deals([RECORD, CASELLA, "-J/Q-"])
    columns = scores.to_dict()
    assert list(columns) == [f.name for f in dataclasses.fields(scores)]
    assert columns["cards"].tolist() == [
        reference_play(game.as_deal(d)).cards for d in (RECORD, CASELLA, "-J/Q-")
    ]
    assert columns["status"].tolist() == [game.FINISHED, game.LOOP, game.FINISHED]
    if importlib.util.find_spec("pandas") is None:
        with pytest.raises(ImportError, match="pip install pandas"):
            scores.to_pandas()
    else:
        table = scores.to_pandas()
        assert table["cards"].tolist() == columns["cards"].tolist()
        assert table["status"].astype(str).tolist() == ["finished", "loop", "finished"]


def test_score_deals_takes_one_deal_as_well_as_many():
    for one in (CASELLA, game.as_deal(RECORD), game.random_deals(1, seed=9)[0]):
        scores = game.score_deals(one)
        assert len(scores) == 1 and scores[0] == reference_play(game.as_deal(one))
    assert len(game.score_deals([CASELLA, RECORD])) == 2
    assert len(game.score_deals([game.as_deal(CASELLA), game.as_deal(RECORD)])) == 2


def test_store_time_stamps_are_datetimes_in_the_library_and_text_in_the_store(tmp_path, bmn):
    path = tmp_path / "stamps.sqlite"
    with Store(path) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find("-J/Q-", 4, 1)])
        text = db.get_run(run).started_at
    with records.open_store(path) as reader:
        started = reader.run(run).started_at
        found = reader.top(1)[0].found_at
    assert isinstance(started, datetime) and started.utcoffset() == timedelta(0)
    assert started.isoformat(timespec="milliseconds").replace("+00:00", "Z") == text
    assert isinstance(found, datetime) and found >= started
    cli = json.loads(bmn("records", "runs", "--json", "--store", str(path)).stdout)
    assert cli[0]["started_at"] == text  # the command line shows the stored text


def test_bad_stores_and_runs_raise_store_errors(tmp_path):
    with pytest.raises(records.StoreError, match="no record store at"):
        records.open_store(tmp_path / "missing.sqlite")
    foreign = tmp_path / "foreign.sqlite"
    foreign.write_bytes(b"not a database at all, not even close" * 40)
    with pytest.raises(records.StoreError):
        records.open_store(foreign)
    assert foreign.read_bytes().startswith(b"not a database")  # left as it was
    with pytest.raises(searching.StoreError, match="no record store at"):
        searching.search(tmp_path / "missing.sqlite", resume=4)  # resuming never makes one
    assert not (tmp_path / "missing.sqlite").exists()


@pytest.mark.parametrize(
    "settings, option",
    [
        ({"objective": "loop", "keep_above": 10}, "keep_above"),
        ({"strategy": "walk", "patience": 3}, "patience"),
        ({"players": 4, "objective": "loop", "deck": "2,1,0,0,0"}, "players"),  # 3 cards
        ({"iterations": 0}, "iterations"),
        ({"seconds": -1}, "seconds"),
        ({"workers": 1.5}, "workers"),
        ({"colour": "red"}, "colour"),
        ({"resume": 1, "seed": 3}, "seed"),
        ({"resume": "first"}, "resume"),
        ({"deck": "1,0,0,0,0"}, "deck"),
        ({"strategy": "every", "deck": "6,2,1,1,0", "to_rank": 10**9}, "to_rank"),
        ({"objective": "grow", "deck": "3,0,0,0,0"}, "deck"),
        ({"deck": "6,2,1,1,0", "hand_sizes": (5, 4)}, "hand_sizes"),
        ({"deck": "6,2,1,1,0", "hand_sizes": (5, 5), "players": 3}, "hand_sizes"),
    ],
)
def test_bad_search_settings_raise_search_option_error(tmp_path, settings, option):
    with pytest.raises(searching.SearchOptionError) as caught:
        searching.search(tmp_path / "s.sqlite", **settings)
    assert caught.value.option == option
    assert not (tmp_path / "s.sqlite").exists()  # refused before a store is made


def run_doctests(module_name):
    module = importlib.import_module(module_name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, raise_on_error=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
    return result.attempted


@pytest.mark.parametrize(
    "module", ["bmn.kernels", "bmn.kernels.api", "bmn.records", "bmn.records.api"]
)
def test_the_docstring_examples_run(module, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_doctests(module) > 0


@pytest.mark.slow
def test_the_search_docstring_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_doctests("bmn.search.api") > 0


@pytest.mark.slow
def test_a_search_from_python_is_interrupted_resumed_and_read_back(tmp_path, bmn, monkeypatch):
    store = tmp_path / "api.sqlite"
    seen = []

    def interrupt_once(progress):
        seen.append(progress.games)
        if len(seen) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C: a checkpoint, then a stop

    # The interrupted run in chunks of 1,000 games, each committed as it comes: at the first
    # commit at most a chunk a worker runs and one waits, so the stop comes with most of the
    # games unsearched on any machine (at the default sizes a fast or loaded one can have every
    # game in flight by then, and finish). Chunking changes no result: the resume and the
    # whole run below take the default sizes.
    with monkeypatch.context() as sizes:
        sizes.setattr(longest, "FIRST_CHUNK", 1000)
        sizes.setattr(longest, "CHUNK_SECONDS", 0.0)
        sizes.setattr(longest, "COMMIT_SECONDS", 0.0)
        settings = {"iterations": 3_000_000, "seed": 7, "workers": 2, "keep_above": 1500}
        stopped = searching.search(store, on_progress=interrupt_once, **settings)
    assert stopped.status == "interrupted" and 0 < stopped.games <= 10_000
    done = searching.search(store, resume="latest")
    assert (done.run, done.status, done.games) == (stopped.run, "finished", 3_000_000)
    whole = searching.search(tmp_path / "whole.sqlite", **settings)
    assert (done.best_deal, done.best_cards) == (whole.best_deal, whole.best_cards)
    with pytest.raises(searching.NothingToResume):
        searching.search(store, resume="latest")

    with records.open_store(store) as db:
        run = db.run(done.run)
        assert (run.status, run.games, run.seed) == ("finished", 3_000_000, 7)
        assert db.runs() == [run] and db.latest_run() == run
        top = db.top(3)
        cli = json.loads(bmn("records", "top", "-n", "3", "--json", "--store", str(store)).stdout)
        assert [f.deal for f in top] == [row["deal"] for row in cli]
        assert top[0].deal == done.best_deal
        assert db.finds_of(top[0].deal)[0].cards == top[0].cards
        assert {f.deal for f in db.run_finds(run.id)} == {f.deal for f in db.all_finds()}
        assert db.loops() == []
        with pytest.raises(records.RunNotFound, match="no run 9"):
            db.run_finds(9)
        with pytest.raises(game.DealError):
            db.finds_of("zz")
        with pytest.raises(ValueError, match="rank by one of cards, tricks"):
            db.top(by="length")


def walkthrough_blocks() -> list[str]:
    text = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)


@pytest.mark.slow
def test_the_walkthrough_runs_as_written(tmp_path, monkeypatch):
    """docs/library.md's code, block by block, with fewer deals and iterations."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    blocks = walkthrough_blocks()
    sizes = blocks[0]
    assert "DEALS = 1_000_000" in sizes and "ITERATIONS = 20_000_000" in sizes
    blocks[0] = sizes.replace("1_000_000", "20_000").replace("20_000_000", "300_000")
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/library.md", "exec"), namespace)
    assert namespace["DEALS"] == 20_000 and len(namespace["scores"]) == 20_000
    assert (tmp_path / "lengths.png").stat().st_size > 0
    assert namespace["replay"].cards == namespace["best"].cards


def test_scores_as_a_numpy_array_is_one_record_a_deal():
    scores = game.score_deals(["-J/Q-", "--K/J-/---", CASELLA])
    table = np.asarray(scores)
    assert table.dtype.names[:4] == ("cards", "tricks", "status", "winner")
    assert table["cards"].tolist() == scores.cards.tolist() == [4, 10, 474]
    assert table[2]["period_cards"] == 440


def test_dir_shows_the_public_names_and_not_the_packages_own_imports():
    import bmn.kernels
    import bmn.records

    for package in (bmn.kernels, bmn.records):
        names = dir(package)
        assert not {"TYPE_CHECKING", "annotations", "lazy_exports", "exports"} & set(names)
        assert set(package.__all__) <= set(names)
