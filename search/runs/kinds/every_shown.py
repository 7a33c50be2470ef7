"""What an enumeration (`bmn search --strategy every`, every_base.py) shows: its live
progress while it runs, and its summary when it stops."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.records.store import DEFAULT_PATH
from bmn.search.runs.progress import RunProgress
from bmn.search.runs.said import resume_command, rules_option, store_option
from bmn.search.words import counted, duration


def span(seconds: float) -> str:
    """A length of time that may run to years: '3m05s', '4.2 days', '1.3e9 years'."""
    days = seconds / 86400
    if days < 1:
        return duration(seconds)
    if days < 365:
        return f"{days:,.1f} days"
    years = days / 365.25
    return f"{years:,.1f} years" if years < 1e6 else f"{years:.2g} years"


@dataclass
class EveryProgress(RunProgress):
    """What the display shows; updated after every commit."""

    deck: str = ""
    sizes: str = ""
    ranks: int = 0  # in the range
    # The longest finished game (not named best_*: the odds of random deals do not apply)
    longest_cards: int = -1
    longest_tricks: int = -1
    longest_deal: str = ""
    loops: int = 0
    cycles: int = 0
    seat_blind: int = 0
    finds: int = 0

    command = "bmn search --strategy every"

    def setting(self) -> str:
        return f"every deal of {self.deck}, hands {self.sizes}, {counted(self.workers, 'stream')}"

    def rows(self) -> list[tuple[str, str]]:
        return [
            *self.opening_rows(("enumeration", self.setting())),
            ("deals", f"{self.games:,} of {self.ranks:,}"),
            ("deals/s", f"{self.rate:,.0f}"),
            ("best", self.best_text(", ")),
            ("best deal", self.longest_deal),
            (
                "loops",
                f"{counted(self.loops, 'looping deal')}, {counted(self.cycles, 'cycle')} "
                f"({self.seat_blind} seat-blind)",
            ),  # fmt: skip
            ("kept finds", f"{self.finds:,}"),
        ]

    def left(self) -> str:
        """The time left, in days or years where an enumeration takes them."""
        return "-" if self.remaining is None else span(self.remaining)

    def line(self) -> str:
        share = "" if self.done is None else f"{self.done:.1%}, "
        return (
            f"run {self.run}: {share}{duration(self.seconds)} elapsed, {self.left()} left,"
            f" {self.games:,} of {counted(self.ranks, 'deal')}, {self.rate:,.0f} deals/s, best"
            f" {self.best_text()}, {counted(self.loops, 'loop')}"
        )

    def best_text(self, between: str = " ") -> str:
        """The longest finished game so far in words ('none yet' before one)."""
        if self.longest_cards < 0:
            return "none yet"
        return f"{self.longest_cards:,} cards{between}{self.longest_tricks:,} tricks"


@dataclass
class EverySummary:
    """What an enumeration prints when it stops."""

    run: int
    status: str
    deck: str
    hand_sizes: list[int]
    from_rank: int
    to_rank: int
    deals: int  # visited
    complete: bool  # every rank of the range visited
    best_deal: str | None  # None (and None figures) when no deal finished
    best_cards: int | None
    best_tricks: int | None
    best_rank: int | None
    loops: int  # looping deals
    cycles: int  # distinct cycles by key (--objective loop)
    seat_blind_cycles: int
    new_cycles: int
    finds: int
    seconds: float
    whole_range_seconds: float | None  # at this session's rate
    store: str = DEFAULT_PATH
    rules: str = DEFAULT_RULES  # the rule set it played (kernels/rules/sets.py)

    def as_dict(self) -> dict:
        return asdict(self)

    def text(self) -> str:
        sizes = "/".join(map(str, self.hand_sizes))
        done = (
            "every deal"
            if self.complete
            else f"{self.deals:,} of {self.to_rank - self.from_rank:,} deals"
        )
        lines = [
            f"run {self.run} ({self.status}): {done} of deck {self.deck}, hands {sizes}, ranks"
            f" {self.from_rank:,} to {self.to_rank - 1:,}, in {self.seconds:,.1f} s"
            + ("" if self.rules == DEFAULT_RULES else f"; rules {self.rules}"),
            f"longest finished game: {self.best_cards:,} cards, {self.best_tricks:,} tricks,"
            f" rank {self.best_rank:,}:\n  {self.best_deal}"
            if self.best_deal
            else "no finished game",
            f"{counted(self.loops, 'looping deal')}; {counted(self.finds, 'find')} kept",
        ]
        if self.cycles:
            lines[-1] += (
                f"; {counted(self.cycles, 'distinct cycle')} ({self.seat_blind_cycles:,}"
                f" seat-blind, {self.new_cycles:,} new to the store); list them with:\n"
                f"  bmn records loops{rules_option(self.rules)}{store_option(self.store)}"
            )
        if self.status == "stopped":
            lines.append(
                f"stopped at its --time or --iterations; resume goes on from the next rank:\n"
                f"  {resume_command(self.run, self.store)}"
            )
        return "\n".join(lines)
