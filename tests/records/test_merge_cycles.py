"""A cycle merged in keeps when it was first found, on the machine that found it: a cycle new to
the target takes its source's found_at, not the time of the merge, and one the target holds
already keeps the earlier of the two, with the run that found it then."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bmn.records import merge_stores
from bmn.records.store import Store

DECK = "6,2,1,1,0"  # 2,520 deals, 14 of them loop, into 2 cycles
# Earlier and later by the clock, whatever their text says: a stamp to the second (as older
# stores may hold) sorts after one to the millisecond of the same second.
FIRST = "2025-01-02T03:04:05.678Z"
EARLIER = "2025-01-02T03:04:05Z"
LATER = "2025-06-01T00:00:00.000Z"


def hunted(bmn, path: Path, found_at: str) -> Path:
    """A store whose one run found every cycle of DECK, each stamped `found_at`."""
    args = ("--strategy", "every", "--deck", DECK, "--objective", "loop", "--workers", 1)
    result = bmn("search", *args, "--quiet", "--store", path)
    assert result.exit_code == 0, result.output
    with sqlite3.connect(path) as conn:
        assert conn.execute("UPDATE loops SET found_at = ?", (found_at,)).rowcount == 2
    conn.close()
    return path


def cycles(path: Path) -> dict[str, tuple[str, int, int]]:
    """Each cycle's found_at, run and times seen, by key."""
    with Store(path, create=False, read_only=True) as db:
        return {row.key: (row.found_at, row.run, row.times_seen) for row in db.loops()}


def test_a_merged_cycle_keeps_when_it_was_first_found(bmn, tmp_path):
    first = hunted(bmn, tmp_path / "first.sqlite", FIRST)
    earlier = hunted(bmn, tmp_path / "earlier.sqlite", EARLIER)
    later = hunted(bmn, tmp_path / "later.sqlite", LATER)
    seen = {key: times for key, (_, _, times) in cycles(first).items()}
    target = tmp_path / "t.sqlite"

    merge_stores([first], target)  # new here: the source's time, not the merge's
    assert cycles(target) == {key: (FIRST, 1, times) for key, times in seen.items()}
    merge_stores([later], target)  # seen again, later: kept as it was, only counted
    assert cycles(target) == {key: (FIRST, 1, 2 * times) for key, times in seen.items()}
    merge_stores([earlier], target)  # seen again, earlier: its time, and its run (here 3)
    assert cycles(target) == {key: (EARLIER, 3, 3 * times) for key, times in seen.items()}
    merge_stores([first, later, earlier], target)  # nothing new: nothing changes
    assert cycles(target) == {key: (EARLIER, 3, 3 * times) for key, times in seen.items()}

    onward = tmp_path / "onward.sqlite"  # a merged store merged on keeps them too
    merge_stores([target], onward)
    assert cycles(onward) == cycles(target)
