"""`bmn records` tables on a terminal: drawn by rich to the window's width, every deal and number
whole at 80 columns and more; too narrow for the figures, plain columns with none lost. And what
the tables hold: lists that compare like with like (one seat count, one deck; loops apart)."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console
from samples import CASELLA, PAULHUS

from bmn.frontends.output import tables
from bmn.frontends.output.records import compare_text
from bmn.frontends.output.tables import Table, terminal
from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.dealer import shuffled_deal
from bmn.kernels.reference import play
from bmn.records.published import published_games
from bmn.records.store import Find, Loop, Store

SMALL = "Q--KKJ----/J-------Q-"  # a deal of the 20-card deck 14,2,2,2,0 dealt 10/10
WIDTHS = [80, 100]


def found(deal: str, elapsed: float = 1.0) -> Find:
    result = play(parse_deal(deal))
    return Find(deal, result.cards, result.tricks, result.status, elapsed=elapsed)


@pytest.fixture
def store(tmp_path):
    """Runs of 2, 3 and 4 seats, one of a smaller deck, one that met a loop, one cycle; big
    enough figures that each has its thousands separator to keep whole."""
    path = tmp_path / "tables.sqlite"
    with Store(path) as db:
        two = db.create_run("walk", "cards", 1, {"deck": "standard", "hand_sizes": [26, 26]})
        deals = [PAULHUS] + [format_deal(shuffled_deal(2, seed)) for seed in range(4)]
        db.add_finds(two, [found(deal) for deal in deals] + [found(CASELLA)])
        db.update_run(two, status="interrupted", games=1_234_567_890, seconds=98_765.0)
        for seats in (3, 4):
            run = db.create_run("random", "tricks", seats, {}, seats=seats)
            db.add_finds(run, [found(format_deal(shuffled_deal(seats, s))) for s in range(3)])
        small = db.create_run("climb", "cards", 4, {"deck": "14,2,2,2,0", "hand_sizes": [10, 10]})
        db.add_finds(small, [found(SMALL)])
        cycle = analyse(parse_deal(CASELLA))
        loop = Loop(
            key=cycle.key,
            rotation_key=cycle.rotation_key,
            deck="36,4,4,4,4",
            period_cards=cycle.period_cards,
            period_tricks=cycle.period_tricks,
            cycle_states=cycle.period_tricks,
            balanced_states=1,
            balanced_deals=1_234,
            mirrored_balanced_deals=12,
            basin_states=2_670,
            basin_complete=True,
            example_deal=CASELLA,
            first_deal=CASELLA,
        )
        db.add_loops(two, [(loop, 1)])
    return path


def drawn(bmn, monkeypatch, width: int, *args: object) -> list[str]:
    """`bmn ARGS` on a terminal `width` columns wide, through bmn's own echo: its lines."""
    monkeypatch.setattr(tables, "stdout_is_terminal", lambda: True)
    result = bmn(*args, env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def whole(lines: list[str], text: str) -> bool:
    """Whether `text` stands whole on one line, not part of a longer word or number."""
    pattern = rf"(?<![\w,/-]){re.escape(text)}(?![\w,/-])"
    return any(re.search(pattern, line) for line in lines)


def fits(lines: list[str], width: int) -> None:
    assert lines and all(len(line.rstrip()) <= width for line in lines), "\n".join(lines)


@pytest.mark.parametrize("width", WIDTHS)
def test_records_top_keeps_every_deal_and_number_whole(bmn, monkeypatch, store, width):
    lines = drawn(bmn, monkeypatch, width, "records", "top", "--store", store)
    fits(lines, width)
    rows = json.loads(bmn("records", "top", "--json", "--store", store).stdout)
    assert len(rows) == 5 + 3 + 3 + 1 + 1  # each seat count and deck, and the loop
    for row in rows:
        assert whole(lines, row["deal"]), row["deal"]
        if row["status"] == "finished":
            assert whole(lines, f"{row['cards']:,}") and whole(lines, f"{row['tricks']:,}")
    heads = [line for line in lines if line.endswith(": longest by cards")]
    assert heads == [
        "2 players, standard deck: longest by cards",
        "2 players, deck 14,2,2,2,0 dealt 10/10: longest by cards",
        "3 players, standard deck: longest by cards",
        "4 players, standard deck: longest by cards",
    ]
    loops = lines[lines.index("games that never end (all), not ranked; their cycles: bmn"
                              " records loops"):]  # fmt: skip
    assert whole(loops, CASELLA) and not whole(loops, "474")  # a loop has no card rank


@pytest.mark.parametrize("width", WIDTHS)
def test_records_runs_keeps_heads_and_numbers_whole(bmn, monkeypatch, store, width):
    lines = drawn(bmn, monkeypatch, width, "records", "runs", "--store", store)
    fits(lines, width)
    for word in ("search", "players", "status", "games", "time", "best", "tricks"):
        assert whole(lines, word), word
    assert whole(lines, "1,234,567,890") and whole(lines, "interrupted")
    runs = json.loads(bmn("records", "runs", "--json", "--store", store).stdout)
    for run in runs:
        if run["best_cards"] is not None:
            assert whole(lines, f"{run['best_cards']:,}")
    said = " ".join(line.strip() for line in lines)  # what gives way is said, in order
    assert width >= 100 or "left out to fit 80 columns: started (UTC), objective" in said
    assert whole(lines, "threads")  # where each ran stays, the one column naming a machine


@pytest.mark.parametrize("width", WIDTHS)
def test_records_compare_ranks_in_rows_and_says_it_once(bmn, monkeypatch, store, width):
    lines = drawn(bmn, monkeypatch, width, "records", "compare", "--store", store)
    fits(lines, width)
    out = json.loads(bmn("records", "compare", "--json", "--store", store).stdout)
    for game in out["published"] + out["finds"]:
        assert whole(lines, game["deal"]) and whole(lines, f"{game['cards']:,}")
    assert {f["deal"] for f in out["finds"]} == {PAULHUS} | {
        format_deal(shuffled_deal(2, seed)) for seed in range(4)
    }  # two players and the standard deck only: no loop, no 20-card deck, no 3 or 4 seats
    assert out["left_out"] == {"seats": {"3": 3, "4": 3}, "decks": {"deck 14,2,2,2,0 dealt"
                               " 10/10": 1}, "loops": 1, "rules": {}}  # fmt: skip
    said = " ".join(line.strip() for line in lines)
    assert (
        "left out: 3 finds of 3 players; 3 of 4 players; 1 of the deck 14,2,2,2,0 dealt 10/10;"
        " 1 loop" in said
    )
    assert said.count("the best find") == 1 and "10th of 10" in said


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("args", [["loops"], ["loops", "--standard"], ["published"]])
def test_the_other_records_tables_keep_deals_whole(bmn, monkeypatch, store, width, args):
    extra = [] if args == ["published"] else ["--store", store]
    lines = drawn(bmn, monkeypatch, width, "records", *args, *extra)
    fits(lines, width)
    if args == ["published"]:
        for game in json.loads(bmn("records", "published", "--json").stdout):
            assert whole(lines, f"{game['cards']:,}") and whole(lines, game["name"].split()[0])
    else:
        assert whole(lines, CASELLA) and whole(lines, "440c/62t")


@pytest.mark.parametrize("width", [*WIDTHS, 140])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_records_published_shows_each_deal_whole(bmn, monkeypatch, width, players):
    """Each game's deal, whole on one line, at 80 columns and more (the tricks, the replay and
    the status give way first); one column headed 'replayed', and a rules column where the
    table holds another rule set than bmn's (3 and 4 players: paulhus rows). No year column:
    every name says its year ('Kleber 1999'), and --json gives it."""
    plain = bmn("records", "published", "--players", players).stdout.splitlines()
    rules = ["rules"] if players > 2 else []
    head = ["name", *rules, "status", "cards", "tricks", "replayed", "deal"]
    assert plain[0].split() == head
    games = json.loads(bmn("records", "published", "--players", players, "--json").stdout)
    assert all(str(game["year"]) in game["name"] for game in games)
    assert all(line.split()[-1].count("/") == players - 1 for line in plain[1:])
    lines = drawn(bmn, monkeypatch, width, "records", "published", "--players", players)
    fits(lines, width)
    for game in json.loads(bmn("records", "published", "--players", players, "--json").stdout):
        assert whole(lines, game["deal"]) and whole(lines, f"{game['cards']:,}")


@pytest.mark.parametrize("players", [3, 4])
def test_records_published_under_a_rule_set_keeps_its_figures_at_80_columns(
    bmn, monkeypatch, players
):
    """The figures asked for (--rules) never give way: the published status and cards do."""
    args = ("records", "published", "--players", players, "--rules", "paulhus")
    lines = drawn(bmn, monkeypatch, 80, *args)
    fits(lines, 80)
    assert "paulhus" in lines[0].split()
    for game in json.loads(bmn(*args, "--json").stdout):
        assert whole(lines, game["deal"]) and whole(lines, f"{game['replayed_cards']:,}")


def test_records_published_says_how_a_replay_differs():
    from bmn.frontends.output.records import published_table
    from bmn.records.published import Replayed

    same = Replayed("A 1999", 1999, PAULHUS, "finished", 4791, 670, "finished", 4791, 670)
    off = Replayed("B 2000", 2000, CASELLA, "finished", 9, 2, "loop", 474, 66)
    lines = tables.plain([published_table([same, off])]).splitlines()
    assert lines[1].split()[:6] == ["A", "1999", "finished", "4,791", "670", "same"]
    assert "loop, 474 cards, 66 tricks: differs  " + CASELLA in lines[2]


def test_a_terminal_too_narrow_gets_plain_columns_not_lost_ones(bmn, monkeypatch, store):
    """Issue 26: on a narrow terminal rich dropped every column of `records top` but the deal."""
    plain = bmn("records", "top", "--players", 3, "--store", store).stdout.splitlines()
    lines = drawn(bmn, monkeypatch, 40, "records", "top", "--players", 3, "--store", store)
    assert plain[1].split()[:5] == ["#", "cards", "tricks", "run", "found"]
    assert plain[1:] == lines[-len(plain) + 1 :]  # the heading wraps at spaces; the table whole


def test_a_table_fits_by_giving_way_in_order():
    deal = "-" * 26 + "/" + "J" * 26
    table = Table(
        ["n", "words here", "when", "deal"],
        [[12_345, "a few words to wrap", "2026-12-02 06:43", deal]],
        left=(1, 2, 3),
        wrap=(1,),
        spare=(2,),
    )
    wide = table.fit(120)
    assert wide is not None and wide.left_out == [] and wide.columns == [0, 1, 2, 3]
    narrow = table.fit(82)  # the spare column goes before the words wrap
    assert narrow is not None and narrow.left_out == ["when"]
    assert narrow.widths == [6, len("a few words to wrap"), 53]
    tight = table.fit(70)  # then the words wrap, at spaces only
    assert tight is not None and tight.widths == [6, 70 - 6 - 53 - 2 * 2, 53]
    assert table.fit(60) is None  # "words" and the deal cannot fit: plain columns
    for width in (120, 82, 70, 60):
        console = Console(width=width, force_terminal=True, file=io.StringIO(), color_system=None)
        for block in terminal([table], width):  # as echo prints them: text as it is
            if isinstance(block, str):
                console.file.write(block + "\n")
            else:
                console.print(block)
        out = console.file.getvalue().splitlines()
        assert whole(out, deal) and whole(out, "12,345")
        assert width >= 70 or out == table.plain().splitlines()


def test_compare_text_says_the_rank_sentence_once():
    from bmn.records.report import published_ranking
    from bmn.records.store import FindRow

    ranking = published_ranking()
    rows = [
        FindRow(format_deal(shuffled_deal(2, s)), 100 + s, 10, "finished", 1, "") for s in (1, 2)
    ]
    text = tables.plain(compare_text(rows, ranking))
    assert text.count("the published records start at 4,791 cards") == 1
    assert text.count("would rank 10th of 10") == 2  # once for the rows, once in words
    assert "a find named by its run alone would rank 10th of 10" in text
    assert [line.split()[2:4] for line in text.splitlines() if "run 1" in line][:2] == [
        ["run", "1"],
        ["run", "1"],
    ]  # each row says its run, not its rank again


# -- a game's status at every width; the hint to copy; one way to write a run's time ----------


def rows_of(lines: list[str], deal: str) -> list[str]:
    """The lines of a drawn table that hold `deal` (its row's first line)."""
    return [line for line in lines if whole([line], deal)]


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_records_published_says_a_game_never_ends_at_every_width(bmn, monkeypatch, width, players):
    """At 80 columns the status column gave way and Casella 2024 read as a finished game of
    474 cards: now the row of a game that never ends says so at any width (its own column, or
    `loop (474)` in the cards column when the status gives way), and a finished one never does."""
    lines = drawn(bmn, monkeypatch, width, "records", "published", "--players", players)
    games = json.loads(bmn("records", "published", "--players", players, "--json").stdout)
    endless = [game for game in games if game["status"] != "finished"]
    assert endless, "every table holds an endless game"
    for game in games:
        [row] = rows_of(lines, game["deal"])
        cards = f"{game['cards']:,}"
        if game["status"] == "finished":
            assert "loop" not in row and whole([row], cards), row
        elif "status" in lines[0].split():  # the column kept: the status beside the cards
            assert re.search(rf"\b{game['status']}\s+{cards}\b", row), row
        else:
            assert f"{game['status']} ({cards})" in row, row
    said = " ".join(line.strip() for line in lines)
    assert width != 80 or "status (in cards)" in said  # the note says where the status went
    if width == 80:
        assert "status" not in lines[0].split()  # 80 columns: the status did give way


def test_records_published_keeps_the_casella_loop_apart_at_80_columns(bmn, monkeypatch):
    lines = drawn(bmn, monkeypatch, 80, "records", "published")
    [row] = rows_of(lines, CASELLA)
    assert row.split()[:4] == ["Casella", "2024", "loop", "(474)"]
    [nessler] = rows_of(lines, "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---")
    assert nessler.split()[:3] == ["Nessler", "2022", "8,344"]


def test_records_published_under_a_rule_set_names_a_loop_when_its_status_gives_way(
    bmn, monkeypatch
):
    lines = drawn(bmn, monkeypatch, 80, "records", "published", "--rules", "paulhus")
    assert "status" not in lines[0].split() and "cards" not in lines[0].split()
    [row] = rows_of(lines, CASELLA)  # loops under paulhus's rules too: its column says so
    assert "same (loop)," in row, row


def test_a_folded_column_moves_into_another_only_when_left_out():
    table = Table(
        ["name", "status", "cards", "deal"],
        [["a", "finished", 8_344, "-J/Q-"], ["b", "loop", 474, "-Q/J-"]],
        left=(0, 1, 3),
        spare=(1,),
        folds={1: (2, [None, "loop (474)"])},
    )
    assert tables.plain([table]).splitlines()[2].split() == ["b", "loop", "474", "-Q/J-"]
    assert table.cells([1])[1:] == [
        ["a", "finished", "8,344", "-J/Q-"],
        ["b", "loop", "loop (474)", "-Q/J-"],
    ]
    narrow = table.fit(len("name  loop (474)  -Q/J-"))
    assert narrow is not None and narrow.columns == [0, 2, 3]
    assert narrow.left_out == ["status (in cards)"]
    assert narrow.widths[1] == len("loop (474)")  # the width is the folded cell's
    wide = table.fit(80)
    assert wide is not None and wide.left_out == [] and wide.widths[2] == len("cards")


@pytest.mark.parametrize("players", [3, 4])
def test_the_paulhus_hint_is_a_whole_command_on_its_own_line(bmn, players):
    """The command under `records published --players 3`, to copy, was the end of a line of 119
    characters: an 80-column terminal split it. Now it stands alone, and runs as printed."""
    result = bmn("records", "published", "--players", players)
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    command = f"bmn records published --players {players} --rules paulhus"
    assert f"  {command}" in lines
    said = lines[lines.index(f"  {command}") - 1]
    bmn_games = [g for g in published_games(players) if g.rules == "bmn"]  # the paulhus ones loop
    assert said.startswith(f"{len(bmn_games)} games are bmn's rules; under paulhus's reading ")
    assert said.endswith(" of them end otherwise:")
    ruled = bmn(*command.split()[1:])
    assert ruled.exit_code == 0 and "paulhus" in ruled.stdout.splitlines()[0].split()


RUN_TIMES = [(0.4, "0s"), (20.0, "20s"), (59.6, "1m00s"), (180.0, "3m00s"), (3725.0, "1h02m")]


@pytest.fixture
def timed(tmp_path):
    """A store of runs that took from under a second to an hour."""
    path = tmp_path / "timed.sqlite"
    with Store(path) as db:
        for seconds, _ in RUN_TIMES:
            run = db.create_run("walk", "cards", 1, {})
            db.update_run(run, status="finished", games=100, seconds=seconds)
    return path


@pytest.mark.parametrize("width", [None, 80, 120])
def test_records_runs_writes_every_time_one_way(bmn, monkeypatch, timed, width):
    """`20.0s` beside `3m00s` in one column: now whole seconds under a minute, right-aligned."""
    if width is None:
        lines = bmn("records", "runs", "--store", timed).stdout.splitlines()
    else:
        lines = drawn(bmn, monkeypatch, width, "records", "runs", "--store", timed)
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["run", "search"])
    end = lines[head].index("time") + len("time")  # right-aligned under its head
    rows = [line for line in lines[head + 1 :] if line.split() and line.split()[0].isdigit()]
    assert len(rows) == len(RUN_TIMES)
    for row, (_, time) in zip(rows, RUN_TIMES, strict=True):
        assert row[end - len(time) : end] == time and row[end - len(time) - 1] == " ", row
        assert not re.search(r"\d\.\ds", row), row
