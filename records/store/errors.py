"""What the store raises: StoreError for a store that cannot be used, with one line to show."""

from __future__ import annotations


class StoreError(Exception):
    """The store cannot be used: missing, not a bmn store, newer, damaged, busy or full."""


class StoreDamaged(StoreError):
    """A value the store holds is not one bmn writes (a damaged file, a hand edit, another
    program's write): the line names the table, the row and what is wrong."""


class RunHeld(StoreError):
    """Another live process holds the run (is searching it now)."""


class RunNotFound(StoreError, LookupError):
    """The store holds no run of that number."""


class QueryError(ValueError):
    """An argument of a store query out of range or of the wrong type: `n`, `by`, `status`,
    `seats`, `min_cards`, a run number, a column name."""
