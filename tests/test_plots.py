"""Figures: the data behind each is checked against the engine; each renders a real image."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from click.testing import CliRunner

from bmn.kernels.deal import decode, even_sizes, parse_deal
from bmn.kernels.dealer import random_deals
from bmn.kernels.reference import play
from bmn.kernels.rng import seed_state
from bmn.records.published import published_games
from bmn.search.cli import cli
from bmn.search.plots import (
    _spread,
    best_so_far,
    default_game_file,
    figure_format,
    plot_game,
    plot_records,
    plot_stats,
    store_progress,
    trajectory,
)
from bmn.search.stats import length_stats

RECORD = "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---"
LOOP = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"
FOUR = "-J-----------/K------K---K-/-QA--Q--AA-Q-/J-Q-JK---AJ--"
PNG = b"\x89PNG\r\n\x1a\n"


def assert_png(path):
    """A real, non-trivial PNG: signature, size, and pixels that are not all one colour."""
    import matplotlib.image

    data = path.read_bytes()
    assert data[:8] == PNG
    assert len(data) > 5_000
    pixels = matplotlib.image.imread(path)
    assert pixels.ndim == 3 and pixels.shape[0] > 200 and pixels.shape[1] > 200
    assert pixels.reshape(-1, pixels.shape[2]).std(axis=0).max() > 0.05


def assert_svg(path):
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 20


def test_trajectory_of_the_record_game():
    deal = parse_deal(RECORD)
    traj = trajectory(deal)
    assert traj.result.cards == 8344 and traj.result.tricks == 1164
    assert list(traj.tricks) == list(range(1165))
    assert list(traj.sizes[0]) == [26, 26]
    assert list(traj.sizes[-1]) == [0, 52]  # seat 1 wins, holding every card
    assert (traj.sizes.sum(axis=1) == 52).all()  # the pile is empty at trick boundaries
    assert traj.cycle is None


def test_trajectory_of_the_loop_shades_exactly_the_cycle():
    traj = trajectory(parse_deal(LOOP))
    r = traj.result
    assert traj.cycle == (r.loop_start_tricks, r.loop_start_tricks + r.period_tricks) == (4, 66)
    assert traj.tricks[-1] == r.tricks == 66
    # The state repeats, so every hand size does too.
    assert list(traj.sizes[traj.cycle[0]]) == list(traj.sizes[traj.cycle[1]])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_trajectory_ends_at_the_result(players):
    for row in random_deals(15, seed_state(players), players)[0]:
        deal = decode(row, even_sizes(52, players))
        traj = trajectory(deal)
        result = play(deal)
        assert traj.tricks[-1] == result.tricks == len(traj.sizes) - 1
        assert traj.sizes[-1][result.winner] == 52
        assert list(traj.sizes[0]) == [len(hand) for hand in deal]
        # Each trick moves cards to its taker: the taker's hand never shrinks across a trick.
        for before, after, trick in zip(
            traj.sizes[:-1], traj.sizes[1:], traj.result.trace, strict=True
        ):
            assert after[trick.taker] >= before[trick.taker]


def test_file_names_and_formats():
    assert figure_format("a/b.PNG") == "png" and figure_format("x.svg") == "svg"
    with pytest.raises(ValueError, match="png or .svg"):
        figure_format("x.pdf")
    name = default_game_file(parse_deal("-J/Q-"))
    assert name == "bmn--J_Q-.png"
    assert "/" not in default_game_file(parse_deal(RECORD))
    long = default_game_file(parse_deal(["-" * 100, "J" * 100]))
    assert len(long) < 40 and long.endswith(".png")


def test_game_figures_render(tmp_path):
    for text, name in ((RECORD, "record.png"), (LOOP, "loop.png"), (FOUR, "four.svg")):
        deal = parse_deal(text)
        path = tmp_path / name
        plot_game(deal, trajectory(deal), path)
        assert_png(path) if name.endswith(".png") else assert_svg(path)


def test_stats_figure_renders(tmp_path):
    rows = random_deals(300, seed_state(1), 2)[0]
    results = [play(decode(row, even_sizes(52, 2))) for row in rows]
    cards = np.array([r.cards for r in results])
    tricks = np.array([r.tricks for r in results])
    figures = length_stats(cards, tricks, np.zeros(len(results), dtype=np.uint8))
    plot_stats(cards, tricks, figures, "300 deals", tmp_path / "s.png")
    assert_png(tmp_path / "s.png")
    plot_stats(cards, tricks, figures, "300 deals", tmp_path / "s.svg")
    assert_svg(tmp_path / "s.svg")


def test_best_so_far_is_the_running_maximum_in_time_order():
    x, best = best_so_far([5.0, 1.0, 3.0, 9.0], [300, 100, 400, 350])
    assert list(x) == [1.0, 3.0, 5.0, 9.0]
    assert list(best) == [100, 400, 400, 400]


def test_labels_are_spread_apart():
    ys = [7157, 7207, 7225, 7959, 7972, 8344]
    placed = _spread(ys, 100)
    assert all(b - a >= 100 - 1e-6 for a, b in zip(placed, placed[1:], strict=False))
    assert abs(np.mean(placed[:3]) - np.mean(ys[:3])) < 1e-6  # pushed apart about the middle


def make_store(path):
    from bmn.records.store import Find, Store

    deals, _ = random_deals(12, seed_state(0))
    with Store(path) as store:
        for strategy in ("random", "climb"):
            run = store.create_run(strategy, "cards", seed=1, params={})
            finds = []
            for i, row in enumerate(deals):
                deal = decode(row, even_sizes(52, 2))
                r = play(deal)
                text = "/".join("".join("-JQKA"[v] for v in hand) for hand in deal)
                finds.append(Find(text, r.cards, r.tricks, elapsed=float(i * 7 + 1)))
            store.add_finds(run, finds)
            store.update_run(run, seconds=120.0)
    return [play(decode(row, even_sizes(52, 2))).cards for row in deals]


def test_store_progress_and_records_plot(tmp_path):
    from bmn.records.store import Store

    cards = make_store(tmp_path / "s.sqlite")
    with Store(tmp_path / "s.sqlite", create=False) as store:
        series, seconds = store_progress(store, [2])
    assert list(series) == ["run 2 (climb)"] and seconds == {"run 2 (climb)": 120.0}
    elapsed, found = series["run 2 (climb)"]
    assert list(elapsed) == [i * 7 + 1.0 for i in range(12)]
    assert list(best_so_far(elapsed, found)[1]) == list(np.maximum.accumulate(cards))
    published = [(g.name, g.cards) for g in published_games() if g.status == "finished"]
    plot_records(series, published, tmp_path / "p.png", seconds)
    assert_png(tmp_path / "p.png")
    plot_records({}, published, tmp_path / "empty.svg")
    assert_svg(tmp_path / "empty.svg")


def invoke(*args):
    return CliRunner().invoke(cli, list(args))


def test_plot_command(tmp_path, monkeypatch):
    out = tmp_path / "loop.png"
    result = invoke("plot", *LOOP.split("/"), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(out)
    assert_png(out)
    monkeypatch.chdir(tmp_path)
    result = invoke("plot", "-J", "Q-")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "bmn--J_Q-.png"
    assert (tmp_path / "bmn--J_Q-.png").read_bytes()[:8] == PNG


@pytest.mark.parametrize(
    "args",
    [["plot", "-J", "Q-", "-o", "x.gif"], ["plot", "-J"], ["plot", "-X", "Q-"]],
)
def test_plot_bad_input_exit_2(args):
    result = invoke(*args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_records_plot_command(tmp_path):
    store = tmp_path / "s.sqlite"
    make_store(store)
    out = tmp_path / "progress.svg"
    result = invoke("records", "plot", "-o", str(out), "--store", str(store))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(out)
    assert_svg(out)
    assert invoke("records", "plot", "7", "--store", str(store)).exit_code == 2
    missing = invoke("records", "plot", "--store", str(tmp_path / "none.sqlite"))
    assert missing.exit_code == 1 and "no record store" in missing.output
