"""The record store and the published records as a library: what `bmn.records` exports
(docs/library.md walks through it).

`open_store` opens a store to read: its runs, its longest finds, every find of a deal, every
find streamed oldest first, its cycles; each as a typed record (Run, FindRow, LoopRow, frozen
dataclasses with `as_dict()`). The published record games come back as PublishedGame and,
replayed by the reference engine, as Replayed. Reading needs nothing compiled.

>>> max(game.cards for game in published_games())
8344
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from bmn.kernels.deal import DealError, parse_deal
from bmn.records.published import FILES, PublishedGame, Replayed
from bmn.records.store import DEFAULT_PATH, FindRow, LoopRow, Run, RunHeld, RunNotFound, StoreError

if TYPE_CHECKING:
    from bmn.records.store import Store

__all__ = [
    "DEFAULT_PATH",
    "FindRow",
    "LoopRow",
    "PublishedGame",
    "Replayed",
    "Run",
    "RunHeld",
    "RunNotFound",
    "StoreError",
    "StoreReader",
    "open_store",
    "published_games",
    "replay_published",
]

RANKS = ("cards", "tricks")  # what `top` ranks by
STATUSES = ("finished", "loop")  # what a find's status is


class StoreReader:
    """A bmn record store opened to read (open_store makes one); close it, or use `with`.

    Every read is one snapshot of the store, so a search may write to it meanwhile.
    """

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_PATH):
        from bmn.records.store import Store

        self.path = Path(path)
        self._store: Store = Store(self.path, create=False, read_only=True)  # writes nothing

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> StoreReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def runs(self) -> list[Run]:
        """Every run, oldest first."""
        return self._store.runs()

    def run(self, run_id: int) -> Run:
        """One run by number; RunNotFound if the store holds none."""
        return self._store.get_run(self._run_id(run_id))

    def latest_run(self) -> Run | None:
        """The most recently started run; None in a store without runs."""
        return self._store.latest_run()

    def top(
        self,
        n: int = 10,
        *,
        by: str = "cards",
        seats: int | None = None,
        status: str | None = None,
        min_cards: int = 0,
    ) -> list[FindRow]:
        """The `n` longest distinct deals of every run, ranked `by` cards or tricks, as
        `bmn records top` lists them; only deals of `seats` seats, of `status` ('finished' or
        'loop'), of at least `min_cards` cards, if given."""
        if by not in RANKS:
            raise ValueError(f"rank by one of {', '.join(RANKS)}, not {by!r}")
        if status is not None and status not in STATUSES:
            raise ValueError(f"status is one of {', '.join(STATUSES)}, not {status!r}")
        if n < 0:
            raise ValueError(f"n must be at least 0, got {n}")
        return self._store.top(by, n, min_cards, status, seats)

    def finds_of(self, deal: str) -> list[FindRow]:
        """Every time a deal (in any notation bmn reads) was found, by any run, earliest
        first; DealError for a deal bmn cannot read."""
        parse_deal(deal)  # DealError naming what is wrong, before any query
        return self._store.finds_for(deal)

    def run_finds(self, run_id: int) -> list[FindRow]:
        """A run's finds in the order it found them; RunNotFound if there is no such run."""
        return self._store.run_finds(self._run_id(run_id))

    def all_finds(self, seats: int | None = None) -> Iterator[FindRow]:
        """Every find (of `seats` seats only, if given), oldest first, read a page at a time:
        a store of millions of finds streams."""
        return self._store.all_finds(seats=seats)

    def loops(self, run_id: int | None = None) -> list[LoopRow]:
        """Every cycle of a never-ending game the store holds (or those a run found first),
        in the order found."""
        return self._store.loops(None if run_id is None else self._run_id(run_id))

    def _run_id(self, run_id: int) -> int:
        """`run_id`, once the store is known to hold it."""
        if not any(run.id == run_id for run in self._store.runs()):
            raise RunNotFound(f"no run {run_id} in record store {self.path}")
        return int(run_id)


def open_store(path: str | os.PathLike[str] = DEFAULT_PATH) -> StoreReader:
    """Open a bmn record store to read. StoreError (one line saying why) for a missing file,
    a file that is not a bmn store, one from a newer bmn, or a damaged one.

    >>> open_store("no-such-store.sqlite")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bmn.records.store.errors.StoreError: no record store at no-such-store.sqlite; ...
    """
    return StoreReader(path)


def published_games(players: int = 2) -> list[PublishedGame]:
    """The published record games for `players` seats (2: the record games published since
    1999; 3 and 4: bmn's own longest finds), in the order found.

    >>> published_games(3)[0].hands[0][:6]
    '--A-JQ'
    """
    from bmn.records.published import published_games as table

    return table(_players(players))


def replay_published(players: int = 2) -> list[Replayed]:
    """Every published game beside what the reference engine gives for it (`matches`).

    >>> all(game.matches for game in replay_published())
    True
    """
    from bmn.records.published import replay_published as replay

    return replay(_players(players))


def _players(players: int) -> int:
    if players not in FILES:
        raise DealError(f"players must be {min(FILES)} to {max(FILES)}, got {players}")
    return players
