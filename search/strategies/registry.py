"""The search strategies by name: what each does and which run options it uses.

The one list the command line, the run options, the driver and the compiled loop
(search/strategies/cpu.py) read. Plain Python, so `bmn --help` lists strategies without compiling.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Strategy:
    """One strategy: what it does, and which run options it uses."""

    description: str
    patience: bool = False  # restarts after --patience deals without an improvement
    history: bool = False  # keeps a late-acceptance history of --history scores


STRATEGIES = {
    "walk": Strategy("one-swap random walk (default: measured fastest to the far tail)"),
    "random": Strategy("random restart: a fresh shuffle for every deal"),
    "climb": Strategy(
        "hill climbing with restarts (swap or move a card; sideways moves accepted)",
        patience=True,
    ),
    "lahc": Strategy("late-acceptance hill climbing (history of --history scores)", history=True),
}
DEFAULT_STRATEGY = "walk"
DEFAULT_PATIENCE = 20_000
DEFAULT_HISTORY = 30_000


def history_length(strategy: str, history: int) -> int:
    """The late-acceptance history a new worker keeps: `history` scores for a strategy that
    uses one, else 1 (an unused slot)."""
    return max(history, 1) if STRATEGIES[strategy].history else 1


def strategy_help() -> str:
    """One line naming every strategy and what it does, for --strategy's help."""
    return "; ".join(f"{name}: {s.description}" for name, s in STRATEGIES.items()) + "."


def uses(strategy: str, option: str) -> bool:
    """Whether a strategy reads a run option ('patience' or 'history')."""
    return getattr(STRATEGIES[strategy], option)
