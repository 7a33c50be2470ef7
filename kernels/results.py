"""A batch of deals and its results as numpy arrays: `Deals`, deals as the compiled kernels
take them, and `Scores`, per-deal results, what every batch kernel writes into.

Field by field these are the reference engine's `Result` (kernels/reference.py), with status as
its code from kernels/config.py and -1 where the reference has None.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from bmn.kernels import arguments, reference
from bmn.kernels.config import MAX_DEALS, STATUS_CODES, STATUS_NAMES
from bmn.kernels.deal import Deal, deal_texts, decode

if TYPE_CHECKING:
    import pandas


@dataclass(frozen=True)
class Deals:
    """Deals as the compiled kernels take them: `rows`, uint8 (N, W), each deal's hands
    concatenated in seat order (penalty values, zero padded), and `sizes`, int64 (N, S), each
    deal's hand sizes ((S,) is taken for every deal). Checked when made, as a deal given as
    text is. Indexed like a numpy array: an int gives one `Deal`; a slice, a boolean mask or
    an array of indices gives `Deals`.

    >>> from bmn.kernels.api import parse_deal, random_deals
    >>> deals = random_deals(5, seed=1)
    >>> deals[0] == parse_deal(deals.text(0)), len(deals[1:3]), len(deals[[4, 0]])
    (True, 2, 2)
    """

    rows: np.ndarray
    sizes: np.ndarray

    def __post_init__(self) -> None:
        rows, sizes = arguments.deal_rows(self.rows, self.sizes)
        object.__setattr__(self, "rows", rows)  # frozen: set once, here
        object.__setattr__(self, "sizes", sizes)

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, key: int | np.integer) -> Deal: ...
    @overload
    def __getitem__(self, key: slice | np.ndarray | Sequence[int] | Sequence[bool]) -> Deals: ...
    def __getitem__(self, key: Any) -> Deal | Deals:
        """Deal `key` (an int), or the deals `key` picks (as numpy picks rows)."""
        if arguments.is_whole(key):
            i = arguments.index(key, len(self))
            return decode(self.rows[i], self.sizes[i])
        if isinstance(key, tuple):  # rows[i, j] would cut hands apart
            raise IndexError("index Deals along the deals only: one index, not a tuple")
        arguments.index_keys(key, len(self))
        try:
            rows, sizes = self.rows[key], self.sizes[key]
        except (TypeError, ValueError):  # a ragged list: numpy's own words are no help here
            rows = np.empty(())
        if rows.ndim != 2:  # numpy took it as something else: a tuple, None
            raise IndexError(
                f"index Deals with an int, a slice, a mask or indices, not {arguments.shown(key)}"
            )
        return Deals(rows, sizes)

    def text(self, i: int) -> str:
        """Deal i in record notation, without formatting the others.

        >>> from bmn.kernels.api import random_deals
        >>> random_deals(1, seed=1).text(0) == random_deals(1, seed=1).texts()[0]
        True
        """
        if not arguments.is_whole(i):
            raise IndexError(f"Deals.text takes one deal's index, not {arguments.shown(i)}")
        i = arguments.index(i, len(self))
        return deal_texts(self.rows[i][None], tuple(int(n) for n in self.sizes[i]))[0]

    def texts(self) -> list[str]:
        """Every deal in record notation, hands joined by '/'.

        >>> from bmn.kernels.api import random_deals
        >>> random_deals(2, seed=1).texts()[0].count("/")
        1
        """
        if len(self) and (self.sizes == self.sizes[0]).all():  # one shape: all at once
            return deal_texts(self.rows, tuple(int(n) for n in self.sizes[0]))
        return [self.text(i) for i in range(len(self))]

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(row, hand sizes) of each deal."""
        return iter(zip(self.rows, self.sizes, strict=True))


@dataclass
class Scores:
    """Per-deal results as numpy arrays; loop fields are -1 unless the status is loop.

    Indexed like a numpy array: an int gives one deal's `Result`; a slice, a boolean mask or
    an array of indices gives `Scores` of those deals (views, as numpy gives).

    >>> from bmn.kernels.api import score_deals
    >>> scores = score_deals(["-J/Q-", "--K/J-/---", "-/J"])
    >>> scores[1].cards, len(scores[scores.cards > 3]), list(scores.to_dict())[:3]
    (10, 2, ['cards', 'tricks', 'status'])
    """

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
        """Room for n deals' results, before a kernel writes them."""
        from bmn.kernels.arguments import whole

        n = whole(n, "the number of deals", 0, MAX_DEALS)
        longs = [np.full(n, -1, dtype=np.int64) for _ in range(6)]
        status = np.zeros(n, dtype=np.uint8)
        winner = np.full(n, -1, dtype=np.int8)
        cards, tricks, *loops = longs
        return cls(cards, tricks, status, winner, *loops)

    def __len__(self) -> int:
        return len(self.cards)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """`np.asarray(scores)`: one record a deal, a field a column (`.cards`, `.status`,
        ...), not an array of Python objects."""
        names = [f.name for f in fields(self)]
        table = np.rec.fromarrays(self.arrays(), names=names)
        return table if dtype is None else table.astype(dtype)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """Every field's array in field order, as compiled kernels take them."""
        return tuple(getattr(self, f.name) for f in fields(self))

    @overload
    def __getitem__(self, key: int | np.integer) -> reference.Result: ...
    @overload
    def __getitem__(self, key: slice | np.ndarray | list) -> Scores: ...
    def __getitem__(self, key: Any) -> reference.Result | Scores:
        """Deal `key`'s result (an int), or the results `key` picks (as numpy picks)."""
        if _is_index(key):
            return self.result(key)
        if isinstance(key, tuple):
            raise IndexError("index Scores along the deals only: one index, not a tuple")
        _index_keys(key, len(self.cards))
        try:
            picked = [a[key] for a in self.arrays()]
        except (TypeError, ValueError):  # a ragged list: numpy's own words are no help here
            picked = [np.empty(())]
        if picked[0].ndim != 1:  # numpy took it as something else: None, a 2-d array
            key = _shown(key)
            raise IndexError(f"index Scores with an int, a slice, a mask or indices, not {key}")
        return Scores(*picked)

    def to_dict(self) -> dict[str, np.ndarray]:
        """Column name to array, field by field: a table's columns (pandas takes it as is)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_pandas(self) -> pandas.DataFrame:
        """The results as a pandas DataFrame, one row per deal, status as its name. ImportError
        (naming the install) where pandas is not installed: bmn does not need it."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Scores.to_pandas needs pandas: pip install pandas") from None
        table = pandas.DataFrame(self.to_dict())
        table["status"] = pandas.Categorical.from_codes(self.status, STATUS_NAMES)
        return table

    def _take(self, rows: np.ndarray, part: Scores) -> None:
        """Copy `part`'s results into slots `rows` (part[k] goes to rows[k])."""
        for mine, theirs in zip(self.arrays(), part.arrays(), strict=True):
            mine[rows] = theirs

    def result(self, i: int) -> reference.Result:
        """Deal i's result in the reference engine's own form (`scores[i]`)."""
        if not _is_index(i):
            raise IndexError(f"a deal's index is a whole number, not {_shown(i)}")
        i = _index(i, len(self.cards))
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

    def _set_from(self, i: int, result: reference.Result) -> None:
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


def _is_index(key: object) -> bool:
    return isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_))


def _index(key: object, length: int) -> int:
    from bmn.kernels.arguments import index

    return index(key, length)


def _index_keys(key: object, length: int) -> None:
    from bmn.kernels.arguments import index_keys

    index_keys(key, length)


def _shown(value: object) -> str:
    from bmn.kernels.arguments import shown

    return shown(value)
