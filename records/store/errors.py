"""What the store raises: StoreError for a store that cannot be used, with one line to show."""

from __future__ import annotations


class StoreError(Exception):
    """The store cannot be used: missing, not a bmn store, newer, damaged, busy or full."""


class StoreMissing(StoreError):
    """No store at `path`, where only an existing one will do; each front end says how to
    name another in its own words (the command line: --store, BMN_STORE)."""

    def __init__(self, path: object):
        self.path = path
        super().__init__(
            f"no record store at {path}; a search makes one, or name a store that exists"
        )


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


class MergeRefused(StoreError):
    """A source store whose finds or cycles do not replay (`records merge`): nothing of it was
    written. `problems` holds one line for each; the message names the first five."""

    def __init__(self, source: str, problems: list[str]):
        self.source, self.problems = source, list(problems)
        more = len(problems) - 5
        named = "; ".join(problems[:5]) + (f"; and {more} more" if more > 0 else "")
        super().__init__(f"{source}: not merged, nothing of it written: {named}")
