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

from bmn.search.api import counted

FORMATS = (".png", ".svg")
SEAT_COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red")
# A run's line style by the host it ran on, when the runs drawn ran on more than one (merged
# stores): solid for the first host, then these (dashed is the published records' lines).
HOST_STYLES = ("-", ":", "-.", (0, (6, 2, 1, 2, 1, 2)))


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


def trajectory(
    deal: Sequence[Sequence[int]], limit: int | None = None, rules: str | None = None
) -> Trajectory:
    """Play `deal` with the reference engine (under `rules`, a rule set's name; None: bmn's)
    and collect hand sizes after every trick."""
    from bmn.kernels.api import play

    result = play(deal, limit=limit, trace=True, rules=rules)
    rows = [tuple(len(hand) for hand in deal)] + [t.hand_sizes for t in result.trace or ()]
    sizes = np.array(rows, dtype=np.int64)
    cycle = None
    if result.status == "loop":  # the library's status words (bmn.kernels.play)
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
    """bmn-plot-<8 hex digits>.png: a digest of the canonical deal, short and the same for
    the same deal in any notation."""
    from bmn.kernels.api import format_deal

    digest = hashlib.sha1(format_deal(deal).encode()).hexdigest()[:8]
    return f"bmn-plot-{digest}{suffix}"


def seats_out(traj: Trajectory) -> list[tuple[int, int]]:
    """(seat, trick) for each seat left with no cards after a trick, in trick order.

    A seat with no cards at a trick boundary never gets any again (it cannot lay a court
    card to win a pile), and goes out the next time it is asked for a card."""
    out = []
    for seat in range(traj.sizes.shape[1]):
        empty = np.flatnonzero(traj.sizes[:, seat] == 0)
        if empty.size and traj.sizes[0, seat] > 0:
            out.append((seat, int(empty[0])))
    return sorted(out, key=lambda pair: pair[1])


def result_text(result) -> str:
    """A short line for a figure title (one card, one trick: singular)."""
    cards, tricks = counted(result.cards, "card"), counted(result.tricks, "trick")
    if result.status == "loop":
        period = f"{counted(result.period_cards, 'card')}, {counted(result.period_tricks, 'trick')}"
        return f"loop: repeats at {cards}, {tricks}; period {period}"
    if result.status == "limit":
        who = "tie" if result.winner is None else f"seat {result.winner} ahead"
        return f"limit: stopped at {cards}, {tricks}; {who}"
    return f"finished: {cards}, {tricks}; seat {result.winner} wins"


def _pyplot():
    """pyplot on the Agg backend: no display needed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path: str | Path) -> None:
    plt = _pyplot()
    try:
        _separate_thousands(fig)
        fig.savefig(path, format=figure_format(path), dpi=120, bbox_inches="tight")
    finally:
        plt.close(fig)


def _separate_thousands(fig) -> None:
    """Tick labels written as the tables and titles write numbers: 8,000 beside 8,344."""
    from matplotlib.ticker import FuncFormatter

    def label(value: float, _position: int) -> str:
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.6g}"

    for ax in fig.axes:
        for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
            if scale == "linear":
                axis.set_major_formatter(FuncFormatter(label))


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


def plot_game(
    deal: Sequence[Sequence[int]], traj: Trajectory, path: str | Path, rules: str | None = None
) -> None:
    """Each seat's hand size after every trick; a loop's cycle shaded, its period labelled;
    with 3 or 4 seats, a dotted line and a cross where each seat is left with no cards (out),
    the trick number in the legend. `rules`: a line naming the rule set, in the title."""
    from bmn.kernels.api import format_deal

    figure_format(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(10, 5))
    many = len(traj.tricks) > 80
    # With two seats the first one out ends the game; with more, mark each seat going out and
    # end its line there rather than run it along zero to the end.
    out = dict(seats_out(traj)) if traj.sizes.shape[1] > 2 else {}
    for seat in range(traj.sizes.shape[1]):
        colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
        last = out.get(seat, len(traj.tricks) - 1) + 1
        ax.plot(
            traj.tricks[:last],
            traj.sizes[:last, seat],
            color=colour,
            lw=0.9 if many else 1.6,
            marker=None if many else "o",
            ms=3,
            label=f"seat {seat}",
        )
        if seat in out:
            trick = out[seat]
            ax.axvline(trick, color=colour, ls=":", lw=1.2, label=f"seat {seat} out, trick {trick}")
            ax.plot(trick, 0, marker="X", ms=9, color=colour, mec="black", mew=0.6, zorder=5)
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
        "\n".join(
            [_wrap_deal(format_deal(deal)), *([rules] if rules else []), result_text(traj.result)]
        ),
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


@dataclass(frozen=True)
class RunSeries:
    """One run's finds for `plot_records`: elapsed seconds and the value its objective
    counts (cards, or tricks for a tricks run) of each finished find."""

    label: str  # "run 2 (climb, cards)"
    objective: str  # "cards" or "tricks"
    elapsed: Sequence[float]
    values: Sequence[int]
    seconds: float | None = None  # the run's running time: its line goes on flat to there
    seats: int = 2  # the table it is drawn against: that many seats' published games
    host: str | None = None  # the machine it ran on (None: not kept, a run before schema 7)
    deck: str = "standard deck"  # records.report.run_deck's words
    rules: str = "bmn"  # the rule set it plays, as records.report.run_rules names it
    run: int = 0  # its number in the store

    @property
    def table(self) -> tuple[int, str, str]:
        """What its finds compare with: its seats, deck and rule set."""
        return self.seats, self.deck, self.rules


def plot_records(
    runs: Sequence[RunSeries],
    published: Sequence[tuple[str, int, int]],
    path: str | Path,
    of: str = "",
) -> None:
    """Best found so far against elapsed time, one step line per run; the published record
    games (name, cards, tricks) as labelled dashed lines. Runs for cards and runs for tricks
    each get a panel of their own, one above the other, sharing the time axis. When the runs
    drawn ran on more than one host (a merged store), each run's label names its host, and
    each host has a line style of its own (HOST_STYLES). `of` names the deck and rule set in
    the title when they are not the published games' own (no published lines are drawn)."""
    figure_format(path)
    hosts = list(dict.fromkeys(run.host for run in runs if len(run.values)))
    styles = {host: HOST_STYLES[i % len(HOST_STYLES)] for i, host in enumerate(hosts)}
    named = len(hosts) > 1  # with one host, nothing changes
    series = {"cards": {}, "tricks": {}}
    for run in runs:
        x, best = best_so_far(run.elapsed, run.values)
        if x.size:
            end = max(float(x[-1]), run.seconds or 0.0)
            # Where it ran in `bmn records runs`' words ("threads on desktop, ...").
            label = f"{run.label} on {run.host or 'a host unknown'}" if named else run.label
            line = (np.append(x, end), np.append(best, best[-1]), styles[run.host])
            series[run.objective][label] = line
    panels = [name for name in ("cards", "tricks") if series[name]] or ["cards"]
    positive = [v for drawn in series.values() for x, _, _ in drawn.values() for v in x if v > 0]
    # Searches improve fast then slowly: a log time axis once the span is wide.
    log_x = bool(positive) and max(positive) / min(positive) > 100
    plt = _pyplot()
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(10, 5.5 if len(panels) == 1 else 9), sharex=True, squeeze=False
    )
    colours = iter(f"C{i % 10}" for i in range(len(runs)))
    for ax, unit in zip(axes[:, 0], panels, strict=True):
        records = [
            (name, cards if unit == "cards" else tricks) for name, cards, tricks in published
        ]
        _progress_panel(ax, series[unit], records, unit, colours, min(positive, default=1) / 2)
        if log_x:
            ax.set_xscale("log")
    axes[-1, 0].set_xlabel("elapsed seconds")
    against = f" ({of})" if of else " (published records dashed)"
    axes[0, 0].set_title(f"Search progress: best game found so far{against}")
    fig.tight_layout()
    for ax, unit in zip(axes[:, 0], panels, strict=True):  # label positions need final sizes
        records = [
            (name, cards if unit == "cards" else tricks) for name, cards, tricks in published
        ]
        _label_records(fig, ax, records)
    _save(fig, path)


def _progress_panel(ax, drawn: Mapping, records, unit: str, colours, floor: float) -> None:
    """One objective's runs as step lines, with the published records as dashed lines."""
    for label, (x, best, style) in drawn.items():
        x = np.maximum(x, floor)
        colour = next(colours)
        ax.step(
            x, best, where="post", lw=1.6, ls=style, color=colour, label=f"{label}: {best[-1]:,}"
        )
    tops = [int(b[-1]) for _, b, _ in drawn.values()] + [value for _, value in records]
    ax.set_ylim(0, max(tops, default=1) * 1.05)
    ax.set_ylabel(f"best {unit} found")
    ax.grid(alpha=0.3, which="both")
    for _, value in records:
        ax.axhline(value, color="0.45", lw=0.8, ls="--")
    if drawn:
        ax.legend(loc="upper left", fontsize=9, title=f"run: best {unit}", framealpha=0.95)
    else:
        ax.text(0.5, 0.5, "no finds yet", transform=ax.transAxes, ha="center", color="0.4")


LABEL_POINTS = 8  # font size of the record labels


def _label_records(fig, ax, records: Sequence[tuple[str, int]]) -> None:
    """Name each published record beside the axes, labels spread so none overlap."""
    height_in = ax.get_window_extent().height / fig.dpi
    low, high = ax.get_ylim()
    # One label's height (with a little air) in data units, from the font and the axes' size.
    gap = LABEL_POINTS * 1.4 / 72 / height_in * (high - low)
    ranked = sorted(records, key=lambda r: r[1])
    for (name, value), y in zip(ranked, _spread([v for _, v in ranked], gap), strict=True):
        ax.annotate(
            f"{name}: {value:,}",
            xy=(1.0, value),
            xycoords=("axes fraction", "data"),
            xytext=(1.01, y),
            textcoords=("axes fraction", "data"),
            va="center",
            fontsize=LABEL_POINTS,
            color="0.3",
            arrowprops={"arrowstyle": "-", "color": "0.6", "lw": 0.6},
        )


def store_progress(store, run_ids: Sequence[int] = (), seats: int | None = None) -> list[RunSeries]:
    """Finished finds of the given runs (all when none; of `seats` seats only, if given), for
    `plot_records`: cards for a cards run, tricks for a tricks run. Loop hunts are left out
    (a loop's count is where the repeat was seen, not a game length), and so are imports (a
    table of another program's finds: no search, no progress to draw)."""
    from bmn.records.api import IMPORT_KIND, run_deck, run_rules

    runs = [store.get_run(i) for i in run_ids] if run_ids else store.runs()
    series = []
    for run in runs:
        if run.objective not in ("cards", "tricks") or seats not in (None, run.seats):
            continue
        if run.kind == IMPORT_KIND:
            continue
        # The best of each commit is all a best-so-far line needs (a run may hold millions).
        bests = store.run_bests(run.id, run.objective, status="finished")
        players = "" if run.seats == 2 else f", {run.seats} players"
        label = f"run {run.id} ({run.found_by}, {run.objective}{players})"
        elapsed, values = [e for e, _ in bests], [b for _, b in bests]
        ruled = run_rules(run)
        series.append(
            RunSeries(
                label,
                run.objective,
                elapsed,
                values,
                run.seconds,
                run.seats,
                run.host,
                run_deck(run),
                ruled,
                run.id,
            )  # fmt: skip
        )
    return series
