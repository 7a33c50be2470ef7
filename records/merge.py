"""Stores from several machines made one (`bmn records merge`): each source is read (an older
one through the migrations, in memory, the file untouched), every value checked as every read
of a store checks it, every find and cycle replayed by the one verifier (kernels/claims.py)
under its rule set (a find's run's, a cycle's own), and only then written into the target, in
one transaction.

Nothing is taken on trust, and nothing derived is copied: the compiled kernel and the reference
engine replay every find kept as a row, the kernel every find kept in bulk; a run's best is the
best of what replayed (its finds, and its stored best deal, itself replayed); a cycle's key,
deck, period, example deal and its balanced and basin figures come from replaying the cycle
from its first deal (backward play to the stored basin's size). A source with a damaged row,
or a figure that does not replay, is named in one line per problem, and nothing of it is
written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from bmn.kernels.claims import BOTH, Claim, Stated, Verdict, disagreeing, verify
from bmn.kernels.deal import DealError, deal_text, parse_deal, shorten
from bmn.kernels.rules.sets import names as rule_names
from bmn.kernels.rules.sets import rule_set
from bmn.records.settings import settings_problem
from bmn.records.store import LoopRow, Merged, MergeRefused, Run, Snapshot, Store, StoreError
from bmn.records.store.loops import LOOP_FIELDS, summarised
from bmn.records.store.merged import Best, SourceRun, better, snapshot

MOST_REFUSALS = 5  # wrong finds named per batch
MOST_BASIN = 1_000_000  # backward-play states a cycle's replay may visit (grow's default: 100,000)
# A run's settings checked by what only the runs' own declarations know (bmn.search passes
# them); a line saying what is wrong, or None.
SettingsCheck = Callable[[Run], "str | None"]


def merging(
    sources: Sequence[str | os.PathLike[str]],
    target: str | os.PathLike[str],
    say: Callable[[str], None] | None = None,
    check: SettingsCheck | None = None,
) -> Iterator[Merged]:
    """Merge each source into `target` in turn, yielding what each merge did as it is done
    (`say` hears a line as each source is read and replayed; `check` judges each run's
    settings beside records' own checks). A source that is damaged, or whose finds do not
    replay, raises MergeRefused, the sources before it merged; StoreError before anything for
    a target that is one of the sources."""
    target_path = Path(target)
    paths = [Path(source) for source in sources]
    for path in paths:
        if _same_file(path, target_path):
            raise StoreError(f"{path} is the target store itself: name another --store")
    for path in paths:
        snap = read_source(path)
        if say is not None:
            say(f"{path}: {len(snap.runs):,} run(s), replaying their finds and cycles")
        problems = replay(snap, check)
        if problems:
            raise MergeRefused(str(path), problems)
        with Store(target_path) as db:
            yield db.merge(snap)


def read_source(path: Path) -> Snapshot:
    """A source store's snapshot, read without writing to it, every value checked
    (StoreError if it is not a bmn store, is of a newer bmn, or is damaged)."""
    with Store(path, create=False, read_only=True) as db:
        return snapshot(db, str(path.absolute()))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.absolute() == b.absolute()


def replay(snap: Snapshot, check: SettingsCheck | None = None) -> list[str]:
    """Replay every find and cycle of `snap`, and set what they derive (each run's best, each
    cycle's summary) from the replay; one line for each that does not replay (none: all
    agree)."""
    problems = []
    for source in snap.runs:
        wrong = _run_problems(source.run, check)
        if not wrong:
            wrong = _replay_rows(source) + _replay_batches(source)
        if not wrong:
            wrong = _derive_best(source)
        problems += wrong
    for i, loop in enumerate(snap.loops):
        replayed, wrong = _replay_loop(loop)
        problems += wrong
        snap.loops[i] = replayed
    return problems


def _run_problems(run: Run, check: SettingsCheck | None) -> list[str]:
    """What makes a run's finds unplayable or its settings unreadable, in one line."""
    if run.rules not in rule_names():
        return [f"run {run.id} plays rule set {run.rules!r}, unknown to this bmn"]
    if not rule_set(run.rules).plays(run.seats):
        return [f"run {run.id} of {run.seats} seats plays rule set {run.rules!r}, which does not"]
    problem = settings_problem(run) or (check(run) if check is not None else None)
    return [f"run {run.id}: {problem}"] if problem else []


def _replay_rows(source: SourceRun) -> list[str]:
    """A run's finds kept as rows, by the kernel and the reference engine, under its rules."""
    claims, problems = [], []
    for find in source.finds:
        try:
            hands = parse_deal(find.deal)
        except DealError as err:  # pragma: no cover - the store's check reads deals already
            problems.append(f"run {source.id}: {shorten(find.deal)} is not a deal ({err})")
            continue
        if len(hands) != source.run.seats:
            problems.append(
                f"run {source.id} of {source.run.seats} seats holds a find of {len(hands)}:"
                f" {shorten(find.deal)}"
            )
            continue
        stated = Stated(find.cards, find.tricks, find.status)
        claims.append(Claim.of(hands, stated, source.run.rules))
    return problems + [_said(source.id, v) for v in verify(claims, BOTH) if not v.agrees]


def _replay_batches(source: SourceRun) -> list[str]:
    """A run's bulk batches (short finished games): every deal decoded and replayed by the
    kernel."""
    problems = []
    for batch in source.batches:
        if len(batch.sizes) != source.run.seats:
            problems.append(
                f"run {source.id} of {source.run.seats} seats holds a batch of finds of"
                f" {len(batch.sizes)}"
            )
            continue
        wrong, verdicts = disagreeing(batch.decks, batch.sizes, batch.figures, source.run.rules)
        problems += [_said(source.id, verdict) for verdict in verdicts[:MOST_REFUSALS]]
        if wrong > MOST_REFUSALS:
            problems.append(f"run {source.id}: {wrong - MOST_REFUSALS:,} more in one batch")
    return problems


def _said(run_id: int, verdict: Verdict) -> str:
    return f"run {run_id}: {shorten(verdict.claim.deal)} {verdict.words('stored')}"


def _derive_best(source: SourceRun) -> list[str]:
    """The run's best from what replayed: its best finished find by its objective, or its
    stored best deal, replayed too, where that is as good (a best below --keep-above is no
    find). One line if the stored best does not replay."""
    run = source.run
    best: Best | None = None
    for find in source.finds:
        if find.status == "finished":
            best = _better_of(best, (find.deal, find.cards, find.tricks), run.objective)
    for batch in source.batches:
        if len(batch.figures):
            top = max(range(len(batch.figures)), key=lambda i: _rank(batch.figures[i], run))
            cards, tricks = (int(n) for n in batch.figures[top])
            deal = deal_text(batch.decks[top], batch.sizes)
            best = _better_of(best, (deal, cards, tricks), run.objective)
    if run.best_deal is not None:
        stated = Stated(run.best_cards, run.best_tricks)
        verdict = verify([Claim.of(run.best_deal, stated, run.rules)], BOTH)[0]
        if not verdict.agrees:
            return [f"run {run.id}: its best deal {shorten(run.best_deal)}"
                    f" {verdict.words('stored')}"]  # fmt: skip
        result = verdict.result
        assert result is not None  # a deal of its run's seats: played
        replayed = (run.best_deal, result.cards, result.tricks)
        if result.status == "finished" and not better(best, replayed, run.objective):
            best = replayed
    source.best = best
    return []


def _better_of(a: Best | None, b: Best, objective: str) -> Best:
    return b if better(b, a, objective) else a  # type: ignore[return-value]


def _rank(figures: Sequence[int], run: Run) -> tuple[int, int]:
    cards, tricks = int(figures[0]), int(figures[1])
    return (tricks, cards) if run.objective == "tricks" else (cards, tricks)


def _replay_loop(loop: LoopRow) -> tuple[LoopRow, list[str]]:
    """A cycle replayed from its first deal under its rule set: the deal must loop with the
    stored period (both engines), and backward play over as many states as the stored basin
    must give its summary. The cycle as replayed, and one line if it differs."""
    where = f"cycle of deal {shorten(loop.first_deal)}"
    if loop.rules not in rule_names():
        return loop, [f"{where} is of rule set {loop.rules!r}, unknown to this bmn"]
    if loop.basin_states > MOST_BASIN:
        return loop, [f"{where} claims a basin of {loop.basin_states:,} states; a merge"
                      f" replays at most {MOST_BASIN:,}"]  # fmt: skip
    hands = parse_deal(loop.first_deal)
    stated = Stated(status="loop", period_cards=loop.period_cards, period_tricks=loop.period_tricks)
    verdict = verify([Claim.of(hands, stated, loop.rules)], BOTH)[0]
    if not verdict.agrees:
        return loop, [f"{where}: {verdict.words('stored')}"]
    replayed = _summarised(loop, hands)
    differs = [
        f"stored {words} {getattr(loop, name)!r}, replayed {getattr(replayed, name)!r}"
        for name, words in _SUMMARY.items()
        if getattr(loop, name) != getattr(replayed, name)
    ]
    return replayed, ([f"{where}: {'; '.join(differs)}"] if differs else [])


# What a cycle's replay gives, field by field, held against what the store says, in words.
_SUMMARY = {
    "key": "key",
    "rotation_key": "seat-blind key",
    "deck": "deck",
    "cycle_states": "cycle states",
    "balanced_states": "balanced states",
    "balanced_deals": "balanced deals",
    "mirrored_balanced_deals": "balanced deals with the seats swapped",
    "basin_states": "basin states",
    "basin_complete": "whole basin",
    "example_deal": "example deal",
}


def _summarised(loop: LoopRow, hands: tuple) -> LoopRow:
    """`loop` with every figure its first deal gives by forward and backward play."""
    from bmn.kernels.cycles.backward import summarise_cycle
    from bmn.kernels.cycles.backward_seats import summarise_cycle as summarise_seats

    summarise = summarise_cycle if len(hands) == 2 else summarise_seats
    s = summarise(hands, max_states=max(loop.basin_states, 1), rules=loop.rules)
    replayed = summarised(s, hands, loop.rules)
    figures = {name: getattr(replayed, name) for name in LOOP_FIELDS}
    return replace(loop, **figures, reachable=replayed.balanced_reachable)
