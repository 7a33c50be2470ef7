"""Figures: the data behind each is checked against the engine; each renders a real image."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from samples import CASELLA, RECORD

from bmn.frontends.output.plots import (
    _spread,
    best_so_far,
    default_game_file,
    figure_format,
    plot_game,
    plot_records,
    plot_stats,
    result_text,
    store_progress,
    trajectory,
)
from bmn.kernels.deal import decode, parse_deal
from bmn.kernels.dealer import random_deals
from bmn.kernels.decks import even_sizes
from bmn.kernels.reference import play
from bmn.kernels.rng import seed_state
from bmn.records.published import published_games
from bmn.search.measure.stats import length_stats

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
    traj = trajectory(parse_deal(CASELLA))
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
    assert re.fullmatch(r"bmn-plot-[0-9a-f]{8}\.png", name)
    assert name == default_game_file(parse_deal("2J/Q7")) != default_game_file(parse_deal("Q-/-J"))
    assert default_game_file(parse_deal(RECORD), ".svg").endswith(".svg")


def test_game_figures_render(tmp_path):
    for text, name in ((RECORD, "record.png"), (CASELLA, "loop.png"), (FOUR, "four.svg")):
        deal = parse_deal(text)
        path = tmp_path / name
        plot_game(deal, trajectory(deal), path)
        assert_png(path) if name.endswith(".png") else assert_svg(path)


@pytest.mark.slow
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
    from bmn.records.store import Find, Store

    cards = make_store(tmp_path / "s.sqlite")
    with Store(tmp_path / "s.sqlite") as store:
        (series,) = store_progress(store, [2])
        tricks = store.create_run("lahc", "tricks", seed=1, params={})
        store.add_finds(tricks, [Find(RECORD, 8344, 1164, elapsed=2.0)])
        hunt = store.create_run(None, "loop", seed=1, params={})
        store.add_finds(hunt, [Find(CASELLA, 474, 66, "loop")])
        every = store_progress(store)
    assert (series.label, series.objective) == ("run 2 (climb, cards)", "cards")
    assert series.seconds == 120.0
    assert list(series.elapsed) == [i * 7 + 1.0 for i in range(12)]
    assert list(best_so_far(series.elapsed, series.values)[1]) == list(np.maximum.accumulate(cards))
    # a tricks run counts tricks; a loop hunt has no length to draw
    assert [(s.label, list(s.values)) for s in every[2:]] == [("run 3 (lahc, tricks)", [1164])]
    published = [(g.name, g.cards, g.tricks) for g in published_games() if g.status == "finished"]
    plot_records(every, published, tmp_path / "p.png")
    assert_png(tmp_path / "p.png")
    plot_records([], published, tmp_path / "empty.svg")
    assert_svg(tmp_path / "empty.svg")


def test_runs_of_several_hosts_are_labelled_and_styled_by_host(tmp_path, monkeypatch):
    """Runs that ran on two hosts (a merged store's): each legend label names its run's host,
    as `bmn records runs` words it, and each host has a line style of its own; runs of one host
    are drawn as before."""
    import matplotlib.pyplot as plt

    from bmn.frontends.output import plots
    from bmn.records.store import Find, Store

    with Store(tmp_path / "s.sqlite") as store:
        for seed, host in enumerate(["laptop", "desktop"], start=1):
            monkeypatch.setenv("BMN_HOST", host)
            run = store.create_run("climb", "cards", seed, {})
            store.add_finds(run, [Find(RECORD, 8344, 1164, elapsed=float(seed))])
        every = store_progress(store)
    assert [s.host for s in every] == ["laptop", "desktop"]
    every.append(plots.RunSeries("run 9 (walk, cards)", "cards", [2.0], [7000]))  # no host kept
    legends = {}

    def keep(fig, path):
        (ax,) = fig.axes
        legend = ax.get_legend()
        legends[Path(path).name] = [
            (text.get_text(), line.get_linestyle())
            for text, line in zip(legend.get_texts(), legend.get_lines(), strict=True)
        ]
        plt.close(fig)

    monkeypatch.setattr(plots, "_save", keep)
    published = [("Nessler 2022", 8344, 1164)]
    plot_records(every, published, tmp_path / "hosts.png")
    plot_records(every[:1], published, tmp_path / "one.png")
    assert legends["hosts.png"] == [
        ("run 1 (climb, cards) on laptop: 8,344", "-"),
        ("run 2 (climb, cards) on desktop: 8,344", ":"),
        ("run 9 (walk, cards) on a host unknown: 7,000", "-."),
    ]
    assert legends["one.png"] == [("run 1 (climb, cards): 8,344", "-")]


@pytest.mark.slow
def test_record_labels_do_not_overlap(tmp_path):
    """The labels of close records (7,157 / 7,207 / 7,225; 7,959 / 7,972) are spread at least
    a line of text apart on the figure, on one panel and on two."""
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    from bmn.frontends.output import plots

    published = [(g.name, g.cards, g.tricks) for g in published_games() if g.status == "finished"]
    drawn = {}
    real_save = plots._save

    def keep(fig, path):
        fig.canvas.draw()
        drawn[path] = [  # the text alone: an annotation's own extent includes its arrow
            Text.get_window_extent(t) for ax in fig.axes for t in ax.texts if ":" in t.get_text()
        ]
        real_save(fig, path)

    runs = [
        plots.RunSeries("run 1 (walk, cards)", "cards", [1.0], [5000]),
        plots.RunSeries("run 2 (lahc, tricks)", "tricks", [1.0], [700]),
    ]
    original = plots._save
    plots._save = keep
    try:
        plots.plot_records(runs[:1], published, tmp_path / "one.png")
        plots.plot_records(runs, published, tmp_path / "two.png")
    finally:
        plots._save = original
    for boxes in drawn.values():
        assert len(boxes) == len(published) * (len(boxes) // len(published))
        for i, a in enumerate(boxes):
            assert not [b for b in boxes[i + 1 :] if a.overlaps(b)], (a, boxes)
    plt.close("all")


def test_plot_command(bmn, tmp_path, monkeypatch):
    out = tmp_path / "loop.png"
    result = bmn("plot", *CASELLA.split("/"), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(out)
    assert_png(out)
    monkeypatch.chdir(tmp_path)
    result = bmn("plot", "-J", "Q-")
    assert result.exit_code == 0, result.output
    name = default_game_file(parse_deal("-J/Q-"))
    assert result.stdout.strip() == name
    assert (tmp_path / name).read_bytes()[:8] == PNG


@pytest.mark.parametrize(
    "args",
    [["plot", "-J", "Q-", "-o", "x.gif"], ["plot", "-J"], ["plot", "-X", "Q-"]],
)
def test_plot_bad_input_exit_2(bmn, args):
    result = bmn(*args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_records_plot_command(bmn, tmp_path):
    store = tmp_path / "s.sqlite"
    make_store(store)
    out = tmp_path / "progress.svg"
    result = bmn("records", "plot", "-o", str(out), "--store", str(store))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == str(out)
    assert_svg(out)
    assert bmn("records", "plot", "7", "--store", str(store)).exit_code == 2
    missing = bmn("records", "plot", "--store", str(tmp_path / "none.sqlite"))
    assert missing.exit_code == 1 and "no record store" in missing.output


def test_a_title_counts_one_trick_in_the_singular():
    assert result_text(play(parse_deal("-J/Q-"))) == "finished: 4 cards, 1 trick; seat 0 wins"
    assert result_text(play(parse_deal(RECORD))) == (
        "finished: 8,344 cards, 1,164 tricks; seat 1 wins"
    )


def test_tick_labels_separate_thousands_as_the_tables_do(tmp_path, monkeypatch):
    from bmn.frontends.output import plots

    labels = []
    real_save = plots._save

    def keep(fig, path):
        real_save(fig, path)  # drawn as saved: the tick labels are the file's
        labels.extend(t.get_text() for ax in fig.axes for t in ax.get_yticklabels())

    monkeypatch.setattr(plots, "_save", keep)
    runs = [plots.RunSeries("run 1 (walk, cards)", "cards", [1.0, 2.0], [5000, 8344])]
    plots.plot_records(runs, [], tmp_path / "r.png")
    numbers = [label for label in labels if label.replace(",", "").isdigit()]
    assert any(int(n.replace(",", "")) >= 1000 for n in numbers), labels
    assert all("," in n for n in numbers if int(n.replace(",", "")) >= 1000), labels


def test_plot_plays_under_the_rule_set_given_and_names_it(bmn, tmp_path, monkeypatch):
    """bmn's endless 3-seat deal ends under Paulhus's reading (157 cards: the reference
    engine's count), and the title says so."""
    from bmn.frontends.output import plots
    from bmn.kernels.reference import play

    endless = "-J--J----J-K--AQK-/------Q---------Q/KA-----K-A---JQA-"
    titles = {}
    real_save = plots._save

    def keep(fig, path):
        titles[Path(path).name] = fig.axes[0].get_title()
        real_save(fig, path)

    monkeypatch.setattr(plots, "_save", keep)
    for rules in ("bmn", "paulhus"):
        result = bmn("plot", endless, "--rules", rules, "-o", tmp_path / f"{rules}.png")
        assert result.exit_code == 0, result.output
    ends = play(parse_deal(endless), rules="paulhus")
    assert "rules: paulhus" in titles["paulhus.png"]
    assert f"{ends.cards:,} cards" in titles["paulhus.png"] and ends.status == "finished"
    assert "rules:" not in titles["bmn.png"] and "loop" in titles["bmn.png"]
