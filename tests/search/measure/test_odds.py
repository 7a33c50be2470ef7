"""The odds of a longer game: the shipped tail model against fresh random deals (scored by the
compiled kernels, a sample by the reference engine), its fit on synthetic data, the luck share
and the milestones, and the odds line in a real run's summary, JSON and live display."""

import json
import math

import numpy as np
import pytest
from rich.console import Console

from bmn.frontends.output.progress import Display
from bmn.kernels.deal import decode
from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import even_sizes
from bmn.kernels.reference import play
from bmn.kernels.rng import seed_state
from bmn.search.measure.odds import milestones, run_odds, shorter_share
from bmn.search.measure.odds_words import (
    big_count,
    long_wait,
    longer_share,
    luck,
    odds_line,
    odds_row,
)
from bmn.search.measure.tail import UNITS, fit_tail, length_counts, tail_model, tail_models
from bmn.search.runs.kinds.longest_base import LongestProgress
from bmn.search.runs.kinds.loop_hunt import LoopHuntProgress

MODELS = [(players, unit) for players in (2, 3, 4) for unit in UNITS]
FRESH = 200_000  # fresh deals a seat count: enough for shares down to 1 in 1,000
FRESH_SEED = 77  # neither the model's seed nor its held-out one


def within(observed: float, expected: float, sigmas: float = 4.0) -> bool:
    """An observed count against the model's: Poisson noise, plus the rate's own error."""
    return abs(observed - expected) <= sigmas * math.sqrt(expected) + 0.02 * expected


def test_every_seat_count_and_objective_has_a_model():
    assert sorted(tail_models()) == sorted(MODELS)
    for players, unit in MODELS:
        model = tail_model(players, unit)
        assert model.deals >= 10_000_000 and 0.005 < model.above <= 0.01
        assert model.rate_se < model.rate / 50  # a tight fit
    assert tail_model(5, "cards") is None and tail_model(2, "loop") is None


@pytest.mark.parametrize("players, unit", MODELS)
def test_survival_falls_steadily_through_the_threshold(players, unit):
    model = tail_model(players, unit)
    xs = np.arange(0, model.threshold * 6)
    s = np.array([model.survival(x) for x in xs])
    assert s[0] == 1.0 and np.all(np.diff(s) <= 0)
    u = model.threshold
    assert model.survival(u - 1e-9) == pytest.approx(model.survival(u), rel=1e-6)
    assert model.length_at(model.survival(3 * u)) == pytest.approx(3 * u)


@pytest.fixture(scope="module")
def fresh():
    """Fresh random deals of each seat count, counted by cards and by tricks."""
    return {players: length_counts(FRESH, players, FRESH_SEED) for players in (2, 3, 4)}


@pytest.mark.parametrize("players, unit", MODELS)
def test_the_model_predicts_fresh_random_deals(fresh, players, unit):
    counts = fresh[players][UNITS.index(unit)]
    reach = counts[::-1].cumsum()[::-1]  # deals at least x long
    model = tail_model(players, unit)
    assert fresh[players][2] == 0  # no random standard deal loops
    for share in (0.3, 0.1, 0.01, 0.003, 0.001):  # the body and the fitted tail
        x = math.ceil(model.length_at(share)) if share <= model.above else None
        if x is None:  # the measured part: the least x the model gives at most `share`
            x = next(x for x in range(len(reach)) if model.survival(x) <= share)
        expected = FRESH * model.survival(x)
        assert within(int(reach[x]), expected), (share, x, int(reach[x]), expected)


def test_the_model_agrees_with_the_reference_engine():
    """Deals played by the reference engine, the oracle of the kernels behind the model."""
    rows = random_deals(1200, seed_state(FRESH_SEED + 1), 2)[0]
    cards = np.array([play(decode(row, even_sizes(52, 2))).cards for row in rows])
    model = tail_model(2, "cards")
    for x in (100, 192, 400, 700):
        assert within(int((cards >= x).sum()), 1200 * model.survival(x)), x


def test_the_shipped_held_out_check_passed():
    """The generator (benchmarks/length_tail.py) checked each model on other deals: past one
    deal in 1,000 down to one in 10 million, every count within 4 standard deviations."""
    from importlib import resources

    text = resources.files("bmn.search.measure").joinpath("length_tail.json").read_text()
    checks = json.loads(text)["holdout"]
    assert sorted((c["players"], c["unit"]) for c in checks) == sorted(MODELS)
    for check in checks:
        assert len(check["rows"]) >= 4
        for row in check["rows"]:
            assert abs(row["z"]) < 4, (check["players"], check["unit"], row)


def test_the_fit_recovers_a_known_exponential_tail():
    rng = np.random.default_rng(5)
    body = rng.integers(0, 200, 300_000)  # anything below the tail
    q = 0.995
    tail = 400 + rng.geometric(1 - q, 30_000) - 1
    counts = np.bincount(np.concatenate([body, tail]))
    model = fit_tail(counts, 2, "cards", seed=5, share=0.05)
    assert model.threshold >= 400
    assert abs(model.rate + math.log(q)) < 4 * model.rate_se
    assert model.above == pytest.approx((np.concatenate([body, tail]) >= model.threshold).mean())


def test_luck_rises_with_the_best_and_falls_with_the_deals():
    bests = range(1000, 9000, 250)
    shares = [run_odds("cards", 2, b, 0, 10**9, 1e6).luckier_than for b in bests]
    assert all(a <= b for a, b in zip(shares, shares[1:], strict=False))
    assert shares[0] < 0.01 and shares[-1] > 0.99
    by_deals = [run_odds("cards", 2, 4000, 0, n, 1e6).luckier_than for n in (10**6, 10**8, 10**10)]
    assert by_deals[0] > by_deals[1] > by_deals[2]
    model = tail_model(2, "cards")
    odds = run_odds("cards", 2, 4000, 0, 10**8, 1e6)
    assert odds.one_in == pytest.approx(1 / model.survival(4000))
    assert odds.luckier_than == pytest.approx((1 - model.survival(4000)) ** 10**8)
    # The run's best at the median of the best of its size: luckier than half of them.
    n = 10**9
    median_best = model.length_at(1 - 0.5 ** (1 / n))
    assert shorter_share(model.survival(median_best), n) == pytest.approx(0.5)


@pytest.mark.parametrize(
    "players, unit, best, names",
    [
        (2, "cards", 4939, ["5,000 cards", "Kleber 1999"]),
        (2, "cards", 2000, ["3,000 cards", "Paulhus 1999"]),
        (2, "cards", 7000, ["Mann and Wu 2007", "8,000 cards"]),
        (2, "cards", 8344, ["9,000 cards"]),  # level with the record: only a round figure
        (2, "tricks", 700, ["800 tricks", "Kleber 1999"]),
        (2, "tricks", 1000, ["Mann and Wu 2007", "1,100 tricks"]),
        (3, "cards", 4000, ["bmn 2026 #1", "5,000 cards"]),
        (4, "cards", 4105, ["bmn 2026 #2", "5,000 cards"]),
        (4, "cards", 4136, ["bmn 2026 #1", "5,000 cards"]),
        (4, "cards", 4903, ["5,000 cards"]),
    ],
)
def test_milestones_are_the_next_round_figure_and_the_next_published_game(
    players, unit, best, names
):
    model = tail_model(players, unit)
    found = milestones(model, best)
    assert [name for name, _ in found] == names
    lengths = [length for _, length in found]
    assert lengths == sorted(lengths) and lengths[0] > best


def test_a_milestone_waits_one_over_rate_times_its_share():
    model = tail_model(3, "cards")
    slow, fast = (run_odds("cards", 3, 3500, 300, 10**7, rate) for rate in (1e5, 1e6))
    for m, m_fast in zip(slow.milestones, fast.milestones, strict=True):
        assert m.seconds == pytest.approx(1 / (1e5 * model.survival(m.length)))
        assert m_fast.seconds == pytest.approx(m.seconds / 10)
        assert m.one_in == pytest.approx(1 / model.survival(m.length))
    assert all(m.seconds is None for m in run_odds("cards", 3, 3500, 0, 10, 0.0).milestones)


def test_odds_only_for_a_longest_game_run_with_a_best():
    assert run_odds("loop", 2, 100, 10, 10**6, 1e6) is None
    assert run_odds("cards", 2, -1, -1, 0, 0.0) is None
    assert run_odds("cards", 5, 3000, 400, 10**6, 1e6) is None
    tricks = run_odds("tricks", 2, 3000, 400, 10**6, 1e6)
    assert (tricks.unit, tricks.best) == ("tricks", 400)


def test_words_for_counts_waits_and_luck():
    assert [big_count(n) for n in (9600, 3.14e6, 4.2e10, 2.5e15)] == [
        "9,600",
        "3.1 million",
        "42 billion",
        "2.5e15",
    ]
    waits = [long_wait(s) for s in (0.2, 40, 570, 3 * 3600, 4 * 86400, 3.2e7 * 3.15576e7)]
    assert waits == ["1s", "40s", "9.5m", "3h", "4 days", "3.2e7 years"]
    assert luck(0.8, "runs") == "luckier than 80% of runs"
    assert luck(0.05, "runs") == "luckier than 5% of runs"
    # Near 0 or 1: one run in so many, never a floor such as 'under 0.01%'.
    assert luck(0.003, "runs") == "luckier than only 1 in 333 runs"
    assert luck(3.2e-7, "runs this size") == "luckier than only 1 in 3.1 million runs this size"
    assert luck(0.99995, "runs") == "luckier than all but 1 in 20,000 runs"
    assert luck(1.0, "runs", 2e-18) == "luckier than all but 1 in 5e17 runs"
    assert luck(0.0, "runs") == "luckier than only 1 in more than 1e308 runs"


@pytest.mark.parametrize("best", [1500, 4000, 9000])
def test_the_odds_never_say_a_floor(best):
    """A run far luckier or unluckier than the 0.01% a percentage showed says by how much."""
    for deals in (10, 10**6, 10**12):
        odds = run_odds("cards", 2, best, 0, deals, 1e6)
        said = odds_line(odds) + odds_row(odds)
        assert "under" not in said and "over 99" not in said
        assert longer_share(odds) == pytest.approx(1 - odds.luckier_than, abs=1e-12)


def test_a_short_search_summary_says_its_odds(bmn, path, monkeypatch):
    from bmn.frontends.output import tables

    args = ["search", "--iterations", 30_000, "--workers", 1, "--seed", 2, "--store", path]
    piped = bmn(*args, "--quiet").stdout.splitlines()  # a pipe: the odds one line, as promised
    assert piped[3].startswith("odds (") and len(piped) == 4
    monkeypatch.setattr(tables, "stdout_is_terminal", lambda: True)
    text = bmn(*args, "--quiet")  # a terminal: fitted to 80 columns
    assert text.exit_code == 0, text.output
    lines = text.stdout.splitlines()
    best = int(lines[1].split()[1].replace(",", ""))
    assert lines[2] == "  " + json.loads(bmn(*args, "--quiet", "--json").stdout)["best_deal"]
    assert all(len(line) <= 80 for line in lines)  # the summary fits a narrow terminal
    odds = " ".join(line.strip() for line in lines[3:])  # one sentence, wrapped at spaces
    assert odds.startswith("odds (an estimate from an exponential tail fitted to 40,000,000")
    assert f"{best:,} cards is one random deal in" in odds
    assert "runs of 30,000 random deals" in odds and "expect " in odds
    out = json.loads(bmn(*args, "--quiet", "--json", "--objective", "tricks").stdout)
    got = out["odds"]
    assert (got["unit"], got["best"], got["deals"], got["estimate"]) == (
        "tricks",
        out["best_tricks"],
        30_000,
        True,
    )
    assert got["one_in"] == pytest.approx(1 / tail_model(2, "tricks").survival(got["best"]))


def test_the_live_display_shows_the_odds_of_a_longest_game_run(capsys):
    progress = LongestProgress(3, games=10**8, rate=7e5, best_cards=4939, best_tricks=640)
    display = Display()
    table = display._panel(progress)
    console = Console(record=True, width=300)
    console.print(table)
    panel = console.export_text()
    assert "odds" in panel and "best is 1 random deal in" in panel
    assert "5,000 cards ~" in panel and "Kleber 1999 (5,790) ~" in panel
    assert "(estimate: fitted tail)" in panel
    loop = Console(record=True, width=300)
    loop.print(display._panel(LoopHuntProgress(4)))
    assert "odds" not in loop.export_text()
    display.update(progress)  # off a terminal: a log line, then the odds under it
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("run 3 odds: best is 1 random deal in")


def test_a_run_s_summary_reads_the_odds_its_display_last_showed(tmp_path):
    """One computation of the odds: the summary's are the very object the progress gave."""
    from bmn.records.store import Store
    from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
    from bmn.search.runs.loop import RunLoop

    shown = []
    with Store(tmp_path / "o.sqlite") as store:
        loop = RunLoop(store, LongestJob, LongestOptions(iterations=20_000, workers=1, seed=4))
        summary = loop.run(lambda p: shown.append(p.odds()))
    assert summary.odds is not None and summary.odds is shown[-1]
    expected = run_odds(
        "cards", 2, summary.best_cards, summary.best_tricks, 20_000, loop.progress.rate
    )
    assert summary.odds == expected


def test_a_deals_odds_are_the_live_displays_one_in_for_its_length(bmn):
    """`bmn play --odds` and bmn.search.odds: one random deal in N, from the same fitted tail
    as a run's best (run_odds' one_in), for a deal of any length; none for a loop; refused
    for a deal of another deck."""
    import json

    from samples import CASELLA, RECORD

    from bmn.kernels.deal import DealError
    from bmn.search import odds
    from bmn.search.measure.odds import deal_odds

    for players, seed in ((2, 3), (3, 1), (4, 2)):
        deal = bmn("deal", "--players", players, "--seed", seed).stdout.strip()
        out = json.loads(bmn("play", deal, "--odds", "--json").stdout)
        rare = odds(deal)
        assert out["odds"] == rare.as_dict() and rare.cards == out["cards"]
        for unit in ("cards", "tricks"):
            live = run_odds(unit, players, out["cards"], out["tricks"], 1, 0.0)
            assert getattr(rare, f"{unit}_one_in") == pytest.approx(live.one_in)
    record = odds(RECORD)
    assert record.cards_one_in == pytest.approx(1 / tail_model(2, "cards").survival(8344))
    assert 1e17 < record.cards_one_in < 1e18  # far out on the fitted tail
    said = bmn("play", RECORD, "--odds").stdout
    assert "a game at least 8,344 cards long is one random deal in 3.2e17" in said
    assert (
        odds(CASELLA) is None
        and json.loads(bmn("play", CASELLA, "--odds", "--json").stdout)["odds"] is None
    )
    assert "odds: none: a game that does not finish" in bmn("play", CASELLA, "--odds").stdout
    with pytest.raises(DealError, match="standard deck dealt evenly"):
        odds("-J/Q-")
    assert deal_odds(5, 100, 10) is None
