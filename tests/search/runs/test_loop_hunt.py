"""The loop hunt (bmn.search.runs.kinds.loop_hunt) against the reference engine on a tiny deck."""

from collections import Counter

import numpy as np
import pytest
from samples import LOOP_DEAL, orders

from bmn.kernels import reference
from bmn.kernels.cycles.backward import summarise_cycle
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.search.runs.kinds.cycle_book import CycleBook, record_loop
from bmn.search.runs.kinds.loop_hunt import name_loops, random_batch

# Nine cards with two cycles, each the other's mirror image (period 3 tricks, 14 cards).
DECK = (0, 0, 0, 0, 0, 1, 1, 2, 2)


def hunt_loops(deck, deals: int, seed: int, batch: int) -> CycleBook:
    """Score `deals` random deals of `deck` in batches and collect every cycle they fall
    into, as a loop hunt's chunks do, without a store."""
    hunt = CycleBook()
    rng = np.random.default_rng(seed)
    cards = np.asarray(deck, dtype=np.uint8)
    for n in [batch] * (deals // batch) + [deals % batch] * bool(deals % batch):
        rows, sizes = random_batch(rng, cards, n, even=False)
        for deal, _, seen in name_loops(rows, sizes, threads=1):
            record_loop(hunt, deal, 100_000).deals_seen += seen - 1
            hunt.loops += seen - 1
        hunt.deals += n
    return hunt


def test_hunt_counts_every_loop_the_reference_sees():
    hunt = hunt_loops(DECK, 3000, seed=7, batch=1000)
    rng = np.random.default_rng(7)
    keys = Counter()
    for _ in range(3):
        rows, sizes = random_batch(rng, np.array(DECK, dtype=np.uint8), 1000, even=False)
        for row, (n0, _) in zip(rows.tolist(), sizes.tolist(), strict=True):
            deal = (tuple(row[:n0]), tuple(row[n0:]))
            if reference.play(deal).status == LOOP:
                keys[analyse(deal).key] += 1
    assert (hunt.deals, hunt.loops) == (3000, sum(keys.values()))
    assert {k: c.deals_seen for k, c in hunt.cycles.items()} == dict(keys)
    assert len(keys) == 2


def test_cycle_summaries_match_enumeration():
    """Balanced deals (5/4) reaching each cycle, exactly and mirrored, as every deal shows."""
    hunt = hunt_loops(DECK, 3000, seed=7, batch=1000)
    balanced = Counter()
    for order in orders(DECK):
        deal = (order[:5], order[5:])
        if reference.play(deal).status == LOOP:
            balanced[analyse(deal).key] += 1
    for key, find in hunt.cycles.items():
        (other,) = set(hunt.cycles) - {key}
        s = find.summary
        assert (s.key, s.period_tricks, s.period_cards, s.basin_complete) == (key, 3, 14, True)
        assert (s.balanced_deals, s.mirrored_balanced_deals) == (balanced[key], balanced[other])
        assert analyse(find.first_deal).key == key


def test_published_cycle_summary():
    s = summarise_cycle(LOOP_DEAL)
    assert (s.period_tricks, s.period_cards, s.balanced_states) == (62, 440, 0)
    assert (s.balanced_deals, s.mirrored_balanced_deals, s.basin_states) == (18, 12, 2670)
    assert s.basin_complete and reference.play(s.example).status == LOOP
    hunt = CycleBook()
    record_loop(hunt, LOOP_DEAL)
    record_loop(hunt, s.example)  # another deal into the same cycle: counted once
    assert len(hunt.cycles) == 1 and hunt.loops == 2
    with pytest.raises(ValueError, match="does not loop"):
        record_loop(hunt, ((0, 1), (2, 0)))
