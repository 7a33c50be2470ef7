"""Which ranks of which deck the enumerations of a store have visited (`bmn records coverage`):
for an enumeration split by hand over several machines and merged, what is done, what is still
missing, and what two runs both visited.

Enumerations are grouped by what makes their finds comparable: the deck, the hand sizes, the
rule set and the objective. A finished run covers its ranks --from-rank to --to-rank - 1; an
unfinished one covers what its streams' checkpoints say they visited (each stream, a share of
the range, records its next rank and how many it has visited), and is listed apart with its
range (resume it to finish it).

Nothing is believed that cannot be checked: a run's deck, ranks and checkpoints are read back
(records/settings.py) and held to the deck's number of deals; ranks that are not whole numbers,
run past the deck, or a stream that says it visited ranks outside its run's range make the
store damaged (StoreDamaged, one line), never a figure.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bmn.kernels.decks import counts_text
from bmn.kernels.ranks import arrangements
from bmn.records.settings import ranks, run_counts
from bmn.records.store import Run, StoreDamaged
from bmn.records.store.values import damaged

if TYPE_CHECKING:
    from bmn.records.store import Store

ENUMERATIONS = ("every", "every-cuda")  # the kinds of run that visit ranks in order
Span = tuple[int, int]  # ranks first to end - 1


@dataclass
class Coverage:
    """The enumerations of one deck, hand sizes, rule set and objective."""

    deck: str
    hand_sizes: tuple[int, ...]
    rules: str
    objective: str
    total: int  # the deck's number of deals
    runs: list[int] = field(default_factory=list)
    done: list[Span] = field(default_factory=list)  # by any run, merged
    unfinished: list[tuple[int, Span]] = field(default_factory=list)  # (run, its range)
    missing: list[Span] = field(default_factory=list)  # by no run
    overlap: list[Span] = field(default_factory=list)  # by two runs or more
    unfinished_done: dict[int, int] = field(default_factory=dict)  # run: deals it has visited

    @property
    def done_deals(self) -> int:
        return sum(end - first for first, end in self.done)

    def as_dict(self) -> dict[str, object]:
        spans = {name: [list(span) for span in getattr(self, name)] for name in _SPANS}
        unfinished = [[run, list(span)] for run, span in self.unfinished]
        return {
            **vars(self),
            **spans,
            "hand_sizes": list(self.hand_sizes),
            "unfinished": unfinished,
            "unfinished_done": {str(run): n for run, n in self.unfinished_done.items()},
            "done_deals": self.done_deals,
        }


_SPANS = ("done", "missing", "overlap")


def coverage(store: Store) -> list[Coverage]:
    """The coverage of each group of enumerations in `store`, in the order first started;
    StoreDamaged for a run whose deck, ranks or checkpoints cannot be believed."""
    groups: dict[tuple, Coverage] = {}
    visited: dict[tuple, list[Span]] = {}
    for run in store.runs():
        if run.kind not in ENUMERATIONS:
            continue
        counts, span = _range(store, run)
        sizes = tuple(run.params.get("hand_sizes") or ())
        key = (counts_text(counts), sizes, run.rules, run.objective)
        total = arrangements(counts)
        group = groups.setdefault(key, Coverage(*key, total))
        group.runs.append(run.id)
        if run.status == "finished":
            visited.setdefault(key, []).append(span)
            continue
        parts = _streams_done(store, run, span)
        visited.setdefault(key, []).extend(parts)
        group.unfinished.append((run.id, span))
        group.unfinished_done[run.id] = sum(end - first for first, end in parts)
    for key, group in groups.items():
        spans = visited.get(key, [])
        group.done = union(spans)
        group.missing = gaps(group.done, group.total)
        group.overlap = overlaps(spans)
    return list(groups.values())


def _range(store: Store, run: Run) -> tuple[tuple[int, ...], Span]:
    """An enumeration's deck and ranks, read back and checked (StoreDamaged otherwise)."""
    try:
        counts = run_counts(run)
        if counts is None:
            raise ValueError("it enumerates no deck (its deck is 'mixed')")
        return counts, ranks(run) or (0, arrangements(counts))
    except ValueError as err:
        raise _damaged(store, f"table runs, row {run.id}, column params", str(err)) from None


def _streams_done(store: Store, run: Run, span: Span) -> list[Span]:
    """The ranks an unfinished enumeration's streams have visited, by their checkpoints:
    each stream's next rank, less the ranks it counts as visited, is where its share began."""
    workers = run.params.get("workers")
    out = []
    for worker, (state, games, _) in store.load_checkpoints(run.id).items():
        if not isinstance(workers, int) or worker >= workers:
            continue  # the run's totals, kept as a worker past its streams
        where = f"table checkpoints, row of run {run.id}, worker {worker}, column state"
        try:
            saved = json.loads(bytes(state))
            at = saved["next"]
        except (ValueError, TypeError, KeyError, RecursionError):
            raise _damaged(store, where, "holds no stream's next rank") from None
        if (
            not isinstance(at, int)
            or isinstance(at, bool)
            or not span[0] <= at - games <= at <= span[1]
        ):
            raise _damaged(
                store, where, f"says its stream visited {games:,} ranks up to {at!r}, outside"
                f" its run's {span[0]:,} to {span[1] - 1:,}",
            )  # fmt: skip
        if games:
            out.append((at - games, at))
    return out


def _damaged(store: Store, where: str, what: str) -> StoreDamaged:
    return damaged(store.path, where, what)


def union(spans: Sequence[Span]) -> list[Span]:
    """The spans merged where they meet or overlap, in order."""
    out: list[Span] = []
    for first, end in sorted(spans):
        if out and first <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((first, end))
    return out


def gaps(done: Sequence[Span], total: int) -> list[Span]:
    """The ranks 0 to total - 1 that no span of `done` (a union) covers."""
    out, at = [], 0
    for first, end in done:
        if first > at:
            out.append((at, first))
        at = max(at, end)
    return out + ([(at, total)] if at < total else [])


def overlaps(spans: Sequence[Span]) -> list[Span]:
    """The ranks two spans or more cover, merged."""
    edges = sorted([(first, 1) for first, _ in spans] + [(end, -1) for _, end in spans])
    out, depth, start = [], 0, 0
    for at, step in edges:
        if depth < 2 <= depth + step:
            start = at
        elif depth >= 2 > depth + step and at > start:
            out.append((start, at))
        depth += step
    return union(out)
