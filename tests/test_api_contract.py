"""The library's contract under hostile arguments: every public function and method of
bmn.kernels and bmn.records, given wrong types, values out of range, NaN, huge and empty values,
either works or raises an exception that docs/library.md's tables list for it; a store it reads
is left byte for byte as it was, and no file is made. Wrong types are refused, never cast."""

import math
import re
import threading
from collections.abc import Callable
from itertools import islice
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import CASELLA
from tiers import sizes

import bmn.kernels as game
import bmn.records as records
from bmn.records.store import Find, Loop, Store

ROOT = Path(__file__).resolve().parent.parent
EXCEPTIONS = {
    "DealError": game.DealError,
    "CudaUnavailable": game.CudaUnavailable,
    "StoreError": records.StoreError,
    "RunNotFound": records.RunNotFound,
    "QueryError": records.QueryError,
    "IndexError": IndexError,
    "ImportError": ImportError,
}


def documented() -> dict[str, str]:
    """docs/library.md's function tables: each row's first cell -> its 'raises' cell."""
    text = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`.*?) \| .* \| (.*?) \|$", text, re.M)
    return dict(rows)


def allowed(name: str) -> tuple[type[BaseException], ...]:
    """The exceptions docs/library.md lists for the function whose row names `name`."""
    rows = [
        raises
        for cell, raises in documented().items()
        if any(code.startswith(name) for code in re.findall(r"`([^`]*)`", cell))
    ]
    assert len(rows) == 1, f"{name!r} is in {len(rows)} rows of docs/library.md's tables"
    return tuple(EXCEPTIONS[e] for e in re.findall(r"`(\w+)`", rows[0]))


# Values a hostile caller passes: wrong types, out of range, NaN, huge, empty.
ODD = [
    None, True, False, -1, 0, 1, 2, 3, 5, 257, -(2**63) - 1, 2**63, 2**64, 10**30, 1.7, 2.0,
    math.nan, math.inf, np.int64(3), np.float64(math.nan), np.uint8(2), np.bool_(True), "",
    "x", "5", "2", "-J/Q-", "standard", "cards", "loop", "cpu", "cuda", "1,0,0,0,0", b"-J/Q-",
    (), [], {}, set(), [[]], [[0, 1], [2, 0]], [[0, 7], [1]], [[0]] * 5, ["-J", "Q-"], (26, 26),
    [26, 26.5], [[[0, 1], [2, 0]]], object(), np.zeros((2, 4), np.uint8),
    np.zeros((0, 4), np.uint8), np.full((1, 1_201), 1, np.int64), np.array([[0, 1, 2, 9]]),
    np.array([np.nan, 1.0]), np.ones((2, 2), bool), slice(None), slice(0, 1), Ellipsis,
    (0, 1), lambda: 0, CASELLA,
    # what a hostile user tried (issue 35): numpy's largest unsigned index, a text where a flag
    # or an object belongs, digits of other scripts, a deck past the kernels' in both forms,
    # stray slashes
    np.uint64(2**64 - 1), [np.uint64(2**64 - 1)], "no", "threads", "١٤,2,2,2,0", "٢٦,٢٦",
    "200,20,20,20,20", [200, 20, 20, 20, 20], np.array([20, 2, 2, 2, 0]), "-J/Q-/", "/-J/Q-",
]  # fmt: skip
HOSTILE = st.one_of(
    st.sampled_from(ODD),
    st.integers(-300, 300),
    st.floats(allow_nan=True),
    st.text(alphabet="-JQKA/.2x ", max_size=12),
    st.lists(st.lists(st.integers(-1, 5), max_size=5), max_size=5),
)


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A real store of one run with finds and a cycle."""
    path = tmp_path_factory.mktemp("contract") / "store.sqlite"
    with Store(path) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find("-J/Q-", 4, 1), Find(CASELLA, 500, 70, status="loop")])
        key = "0:-K/A-"
        cycle = Loop(key, key, "36,4,4,4,4", 440, 62, 62, 0, 0, 0, 10, True, CASELLA, CASELLA)
        db.add_loops(run, [(cycle, 1)])
        db.update_run(run, status="finished", games=10, seconds=1.0)
    return path


def kernel_calls(deals: game.Deals, scores: game.Scores) -> dict[str, Callable[..., object]]:
    """The docs' name of a function (and, after '#', which of its arguments) -> a call of
    three hostile values."""
    return {
        "play(": lambda a, b, c: game.play(a, limit=b, trace=c),
        "score_deals(": lambda a, b, c: game.score_deals(a, b, threads=c),
        "score_deals(#device": lambda a, b, c: game.score_deals(a, device=b),
        "random_deals(": lambda a, b, c: game.random_deals(a, b, players=c),
        "random_deals(#deck": lambda a, b, c: game.random_deals(2, deck=a, sizes=b, stream=c),
        "Deals[i]": lambda a, b, c: deals[a],
        "Deals.text(i)": lambda a, b, c: deals.text(a),
        "Deals(rows, sizes)": lambda a, b, c: game.Deals(a, b),
        "Scores[i]": lambda a, b, c: (scores[a], scores.result(b), scores.as_dict(c)),
        "Scores.empty(n)": lambda a, b, c: game.Scores.empty(a),
        "parse_deal(": lambda a, b, c: game.parse_deal(a),
        "format_deal(": lambda a, b, c: game.format_deal(a),
        "as_deal(": lambda a, b, c: game.as_deal(a),
        "cycle(": lambda a, b, c: game.cycle(a),
        "reaching_deals(": lambda a, b, c: list(
            islice(game.reaching_deals(CASELLA, a, max_depth=b, max_states=c), 3)
        ),
        "reaching_deals(#deal": lambda a, b, c: game.reaching_deals(a, seat_bound=b, report=c),
    }


def records_calls(path: Path) -> dict[str, Callable[..., object]]:
    def reading(call: Callable[[records.StoreReader], object]) -> object:
        with records.open_store(path) as db:
            return call(db)

    return {
        "open_store(": lambda a, b, c: records.open_store(a).close(),
        "StoreReader.run(n)": lambda a, b, c: reading(lambda db: db.run(a)),
        "StoreReader.top(": lambda a, b, c: reading(lambda db: db.top(a, by=b, seats=c)),
        "StoreReader.top(#status": lambda a, b, c: reading(
            lambda db: db.top(status=a, min_cards=b)
        ),
        "StoreReader.finds_of(": lambda a, b, c: reading(lambda db: db.finds_of(a)),
        "StoreReader.run_finds(": lambda a, b, c: reading(lambda db: db.run_finds(a)),
        "StoreReader.all_finds(": lambda a, b, c: reading(lambda db: list(db.all_finds(a))),
        "StoreReader.loops(": lambda a, b, c: reading(lambda db: db.loops(run=a)),
        "FindRow.as_dict(": lambda a, b, c: reading(lambda db: db.top(1)[0].as_dict(a)),
        "published_games(": lambda a, b, c: records.published_games(a),
        "replay_published(": lambda a, b, c: records.replay_published(a),
    }


KERNEL_NAMES = [
    *("play(", "score_deals(", "score_deals(#device", "random_deals(", "random_deals(#deck"),
    *("Deals[i]", "Deals.text(i)", "Deals(rows, sizes)", "Scores[i]", "Scores.empty(n)"),
    *("parse_deal(", "format_deal(", "as_deal(", "cycle(", "reaching_deals("),
    "reaching_deals(#deal",
]


@pytest.fixture(scope="module")
def some_deals() -> tuple[game.Deals, game.Scores]:
    deals = game.random_deals(3, seed=1)
    return deals, game.score_deals(deals)


def call_within_contract(name: str, call: Callable[..., object], values: tuple) -> None:
    """Call; an exception must be one the docs list for the function, in one line."""
    try:
        call(*values)
    except allowed(name.split("#")[0]) as err:
        assert str(err) and "\n" not in str(err).strip(), f"{name}: {err!r}"


def hostile(examples: int) -> Callable:
    """Hypothesis settings for a probe of `examples` calls (tiers.sizes: few in the fast tier)."""
    return settings(
        max_examples=examples, suppress_health_check=[HealthCheck.function_scoped_fixture]
    )


def test_every_probe_names_one_row_of_the_docs(store):
    assert set(KERNEL_NAMES) == set(kernel_calls(*[None] * 2))  # type: ignore[arg-type]
    for name in [*KERNEL_NAMES, *records_calls(store), "Scores.to_dict(", "Scores.to_pandas("]:
        allowed(name.split("#")[0])  # exactly one row


@pytest.mark.parametrize("examples", sizes(20, 60))
@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_kernels_functions_raise_only_what_the_docs_list(some_deals, name, examples):
    @hostile(examples)
    @given(a=HOSTILE, b=HOSTILE, c=HOSTILE)
    def probe(a, b, c):
        call_within_contract(name, kernel_calls(*some_deals)[name], (a, b, c))

    probe()


@pytest.mark.parametrize("examples", sizes(20, 60))
@pytest.mark.parametrize("name", list(records_calls(Path())))
def test_records_functions_raise_only_what_the_docs_list_and_write_nothing(
    store, tmp_path, monkeypatch, name, examples
):
    monkeypatch.chdir(tmp_path)  # a relative path given as a value lands here: must stay empty
    before = {p.name: p.read_bytes() for p in store.parent.iterdir()}

    @hostile(examples)
    @given(a=HOSTILE, b=HOSTILE, c=HOSTILE)
    def probe(a, b, c):
        call_within_contract(name, records_calls(store)[name], (a, b, c))
        assert {p.name: p.read_bytes() for p in store.parent.iterdir()} == before
        assert list(tmp_path.iterdir()) == []

    probe()


WRONG_WHOLE = [1.7, 2.0, math.nan, "3", True, np.float64(2.0), [2], b"2"]


@pytest.mark.parametrize("value", WRONG_WHOLE, ids=repr)
@pytest.mark.parametrize(
    "call",
    [
        lambda v: game.random_deals(v),
        lambda v: game.random_deals(1, seed=v),
        lambda v: game.random_deals(1, stream=v),
        lambda v: game.random_deals(1, players=v),
        lambda v: game.random_deals(1, deck=(36, 4, 4, 4, v)),
        lambda v: game.random_deals(1, sizes=(26, v)),
        lambda v: game.play("-J/Q-", limit=v),
        lambda v: game.play([[0, v], [1]]),
        lambda v: game.score_deals(["-J/Q-"], threads=v),
        lambda v: game.score_deals(np.array([[0, 1, 2, 0]]), (2, v)),
        lambda v: game.reaching_deals(CASELLA, (26, v)),
        lambda v: game.reaching_deals(CASELLA, max_states=v),
        lambda v: records.published_games(v),
    ],
)
def test_a_whole_number_of_the_wrong_type_is_refused_not_cast(call, value):
    with pytest.raises(game.DealError, match="whole number|penalty value|must be|is "):
        call(value)


@pytest.mark.parametrize("value", [*WRONG_WHOLE, "x", -1, 2**63])
@pytest.mark.parametrize(
    "call",
    [
        lambda db, v: db.top(v),
        lambda db, v: db.top(min_cards=v),
        lambda db, v: db.top(seats=v),
        lambda db, v: db.all_finds(seats=v),  # refused when called, not when first read
        lambda db, v: db.run(v),
        lambda db, v: db.run_finds(v),
        lambda db, v: db.loops(run=v),
    ],
)
def test_a_store_query_refuses_what_it_cannot_take(store, call, value):
    with records.open_store(store) as db, pytest.raises((records.QueryError, records.RunNotFound)):
        call(db, value)


def test_the_bounds_hold_before_any_work(store):
    with pytest.raises(game.DealError, match="at most 1,000 cards"):
        game.score_deals(np.zeros((1, 120_002), np.uint8), (60_001, 60_001))
    with pytest.raises(game.DealError, match="a deck holds 1 to 1,000 cards"):
        game.random_deals(1, deck=(1_000, 1, 1, 1, 1))
    with pytest.raises(game.DealError, match="deals must be 0 to 10,000,000"):
        game.random_deals(game.MAX_DEALS + 1)
    with pytest.raises(game.DealError, match="at most 520,000,000 cards"):
        game.random_deals(game.MAX_DEALS, deck=(100, 0, 0, 0, 0))
    with pytest.raises(game.DealError, match="at most 10,000,000 deals"):
        game.score_deals(iter(lambda: "-J/Q-", None))  # endless: refused, not read forever
    with pytest.raises(game.DealError, match="stream must be 0 to"):
        game.random_deals(1, stream=2**64)  # not folded into stream 0
    for hand_sizes in ((), (52,), (13,) * 4 + (0,)):
        with pytest.raises(game.DealError, match="2 to 4 hands"):
            game.random_deals(1, sizes=hand_sizes)
    with pytest.raises(game.DealError, match="at least one card"):
        game.score_deals(np.zeros((1, 4), np.uint8), (0, 0))
    with records.open_store(store) as db:
        with pytest.raises(records.QueryError, match="seats is one of"):
            db.top(seats="x")  # once an empty list
        assert db.loops(run=1) == db.loops() != []  # as docs/library.md calls it


def test_a_reader_used_from_another_thread_says_so_not_damage(store):
    with records.open_store(store) as db:
        seen: list[BaseException] = []
        worker = threading.Thread(target=lambda: _catch(db.runs, seen))
        worker.start()
        worker.join()
        assert len(seen) == 1 and isinstance(seen[0], records.StoreError)
        assert "another thread" in str(seen[0]) and "damaged" not in str(seen[0])
        assert db.runs()  # still good in its own thread


def _catch(call: Callable[[], object], seen: list[BaseException]) -> None:
    try:
        call()
    except Exception as err:  # the test looks at it
        seen.append(err)
