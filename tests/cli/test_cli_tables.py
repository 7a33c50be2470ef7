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

from bmn.kernels.cycles.loops import analyse
from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.dealer import shuffled_deal
from bmn.kernels.reference import play
from bmn.records.store import Find, Loop, Store
from bmn.search.output import tables
from bmn.search.output.records import compare_text
from bmn.search.output.tables import Table, terminal

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
    assert width >= 100 or "left out to fit 80 columns: ran on, started (UTC)" in said


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
    """Each game's deal, whole on one line, at 80 columns and more (the year, the tricks, the
    replay and the status give way first); one column headed 'replayed'."""
    plain = bmn("records", "published", "--players", players).stdout.splitlines()
    assert plain[0].split() == ["name", "year", "status", "cards", "tricks", "replayed", "deal"]
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
    from bmn.records.published import Replayed
    from bmn.search.output.records import published_table

    same = Replayed("A 1999", 1999, PAULHUS, "finished", 4791, 670, "finished", 4791, 670)
    off = Replayed("B 2000", 2000, CASELLA, "finished", 9, 2, "loop", 474, 66)
    lines = tables.plain([published_table([same, off])]).splitlines()
    assert lines[1].split()[:7] == ["A", "1999", "1999", "finished", "4,791", "670", "same"]
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
    assert text.count("would rank 10th of 10") == 3  # in each find's row, and once in words
