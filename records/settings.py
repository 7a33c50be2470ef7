"""The settings of a stored run that records reads itself, checked before they are believed: the
deck (what `records top` and `compare` group finds by), the hand sizes, and an enumeration's
ranks (what `records coverage` adds up). `records merge` refuses a source run whose settings
fail these checks, and `records coverage` calls its store damaged, rather than either taking a
figure on faith; the other settings are read back, when a run is resumed, by the declarations
of its kind (bmn.search)."""

from __future__ import annotations

from typing import Any

from bmn.kernels.deal import DealError
from bmn.kernels.decks import MIXED, Counts, parse_deck
from bmn.records.store import Run
from bmn.records.store.runs import UNREADABLE
from bmn.records.store.values import shown


def settings_problem(run: Run) -> str | None:
    """What is wrong with the settings records reads of `run`, in a few words; None if
    nothing is."""
    params = run.params
    if UNREADABLE in params:
        return f"its settings are not JSON: {shown(params[UNREADABLE])}"
    try:
        counts = run_counts(run)
    except ValueError as err:
        return str(err)
    sizes = params.get("hand_sizes")
    if sizes is not None and len(sizes) != run.seats:
        return f"its hand sizes {shown(sizes)} deal {len(sizes)} seats, not its {run.seats}"
    if sizes is not None and counts is not None and sum(sizes) != sum(counts):
        return f"its hand sizes {shown(sizes)} add up to {sum(sizes)}, not its deck's {sum(counts)}"
    try:
        ranks(run)
    except ValueError as err:
        return str(err)
    return None


def run_counts(run: Run) -> Counts | None:
    """The deck a run dealt, as counts N,J,Q,K,A (None: the loop hunt's 'mixed' deck, a random
    sub-deck a batch); no deck setting is the standard deck. ValueError for a deck setting
    that is none of these."""
    deck = run.params.get("deck", "standard")
    if deck == MIXED:
        return None
    if not isinstance(deck, str):
        raise ValueError(f"its deck is {shown(deck)}, not a deck")
    try:
        return parse_deck(deck)
    except DealError:
        raise ValueError(
            f"its deck is {shown(deck)}, not 'standard', 'mixed' or counts N,J,Q,K,A"
        ) from None


def ranks(run: Run) -> tuple[int, int] | None:
    """An enumeration's ranks, first to end - 1 (its --from-rank and --to-rank, the deck's
    count where no end is set); None for a run with neither. ValueError for ranks that are
    not whole numbers from 0 to the deck's number of deals, or that cover none."""
    first, end = run.params.get("from_rank"), run.params.get("to_rank")
    if first is None and end is None:
        return None
    from bmn.kernels.ranks import arrangements

    counts = run_counts(run)
    if counts is None:
        raise ValueError("it has ranks but no deck to rank (its deck is 'mixed')")
    total = arrangements(counts)
    first = _rank("from_rank", 0 if first is None else first, total)
    end = _rank("to_rank", total if end is None else end, total)
    if first >= end:
        raise ValueError(f"its ranks {first:,} to {end:,} cover no deal")
    return first, end


def _rank(name: str, value: Any, total: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"its {name} is {shown(value)}, not a whole number")
    if not 0 <= value <= total:
        raise ValueError(
            f"its {name} is {value:,}, past the deck's {total:,} deals (0 to {total:,})"
        )
    return value
