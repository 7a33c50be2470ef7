"""`search(on_progress=...)` hands each call its own copy of that moment's progress: the run
goes on updating its own object, so progress kept in a list must still hold every moment's
figures, not the last one's seven times (issue 35)."""

from __future__ import annotations

from bmn.search import api
from bmn.search.runs.kinds.longest_base import LongestProgress


class Commits:
    """A run that commits three times, updating one progress object in place (as the run
    loop does), and calls the progress callback after each commit."""

    def run(self, job: object, update) -> str:
        progress = LongestProgress(7, strategy="walk", workers=2, seed=3)
        for games in (1_000, 2_000, 3_000):
            progress.games, progress.seconds, progress.best_cards = games, games / 1000, games
            progress.notes.append(f"note {games}")
            update(progress)
        return "summary"


def test_each_progress_handed_over_stays_as_it_was():
    kept: list[LongestProgress] = []
    assert api._run(Commits(), None, kept.append, display=False) == "summary"
    assert [p.games for p in kept] == [1_000, 2_000, 3_000]
    assert [p.seconds for p in kept] == [1.0, 2.0, 3.0]
    assert [p.best_cards for p in kept] == [1_000, 2_000, 3_000]
    assert [len(p.notes) for p in kept] == [1, 2, 3]  # a list in it is copied too
    assert all(p.run == 7 and isinstance(p, LongestProgress) for p in kept)
