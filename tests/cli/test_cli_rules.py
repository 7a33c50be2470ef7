"""`--rules NAME` on the game and kernel commands: each plays the rule set the reference engine
plays under that name (kernels/rules/sets.py), says which in its output, and refuses in one line
a name it does not know or a seat count the set does not play."""

import json

import pytest
import samples

from bmn.kernels.cpu.benchmark import DEFAULT_SEED
from bmn.kernels.deal import decode, format_deal, parse_deal
from bmn.kernels.dealer import random_deals
from bmn.kernels.reference import play
from bmn.kernels.rng import seed_state
from bmn.kernels.rules.sets import names
from bmn.records.published import published_games

THREE = "--K------A-A----J-/A-----K-A--Q-J---/-JJ-QK-Q-----KQ--"  # bmn deal --players 3 --seed 5


def figures(result) -> tuple:
    return result.status, result.cards, result.tricks, result.winner


def test_play_paulhus_on_three_seats_is_the_reference_engines_game_not_bmns(bmn):
    deal = parse_deal(THREE)
    want = play(deal, rules="paulhus")
    assert figures(want) != figures(play(deal))  # the deal tells the two readings apart
    out = json.loads(bmn("play", THREE, "--rules", "paulhus", "--json").stdout)
    assert (out["status"], out["cards"], out["tricks"], out["winner"]) == figures(want)
    assert out["rules"] == "paulhus"
    text = bmn("play", THREE, "--rules", "PAULHUS").stdout.splitlines()
    assert text[1] == "rules: paulhus"
    assert text[2] == f"finished: {want.cards} cards, {want.tricks} tricks; seat 1 wins"


def test_play_the_4_seat_table_games_under_paulhus(bmn):
    """The issue's figures: the 4-player table's 4,136-card game ends after 369 cards under
    Paulhus's reading, and the 4,903-card game after 464."""
    games = {g.cards: g.deal for g in published_games(4) if g.cards in (4136, 4903)}
    for cards, under in ((4136, 369), (4903, 464)):
        played = [bmn("play", games[cards], "--json", *r) for r in ([], ["--rules", "paulhus"])]
        got = [(json.loads(p.stdout)["cards"], json.loads(p.stdout)["rules"]) for p in played]
        assert got == [(cards, "bmn"), (under, "paulhus")]


def test_default_rules_are_named_in_json_and_not_in_text(bmn):
    out = json.loads(bmn("play", samples.RECORD, "--json").stdout)
    assert out == {"status": "finished", "cards": 8344, "tricks": 1164, "winner": 1, "rules": "bmn"}
    assert "rules" not in bmn("play", samples.RECORD).stdout


def test_an_alias_plays_and_names_its_rule_set(bmn):
    out = json.loads(bmn("play", samples.RECORD, "--rules", "ab0214", "--json").stdout)
    want = play(parse_deal(samples.RECORD), rules="pelagaletto2")
    assert (out["cards"], out["tricks"], out["rules"]) == (want.cards, want.tricks, "pelagaletto2")
    assert (want.cards, want.tricks) == (8344, 1164)  # ab0214 tests/Game_test.cpp


def test_paulhus_with_two_seats_says_it_plays_as_bmn(bmn):
    result = bmn("play", samples.RECORD, "--rules", "paulhus")
    assert "rules: paulhus (with 2 seats, as bmn)" in result.stdout
    assert "finished: 8,344 cards, 1,164 tricks" in result.stdout


def test_a_typo_names_every_choice(bmn, failed):
    line = failed(bmn("play", "-J/Q-", "--rules", "paulus"), 2, "'paulus'", "--rules")
    assert all(f"'{name}'" in line for name in names())


@pytest.mark.parametrize(
    "args",
    [
        ["play", THREE, "--rules", "leodog896"],
        ["loop", THREE, "--rules", "leodog896"],
        ["stats", "--players", "3", "--deals", "10", "--rules", "leodog896"],
        ["bench", "--players", "3", "--deals", "10", "--rules", "leodog896"],
        ["selfcheck", "--players", "3", "--deals", "10", "--rules", "leodog896"],
    ],
)
def test_a_rule_set_that_does_not_play_the_seats_is_one_line(bmn, failed, args):
    failed(bmn(*args), 2, "rule set 'leodog896' plays 2 seats", "3")


def test_n1k06_gpu_plays_on_to_a_limit_and_finds_loops_without_one(bmn):
    """N1k06's capped counts: no loop check under a limit (the game plays on to it); given no
    limit, a loop is found as bmn finds it."""
    plays = [["--limit-cards", "500"], []]
    got = [
        json.loads(bmn("play", samples.CASELLA, "--rules", "n1k06-gpu", "--json", *a).stdout)
        for a in plays
    ]
    want = [
        play(parse_deal(samples.CASELLA), limit=limit, rules="n1k06-gpu") for limit in (500, None)
    ]
    assert [(g["status"], g["cards"], g["rules"]) for g in got] == [
        (w.status, w.cards, "n1k06-gpu") for w in want
    ]
    assert [g["status"] for g in got] == ["limit", "loop"]


def test_loop_plays_every_rule_set_and_refuses_one_for_other_seats(bmn, failed):
    same = json.loads(bmn("loop", samples.CASELLA, "--rules", "paulhus", "--json").stdout)
    assert (same["period_cards"], same["rules"]) == (440, "paulhus")
    assert (
        "rules: paulhus (with 2 seats, as bmn)"
        in bmn("loop", samples.CASELLA, "--rules", "paulhus").stdout
    )
    once = json.loads(bmn("loop", samples.CASELLA, "--rules", "at-once", "--json").stdout)
    ref = play(parse_deal(samples.CASELLA), rules="at-once")
    assert (once["status"], once["cards"], once["rules"]) == (ref.status, ref.cards, "at-once")
    three = "-J--J----J-K--AQK-/------Q---------Q/KA-----K-A---JQA-"
    failed(bmn("loop", three, "--rules", "at-once"), 2, "at-once")


def test_score_at_once_equals_the_reference_engine_deal_by_deal(bmn):
    rows, sizes = random_deals(40, seed_state(11), 2)
    deals = [decode(row, size) for row, size in zip(rows, sizes, strict=True)]
    text = "\n".join(map(format_deal, deals)) + "\n"
    result = bmn("score", "--rules", "at-once", "--json", input=text)
    assert result.exit_code == 0, result.output
    got = [json.loads(line) for line in result.stdout.splitlines()]
    want = [{**play(deal, rules="at-once").as_dict(), "rules": "at-once"} for deal in deals]
    assert [{k: v for k, v in g.items() if k != "deal"} for g in got] == want
    assert want != [{**play(deal).as_dict(), "rules": "at-once"} for deal in deals]
    assert result.stderr.splitlines()[0] == "rules: at-once"


def test_score_stops_at_a_deal_of_seats_the_rule_set_does_not_play(bmn):
    result = bmn("score", "--rules", "leodog896", input=f"-J/Q-\n{THREE}\n-J/Q-\n")
    assert result.exit_code == 2
    assert result.stdout.splitlines() == [
        f"-J/Q- {_describe(play(parse_deal('-J/Q-'), rules='leodog896'))}"
    ]
    assert result.stderr.splitlines()[-1] == (
        "Error: line 2: a deal of 3 hands; rule set 'leodog896' plays 2 seats"
    )


def _describe(result) -> str:
    from bmn.frontends.output.games import describe

    return describe(result)


def test_stats_under_paulhus_are_the_reference_engines(bmn):
    rows, sizes = random_deals(30, seed_state(4), 3)
    results = [
        play(decode(row, size), rules="paulhus") for row, size in zip(rows, sizes, strict=True)
    ]
    out = json.loads(
        bmn(
            "stats",
            "--players",
            "3",
            "--deals",
            "30",
            "--seed",
            "4",
            "--rules",
            "paulhus",
            "--json",
        ).stdout
    )
    assert out["rules"] == "paulhus"
    assert out["cards"]["longest"] == max(r.cards for r in results if r.status == "finished")
    assert out["finished"] == sum(r.status == "finished" for r in results)
    assert bmn(
        "stats", "--players", "3", "--deals", "30", "--seed", "4", "--rules", "paulhus"
    ).stdout.startswith("rules: paulhus\n")


def test_two_seat_bench_plays_the_rule_set(bmn):
    """bench times a two-seat rule set through its own compiled total: its cards and tricks are
    the reference engine's under that rule set, not bmn's."""
    n = 300
    rows, sizes = random_deals(n, seed_state(DEFAULT_SEED), 2)
    games = [
        play(decode(row, size), rules="leodog896") for row, size in zip(rows, sizes, strict=True)
    ]
    out = json.loads(bmn("bench", "--deals", n, "--rules", "leodog896", "--json").stdout)
    want = (sum(g.cards for g in games) / n, sum(g.tricks for g in games) / n)
    assert (out["rules"], out["mean_cards"], out["mean_tricks"]) == ("leodog896", *want)
    bmns = json.loads(bmn("bench", "--deals", n, "--json").stdout)
    assert bmns["mean_tricks"] != out["mean_tricks"]  # battles, not piles taken


def test_bench_and_selfcheck_under_a_rule_set(bmn):
    n = 300
    rows, sizes = random_deals(n, seed_state(DEFAULT_SEED), 3)
    cards = sum(
        play(decode(row, size), rules="paulhus").cards
        for row, size in zip(rows, sizes, strict=True)
    )
    out = json.loads(
        bmn("bench", "--players", "3", "--deals", n, "--rules", "paulhus", "--json").stdout
    )
    assert (out["rules"], out["mean_cards"]) == ("paulhus", cards / n)
    text = bmn("bench", "--players", "3", "--deals", n, "--rules", "paulhus").stdout
    assert "3-player deals (paulhus's rules)" in text
    check = bmn("selfcheck", "--players", "3", "--deals", 500, "--rules", "paulhus")
    assert check.exit_code == 0, check.output
    assert check.stdout.strip().endswith("under rule set paulhus")
