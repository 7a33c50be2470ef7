"""What every run's display shows (a kind's progress subclasses it), and what the displays of
the runs that find cycles share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from bmn.records.store import DEFAULT_PATH
from bmn.search.runs.said import Resume, Words
from bmn.search.words import counted, duration

if TYPE_CHECKING:
    from bmn.search.measure.odds import Odds


@dataclass
class RunProgress:
    """What every run's display shows; the run loop updates it after every commit."""

    command: ClassVar[str] = "bmn search"  # what starts a run of the kind: its title's words
    run: int
    games: int = 0
    seconds: float = 0.0
    rate: float = 0.0
    remaining: float | None = None
    done: float | None = None  # the share of the run's --time or --iterations used, 0 to 1
    store: str = DEFAULT_PATH
    strategy: str = ""
    workers: int = 0
    seed: int = 0
    # Warnings, for the display to show once: text, or Words (said.py) where they name settings.
    notes: list[str | Words] = field(default_factory=list)
    backend: str = ""  # where the chunks run: workers, threads, a dashboard link
    # While the run starts (its kernels compiled or loaded): the seconds so far; None once it runs.
    starting: float | None = None
    compiling: bool = False  # the start compiles kernels here (a first run on this machine)
    compile_seconds: float | None = None  # about how long a first compile takes (measured)
    resumed: str = ""  # a resumed run: what it had done before this session, in words
    kernel: str = ""  # the CPU kernels that play its games on threads here, in words; '' else

    def heading(self) -> str:
        """The title, and for a resumed run what it had done before."""
        return f"{self.title()}, resuming {self.resumed}" if self.resumed else self.title()

    def starting_text(self) -> str:
        """What the start is doing, with the time so far (after the first second)."""
        starting = self.starting or 0.0
        so_far = f" ({duration(starting)} so far)" if starting >= 1.0 else ""
        if not self.compiling:
            return f"starting the workers{so_far}"
        about = f": about {self.compile_seconds:.0f} s" if self.compile_seconds else ""
        return f"compiling the kernels for this machine, once{about}{so_far}"

    def setting(self) -> str:
        """How the run searches, in a few words."""
        return f"{self.strategy}, {counted(self.workers, 'worker')}, seed {self.seed}"

    def hint(self) -> Words:
        """How to stop and resume the run, the resume in each front end's words (said.py)."""
        return Words("Ctrl-C checkpoints and stops; resume with: ", Resume(self.run, self.store))

    def header(self) -> Words:
        """The first log line: what every later line leaves out."""
        on = f", on {self.backend}" if self.backend else ""
        on += f", kernels: {self.kernel}" if self.kernel else ""
        return Words(f"{self.heading()}: {self.setting()}, store {self.store}{on}. ", self.hint())

    def title(self) -> str:
        return f"{self.command}, run {self.run}"

    def opening_rows(self, setting: tuple[str, str], backend: bool = True) -> list[tuple[str, str]]:
        """The rows a run's display opens with: its store, how it searches (`setting`: the
        row's name and words), where its chunks run (unless not `backend`) and its time."""
        rows = [("store", self.store), setting]
        rows += [("backend", self.backend)] if backend else []
        rows += [("kernels", self.kernel)] if self.kernel else []
        return rows + [("elapsed", duration(self.seconds)), ("remaining", self.left())]

    def left(self) -> str:
        """The time left in words ('-' until it is known)."""
        return duration(self.remaining)

    def line_opening(self, noun: str) -> str:
        """A log line's first words: 'run 3: 42%, 1m05s elapsed, 1m30s left, 1,234 games'."""
        return f"run {self.run}: {self.clock()}, {counted(self.games, noun)}"

    def odds(self) -> Odds | None:
        """The odds of a longer game than the run's best, where the run has them (None here:
        only a longest-game run of the standard deck does)."""
        return None

    def clock(self) -> str:
        """Where the run stands in time, for log lines: '42%, 1m05s elapsed, 1m30s left' (the
        time left once it is known)."""
        share = "" if self.done is None else f"{self.done:.0%}, "
        left = "" if self.remaining is None else f", {duration(self.remaining)} left"
        return f"{share}{duration(self.seconds)} elapsed{left}"


def cpu_kernels(backend: str) -> str:
    """The CPU kernels that play a run's games on threads of this process (kernels/cpu/
    choice.py), in words: 'lanes, 8 games a step (znver4, 512-bit vectors)'; '' on another
    backend, whose machines choose for themselves."""
    if backend != "threads":
        return ""
    from bmn.kernels.cpu.choice import chosen

    return chosen().words()


@dataclass
class CyclesProgress(RunProgress):
    """What the display of a run that finds cycles shows besides (a loop hunt, grow, true
    cycles): how many it found, and how many of them are new to the store."""

    cycles: int = 0
    new_cycles: int = 0  # of them, new to the store

    def cycles_row(self) -> tuple[str, str]:
        return ("cycles", self.found(str(self.cycles)))

    def found(self, cycles: str) -> str:
        """'12 cycles (3 new to the store)', of `cycles` in the kind's words."""
        return f"{cycles} ({self.new_cycles} new to the store)"


def starts_too(update: Callable) -> Callable:
    """Mark a progress callback as one that takes the start's updates too (a progress whose
    `starting` is set, several a second while the kernels compile or load); an unmarked
    callback is called after every commit only, as the library promises."""
    update.starts_too = True  # type: ignore[attr-defined]
    return update


def takes_start(update: Callable) -> bool:
    """Whether a progress callback was marked with `starts_too` (a bound method's too)."""
    return bool(getattr(update, "starts_too", False))
