"""`bmn records top|runs|show|export|compare` over a small store, and their error cases."""

import csv
import functools
import io
import json
import sqlite3

import pytest
from errors import error_line
from samples import CASELLA, PAULHUS, RECORD

from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.reference import play
from bmn.records.store import FIND_KEYS, TOP_KEYS, Find, Store

# A standard deal stored with a made-up length of 7000 cards: it would rank 7th of the 9
# finishing published records plus itself (six of them are longer).
FAKE = "-" * 20 + "JJJJQQ/QQKKKKAAAA" + "-" * 16


@pytest.fixture
def store(tmp_path):
    path = tmp_path / "night.sqlite"
    with Store(path) as db:
        one = db.create_run("walk", "cards", 1, {"time": "8h"})
        db.add_finds(one, [Find(PAULHUS, 4791, 670, elapsed=5.0), Find(CASELLA, 474, 66, "loop")])
        db.update_run(one, status="finished", games=10**6, seconds=3600.0, best_deal=PAULHUS)
        two = db.create_run("climb", "tricks", 2, {})
        db.add_finds(two, [Find(PAULHUS, 4791, 670), Find(FAKE, 7000, 1000, elapsed=2.5)])
    return str(path)


@pytest.fixture
def records(bmn):
    """`bmn records ARGS...`"""
    return functools.partial(bmn, "records")


@pytest.fixture
def ok(records):
    """`bmn records ARGS...`, which must succeed: its stdout."""

    def succeed(*args):
        result = records(*args)
        assert result.exit_code == 0, result.output
        return result.stdout

    return succeed


def test_fake_deal_is_standard():
    assert len(FAKE) == 53 and sorted(FAKE.replace("/", "")) == sorted("-" * 36 + "JQKA" * 4)


def test_top_json_keys_and_order(ok, store):
    rows = json.loads(ok("top", "--json", "--store", store))
    assert all(tuple(row) == (*TOP_KEYS, "seats", "deck", "rules") for row in rows)
    assert [(r["deal"], r["cards"], r["run"], r["deck"]) for r in rows] == [
        (FAKE, 7000, 2, "standard deck"),
        (PAULHUS, 4791, 1, "standard deck"),
        (CASELLA, 474, 1, None),  # a loop comes after the finished games, not by its cards
    ]
    assert rows[2]["status"] == "loop" and {r["seats"] for r in rows} == {2}


def test_top_options(ok, store):
    one = json.loads(ok("top", "-n", "1", "--json", "--store", store))
    assert [r["deal"] for r in one] == [FAKE, CASELLA]  # one of each list: finished, loops
    rows = json.loads(ok("top", "--min-cards", "1000", "--json", "--store", store))
    assert [r["cards"] for r in rows] == [7000, 4791]
    rows = json.loads(ok("top", "--by", "tricks", "--json", "--store", store))
    assert [r["tricks"] for r in rows] == [1000, 670, 66]
    text = ok("top", "--store", store)
    assert text.splitlines()[0] == "2 players, standard deck: longest by cards"
    assert text.splitlines()[1].split()[:3] == ["#", "cards", "tricks"]
    assert FAKE in text.splitlines()[2] and "7,000" in text.splitlines()[2]
    loops = text.split("games that never end (all), not ranked")[1]
    assert CASELLA in loops and "474" not in loops


def test_store_from_environment(records, store):
    result = records("top", "--json", env={"BMN_STORE": store})
    assert result.exit_code == 0 and len(json.loads(result.stdout)) == 3


def test_runs(ok, store):
    rows = json.loads(ok("runs", "--json", "--store", store))
    assert [(r["id"], r["strategy"], r["status"]) for r in rows] == [
        (1, "walk", "finished"),
        (2, "climb", "running"),
    ]
    assert rows[0]["params"] == {"time": "8h"} and rows[0]["games"] == 10**6
    text = ok("runs", "--store", store)
    assert "1,000,000" in text and "1h00m" in text and "climb" in text


def test_show_found_deal_in_other_notation(ok, store):
    ranks = PAULHUS.replace("-", "7").replace("/", " ")
    shown = json.loads(ok("show", *ranks.split(), "--json", "--store", store))
    assert shown["deal"] == PAULHUS
    assert shown["result"] == play(parse_deal(PAULHUS)).as_dict()
    assert [(f["run"], f["elapsed"]) for f in shown["finds"]] == [(1, 5.0), (2, 0.0)]
    assert shown["matches"] is True
    assert shown["published_rank"] == {"rank": 9, "of": 9, "published": "Paulhus 1999"}
    text = ok("show", PAULHUS, "--store", store)
    assert "replayed: finished: 4,791 cards, 670 tricks" in text
    assert "found 2 times" in text


def test_show_flags_a_stored_result_that_differs(ok, store):
    shown = json.loads(ok("show", FAKE, "--json", "--store", store))
    assert shown["matches"] is False
    assert shown["result"]["cards"] == play(parse_deal(FAKE)).cards != 7000
    assert "<-- differs: stored 7,000 cards, replayed" in ok("show", FAKE, "--store", store)


def test_show_deal_not_in_store_and_loop(ok, store):
    shown = json.loads(ok("show", "-J", "Q-", "--json", "--store", store))
    assert shown["finds"] == [] and shown["published_rank"] is None
    assert "not in the store" in ok("show", "-J/Q-", "--store", store)
    loop = json.loads(ok("show", CASELLA, "--json", "--store", store))
    assert loop["result"]["status"] == "loop" and loop["matches"] is True


def test_show_names_the_published_game_a_deal_is(ok, store):
    """Casella 2024's endless deal and bmn's own endless 3- and 4-player deals were shown as
    any other deal; a finished record is named as well."""
    from bmn.records.published import published_games

    text = ok("show", RECORD, "--store", store)
    assert "published: Nessler 2022, 8,344 cards, 1,164 tricks" in text.splitlines()
    text = ok("show", CASELLA, "--store", store)
    assert "published: Casella 2024, a game that never ends, repeating at 474 cards" in text
    for seats in (3, 4):
        game = next(g for g in published_games(seats) if g.status == "loop")
        shown = json.loads(ok("show", game.deal, "--json", "--store", store))
        assert shown["published"]["name"] == game.name and shown["published"]["status"] == "loop"
        text = ok("show", game.deal, "--store", store)
        assert f"published: {game.name} (bmn's {seats}-player table), a game that never" in text
    assert json.loads(ok("show", "-J/Q-", "--json", "--store", store))["published"] is None
    assert "published:" not in ok("show", "-J/Q-", "--store", store)


def test_show_replays_under_rules(ok, records, store):
    from bmn.records.published import published_games

    game = next(g for g in published_games(3) if g.status == "loop")
    under = play(parse_deal(game.deal), rules="paulhus").as_dict()
    assert under != play(parse_deal(game.deal)).as_dict()  # paulhus plays it otherwise
    shown = json.loads(ok("show", game.deal, "--rules", "paulhus", "--json", "--store", store))
    assert shown["result"] == under and shown["rules"] == "paulhus"
    text = ok("show", game.deal, "--rules", "paulhus", "--store", store).splitlines()
    assert text[1] == "rules: paulhus" and text[2].startswith("replayed: ")
    ranked = json.loads(ok("show", RECORD, "--rules", "paulhus", "--json", "--store", store))
    assert ranked["published_rank"]["published"] == "Nessler 2022"  # 2 seats: paulhus is bmn's
    two = records("show", "-J/Q-/-", "--rules", "at-once", "--store", store)
    assert two.exit_code == 2 and "rule set 'at-once' plays 2 seats" in two.stderr


def test_top_and_compare_of_a_store_of_cycles_only_say_what_it_holds(ok, tmp_path):
    """A loop hunt stores cycles, not finds: the store said it had nothing ("0 looping deals"
    on its page) while it holds them."""
    from samples import stored_cycle

    path = tmp_path / "cycles.sqlite"
    with Store(path) as db:
        db.add_loops(db.create_run("loop-hunt", "loop", 1, {}), [(stored_cycle(), 1)])
    held = f"it holds 1 cycle of games that never end, listed by: bmn records loops --store {path}"
    assert ok("top", "--store", path).strip() == f"no finds in the store match; {held}"
    assert ok("compare", "--store", path).splitlines()[-1] == (
        f"the store has no finished standard-deck finds yet; {held}"
    )
    assert ok("top", "--players", 3, "--store", path).strip() == "no finds in the store match"


def test_show_bad_deal_is_usage_error(records, store):
    result = records("show", "-X-", "--store", store)
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_export_csv_and_json(ok, store):
    rows = list(csv.DictReader(io.StringIO(ok("export", "--store", store))))
    assert len(rows) == 4 and tuple(rows[0]) == (*FIND_KEYS, "rules", "deck_counts")
    assert [r["deal"] for r in rows] == [PAULHUS, CASELLA, PAULHUS, FAKE]
    data = json.loads(ok("export", "--format", "json", "--store", store))
    assert data == json.loads(ok("export", "--json", "--store", store))
    assert [tuple(r) for r in data] == [(*FIND_KEYS, "rules", "deck_counts")] * 4
    assert (data[3]["strategy"], data[3]["elapsed"], data[3]["cards"]) == ("climb", 2.5, 7000)


def test_export_writes_elapsed_to_the_millisecond(ok, tmp_path):
    path = tmp_path / "clock.sqlite"
    with Store(path) as db:
        run = db.create_run("walk", "cards", 1, {})
        db.add_finds(run, [Find(PAULHUS, 4791, 670, elapsed=12.345678901234567)])
    assert list(csv.DictReader(io.StringIO(ok("export", "--store", path))))[0]["elapsed"] == (
        "12.346"
    )
    assert json.loads(ok("export", "--json", "--store", path))[0]["elapsed"] == 12.346


def test_compare_ranks_finds_among_published(ok, store):
    out = json.loads(ok("compare", "--json", "--store", store))
    assert [p["rank"] for p in out["published"]] == list(range(1, 10))
    assert out["published"][0]["cards"] == 8344
    ranks = {f["deal"]: (f["rank"], f["of"], f["published"]) for f in out["finds"]}
    assert ranks == {FAKE: (7, 10, None), PAULHUS: (9, 9, "Paulhus 1999")}  # no loops
    text = ok("compare", "--store", store)
    assert "run 2: 7th" in text and "Nessler 2022" in text  # 'of 10' said once, below
    assert "run 1: Paulhus 1999" in text  # a find that is a published game says which
    best = "the best find (run 2, 7,000 cards): between Mann and Wu 2007 (7,157) and Collins"
    assert best in text and text.endswith("\nleft out: 1 loop\n")


def test_compare_finds_below_all_records(ok, tmp_path):
    path = tmp_path / "small.sqlite"
    with Store(path) as db:
        db.add_finds(db.create_run("walk", "cards", 1, {}), [Find("-J/Q-", 4, 1)])
    text = ok("compare", "--store", str(path))
    start = "the published records start at 4,791 cards (Paulhus 1999): would rank 10th of 10"
    assert start in text
    assert "the 9 published games that finish" in text and "Casella 2024 never ends" in text
    with Store(tmp_path / "empty.sqlite"):
        pass
    empty = ok("compare", "--store", str(tmp_path / "empty.sqlite"))
    assert "no finished standard-deck finds yet" in empty and "left out" not in empty


def seated_store(path, finds_by_seats: dict[int, int]):
    """A store of `n` finished standard deals of each seat count (random, real games)."""
    from bmn.kernels.dealer import shuffled_deal

    with Store(path) as db:
        for seats, n in finds_by_seats.items():
            run = db.create_run("random", "cards", 1, {}, seats=seats)
            deals = [format_deal(shuffled_deal(seats, seed)) for seed in range(n)]
            results = [(deal, play(parse_deal(deal))) for deal in deals]
            db.add_finds(run, [Find(d, r.cards, r.tricks, r.status) for d, r in results])
    return str(path)


def test_compare_names_the_players_of_the_finds_it_has(ok, tmp_path):
    """A store of 3-player finds only said 'no finished standard-deck finds yet', nothing of
    its 83 finds: now it says how many, and the --players to give."""
    path = seated_store(tmp_path / "three.sqlite", {3: 83})
    text = ok("compare", "--store", path)
    assert (
        "the store has no finished 2-player standard-deck finds yet; it has 83 finished"
        " standard-deck finds of 3 players: give --players 3\n" in text
    )
    ranked = ok("compare", "--players", "3", "--store", path)  # as it says: they rank there
    assert "no finished" not in ranked and "the best find (run 1, " in ranked
    four = ok("compare", "--players", "4", "--store", path)
    assert "no finished 4-player standard-deck finds yet; it has 83 finished standard" in four


def test_compare_names_each_other_seat_count(ok, tmp_path):
    path = seated_store(tmp_path / "both.sqlite", {3: 1, 4: 5})
    text = ok("compare", "--store", path)
    said = (
        "it has 1 finished standard-deck find of 3 players and 5 of 4 players: give --players 3"
        " or --players 4"
    )
    assert said in text
    for players, run in ((3, 1), (4, 2)):  # each ranks its own finds: no line to say more
        ranked = ok("compare", "--players", str(players), "--store", path)
        assert "give --players" not in ranked and f"the best find (run {run}, " in ranked
    out = json.loads(ok("compare", "--json", "--store", path))  # JSON as it was
    assert out["finds"] == [] and out["left_out"]["seats"] == {"3": 1, "4": 5}


def test_the_hint_for_other_seat_counts_counts_only_finds_that_compare(ok, tmp_path):
    """3-seat finds of another deck rank nowhere: `--players 3` would show none of them."""
    path = seated_store(tmp_path / "three.sqlite", {3: 4})
    with Store(path) as db:
        run = db.create_run("walk", "cards", 7, {"deck": "14,2,2,2,0"}, seats=3)
        db.add_finds(run, [Find("--J-/Q--/-K-", 10, 2)])
    text = ok("compare", "--store", path)
    assert "it has 4 finished standard-deck finds of 3 players: give --players 3" in text


def test_canonical_fixture_deals():
    for deal in (RECORD, PAULHUS, CASELLA, FAKE):
        assert format_deal(parse_deal(deal)) == deal


COMMANDS = [["top"], ["runs"], ["show", RECORD], ["export"], ["compare"]]


def one_line_error(result, code: int, text: str) -> None:
    assert error_line(result, code).startswith("Error:") and text in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1  # a store error: no usage hint


@pytest.mark.parametrize("args", [args for args in COMMANDS if args[0] != "show"])
def test_missing_store_is_error_and_not_created(records, tmp_path, args):
    path = tmp_path / "absent.sqlite"
    one_line_error(records(*args, "--store", str(path)), 1, "no record store")
    assert not path.exists()


@pytest.mark.parametrize("args", COMMANDS)
def test_foreign_or_garbage_store_is_error(records, tmp_path, args):
    foreign = tmp_path / "other.sqlite"
    sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.close()
    one_line_error(records(*args, "--store", str(foreign)), 1, "not a bmn record store")
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"\x89PNG\r\n" + bytes(range(256)) * 8)
    one_line_error(records(*args, "--store", str(garbage)), 1, "not an SQLite database")


def test_newer_store_is_error(records, store):
    conn = sqlite3.connect(store)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    one_line_error(records("top", "--store", store), 1, "newer than this bmn understands")


def test_bad_options_are_usage_errors(records, store):
    for args in (["top", "--by", "length"], ["top", "-n", "0"], ["export", "--format", "xml"]):
        result = records(*args, "--store", store)
        assert result.exit_code == 2 and "Traceback" not in result.output


def test_export_writes_each_find_as_the_csv_and_json_modules_write_it(bmn, tmp_path):
    """The export's writers format a block of finds at a time: each line must be what
    csv.writer and json.dumps write of that find, the finds those the store reads one by one,
    in bulk and in rows, and --min-cards keeps only those long enough."""
    import csv as csv_module
    import io

    store = tmp_path / "night.sqlite"
    result = bmn("search", "--iterations", 3000, "--keep-above", 100, "--workers", 1,
                 "--quiet", "--store", store)  # fmt: skip
    assert result.exit_code == 0, result.output
    with Store(store) as db:
        db.add_finds(1, [Find(RECORD, 8344, 1164, elapsed=1 / 3)])
        finds = list(db.all_finds())
    assert len(finds) > 1000
    keys = ("deal", "cards", "tricks", "status", "run", "found_at", "strategy", "elapsed")

    def wanted(find) -> dict:
        row = {key: getattr(find, key) for key in keys}
        row["elapsed"] = round(row["elapsed"], 3)
        counts = ",".join(str(find.deal.count(c)) for c in "-JQKA")
        return row | {"rules": "bmn", "deck_counts": counts}

    out = io.StringIO()
    writer = csv_module.writer(out, lineterminator="\n")
    writer.writerow([*keys, "rules", "deck_counts"])
    writer.writerows(wanted(f).values() for f in finds)
    assert bmn("records", "export", "--store", store).stdout == out.getvalue()
    exported = bmn("records", "export", "--json", "--store", store).stdout
    assert exported.splitlines()[1] == json.dumps(wanted(finds[0])) + ","
    assert json.loads(exported) == [wanted(f) for f in finds]
    long = bmn("records", "export", "--min-cards", 1000, "--store", store).stdout.splitlines()
    assert len(long) - 1 == sum(f.cards >= 1000 for f in finds) > 0
