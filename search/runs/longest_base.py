"""What the longest-game runs on the CPU (longest.py) and on a GPU (longest_cuda.py) share.

Both are a run handler (handler.py) over search streams that each score a share of
--iterations and keep their best deal: chunks sized to about a second of work and never past a
stream's quota or the deadline, the run's best kept with the run (a rise of it is an
improvement), the finds of the chunks committed with their checkpoints in one transaction
(short ones in bulk), and the same summary. Each run says only what is its own: its streams'
states, how a chunk is played, and where its best deal is.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np

from bmn.kernels.config import FINISHED, STATUS_NAMES
from bmn.kernels.deal import deal_texts
from bmn.kernels.decks import even_sizes
from bmn.records.store import Find, Store
from bmn.records.store.bulk import Bulk, in_bulk
from bmn.search.backends.base import Backend
from bmn.search.measure.odds import Odds, run_odds
from bmn.search.output.odds import odds_line
from bmn.search.output.tables import fit_summary
from bmn.search.runs.handler import RunHandler, RunOptions
from bmn.search.words import counted


@dataclass
class Summary:
    """What a longest-game run prints when it stops: its best deal and its totals."""

    run: int
    status: str
    best_deal: str
    best_cards: int
    best_tricks: int
    games: int
    seconds: float
    seed: int
    odds: Odds | None = None  # the best against random deals' fitted tail (measure/odds.py)
    deck: str = "standard"  # the deck searched: 'standard' or counts N,J,Q,K,A
    hand_sizes: list[int] | None = None  # its hands, seat 0 first

    def as_dict(self) -> dict:
        fields = {**asdict(self), "odds": self.odds.as_dict() if self.odds else None}
        if self.best_cards < 0:  # stopped before a game was played: no best, and no sentinel
            fields.update(best_deal=None, best_cards=None, best_tricks=None)
        return fields

    def text(self) -> str:
        best = f"{self.best_cards:,} cards, {self.best_tricks:,} tricks:\n  {self.best_deal}"
        if self.best_cards < 0:
            best = "none, nothing was searched yet"
        text = (
            f"run {self.run} ({self.status}): {counted(self.games, 'game')} in "
            f"{self.seconds:,.1f} s; seed {self.seed}{self._deck_text()}\nbest: {best}"
        )
        text = text if self.odds is None else f"{text}\n{odds_line(self.odds)}"
        return fit_summary(text)  # the deal on its own line: never wrapped

    def _deck_text(self) -> str:
        """'; deck 14,2,2,2,0, hands 10/10' off the standard deck dealt evenly; else ''."""
        sizes = self.hand_sizes or []
        if self.deck == "standard" and sizes == list(even_sizes(sum(sizes), len(sizes))):
            return ""
        return f"; deck {self.deck}, hands {'/'.join(map(str, sizes))}"


@dataclass(frozen=True)
class RunBest:
    """A run's best deal: its score by the run's objective, the deal and its figures (and its
    status, where the run knows it)."""

    score: int
    deal: str
    cards: int
    tricks: int
    status: str = "finished"


def stream_quota(iterations: int | None, streams: int, stream: int) -> int | None:
    """How many games stream `stream` of `streams` plays over the whole run (None: until the
    time is up): an even share of the iterations, the first streams one more."""
    if iterations is None:
        return None
    share, extra = divmod(iterations, streams)
    return share + (stream < extra)


def stream_quotas(iterations: int | None, streams: int) -> np.ndarray | None:
    """Every stream's quota (stream_quota) as an array."""
    if iterations is None:
        return None
    share, extra = divmod(iterations, streams)
    return share + (np.arange(streams) < extra)


def sized_chunk(
    rate: float | None,
    left: int | None,
    deadline: float | None,
    ahead: float = 0.0,
    *,
    first: int,
    least: int,
    seconds: float,
) -> int:
    """Games for a stream's next chunk: about `seconds` of work at `rate` (`first` before the
    rate is known, at least `least`), never past the `left` of its quota nor the deadline
    (time.monotonic()); 0 once the time is up, and for a chunk queued behind `ahead` seconds of
    work that would start in the last `seconds`: the last chunk is sized when it starts, on
    the time left then, rather than on a guess of when the chunks ahead of it will end."""
    size = first if rate is None else max(least, int(rate * seconds))
    if deadline is not None:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or (ahead > 0 and remaining - ahead < seconds):
            return 0
        if rate is not None:
            size = min(size, int(rate * remaining) + 1)
    return size if left is None else max(min(size, left), 0)


def split_finds(
    parts: Sequence[tuple[int, int, np.ndarray, np.ndarray]], strategy: str,
    sizes: Sequence[int], seconds: float,
) -> tuple[list[Find], list[Bulk]]:  # fmt: skip
    """Finds of chunks, (stream, its games before the chunk, decks, rows of (cards, tricks,
    status)), as those stored one by one and the short ones in bulk, one bulk per chunk."""
    finds, bulks = [], []
    for stream, first, decks, meta in parts:
        bulky = in_bulk(meta, FINISHED)
        one = ~bulky
        texts = deal_texts(decks[one], sizes)
        finds += [
            Find(deal, c, t, STATUS_NAMES[s], strategy, seconds)
            for deal, (c, t, s) in zip(texts, meta[one].tolist(), strict=True)
        ]
        if one.any():
            decks, meta = decks[bulky], meta[bulky]
        bulks.append(Bulk(stream, first, seconds, tuple(sizes), decks, meta[:, :2]))
    return finds, bulks


class LongestRun(RunHandler):
    """A longest-game run: the CPU search and the GPU search are this, over streams of their
    own. Subclasses set `progress_type` and implement the hooks below the line."""

    progress_type: ClassVar[type]  # its display: longest.Progress or a subclass

    def __init__(
        self,
        store: Store,
        options: RunOptions,
        run_id: int | None = None,
        backend: Backend | None = None,
    ):
        self._run_best = -1  # the best score stored with the run
        # absorbed, not yet committed: (stream, its games before the chunk, decks, meta)
        self._finds: list[tuple[int, int, np.ndarray, np.ndarray]] = []
        super().__init__(store, options, run_id, backend)

    def quota(self, stream: int) -> int | None:
        """How many games search stream `stream` plays over the whole run (None: until time
        is up); the streams are the options' workers (CPU threads or GPU threads)."""
        return stream_quota(self.options.iterations, self.options.workers, stream)

    def _chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        quota = self.quota(stream)
        left = None if quota is None else quota - planned
        return self._sized(rate, left, self.deadline(), ahead)

    def _new_progress(self) -> Any:
        """A new run's progress, or a resumed one's: its best, finds and improvements so far."""
        p = self.progress_type(self.run_id, objective=self.options.objective, players=self.seats)
        p.finds, p.improvements = self.store.run_tally(self.run_id, self.options.objective)
        best = self._best()
        if best is not None:
            p.best_deal, p.best_cards, p.best_tricks = best.deal, best.cards, best.tricks
        self._run_best = -1 if best is None else best.score  # committed with the run's best
        return p

    def _save(self, seconds: float) -> None:
        """The chunks' checkpoints, their finds and the run's totals in one transaction; the
        run's best with them when it rose."""
        o = self.options
        finds, bulks = split_finds(self._finds, o.strategy, self._hand_sizes(), seconds)
        update: dict[str, Any] = {"games": self.games, "seconds": seconds}
        p, best = self.progress, self._best()
        if best is not None and best.score > self._run_best:
            p.improvements += self._run_best >= 0  # the run's first best is no improvement
            self._run_best = best.score
            finds += self._best_finds(best, seconds)
            update.update(best_deal=best.deal, best_cards=best.cards, best_tricks=best.tricks)
            p.best_deal, p.best_cards, p.best_tricks = best.deal, best.cards, best.tricks
        p.finds += self.store.save_progress(
            self.run_id, self._checkpoint_rows(seconds), finds, update, holder=self.holder,
            bulks=bulks,
        )  # fmt: skip
        self._finds = []
        self._committed(finds, bulks)

    def _summary(self, status: str, seconds: float) -> Summary:
        """The run's summary from its streams' states, naming its deck and hands; the odds of
        random deals only where it searches the deck they are measured on."""
        best, games, seed = self._best(), self.games, self.options.seed
        deck = {"deck": self._deck(), "hand_sizes": list(self._hand_sizes())}
        if best is None:
            return Summary(self.run_id, status, "", -1, -1, games, seconds, seed, **deck)
        o, rate = self.options, self.progress.rate
        odds = None
        if self._standard():
            odds = run_odds(o.objective, self.seats, best.cards, best.tricks, games, rate)
        return Summary(
            self.run_id, status, best.deal, best.cards, best.tricks, games, seconds, seed, odds,
            **deck,
        )  # fmt: skip

    # -- what each longest-game run says ---------------------------------------------------------

    @property
    def seats(self) -> int:
        """The seats at its table."""
        raise NotImplementedError

    def _sized(
        self, rate: float | None, left: int | None, deadline: float | None, ahead: float
    ) -> int:
        """sized_chunk with the run's own chunk lengths."""
        raise NotImplementedError

    def _hand_sizes(self) -> tuple[int, ...]:
        """The hand sizes of its deals."""
        raise NotImplementedError

    def _deck(self) -> str:
        """The deck it searches: 'standard' or counts N,J,Q,K,A."""
        return "standard"

    def _standard(self) -> bool:
        """Whether it searches the standard deck dealt evenly (the published games' deals)."""
        return True

    def _best(self) -> RunBest | None:
        """The best deal of any stream, as committed or absorbed; None before any game."""
        raise NotImplementedError

    def _best_finds(self, best: RunBest, seconds: float) -> list[Find]:
        """Finds to store with a new run best (none where its streams store it themselves)."""
        return []

    def _checkpoint_rows(self, seconds: float) -> list[tuple[int, bytes, int, float]]:
        """The checkpoints to commit: (stream, state, games, seconds)."""
        raise NotImplementedError

    def _committed(self, finds: list[Find], bulks: list[Bulk]) -> None:
        """Called after each commit with what it stored."""
