"""Cycle analysis (bmn.kernels.cycles.loops) against the reference engine, and `bmn loop`."""

import functools
import json

import pytest
from hypothesis import strategies as st
from samples import CASELLA, LOOP_DEAL, RECORD_DEAL, TINY_DECKS, figures, orders, tiny_deals
from tiers import properties

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP, analyse, cycle_key, is_balanced, play_trick, state_text
from bmn.kernels.dealer import shuffled_deal


def swapped(hands):
    return tuple(reversed(hands))


def test_published_loop_figures_and_states():
    loop = analyse(LOOP_DEAL)
    assert figures(loop) == figures(reference.play(LOOP_DEAL))
    assert (loop.cards, loop.tricks, loop.loop_start_cards, loop.loop_start_tricks) == (
        474,
        66,
        34,
        4,
    )
    assert (loop.period_cards, loop.period_tricks, len(loop.states)) == (440, 62, 62)
    assert sum(s.trick_cards for s in loop.states) == 440
    assert len({(s.hands, s.leader) for s in loop.states}) == 62
    assert all(sum(len(h) for h in s.hands) == 52 for s in loop.states)
    assert loop.balanced_states == ()  # the cycle never passes through 26/26


def test_published_cycle_states_link_up():
    states = analyse(LOOP_DEAL).states
    for here, there in zip(states, states[1:] + states[:1], strict=True):
        step = play_trick(here.hands, here.leader)
        assert not step.finished
        assert (step.hands, step.taker, step.cards) == (there.hands, there.leader, here.trick_cards)


def test_published_key_same_from_every_cycle_state():
    loop = analyse(LOOP_DEAL)
    assert loop.key == min(state_text(s.hands, s.leader) for s in loop.states)
    for state in loop.states:
        again = analyse(state.hands, leader=state.leader)
        assert (again.key, again.loop_start_tricks, again.period_tricks) == (loop.key, 0, 62)
        if state.leader == 0:  # a deal in its own right: the reference agrees it loops at once
            assert reference.play(state.hands).loop_start_tricks == 0


def test_published_mirror_is_another_cycle_with_the_same_rotation_key():
    loop = analyse(LOOP_DEAL)
    first = loop.states[0]
    mirror = analyse(swapped(first.hands), leader=1 - first.leader)
    assert mirror.key != loop.key
    assert mirror.rotation_key == loop.rotation_key
    assert mirror.period_cards == 440


def test_finished_deal():
    out = analyse(RECORD_DEAL)
    assert (out.status, out.cards, out.tricks, out.winner) == ("finished", 8344, 1164, 1)
    assert out.states == () and out.key is None


@functools.cache
def enumerated(deck):
    """Every deal of a tiny deck with its reference result and its analysis."""
    return {hands: (reference.play(hands), analyse(hands)) for hands in tiny_deals(deck)}


@pytest.mark.parametrize(
    "deck", [*TINY_DECKS[:-1], pytest.param(TINY_DECKS[-1], marks=pytest.mark.slow)]
)  # the largest deck: seconds
def test_every_tiny_deal_against_reference(deck):
    """Figures match the reference on every deal; the cycle states are exactly those the
    reference sees as a loop starting at once (seat 1 leading: the seats swapped)."""
    on_a_cycle = set()
    for hands, (result, _) in enumerated(deck).items():
        if result.status == LOOP and result.loop_start_tricks == 0:
            on_a_cycle.add((hands, 0))
            on_a_cycle.add((swapped(hands), 1))
    cycles: dict[str, frozenset] = {}
    for hands, (result, loop) in enumerated(deck).items():
        assert figures(loop) == figures(result), hands
        if loop.status != LOOP:
            continue
        states = frozenset((s.hands, s.leader) for s in loop.states)
        assert len(states) == loop.period_tricks
        assert states <= on_a_cycle
        assert cycles.setdefault(loop.key, states) == states  # one key, one cycle
        assert loop.key == cycle_key(list(states))
    covered = [state for states in cycles.values() for state in states]
    assert len(covered) == len(set(covered))  # distinct keys name disjoint cycles
    # every cycle state of the deck with seat 0 to lead is on a cycle some deal was seen to reach
    assert {s for s in on_a_cycle if s[1] == 0} <= set(covered)


@pytest.mark.slow
def test_tiny_decks_have_loops():
    """Enough cycles to make the exhaustive checks mean something."""
    periods = {
        loop.key: (loop.period_tricks, loop.period_cards)
        for deck in TINY_DECKS
        for _, loop in enumerated(deck).values()
        if loop.status == LOOP
    }
    assert sorted(periods.values()) == [(2, 6), (3, 14), (3, 14), (4, 16), (6, 36)]


def test_orders():
    assert len(list(orders((0, 0, 1, 2)))) == 12
    assert len(set(orders((0, 0, 0, 1, 1)))) == 10


hands_strategy = st.lists(
    st.lists(st.sampled_from([0, 0, 0, 0, 1, 2, 3, 4]), max_size=9), min_size=2, max_size=4
).filter(any)


@properties(50, 200, hands_strategy)
def test_random_small_deals_any_seats_against_reference(hands):
    assert figures(analyse(hands)) == figures(reference.play(hands))


def test_random_standard_deals_against_reference():
    for seed in range(20):
        deal = shuffled_deal(2 + seed % 3, seed=seed)
        assert figures(analyse(deal)) == figures(reference.play(deal)), seed


def test_balanced():
    assert is_balanced(((0,) * 26, (1,) * 26))
    assert not is_balanced(((0,) * 25, (1,) * 27))
    assert is_balanced(((0,) * 18, (0,) * 17, (0,) * 17))
    assert not is_balanced(((0,) * 17, (0,) * 18, (0,) * 17))
    assert not is_balanced(((0,), None))


def test_cli_loop_json(bmn):
    result = bmn("loop", *CASELLA.split("/"), "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["status"], out["cards"], out["tricks"]) == ("loop", 474, 66)
    assert (out["loop_start_cards"], out["loop_start_tricks"]) == (34, 4)
    assert (out["period_cards"], out["period_tricks"]) == (440, 62)
    assert len(out["states"]) == 62 and out["balanced_states"] == 0
    assert out["states"][0] == {
        "hands": ["---AAJ--J--------K---------Q-Q-K---Q-KAQJ-", "-----KA-J-"],
        "leader": 1,
        "balanced": False,
        "trick_cards": 14,
    }
    assert out["key"] == analyse(LOOP_DEAL).key


def test_cli_loop_text(bmn):
    result = bmn("loop", *CASELLA.split("/"))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert "period: 440 cards, 62 tricks" in lines
    assert "balanced cycle states: none" in lines
    assert len(lines) == 1 + 5 + 1 + 62  # deal, summary, table head, one row per state


def test_cli_loop_finished_deal(bmn):
    result = bmn("loop", "-J", "Q-")
    assert result.exit_code == 0
    assert "finished: does not loop; 4 cards, 1 trick; seat 0 wins" in result.stdout
    out = json.loads(bmn("loop", "-J/Q-", "--json").stdout)
    assert out == {"status": "finished", "cards": 4, "tricks": 1, "winner": 0, "rules": "bmn"}


def test_cli_loop_bad_deal(bmn):
    result = bmn("loop", "-X", "Q-")
    assert result.exit_code == 2
