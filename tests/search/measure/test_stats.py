"""The numbers behind `bmn stats`, checked against the reference engine and synthetic data."""

import json
import math

import numpy as np
import pytest
from samples import CASELLA

from bmn.frontends.output.measures import format_stats
from bmn.frontends.output.tables import plain
from bmn.kernels.deal import decode, parse_deal
from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import even_sizes
from bmn.kernels.reference import play
from bmn.kernels.rng import seed_state
from bmn.search.measure.stats import (
    length_stats,
    score_random,
    summary,
    tail_fit,
)

STATUS = {"finished": 0, "loop": 1, "limit": 2}


def reference_lengths(rows: np.ndarray, players: int):
    """cards, tricks, status of each row, played by the reference engine."""
    results = [play(decode(row, even_sizes(52, players))) for row in rows]
    return (
        np.array([r.cards for r in results]),
        np.array([r.tricks for r in results]),
        np.array([STATUS[r.status] for r in results], dtype=np.uint8),
    )


@pytest.fixture(scope="module")
def games():
    """400 random two-player deals played by the reference engine, plus the published loop."""
    rows = random_deals(400, seed_state(2024), 2)[0]
    cards, tricks, status = reference_lengths(rows, 2)
    loop = play(parse_deal(CASELLA))
    return (
        np.append(cards, loop.cards),
        np.append(tricks, loop.tricks),
        np.append(status, STATUS[loop.status]),
    )


def test_length_stats_match_numpy_over_reference_games(games):
    cards, tricks, status = games
    figures = length_stats(cards, tricks, status)
    done = status == 0
    assert (figures["deals"], figures["finished"], figures["looping"]) == (401, 400, 1)
    assert figures["loop_fraction"] == pytest.approx(1 / 401)
    for name, values in (("cards", cards[done]), ("tricks", tricks[done])):
        got = figures[name]
        assert got["mean"] == pytest.approx(values.mean())
        assert got["p50"] == pytest.approx(np.median(values))
        for q in (90, 99, 99.9, 99.99):
            assert got[f"p{q:g}"] == pytest.approx(np.percentile(values, q))
        assert got["longest"] == values.max()
    # Random deals: about 255 cards and 35 tricks on average (docs/rules.md); loose for 400 deals.
    assert 200 < figures["cards"]["mean"] < 310
    assert 28 < figures["tricks"]["mean"] < 43


def test_json_and_text_forms(games):
    figures = {"players": 2, "seed": 7, **length_stats(*games)}
    assert json.loads(json.dumps(figures)) == figures
    text = plain(format_stats(figures))
    assert "looping 1 " in text and "tenfold rarer every" in text
    assert text.splitlines()[2].split()[-1] == f"{figures['cards']['longest']:,}"


def test_summary_of_nothing():
    assert summary(np.array([], dtype=np.int64))["mean"] is None
    assert length_stats(np.array([5]), np.array([1]), np.array([1]))["cards"]["tail"] is None


@pytest.mark.parametrize("scale", [40.0, 250.0])
def test_tail_fit_recovers_known_rate(scale):
    rng = np.random.default_rng(11)
    # An exponential tail on top of a different body, as game lengths are.
    body = rng.uniform(0, 3 * scale, 60_000)
    tail = 3 * scale + rng.exponential(scale, 40_000)
    fit = tail_fit(np.concatenate([body, tail]), quantile=0.9)
    assert fit.rate == pytest.approx(1 / scale, rel=0.05)
    assert fit.tenfold == pytest.approx(math.log(10) * scale, rel=0.05)
    # Integer lengths (a geometric tail) fit as well.
    lengths = np.floor(rng.exponential(scale, 100_000)).astype(np.int64)
    assert tail_fit(lengths).rate == pytest.approx(1 / scale, rel=0.05)


def test_tail_fit_survival_passes_through_the_data():
    rng = np.random.default_rng(3)
    x = rng.exponential(100.0, 50_000)
    fit = tail_fit(x)
    at = np.quantile(x, 0.99)
    assert fit.survival(at) == pytest.approx(0.01, rel=0.1)


def test_score_random_two_players_matches_reference():
    cards, tricks, status = score_random(300, 2, seed=9)
    rows, _ = random_deals(300, seed_state(9))
    ref = reference_lengths(rows, 2)
    for got, want in zip((cards, tricks, status), ref, strict=True):
        assert np.array_equal(got, want)


def test_score_random_three_players_matches_reference():
    cards, tricks, status = score_random(60, 3, seed=4)
    ref = reference_lengths(random_deals(60, seed_state(4), 3)[0], 3)
    for got, want in zip((cards, tricks, status), ref, strict=True):
        assert np.array_equal(got, want)


def test_stats_command_json_matches_reference(bmn, tmp_path):
    out = tmp_path / "lengths.png"
    result = bmn("stats", "--deals", "300", "--seed", "9", "--json", "-o", str(out))
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    cards, tricks, status = reference_lengths(random_deals(300, seed_state(9))[0], 2)
    assert figures["cards"]["mean"] == pytest.approx(cards.mean())
    assert figures["tricks"]["p99"] == pytest.approx(np.percentile(tricks, 99))
    assert (figures["seed"], figures["players"], figures["deals"]) == (9, 2, 300)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stats_command_text_and_bad_extension(bmn, tmp_path):
    result = bmn("stats", "--deals", "200", "--players", "4", "--seed", "1")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("deals: 200 (4 players, seed 1)")
    bad = bmn("stats", "--deals", "10", "-o", str(tmp_path / "x.jpg"))
    assert bad.exit_code == 2 and "png or .svg" in bad.output


def test_search_bench_text_groups_its_numbers():
    """search-bench's lines and table: every figure with its thousands separators."""
    from bmn.frontends.output.measures import bench_table, trial_line

    line = trial_line("walk", 1, 1_234_567.4, 3210, {2500: 1, 2000: 12, 3000: 0})
    assert line == (
        "walk seed 1: 1,234,567 games/s, best 3,210 cards, 12 deals of 2,000+ cards,"
        " 1 of 2,500+, 0 of 3,000+"
    )
    row = {"strategy": "walk", "rate": 318630.2, "rate_vs_bench": 0.84, "best_cards_median": 2815}
    row |= {"per_million_2000": 80.01, "per_minute_2000": 1529.62}
    lines = plain([bench_table([row], [2000])]).splitlines()
    assert lines[0].split()[-2:] == [">=2,000/M", ">=2,000/min"]
    assert lines[1].split() == ["walk", "318,630", "0.84", "2,815", "80.01", "1,529.62"]
