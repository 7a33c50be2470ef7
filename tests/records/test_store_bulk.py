"""Finds stored in bulk (bmn.records.store.bulk): the store reads them back exactly as it reads the
same finds stored one row each, and a search at --keep-above 0 keeps every deal it scores."""

import json

import numpy as np
import pytest

from bmn.kernels.deal import deal_texts, decode, parse_deal
from bmn.kernels.decks import even_sizes
from bmn.kernels.reference import play
from bmn.records.store import Find, Store, bulk

SIZES = {2: even_sizes(52, 2), 3: even_sizes(52, 3)}
STANDARD = np.array([0] * 36 + [1, 2, 3, 4] * 4, dtype=np.uint8)


@pytest.mark.parametrize("width", [52, 51, 7, 1])
def test_packed_decks_unpack_to_the_same_rows(width):
    rows = np.random.default_rng(width).integers(0, 5, (300, width), dtype=np.uint8)
    blob = bulk.pack_decks(rows)
    assert len(blob) == 300 * ((width + 1) // 2)
    assert np.array_equal(bulk.unpack_decks(blob, 300, width), rows)


def sample_finds(seed: int, n: int, seats: int) -> tuple[np.ndarray, np.ndarray]:
    """`n` distinct shuffled standard deals with made-up figures: many short finished games,
    a few past BULK_BELOW and a few loops (a store does not play what it keeps)."""
    rng = np.random.default_rng(seed)
    decks = np.unique(np.array([rng.permutation(STANDARD) for _ in range(n)]), axis=0)
    rng.shuffle(decks)
    cards = rng.integers(0, 4000, len(decks))
    meta = np.stack([cards, cards // 7 + rng.integers(0, 3, len(decks)), cards * 0], axis=1)
    meta[::37, 2] = 1  # loops: never in bulk, whatever their length
    return decks, meta


def fill(store: Store, split: bool) -> list[int]:
    """Two runs (2 and 3 seats), three commits each, two streams a commit; every find one row
    each, or (split) the short finished ones in bulk as a search stores them."""
    runs = []
    for seats, seed in ((2, 1), (3, 2)):
        run = store.create_run("walk", "cards", seed, {}, seats=seats)
        decks, meta = sample_finds(seed, 1200, seats)
        for commit, part in enumerate(np.array_split(np.arange(len(decks)), 6)):
            elapsed = 1.5 * (commit // 2 + 1)
            d, m = decks[part], meta[part]
            bulky = bulk.in_bulk(m, 0) if split else np.zeros(len(m), dtype=bool)
            texts = deal_texts(d[~bulky], SIZES[seats])
            finds = [
                Find(t, c, k, ("finished", "loop")[s], "walk", elapsed)
                for t, (c, k, s) in zip(texts, m[~bulky].tolist(), strict=True)
            ]
            parts = [bulk.Bulk(commit % 2, commit, elapsed, SIZES[seats], d[bulky], m[bulky, :2])]
            store.save_progress(run, [], finds, {}, bulks=parts if split else ())
        runs.append(run)
    return runs


def plain(rows) -> list[tuple]:
    """Finds without the time they were stored (the two stores were filled moments apart)."""
    return [(f.deal, f.cards, f.tricks, f.status, f.run, f.strategy, f.elapsed) for f in rows]


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """The same finds, one row each and split the way a search stores them."""
    folder = tmp_path_factory.mktemp("bulk")
    rows, split = Store(folder / "rows.sqlite"), Store(folder / "split.sqlite")
    fill(rows, split=False)
    fill(split, split=True)
    batches = split._db.execute("SELECT count(*), sum(count) FROM find_batches").fetchone()
    assert batches[0] == 12 and batches[1] > 1500  # most finds went into bulk
    yield rows, split
    rows.close()
    split.close()


@pytest.mark.parametrize("by", ["cards", "tricks"])
@pytest.mark.parametrize(
    "n, min_cards, status, seats",
    [(10, 0, None, None), (500, 0, None, 2), (40, 2000, "finished", None), (2000, 0, None, 3),
     (5, 3500, None, None), (50, 0, "loop", None)],
)  # fmt: skip
def test_top_is_the_same_whichever_way_finds_are_stored(stores, by, n, min_cards, status, seats):
    rows, split = stores
    want = rows.top(by=by, n=n, min_cards=min_cards, status=status, seats=seats)
    assert plain(split.top(by=by, n=n, min_cards=min_cards, status=status, seats=seats)) == plain(
        want
    )
    assert len(want) == n or n == 2000  # the 3-seat run holds fewer than 2,000


def test_a_runs_finds_tally_and_export_are_the_same(stores):
    rows, split = stores
    for run in (1, 2):
        assert sorted(plain(split.run_finds(run))) == sorted(plain(rows.run_finds(run)))
        elapsed = [f.elapsed for f in split.run_finds(run)]
        assert elapsed == sorted(elapsed)  # in the order found
        for by in ("cards", "tricks"):
            assert split.run_tally(run, by) == rows.run_tally(run, by)
            for status in (None, "finished", "loop"):
                bests = split.run_bests(run, by, status)
                assert bests == rows.run_bests(run, by, status) and len(bests) == 3
    for seats in (None, 2, 3):
        exported = list(split.all_finds(batch=100, seats=seats))
        assert sorted(plain(exported)) == sorted(plain(rows.all_finds(seats=seats)))
        stamps = [f.found_at for f in exported]
        assert stamps == sorted(stamps)  # oldest first


def test_a_deal_in_bulk_is_found_by_show(stores):
    rows, split = stores
    short = [f for f in rows.run_finds(2) if f.cards < bulk.BULK_BELOW and f.status == "finished"]
    for find in short[:3]:
        assert plain(split.finds_for(find.deal)) == plain([find])
    assert split.finds_for("-" * 26 + "/" + "-" * 22 + "JQKA") == []


def test_a_bulk_stored_twice_is_stored_once(db):
    run = db.create_run("walk", "cards", 1, {})
    decks, meta = sample_finds(3, 50, 2)
    again = bulk.Bulk(0, 1000, 2.0, (26, 26), decks, meta[:, :2])
    assert db.save_progress(run, [], [], {}, bulks=[again]) == len(decks)
    assert db.save_progress(run, [], [], {}, bulks=[again]) == 0
    assert db.run_tally(run)[0] == len(decks)


def test_every_deal_of_a_keep_above_0_search_is_kept(bmn, tmp_path):
    path = tmp_path / "all.sqlite"
    args = ["--iterations", "6000", "--seed", "5", "--workers", "2", "--keep-above", "0"]
    result = bmn("search", *args, "--store", path, "--json", "--quiet")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    with Store(path) as db:
        finds = db.run_finds(summary["run"])
        assert db.run_tally(summary["run"])[0] == len(finds) == 6000  # a find per deal scored
        in_bulk = db._db.execute("SELECT sum(count) FROM find_batches").fetchone()[0]
        assert in_bulk == sum(f.cards < bulk.BULK_BELOW and f.status == "finished" for f in finds)
        for find in finds[::150]:  # the reference engine agrees with what was kept
            got = play(parse_deal(find.deal))
            assert (got.cards, got.tricks, got.status) == (find.cards, find.tricks, find.status)
        (best,) = db.top(n=1)
    assert (best.deal, best.cards) == (summary["best_deal"], summary["best_cards"])
    exported = bmn("records", "export", "--store", path)
    assert len(exported.stdout.splitlines()) == 6001


def test_decode_of_a_bulk_row_is_its_deal():
    """The unpacked rows are the deals: cut into hands they read as the text stored."""
    decks, _ = sample_finds(4, 5, 3)
    rows = bulk.unpack_decks(bulk.pack_decks(decks), 5, 52)
    texts = deal_texts(rows, SIZES[3])
    assert [parse_deal(t) for t in texts] == [decode(row, SIZES[3]) for row in decks]
