"""Every deal of a deck at 3 and 4 seats with --objective loop: every looping deal and every cycle
stored (seat-bound key, seat-blind key, seats and kind), as the reference engine sees them."""

import json
from collections import Counter

import pytest

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import decode, format_deal, parse_deal
from bmn.kernels.ranks import arrangements, first_of, next_arrangement
from bmn.records.store import Store
from bmn.search.runs.kinds.every import EveryJob, EveryOptions
from bmn.search.runs.loop import RunLoop


def reference_loops(counts, sizes):
    """Every looping deal of the deck (reference engine), with its analysis."""
    cards, found = first_of(counts), {}
    for _ in range(arrangements(counts)):
        deal = decode(cards, sizes)
        if reference.play(deal).status == LOOP:
            found[format_deal(deal)] = analyse(deal)
        next_arrangement(cards)
    return found


def check_stored(store, run, expected):
    """The run's looping finds are the reference's looping deals; its cycles are theirs, each
    once, seen as often as deals fell into it, with the seats and kind of the analysis."""
    with Store(store) as db:
        finds = {f.deal for f in db.run_finds(run) if f.status == "loop"}
        rows = db.loops()
    assert finds == set(expected)
    seen = Counter(loop.key for loop in expected.values())
    assert {row.key: row.times_seen for row in rows} == dict(seen)
    by_key = {loop.key: loop for loop in expected.values()}
    for row in rows:
        loop = by_key[row.key]
        assert row.rotation_key == loop.rotation_key
        assert (row.seats, row.seats_out, row.kind) == (loop.seats, loop.seats_out, loop.kind)
        assert (row.period_cards, row.period_tricks) == (loop.period_cards, loop.period_tricks)
        if row.balanced_deals:  # the stored example falls into the cycle itself
            assert analyse(parse_deal(row.example_deal)).key == row.key
    return rows


def test_three_seats_on_the_command_line(bmn, tmp_path):
    """6 numerals and 3 jacks dealt 3/3/3: 3 looping deals, a true three-seat cycle and two
    seatings of a two-seat cycle left after a seat went out (one seat-blind key)."""
    store = tmp_path / "x.sqlite"
    result = bmn(
        "search", "--strategy", "every", "--players", "3", "--deck", "6,3,0,0,0",
        "--objective", "loop", "--workers", "1", "--quiet", "--json", "--store", store,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    expected = reference_loops((6, 3, 0, 0, 0), (3, 3, 3))
    assert (summary["status"], summary["deals"], summary["loops"]) == ("finished", 84, 3)
    assert (summary["cycles"], summary["seat_blind_cycles"]) == (3, 2)
    rows = check_stored(store, summary["run"], expected)
    assert sorted(row.kind for row in rows) == ["all-in", "reduced", "reduced"]
    listed = json.loads(bmn("records", "loops", "--json", "--store", store).stdout)
    assert sorted((r["seats"], r["seats_out"], r["kind"]) for r in listed) == [
        (3, [], "all-in"),
        (3, [1], "reduced"),
        (3, [2], "reduced"),
    ]
    text = bmn("records", "loops", "--store", store).stdout
    assert "2 of 3" in text and "0:--J-/J-/-J-" in text


@pytest.mark.slow
def test_four_seats_in_the_library(tmp_path):
    """8 numerals and 4 jacks dealt 3/3/3/3: every kind of cycle, each stored once."""
    expected = reference_loops((8, 4, 0, 0, 0), (3, 3, 3, 3))
    options = EveryOptions(deck="8,4,0,0,0", players=4, objective="loop", workers=2)
    with Store(tmp_path / "x.sqlite") as db:
        summary = RunLoop(db, EveryJob, options).run(lambda p: None)
    assert (summary.status, summary.loops, summary.cycles) == ("finished", 47, 22)
    assert summary.seat_blind_cycles == len({loop.rotation_key for loop in expected.values()})
    rows = check_stored(tmp_path / "x.sqlite", summary.run, expected)
    kinds = Counter((row.kind, row.seats - len(row.seats_out)) for row in rows)
    assert kinds == {("reduced", 2): 18, ("reduced", 3): 3, ("all-in", 4): 1}
