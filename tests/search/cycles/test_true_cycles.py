"""True N-seat cycles (bmn.search.cycles.true_cycles, true_growth) against the reference engine."""

import random
from collections import Counter

import pytest

from bmn.kernels import reference
from bmn.kernels.deal import format_hand, parse_deal
from bmn.search.cycles.true_cycles import (
    TrueCycle,
    find_true_cycles,
    holds_under,
    is_true_cycle,
    strict,
    true_cycle,
)
from bmn.search.cycles.true_growth import (
    GrowOptions,
    grow,
    heavy_counts,
    hunt,
    insertions,
    jumps,
    moves,
    swaps,
)

# True cycles hunts found (3 seats, 14 cards; 4 seats, 19 cards), and the smallest.
THREE = "---J-/KJ-/J--KJ-"
FOUR = "--AKJ-/KK-J-/K-J-/--J-"
SMALLEST = ("J--/-J-/-J-", "J--/-J-/-J-/-J-")


def _reference_true(deal) -> bool:
    """The definition, read plainly off the reference engine: from the loop's start on, every
    seat holds a card after every trick of the period."""
    result = reference.play(deal, trace=True)
    if result.status != "loop":
        return False
    start = result.loop_start_tricks
    return all(0 not in t.hand_sizes for t in result.trace[start : start + result.period_tricks])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("J--/-J-/-J-", True),
        ("J--/-J-/-J-/-J-", True),
        (THREE, True),
        ("-J-/JJ-/---", False),  # a two-seat cycle once seat 2 is out
        ("--K/J-/---", False),  # finishes
        # two seats: every loop keeps both in (Casella 2024)
        ("---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA", True),
    ],
)
def test_true_cycle_predicate_on_known_deals(text, expected):
    deal = parse_deal(text)
    assert is_true_cycle(deal) is expected
    assert _reference_true(deal) is expected
    assert (true_cycle(deal) is not None) is expected


def test_true_cycle_agrees_with_the_reference_near_true_cycles():
    """States one card away from true cycles (3 and 4 seats), and shuffles of -J-/JJ-/---'s
    deck: some loop all in, some loop with seats out, some finish."""
    rng = random.Random(7)
    met = Counter()
    shuffles = [tuple(rng.sample((0,) * 6 + (1,) * 3, 9)) for _ in range(1000)]
    deals = [(s[:3], s[3:6], s[6:]) for s in shuffles]
    for text in (THREE, FOUR):
        cycle = true_cycle(parse_deal(text))
        deals += rng.sample(insertions(cycle), 150) + rng.sample(moves(cycle), 150)
    for deal in deals:
        found = true_cycle(deal)
        assert (found is not None) == is_true_cycle(deal) == _reference_true(deal), deal
        met[found is not None, reference.play(deal).status] += 1
        if found is not None:  # every state is a deal that is on the cycle at once
            for state in found.states:
                result = reference.play(state)
                assert result.loop_start_tricks == 0
                assert result.period_tricks % found.period == 0
    assert met[True, "loop"] > 5 and met[False, "loop"] > 5 and met[False, "finished"] > 5


def test_a_true_cycle_holds_under_every_rule_set_for_its_seats_and_a_reduced_one_does_not():
    assert holds_under(parse_deal(THREE)) == ["bmn", "paulhus"]
    assert holds_under(parse_deal(FOUR)) == ["bmn", "paulhus"]
    assert holds_under(parse_deal("-J-/JJ-/---")) == []


def test_a_cycle_is_named_the_same_from_each_of_its_states():
    first = true_cycle(parse_deal(THREE))
    assert len({true_cycle(hands).key for hands in first.states}) == 1
    assert first.key == "/".join(format_hand(h) for h in min(first.states))


def test_the_smallest_three_seat_cycle_returns_rotated_after_a_third_of_its_period():
    cycle = true_cycle(parse_deal("J--/-J-/-J-"))
    assert cycle.period == 1
    assert reference.play(parse_deal("J--/-J-/-J-")).period_tricks == 3
    # The 40-card 4-seat cycle a hunt found comes back with the seats turned by two.
    large = true_cycle(parse_deal("------J-/-A----/-----------J-/--------A----"))
    assert large.cards == 40 and large.period == 6
    assert reference.play(large.states[0]).period_tricks == 12


def test_strict_sees_a_hand_empty_inside_a_trick():
    assert strict(true_cycle(parse_deal(THREE)))
    # Seat 0 lays its last card, a jack, and takes the pile: empty inside the trick.
    assert not strict(TrueCycle("x", (((1,), (0, 0), (0, 0)),)))


def test_find_true_cycles_keeps_true_cycles_once():
    seen: set = set()
    three = true_cycle(parse_deal(THREE))
    candidates = [*three.states, parse_deal("-J-/JJ-/---"), parse_deal("--K/J-/---")]
    found = find_true_cycles(candidates, seen)
    assert [c.key for c in found] == [three.key]
    assert find_true_cycles(candidates, seen) == []


def _deck(hands) -> Counter:
    return Counter(v for h in hands for v in h)


def test_insertions_add_one_card_of_the_remainder_and_moves_keep_the_deck():
    cycle = true_cycle(parse_deal(THREE))
    deck = _deck(cycle.states[0])
    added = insertions(cycle)
    # every state, every seat, every place, every value the standard deck has left
    left = sum(1 for v, n in enumerate((36, 4, 4, 4, 4)) if n > deck[v])
    assert len(added) == cycle.period * (cycle.cards + 3) * left
    for hands in added:
        assert sum((_deck(hands) - deck).values()) == 1 and _deck(hands) >= deck
    for hands in moves(cycle):
        assert _deck(hands) == deck and all(hands) and len(hands) == 3
    for hands in swaps(cycle):  # one card changed: the same size, one value more, one fewer
        assert list(map(len, hands)) in [list(map(len, s)) for s in cycle.states]
        assert sum((_deck(hands) - deck).values()) == 1
    for hands in jumps(cycle, random.Random(1), 50):
        assert 2 <= sum((_deck(hands) - deck).values()) <= 4


def test_grow_finds_larger_true_cycles_each_checked_by_the_reference():
    seed = true_cycle(parse_deal(THREE))
    growth = grow([seed], 1e9, random.Random(3), GrowOptions(beam=5), steps=3)
    larger = [c for c in growth.cycles.values() if c.cards > seed.cards]
    assert larger
    for c in larger[:20]:
        assert _reference_true(c.most_balanced())
    assert growth.best().cards == max(c.cards for c in growth.cycles.values())
    assert growth.history[0][1] == seed.cards
    assert [cards for _, cards in growth.history] == sorted({c for _, c in growth.history})


def test_grow_without_backtracking_keeps_only_the_frontier():
    seed = true_cycle(parse_deal(SMALLEST[0]))  # nothing grows from it: the pool empties
    growth = grow([seed], 1e9, random.Random(3), GrowOptions(moves=False, backtrack=False))
    assert list(growth.cycles) == [seed.key]


def test_hunt_finds_only_true_cycles():
    growth = hunt(4, 1e9, random.Random(2), deals=2000, batches=4)
    assert growth.scored == 8000
    for c in growth.cycles.values():
        assert _reference_true(c.most_balanced()) and c.seats == 4


def test_heavy_decks_hold_many_numerals_and_few_court_cards():
    rng = random.Random(4)
    for seats in (3, 4):
        for _ in range(200):
            counts = heavy_counts(rng, seats)
            assert 24 <= counts[0] <= 36 and max(counts[1:]) <= 4
            assert 1 <= sum(counts[1:]) <= 2 * seats
