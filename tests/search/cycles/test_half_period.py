"""The half-period search (bmn.search.cycles.half_period): role-swapping two-seat cycles built
from the deck alone, each replayed by the reference engine."""

import pytest

from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.reference import play
from bmn.search.cycles.half_period import states, swap_cycles


def _swaps(deal) -> bool:
    loop = analyse(deal)
    return loop.status == LOOP and loop.swaps_roles


def _mirrored_after_half(deal) -> bool:
    """The deal's cycle, by the reference engine: the mirror image comes half way round."""
    result, loop = play(deal, trace=True), analyse(deal)
    assert result.status == LOOP and result.period_tricks == loop.period_tricks
    start = loop.states[0]
    half = loop.states[len(loop.states) // 2]
    return (half.hands, half.leader) == ((start.hands[1], start.hands[0]), 1 - start.leader)


def test_the_search_builds_the_role_swapping_cycle_of_four_numerals_and_two_jacks():
    cycles, done = swap_cycles((4, 2, 0, 0, 0), 12, 60)
    assert done == 12  # every half period up to 12 cards searched: one cycle
    (find,) = cycles.values()
    assert (find.key, find.period_tricks, find.figures) == ("0:--J-/J-", 2, (3, 2, 4))
    assert _swaps(find.deal) and _mirrored_after_half(find.deal)


def test_states_it_finds_play_to_their_mirror_image():
    for deal in states((4, 2, 0, 0, 0), 3, 2, 4):
        assert sorted(deal[0] + deal[1]) == [0, 0, 0, 0, 1, 1]
        assert _swaps(deal) and _mirrored_after_half(deal)
    assert list(states((4, 2, 0, 0, 0), 3, 1, 4)) == []  # the wrong split of L: none


@pytest.mark.slow
def test_it_builds_the_one_cycle_of_the_20_card_deck_14_2_2_2_0():
    # N1k06's 20-card endless deals (tests/data/peers/n1k06_20.csv) all fall into this cycle;
    # from its state with A of 13 cards, seat 0 lays 18 of the half period's 37.
    (deal,) = states((14, 2, 2, 2, 0), 37, 18, 13)
    assert [len(h) for h in deal] == [13, 7]
    assert _swaps(deal) and _mirrored_after_half(deal)
    peer = [int(c) for c in "00000030100100302020"]
    assert analyse(deal).rotation_key == analyse((peer[:10], peer[10:])).rotation_key
