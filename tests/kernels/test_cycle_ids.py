"""Cycle ids (kernels/cpu/cycle_ids.py) against the cycle keys of kernels/cycles/loops.py, whose
figures the reference engine checks: two looping deals have the same id exactly when they fall
into the same cycle."""

import numpy as np
import pytest

from bmn.kernels import reference
from bmn.kernels.config import LOOP as LOOP_CODE
from bmn.kernels.cpu.cycle_ids import ID_WORDS, cycle_ids
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import deck_of, even_sizes
from bmn.kernels.rng import seed_state
from bmn.kernels.score import score


@pytest.mark.parametrize(
    "counts, seats, split, rules",
    [
        ((5, 2, 2, 0, 0), 2, "even", "bmn"),
        ((36, 1, 1, 0, 0), 2, "even", "bmn"),
        ((6, 3, 0, 0, 0), 3, "even", "bmn"),
        ((12, 1, 1, 1, 0), 3, "even", "bmn"),
        ((8, 4, 0, 0, 0), 4, "even", "bmn"),
        ((8, 4, 0, 0, 0), 4, "uneven", "bmn"),  # seats of no card at the start, going out
        # the other readings: Paulhus's (a seat out while paying: the next pays), and two-seat
        # rule sets whose looping games play bmn's tricks (their figures are their own)
        ((6, 3, 0, 0, 0), 3, "even", "paulhus"),
        ((9, 3, 0, 0, 0), 3, "even", "paulhus"),
        ((8, 4, 0, 0, 0), 4, "uneven", "paulhus"),
        ((5, 2, 2, 0, 0), 2, "even", "leodog896"),
        ((5, 2, 2, 0, 0), 2, "even", "n1k06"),
    ],
)
def test_ids_name_the_cycles_the_keys_name(counts, seats, split, rules):
    deck = deck_of(counts)
    sizes = even_sizes(len(deck), seats)
    if split == "uneven":
        sizes = (0, 5, 3, 4)  # seat 0 goes out before a card is laid
    rows, hands = random_deals(4000, seed_state(7), deck=deck, sizes=sizes)
    scores = score(rows, hands, threads=1, rules=rules)
    loops = np.flatnonzero(scores.status == LOOP_CODE)
    assert len(loops) >= 10
    ids = cycle_ids(
        rows, hands, loops, scores.loop_start_tricks[loops], scores.period_tricks[loops], rules
    )
    assert ids.shape == (len(loops), ID_WORDS)
    keys = {}
    for i, r in zip(range(len(loops)), loops[:400], strict=False):
        ends = np.cumsum(hands[r]).tolist()
        deal = tuple(
            tuple(rows[r][e - n : e].tolist()) for n, e in zip(hands[r], ends, strict=True)
        )
        assert reference.play(deal, rules=rules).status == LOOP
        keys[i] = analyse(deal, rules=rules).key
    by_id, by_key = {}, {}
    for i, key in keys.items():
        by_id.setdefault(ids[i].tobytes(), set()).add(key)
        by_key.setdefault(key, set()).add(ids[i].tobytes())
    assert all(len(k) == 1 for k in by_id.values()) and all(len(i) == 1 for i in by_key.values())


def test_only_loops_of_at_most_64_cards():
    rows = np.zeros((1, 65), dtype=np.uint8)
    sizes = np.array([[33, 32]], dtype=np.int64)
    with pytest.raises(ValueError, match="64 cards"):
        cycle_ids(rows, sizes, np.array([0]), np.array([0]), np.array([1]))
    with pytest.raises(ValueError, match="looping deals"):
        cycle_ids(rows[:, :9], np.array([[5, 4]]), np.array([0]), np.array([-1]), np.array([-1]))
