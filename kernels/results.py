"""Per-deal results of a batch as numpy arrays: what every batch kernel writes into.

Field by field these are the reference engine's `Result` (kernels/reference.py), with status as
its code from kernels/config.py and -1 where the reference has None.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from bmn.kernels import reference
from bmn.kernels.config import STATUS_CODES, STATUS_NAMES


@dataclass
class Scores:
    """Per-deal results as numpy arrays; loop fields are -1 unless the status is loop."""

    cards: np.ndarray  # int64
    tricks: np.ndarray  # int64
    status: np.ndarray  # uint8: config.FINISHED, LOOP or LIMIT
    winner: np.ndarray  # int8: the winning seat, -1 for a loop (or a limit with a tie)
    loop_start_cards: np.ndarray  # int64, as the four below
    loop_start_tricks: np.ndarray
    period_cards: np.ndarray
    period_tricks: np.ndarray

    @classmethod
    def empty(cls, n: int) -> Scores:
        longs = [np.full(n, -1, dtype=np.int64) for _ in range(6)]
        status = np.zeros(n, dtype=np.uint8)
        winner = np.full(n, -1, dtype=np.int8)
        cards, tricks, *loops = longs
        return cls(cards, tricks, status, winner, *loops)

    def __len__(self) -> int:
        return len(self.cards)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """Every field's array in field order, as compiled kernels take them."""
        return tuple(getattr(self, f.name) for f in fields(self))

    def take(self, rows: np.ndarray, part: Scores) -> None:
        """Copy `part`'s results into slots `rows` (part[k] goes to rows[k])."""
        for mine, theirs in zip(self.arrays(), part.arrays(), strict=True):
            mine[rows] = theirs

    def result(self, i: int) -> reference.Result:
        """Deal i's result in the reference engine's own form."""
        status = STATUS_NAMES[int(self.status[i])]
        loop = [int(a[i]) for a in self.loop_arrays()] if status == "loop" else [None] * 4
        winner = int(self.winner[i])
        return reference.Result(
            status, int(self.cards[i]), int(self.tricks[i]), None if winner < 0 else winner, *loop
        )

    def as_dict(self, i: int) -> dict:
        """Deal i's result, exactly as `reference.play(deal).as_dict()` gives it."""
        return self.result(i).as_dict()

    def loop_arrays(self) -> tuple[np.ndarray, ...]:
        return self.loop_start_cards, self.loop_start_tricks, self.period_cards, self.period_tricks

    def set_from(self, i: int, result: reference.Result) -> None:
        """Store a reference engine result as deal i."""
        self.status[i] = STATUS_CODES[result.status]
        self.cards[i] = result.cards
        self.tricks[i] = result.tricks
        self.winner[i] = -1 if result.winner is None else result.winner
        if result.status == "loop":
            self.loop_start_cards[i] = result.loop_start_cards
            self.loop_start_tricks[i] = result.loop_start_tricks
            self.period_cards[i] = result.period_cards
            self.period_tricks[i] = result.period_tricks
