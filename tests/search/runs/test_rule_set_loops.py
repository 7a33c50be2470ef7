"""Loop hunts, enumerations of loops and grow runs under every rule set: each stores the cycles
its rule set's play falls into, under that rule set, and the reference engine under the same
rules is the oracle of every count, key and deal."""

import pytest

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import decode, parse_deal
from bmn.kernels.ranks import arrangements, first_of, next_arrangement
from bmn.kernels.rules.sets import RULE_SETS
from bmn.records.store import Store
from bmn.search.api import search
from bmn.search.runs.kinds import loop_hunt

TWO_SEAT = [name for name, rules in RULE_SETS.items() if rules.plays(2)]


def every_loop(counts, sizes, rules):
    """Every deal of the deck, in rank order, that the reference engine sees loop under
    `rules`, with its cycle key (and the rank of the first deal into each cycle)."""
    cards, keys = first_of(counts), {}
    loops = 0
    for _ in range(arrangements(counts)):
        deal = decode(bytes(cards), sizes)
        if reference.play(deal, rules=rules).status == LOOP:
            loops += 1
            keys.setdefault(analyse(deal, rules=rules).key, deal)
        next_arrangement(cards)
    return loops, keys


CASES = [
    *(((5, 2, 2, 0, 0), (5, 4), rules) for rules in TWO_SEAT[:3]),
    *(
        pytest.param((5, 2, 2, 0, 0), (5, 4), rules, marks=pytest.mark.slow)
        for rules in TWO_SEAT[3:]
    ),
    ((6, 2, 1, 1, 0), (4, 3, 3), "paulhus"),
    pytest.param((6, 2, 1, 1, 0), (4, 3, 3), "bmn", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("counts, sizes, rules", CASES)
def test_an_enumeration_of_loops_counts_what_the_reference_engine_counts(
    tmp_path, counts, sizes, rules
):
    """Every deal of a small deck: the looping deals and the cycles stored are exactly the
    reference engine's under the rule set, each cycle row under that rule set with the first
    deal (by rank) falling into it."""
    store = tmp_path / "s.sqlite"
    deck = ",".join(map(str, counts))
    summary = search(
        store, strategy="every", objective="loop", deck=deck, hand_sizes=sizes, rules=rules,
        workers=1,
    )  # fmt: skip
    loops, keys = every_loop(counts, sizes, rules)
    assert (summary.status, summary.loops) == ("finished", loops)
    with Store(store) as db:
        rows = db.loops()
    assert {row.key for row in rows} == set(keys)
    assert {row.rules for row in rows} == {rules}
    for row in rows:
        assert parse_deal(row.first_deal) == keys[row.key]


def test_a_paulhus_enumeration_stopped_and_resumed_stores_what_one_run_does(tmp_path):
    common = dict(strategy="every", objective="loop", deck="6,2,1,1,0", hand_sizes=(4, 3, 3))
    whole = search(tmp_path / "whole.sqlite", rules="paulhus", workers=1, **common)
    parts = tmp_path / "parts.sqlite"
    first = search(parts, rules="paulhus", workers=1, iterations=1_000, **common)
    assert first.status == "stopped"
    again = first
    for _ in range(3):  # each session plays the run's --iterations more, from where it stopped
        again = search(parts, resume=first.run)
    assert (again.status, again.loops) == ("finished", whole.loops)

    def cycles(path):
        with Store(path) as db:
            return {(r.key, r.rules, r.first_deal, r.times_seen) for r in db.loops()}

    assert cycles(parts) == cycles(tmp_path / "whole.sqlite")


def test_a_three_seat_paulhus_loop_hunt_stores_paulhus_cycles(tmp_path):
    """Every cycle a hunt stores is one its deals fall into under Paulhus's reading (the
    reference engine), keyed as that reading's play names it."""
    store = tmp_path / "s.sqlite"
    summary = search(
        store, objective="loop", players=3, deck="9,3,0,0,0", rules="paulhus",
        iterations=40_000, seed=1, workers=1,
    )  # fmt: skip
    assert summary.cycles > 0
    with Store(store) as db:
        rows = db.loops()
        assert db.get_run(summary.run).rules == "paulhus"
    for row in rows:
        assert row.rules == "paulhus"
        for text in (row.first_deal, row.example_deal):
            deal = parse_deal(text)
            assert reference.play(deal, rules="paulhus").status == LOOP
        assert analyse(parse_deal(row.first_deal), rules="paulhus").key == row.key
    # the same deals under bmn's rules: the readings part some of the games
    bmn = search(
        tmp_path / "bmn.sqlite", objective="loop", players=3, deck="9,3,0,0,0",
        iterations=40_000, seed=1, workers=1,
    )  # fmt: skip
    assert bmn.loops != summary.loops


def test_a_grow_run_under_a_rule_set_stores_its_cycles(tmp_path):
    store = tmp_path / "s.sqlite"
    summary = search(store, objective="grow", rules="at-once", iterations=2, seed=1)
    assert summary.cycles > 0
    with Store(store) as db:
        rows = db.loops()
    for row in rows:
        assert row.rules == "at-once"
        deal = parse_deal(row.example_deal)
        assert reference.play(deal, rules="at-once").status == LOOP
        assert analyse(deal, rules="at-once").rotation_key == row.rotation_key


def test_a_run_whose_work_raises_is_left_interrupted(tmp_path, monkeypatch):
    """A loop hunt whose summary of a new cycle raises: the error reaches the caller, and the
    run reads interrupted (resumable), never running."""

    def broken(*_args):
        raise ValueError("a summary that fails")

    monkeypatch.setattr(loop_hunt, "new_cycle", broken)
    store = tmp_path / "s.sqlite"
    with pytest.raises(ValueError, match="a summary that fails"):
        search(store, objective="loop", deck="36,1,1,0,0", iterations=20_000, seed=1, workers=1)
    with Store(store) as db:
        (run,) = db.runs()
        assert (run.status, run.holder) == ("interrupted", None)
