"""Hand splits of the deals that reach a cycle (bmn.kernels.cycles.balance) against enumeration."""

from collections import Counter

import pytest
from samples import LOOP_DEAL, tiny_deals

from bmn.kernels import reference
from bmn.kernels.cycles.backward import summarise_cycle
from bmn.kernels.cycles.balance import basin_splits, confirm
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import parse_deal

PUBLISHED = LOOP_DEAL
# Tiny decks with cycles (one, and two that are each other's mirror image).
DECKS = [(0, 0, 0, 0, 0, 1, 1, 2), (0, 0, 0, 0, 0, 1, 1, 2, 2), (0,) * 7 + (1, 1)]


@pytest.mark.parametrize("deck", DECKS)
def test_splits_match_enumeration(deck):
    """Every deal of the deck that loops, counted by (cycle, hand sizes): basin_splits from any
    deal of a cycle gives the same counts, the mirrored ones being those of the mirror cycle."""
    counts = Counter()
    into = {}
    for hands in tiny_deals(deck, with_empty=False):
        if reference.play(hands).status == LOOP:
            key = analyse(hands).key
            counts[(key, len(hands[0]), len(hands[1]))] += 1
            into.setdefault(key, hands)
    assert into
    for key, deal in into.items():
        splits = basin_splits(deal)
        assert splits.complete
        first = analyse(deal).states[0]
        mirror = analyse(first.hands[::-1], 1 - first.leader).key
        for (sizes, mirrored), found in splits.by_sizes.items():
            assert found.count == counts[(mirror if mirrored else key, *sizes)]
            assert confirm(found, splits.key)
        listed = {(s, m) for s, m in splits.by_sizes}
        assert {(k[1:], False) for k in counts if k[0] == key} <= listed


def test_published_cycle_reaches_an_even_deal():
    splits = basin_splits(PUBLISHED)
    summary = summarise_cycle(PUBLISHED)
    assert (splits.states, splits.complete) == (summary.basin_states, True)
    assert splits.by_sizes[((26, 26), False)].count == summary.balanced_deals == 18
    assert splits.by_sizes[((26, 26), True)].count == summary.mirrored_balanced_deals
    best = splits.most_balanced()
    assert (best.sizes, best.mirrored, best.pre_tricks) == ((26, 26), False, 4)
    assert splits.balanced() and confirm(best, splits.key)
    assert splits.as_dict()["most_balanced"]["deal"].count("/") == 1


def test_refuses_a_deal_that_does_not_loop():
    with pytest.raises(ValueError, match="not a looping"):
        basin_splits(((0, 1), (2, 0)))


# The published cycle's three pieces (bmn.search.cycles.pieces) in another cyclic order: another
# 62-trick cycle, with its own balanced starting deals.
REORDERED = parse_deal("--Q----K---------Q----K---Q-KQAJ--J--------A-KAAJ-/J-")


def test_reordered_pieces_make_another_cycle_with_even_deals():
    splits = basin_splits(REORDERED)
    assert (splits.period_tricks, splits.period_cards, splits.complete) == (62, 440, True)
    assert splits.key != analyse(PUBLISHED).rotation_key
    best = splits.most_balanced()
    assert (best.sizes, best.mirrored) == ((26, 26), False)
    assert splits.by_sizes[((26, 26), False)].count == 16
    assert confirm(best, splits.key)
    assert reference.play(best.deal).status == LOOP
