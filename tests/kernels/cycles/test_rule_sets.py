"""Cycle analysis under every rule set against the reference engine, the oracle of each."""

import json

import pytest
from hypothesis import strategies as st
from samples import CASELLA, LOOP_DEAL, figures, orders
from tiers import properties

from bmn.kernels import reference
from bmn.kernels.cycles import backward, backward_seats
from bmn.kernels.cycles.backward import BasinSearch
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import parse_deal
from bmn.kernels.dealer import shuffled_deal
from bmn.kernels.rules.sets import RULE_SETS

RULES = list(RULE_SETS)
# A deck that loops often with three and four seats, and whose seats go out while paying.
SEATS_DECK = (0,) * 6 + (1,) * 3 + (2,)


def seated(rules):
    """The seat counts a rule set plays, of 2 to 4."""
    return [n for n in (2, 3, 4) if RULE_SETS[rules].plays(n)]


hands_strategy = st.lists(
    st.lists(st.sampled_from([0, 0, 0, 0, 1, 2, 3, 4]), max_size=9), min_size=2, max_size=4
).filter(any)


@properties(60, 400, hands_strategy, st.sampled_from(RULES))
def test_random_small_deals_under_every_rule_set(hands, rules):
    if not RULE_SETS[rules].plays(len(hands)):
        with pytest.raises(ValueError, match="plays 2 seats"):
            analyse(hands, rules=rules)
        return
    assert figures(analyse(hands, rules=rules)) == figures(reference.play(hands, rules=rules))


@pytest.mark.parametrize("rules", RULES)
def test_standard_deals_under_every_rule_set(rules):
    for seed in range(12):
        seats = seated(rules)[seed % len(seated(rules))]
        deal = shuffled_deal(seats, seed=seed)
        assert figures(analyse(deal, rules=rules)) == figures(reference.play(deal, rules=rules))


@pytest.mark.parametrize("rules", RULES)
def test_published_loop_under_every_rule_set(rules):
    """Casella's cycle never empties a hand: every reading plays it alike, to the same cycle."""
    loop, bmn = analyse(LOOP_DEAL, rules=rules), analyse(LOOP_DEAL)
    assert figures(loop) == figures(reference.play(LOOP_DEAL, rules=rules))
    assert (loop.status, loop.key, loop.period_cards, loop.period_tricks) == (
        LOOP,
        bmn.key,
        440,
        62,
    )
    assert parse_deal(CASELLA) == LOOP_DEAL


@pytest.mark.parametrize("seats", [3, 4])
def test_every_deal_of_a_small_deck_under_paulhus(seats):
    """Every seating of a 10-card deck: the figures are the reference engine's under each
    reading, and some deals play otherwise under Paulhus's than under bmn's (so the check
    reaches the rule that parts them)."""
    parted = looped = 0
    for order in orders(SEATS_DECK):
        cut = [len(SEATS_DECK) * s // seats for s in range(seats + 1)]
        hands = [order[a:b] for a, b in zip(cut, cut[1:], strict=False)]
        paulhus = analyse(hands, rules="paulhus")
        assert figures(paulhus) == figures(reference.play(hands, rules="paulhus")), hands
        parted += figures(paulhus) != figures(analyse(hands))
        looped += paulhus.status == LOOP
    assert parted > 0 and looped > 0


# -- backward play under every rule set, against every deal of small decks ---------------------


def compositions(total, parts):
    """Every way to write `total` as `parts` sizes of at least 1, in order."""
    if parts == 1:
        yield (total,)
        return
    for first in range(1, total - parts + 2):
        for rest in compositions(total - first, parts - 1):
            yield (first, *rest)


def cut(order, sizes):
    ends = [sum(sizes[:i]) for i in range(len(sizes) + 1)]
    return tuple(order[a:b] for a, b in zip(ends, ends[1:], strict=False))


def falling_in(deck, seats, rules):
    """Every deal of the deck (every split, hands of at least a card) that the reference engine
    sees loop under `rules`, by seat-bound cycle key, with its loop start."""
    by_key = {}
    for sizes in compositions(len(deck), seats):
        for order in orders(deck):
            deal = cut(order, sizes)
            result = reference.play(deal, rules=rules)
            if result.status == LOOP:
                key = analyse(deal, rules=rules).key
                start = (result.loop_start_tricks, result.loop_start_cards)
                by_key.setdefault(key, {})[deal] = start
    return by_key


def listed(deal, seats, rules):
    """Every deal of every split backward play lists, seat-bound, for the deal's cycle."""
    play_back = backward.preimage_deals if seats == 2 else backward_seats.preimage_deals
    found = {}
    for sizes in compositions(sum(map(len, deal)), seats):
        report = BasinSearch()
        for p in play_back(deal, sizes, report=report, rules=rules):
            found[p.deal] = (p.pre_tricks, p.pre_cards)
        assert report.complete
    return found


SMALL, LARGER = (0, 0, 0, 0, 0, 1, 1, 2), (0, 0, 0, 0, 0, 1, 1, 2, 2)
BACKWARD_CASES = [
    *((rules, 2, SMALL) for rules in RULES),
    ("bmn", 3, SMALL),
    ("paulhus", 3, SMALL),
    ("paulhus", 4, SMALL),
    *(pytest.param(rules, 2, LARGER, marks=pytest.mark.slow) for rules in RULES),
    *(
        pytest.param(rules, seats, LARGER, marks=pytest.mark.slow)
        for rules in ("bmn", "paulhus")
        for seats in (3, 4)
    ),
]


@pytest.mark.parametrize("rules, seats, deck", BACKWARD_CASES)
def test_backward_play_lists_exactly_the_deals_falling_in(rules, seats, deck):
    """For every cycle of the deck under the rule set, backward play under it lists exactly
    the deals the reference engine sees fall into that cycle, with their loop start."""
    by_key = falling_in(deck, seats, rules)
    assert by_key
    for key, deals in by_key.items():
        assert listed(next(iter(deals)), seats, rules) == deals, key


def test_paulhus_backward_play_reaches_deals_bmn_cannot():
    """Three seats, a deck where seats go out while paying: some deal loops into a cycle under
    Paulhus's reading by a trick bmn's rules play otherwise, and backward play finds it."""
    deck = (0, 0, 0, 0, 0, 1, 1, 2)
    paulhus, bmn = falling_in(deck, 3, "paulhus"), falling_in(deck, 3, "bmn")
    only = {deal for deals in paulhus.values() for deal in deals} - {
        deal for deals in bmn.values() for deal in deals
    }
    assert only


# -- `bmn loop --rules` and `bmn preimages --rules` --------------------------------------------

# Three seats: loops under both readings, alike (docs/endless-both.csv); the second loops under
# bmn's rules only (seat 1 goes out while paying on its way to the cycle).
BOTH = "-J-------J---J----/-A-KKA--KQ-J--A--/--Q-Q----Q--KA---"
BMN_ONLY = "-J--J----J-K--AQK-/------Q---------Q/KA-----K-A---JQA-"


@pytest.mark.parametrize("deal", [BOTH, BMN_ONLY, "-J-/JJ-/---"])
def test_cli_loop_under_paulhus_is_the_reference_engine_s_play(bmn, deal):
    out = json.loads(bmn("loop", deal, "--rules", "paulhus", "--json").stdout)
    ref = reference.play(parse_deal(deal), rules="paulhus")
    assert out["rules"] == "paulhus"
    assert (out["status"], out["cards"], out["tricks"]) == (ref.status, ref.cards, ref.tricks)
    if ref.status == LOOP:
        loop = analyse(parse_deal(deal), rules="paulhus")
        assert (out["key"], out["period_cards"]) == (loop.key, ref.period_cards)
        assert len(out["states"]) == ref.period_tricks


def test_cli_loop_text_names_the_rules(bmn):
    lines = bmn("loop", BMN_ONLY, "--rules", "paulhus").stdout.splitlines()
    assert lines[:2] == [f"deal: {BMN_ONLY}", "rules: paulhus"]
    assert lines[2].startswith("finished: does not loop")


def test_cli_loop_refuses_a_rule_set_for_other_seats(bmn, failed):
    failed(bmn("loop", BOTH, "--rules", "at-once"), 2, "at-once")


def test_cli_preimages_under_paulhus_lists_what_the_reference_engine_plays(bmn):
    """The 3-player deals of a small deck falling into a cycle under Paulhus's reading: each
    listed deal loops there under it (reference engine), and the JSON names the rules."""
    deal = "----/---J/JJ--"  # falls into a two-seat cycle under Paulhus's reading
    assert reference.play(parse_deal(deal), rules="paulhus").status == LOOP
    result = bmn("preimages", deal, "--rules", "paulhus", "--json", "--seat-bound")
    out = json.loads(result.stdout)
    key = analyse(parse_deal(deal), rules="paulhus").key
    assert out["rules"] == "paulhus" and out["complete"] and out["deals"]
    for row in out["deals"]:
        found = parse_deal(row["deal"])
        ref = reference.play(found, rules="paulhus")
        assert (ref.status, ref.loop_start_tricks) == (LOOP, row["pre_tricks"])
        assert analyse(found, rules="paulhus").key == key
