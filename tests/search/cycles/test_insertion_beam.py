"""Cycle growth (bmn.search.cycles.insertion_beam) against brute force and the reference engine on
tiny decks."""

import functools
import json

import numpy as np
import pytest
from samples import LOOP_DEAL, tiny_deals

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.search.cycles.insertion_beam import (
    GrowOptions,
    GrowState,
    counts_of,
    cycle_of,
    cycle_states,
    grow_chunk,
    insertions,
    missing_values,
    moves,
    random_insertions,
    select,
)


def as_deals(rows, sizes):
    return [
        (tuple(int(v) for v in row[:n0]), tuple(int(v) for v in row[n0:]))
        for row, (n0, _) in zip(rows, sizes, strict=True)
    ]


def by_hand(state, values):
    """Every deal with one card of `values` put anywhere into either hand, by list.insert."""
    out = set()
    for v in values:
        for seat in (0, 1):
            for at in range(len(state[seat]) + 1):
                hands = [list(state[0]), list(state[1])]
                hands[seat].insert(at, v)
                out.add((tuple(hands[0]), tuple(hands[1])))
    return out


STATES = [((0, 1, 0), (2, 0)), ((), (3, 0, 0)), ((4,), ()), ((0, 0, 2, 0, 1), (0, 1, 0, 0))]


@pytest.mark.parametrize("state", STATES)
def test_insertions_are_every_insertion_once(state):
    rows, sizes = insertions(state, [0, 3])
    deals = as_deals(rows, sizes)
    assert len(deals) == len(set(deals))
    assert set(deals) == by_hand(state, [0, 3])


@pytest.mark.parametrize("state", STATES)
def test_moves_are_every_move_once(state):
    expected = set()
    for seat in (0, 1):
        for at in range(len(state[seat])):
            hands = [list(state[0]), list(state[1])]
            value = hands[seat].pop(at)
            expected |= by_hand((tuple(hands[0]), tuple(hands[1])), [value])
    expected.discard(state)
    rows, sizes = moves(state)
    deals = as_deals(rows, sizes)
    assert len(deals) == len(set(deals)) and set(deals) == expected


def test_random_insertions_add_cards_from_the_pool():
    state = ((0, 1, 0), (2, 0))
    rows, sizes = random_insertions(state, [0, 0, 4, 4, 3], 2, 400, np.random.default_rng(1))
    deals = as_deals(rows, sizes)
    two_steps = {d for once in by_hand(state, [0, 3, 4]) for d in by_hand(once, [0, 3, 4])}
    assert len(set(deals)) == len(deals) > 30
    assert set(deals) <= two_steps
    assert all(sorted(a + b).count(3) <= 1 for a, b in deals)


def test_missing_values_follow_the_order():
    deck, target = (30, 4, 0, 1, 4), (36, 4, 4, 4, 4)
    assert missing_values(deck, target, "numerals-first") == [0]
    assert missing_values(deck, target, "courts-first") == [2, 3]
    assert missing_values(deck, target, "any") == [0, 2, 3]
    assert missing_values(target, target, "any") == []


@functools.cache
def enumerated_cycles(deck):
    """Every looping deal of a tiny deck (reference engine) and its seat-blind cycle key."""
    return {
        hands: analyse(hands).rotation_key
        for hands in tiny_deals(deck, with_empty=False)
        if reference.play(hands).status == LOOP
    }


# (smaller deck, values inserted): each grows into at least one cycle of the bigger deck.
GROWTH = [
    ((0, 0, 0, 0, 0, 1, 1, 2), (2,)),
    ((0,) * 7 + (1, 1), (0, 1, 3)),
    ((0,) * 5 + (1,) * 3, (1,)),
]


@pytest.mark.parametrize(("deck", "values"), GROWTH)
def test_growth_by_one_card_finds_the_enumerated_cycles(deck, values):
    """Grow every cycle of a tiny deck by one card at every position of every state: the new
    cycles are exactly those that enumerating the bigger decks gives for the grown deals."""
    seeds = {}
    for hands, key in enumerated_cycles(deck).items():
        seeds.setdefault(key, cycle_of(hands))
    candidates = set()
    for seed in seeds.values():
        for state in cycle_states(seed.deal):
            candidates |= by_hand(state, values)
    expected = set()
    for v in values:
        bigger = enumerated_cycles(tuple(sorted(deck + (v,))))
        expected |= {bigger[d] for d in candidates if d in bigger}
    assert expected
    target = tuple(min(deck.count(k) + (k in values), 99) for k in range(5))
    options = GrowOptions(target=target, order="any", beam=64, states_per_cycle=None, drift=False)
    state = GrowState.start(list(seeds.values()), seed=3)
    found = []
    while not state.dead and state.generation < 2:  # one item per chunk: stop at generation 2
        found += grow_chunk(state, options, items=1).new
    assert {c.key for c in found} == expected
    for c in found:  # every cycle replays as a loop with its stated period
        replay = reference.play(c.deal)
        assert replay.status == LOOP
        assert (replay.period_cards, replay.period_tricks) == (c.period_cards, c.period_tricks)
        assert analyse(c.deal).rotation_key == c.key and c.deck == counts_of(c.deal)
        assert c.parent is not None and c.how == "insert"


def test_cycle_of_takes_a_state_with_seat_0_to_lead():
    c = cycle_of(LOOP_DEAL)
    assert (c.period_cards, c.period_tricks, c.deck) == (440, 62, (36, 4, 4, 4, 4))
    assert analyse(c.deal).loop_start_tricks == 0  # the state is on the cycle
    assert analyse(c.deal).rotation_key == c.key
    assert len(cycle_states(LOOP_DEAL)) == 62
    assert cycle_of(((0, 1), (2, 0))) is None


def run(chunks, items, seed=5, variant="multi"):
    """A small growth run from the cycles of a 9-card deck, `chunks` chunks of `items` parent
    states each, the state passed through JSON between chunks (a resumed run)."""
    seeds = {}
    for hands, key in enumerated_cycles((0,) * 7 + (1, 1)).items():
        seeds.setdefault(key, cycle_of(hands))
    options = GrowOptions(
        target=(12, 2, 1, 1, 0), variant=variant, order="any", beam=6, samples=60, cards=2
    )
    state = GrowState.start(list(seeds.values()), seed)
    found = []
    for _ in range(chunks):
        found += [c.key for c in grow_chunk(state, options, items).new]
        state = GrowState.from_json(json.loads(json.dumps(state.as_json())))
    return found, state


@pytest.mark.parametrize("variant", ["insert", "multi"])
def test_chunking_and_resume_do_not_change_a_run(variant):
    one, state_one = run(24, 1, variant=variant)
    three, state_three = run(8, 3, variant=variant)
    assert one == three and len(one) > 0
    assert state_one.as_json() == state_three.as_json()
    for c in state_one.children + state_one.beam:
        assert reference.play(c.deal).status == LOOP


def test_select_keeps_one_of_each_period_first():
    c = cycle_of(LOOP_DEAL)
    cycles = [type(c)(f"k{i}", c.deck, 10, p, c.deal) for i, p in enumerate([3, 3, 3, 3, 8, 5])]
    picked = select(cycles, 3, np.random.default_rng(0))
    assert sorted(x.period_tricks for x in picked) == [3, 5, 8]
    assert len(select(cycles, 10, np.random.default_rng(0))) == 6


def test_options_refuse_bad_values():
    with pytest.raises(ValueError, match="variant"):
        GrowOptions(variant="teleport")
    with pytest.raises(ValueError, match="order"):
        GrowOptions(order="random")
    with pytest.raises(ValueError, match="five counts"):
        GrowOptions(target=(36, 4))
