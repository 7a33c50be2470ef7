"""What the longest-game runs on the CPU (longest.py) and on a GPU (longest_cuda.py) share.

Both are a job of the run loop (loop.py, job.py) over search streams that each score a share of
--iterations and keep their best deal: chunks sized to about a second of work and never past a
stream's quota or the deadline, the run's best kept with the run (a rise of it is an
improvement), the finds of the chunks committed with their checkpoints in one transaction
(short ones in bulk), and the same summary. Each run says only what is its own: its streams'
states, how a chunk is played, and where its best deal is.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

import numpy as np

from bmn.kernels.decks import even_sizes
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.kernels.rules.sets import rule_set
from bmn.records.store import Find
from bmn.records.store.bulk import Bulk
from bmn.search.measure.odds import Odds, run_odds
from bmn.search.measure.odds_words import odds_line
from bmn.search.runs.chunks import split_finds, stream_quota
from bmn.search.runs.job import Job, RunContext, RunOptions
from bmn.search.runs.progress import RunProgress
from bmn.search.words import counted, ordinal

# Finds stored a row each that make a commit due at once: a transaction of more costs more per
# find (measured: 25 us a find at 10,000 a transaction, 45 at 90,000), and a stop or a
# deadline waits for it.
COMMIT_FINDS = 8192


@dataclass
class LongestProgress(RunProgress):
    """What the display shows; updated after every chunk committed."""

    objective: str = "cards"
    best_cards: int = -1
    best_tricks: int = -1
    best_deal: str = ""
    improvements: int = 0  # rises of the run's best
    finds: int = 0  # the run's finds in the store
    players: int = 2  # whose table the best is held against
    deck: str = ""  # a deck other than the standard one dealt evenly, in words; '': standard
    rules: str = ""  # a rule set that plays these seats unlike bmn's; '': bmn's (or alike)
    # The odds last computed, and the figures they were computed for (odds()).
    _odds: tuple[tuple, Odds | None] | None = field(default=None, repr=False, compare=False)

    def odds(self) -> Odds | None:
        """The odds of the best and the next milestones against random deals' fitted tail
        (bmn.search.measure.odds), once per change of the figures: the display and the
        summary read the same. None off the standard deck dealt evenly (random deals are no
        yardstick there) and before the run has a best."""
        if not self.standard:
            return None
        figures = (self.objective, self.players, self.best_cards, self.best_tricks)
        figures += (self.games, self.rate)
        if self._odds is None or self._odds[0] != figures:
            self._odds = (figures, run_odds(*figures))
        return self._odds[1]

    @property
    def standard(self) -> bool:
        """Whether the run searches the standard deck dealt evenly under bmn's rules (the
        display's odds and record rows are about those games only)."""
        return not self.deck and not self.rules

    def setting(self) -> str:
        setting = super().setting()
        if self.players != 2:  # the seat count, as the loop hunt's row gives it
            setting += f", {self.players} seats"
        setting = setting if not self.deck else f"{setting}, deck of {self.deck}"
        return setting if not self.rules else f"{setting}, {self.rules}'s rules"

    def standing(self) -> Standing | None:
        """Where the best stands against the published games (none off the standard deck
        or under other rules)."""
        if self.best_cards < 0 or not self.standard:
            return None
        return standing(self.best_cards, self.best_tricks, self.objective, self.players)

    def rows(self) -> list[tuple[str, str]]:
        rows = [
            *self.opening_rows(("strategy", self.setting())),
            ("games", f"{self.games:,}"),
            ("games/s", f"{self.rate:,.0f}"),
            ("best", self.best_text(", ")),
        ]
        where = self.standing()
        if where is not None:
            rows += [("record", where.against_record()), ("rank", where.rank)]
        return rows + [
            ("best deal", self.best_deal),
            ("improvements", f"{self.improvements:,}"),
            ("kept finds", f"{self.finds:,}"),
        ]

    def best_text(self, between: str = " ") -> str:
        """The run's best so far in words ('none yet' before a game is played)."""
        if self.best_cards < 0:
            return "none yet"
        return f"{self.best_cards:,} cards{between}{self.best_tricks:,} tricks"

    def line(self) -> str:
        best = f"best {self.best_text()}"
        where = self.standing()
        if where is not None:
            best += f" ({where.share:.0%} of the record; {where.rank})"
        return (
            f"{self.line_opening('game')}, {self.rate:,.0f} games/s, {best}, "
            f"{counted(self.improvements, 'improvement')}, "
            f"{self.finds:,} kept"
        )


@functools.cache
def _ranking(objective: str, players: int = 2) -> tuple[tuple[int, str], ...]:
    """The published games that finish, as (score, name), best first (3 and 4 players:
    bmn's own table)."""
    from bmn.records.report import published_ranking

    column = "tricks" if objective == "tricks" else "cards"
    scored = [(getattr(game, column), game.name) for game in published_ranking(players)]
    return tuple(sorted(scored, key=lambda item: -item[0]))


@dataclass(frozen=True)
class Standing:
    """A best deal against the record of its objective and among the published games that
    finish (the longest first)."""

    share: float  # of the record
    record: int
    unit: str  # cards or tricks
    holder: str  # the record's name
    rank: str  # in words

    def against_record(self) -> str:
        return f"{self.share:.0%} of the record, {self.record:,} {self.unit} ({self.holder})"


def standing(cards: int, tricks: int, objective: str, players: int = 2) -> Standing | None:
    """Where a best deal stands: against the record of its objective, and among the published
    games ('shorter than all 9 published games, the shortest 4,791 cards'); 3 and 4 players
    among bmn's own table. None when that table is empty."""
    unit = "tricks" if objective == "tricks" else "cards"
    score = tricks if unit == "tricks" else cards
    ranking = _ranking(unit, players)
    if not ranking:
        return None
    (top, name), n = ranking[0], len(ranking)
    games = "published games" if players == 2 else "games in bmn's table"
    longer = sum(published > score for published, _ in ranking)
    if longer == n:
        rank = f"shorter than all {n} {games}, the shortest {ranking[-1][0]:,} {unit}"
    elif longer == 0:
        rank = "level with the record" if score == top else "longer than the record: a new record"
    else:
        place = ordinal(longer + 1)
        rank = f"longer than {n - longer} of the {n} {games}: it would be {place}"
    return Standing(score / top, top, unit, name, rank)


@dataclass
class LongestSummary:
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
    rules: str = DEFAULT_RULES  # the rule set it played (kernels/rules/sets.py)

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
        return text

    def _deck_text(self) -> str:
        """'; deck 14,2,2,2,0, hands 10/10' off the standard deck dealt evenly, and '; rules
        paulhus' under another rule set than bmn's; else ''."""
        sizes = self.hand_sizes or []
        rules = "" if self.rules == DEFAULT_RULES else f"; rules {self.rules}"
        if self.deck == "standard" and sizes == list(even_sizes(sum(sizes), len(sizes))):
            return rules
        return f"; deck {self.deck}, hands {'/'.join(map(str, sizes))}{rules}"


@dataclass(frozen=True)
class RunBest:
    """A run's best deal: its score by the run's objective, the deal and its figures (and its
    status, where the run knows it)."""

    score: int
    deal: str
    cards: int
    tricks: int
    status: str = "finished"


class LongestBase(Job):
    """A longest-game run: the CPU search and the GPU search are this, over streams of their
    own. Subclasses set `progress_type` and implement the hooks below the line."""

    progress_type: ClassVar[type]  # its display: longest.Progress or a subclass

    def __init__(self, run: RunContext, options: RunOptions):
        super().__init__(run, options)
        self._run_best = -1  # the best score stored with the run
        # absorbed, not yet committed: (stream, its games before the chunk, decks, meta)
        self._finds: list[tuple[int, int, np.ndarray, np.ndarray]] = []

    def quota(self, stream: int) -> int | None:
        """How many games search stream `stream` plays over the whole run (None: until time
        is up); the streams are the options' workers (CPU threads or GPU threads)."""
        return stream_quota(self.options.iterations, self.options.workers, stream)

    def chunk_size(self, stream: int, rate: float | None, planned: int, ahead: float) -> int:
        quota = self.quota(stream)
        left = None if quota is None else quota - planned
        return self._sized(rate, left, self.deadline(), ahead)

    def new_progress(self) -> Any:
        """A new run's progress, or a resumed one's: its best, finds and improvements so far."""
        p = self.progress_type(self.run_id, objective=self.options.objective, players=self.seats)
        alike = rule_set(self.options.rules).plays_as(self.seats) == DEFAULT_RULES
        p.rules = "" if alike else self.options.rules
        p.finds, p.improvements = self.store.run_tally(self.run_id, self.options.objective)
        best = self._best()
        if best is not None:
            p.best_deal, p.best_cards, p.best_tricks = best.deal, best.cards, best.tricks
        self._run_best = -1 if best is None else best.score  # committed with the run's best
        return p

    def save(self, seconds: float) -> None:
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

    def summary(self, status: str, seconds: float) -> LongestSummary:
        """The run's summary from its streams' states, naming its deck and hands; the odds of
        random deals only where it searches the deck they are measured on."""
        best, games, seed = self._best(), self.games, self.options.seed
        deck = {
            "deck": self._deck(),
            "hand_sizes": list(self._hand_sizes()),
            "rules": self.options.rules,
        }
        if best is None:
            return LongestSummary(self.run_id, status, "", -1, -1, games, seconds, seed, **deck)
        odds = self.progress.odds()  # what the display showed last: None off the standard deck
        return LongestSummary(
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
