"""The published tables (records/published*.csv): each row claims the rule set its figures are
of (its rules column), and replays under it to exactly those figures, by the reference engine
and by the compiled kernel; the reader refuses a row that claims a rule set bmn cannot replay.
The 3- and 4-player tables hold the longest endless deals found under Paulhus's reading beside
bmn's (docs/endless-paulhus.csv, every row of which replays here under both readings)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from tiers import sizes

from bmn.kernels import score_deals
from bmn.kernels.deal import parse_deal
from bmn.kernels.reference import play
from bmn.kernels.rules.sets import RULE_SETS
from bmn.records.published import FILES, published_games, read_published, replay_published

ROOT = Path(__file__).resolve().parents[2]
TABLES = [2, 3, 4]
ROWS = [game for players in TABLES for game in published_games(players)]


def ids(game) -> str:
    return f"{len(game.hands)}p {game.name}"


@pytest.mark.parametrize("game", ROWS, ids=ids)
def test_every_row_replays_under_the_rule_set_it_claims(game):
    result = play(parse_deal(game.deal), rules=game.rules)
    assert (result.status, result.cards, result.tricks) == (game.status, game.cards, game.tricks)


@pytest.mark.parametrize("players", TABLES)
def test_the_compiled_kernel_gives_every_row_its_figures(players):
    games = published_games(players)
    for rules in {game.rules for game in games}:
        mine = [game for game in games if game.rules == rules]
        scores = score_deals([game.deal for game in mine], rules=rules)
        for i, game in enumerate(mine):
            got = scores[i]
            assert (got.status, got.cards, got.tricks) == (game.status, game.cards, game.tricks)


@pytest.mark.parametrize("players", TABLES)
def test_bmn_score_reads_each_row_s_rules_and_agrees(bmn, players):
    """`bmn score` on the shipped file plays each row under its rules column, and agrees."""
    path = ROOT / "records" / FILES[players]
    result = bmn("score", path, "--json")
    assert result.exit_code == 0, result.output
    out = [json.loads(line) for line in result.stdout.splitlines()]
    games = published_games(players)
    assert [row["rules"] for row in out] == [game.rules for game in games]
    assert all(row["agrees"] for row in out)
    assert f"{len(games)} lines state a length: {len(games)} agree, 0 differ" in result.stderr


def test_the_rules_column_is_read():
    for players in TABLES:
        path = ROOT / "records" / FILES[players]
        with path.open(encoding="utf-8") as f:
            claimed = [row["rules"] for row in csv.DictReader(f)]
        assert [game.rules for game in published_games(players)] == claimed
    assert {game.rules for game in published_games(2)} == {"bmn"}
    for players in (3, 4):
        paulhus = [game for game in published_games(players) if game.rules == "paulhus"]
        names = [f"bmn 2026 endless (paulhus) #{n}" for n in range(1, len(paulhus) + 1)]
        assert [game.name for game in paulhus] == names and paulhus


def test_the_replay_is_each_row_under_its_own_rules_unless_one_is_named():
    own = replay_published(3)
    assert [row.rules for row in own] == [row.published_rules for row in own]
    assert all(row.matches for row in own)
    under = replay_published(3, "paulhus")
    assert {row.rules for row in under} == {"paulhus"}
    assert [row.published_rules for row in under] == [row.published_rules for row in own]
    # bmn's endless 3-player deals finish under Paulhus's reading; its paulhus rows loop there
    ended = [row.name for row in under if not row.matches]
    assert ended == ["bmn 2026 #3", *(f"bmn 2026 endless #{n}" for n in (1, 2, 3))]


HEAD = "name,year,hand_1,hand_2,hand_3,status,cards,tricks,rules,note\n"
DEAL = "-J--J----J-K--AQK-,------Q---------Q,KA-----K-A---JQA-"


@pytest.mark.parametrize(
    ("rules", "said"),
    [
        ("nope", "line 2 (x): unknown rule set 'nope'; choose one of: bmn, paulhus"),
        ("", "line 2 (x): unknown rule set ''"),
        ("acinnes", "line 2 (x): unknown rule set 'acinnes'"),  # an alias hides which set
        ("at-once", "line 2 (x): the at-once rule set does not play 3 seats"),
    ],
)
def test_a_row_claiming_a_rule_set_bmn_cannot_replay_is_refused(rules, said):
    text = HEAD + f"x,2026,{DEAL},loop,596,85,{rules},\n"
    with pytest.raises(ValueError, match=re.escape(f"t.csv {said}")):
        read_published(text, 3, "t.csv")
    [game] = read_published(text.replace(f",{rules},", ",paulhus,"), 3, "t.csv")
    assert game.rules == "paulhus"


def test_a_table_without_a_rules_column_is_refused():
    text = HEAD.replace(",rules", "") + f"x,2026,{DEAL},loop,596,85,\n"
    with pytest.raises(ValueError, match="t.csv: no rules column"):
        read_published(text, 3, "t.csv")


def test_every_rule_set_named_is_one_bmn_plays():
    assert all(game.rules in RULE_SETS for game in ROWS)


# -- the endless deals under Paulhus's reading ------------------------------------------------


def found_in(name: str) -> list[dict[str, str]]:
    with (ROOT / "docs" / name).open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


PAULHUS_HUNT = found_in("endless-paulhus.csv")  # lab.endless_both paulhus (docs/endless-games.md)


def paulhus_rows(players: int) -> list:
    return [game for game in published_games(players) if game.rules == "paulhus"]


def test_the_paulhus_rows_are_the_longest_of_the_paulhus_hunt():
    """The longest endless games known under Paulhus's reading, from docs/endless-paulhus.csv:
    3 players, the three longest (each looping under bmn's rules too) and the longest that
    loops under Paulhus's reading only; 4 players, the three longest. Each row's figures are
    the CSV's under Paulhus's reading."""
    longest = {
        players: sorted(
            (r for r in PAULHUS_HUNT if r["players"] == str(players)),
            key=lambda r: -int(r["paulhus_cards"]),
        )
        for players in (3, 4)
    }
    parted = [r for r in longest[3] if r["bmn_status"] != "loop"]
    assert [g.deal for g in paulhus_rows(3)] == [r["deal"] for r in longest[3][:3] + parted[:1]]
    assert [r["bmn_status"] for r in longest[3][:3]] == ["loop"] * 3
    assert [g.deal for g in paulhus_rows(4)] == [r["deal"] for r in longest[4][:3]]
    for game in paulhus_rows(3) + paulhus_rows(4):
        [row] = [r for r in PAULHUS_HUNT if r["deal"] == game.deal]
        stated = (row["paulhus_status"], int(row["paulhus_cards"]), int(row["paulhus_tricks"]))
        assert stated == (game.status, game.cards, game.tricks)
    cards = {players: [g.cards for g in paulhus_rows(players)] for players in (3, 4)}
    assert cards == {3: [859, 858, 840, 828], 4: [985, 984, 983]}


def test_the_endless_deals_under_both_readings_are_longer_than_bmn_s_own_endless_rows():
    """The paulhus rows that loop under bmn's rules too are endless there as well, and longer
    than every endless row bmn's rules claim (docs/records.md says so): they are not listed
    twice, as bmn's 4-player endless #1 is one row, bmn's, that loops under both."""
    for players in (3, 4):
        ours = [g for g in published_games(players) if g.rules == "bmn" and g.status == "loop"]
        both = [g for g in paulhus_rows(players) if play(parse_deal(g.deal)).status == "loop"]
        assert both and min(g.cards for g in both) > max(g.cards for g in ours)
        assert not {g.deal for g in both} & {g.deal for g in ours}


def test_bmn_s_4_player_endless_1_loops_under_both_readings():
    """The 4-player table's endless #1, among the deals of docs/endless-both.csv: one row,
    bmn's, whose note says it loops under both readings rather than listing it twice."""
    found = found_in("endless-both.csv")
    [endless_1] = [g for g in published_games(4) if g.name == "bmn 2026 endless #1"]
    assert endless_1.deal in {r["deal"] for r in found}
    assert "loops under Paulhus's reading too" in endless_1.note
    ruled = play(parse_deal(endless_1.deal), rules="paulhus")
    assert (ruled.status, ruled.cards, ruled.tricks) == ("loop", endless_1.cards, endless_1.tricks)
    assert f"the same game ({endless_1.cards} cards, {endless_1.tricks} tricks)" in endless_1.note


@pytest.mark.parametrize(
    "game", [g for g in ROWS if g.rules == "paulhus"], ids=lambda g: f"{len(g.hands)}p {g.name}"
)
def test_a_paulhus_row_s_note_says_how_each_reading_plays_it(game):
    """Every figure of the note, replayed: the seats out on the cycle under Paulhus's reading,
    its period and where it is entered; whether bmn's rules play the same game (then it never
    ends under either) or part from it (the trick, the seat going out while paying, and bmn's
    game to its end); and the command that found it."""
    deal = parse_deal(game.deal)
    ruled, bmn = (play(deal, rules=rules, trace=True) for rules in ("paulhus", "bmn"))
    assert ruled.status == "loop"
    cycle = (
        f"two-seat cycle of {ruled.period_tricks} tricks and {ruled.period_cards} cards after"
        f" {ruled.loop_start_tricks} tricks ({ruled.loop_start_cards} cards)"
    )
    assert cycle in game.note
    from bmn.kernels.cycles.loops import analyse

    out = [s for s, h in enumerate(analyse(deal, rules="paulhus").states[0].hands) if h is None]
    said = f"seat {out[0]} goes out" if len(out) == 1 else f"seats {out[0]} and {out[1]} go out"
    assert len(out) == len(game.hands) - 2 and said in game.note
    if bmn.trace == ruled.trace:  # the same game, trick for trick
        assert "never ends under either reading, the same game under both" in game.note
    else:
        assert bmn.status == "finished"  # the one kind of row of these tables that parts
        assert game.note.startswith("never ends under Paulhus's reading: ")
        parted = next(
            i
            for i, pair in enumerate(zip(bmn.trace, ruled.trace, strict=False))
            if len(set(pair)) > 1
        )
        # the seat going out while paying: under Paulhus's reading the only one left empty
        [payer] = [s for s, n in enumerate(ruled.trace[parted].hand_sizes) if n == 0]
        part = f"the readings part at trick {parted + 1}, where seat {payer} goes out while paying"
        assert part in game.note
        ended = f"seat {bmn.winner} wins after {bmn.cards} cards and {bmn.tricks} tricks"
        assert f"under bmn's rules the game finishes: {ended}" in game.note
    # how it was found, in a user's words: no developer's command (the lab is not installed)
    assert "docs/endless-games.md, 'The Paulhus hunt'" in game.note and "lab." not in game.note


def test_the_paulhus_hunt_s_csv_is_its_deals_longest_first():
    """docs/endless-paulhus.csv: the 3-player deals, then the 4-player ones, each longest game
    under Paulhus's reading first; every deal once, every one looping under that reading."""
    players = [int(r["players"]) for r in PAULHUS_HUNT]
    assert players == sorted(players) and set(players) == {3, 4}
    for seats in (3, 4):
        cards = [int(r["paulhus_cards"]) for r in PAULHUS_HUNT if r["players"] == str(seats)]
        assert cards == sorted(cards, reverse=True)
    assert len({r["deal"] for r in PAULHUS_HUNT}) == len(PAULHUS_HUNT)
    assert {r["paulhus_status"] for r in PAULHUS_HUNT} == {"loop"}
    counts = {
        (seats, alike): sum(
            r["players"] == str(seats) and r["alike"] == alike for r in PAULHUS_HUNT
        )
        for seats in (3, 4)
        for alike in ("True", "False")
    }
    assert counts == {(3, "True"): 318, (3, "False"): 21, (4, "True"): 28, (4, "False"): 61}


# The fast tier's sample: the longest of each seat count (the published ones) and every 60th.
QUICK = PAULHUS_HUNT[:4] + PAULHUS_HUNT[339:342] + PAULHUS_HUNT[60::60]


@pytest.mark.parametrize("rows", sizes(QUICK, PAULHUS_HUNT))
def test_every_deal_of_the_paulhus_hunt_replays_to_its_figures_under_both_readings(rows):
    """Each row of docs/endless-paulhus.csv by the reference engine: a standard deal dealt
    evenly, seat 0 to lead; its status, cards and tricks under each reading; whether both play
    it alike, trick for trick; and the period of bmn's cycle (empty where bmn's game ends)."""
    from bmn.kernels.decks import even_sizes, is_standard

    for row in rows:
        deal = parse_deal(row["deal"])
        assert len(deal) == int(row["players"]), row
        assert is_standard(deal) and tuple(map(len, deal)) == even_sizes(52, len(deal)), row
        games = {rules: play(deal, rules=rules, trace=True) for rules in ("bmn", "paulhus")}
        for rules, game in games.items():
            stated = [row[f"{rules}_{figure}"] for figure in ("status", "cards", "tricks")]
            assert [game.status, str(game.cards), str(game.tricks)] == stated, (rules, row)
        bmn, ruled = games["bmn"], games["paulhus"]
        alike = bmn.trace == ruled.trace and bmn.status == ruled.status
        assert str(alike) == row["alike"], row
        period = (
            ("", "") if bmn.status != "loop" else (str(bmn.period_cards), str(bmn.period_tricks))
        )
        assert (row["period_cards"], row["period_tricks"]) == period, row


# -- shown: the rules column, or the name, at every width ------------------------------------


def drawn(bmn, monkeypatch, width: int, *args: object) -> list[str]:
    from bmn.frontends.output import tables

    monkeypatch.setattr(tables, "stdout_is_terminal", lambda: True)
    result = bmn(*args, env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


@pytest.mark.parametrize("width", [60, 80, 120, 160])
@pytest.mark.parametrize("players", [3, 4])
def test_records_published_says_which_rules_each_row_claims(bmn, monkeypatch, width, players):
    """A wide window has a rules column; at 80 it gives way and the name says it (these names
    do); a window too narrow for the deals gets plain columns, the rules among them; a loop's
    status stays in sight at every width."""
    lines = drawn(bmn, monkeypatch, width, "records", "published", "--players", players)
    assert width < 80 or all(len(line) <= width for line in lines)  # narrower: plain columns
    text = "\n".join(lines)
    for game in published_games(players):
        [at] = [i for i, line in enumerate(lines) if game.deal in line]
        row = lines[at]
        if "rules" in lines[0].split():
            assert re.search(rf"\b{game.rules}\s+loop\s+{game.cards}\b", row) or (
                game.status == "finished" and f" {game.rules} " in row
            ), row
        elif game.rules != "bmn":  # the name, wrapped at its spaces, says the rule set
            name = " ".join(line[:20].strip() for line in lines[at : at + 4])
            assert f"({game.rules})" in name, lines[at : at + 4]
        if game.status == "loop":
            assert "loop" in row, row
    if "rules" not in lines[0].split():
        assert "rules (in name)" in " ".join(line.strip() for line in lines)
    assert width < 120 or "rules" in lines[0].split(), text


# The rows that loop under Paulhus's reading only: bmn's rules finish them.
PARTED = {2: [], 3: ["bmn 2026 endless (paulhus) #4"], 4: ["bmn 2026 endless (paulhus) #1"]}


@pytest.mark.parametrize("players", TABLES)
def test_records_published_json_rows_carry_the_rules(bmn, players):
    out = json.loads(bmn("records", "published", "--players", players, "--json").stdout)
    games = published_games(players)
    assert [row["published_rules"] for row in out] == [game.rules for game in games]
    assert [row["rules"] for row in out] == [game.rules for game in games]  # replayed under
    assert all(row["matches"] for row in out)
    under = json.loads(
        bmn("records", "published", "--players", players, "--rules", "bmn", "--json").stdout
    )
    assert {row["rules"] for row in under} == {"bmn"}
    assert [row["published_rules"] for row in under] == [game.rules for game in games]
    # the paulhus rows that loop under both play alike under bmn's; those of Paulhus's reading
    # only finish there
    parted = [
        g.name for g in games if play(parse_deal(g.deal)).status != "loop" and g.rules != "bmn"
    ]
    assert [row["name"] for row in under if not row["matches"]] == parted
    assert parted == PARTED[players]
    plain = bmn("records", "published", "--players", players, "--rules", "bmn")
    mixed = players > 2
    said = f"under bmn's rules {len(games) - len(parted)} of {len(games)} games play as published"
    assert (said in plain.stderr) == mixed, plain.stderr
