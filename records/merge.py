"""Stores from several machines made one (`bmn records merge`): each source is read (an older
one through the migrations, in memory, the file untouched), every find and cycle it holds is
replayed under its rule set (a find's run's, a cycle's own), and only then written into the
target, in one transaction.

Nothing is taken on trust: the compiled kernel replays every find (rows and bulk batches) and
every cycle's deal; the reference engine replays the finds that are kept as rows and each cycle's
deal again. A find or cycle whose stored figures do not replay is named in one line, and nothing
of its source is written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from bmn.kernels import reference
from bmn.kernels.config import FINISHED, STATUS_NAMES
from bmn.kernels.deal import Deal, DealError, decode, format_deal, parse_deal, shorten
from bmn.kernels.rules.sets import names as rule_names
from bmn.kernels.score import score, score_parsed
from bmn.records.store import LoopRow, Merged, MergeRefused, Snapshot, Store, StoreError, bulk
from bmn.records.store.merged import FIND, SourceRun, snapshot

MOST_REFUSALS = 5  # wrong finds named per batch


def merging(
    sources: Sequence[str | os.PathLike[str]],
    target: str | os.PathLike[str],
    say: Callable[[str], None] | None = None,
) -> Iterator[Merged]:
    """Merge each source into `target` in turn, yielding what each merge did as it is done
    (`say` hears a line as each source is read and replayed). A source that cannot be read, or
    whose finds do not replay, raises MergeRefused (StoreError for one that is not a bmn
    store), the sources before it merged; StoreError before anything for a target that is
    one of the sources."""
    target_path = Path(target)
    paths = [Path(source) for source in sources]
    for path in paths:
        if _same_file(path, target_path):
            raise StoreError(f"{path} is the target store itself: name another --store")
    for path in paths:
        snap = read_source(path)
        if say is not None:
            say(f"{path}: {len(snap.runs):,} run(s), replaying their finds and cycles")
        problems = replay(snap)
        if problems:
            raise MergeRefused(str(path), problems)
        with Store(target_path) as db:
            yield db.merge(snap)


def read_source(path: Path) -> Snapshot:
    """A source store's snapshot, read without writing to it (StoreError if it is not a bmn
    store, is damaged, or is of a newer bmn)."""
    with Store(path, create=False, read_only=True) as db:
        return snapshot(db, str(path.absolute()))


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.absolute() == b.absolute()


def replay(snap: Snapshot) -> list[str]:
    """Replay every find of `snap` under its run's rule set and every cycle under its own: the
    compiled kernel for all, the reference engine for the finds kept as rows and for the
    cycles. One line for each that does not replay (none: all agree)."""
    problems = []
    runs = {run.id: run for run in snap.runs}
    for run in snap.runs:
        rules = run.row.get("rules")
        if rules not in rule_names():
            problems.append(f"run {run.id} plays rule set {rules!r}, unknown to this bmn")
            continue
        problems += _replay_rows(run, rules)
        problems += _replay_batches(run, rules)
    for loop in snap.loops:
        if loop.run not in runs:
            problems.append(f"cycle {loop.key} names run {loop.run}, not in the store")
        elif loop.rules not in rule_names():
            problems.append(f"cycle {loop.key} is of rule set {loop.rules!r}, unknown to this bmn")
        else:  # a cycle under its own rule set: the one it was found under
            problems += _replay_loop(loop, loop.rules)
    return problems


def _replay_rows(run: SourceRun, rules: str) -> list[str]:
    """A run's finds kept as rows: the kernel, then the reference engine, must give the stored
    cards, tricks and status."""
    deals, stored, problems = [], [], []
    for find in run.finds:
        row = dict(zip(FIND, find, strict=True))
        try:
            deals.append(parse_deal(str(row["deal"])))
        except DealError as err:
            problems.append(f"run {run.id}: {shorten(str(row['deal']))} is not a deal ({err})")
            continue
        stored.append((row["cards"], row["tricks"], row["status"]))
    if not deals:
        return problems
    scores = score_parsed(deals, rules=rules)
    for i, (deal, want) in enumerate(zip(deals, stored, strict=True)):
        fast = (int(scores.cards[i]), int(scores.tricks[i]), STATUS_NAMES[int(scores.status[i])])
        slow = reference.play(deal, rules=rules)
        for engine, got in (
            ("kernel", fast),
            ("reference engine", (slow.cards, slow.tricks, slow.status)),
        ):
            if want != got:
                problems.append(_differs(run.id, deal, want, got, engine))
                break
    return problems


def _replay_batches(run: SourceRun, rules: str) -> list[str]:
    """A run's bulk batches (short finished games): the kernel replays every deal."""
    problems = []
    for row in run.batches:
        batch = bulk.Batch(
            run.id,
            *(row[c] for c in ("strategy", "found_at", "elapsed", "sizes", "count")),
            row["figures"],
            row["decks"],
        )
        try:
            sizes, decks, figures = batch.hand_sizes(), batch.decks(), batch.figures
        except ValueError as err:
            problems.append(f"run {run.id}: a batch of finds cannot be read ({err})")
            continue
        hands = np.tile(np.array(sizes, dtype=np.int64), (len(decks), 1))
        scores = score(decks, hands, rules=rules)
        cards, tricks = figures[:, 0], figures[:, 1]
        wrong = np.flatnonzero(
            (scores.cards != cards) | (scores.tricks != tricks) | (scores.status != FINISHED)
        )
        for i in wrong[:MOST_REFUSALS]:
            want = (int(cards[i]), int(tricks[i]), "finished")
            got = (int(scores.cards[i]), int(scores.tricks[i]), STATUS_NAMES[scores.status[i]])
            problems.append(_differs(run.id, decode(decks[i], sizes), want, got, "kernel"))
        if len(wrong) > MOST_REFUSALS:
            problems.append(f"run {run.id}: {len(wrong) - MOST_REFUSALS} more in one batch")
    return problems


def _replay_loop(loop: LoopRow, rules: str) -> list[str]:
    """A cycle: its first deal must loop with the stored period, on the kernel and the
    reference engine."""
    deal_text = loop.first_deal
    try:
        deal = parse_deal(deal_text)
    except DealError as err:
        return [f"cycle {loop.key}: {shorten(deal_text)} is not a deal ({err})"]
    fast = score_parsed([deal], rules=rules)
    slow = reference.play(deal, rules=rules)
    want = (loop.period_cards, loop.period_tricks)
    kernel = (fast.period_cards[0], fast.period_tricks[0])
    for engine, status, got in (
        ("kernel", STATUS_NAMES[int(fast.status[0])], kernel),
        ("reference engine", slow.status, (slow.period_cards, slow.period_tricks)),
    ):
        if status != "loop" or tuple(int(g) for g in got if g is not None) != want:
            return [
                f"cycle of deal {shorten(deal_text)}: stored period {want[0]} cards, {want[1]}"
                f" tricks; the {engine} plays {status}"
                + (f", period {got[0]} cards, {got[1]} tricks" if status == "loop" else "")
            ]
    return []


def _differs(run_id: int, deal: Deal, want: tuple, got: tuple, engine: str) -> str:
    return (
        f"run {run_id}: {shorten(format_deal(deal))} stored {want[0]} cards, {want[1]} tricks,"
        f" {want[2]}; the {engine} replays {got[0]} cards, {got[1]} tricks, {got[2]}"
    )
