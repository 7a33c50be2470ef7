"""An enumeration split by hand over two machines and merged holds what one run over the whole
deck holds, and `records coverage` says which ranks are done, missing and visited twice."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from bmn.records import merge_stores
from bmn.records.coverage import gaps, overlaps, union

DECK = ("--deck", "6,2,1,1,0")  # 2,520 deals


def every(bmn, store: Path, objective: str, *ranks: object) -> None:
    args = ("search", "--strategy", "every", *DECK, "--objective", objective, *ranks)
    result = bmn(*args, "--quiet", "--store", store)
    assert result.exit_code == 0, result.output


def rows(store: Path) -> tuple[set, list]:
    """The finds (deal, cards, tricks, status) and cycle rows of a store, as it holds them."""
    conn = sqlite3.connect(store)
    try:
        finds = set(conn.execute("SELECT deal, cards, tricks, status FROM finds"))
        loops = conn.execute(
            "SELECT key, period_cards, period_tricks, first_deal, times_seen, balanced_deals"
            " FROM loops ORDER BY key"
        ).fetchall()
    finally:
        conn.close()
    return finds, loops


@pytest.mark.parametrize("objective", ["cards", "loop"])
def test_a_split_enumeration_merged_is_the_whole_run(bmn, tmp_path, objective):
    whole, one, two = (tmp_path / f"{name}.sqlite" for name in ("whole", "one", "two"))
    every(bmn, whole, objective)
    every(bmn, one, objective, "--to-rank", 1000)
    every(bmn, two, objective, "--from-rank", 1000)
    merged = tmp_path / "merged.sqlite"
    merge_stores([one, two], merged)
    (whole_finds, whole_loops), (merged_finds, merged_loops) = rows(whole), rows(merged)
    assert merged_loops == whole_loops
    assert bool(whole_loops) == (objective == "loop")  # the deck has cycles; a hunt keeps them
    # Each part keeps its own longest finished deal: the whole run's is the longer of the two,
    # and every other find (each looping deal, each deal past --keep-above) is the same.
    assert whole_finds <= merged_finds
    extra = merged_finds - whole_finds
    assert len(extra) <= 1 and all(find[3] == "finished" for find in extra)
    longest = max((f for f in merged_finds if f[3] == "finished"), key=lambda f: f[1])
    assert longest in whole_finds

    shown = bmn("records", "coverage", "--json", "--store", merged)
    (group,) = json.loads(shown.stdout)
    assert (group["done"], group["missing"], group["overlap"]) == ([[0, 2520]], [], [])
    assert group["objective"] == objective and group["done_deals"] == 2520


def test_coverage_names_missing_overlapping_and_unfinished_ranks(bmn, tmp_path):
    store = tmp_path / "parts.sqlite"
    every(bmn, store, "cards", "--to-rank", 1000)
    every(bmn, store, "cards", "--from-rank", 500, "--to-rank", 1200)
    conn = sqlite3.connect(store)
    run = conn.execute(
        "INSERT INTO runs (started_at, updated_at, strategy, objective, seed, params, status,"
        " kind) SELECT started_at, updated_at, strategy, objective, seed + 1,"
        " json_set(params, '$.from_rank', 2000, '$.to_rank', NULL), 'stopped', kind"
        " FROM runs WHERE id = 1"
    ).lastrowid
    conn.commit()
    conn.close()
    text = bmn("records", "coverage", "--store", store).stdout
    assert "done:     1,200 of 2,520 deals: 0 to 1,199" in text
    assert "missing:  1,200 to 2,519" in text
    assert "overlap:  500 to 999" in text
    assert f"unfinished: run {run}, ranks 2,000 to 2,519" in text
    search = tmp_path / "search.sqlite"
    result = bmn("search", "--iterations", 100, "--workers", 1, "--quiet", "--store", search)
    assert result.exit_code == 0, result.output
    shown = bmn("records", "coverage", "--store", search).stdout
    assert shown.startswith("no enumerations in the store")


def test_rank_ranges_union_gaps_and_overlaps():
    spans = [(0, 10), (5, 20), (20, 30), (40, 50), (45, 48)]
    assert union(spans) == [(0, 30), (40, 50)]
    assert gaps(union(spans), 60) == [(30, 40), (50, 60)]
    assert overlaps(spans) == [(5, 10), (45, 48)]
    assert overlaps([(0, 5), (5, 9)]) == []  # meeting is not overlapping
    assert overlaps([(0, 9), (0, 9), (0, 9)]) == [(0, 9)]


def test_an_unfinished_enumerations_visited_ranks_count_as_done(bmn, tmp_path):
    """What its streams' checkpoints say they visited, each stream a share of the range."""
    store = tmp_path / "half.sqlite"
    every(bmn, store, "cards", "--iterations", 1000, "--workers", 2)
    (group,) = json.loads(bmn("records", "coverage", "--json", "--store", store).stdout)
    assert group["done_deals"] == 1000 and group["unfinished_done"] == {"1": 1000}
    assert group["done"] == [[0, 500], [1260, 1760]]  # two streams: a half of the range each
    assert group["missing"] == [[500, 1260], [1760, 2520]]
    text = bmn("records", "coverage", "--store", store).stdout
    assert "unfinished: run 1, ranks 0 to 2,519 (1,000 of them visited)" in text


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        ("json_set(params, '$.from_rank', 'a')", "its from_rank is 'a', not a whole number"),
        ("json_set(params, '$.from_rank', -100)", "its from_rank is -100, past the deck's"),
        ("json_set(params, '$.to_rank', 10000)", "its to_rank is 10,000, past the deck's 2,520"),
        ("json_set(params, '$.from_rank', 900, '$.to_rank', 100)", "cover no deal"),
        ("json_set(params, '$.deck', 'mixed')", "it enumerates no deck"),
        ("json_set(params, '$.deck', 17)", "its deck is 17, not a deck"),
    ],
)
def test_coverage_believes_no_rank_it_cannot_check(bmn, failed, tmp_path, edit, said):
    store = tmp_path / "parts.sqlite"
    every(bmn, store, "cards", "--to-rank", 1000)
    with sqlite3.connect(store) as conn:
        conn.execute(f"UPDATE runs SET params = {edit}")
    conn.close()
    line = failed(bmn("records", "coverage", "--store", store), 1, "is damaged", said)
    assert "table runs, row 1, column params" in line


def test_a_stream_that_says_it_visited_ranks_outside_its_run_is_damage(bmn, failed, tmp_path):
    store = tmp_path / "half.sqlite"
    every(bmn, store, "cards", "--iterations", 100)
    with sqlite3.connect(store) as conn:
        state = json.dumps({"next": 99999}).encode()
        conn.execute("UPDATE checkpoints SET state = ? WHERE worker = 0", (state,))
    conn.close()
    failed(bmn("records", "coverage", "--store", store), 1, "worker 0", "outside its run's")
