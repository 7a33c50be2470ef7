"""Rule sets as declared (kernels/rules/sets.py) and as the reference engine plays them: the
worked examples of docs/rules.md, "Rule sets", bmn's own tables under Paulhus's reading, and
what two readings must share."""

import pytest
import samples
from hypothesis import strategies as st
from tiers import properties

from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.reference import play
from bmn.kernels.rules.sets import ALIASES, CHOICES, DEFAULT, RULE_SETS, names, rule_set
from bmn.records.published import published_games


def test_each_set_has_its_own_code_and_bmn_is_the_default_with_every_first_choice():
    assert len({rules.code for rules in RULE_SETS.values()}) == len(RULE_SETS)
    bmn = rule_set(None)
    assert bmn.name == DEFAULT == "bmn" and bmn.code == 0
    assert all(getattr(bmn, field) == choices[0] for field, choices in CHOICES.items())


def test_aliases_name_the_set_that_reproduces_their_figures():
    assert {alias: rule_set(alias).name for alias in ALIASES} == {
        "acinnes": "bmn",
        "exercism": "bmn",
        "acinnes-fsm": "n1k06",
        "ab0214": "pelagaletto2",
    }
    assert names() == (*RULE_SETS, *ALIASES)
    with pytest.raises(ValueError, match="unknown rule set 'camicia'; choose one of: bmn, "):
        rule_set("camicia")


def test_a_set_says_which_earlier_set_it_plays_as():
    paulhus = rule_set("paulhus")
    assert [paulhus.plays_as(players) for players in (2, 3, 4)] == ["bmn", "paulhus", "paulhus"]
    assert {rules.plays_as(2) for rules in RULE_SETS.values()} == set(RULE_SETS) - {"paulhus"}


def test_a_set_refuses_seats_it_is_not_defined_for():
    with pytest.raises(ValueError, match="the leodog896 rule set plays \\(2,\\) seats, not 3"):
        play(parse_deal("--K/J-/---"), rules="leodog896")


def test_a_set_with_no_loop_check_plays_a_loop_to_the_limit_or_finds_it_given_none():
    capped = play(samples.LOOP_DEAL, limit=5000, rules="n1k06-gpu")
    assert capped.status == "limit" and 5000 <= capped.cards < 5020
    assert play(samples.LOOP_DEAL, rules="n1k06-gpu") == play(samples.LOOP_DEAL)


# deal, rule set, status, cards, tricks, winner: docs/rules.md's worked examples.
WORKED = [
    ("-J/Q-", "bmn", "finished", 4, 1, 0),
    ("-J/Q-", "n1k06", "finished", 5, 2, 0),  # seat 0 leads once more into the empty hand
    ("-J/Q-", "at-once", "finished", 3, 1, 1),  # seat 0's J, its last card, ends the game
    ("-J/Q-", "leodog896", "finished", 3, 1, 1),  # one battle started: seat 1's Q
    ("-J/Q-", "pelagaletto2", "finished", 3, 0, 1),  # no pile won
    ("J/--", "bmn", "finished", 4, 2, 0),
    ("J/--", "at-once", "finished", 1, 1, 1),
    ("J/--", "leodog896", "finished", 1, 0, 1),  # the card that ends the game starts nothing
    ("Q-/--J", "bmn", "finished", 6, 2, 0),
    ("Q-/--J", "pelagaletto2", "finished", 5, 1, 0),  # seat 1's last card, a J, ends it
    ("./-J", "at-once", "finished", 0, 0, 1),  # a hand dealt empty ends it before it starts
    ("-J/.", "pelagaletto2", "finished", 0, 0, 0),
    ("A--/-/K---", "bmn", "finished", 9, 2, 0),
    ("A--/-/K---", "paulhus", "finished", 5, 1, 2),  # seat 2 pays what seat 1 could not
    ("Q/J/-/-", "paulhus", "finished", 5, 2, 1),
    ("-K-/J/--", "paulhus", "finished", 8, 2, 1),
    (samples.RECORD, "n1k06", "finished", 8345, 1165, 1),
    (samples.RECORD, "pelagaletto2", "finished", 8344, 1164, 1),
]


@pytest.mark.parametrize("deal, rules, status, cards, tricks, winner", WORKED)
def test_worked_examples(deal, rules, status, cards, tricks, winner):
    result = play(parse_deal(deal), rules=rules)
    assert (result.status, result.cards, result.tricks, result.winner) == (
        status,
        cards,
        tricks,
        winner,
    )


def test_a_limit_at_a_lead_lets_the_trick_in_progress_play_on():
    deal = parse_deal("-J/Q-")  # cards 3 and 4 are laid while a penalty is owed
    stopped = [play(deal, limit=2, rules=rules) for rules in ("bmn", "n1k06")]
    assert [(result.status, result.cards) for result in stopped] == [("limit", 2), ("limit", 4)]


def test_bmn_tables_under_paulhus():
    """The issue's figures: most endless 3- and 4-seat deals finish under Paulhus's reading."""
    got = {
        (players, game.name): (result.status, result.cards)
        for players in (3, 4)
        for game in published_games(players)
        for result in [play(parse_deal(game.deal), rules="paulhus")]
    }
    assert got[(3, "bmn 2026 #1")] == ("finished", 4142)  # the same under both readings
    assert [got[(3, f"bmn 2026 endless #{n}")] for n in (1, 2, 3)] == [
        ("finished", 157),
        ("finished", 158),
        ("finished", 160),
    ]
    assert got[(4, "bmn 2026 #2")] == ("finished", 369)
    # the 4,903-card game of searching.md's held-out deals, first on the 4-seat table
    held_out = parse_deal("---Q------JJ-/A-----K-A-K--/AJ--A-K-----Q/--KJQ--Q-----")
    assert published_games(4)[0].deal == format_deal(held_out)
    assert (play(held_out).cards, got[(4, "bmn 2026 #1")]) == (4903, ("finished", 464))
    endless_4 = [got[(4, f"bmn 2026 endless #{n}")][0] for n in range(1, 6)]
    assert endless_4 == ["loop", "finished", "finished", "finished", "finished"]


small_deals = st.lists(st.lists(st.integers(0, 4), max_size=10).map(tuple), min_size=2, max_size=2)


@properties(60, 400, small_deals)
def test_what_the_readings_share_on_two_seats(deal):
    bmn = play(deal)
    assert play(deal, rules="paulhus") == bmn  # with 2 seats the same rules
    n1k06 = play(deal, rules="n1k06")
    if bmn.status == "finished":  # one more card, and one more trick, or none
        assert (n1k06.status, n1k06.winner) == ("finished", bmn.winner)
        assert (n1k06.cards - bmn.cards, n1k06.tricks - bmn.tricks) in ((0, 0), (1, 1))
    else:
        assert n1k06 == bmn
    once = [play(deal, rules=rules) for rules in ("at-once", "leodog896", "pelagaletto2")]
    assert len({(result.status, result.cards, result.winner) for result in once}) == 1
    if once[0].status == "finished":
        assert once[0].cards <= bmn.cards or bmn.status == "loop"
        assert once[2].tricks <= once[0].tricks


any_deal = st.lists(st.lists(st.integers(0, 4), max_size=10).map(tuple), min_size=2, max_size=4)


@properties(40, 300, any_deal, st.sampled_from(sorted(RULE_SETS)))
def test_every_rule_set_keeps_the_cards_and_counts_what_it_says(deal, rules):
    ruleset = rule_set(rules)
    if not ruleset.plays(len(deal)):
        return
    total = sum(len(hand) for hand in deal)
    result = play(deal, limit=2000, trace=True, rules=rules)
    assert all(sum(trick.hand_sizes) == total for trick in result.trace)
    assert sum(trick.cards for trick in result.trace) <= result.cards
    if ruleset.tricks == "taken":
        assert len(result.trace) == result.tricks
    else:  # piles won, or battles started: never more than the piles taken, bar the last
        assert result.tricks <= len(result.trace) + (ruleset.tricks == "battles")
    if result.status == "finished" and result.trace:
        assert result.trace[-1].hand_sizes[result.winner] == total
    if result.status == "loop":
        assert result.loop_start_cards + result.period_cards == result.cards
