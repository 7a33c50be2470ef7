"""Pictures: one game's course, the game length distribution, and search progress.

The data behind each figure is built by a small function that needs no matplotlib
(`trajectory`, `best_so_far`), so it can be tested against the engine without images.
matplotlib is imported inside the drawing functions, with the Agg backend, so importing this
module is cheap and no display is needed.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMATS = (".png", ".svg")
SEAT_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red")
LONGEST_NAME = 120  # longer canonical deals get a hashed default file name


@dataclass(frozen=True)
class Trajectory:
    """Every seat's hand size at every trick boundary of one game.

    sizes[t, s] is seat s's hand after t tricks (row 0: the deal), so the last row is the
    end of the game. For a loop, cycle = (first trick, last trick) of the repeating span.
    """

    tricks: np.ndarray  # 0, 1, ..., result.tricks
    sizes: np.ndarray  # (tricks + 1, seats)
    result: object  # the reference engine's Result
    cycle: tuple[int, int] | None


def trajectory(deal: Sequence[Sequence[int]], limit: int | None = None) -> Trajectory:
    """Play `deal` with the reference engine and collect hand sizes after every trick."""
    from bmn.kernels.reference import LOOP, play

    result = play(deal, limit=limit, trace=True)
    rows = [tuple(len(hand) for hand in deal)] + [t.hand_sizes for t in result.trace or ()]
    sizes = np.array(rows, dtype=np.int64)
    cycle = None
    if result.status == LOOP:
        start = result.loop_start_tricks
        cycle = (start, start + result.period_tricks)
    return Trajectory(np.arange(len(rows)), sizes, result, cycle)


def figure_format(path: str | Path) -> str:
    """'png' or 'svg' from the file name; ValueError for anything else."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(
            f"cannot write {str(path)!r}: the file name must end in .png or .svg, not {suffix!r}"
        )
    return suffix[1:]


def default_game_file(deal: Sequence[Sequence[int]], suffix: str = ".png") -> str:
    """bmn-<canonical deal, '/' as '_'>.png; a short hash for very long deals."""
    from bmn.kernels.deal import format_deal

    text = format_deal(deal)
    if len(text) > LONGEST_NAME:
        text = hashlib.sha1(text.encode()).hexdigest()[:12]
    return f"bmn-{text.replace('/', '_')}{suffix}"


def result_text(result) -> str:
    """A short line for a figure title."""
    if result.status == "loop":
        return (
            f"loop: repeats at {result.cards:,} cards, {result.tricks:,} tricks; "
            f"period {result.period_cards:,} cards, {result.period_tricks:,} tricks"
        )
    if result.status == "limit":
        who = "tie" if result.winner is None else f"seat {result.winner} ahead"
        return f"limit: stopped at {result.cards:,} cards, {result.tricks:,} tricks; {who}"
    return f"finished: {result.cards:,} cards, {result.tricks:,} tricks; seat {result.winner} wins"


def _pyplot():
    """pyplot on the Agg backend: no display needed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: str | Path) -> None:
    plt = _pyplot()
    try:
        fig.savefig(path, format=figure_format(path), dpi=120, bbox_inches="tight")
    finally:
        plt.close(fig)


def _wrap_deal(text: str, width: int = 60) -> str:
    """Long deals (3-4 seats) over several title lines, breaking at hand boundaries."""
    lines, line = [], ""
    for hand in text.split("/"):
        piece = hand if not line else f"{line}/{hand}"
        if line and len(piece) > width:
            lines.append(line + "/")
            line = hand
        else:
            line = piece
    return "\n".join([*lines, line])


def plot_game(deal: Sequence[Sequence[int]], traj: Trajectory, path: str | Path) -> None:
    """Each seat's hand size after every trick; a loop's cycle shaded, its period labelled."""
    from bmn.kernels.deal import format_deal

    figure_format(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, 5))
    many = len(traj.tricks) > 80
    for seat in range(traj.sizes.shape[1]):
        ax.plot(
            traj.tricks,
            traj.sizes[:, seat],
            color=SEAT_COLOURS[seat % len(SEAT_COLOURS)],
            lw=0.9 if many else 1.6,
            marker=None if many else "o",
            ms=3,
            label=f"seat {seat}",
        )
    if traj.cycle is not None:
        start, end = traj.cycle
        ax.axvspan(start, end, color="tab:purple", alpha=0.18, label="repeating cycle")
        ax.annotate(
            f"cycle: period {traj.result.period_tricks:,} tricks, "
            f"{traj.result.period_cards:,} cards",
            xy=((start + end) / 2, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(0, -14),
            textcoords="offset points",
            ha="center",
            fontsize=10,
            color="tab:purple",
            bbox={"boxstyle": "round", "fc": "white", "ec": "tab:purple", "alpha": 0.9},
        )
    ax.set_xlim(0, max(1, int(traj.tricks[-1])))
    ax.set_ylim(0, int(traj.sizes.sum(axis=1).max()) * 1.05)
    ax.set_xlabel("trick")
    ax.set_ylabel("cards held")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9, borderaxespad=0)
    ax.set_title(
        f"{_wrap_deal(format_deal(deal))}\n{result_text(traj.result)}",
        fontsize=10,
        family="monospace",
    )
    _save(fig, path)


def _histogram(ax, values: np.ndarray, fit: Mapping | None, unit: str) -> None:
    """Log-count histogram of one length measure, with the fitted exponential tail."""
    values = np.asarray(values)
    top = int(values.max()) if values.size else 1
    width = max(1, math.ceil(top / 120))
    edges = np.arange(0, top + 2 * width, width)
    counts, _ = np.histogram(values, bins=edges)
    ax.stairs(counts, edges, fill=True, color="tab:blue", alpha=0.6, label="games")
    if fit is not None:
        # Expected games per bin under the fitted survival function S(x) = exp(a - r x).
        x = edges[edges >= fit["threshold"]]
        surv = np.exp(fit["intercept"] - fit["rate"] * x)
        expected = values.size * surv * (1 - math.exp(-fit["rate"] * width))
        ax.plot(
            x,
            expected,
            color="tab:red",
            lw=1.5,
            label=f"exponential tail: tenfold rarer every {fit['tenfold']:,.0f} {unit}",
        )
    ax.set_yscale("log")
    ax.set_ylim(bottom=0.5)
    ax.set_xlim(0, edges[-1])
    ax.set_xlabel(unit)
    ax.set_ylabel(f"games per {width:,} {unit}" if width > 1 else "games")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=9)


def plot_stats(
    cards: np.ndarray, tricks: np.ndarray, figures: Mapping, title: str, path: str | Path
) -> None:
    """Histograms of cards and tricks (log counts) with their fitted exponential tails.

    `figures` is `length_stats`' output for the same games; cards and tricks should be the
    finished games only, as the figures are.
    """
    figure_format(path)
    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    for ax, values, name in ((axes[0], cards, "cards"), (axes[1], tricks, "tricks")):
        stats = figures[name]
        _histogram(ax, values, stats["tail"], name)
        if stats["mean"] is not None:
            ax.set_title(
                f"{name}: mean {stats['mean']:,.1f}, median {stats['p50']:,.0f}, "
                f"99.9th pct {stats['p99.9']:,.0f}, longest {stats['longest']:,}",
                fontsize=10,
            )
    fig.suptitle(title, fontsize=11)
    _save(fig, path)


def best_so_far(elapsed: Sequence[float], cards: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Best cards found up to each find, in elapsed order: the running maximum."""
    elapsed = np.asarray(elapsed, dtype=float)
    cards = np.asarray(cards, dtype=np.int64)
    order = np.argsort(elapsed, kind="stable")
    return elapsed[order], np.maximum.accumulate(cards[order]) if cards.size else cards


def _spread(ys: Sequence[float], gap: float) -> list[float]:
    """Label heights for sorted `ys`, at least `gap` apart and as near their lines as possible.

    Overlapping neighbours are pushed apart symmetrically until none overlap.
    """
    placed = [float(y) for y in ys]
    for _ in range(200):
        moved = False
        for i in range(len(placed) - 1):
            short = gap - (placed[i + 1] - placed[i])
            if short > 1e-9 * max(gap, 1.0):
                placed[i] -= short / 2
                placed[i + 1] += short / 2
                moved = True
        if not moved:
            break
    return placed


def plot_records(
    runs: Mapping[str, tuple[Sequence[float], Sequence[int]]],
    published: Sequence[tuple[str, int]],
    path: str | Path,
    seconds: Mapping[str, float] | None = None,
) -> None:
    """Best cards found against elapsed time, one step line per run; published records as lines.

    runs: label -> (elapsed seconds of each find, cards of each find). seconds: a run's total
    running time, so its line continues flat to the end of the run.
    """
    figure_format(path)
    series = {}
    for label, (elapsed, cards) in runs.items():
        x, best = best_so_far(elapsed, cards)
        if x.size:
            end = max(float(x[-1]), (seconds or {}).get(label) or 0.0)
            series[label] = (np.append(x, end), np.append(best, best[-1]))
    positive = [v for x, _ in series.values() for v in x if v > 0]
    # Searches improve fast then slowly: a log time axis once the span is wide.
    log_x = bool(positive) and max(positive) / min(positive) > 100
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, 5.5))
    for i, (label, (x, best)) in enumerate(series.items()):
        if log_x:
            x = np.maximum(x, min(positive) / 2)  # a find at 0 s still shows
        ax.step(x, best, where="post", lw=1.6, color=f"C{i % 10}", label=f"{label}: {best[-1]:,}")
    if log_x:
        ax.set_xscale("log")
    tops = [int(b[-1]) for _, b in series.values()] + [c for _, c in published]
    high = max(tops, default=1) * 1.05
    ax.set_ylim(0, high)
    ax.set_xlabel("elapsed seconds")
    ax.set_ylabel("best cards found")
    ax.grid(alpha=0.3, which="both")
    ranked = sorted(published, key=lambda p: p[1])
    for (name, cards), y in zip(ranked, _spread([c for _, c in ranked], 0.028 * high), strict=True):
        ax.axhline(cards, color="0.45", lw=0.8, ls="--")
        ax.annotate(
            f"{name}: {cards:,}",
            xy=(1.0, cards),
            xycoords=("axes fraction", "data"),
            xytext=(1.01, y),
            textcoords=("axes fraction", "data"),
            va="center",
            fontsize=8,
            color="0.3",
            arrowprops={"arrowstyle": "-", "color": "0.6", "lw": 0.6},
        )
    if series:
        ax.legend(loc="upper left", fontsize=9, title="run: best cards", framealpha=0.95)
    else:
        ax.text(0.5, 0.5, "no finds yet", transform=ax.transAxes, ha="center", color="0.4")
    ax.set_title("Search progress: best game found so far (published records dashed)")
    _save(fig, path)


def store_progress(store, run_ids: Sequence[int] = ()) -> tuple[dict, dict]:
    """Finished finds of the given runs (all when none), for `plot_records`.

    Returns (label -> (elapsed, cards), label -> the run's total seconds). Loop finds are left
    out: their card count is where the repeat was seen, not a game length.
    """
    runs = [store.get_run(i) for i in run_ids] if run_ids else store.runs()
    series, seconds = {}, {}
    for run in runs:
        finds = [f for f in store.run_finds(run.id) if f.status == "finished"]
        label = f"run {run.id} ({run.strategy})"
        series[label] = ([f.elapsed for f in finds], [f.cards for f in finds])
        seconds[label] = run.seconds
    return series, seconds
