"""An enumeration's counts: its finds do not depend on how its range is cut (--workers) or
when it commits, a deal is stored once, a resumed run counts every sitting's finds as it
counts their deals, and a run with no finished game has no best deal (None, not '')."""

import pytest

from bmn.kernels.deal import parse_deal
from bmn.kernels.ranks import rank_of, unrank
from bmn.records.store import Store
from bmn.search.runs.kinds.every import EveryJob, EveryOptions
from bmn.search.runs.loop import RunLoop

DECK = "6,2,1,1,0"  # 2,520 deals, 14 of them loop (5/5)


def run(path, run_id=None, **changes):
    """An enumeration of DECK into the store at `path` (or run `run_id` resumed): its summary
    and every find stored, as (deal, cards, status), duplicates kept."""
    with Store(path) as store:
        if run_id is None:
            options = EveryOptions(**{"deck": DECK, "workers": 1, **changes})
            summary = RunLoop(store, EveryJob, options).run()
        else:
            summary = RunLoop.resume(store, EveryJob, run_id).run()
        finds = [(f.deal, f.cards, f.status) for f in store.run_finds(summary.run)]
        return summary, finds


@pytest.mark.parametrize("keep_above", [0, 12, 10**6])
def test_the_finds_do_not_depend_on_the_workers_and_none_is_stored_twice(
    tmp_path, small_chunks, keep_above
):
    one, finds_one = run(tmp_path / "one.sqlite", workers=1, keep_above=keep_above)
    three, finds_three = run(tmp_path / "three.sqlite", workers=3, keep_above=keep_above)
    assert sorted(finds_one) == sorted(finds_three)
    assert len(set(finds_one)) == len(finds_one)  # the best is not also a row beside its bulk
    assert one.finds == three.finds == len(finds_one)
    assert (one.best_deal, one.best_cards) == (three.best_deal, three.best_cards)
    assert (one.best_deal, one.best_cards, "finished") in finds_one  # the best is a find


def test_a_resumed_run_counts_the_finds_of_every_sitting(tmp_path, small_chunks):
    path = tmp_path / "e.sqlite"
    first, _ = run(path, keep_above=0, iterations=1000)
    assert first.status == "stopped" and first.deals == 1000
    resumed, finds = run(path, run_id=first.run)  # the next 1,000 ranks
    assert resumed.deals == 2000
    assert resumed.finds == len(finds) > first.finds  # both from the run's start


def test_a_run_with_no_finished_game_has_no_best_deal(tmp_path, small_chunks):
    looped, finds = run(tmp_path / "l.sqlite", keep_above=10**6, objective="loop")
    loop = next(deal for deal, _, status in finds if status == "loop")
    cards = [v for hand in parse_deal(loop) for v in hand]
    rank = rank_of(cards)
    assert list(unrank(rank, (6, 2, 1, 1, 0))) == cards
    summary, _ = run(tmp_path / "one.sqlite", from_rank=rank, to_rank=rank + 1)
    assert summary.loops == 1 and summary.best_deal is None
    assert summary.as_dict()["best_deal"] is None and "no finished game" in summary.text()
