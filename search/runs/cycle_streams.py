"""What the runs that grow cycles share (grow.py's two-seat pieces, true_cycles.py's true
cycles): one stream per worker whose state is a JSON object counting its `chunks`, the cycles
met since the last commit waiting under their keys, and one save that commits those cycles,
every stream's state (one checkpoint) and the run's totals in one transaction."""

from __future__ import annotations

import json
from typing import Any

from bmn.records.store import Loop
from bmn.search.runs.job import Job, RunContext

COMMIT_SECONDS = 2.0  # how often new cycles and every stream's state are committed


class CycleStreamsJob(Job):
    """A run of cycle-growing streams; a kind adds its work, its restore and `_tally`, which
    brings a progress up to date after each save."""

    def __init__(self, run: RunContext, options: Any):
        super().__init__(run, options)
        self.states: list[dict] = []
        self.pending: dict[str, list] = {}  # key -> [Loop, times seen] to commit
        self.new_cycles = 0  # cycles this run stored first

    @property
    def streams(self) -> int:
        return len(self.states)

    @property
    def games(self) -> int:
        return sum(s["chunks"] for s in self.states)

    def commit_seconds(self) -> float:
        return COMMIT_SECONDS

    def stream_games(self, stream: int) -> int:
        return self.states[stream]["chunks"]

    def stream_state(self, stream: int) -> dict:
        return self.states[stream]

    def count(self, key: str, record: Loop) -> None:
        """One more meeting with the cycle `key`, to be committed with the next save."""
        self.pending.setdefault(key, [record, 0])[1] += 1

    def save(self, seconds: float) -> None:
        """The cycles met, every stream's state and the run's totals, in one transaction."""
        loops = [(record, seen) for record, seen in self.pending.values()]
        self.pending = {}
        self.new_cycles += self.store.save_loop_progress(
            self.run_id,
            loops,
            (0, json.dumps({"streams": self.states}).encode(), self.games, seconds),
            {"games": self.games, "seconds": seconds},
            holder=self.holder,
        )
        self._tally(self.progress)

    def _tally(self, progress: Any) -> None:
        raise NotImplementedError
