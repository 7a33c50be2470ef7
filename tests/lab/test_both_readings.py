"""Endless deals under both readings of a seat out while paying (lab/cycles/both_readings.py),
against the reference engine under bmn's and Paulhus's rules."""

import csv
import itertools
import random
from pathlib import Path

import pytest

from bmn.kernels import reference
from bmn.kernels.cycles.loops import analyse, rotation_key
from bmn.kernels.deal import parse_deal
from bmn.kernels.decks import even_sizes, is_standard
from lab.cycles import elimination
from lab.cycles.both_readings import outcomes, parts_readings, plays_alike, search

# The standard deals found that never end under both readings, with their figures under each
# (docs/endless-games.md, "Endless standard deals under both readings"): bmn's 4-player
# endless #1, then the CSV the searches wrote.
CSV = Path(__file__).parents[2] / "docs" / "endless-both.csv"
FOUND = list(csv.DictReader(CSV.read_text().splitlines()))


def random_deals(seed: int, n: int):
    """Random 3- and 4-seat deals of small decks, seat 0 to lead."""
    rng = random.Random(seed)
    for _ in range(n):
        seats = rng.choice([3, 4])
        deck = [0] * rng.randint(6, 16) + [rng.randint(1, 4) for _ in range(rng.randint(2, 6))]
        rng.shuffle(deck)
        cuts = sorted(rng.randint(1, len(deck) - 1) for _ in range(seats - 1))
        yield [deck[a:b] for a, b in zip([0, *cuts], [*cuts, len(deck)], strict=True)]


def test_a_deal_plays_alike_exactly_when_no_trick_parts_the_readings():
    """Every trick of both games the same (the reference engine's trace) where no trick parts
    the readings, and a different game where one does."""
    kinds = {True: 0, False: 0}
    for deal in random_deals(2, 600):
        if any(not hand for hand in deal):
            continue
        bmn, paulhus = (reference.play(deal, trace=True, rules=r) for r in ("bmn", "paulhus"))
        alike = plays_alike(deal)
        assert (bmn.trace == paulhus.trace and bmn.status == paulhus.status) == alike, deal
        kinds[alike] += 1
    assert min(kinds.values()) > 50


def test_parts_readings_on_a_payer_going_out():
    """J-/-/--: seat 1 holds nothing when asked to pay the jack and goes out; seat 2 still
    holds cards, so under Paulhus's reading it pays. With seat 2 empty too, both end there."""
    assert parts_readings(((1, 0), (), (0, 0)), 0)
    assert not parts_readings(((1, 0), (0,), (0, 0)), 0)  # paid in full
    assert not parts_readings(((1,), (), ()), 0)


def two_seat_key(deal) -> str | None:
    """The seat-blind key of the two-seat cycle a 3-seat deal falls into with one seat out."""
    states = [(s.hands, s.leader) for s in analyse(deal).states]
    if not states or sum(h is None for h in states[0][0]) != 1:
        return None
    inner = []
    for hands, leader in states:
        kept = [s for s, h in enumerate(hands) if h is not None]
        inner.append((tuple(hands[s] for s in kept), kept.index(leader)))
    return rotation_key(inner)


def test_the_steered_search_lists_exactly_the_deals_that_play_alike():
    """Every 4/4/4 deal of 8 numerals and 4 jacks falling into the two-seat cycle of
    --JJ-J-/---J- after a seat goes out (the reference engine over every deal): the search
    left free lists them all, as the elimination search does; steered, exactly those that
    play alike under both readings, each looping under both. Some others loop under both
    too, into other cycles: the filter route's finds."""
    two = analyse(parse_deal("--JJ-J-/---J-"))
    cycle = [(s.hands, s.leader) for s in two.states]
    into = set()
    for jacks in itertools.combinations(range(12), 4):
        order = tuple(int(p in jacks) for p in range(12))
        deal = (order[:4], order[4:8], order[8:])
        if reference.play(deal).status == "loop" and two_seat_key(deal) == two.rotation_key:
            into.add(deal)
    alike = {deal for deal in into if plays_alike(deal)}
    looping = {d for d in into if reference.play(d, rules="paulhus").status == "loop"}
    assert alike and alike < looping < into

    def found(**how) -> set:
        reach = search(cycle, 3, (4, 4, 4), seconds=120, max_states=200_000, **how)
        assert reach.complete  # every state it could reach visited: the list is whole
        return {tuple(tuple(h) for h in hands) for hands, _ in reach.deals}

    free = elimination.search(cycle, 3, (4, 4, 4), seconds=120, max_states=200_000)
    assert found(alike=False) == into == {tuple(tuple(h) for h in d) for d, _ in free.deals}
    assert found() == alike


@pytest.mark.parametrize("players", [3, 4])
def test_the_standard_deals_found_never_end_under_both_readings(players):
    """Every deal docs/endless-both.csv lists: a standard deal dealt evenly, seat 0 to lead,
    that the reference engine plays into a cycle under both readings, with the figures listed;
    those marked alike play alike."""
    rows = [row for row in FOUND if int(row["players"]) == players]
    assert rows and len({row["deal"] for row in rows}) == len(rows)
    for row in rows:
        deal = parse_deal(row["deal"])
        assert is_standard(deal) and tuple(len(h) for h in deal) == even_sizes(52, players)
        assert plays_alike(deal) == (row["alike"] == "True")
        for rules, result in outcomes(deal).items():
            figures = [row[f"{rules}_{figure}"] for figure in ("status", "cards", "tricks")]
            assert [result.status, str(result.cards), str(result.tricks)] == figures, rules
            assert figures[0] == "loop"
            assert (result.period_cards, result.period_tricks) == (
                int(row["period_cards"]),
                int(row["period_tricks"]),
            )
