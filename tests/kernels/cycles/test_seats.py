"""Cycles of 3 and 4 seats: the seat-blind key, the kind, and backward play with seats going out
(bmn.kernels.cycles.backward_seats), against the reference engine run over every deal of small
decks, and `bmn loop` / `bmn preimages` / reaching_deals with 3 and 4 hands."""

import functools
import json
from collections import defaultdict
from itertools import product

import pytest
from hypothesis import strategies as st
from samples import orders, tiny_deals
from tiers import properties

from bmn.kernels import api, reference
from bmn.kernels.cycles.backward import BasinSearch
from bmn.kernels.cycles.backward_seats import forward, predecessors, preimage_deals, seatings
from bmn.kernels.cycles.loops import (
    ALL_IN,
    LOOP,
    REDUCED,
    analyse,
    cycle_key,
    key_seats,
    play_trick,
    turn,
)
from bmn.kernels.deal import DealError, parse_deal

TRUE_3 = "J--/-J-/-J-"  # every seat keeps cards for ever: 9 cards, 3 tricks
TRUE_4 = "J--/-J-/-J-/-J-"  # 12 cards, 4 tricks
LEFT_2_OF_3 = "-J-/JJ-/---"  # seat 2 goes out; a two-seat cycle of 6 cards, 2 tricks
LEFT_3_OF_4 = "-J-/JJ-/---/-J-"  # seat 2 goes out; a three-seat cycle of 9 cards, 3 tricks
LEFT_2_OF_4 = "---/---/-J-/JJJ"  # seats 0 and 1 go out; 70 cards, 18 tricks


def deck_of(counts):
    return tuple(v for v, c in enumerate(counts) for _ in range(c))


def compositions(total, parts, low=1):
    """Every way to write `total` as `parts` sizes of at least `low`, in order."""
    if parts == 1:
        yield from [(total,)] if total >= low else []
        return
    for first in range(low, total - low * (parts - 1) + 1):
        for rest in compositions(total - first, parts - 1, low):
            yield (first, *rest)


def deals_of(deck, sizes):
    for order in orders(deck):
        cuts = [sum(sizes[:i]) for i in range(len(sizes) + 1)]
        yield tuple(order[a:b] for a, b in zip(cuts, cuts[1:], strict=False))


# -- the key and the kind ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, period, seats_in, kind",
    [
        (TRUE_3, (9, 3), (0, 1, 2), ALL_IN),
        (TRUE_4, (12, 4), (0, 1, 2, 3), ALL_IN),
        (LEFT_2_OF_3, (6, 2), (0, 1), REDUCED),
        (LEFT_3_OF_4, (9, 3), (0, 1, 3), REDUCED),
        (LEFT_2_OF_4, (70, 18), (2, 3), REDUCED),
    ],
)
def test_seats_kind_and_one_key_from_every_state_and_rotation(text, period, seats_in, kind):
    """The reference engine sees the loop; the cycle's seats out are out on every state and its
    seats in hold cards on every state; entered at any state, with the seats renumbered any
    way round the table, the cycle has one seat-blind key."""
    deal = parse_deal(text)
    loop = analyse(deal)
    ref = reference.play(deal)
    assert (ref.status, ref.period_cards, ref.period_tricks) == (LOOP, *period)
    assert (loop.seats, loop.seats_in, loop.kind) == (len(deal), seats_in, kind)
    assert key_seats(loop.key) == (len(deal), loop.seats_out)
    for state in loop.states:
        assert all((h is None) == (s in loop.seats_out) for s, h in enumerate(state.hands))
        assert all(state.hands[s] for s in seats_in)
    n = len(deal)
    for state, r in product(loop.states, range(n)):
        hands, leader = turn(state.hands, state.leader, r)
        again = analyse(hands, leader=leader)
        assert (again.rotation_key, again.loop_start_tricks) == (loop.rotation_key, 0)
        assert (again.period_cards, again.period_tricks, again.kind) == period + (kind,)
        assert again.seats_out == tuple(sorted((s - r) % n for s in loop.seats_out))


def test_a_cycle_left_after_seats_go_out_has_the_key_of_the_smaller_table():
    """The seat-blind key of a cycle left after seats went out is the key of the same cycle
    played by the seats still in alone: a two-seat key for two seats left."""
    for text in (LEFT_2_OF_3, LEFT_2_OF_4, LEFT_3_OF_4):
        loop = analyse(parse_deal(text))
        first = loop.states[0]
        kept = [s for s, h in enumerate(first.hands) if h is not None]
        smaller = analyse(tuple(first.hands[s] for s in kept), leader=kept.index(first.leader))
        assert smaller.kind == ALL_IN and smaller.loop_start_tricks == 0
        assert smaller.rotation_key == loop.rotation_key
        assert loop.rotation_key.count("/") == len(kept) - 1 and "x" not in loop.rotation_key
    assert analyse(parse_deal(LEFT_2_OF_3)).rotation_key == "0:--J--J-/J-"


@pytest.mark.parametrize("deck", [(0, 0, 0, 0, 1, 1), (0, 0, 0, 0, 0, 1, 1, 2)])
def test_two_seat_keys_are_unchanged(deck):
    """Two seats: the seat-blind key is still the least key of the cycle and its mirror image."""
    for hands in tiny_deals(deck):
        loop = analyse(hands)
        if loop.status == LOOP:
            states = [(s.hands, s.leader) for s in loop.states]
            mirror = [((h[1], h[0]), 1 - leader) for h, leader in states]
            assert loop.rotation_key == min(cycle_key(states), cycle_key(mirror))
            assert (loop.seats, loop.seats_out, loop.kind) == (2, (), ALL_IN)


def test_seatings_of_a_cycle():
    """A two-seat cycle at a table of three: three pairs of seats in, two ways round each."""
    loop = analyse(parse_deal(LEFT_2_OF_3))
    found = seatings([(s.hands, s.leader) for s in loop.states])
    assert len(found) == 6
    assert {analyse(*_start(states)).rotation_key for states in found} == {loop.rotation_key}
    assert len({cycle_key(states) for states in found}) == 6
    # every state of J--/-J-/-J-'s cycle is a rotation of the others: one seating only
    assert len(seatings([(s.hands, s.leader) for s in analyse(parse_deal(TRUE_3)).states])) == 1


def _start(states):
    hands, leader = states[0]
    return hands, leader


# -- one trick back ------------------------------------------------------------------------------


def every_state(deck, seats):
    """Every trick-boundary state of a deck at a table: each order and split (empty hands
    too), each choice of empty seats out, each seat in to lead."""
    for order in orders(deck):
        for sizes in compositions(len(deck), seats, low=0):
            cuts = [sum(sizes[:i]) for i in range(seats + 1)]
            hands = [order[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
            empty = [s for s in range(seats) if not hands[s]]
            for out in product((False, True), repeat=len(empty)):
                gone = {s for s, o in zip(empty, out, strict=True) if o}
                state = tuple(None if s in gone else hands[s] for s in range(seats))
                for leader in (s for s in range(seats) if state[s] is not None):
                    yield state, leader


def as_bytes(hands):
    return tuple(None if h is None else bytes(h) for h in hands)


def as_tuples(hands):
    return tuple(None if h is None else tuple(h) for h in hands)


@pytest.mark.parametrize(
    "deck, seats",
    [
        ((0, 0, 0, 1, 1, 2), 3),
        # the same code for a fourth seat; random 4-seat states keep the fast tier's check
        # (test_predecessors_find_any_state_again)
        pytest.param((0, 0, 0, 1, 2), 4, marks=pytest.mark.slow),
    ],
)
def test_predecessors_match_brute_force(deck, seats):
    """Play one trick from every state of the deck (seats going out included); each state's
    predecessors are exactly the states whose trick leads to it and the game goes on, and
    those where only the `returning` seat out was in before the trick when it is asked."""
    earlier = defaultdict(set)
    states = list(every_state(deck, seats))
    for hands, leader in states:
        step = play_trick(hands, leader)
        if not step.finished:
            earlier[(step.hands, step.taker)].add((hands, leader, step.cards))
    going_out = sum(
        1
        for (after, _), before in earlier.items()
        for hands, _, _ in before
        if sum(h is None for h in hands) < sum(h is None for h in after)
    )
    assert len(earlier) > 300 and going_out > 50  # seats go out in many of these tricks
    for hands, leader in states:
        back = {
            (as_tuples(prev), prev_leader, cards)
            for (prev, prev_leader), cards in predecessors(as_bytes(hands), leader)
        }
        assert back == earlier[(hands, leader)], (hands, leader)
        out = [s for s, h in enumerate(hands) if h is None]
        for seat in out[:1]:  # `returning`: only that seat out may have been in
            only = {
                (as_tuples(p), ld, n)
                for (p, ld), n in predecessors(as_bytes(hands), leader, (seat,))
            }
            assert only == {b for b in back if all(b[0][s] is None for s in out if s != seat)}


seat_hand = st.lists(st.sampled_from([0, 0, 0, 0, 1, 2, 3, 4]), max_size=8)


@properties(
    50, 200, st.lists(st.one_of(st.none(), seat_hand), min_size=3, max_size=4), st.integers(0, 3)
)
def test_predecessors_find_any_state_again(hands, leader):
    """Random 3- and 4-seat states: the state is among the predecessors of its successor, and
    every predecessor's trick leads to that successor."""
    if (
        sum(h is not None for h in hands) < 2
        or not any(hands)
        or hands[leader % len(hands)] is None
    ):
        return
    hands, leader = as_bytes(hands), leader % len(hands)
    step = forward(hands, leader)
    if step is None:
        return
    (after, taker), cards = step
    back = dict(predecessors(after, taker))
    assert back.get((hands, leader)) == cards
    assert all(forward(*prev) == ((after, taker), n) for prev, n in back.items())


# -- every deal of small decks against backward play --------------------------------------------


@functools.cache
def looping(counts, seats, every_split):
    """Every looping deal of a deck (reference engine), by seat-bound and seat-blind key, with
    the reference's loop start; and the hand sizes enumerated."""
    deck = deck_of(counts)
    total = len(deck)
    even = tuple(total // seats + (s < total % seats) for s in range(seats))
    splits = tuple(compositions(total, seats)) if every_split else (even,)
    by_key, by_blind = defaultdict(dict), defaultdict(dict)
    for sizes in splits:
        for deal in deals_of(deck, sizes):
            result = reference.play(deal)
            if result.status == LOOP:
                loop = analyse(deal)
                start = (result.loop_start_tricks, result.loop_start_cards)
                by_key[loop.key][deal] = start
                by_blind[loop.rotation_key][deal] = start
    return by_key, by_blind, splits


def backward_deals(deal, splits, mirror):
    """Every deal of the given splits that backward play lists for the deal's cycle."""
    found = {}
    for sizes in splits:
        report = BasinSearch()
        for p in preimage_deals(deal, sizes, report=report, mirror=mirror):
            assert p.deal not in found
            assert analyse(p.deal).key == p.cycle_key  # the cycle it says the deal falls into
            found[p.deal] = (p.pre_tricks, p.pre_cards)
        assert report.complete
    return found


def check_deck(counts, seats, every_split):
    """For every cycle of the deck, seat-bound and seat-blind, the deals backward play lists
    are exactly the deals the reference engine sees fall into it, with its loop start."""
    by_key, by_blind, splits = looping(counts, seats, every_split)
    for key, deals in by_key.items():
        deal = next(iter(deals))
        assert backward_deals(deal, splits, mirror=False) == deals, key
        assert backward_deals(deal, splits, mirror=True) == by_blind[analyse(deal).rotation_key]
    return by_key, by_blind


def kinds(by_key):
    return sorted(analyse(next(iter(deals))).kind for deals in by_key.values())


def test_every_three_seat_deal_of_six_numerals_and_three_jacks():
    """6 numerals and 3 jacks at three seats, every split: two seat-blind cycles, the true
    three-seat one of J--/-J-/-J- and a two-seat one left after a seat went out (six seatings
    of it are reached)."""
    by_key, by_blind = check_deck((6, 3, 0, 0, 0), 3, every_split=True)
    assert (len(by_key), len(by_blind), sum(map(len, by_key.values()))) == (7, 2, 47)
    assert kinds(by_key) == [ALL_IN] + [REDUCED] * 6


@pytest.mark.slow
@pytest.mark.parametrize(
    "counts, seats, cycles, blind, deals",
    [
        ((8, 4, 0, 0, 0), 4, 22, 5, 47),  # 3/3/3/3: a true 4-seat cycle, 3 and 2 seats left
        ((9, 3, 0, 0, 0), 3, 7, 2, 22),  # 4/4/4: two-seat cycles left only
        ((12, 1, 1, 1, 0), 3, 6, 1, 16),  # 5/5/5: a king, a queen and a jack
    ],
)
def test_every_deal_of_small_decks(counts, seats, cycles, blind, deals):
    by_key, by_blind = check_deck(counts, seats, every_split=False)
    assert (len(by_key), len(by_blind), sum(map(len, by_key.values()))) == (cycles, blind, deals)


@pytest.mark.slow
def test_every_four_seat_deal_has_each_kind():
    by_key, _, _ = looping((8, 4, 0, 0, 0), 4, False)
    found = {
        (analyse(next(iter(d))).kind, len(analyse(next(iter(d))).seats_in)) for d in by_key.values()
    }
    assert found == {(ALL_IN, 4), (REDUCED, 3), (REDUCED, 2)}


# -- the library and the command line ------------------------------------------------------------


def test_reaching_deals_with_three_seats():
    """Seat-blind: the 3/3/3 deals the reference engine sees fall into any seating of the
    cycle; each says which one, and is marked mirrored unless it is the cycle itself."""
    found = [d.as_dict() for d in api.reaching_deals(LEFT_2_OF_3, (3, 3, 3))]
    loop = analyse(parse_deal(LEFT_2_OF_3))
    by_blind = looping((6, 3, 0, 0, 0), 3, True)[1][loop.rotation_key]
    assert {parse_deal(d["deal"]) for d in found} == {
        deal for deal in by_blind if all(len(h) == 3 for h in deal)
    }
    assert len(found) == 2
    assert all(d.get("mirrored", False) == (d["cycle_key"] != loop.key) for d in found)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: api.reaching_deals(TRUE_3, (3, 3)), "expected 3 sizes"),
        (lambda: api.reaching_deals(TRUE_3, (4, 4, 1, 0)), "expected 3 sizes"),
        (lambda: api.reaching_deals([[0]] * 5), "2 to 4 hands, got 5"),
        (lambda: api.reaching_deals("J" + "-" * 110 + "/-J-/-J-"), "at most 104 cards"),
        (lambda: list(api.reaching_deals("--K/J-/---")), "does not loop"),
    ],
)
def test_reaching_deals_refuses_bad_input(call, message):
    with pytest.raises(DealError, match=message):
        call()


def test_cli_loop_three_and_four_seats(bmn):
    out = json.loads(bmn("loop", LEFT_3_OF_4, "--json").stdout)
    assert (out["seats"], out["seats_in"], out["seats_out"], out["kind"]) == (
        4,
        [0, 1, 3],
        [2],
        REDUCED,
    )
    assert out["rotation_key"] == "0:--J--J-/J-/-J-" and out["key"] == "0:--J-/J--J-/x/-J-"
    out = json.loads(bmn("loop", TRUE_4, "--json").stdout)
    assert (out["seats_in"], out["seats_out"], out["kind"]) == ([0, 1, 2, 3], [], ALL_IN)
    lines = bmn("loop", LEFT_2_OF_3).stdout.splitlines()
    assert (
        "seats in the cycle: 2 of 3 (0, 1); reduced, a 2-seat cycle left after seat 2 went out"
        in lines
    )
    assert "seat-blind key: 0:--J--J-/J-" in lines


def test_cli_preimages_three_seats(bmn):
    result = bmn("preimages", LEFT_2_OF_3, "--hand-sizes", "3,3,3", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    api_rows = [d.as_dict() for d in api.reaching_deals(LEFT_2_OF_3, (3, 3, 3))]
    assert document["deals"] == [{**d, "mirrored": d.get("mirrored", False)} for d in api_rows]
    assert document["complete"] and document["hand_sizes"] == [3, 3, 3]
    verb = "falls" if len(document["deals"]) == 1 else "fall"
    assert f"3/3/3 {verb} into the cycle or another seating" in result.stderr
    text = bmn("preimages", TRUE_3, "--hand-sizes", "3,3,3").stdout.splitlines()
    assert text[0] == "J--/-J-/-J-  1 trick, 2 cards"
    assert text[-1].startswith("1 deal of sizes 3/3/3 falls into the cycle or another seating")


@pytest.mark.parametrize(
    "args",
    [
        ["preimages", TRUE_3, "--hand-sizes", "3,3"],
        ["preimages", TRUE_3, "--hand-sizes", "3,3,2,1"],
        ["preimages", "J-/-/-/-/-J"],  # five hands
        ["preimages", "J" + "-" * 110 + "/-J-/-J-"],  # too long for backward play
        ["preimages", "--K/J-/---"],  # does not loop
    ],
)
def test_cli_preimages_bad_input(bmn, failed, args):
    failed(bmn(*args), 2)
