"""Loop hunts for 3 and 4 seats (`bmn search --objective loop --players 3|4`) against the
reference engine, and two-seat hunts storing what they stored before."""

import hashlib
import json
from collections import Counter

import numpy as np
import pytest
from samples import loop_figures

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import parse_deal
from bmn.kernels.decks import deck_of, even_sizes
from bmn.records.store import Store
from bmn.search.runs.kinds import loop_hunt as loophunt
from bmn.search.runs.kinds.loop_hunt import (
    LoopHuntJob,
    LoopHuntOptions,
    random_batch,
    random_counts,
)
from bmn.search.runs.loop import RunLoop


def hunt(bmn, store, *args):
    base = ["search", "--objective", "loop", "--store", store, "--quiet", "--workers", 1]
    result = bmn(*base, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def reference_loops(counts, seats: int, seed: int, n: int) -> Counter:
    """The cycle key of every looping deal the hunt draws (in BATCH-deal batches), by the
    reference engine."""
    rng = np.random.default_rng(seed)
    keys: Counter = Counter()
    for done in range(0, n, loophunt.BATCH):
        m = min(loophunt.BATCH, n - done)
        rows, sizes = random_batch(rng, deck_of(counts), m, True, seats)
        for row, hands in zip(rows.tolist(), sizes.tolist(), strict=True):
            ends = np.cumsum(hands).tolist()
            deal = tuple(tuple(row[e - k : e]) for k, e in zip(hands, ends, strict=True))
            if reference.play(deal).status == LOOP:
                keys[analyse(deal).key] += 1
    return keys


@pytest.mark.parametrize(
    "deck, seats, every_seat_in",
    [
        ("6,3,0,0,0", 3, "0:--J-/J-/-J-"),
        # 4 s, most of it summarising 22 new cycles by backward play: the 3-seat hunt above
        # runs the same code in the fast tier
        pytest.param("8,4,0,0,0", 4, "0:--J-/J-/-J-/-J-", marks=pytest.mark.slow),
    ],
)
def test_a_hunt_of_three_or_four_seats_finds_true_cycles(bmn, tmp_path, deck, seats, every_seat_in):
    """Every loop the reference sees among the hunt's deals, under its cycle's key, once each;
    among them a cycle in which every seat keeps cards for ever (J--/-J-/-J- and its 4-seat
    twin), and cycles left after seats went out."""
    store = tmp_path / "s.sqlite"
    deals, seed = 6000, 3
    summary = hunt(bmn, store, "--players", seats, "--deck", deck, "--iterations", deals,
                   "--seed", seed)  # fmt: skip
    expected = reference_loops(tuple(map(int, deck.split(","))), seats, seed, deals)
    assert summary["loops_found"] == sum(expected.values()) and summary["games"] == deals
    rows = json.loads(
        bmn("records", "loops", "--players", seats, "--json", "--store", store).stdout
    )
    assert {r["key"]: r["times_seen"] for r in rows} == dict(expected)
    kinds = Counter(r["kind"] for r in rows)
    assert kinds["all-in"] >= 1 and kinds["reduced"] >= 1
    assert every_seat_in in {r["key"] for r in rows if r["kind"] == "all-in"}
    for row in rows:
        deal = parse_deal(row["example_deal"])
        assert loop_figures(deal) == (LOOP, row["period_cards"], row["period_tricks"])
        loop = analyse(deal)
        assert loop.key == row["key"] and row["seats"] == len(deal) == seats
        out = [s for s, hand in enumerate(loop.states[0].hands) if hand is None]
        assert row["seats_out"] == out and row["kind"] == ("reduced" if out else "all-in")
        assert [len(h) for h in deal] == list(even_sizes(sum(map(len, deal)), seats))
    with Store(store) as db:
        (run,) = db.runs()
    assert (run.seats, run.params["players"], run.games) == (seats, seats, deals)
    text = bmn("records", "loops", "--players", seats, "--store", store).stdout
    assert f"2 of {seats}" in text and every_seat_in in text
    none = bmn("records", "loops", "--players", 2, "--store", store)
    assert none.exit_code == 0 and "no cycles of 2-seat deals" in none.stdout


# What two-seat hunts stored before 3- and 4-seat hunts came (and before loops were named in
# compiled code): how many cycles, deals into them, and a digest of every stored field.
FIELDS = ("key", "deck", "period_cards", "period_tricks", "balanced_deals",
          "mirrored_balanced_deals", "basin_states", "basin_complete", "example_deal",
          "first_deal", "times_seen")  # fmt: skip
BEFORE = [
    pytest.param(
        ["--deck", "36,1,1,0,0", "--iterations", "20000", "--seed", "5"],
        10,
        5971,
        "1e1ae7c8ae61c039",
        marks=pytest.mark.slow,  # the standard deck's hunt below keeps the fast tier's check
    ),
    (["--iterations", "1000000", "--seed", "3"], 20, 773, "070f3a11dc131a5c"),
]


@pytest.mark.parametrize("args, cycles, loops, digest", BEFORE)
def test_two_seat_hunts_store_what_they_stored_before(bmn, tmp_path, args, cycles, loops, digest):
    store = tmp_path / "s.sqlite"
    summary = hunt(bmn, store, *args)
    assert (summary["distinct_cycles"], summary["loops_found"]) == (cycles, loops)
    with Store(store) as db:
        rows = db.loops()
    text = json.dumps(sorted([[getattr(r, f) for f in FIELDS] for r in rows]))
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == digest
    assert {r.seats for r in rows} == {2} and {r.kind for r in rows} == {"all-in"}


def test_random_splits_and_mixed_decks_for_more_seats():
    rng = np.random.default_rng(1)
    deck = np.array(deck_of((6, 2, 1, 0, 0)), dtype=np.uint8)
    for seats in (2, 3, 4):
        rows, sizes = random_batch(rng, deck, 500, False, seats)
        assert sizes.shape == (500, seats) and (sizes.sum(axis=1) == len(deck)).all()
        assert sizes.min() >= 0 and (np.sort(rows, axis=1) == np.sort(deck)).all()
        even = random_batch(rng, deck, 3, True, seats)[1]
        assert (even == even_sizes(len(deck), seats)).all()
    for seats in (3, 4):
        drawn = [random_counts(rng, seats) for _ in range(300)]
        assert min(sum(c) for c in drawn) >= 2 * seats and all(sum(c[1:]) for c in drawn)
        assert max(c[0] for c in drawn) <= 36 and max(max(c[1:]) for c in drawn) <= 4


def test_stop_and_resume_a_three_seat_hunt(tmp_path, monkeypatch):
    monkeypatch.setattr(loophunt, "BATCH", 1000)
    monkeypatch.setattr(loophunt, "COMMIT_SECONDS", 0.0)
    options = LoopHuntOptions(iterations=3000, workers=1, seed=4, deck="6,3,0,0,0", players=3)
    with Store(tmp_path / "r.sqlite") as db:
        job = RunLoop(db, LoopHuntJob, options)
        first = job.run(lambda p: job.stop.set())
        assert (first.status, first.games) == ("interrupted", 1000)
        second = RunLoop.resume(db, LoopHuntJob, first.run).run()
        assert (second.status, second.games) == ("finished", 3000)
        seen = {r.key: r.times_seen for r in db.loops()}
    assert seen == dict(reference_loops((6, 3, 0, 0, 0), 3, 4, 3000))


@pytest.mark.parametrize(
    "args, message",
    [
        (["--players", "5"], "5 is too large"),
        (["--players", "4", "--deck", "2,1,0,0,0"], "4 seats cannot share the deck 2,1,0,0,0"),
    ],
)
def test_bad_seats_are_one_line_and_nothing_is_made(bmn, failed, tmp_path, args, message):
    store = tmp_path / "none.sqlite"
    failed(bmn("search", "--objective", "loop", "--store", store, *args), 2, message)
    assert not store.exists()


def test_the_served_loops_page_shows_the_seats(bmn, tmp_path):
    """`records serve`'s loops page lists what `records loops` does, its seats column too."""
    from bmn.frontends.serve import pages

    store = tmp_path / "s.sqlite"
    hunt(bmn, store, "--players", 3, "--deck", "6,3,0,0,0", "--iterations", 2000, "--seed", 1)
    with Store(store) as db:
        table = pages.loops(db)
    seats = list(table.head).index("seats")
    assert {row[seats].text for row in table.rows} == {"3", "2 of 3"}
