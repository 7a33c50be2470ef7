"""Three and four players wherever a deal is scored or searched: score, bench, selfcheck, stats,
the search (every strategy, finds, resume), the records commands and bmn's own 3- and 4-player
tables. Every figure is checked against the reference engine."""

import csv
import json

import numpy as np
import pytest
from tiers import diagonal

from bmn.kernels import reference
from bmn.kernels.cpu import nseat
from bmn.kernels.deal import deal_text, deal_texts, decode, format_deal, parse_deal
from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import STANDARD_DECK, even_sizes, is_standard
from bmn.kernels.rng import seed_state
from bmn.kernels.score import kernel_for, score, score_parsed
from bmn.records.published import FILES, published_games, replay_published
from bmn.records.store import Find, Store
from bmn.search.measure.stats import length_stats
from bmn.search.runs.job import options_from_run
from bmn.search.runs.kinds import longest as driver
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.kinds.longest_base import LongestProgress, standing
from bmn.search.runs.loop import RunLoop
from bmn.search.strategies.cpu import run_chunk
from bmn.search.strategies.registry import STRATEGIES, history_length
from bmn.search.strategies.worker import BEST, BEST_CARDS, LOOP_FINDS, LoopFinds, new_worker

PLAYERS = (3, 4)
THREE_FAST = [3, pytest.param(4, marks=pytest.mark.slow)]  # commands that take a second or more
SIZES = {players: even_sizes(len(STANDARD_DECK), players) for players in PLAYERS}


@pytest.fixture
def kernel_rows(monkeypatch, scalar_kernels):
    """The rows the N-seat kernel is handed, call by call, the scalar kernels chosen (their
    twins in lanes are handed the same rows: tests/kernels/test_lanes.py)."""
    calls = []
    real = nseat.score_rows

    def spy(deals, sizes, rows, out, cap):
        calls.append(rows.tolist())
        real(deals, sizes, rows, out, cap)

    monkeypatch.setattr(nseat, "score_rows", spy)
    return calls


def reference_dicts(rows, sizes):
    return [
        reference.play(decode(row, hands)).as_dict() for row, hands in zip(rows, sizes, strict=True)
    ]


# -- scoring -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_random_standard_deals_are_scored_by_the_n_seat_kernel(players, kernel_rows):
    assert kernel_for(players) is nseat
    rows, sizes = random_deals(400, seed_state(players), players)
    assert tuple(sizes[0]) == SIZES[players]
    got = score(rows, sizes, threads=2)
    assert kernel_rows == [list(range(400))]
    assert [got.as_dict(i) for i in range(400)] == reference_dicts(rows, sizes)


def test_deals_past_64_cards_fall_back_to_the_reference(kernel_rows):
    texts = [
        "-" * 20 + "JQ/K" + "-" * 23 + "/" + "-" * 22 + "A-",  # 70 cards
        "--K/J-/---",
        "Q/J/-/-",
        "-" * 17 + "K/" + "-" * 16 + "J/" + "A" + "-" * 14 + "QQ/" + "-" * 14,  # 68 cards
    ]
    deals = [parse_deal(text) for text in texts]
    got = score_parsed(deals)
    # Grouped by seat count, (deal 0, deal 1) then (deal 2, deal 3): the short ones go fast.
    assert kernel_rows == [[1], [0]]
    assert [got.as_dict(i) for i in range(len(deals))] == [
        reference.play(d).as_dict() for d in deals
    ]


def test_score_command_takes_three_and_four_seat_lines(bmn):
    state = seed_state(11)
    lines = []
    for players in PLAYERS:
        rows, sizes = random_deals(30, state, players)
        lines += [format_deal(decode(row, hands)) for row, hands in zip(rows, sizes, strict=True)]
    lines.append("-" * 30 + "/" + "K" * 4 + "-" * 20 + "/" + "J" * 2 + "-" * 14)  # 70 cards
    table = "\n".join(lines) + "\n"
    result = bmn("score", "--json", "--threads", "2", "--any-deck", input=table)  # 52 and 70
    assert result.exit_code == 0, result.output
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [row.pop("deal") for row in out] == lines
    assert out == [{**reference.play(parse_deal(line)).as_dict(), "rules": "bmn"} for line in lines]


# -- bench, selfcheck, stats -----------------------------------------------------------------


@pytest.mark.parametrize("players", THREE_FAST)
def test_bench_times_the_n_seat_kernel_on_the_deals_it_names(bmn, players):
    result = bmn(
        "bench", "--players", players, "--deals", 600, "--threads", 1, "--seed", 4, "--json"
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["players"], out["deals"], out["threads"]) == (players, 600, 1)
    rows, sizes = random_deals(600, seed_state(4), players)
    want = reference_dicts(rows, sizes)
    assert out["mean_cards"] == pytest.approx(sum(r["cards"] for r in want) / 600, abs=1e-9)
    assert out["mean_tricks"] == pytest.approx(sum(r["tricks"] for r in want) / 600, abs=1e-9)
    text = bmn("bench", "--players", players, "--deals", 500).stdout
    assert f"500 {players}-player deals on" in text and "games/s" in text


@pytest.mark.parametrize("players", PLAYERS)
def test_selfcheck_checks_the_n_seat_kernel(bmn, players, kernel_rows):
    result = bmn("selfcheck", "--players", players, "--deals", 300, "--seed", 2)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(
        f"OK: kernel and reference agree on 300 random {players}-player"
    )
    assert sum(len(call) for call in kernel_rows) == 300


def test_selfcheck_reports_a_three_seat_disagreement(bmn, monkeypatch, scalar_kernels):
    real = nseat.score_rows

    def off_by_one(deals, sizes, rows, out, cap):
        real(deals, sizes, rows, out, cap)
        out.tricks[rows[-1]] += 1

    monkeypatch.setattr(nseat, "score_rows", off_by_one)
    result = bmn("selfcheck", "--players", 3, "--deals", 100, "--seed", 2)
    assert result.exit_code == 1
    deal = parse_deal(result.stdout.splitlines()[0].split(": ", 1)[1])
    assert [len(hand) for hand in deal] == [18, 17, 17]
    kernel = json.loads(result.stdout.splitlines()[1].split(":", 1)[1])
    assert kernel["tricks"] == reference.play(deal).tricks + 1


@pytest.mark.parametrize("players", THREE_FAST)
def test_stats_of_three_and_four_seats_match_the_reference(bmn, players):
    result = bmn("stats", "--players", players, "--deals", 800, "--seed", 5, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    rows, sizes = random_deals(800, seed_state(5), players)
    games = [reference.play(decode(row, hands)) for row, hands in zip(rows, sizes, strict=True)]
    codes = {"finished": 0, "loop": 1, "limit": 2}
    want = length_stats(
        np.array([g.cards for g in games]),
        np.array([g.tricks for g in games]),
        np.array([codes[g.status] for g in games]),
    )
    assert out == {"players": players, "seed": 5, "rules": "bmn", **want}


# -- search --------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy, players", diagonal(sorted(STRATEGIES), list(PLAYERS)))
def test_every_strategy_searches_three_and_four_seats(strategy, players):
    """With keep_above 0 every deal scored is a find: each is replayed by the reference."""
    state = new_worker(players, 0, history_length(strategy, 50), sizes=SIZES[players])
    assert tuple(state.sizes) == SIZES[players] and sorted(state.deck) == list(STANDARD_DECK)
    finds = LoopFinds.empty()
    done, n_finds = run_chunk(strategy, state, finds, 10_000, 0, 0, 40)
    assert done == n_finds == LOOP_FINDS
    # every 16th of the full buffer: the reference engine is slow for thousands
    for row, (cards, tricks, status) in zip(finds.decks[::16], finds.meta[::16], strict=True):
        deal = decode(row, SIZES[players])
        assert is_standard(deal)
        want = reference.play(deal)
        assert (cards, tricks, status) == (
            want.cards,
            want.tricks,
            0 if want.status == "finished" else 1,
        )
    best = reference.play(decode(state.best, SIZES[players]))
    assert state.counters[BEST] == state.counters[BEST_CARDS] == best.cards


@pytest.mark.parametrize("players", THREE_FAST)
def test_a_search_run_keeps_its_players_and_true_finds(tmp_path, players):
    options = LongestOptions(players=players, iterations=40_000, workers=2, seed=7, keep_above=1200)
    with Store(tmp_path / "s.sqlite") as store:
        summary = RunLoop(store, LongestJob, options).run()
        run = store.get_run(summary.run)
        assert (run.seats, run.params["players"], run.games) == (players, players, 40_000)
        finds = store.run_finds(summary.run)
        assert finds and store.top(seats=2) == [] and store.top(seats=players)
    best = parse_deal(summary.best_deal)
    assert reference.play(best).cards == summary.best_cards
    for find in finds:
        deal = parse_deal(find.deal)
        assert tuple(len(hand) for hand in deal) == SIZES[players] and is_standard(deal)
        result = reference.play(deal)
        assert (result.status, result.cards, result.tricks) == (
            find.status,
            find.cards,
            find.tricks,
        )


def test_an_interrupted_three_player_run_resumes_exactly(tmp_path, monkeypatch):
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.01)  # small chunks: the stop lands mid-run
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)  # a commit per chunk: stop at the first
    options = dict(players=3, iterations=100_000, workers=2, seed=3, keep_above=1500)
    with Store(tmp_path / "a.sqlite") as store:
        whole = RunLoop(store, LongestJob, LongestOptions(**options)).run()
        whole_finds = {(f.deal, f.cards, f.tricks) for f in store.run_finds(whole.run)}
    assert len(whole_finds) >= 50  # 130: finds on both sides of the stop to compare
    with Store(tmp_path / "b.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**options))
        first = job.run(lambda progress: job.stop.set())
        assert first.status == "interrupted" and first.games < 100_000
        resumed = RunLoop.resume(store, LongestJob, first.run)
        assert resumed.options.players == 3 and tuple(resumed.job.states[0].sizes) == (18, 17, 17)
        again = resumed.run()
        resumed_finds = {(f.deal, f.cards, f.tricks) for f in store.run_finds(first.run)}
        assert store.get_run(first.run).seats == 3
    keys = ("best_deal", "best_cards", "best_tricks", "games")
    assert [getattr(again, k) for k in keys] == [getattr(whole, k) for k in keys]
    assert resumed_finds == whole_finds and len(parse_deal(again.best_deal)) == 3


def test_runs_stored_before_players_resume_as_two_seats(tmp_path):
    with Store(tmp_path / "old.sqlite") as store:
        params = {"strategy": "walk", "objective": "cards", "iterations": 10, "workers": 1}
        run = store.create_run("walk", "cards", 1, {**params, "seed": 1})
        options = options_from_run(LongestOptions, store.get_run(run))
    assert options.players == 2 and options.sizes == (26, 26)


def test_deal_text_cuts_at_the_hand_sizes():
    row = np.array(STANDARD_DECK, dtype=np.uint8)
    assert deal_text(row, (18, 17, 17)).split("/") == [
        "-" * 18,
        "-" * 17,
        "-" + "J" * 4 + "Q" * 4 + "K" * 4 + "A" * 4,
    ]
    assert [len(h) for h in deal_text(row, (13, 13, 13, 13)).split("/")] == [13] * 4
    decks = np.array([np.random.default_rng(seed).permutation(row) for seed in range(5)])
    for sizes in ((18, 17, 17), (13, 13, 13, 13), (26, 26)):
        assert deal_texts(decks, sizes) == [deal_text(deck, sizes) for deck in decks]


def test_search_command_with_players(bmn, tmp_path):
    path = tmp_path / "cli.sqlite"
    result = bmn("search", "--players", 3, "--iterations", 20_000, "--seed", 1, "--workers", 2,
                 "--store", path, "--json", "--quiet")  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    deal = parse_deal(out["best_deal"])
    assert len(deal) == 3 and reference.play(deal).cards == out["best_cards"]
    runs = json.loads(bmn("records", "runs", "--store", path, "--json").stdout)
    assert [(r["seats"], r["params"]["players"]) for r in runs] == [(3, 3)]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--players", "5"], "5 is too large"),
        (["--players", "1"], "1 is too small"),
        (["--players", "5", "--objective", "loop"], "5 is too large"),
        (
            ["--players", "4", "--objective", "loop", "--deck", "2,1,0,0,0"],
            "4 seats cannot share the deck 2,1,0,0,0: it has 3 cards",
        ),
        (
            ["--resume", "--players", "3"],
            "--resume takes its settings from the run; drop --players",
        ),
        (["--players", "4", "--objective", "grow", "--deck", "20,2,2,2,0"], "--deck does nothing"),
        (["--players", "3", "--device", "cuda"], "--players must be 2 with --device cuda"),
    ],
)
def test_bad_players_options(bmn, failed, tmp_path, args, message):
    path = tmp_path / "bad.sqlite"
    bmn("search", "--iterations", "10", "--store", path, "--quiet")
    failed(bmn("search", "--store", path, *args), 2, message)


# -- records ---------------------------------------------------------------------------------


@pytest.fixture
def mixed_store(tmp_path):
    """A store with finds of 2, 3 and 4 seats, each under a run of its own seat count."""
    path = tmp_path / "mixed.sqlite"
    deals = {
        2: ["---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---"],
        3: ["---KKQ-AQJ----Q-Q-/AJ--J---A-JK-----/----------K--A---", "--K/J-/---"],
        4: ["-J-----------/K------K---K-/-QA--Q--AA-Q-/J-Q-JK---AJ--"],
    }
    with Store(path) as store:
        for seats, texts in deals.items():
            run = store.create_run("walk", "cards", seats, {"players": seats}, seats=seats)
            finds = []
            for text in texts:
                result = reference.play(parse_deal(text))
                finds.append(Find(text, result.cards, result.tricks, elapsed=1.0))
            store.add_finds(run, finds)
    return path, deals


def test_records_top_and_export_take_players(bmn, mixed_store):
    path, deals = mixed_store
    every = json.loads(bmn("records", "top", "--store", path, "--json").stdout)
    assert len(every) == 4
    for seats, texts in deals.items():
        top = json.loads(
            bmn("records", "top", "--players", seats, "--store", path, "--json").stdout
        )
        assert sorted(row["deal"] for row in top) == sorted(texts)
        exported = bmn("records", "export", "--players", seats, "--store", path).stdout
        rows = list(csv.DictReader(exported.splitlines()))
        assert sorted(row["deal"] for row in rows) == sorted(texts)
    assert (
        len(list(csv.DictReader(bmn("records", "export", "--store", path).stdout.splitlines())))
        == 4
    )


def test_records_compare_takes_players(bmn, mixed_store):
    path, deals = mixed_store
    two = json.loads(bmn("records", "compare", "--store", path, "--json").stdout)
    assert two["players"] == 2 and [f["deal"] for f in two["finds"]] == deals[2]
    assert len(two["published"]) == 9
    for seats in PLAYERS:
        out = json.loads(
            bmn("records", "compare", "--players", seats, "--store", path, "--json").stdout
        )
        table = [g.deal for g in published_games(seats) if g.status == "finished"]  # ranked
        assert out["players"] == seats and [g["deal"] for g in out["published"]] == table
        assert sorted(f["deal"] for f in out["finds"]) == sorted(deals[seats])
        text = bmn("records", "compare", "--players", seats, "--store", path).stdout
        assert f"No {seats}-player games were published before bmn: that table starts empty" in text
        assert f"bmn records published --players {seats}" in text
        for game in published_games(seats):
            if game.status == "finished":  # endless games are not ranked by length
                assert game.name in text and f"{game.cards:,}" in text


def test_records_plot_takes_players(bmn, mixed_store, tmp_path):
    path, _ = mixed_store
    figure = tmp_path / "three.png"
    result = bmn("records", "plot", "--players", 3, "--store", path, "-o", figure)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(figure) and figure.stat().st_size > 0
    empty = tmp_path / "none.png"
    with Store(tmp_path / "e.sqlite"):
        pass
    nothing = bmn("records", "plot", "--players", 3, "--store", tmp_path / "e.sqlite", "-o", empty)
    assert nothing.exit_code == 0 and "no runs of 3 players" in nothing.stderr
    assert not empty.exists()


def test_records_plot_draws_one_seat_count_and_says_so(bmn, mixed_store, tmp_path, monkeypatch):
    """Runs of 2, 3 and 4 seats, the 3-seat ones the most: those are drawn, against the
    3-player table, and one line names the others' --players."""
    from bmn.frontends.output import plots

    path, deals = mixed_store
    with Store(path) as store:
        run = store.create_run("walk", "cards", 9, {"players": 3}, seats=3)
        store.add_finds(run, [Find(deals[3][0], 3, 1, elapsed=2.0)])
    drawn = []
    monkeypatch.setattr(plots, "plot_records", lambda series, *_: drawn.append(series))
    result = bmn("records", "plot", "--store", path, "-o", tmp_path / "p.png")
    assert result.exit_code == 0, result.output
    assert [s.seats for s in drawn[0]] == [3, 3]
    assert result.stderr.splitlines() == [
        "drawing the runs of 3 players, standard deck, bmn's rules: one seat count, deck and"
        " rule set a plot",
        f"not drawn, the runs of 2 players, standard deck, bmn's rules: bmn records plot 1"
        f" --store {path}",
        f"not drawn, the runs of 4 players, standard deck, bmn's rules: bmn records plot 3"
        f" --store {path}",
    ]
    alone = bmn("records", "plot", "--players", 4, "--store", path, "-o", tmp_path / "q.png")
    assert alone.exit_code == 0 and alone.stderr == "" and [s.seats for s in drawn[1]] == [4]


@pytest.mark.parametrize("players", PLAYERS)
def test_bmn_tables_of_three_and_four_players_replay(bmn, players):
    games = published_games(players)
    assert games and FILES[players] == f"published_{players}.csv"
    for game in games:
        deal = parse_deal(game.deal)
        assert len(game.hands) == players and is_standard(deal)
        result = reference.play(deal, rules=game.rules)  # the rule set its row claims
        assert (result.status, result.cards, result.tricks) == (
            game.status,
            game.cards,
            game.tricks,
        )
    assert all(row.matches for row in replay_published(players))
    out = json.loads(bmn("records", "published", "--players", players, "--json").stdout)
    assert [row["deal"] for row in out] == [g.deal for g in games]
    assert all(row["matches"] for row in out)
    text = bmn("records", "published", "--players", players)
    assert f"all {len(games)} {players}-player games replay exactly" in text.stderr


@pytest.mark.parametrize("command", ["bench", "selfcheck"])
def test_gpu_bench_and_selfcheck_refuse_three_players(bmn, failed, command):
    result = bmn(command, "--players", 3, "--device", "cuda", "--deals", 10)
    failed(result, 2, "--players must be 2 with --device cuda: the GPU kernel plays two seats")


@pytest.mark.parametrize("players", PLAYERS)
def test_a_search_display_holds_the_best_against_bmns_table(players):
    top = published_games(players)[0]
    where = standing(top.cards - 1, 1, "cards", players)
    assert (where.record, where.holder) == (top.cards, top.name)
    n = sum(game.status == "finished" for game in published_games(players))  # 3; 4 with 4 seats
    assert where.rank == f"longer than {n - 1} of the {n} games in bmn's table: it would be 2nd"
    assert standing(10, 1, "cards", players).rank.startswith(f"shorter than all {n} games in bmn's")
    progress = LongestProgress(1, objective="cards", players=players, best_cards=top.cards)
    assert f"({top.name})" in dict(progress.rows())["record"]
