"""The search strategies by name: what each does and which run options it uses.

The one list the command line, the run options, the run handler and the compiled loop
(search/strategies/cpu.py) read. Plain Python, so `bmn --help` lists strategies without compiling.
STRATEGIES are the compiled search loop's (their order is its codes); CHOICES adds those
that are a kind of run of their own (the enumeration of every deal, search/runs/kinds/every.py).
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
# Strategies that are a kind of run of their own, chosen by name (search/runs/registry.py).
ENUMERATION = "every"
CHOICES = {
    **STRATEGIES,
    ENUMERATION: Strategy(
        "every deal of --deck in rank order, or ranks --from-rank to --to-rank - 1"
        " (docs/searching.md, 'Every deal of a deck')",
    ),
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
    return "; ".join(f"{name}: {s.description}" for name, s in CHOICES.items()) + "."


def uses(strategy: str, option: str) -> bool:
    """Whether a strategy reads a run option ('patience', 'history'). Every strategy takes
    --deck and --hand-sizes (search/runs/registry.py)."""
    return getattr(CHOICES[strategy], option)
