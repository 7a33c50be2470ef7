"""`bmn search --rules`: a run plays the rule set it is given, checked against the reference
engine under that rule set; the store keeps it with the run and a resume plays it again; a kind
that plays bmn's rules only takes a rule set that plays its seats alike and refuses any other in
one line, before a store is made."""

import json

import pytest

from bmn.kernels import reference
from bmn.kernels.deal import decode, format_deal, parse_deal
from bmn.kernels.ranks import arrangements, first_of, next_arrangement
from bmn.records.store import Store
from bmn.search.api import search
from bmn.search.runs.kinds.every import EveryJob, EveryOptions
from bmn.search.runs.loop import RunLoop


def test_a_search_under_paulhus_finds_what_the_reference_engine_plays_under_it(bmn, tmp_path):
    store = tmp_path / "s.sqlite"
    args = ["--rules", "Paulhus", "--players", "3", "--iterations", "3000", "--seed", "5"]
    result = bmn("search", *args, "--workers", "1", "--keep-above", "300", "--store", store,
                 "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["rules"] == "paulhus"
    with Store(store) as db:
        run = db.get_run(summary["run"])
        finds = db.run_finds(run.id)
    assert (run.rules, run.params["rules"]) == ("paulhus", "paulhus")
    differ = 0
    for find in finds:
        deal = parse_deal(find.deal)
        ruled = reference.play(deal, rules="paulhus")
        assert (find.cards, find.tricks, find.status) == (ruled.cards, ruled.tricks, ruled.status)
        differ += (reference.play(deal).cards, reference.play(deal).tricks) != (
            ruled.cards,
            ruled.tricks,
        )
    assert len(finds) > 10 and differ > 0  # bmn's rules would have stored other figures


def every_deal(counts, sizes, rules):
    """The reference engine over every deal of a deck: the longest finished game's cards and
    its deal (the first in rank order)."""
    cards, best = first_of(counts), (-1, "")
    for _ in range(arrangements(counts)):
        deal = decode(cards, sizes)
        played = reference.play(deal, rules=rules)
        if played.status == "finished" and played.cards > best[0]:
            best = (played.cards, format_deal(deal))
        next_arrangement(cards)
    return best


@pytest.mark.parametrize(
    "rules",
    ["at-once", *(pytest.param(r, marks=pytest.mark.slow) for r in ("leodog896", "pelagaletto2"))],
)
def test_an_enumeration_under_a_rule_set_equals_the_reference_engine(tmp_path, rules):
    with Store(tmp_path / "s.sqlite") as db:
        options = EveryOptions(deck="6,2,1,1,0", hand_sizes=(5, 5), workers=1, rules=rules)
        summary = RunLoop(db, EveryJob, options).run()
        assert db.get_run(summary.run).rules == rules
    assert (summary.best_cards, summary.best_deal) == every_deal((6, 2, 1, 1, 0), (5, 5), rules)
    assert summary.as_dict()["rules"] == rules


def test_a_resumed_run_plays_its_stored_rules_and_takes_no_other(bmn, failed, tmp_path):
    store = tmp_path / "s.sqlite"
    args = ("--players", "4", "--seed", "3", "--workers", "1", "--store", store, "--json")
    first = bmn("search", "--rules", "paulhus", "--iterations", "500", *args)
    assert first.exit_code == 0, first.output
    with Store(store) as db:
        db.update_run(1, status="stopped")
    failed(
        bmn("search", "--resume", "1", "--rules", "bmn", "--store", store),
        2,
        "--resume takes its settings from the run; drop --rules",
    )
    resumed = bmn("search", "--resume", "1", "--store", store, "--json")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.stdout)["rules"] == "paulhus"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rules", "leodog896", "--players", "3"], "--rules leodog896 is defined for 2 seats"),
        (["--rules", "nope"], "'nope' is not one of 'bmn', 'paulhus'"),
        (
            ["--objective", "grow", "--players", "3", "--rules", "paulhus"],
            "true 3- and 4-seat cycles are grown under bmn's rules",
        ),
        (["--objective", "loop", "--hand-sizes", "4,3,3", "--rules", "n1k06"], "deals 3"),
        (
            ["--strategy", "every", "--deck", "6,2,1,1,0", "--hand-sizes", "4,3,3"]
            + ["--objective", "loop", "--rules", "n1k06"],
            "--rules n1k06 is defined for 2 seats; --hand-sizes 4,3,3 deals 3",
        ),
        (
            ["--strategy", "every", "--deck", "6,2,1,1,0", "--players", "3"]
            + ["--objective", "loop", "--rules", "n1k06"],
            "--rules n1k06 is defined for 2 seats; --players is 3",
        ),
    ],
)
def test_a_rule_set_a_run_cannot_play_is_one_line_and_no_store(
    bmn, failed, tmp_path, args, message
):
    store = tmp_path / "s.sqlite"
    failed(bmn("search", *args, "--iterations", "10", "--store", store), 2, message)
    assert not store.exists()


def test_a_loop_hunt_under_a_rule_set_that_plays_its_seats_as_bmn_s_finds_bmn_s_cycles(
    tmp_path,
):
    """Paulhus's reading differs from bmn's only when a seat runs out while paying, which two
    seats never do on the way into a cycle: a two-seat hunt under it stores its own rule set
    and exactly the cycles the same hunt under bmn's rules stores."""
    store = tmp_path / "s.sqlite"
    common = dict(objective="loop", deck="36,1,1,0,0", iterations=40_000, workers=1, seed=1)
    paulhus = search(store, rules="paulhus", **common)
    bmn = search(store, **common)
    with Store(store) as db:
        assert db.get_run(paulhus.run).rules == "paulhus"
        cycles = {rules: {row.key for row in db.loops(rules=rules)} for rules in ("bmn", "paulhus")}
    assert cycles["paulhus"] and cycles["paulhus"] == cycles["bmn"]
    assert bmn.cycles == paulhus.cycles


def test_the_records_keep_rule_sets_apart(bmn, tmp_path):
    """top lists each rule set's games apart (a rule set that plays the seats as bmn's does is
    bmn's list), and compare ranks only bmn's, saying how many it left out under which rules."""
    store = tmp_path / "s.sqlite"
    common = dict(iterations=2000, workers=1, seed=4, keep_above=600)
    search(store, players=3, **common)
    search(store, players=3, rules="paulhus", **common)
    search(store, players=2, rules="paulhus", **common)  # two seats: as bmn's
    top = json.loads(bmn("records", "top", "--json", "--store", store).stdout)
    assert {(row["seats"], row["rules"]) for row in top} == {(3, "bmn"), (3, "paulhus"), (2, "bmn")}
    text = bmn("records", "top", "--players", "3", "--store", store).stdout
    assert "3 players, standard deck, paulhus's rules: longest by cards" in text
    compare = json.loads(
        bmn("records", "compare", "--players", "3", "--json", "--store", store).stdout
    )
    with Store(store) as db:
        paulhus = db.count_finds(run=2, status="finished")
        assert {f["run"] for f in compare["finds"]} == {1}
    assert compare["left_out"]["rules"] == {"paulhus": paulhus} and paulhus > 0
    said = bmn("records", "compare", "--players", "3", "--store", store).stdout
    assert f"{paulhus:,} under paulhus's rules" in said


def test_records_published_replays_bmn_s_tables_under_another_rule_set(bmn, failed):
    """The tables hold bmn's rules; --rules replays them under another set, each figure the
    reference engine's, and without it a line says how many end otherwise under Paulhus's."""
    from bmn.records import replay_published

    out = json.loads(bmn("records", "published", "--players", "4", "--rules", "PAULHUS",
                         "--json").stdout)  # fmt: skip
    for row in out:
        ruled = reference.play(parse_deal(row["deal"]), rules="paulhus")
        assert (row["replayed_cards"], row["replayed_tricks"]) == (ruled.cards, ruled.tricks)
        assert row["rules"] == "paulhus"
    other = [row for row in out if not row["matches"]]
    # Of bmn's rows only the first endless deal loops under both; the paulhus rows hold there.
    assert {row["published_rules"] for row in out if row["matches"]} == {"bmn", "paulhus"}
    assert [row["name"] for row in out if row["matches"] and row["published_rules"] == "bmn"] == [
        "bmn 2026 endless #1"
    ]
    assert len(other) == sum(row["published_rules"] == "bmn" for row in out) - 1
    plain = bmn("records", "published", "--players", "4")
    assert f"under paulhus's reading {len(other)} of them end otherwise" in plain.stderr
    # under bmn's rules only the paulhus row that loops under Paulhus's reading alone ends otherwise
    ended = [game.name for game in replay_published(4, "bmn") if not game.matches]
    assert ended == ["bmn 2026 endless (paulhus) #1"]
    failed(bmn("records", "published", "--rules", "nope"), 2, "'nope' is not one of")
