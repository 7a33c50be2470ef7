"""Which ranks of which deck the enumerations of a store have visited (`bmn records coverage`):
for an enumeration split by hand over several machines and merged, what is done, what is still
missing, and what two runs both visited.

Enumerations are grouped by what makes their finds comparable: the deck, the hand sizes, the
rule set and the objective. A finished run covers its ranks --from-rank to --to-rank - 1; an
unfinished one is listed apart (its streams stopped part way: resume it to finish its range).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bmn.kernels.decks import parse_counts
from bmn.kernels.ranks import arrangements
from bmn.records.store import Run

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
    done: list[Span] = field(default_factory=list)  # by finished runs, merged
    unfinished: list[tuple[int, Span]] = field(default_factory=list)  # (run, its range)
    missing: list[Span] = field(default_factory=list)  # by no finished run
    overlap: list[Span] = field(default_factory=list)  # by two finished runs or more

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
            "done_deals": self.done_deals,
        }


_SPANS = ("done", "missing", "overlap")


def coverage(runs: Iterable[Run]) -> list[Coverage]:
    """The coverage of each group of enumerations among `runs`, in the order first started."""
    groups: dict[tuple, Coverage] = {}
    finished: dict[tuple, list[Span]] = {}
    for run in runs:
        if run.kind not in ENUMERATIONS:
            continue
        counts = parse_counts(str(run.params.get("deck")))
        sizes = tuple(run.params.get("hand_sizes") or ())
        key = (run.params.get("deck"), sizes, run.rules, run.objective)
        total = arrangements(counts)
        group = groups.setdefault(key, Coverage(key[0], sizes, run.rules, run.objective, total))
        group.runs.append(run.id)
        first = int(run.params.get("from_rank") or 0)
        end = run.params.get("to_rank")
        span = (first, total if end is None else int(end))
        if run.status == "finished":
            finished.setdefault(key, []).append(span)
        else:
            group.unfinished.append((run.id, span))
    for key, group in groups.items():
        spans = finished.get(key, [])
        group.done = union(spans)
        group.missing = gaps(group.done, group.total)
        group.overlap = overlaps(spans)
    return list(groups.values())


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
