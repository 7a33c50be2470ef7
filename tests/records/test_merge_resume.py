"""A run left unfinished on one machine, merged into a store that holds another run already
(so that its number there is not its number in its source) and resumed there with `bmn search
--resume`, ends as the same search run without a break ends: the same finds (deal, cards,
tricks, status), games counted and best. Nothing here hangs on the machine's speed: an
enumeration's slice is cut by --iterations, and a search stops at its first commit, of a chunk
of a fixed size, with the rest of its games still to play."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bmn.records.store import Store
from bmn.search.runs.kinds import longest
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.loop import RunLoop

DECK = "6,2,1,1,0"  # 2,520 deals, 14 of them loop (2 cycles): every deal a find
EVERY = ("--strategy", "every", "--deck", DECK, "--objective", "loop", "--keep-above", 0)
SEARCH = dict(strategy="walk", iterations=200_000, workers=2, seed=5, keep_above=1500)
CHUNK = 10_000  # games a search chunk: the first commit leaves most of the run to play


def on(machine: str, folder: Path) -> dict[str, str]:
    """The environment of a user on `machine`: its own HOME and host name (test_merge.py)."""
    home = folder / machine
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "BMN_HOST": machine}


def outcome(path: Path, run_id: int) -> tuple:
    """What a run ends with: its status, games and best, and its finds (rows and bulk alike)."""
    with Store(path, create=False, read_only=True) as db:
        run = db.get_run(run_id)
        finds = sorted((f.deal, f.cards, f.tricks, f.status) for f in db.run_finds(run_id))
    return (run.status, run.games, run.best_deal, run.best_cards, run.best_tricks), finds


def merged_and_resumed(bmn, folder: Path, whole: Path, part: Path) -> Path:
    """`whole` and then `part` (its run 1 unfinished) merged into a new store, there runs 1 and
    2, and run 2 resumed there, on a third machine, to its end."""
    target = folder / "all.sqlite"
    merged = bmn("records", "merge", whole, part, "--store", target)
    assert merged.exit_code == 0, merged.output
    with Store(target, create=False, read_only=True) as db:
        runs = db.runs()
    assert [(r.id, Path(r.origin_store).name, r.origin_run) for r in runs] == [
        (1, whole.name, 1),
        (2, part.name, 1),
    ]
    assert runs[1].status != "finished"
    resumed = bmn(
        "search", "--resume", 2, "--quiet", "--json", "--store", target,
        env=on("server", folder),
    )  # fmt: skip
    assert resumed.exit_code == 0, resumed.output
    summary = json.loads(resumed.stdout)
    assert (summary["run"], summary["status"]) == (2, "finished")
    with Store(target, create=False, read_only=True) as db:
        assert [(r.id, r.status) for r in db.runs()] == [(1, "finished"), (2, "finished")]
    # The source merged again, behind the resumed run: it takes nothing back.
    again = bmn("records", "merge", part, "--store", target)
    assert again.exit_code == 0, again.output
    assert "runs 0 new, 1 here; finds 0 new, " in again.stdout
    return target


def test_an_enumeration_slice_merged_and_resumed_ends_as_the_whole_enumeration(bmn, tmp_path):
    whole, part = tmp_path / "laptop.sqlite", tmp_path / "desktop.sqlite"
    done = bmn(
        "search", *EVERY, "--workers", 2, "--quiet", "--store", whole, env=on("laptop", tmp_path)
    )
    assert done.exit_code == 0, done.output
    # A slice of --iterations deals ends 'stopped': resumable, the rest of the ranks to visit.
    cut = bmn(
        "search", *EVERY, "--workers", 2, "--iterations", 2000, "--quiet", "--store", part,
        env=on("desktop", tmp_path),
    )  # fmt: skip
    assert cut.exit_code == 0, cut.output
    assert outcome(part, 1)[0][:2] == ("stopped", 2000)
    expected = outcome(whole, 1)
    assert expected[0][:2] == ("finished", 2520) and len(expected[1]) == 2520
    assert {status for *_, status in expected[1]} == {"finished", "loop"}

    target = merged_and_resumed(bmn, tmp_path, whole, part)
    assert outcome(target, 2) == expected
    assert outcome(target, 1) == expected  # the other run, untouched
    # Each cycle is counted once for each run that saw it: run 2's sightings before the merge
    # came with it, those after were added by the resume.
    with (
        Store(whole, create=False, read_only=True) as a,
        Store(target, create=False, read_only=True) as t,
    ):
        assert {r.key: 2 * r.times_seen for r in a.loops()} == {
            r.key: r.times_seen for r in t.loops()
        }


@pytest.fixture
def fixed_chunks(monkeypatch):
    """Search chunks of CHUNK games (the last of a stream's quota less), a commit after each,
    however fast the machine: the first commit, and so a stop at it, leaves the run unfinished.
    The games a chunk holds do not change what a run finds (test_reproducible.py). Gives the
    sizes of the chunks handed out, in order."""
    sizes: list[int] = []

    def size(rate, left, deadline, ahead=0.0):
        sizes.append(CHUNK if left is None else max(min(CHUNK, left), 0))
        return sizes[-1]

    monkeypatch.setattr(longest, "chunk_size", size)
    monkeypatch.setattr(longest, "COMMIT_SECONDS", 0.0)
    return sizes


def test_a_search_interrupted_merged_and_resumed_ends_as_the_search_run_in_one_go(
    bmn, tmp_path, monkeypatch, fixed_chunks
):
    whole, part = tmp_path / "laptop.sqlite", tmp_path / "desktop.sqlite"
    args = [f"--{name.replace('_', '-')}" for name in SEARCH]
    args = [str(a) for pair in zip(args, SEARCH.values(), strict=True) for a in pair]
    done = bmn("search", *args, "--quiet", "--store", whole, env=on("laptop", tmp_path))
    assert done.exit_code == 0, done.output
    # Stopped at its first commit as Ctrl-C stops it: interrupted, checkpointed, resumable.
    monkeypatch.setenv("BMN_HOST", "desktop")
    with Store(part) as db:
        job = RunLoop(db, LongestJob, LongestOptions(**SEARCH))
        stopped = job.run(lambda progress: job.stop.set())
        params = db.get_run(1).params
    with Store(whole, create=False, read_only=True) as db:
        assert params == db.get_run(1).params  # the same search as the command line's
    assert stopped.status == "interrupted" and 0 < stopped.games < SEARCH["iterations"]
    expected = outcome(whole, 1)
    assert expected[0][:2] == ("finished", SEARCH["iterations"]) and expected[1]

    fixed_chunks.clear()
    target = merged_and_resumed(bmn, tmp_path, whole, part)
    assert outcome(target, 2) == expected
    assert outcome(target, 1) == expected
    # It went on from its checkpoints: the resume played the games left, not the run again
    # (which would store the same finds: a stream started over replays its chunks exactly).
    assert sum(fixed_chunks) == SEARCH["iterations"] - stopped.games
