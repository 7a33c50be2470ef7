"""`bmn search --objective grow` and `bmn records loops --standard`, against the reference."""

import json

import pytest
from samples import CASELLA, LOOP_DEAL, loop_figures

from bmn.kernels import reference
from bmn.kernels.cycles.balance import basin_splits
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import format_hand, parse_deal
from bmn.records.report import STANDARD_KEYS
from bmn.records.store import Store
from bmn.search.cycles.piece_hunt import HuntState, known_pieces
from bmn.search.cycles.pieces import Control, Library, assemble_with, composition, pieces_of
from bmn.search.cycles.pieces import sums_reachable as reachable
from bmn.search.runs.kinds import cycle_streams
from bmn.search.runs.kinds.grow import GrowJob, GrowOptions, known_deals
from bmn.search.runs.loop import RunLoop

J_BIG = Control.parse("J-", False, "-")  # the published cycle's control
PUBLISHED_KEY = analyse(LOOP_DEAL).rotation_key
# The three other 62-trick cycles the published pieces make (seat-blind keys).
NEW_KEYS = {
    "0:-----------------KA-J-/Q-K---Q-KQQJ--J--K---A----AAJ-",
    "0:-----------------KA-J-/Q-K---Q-KQQJ--K---A----AAJ--J-",
    "0:-----------------KA-J-/Q-K---Q-KQQJ--J--------A-KAAJ-",
}
STANDARD = sorted([0] * 36 + [1, 2, 3, 4] * 4)


@pytest.fixture
def grow(bmn):
    """`bmn search --objective grow` into a store, without a display."""

    def run(store, *args):
        return bmn("search", "--objective", "grow", "--store", store, "--quiet", *args)

    return run


def test_grow_stores_standard_cycles_whose_deals_replay(grow, bmn, tmp_path):
    store = tmp_path / "g.sqlite"
    result = grow(store, "--iterations", 2, "--seed", 3, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["games"] == 2 and summary["status"] == "finished"
    listed = json.loads(bmn("records", "loops", "--standard", "--json", "--store", store).stdout)
    assert len(listed) == summary["distinct_cycles"] == summary["new_cycles"] >= 4
    keys = {row["rotation_key"] for row in listed}
    assert NEW_KEYS | {PUBLISHED_KEY} <= keys  # the published pieces recombined
    for row in listed:
        assert tuple(row) == STANDARD_KEYS
        deal = parse_deal(row["deal"])
        assert sorted(v for hand in deal for v in hand) == STANDARD
        assert loop_figures(deal) == (LOOP, row["period_cards"], row["period_tricks"])
        loop = analyse(deal)
        assert (loop.key, loop.rotation_key) == (row["key"], row["rotation_key"])
        assert analyse(parse_deal(row["first_deal"])).rotation_key == row["rotation_key"]
        assert row["split"] == "/".join(str(len(hand)) for hand in deal)
        assert (
            row["balanced"]
            == (row["split"] == "26/26")
            == (row["rotation_key"] in NEW_KEYS | {PUBLISHED_KEY})
        )
    published = next(row for row in listed if row["rotation_key"] == PUBLISHED_KEY)
    assert published["balanced_deals"] == 18  # as bmn preimages --seat-bound counts them
    assert summary["balanced_cycles"] == 4 and summary["most_balanced"] == "26/26"
    splits = [tuple(map(int, row["split"].split("/"))) for row in listed]
    assert splits == sorted(splits, key=lambda s: abs(s[0] - s[1]))  # most balanced first
    with Store(store) as db:
        (run,) = db.runs()
    assert (run.strategy, run.objective, run.status, run.games) == (None, "grow", "finished", 2)


def test_the_text_listing_says_the_same(grow, bmn, tmp_path):
    store = tmp_path / "g.sqlite"
    Store(store).close()
    empty = bmn("records", "loops", "--standard", "--store", store).stdout
    assert "no standard-deck cycles" in empty
    grow(store, "--iterations", 1, "--seed", 3)
    rows = json.loads(bmn("records", "loops", "--standard", "--json", "--store", store).stdout)
    text = bmn("records", "loops", "--standard", "--store", store).stdout
    assert "seat-blind key" in text.splitlines()[0]
    for row in rows:
        line = next(line for line in text.splitlines() if row["rotation_key"] in line)
        assert row["deal"] in line and row["split"] in line
        assert ("yes" if row["balanced"] else "no") in line
    assert all(row["key"] in bmn("records", "loops", "--store", store).stdout for row in rows)


def run_grow(db: Store, options: GrowOptions, stop_after_first: bool = False):
    job = RunLoop(db, GrowJob, options)
    return job.run((lambda p: job.stop.set()) if stop_after_first else (lambda p: None))


def stored(db: Store, workers: int) -> tuple:
    """The cycles stored and the run's checkpoint. With several streams, the deal as assembled
    (first_deal) is that of the stream whose round was committed first, which varies."""
    rows = sorted(
        (r.rotation_key, r.key, r.example_deal, r.first_deal if workers == 1 else "")
        for r in db.loops()
    )
    return rows, json.loads(db.load_checkpoints(1)[0][0])


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_resume_equals_an_uninterrupted_run(tmp_path, monkeypatch, workers):
    monkeypatch.setattr(cycle_streams, "COMMIT_SECONDS", 0.0)
    options = GrowOptions(iterations=4, workers=workers, seed=7, tries=20_000, known=[CASELLA])
    with Store(tmp_path / "a.sqlite") as db:
        whole = run_grow(db, options)
        straight = stored(db, workers)
    with Store(tmp_path / "b.sqlite") as db:
        first = run_grow(db, options, stop_after_first=True)
        assert first.status == "interrupted" and 0 < first.games < 4
        second = RunLoop.resume(db, GrowJob, first.run).run()
        assert (second.status, second.games) == ("finished", 4)
        assert (second.cycles, second.new_cycles) == (whole.cycles, whole.new_cycles)
        assert stored(db, workers) == straight
    assert whole.cycles >= 4 and len(straight[1]["streams"]) == workers


def test_a_grow_run_resumes_through_the_cli(grow, bmn, tmp_path):
    store = tmp_path / "g.sqlite"
    grow(store, "--iterations", 1, "--seed", 2, "--grow-from", "descent")
    result = bmn("search", "--resume", "1", "--store", store, "--quiet")  # it finished
    assert result.exit_code == 0, result.output
    assert "1 round in" in result.stdout and "from descent pieces" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--objective", "grow", "--strategy", "climb"], "--strategy does nothing with"),
        (["--objective", "grow", "--keep-above", "9"], "--keep-above does nothing with"),
        (["--objective", "grow", "--loop-deck", "standard"], "--loop-deck does nothing with"),
        (["--objective", "grow", "--patience", "9"], "--patience does nothing with"),
        (["--objective", "grow", "--device", "cuda"], "a grow run runs on the CPU"),
        (["--objective", "loop", "--grow-from", "known"], "--grow-from is for --objective grow"),
        (["--grow-from", "descent"], "--grow-from is for --objective grow only, not cards"),
        (["--objective", "grow", "--grow-from", "nothing"], "'nothing' is not one of"),
        (["--objective", "grow", "--basin-states", "0"], "--basin-states"),
        (["--resume", "1", "--grow-from", "known"], "from the run; drop --grow-from"),
    ],
)  # fmt: skip
def test_bad_combinations_are_refused(bmn, failed, tmp_path, args, message):
    store = tmp_path / "s.sqlite"
    bound = [] if "--resume" in args else ["--iterations", "1"]
    failed(bmn("search", *args, *bound, "--store", store), 2, message)
    assert not store.exists()


# -- the pieces of known cycles -----------------------------------------------------------------


def test_the_published_cycle_cuts_into_its_three_pieces():
    pieces = pieces_of(J_BIG, LOOP_DEAL)
    assert sorted(format_hand(p) for p in pieces) == sorted(
        ["--J", "--------K---------Q-Q-K---Q-KAQJ", "--------A-KAAJ"]
    )
    known = known_pieces(J_BIG, [LOOP_DEAL])
    assert len(known) == 7 and set(pieces) <= set(known)
    assert pieces_of(J_BIG, parse_deal("-J/Q-")) is None  # no loop
    assert pieces_of(Control.parse("Q-", False, "-"), LOOP_DEAL) is None  # never that state


def test_a_deal_built_round_an_anchor_holds_it_and_loops():
    import numpy as np

    library = Library(J_BIG, known_pieces(J_BIG, [LOOP_DEAL]))
    target = library.target()
    reach = reachable(library.by_counts, target)
    rng = np.random.default_rng(1)
    for anchor in library.ordered:
        pieces = assemble_with(library, anchor, target, rng, reach)
        assert anchor in pieces
        assert tuple(map(sum, zip(*map(composition, pieces), strict=True))) == target
        deal = J_BIG.deal(pieces)
        assert reference.play(deal).status == LOOP
        assert basin_splits(deal, 0).key in NEW_KEYS | {PUBLISHED_KEY}


def test_a_hunt_keeps_its_anchors_through_json():
    state = HuntState.start(4, known_pieces(J_BIG, [LOOP_DEAL]))
    again = HuntState.from_json(json.loads(json.dumps(state.as_json())))
    assert again.as_json() == state.as_json() and len(again.anchors) == 7


def test_known_deals_start_with_the_published_cycle(tmp_path):
    with Store(tmp_path / "s.sqlite") as db:
        assert known_deals(db) == [CASELLA]


# -- any deck, any hand sizes -------------------------------------------------------------------

SMALL_DECK = "14,2,0,0,2"  # 18 cards; of its cycles, two pass through `--J-` with the big hand
LOOPS_AT_DASH_J = "--J-/big/-"  # to lead (docs/endless-games.md)


@pytest.mark.parametrize("sizes", [None, (10, 8)])
def test_a_grow_run_on_another_deck_stores_cycles_that_replay(tmp_path, sizes):
    options = GrowOptions(
        deck=SMALL_DECK, hand_sizes=sizes, controls=[LOOPS_AT_DASH_J], iterations=3, seed=1,
        tries=20_000, known=[],
    )  # fmt: skip
    with Store(tmp_path / "s.sqlite") as db:
        summary = run_grow(db, options)
        rows = db.loops()
    target = sizes or (9, 9)
    assert summary.cycles == len(rows) >= 1 and summary.deck == SMALL_DECK
    for row in rows:
        assert row.deck == SMALL_DECK
        deal = parse_deal(row.example_deal)
        assert loop_figures(deal) == (LOOP, row.period_cards, row.period_tricks)
        assert analyse(deal).rotation_key == row.rotation_key
        splits = basin_splits(deal, options.basin_states)
        nearest = min(abs(s[0] - target[0]) for s, _ in splits.by_sizes)
        assert abs(len(deal[0]) - target[0]) == nearest  # the starting deal nearest the sizes


def test_a_grow_run_takes_turns_over_the_decks_controls(grow, bmn, tmp_path):
    store = tmp_path / "g.sqlite"
    result = grow(store, "--deck", SMALL_DECK, "--iterations", 3, "--seed", 1, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["deck"] == SMALL_DECK
    with Store(store) as db:
        (run,) = db.runs()
        checkpoint = json.loads(db.load_checkpoints(run.id)[0][0])
    options = GrowOptions(deck=SMALL_DECK)
    assert options.controls[0] == "J-/big/-" and LOOPS_AT_DASH_J in options.controls
    (stream,) = checkpoint["streams"]
    assert stream["chunks"] == 3 and len(stream["extra_pieces"]) == len(options.controls) - 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["--deck", SMALL_DECK, "--hand-sizes", "9,8"], "add up to the deck's 18 cards"),
        (["--deck", SMALL_DECK, "--hand-sizes", "6,6,6"], "two hands"),
        (["--deck", "1,1,0,0,0"], "4 to 64 cards with a court card"),
        (["--deck", "20,0,0,0,0"], "4 to 64 cards with a court card"),
    ],
)  # fmt: skip
def test_bad_decks_and_hand_sizes_are_refused(bmn, failed, tmp_path, args, message):
    store = tmp_path / "s.sqlite"
    failed(bmn("search", "--objective", "grow", *args, "--iterations", "1", "--store", store), 2,
           message)  # fmt: skip
    assert not store.exists()
