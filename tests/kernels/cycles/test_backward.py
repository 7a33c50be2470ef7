"""Backward play (bmn.kernels.cycles.backward) against brute force on tiny decks, and `bmn
preimages`."""

import functools
import json
from collections import defaultdict

import pytest
from hypothesis import strategies as st
from samples import CASELLA, LOOP_DEAL, TINY_DECKS, tiny_deals
from tiers import properties

from bmn.kernels import reference
from bmn.kernels.cycles.backward import BasinSearch, _predecessors, basin, preimage_deals
from bmn.kernels.cycles.loops import LOOP, analyse, play_trick
from bmn.kernels.dealer import shuffled_deal
from bmn.kernels.decks import is_standard

# Decks for the one-step check: every penalty value, several court cards in one pile.
STEP_DECKS = [(0, 0, 0, 0, 0, 1, 1, 2), (0, 0, 0, 0, 0, 2, 3, 4), (0, 0, 0, 1, 1, 2, 2, 4)]


@functools.cache
def looping(deck):
    """Every looping deal of a tiny deck (by the reference engine) with its cycle key."""
    results = {hands: reference.play(hands) for hands in tiny_deals(deck)}
    return {
        hands: (result, analyse(hands).key)
        for hands, result in results.items()
        if result.status == LOOP
    }


def predecessors(hands, leader) -> list[tuple]:
    """Every state one trick before (hands, leader), with the cards its trick lays."""
    h0, h1 = (bytes(h) for h in hands)
    return [((tuple(s[0]), tuple(s[1])), s[2], n) for s, n in _predecessors(h0, h1, leader)]


def as_set(preds):
    return set(preds)


@pytest.mark.parametrize("deck", STEP_DECKS)
def test_predecessors_match_brute_force(deck):
    """Play one trick from every state of the deck; each state's predecessors are exactly the
    states whose trick leads to it (and the game goes on)."""
    earlier = defaultdict(set)
    states = [(hands, leader) for hands in tiny_deals(deck) for leader in (0, 1)]
    for hands, leader in states:
        step = play_trick(hands, leader)
        if not step.finished:
            earlier[(step.hands, step.taker)].add((hands, leader, step.cards))
    assert len(earlier) > 100
    for hands, leader in states:
        assert as_set(predecessors(hands, leader)) == earlier[(hands, leader)], (hands, leader)


def test_predecessors_of_states_along_standard_games():
    """Every state of a full-size game is found again one trick back from the next state."""
    checked = 0
    for seed in range(30):
        hands, leader = shuffled_deal(2, seed=seed), 0
        for _ in range(60):
            step = play_trick(hands, leader)
            if step.finished:
                break
            back = as_set(predecessors(step.hands, step.taker))
            assert (hands, leader, step.cards) in back, seed
            for prev_hands, prev_leader, cards in back:  # and each one leads there
                again = play_trick(prev_hands, prev_leader)
                assert (again.hands, again.taker, again.cards) == (step.hands, step.taker, cards)
            hands, leader = step.hands, step.taker
            checked += 1
    assert checked > 500


hand = st.lists(st.sampled_from([0, 0, 0, 0, 1, 2, 3, 4]), min_size=1, max_size=14)


@properties(50, 200, hand, hand, st.sampled_from([0, 1]))
def test_predecessors_find_any_state_again(h0, h1, leader):
    """Random states of any deck: the state is among the predecessors of its successor, and
    every predecessor's trick leads to that successor."""
    step = play_trick((tuple(h0), tuple(h1)), leader)
    if step.finished:
        return
    back = as_set(predecessors(step.hands, step.taker))
    assert ((tuple(h0), tuple(h1)), leader, step.cards) in back
    for prev_hands, prev_leader, cards in back:
        again = play_trick(prev_hands, prev_leader)
        assert (again.hands, again.taker, again.cards, again.finished) == (
            step.hands,
            step.taker,
            cards,
            False,
        )


def test_predecessors_of_a_published_cycle_state():
    loop = analyse(LOOP_DEAL)
    first, last = loop.states[0], loop.states[-1]
    back = as_set(predecessors(first.hands, first.leader))
    assert (last.hands, last.leader, last.trick_cards) in back
    assert predecessors(((0, 0), ()), 0) == []  # a hand empty: the game is over


def cycles_of(deck):
    """Each cycle of a tiny deck (by key): one deal reaching it, and every deal by hand sizes."""
    first, by_sizes = {}, defaultdict(dict)
    for hands, (result, key) in looping(deck).items():
        first.setdefault(key, hands)
        by_sizes[key].setdefault((len(hands[0]), len(hands[1])), {})[hands] = result
    return first, by_sizes


@pytest.mark.parametrize(
    "deck", [*TINY_DECKS[:-1], pytest.param(TINY_DECKS[-1], marks=pytest.mark.slow)]
)  # the largest deck: seconds
def test_preimages_match_enumeration(deck):
    """For every cycle and every split of the deck, the preimage deals are exactly the deals the
    enumeration sees fall into that cycle, with the reference engine's loop start."""
    first, by_sizes = cycles_of(deck)
    assert first
    for key, deal in first.items():
        for cut in range(1, len(deck)):
            sizes = (cut, len(deck) - cut)
            report = BasinSearch()
            found = {
                p.deal: (p.pre_tricks, p.pre_cards)
                for p in preimage_deals(deal, sizes, report=report)
            }
            assert report.complete
            expected = by_sizes[key].get(sizes, {})
            assert found == {
                hands: (r.loop_start_tricks, r.loop_start_cards) for hands, r in expected.items()
            }, (key, sizes)


def test_mirror_preimages_match_enumeration():
    """Deck with a cycle and its mirror image: --mirror lists the deals of both."""
    deck = TINY_DECKS[2]
    first, by_sizes = cycles_of(deck)
    assert len(first) == 2
    keys = sorted(first)
    sizes = (4, 5)
    found = {p.deal: p.mirrored for p in preimage_deals(first[keys[0]], sizes, mirror=True)}
    assert found == {
        **{hands: False for hands in by_sizes[keys[0]].get(sizes, {})},
        **{hands: True for hands in by_sizes[keys[1]].get(sizes, {})},
    }


def test_published_balanced_preimages():
    report = BasinSearch()
    found = list(preimage_deals(LOOP_DEAL, (26, 26), report=report))
    assert (report.complete, report.states, report.depth) == (True, 2670, 6)
    assert len(found) == 18
    assert all(is_standard(p.deal) for p in found)
    assert (LOOP_DEAL, 4, 34) in {(p.deal, p.pre_tricks, p.pre_cards) for p in found}
    assert sorted({p.pre_tricks for p in found}) == [4, 5, 6]
    for p in found[:3]:
        result = reference.play(p.deal)
        assert (result.loop_start_tricks, result.period_tricks) == (p.pre_tricks, 62)
    mirrored = [p for p in preimage_deals(LOOP_DEAL, (26, 26), mirror=True) if p.mirrored]
    assert len(mirrored) == 12


def test_basin_limits():
    cycle = [(s.hands, s.leader) for s in analyse(LOOP_DEAL).states]
    report = BasinSearch()
    states = list(basin(cycle, max_depth=2, report=report))
    assert (len(states), report.complete) == (62 + 378 + 1142, False)
    assert max(s.pre_tricks for s in states) == 2
    report = BasinSearch()
    assert len(list(basin(cycle, max_depth=6, report=report))) == 2670 and report.complete
    report = BasinSearch()
    assert len(list(basin(cycle, max_states=100, report=report))) == 100
    assert not report.complete


def test_preimages_refuse_bad_deals():
    with pytest.raises(ValueError, match="does not loop"):
        list(preimage_deals(((0, 1), (2, 0))))
    with pytest.raises(ValueError, match="two players"):
        list(preimage_deals(((0, 1), (2, 0), (0,))))


def test_cli_preimages_json(bmn):
    """Seat-blind by default: the published loop's 30 deals, 12 of them reaching the cycle
    with the seats swapped; --seat-bound keeps the 18 that reach it as dealt."""
    result = bmn("preimages", CASELLA, "--hand-sizes", "26,26", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)  # one JSON document, not one object per line
    rows = document["deals"]
    assert document["complete"] is True and document["mirrored"] == 12
    assert document["hand_sizes"] == [26, 26] and document["seat_bound"] is False
    assert len(rows) == 30 and sum(row["mirrored"] for row in rows) == 12
    assert set(rows[0]) == {"deal", "pre_tricks", "pre_cards", "mirrored"}
    assert {"deal": CASELLA, "pre_tricks": 4, "pre_cards": 34, "mirrored": False} in rows
    assert "30 deals of sizes 26/26 fall into the cycle or its mirror image (12 mirrored)" in (
        result.stderr
    )
    assert "(the whole basin)" in result.stderr
    bound = bmn("preimages", CASELLA, "--seat-bound", "--json")
    assert json.loads(bound.stdout)["deals"] == [row for row in rows if not row["mirrored"]]
    assert "18 deals of sizes 26/26 fall into the cycle;" in bound.stderr


def test_cli_preimages_text_and_seat_bound(bmn):
    result = bmn("preimages", "--J--Q/J-", "--hand-sizes", "4,4")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "--J-/Q-J-  0 tricks, 0 cards"
    # the cycle is its own mirror image: seat-blind adds nothing
    assert lines[-1].startswith(
        "4 deals of sizes 4/4 fall into the cycle or its mirror image (0 mirrored)"
    )
    bound = bmn("preimages", "--J--Q/J-", "--hand-sizes", "4,4", "--seat-bound")
    assert bound.stdout.splitlines()[:-1] == lines[:-1]
    result = bmn("preimages", "--J--Q/J-", "--max-depth", "0")
    assert "stopped at a limit" in result.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["preimages", "-J", "Q-"],  # does not loop
        ["preimages", "--J-/J-", "-"],  # three hands
        ["preimages", "--J-/J-", "--hand-sizes", "3,4"],
        ["preimages", "--J-/J-", "--hand-sizes", "x"],
        ["preimages", "--J-/J-", "--max-depth", "-1"],
    ],
)
def test_cli_preimages_bad_input(bmn, args):
    result = bmn(*args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
