"""What the runs that grow cycles share (grow.py's two-seat pieces, true_cycles.py's true
cycles): one stream per worker whose state is a JSON object counting its `chunks`, the cycles
met since the last commit waiting under their keys, and one save that commits those cycles,
every stream's state (one checkpoint) and the run's totals in one transaction; the restore
that reads that checkpoint back, checked against the shape of a stream's state the kind
declares."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, ClassVar

from bmn.records.store import Loop
from bmn.records.store.saved import Shape, items, json_state, record
from bmn.search.runs.job import Job, RunContext

COMMIT_SECONDS = 2.0  # how often new cycles and every stream's state are committed


class CycleStreamsJob(Job):
    """A run of cycle-growing streams; a kind adds its work, the shape of a stream's state,
    its restore and `_tally`, which brings a progress up to date after each save."""

    stream_shape: ClassVar[Shape]  # one stream's state, as the kind's work returns it
    # One chunk (a round, a hunt) at a time per stream: a stop lands after the chunk under way.
    in_flight = 1

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

    def saved_streams(
        self, checkpoints: dict[int, tuple[bytes, int, float]], first: Callable[[Any], list[dict]]
    ) -> list[dict]:
        """Every stream's state from the run's one checkpoint, checked against the kind's
        `stream_shape` (StoreDamaged otherwise), or `first(options)`'s for a new run."""
        if 0 not in checkpoints:
            return first(self.options)
        shape = record(streams=items(self.stream_shape, self.options.workers))
        return json_state(checkpoints[0][0], shape)["streams"]

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
