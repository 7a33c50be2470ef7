"""Everything bmn prints as text: result lines, tables, durations and times.

A command's text output is a list of blocks: lines of text and `Table`s. The command line's
`echo` (bmn.search.cli.options; nothing here imports click) prints them on stdout: on a terminal
each table is drawn by rich (ruled head, long cells folded to the window); anywhere else (a pipe,
a file, a test) as plain columns two spaces apart, so a script that cuts columns or greps rows
reads the same text whatever the window. JSON is not made here: --json prints each result's
`as_dict()` (records/report.py for the store's lists).
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bmn.search.words import format_duration, ordinal, short_time

if TYPE_CHECKING:
    from rich.table import Table as RichTable

    from bmn.records.published import PublishedGame, Replayed
    from bmn.records.report import Rank
    from bmn.records.store import FindRow, LoopRow, Run
    from bmn.search.measure.odds import Odds


@dataclass(frozen=True)
class Table:
    """Rows of cells under a head: right-aligned (numbers) but for the columns in `left`."""

    head: Sequence[str]
    rows: Sequence[Sequence[Any]]
    left: Collection[int] = ()

    def cells(self) -> list[list[str]]:
        return [[str(c) for c in self.head]] + [[str(c) for c in row] for row in self.rows]

    def plain(self) -> str:
        """Columns two spaces apart, each as wide as its widest cell; no trailing spaces."""
        cells = self.cells()
        widths = [max(len(row[c]) for row in cells) for c in range(len(self.head))]

        def line(row: list[str]) -> str:
            parts = [
                cell.ljust(w) if c in self.left else cell.rjust(w)
                for c, (cell, w) in enumerate(zip(row, widths, strict=True))
            ]
            return "  ".join(parts).rstrip()

        return "\n".join(line(row) for row in cells)

    def rich(self) -> RichTable:
        """The same table for a terminal; cells too wide for the window fold, never cut."""
        from rich import box
        from rich.table import Table as RichTable

        table = RichTable(
            box=box.SIMPLE_HEAD,
            header_style="bold",
            show_edge=False,
            pad_edge=False,
            collapse_padding=True,
        )
        for c, name in enumerate(self.head):
            justify = "left" if c in self.left else "right"
            table.add_column(name, justify=justify, overflow="fold")
        for row in self.cells()[1:]:
            table.add_row(*row)
        return table


Block = str | Table


def plain(blocks: Iterable[Block]) -> str:
    """Blocks as plain text, one line or table after another."""
    return "\n".join(b.plain() if isinstance(b, Table) else b for b in blocks)


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


# -- one game ------------------------------------------------------------------------------


def describe(result: Any) -> str:
    """One summary line for a reference or kernel result (anything with its fields)."""
    at = _figures(result.cards, result.tricks)
    if result.status == "loop":
        return (
            f"loop: never ends; state repeats at {at}; cycle starts after"
            f" {_figures(result.loop_start_cards, result.loop_start_tricks)}; period"
            f" {_figures(result.period_cards, result.period_tricks)}"
        )
    if result.status == "limit":
        who = "no seat (tie)" if result.winner is None else f"seat {result.winner}"
        return f"limit: stopped at {at}; {who} holds most cards"
    return f"finished: {at}; seat {result.winner} wins"


def _figures(cards: int, tricks: int) -> str:
    """'4 cards, 1 trick': a game's figures, singular for one, without separators (as game
    results have always printed)."""
    return f"{cards} card{'' if cards == 1 else 's'}, {tricks} trick{'' if tricks == 1 else 's'}"


def trace_table(trace: Iterable[Any], seats: int) -> Table:
    """`bmn play --trace`: trick number, taker, cards in the pile, hand sizes after it."""
    head = ["trick", "taker", "pile"] + [f"seat {s}" for s in range(seats)]
    rows = [[i, t.taker, t.cards, *t.hand_sizes] for i, t in enumerate(trace, start=1)]
    return Table(head, rows)


def describe_loop(analysis: Any) -> list[Block]:
    """`bmn loop`: a summary, then for a loop its key and a table of every cycle state."""
    from bmn.kernels.deal import format_hand

    if analysis.status != "loop":
        return [
            f"finished: does not loop; {_figures(analysis.cards, analysis.tricks)};"
            f" seat {analysis.winner} wins"
        ]
    balanced = [str(i) for i, s in enumerate(analysis.states, start=1) if s.balanced]
    seats = len(analysis.states[0].hands)
    head = ["state", "leader", "cards", "balanced"] + [f"seat {s}" for s in range(seats)]
    rows = [
        [i, s.leader, s.trick_cards, "yes" if s.balanced else ""]
        + ["(out)" if h is None else format_hand(h) or "(empty)" for h in s.hands]
        for i, s in enumerate(analysis.states, start=1)
    ]
    return [
        f"loop: never ends; state repeats at {_figures(analysis.cards, analysis.tricks)}",
        f"cycle starts after {_figures(analysis.loop_start_cards, analysis.loop_start_tricks)}",
        f"period: {_figures(analysis.period_cards, analysis.period_tricks)}",
        f"balanced cycle states: {', '.join(balanced) if balanced else 'none'}",
        f"cycle key: {analysis.key}",
        Table(head, rows, left=range(4, 4 + seats)),
    ]


# -- many games ----------------------------------------------------------------------------


def format_stats(figures: dict) -> list[Block]:
    """`bmn stats`: the deals line, a table of cards and tricks, the fitted tails."""
    from bmn.search.measure.stats import PERCENTILES, percentile_key

    looped = figures["looping"]
    heading = (
        f"deals: {figures['deals']:,} ({figures.get('players', 2)} players, seed "
        f"{figures.get('seed')}); finished {figures['finished']:,}; looping {looped:,} "
        f"({figures['loop_fraction']:.4%})"
    )
    head = ["", "mean", "median"] + [percentile_key(q) for q in PERCENTILES[1:]] + ["longest"]
    keys = ["mean"] + [percentile_key(q) for q in PERCENTILES] + ["longest"]
    rows, tails = [], []
    for name in ("cards", "tricks"):
        s = figures[name]
        rows.append([name] + [_number(s[k], 1 if k == "mean" else 0) for k in keys])
        if s["tail"] is not None:
            t = s["tail"]
            tails.append(
                f"{name} tail above {t['threshold']:,.0f}: tenfold rarer every "
                f"{t['tenfold']:,.1f} {name} (decay {t['rate']:.5f} per {name[:-1]})"
            )
    return [heading, Table(head, rows, left=(0,)), *tails]


def _number(value: float | None, decimals: int) -> str:
    """Table cells: the mean to a decimal, percentiles rounded (JSON keeps them exact)."""
    return "-" if value is None else f"{value:,.{decimals}f}"


def published_table(rows: Sequence[Replayed]) -> Table:
    """`bmn records published`: each record game, published and replayed."""
    head = ["name", "year", "status", "cards", "replayed", "tricks", "replayed", ""]
    body = [
        [r.name, r.year, r.status, r.cards, r.replayed_cards, r.tricks, r.replayed_tricks]
        + ["" if r.matches else "<-- differs"]
        for r in rows
    ]
    return Table(head, body, left=(0, 2, 7))


def bench_table(rows: Sequence[dict], thresholds: Sequence[int]) -> Table:
    """`bmn search-bench`: each strategy's rate and far-tail finds (rows of quality.table)."""
    head = ["strategy", "games/s", "vs bench", "best (median)"]
    head += [name for t in thresholds for name in (f">={t}/M", f">={t}/min")]
    body = [
        [
            row["strategy"],
            f"{row['rate']:,.0f}",
            f"{row['rate_vs_bench']:.2f}",
            f"{row['best_cards_median']:,.0f}",
        ]
        + [f"{row[f'per_{unit}_{t}']:.2f}" for t in thresholds for unit in ("million", "minute")]
        for row in rows
    ]
    return Table(head, body, left=(0,))


# -- the record store ----------------------------------------------------------------------


def top_text(rows: Sequence[FindRow]) -> Block:
    if not rows:
        return "no finds in the store match"
    head = ["rank", "cards", "tricks", "status", "run", "found (UTC)", "deal"]
    body = [
        [i, r.cards, r.tricks, r.status, r.run, short_time(r.found_at), r.deal]
        for i, r in enumerate(rows, start=1)
    ]
    return Table(head, body, left=(3, 5, 6))


def runs_text(runs: Sequence[Run]) -> Block:
    if not runs:
        return "no runs in the store"
    head = ["run", "strategy", "objective", "players", "status", "games", "time", "best cards"]
    head += ["tricks", "started (UTC)", "ran on"]
    body = [
        [
            r.id,
            r.strategy,
            r.objective,
            r.seats,
            r.status,
            f"{r.games:,}",
            format_duration(r.seconds),
            "-" if r.best_cards is None else r.best_cards,
            "-" if r.best_tricks is None else r.best_tricks,
            short_time(r.started_at),
            r.backend,
        ]
        for r in runs
    ]
    return Table(head, body, left=(1, 2, 4, 9, 10))


def loops_text(rows: Sequence[LoopRow]) -> Block:
    """One row per stored cycle; the balanced column is yes, no, or '?' (basin search cut)."""
    if not rows:
        return "no cycles in the store; hunt with: bmn search --objective loop"
    reach = {True: "yes", False: "no", None: "?"}
    head = ["run", "deck", "period", "balanced", "seen", "example deal", "cycle key"]
    body = [
        [
            row.run,
            row.deck,
            f"{row.period_cards}c/{row.period_tricks}t",
            f"{reach[row.reachable]} ({row.balanced_deals})",
            f"{row.times_seen:,}",
            row.example_deal,
            row.key,
        ]
        for row in rows
    ]
    return Table(head, body, left=(1, 3, 5, 6))


def standard_loops_text(rows: Sequence[dict]) -> Block:
    """`records loops --standard`: one row per standard-deck cycle (report.standard_loops)."""
    if not rows:
        return "no standard-deck cycles in the store; grow them with: bmn search --objective grow"
    head = ["run", "period", "deal split", "26/26", "most balanced deal", "seat-blind key"]
    body = [
        [
            row["run"],
            f"{row['period_cards']}c/{row['period_tricks']}t",
            row["split"],
            f"{'yes' if row['balanced'] else 'no'} "
            f"({row['balanced_deals']}+{row['mirrored_balanced_deals']})",
            row["deal"],
            row["rotation_key"],
        ]
        for row in rows
    ]
    return Table(head, body, left=(3, 4, 5))


def describe_rank(
    rank: Rank, cards: int, ranking: Sequence[PublishedGame], players: int = 2
) -> str:
    """Where a deal of `cards` cards stands among the published games that finish, in words:
    its neighbours in the list by name and length, then its place as if added to the list.
    Three and four players rank among bmn's own table (nobody published one before)."""
    own = players != 2
    if rank.published and own:
        return f"in bmn's table as {rank.published}: {ordinal(rank.rank)} of its {rank.of} games"
    if rank.published:
        return (
            f"the published record {rank.published}:"
            f" {ordinal(rank.rank)} of the {rank.of} published games that finish"
        )
    place = f"would rank {ordinal(rank.rank)} of {rank.of}"
    if not ranking:
        return f"the first of its kind, the table being empty: {place}"
    level = [g for g in ranking if g.cards == cards]
    longer = [g for g in ranking if g.cards > cards]
    shorter = [g for g in ranking if g.cards < cards]
    if level:
        return f"as long as {level[0].name} ({cards:,} cards): {place}, level with it"
    if not longer:
        top = max(ranking, key=lambda g: g.cards)
        return f"a new record, longer than {top.name} ({top.cards:,} cards): {place}"
    if not shorter:
        low = min(ranking, key=lambda g: g.cards)
        start = "bmn's table starts" if own else "the published records start"
        return f"{start} at {low.cards:,} cards ({low.name}): {place}"
    above = min(longer, key=lambda g: g.cards)
    below = max(shorter, key=lambda g: g.cards)
    return f"between {above.name} ({above.cards:,}) and {below.name} ({below.cards:,}): {place}"


def ranking_note(ranking: Sequence[PublishedGame], players: int = 2) -> str:
    """What the ranks count: the published games that finish, plus the deal ranked."""
    from bmn.records.published import published_games

    if players != 2:
        return (
            f"No {players}-player games were published before bmn: that table starts empty."
            f" Ranks are by cards among the {len(ranking)} games of bmn's own table (its"
            f" longest {players}-player finds: bmn records published --players {players}),"
            f" plus the deal ranked (so 'of {len(ranking) + 1}')."
        )
    endless = [g.name for g in published_games() if g.status != "finished"]
    note = (
        f"Ranks are by cards among the {len(ranking)} published games that finish, plus"
        f" the deal ranked (so 'of {len(ranking) + 1}')"
    )
    if endless:
        never = " and ".join(endless)
        note += f"; {never} never {'ends' if len(endless) == 1 else 'end'}, so has no length"
    return note + "."


def compare_text(
    rows: Sequence[FindRow], ranking: Sequence[PublishedGame], players: int = 2
) -> list[Block]:
    """The published records and the store's finds in one list, longest first."""
    from bmn.records.report import rank_among

    table = "published" if players == 2 else "in bmn's table"
    entries = [
        (g.cards, g.tricks, g.name, f"{i} of {len(ranking)} {table}", g.deal)
        for i, g in enumerate(ranking, start=1)
    ]
    entries += [
        (
            r.cards,
            r.tricks,
            f"run {r.run}",
            describe_rank(rank_among(r.deal, r.cards, ranking), r.cards, ranking, players),
            r.deal,
        )
        for r in rows
    ]
    entries.sort(key=lambda e: -e[0])
    blocks: list[Block] = [
        Table(["cards", "tricks", "found by", "rank", "deal"], entries, left=(2, 3, 4)),
        ranking_note(ranking, players),
    ]
    if not rows:
        which = "" if players == 2 else f" {players}-player"
        blocks.append(f"the store has no finished{which} finds yet")
    return blocks


def show_text(shown: dict[str, Any], summary: str, store: str) -> str:
    """`bmn records show`: the replayed result, every time the deal was found, its rank."""
    from bmn.records.report import Rank, agrees, published_ranking
    from bmn.records.store import FindRow

    lines = [f"deal: {shown['deal']}", f"replayed: {summary}"]
    finds = shown["finds"]
    if shown["store"] is None:
        lines.append(f"no record store at {store}, so no finds to show")
    elif not finds:
        lines.append("not in the store")
    else:
        lines.append(f"found {len(finds)} time{'s' if len(finds) > 1 else ''}:")
        for row in finds:
            differs = "" if agrees(FindRow(**row), shown["result"]) else "  <-- differs from replay"
            lines.append(
                f"  run {row['run']} ({row['strategy']}) at {short_time(row['found_at'])} UTC,"
                f" {format_duration(row['elapsed'])} into the run: stored {row['cards']} cards,"
                f" {row['tricks']} tricks{differs}"
            )
    rank = shown["published_rank"]
    if rank is not None:
        cards = shown["result"]["cards"]
        words = describe_rank(Rank(**rank), cards, published_ranking())
        lines.append(f"against the published records ({cards:,} cards): {words}")
    return "\n".join(lines)


# -- the odds of a longer game (bmn.search.measure.odds) ----------------------------------------


def odds_row(odds: Odds) -> str:
    """The live panel's odds row, brief: how rare the best is, how lucky the run, the waits."""
    rarity = f"best is 1 random deal in {big_count(odds.one_in)}"
    row = f"{rarity}; {luck(odds.luckier_than)} runs this size"
    waits = [
        f"{m.name if m.name.endswith(odds.unit) else f'{m.name} ({m.length:,})'}"
        f" ~{long_wait(m.seconds)}"
        for m in odds.milestones
    ]
    if odds.rate > 0 and waits:
        row += f"; expected waits: {', '.join(waits)}"
    return row + " (estimate: fitted tail)"


def odds_line(odds: Odds) -> str:
    """The odds in a sentence, for the run's summary and its log: what the estimate rests on,
    how rare the best is, how lucky the run, and the expected waits at its rate."""
    line = (
        f"odds (an estimate from {odds.model}): {odds.best:,} {odds.unit} is one random deal in"
        f" {big_count(odds.one_in)}; this run is {luck(odds.luckier_than)} runs of"
        f" {odds.deals:,} random deals"
    )
    waits = [
        f"{m.name if m.name.endswith(odds.unit) else f'{m.name} ({m.length:,} {odds.unit})'}"
        f" in about {long_wait(m.seconds)} (one deal in {big_count(m.one_in)})"
        for m in odds.milestones
    ]
    if odds.rate > 0 and waits:
        line += f"; at {odds.rate:,.0f} games/s, expect {' and '.join(waits)}"
    return line


def luck(shorter: float) -> str:
    """'luckier than 80% of': `shorter` is the share of runs whose best is shorter. One
    phrasing whatever the share, so a live row does not flip between two as the run goes on;
    a share near 0 or 1 gets the digits that tell it apart."""
    return f"luckier than {_percent(shorter)} of"


def _percent(share: float) -> str:
    if share > 0.9999:
        return "over 99.99%"
    if share < 0.0001:
        return "under 0.01%"
    return f"{share:.0%}" if 0.01 <= share <= 0.99 else f"{share:.2%}"


def big_count(n: float) -> str:
    """A count in words past a million: 9,600, 3.1 million, 42 billion, 2.5e15."""
    for size, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if size <= n < 1000 * size:
            return f"{n / size:.2g} {word}" if n < 10 * size else f"{n / size:,.0f} {word}"
    return f"{n:,.0f}" if n < 1e6 else _scientific(n)


def long_wait(seconds: float | None) -> str:
    """A wait from seconds to ages: 1s (the least), 40s, 9.5m, 3h, 4 days, 12 years, 3.2e7
    years."""
    if seconds is None:
        return "-"
    for size, unit in ((365.25 * 86400, " years"), (86400, " days"), (3600, "h"), (60, "m")):
        if seconds >= size:
            value = seconds / size
            if value >= 1e6:
                return _scientific(value) + unit
            return f"{value:.2g}{unit}" if value < 10 else f"{value:,.0f}{unit}"
    return f"{max(seconds, 1):.0f}s"


def _scientific(x: float) -> str:
    """2.5e15, not 2.5e+15."""
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{mantissa.removesuffix('.0')}e{int(exponent)}"
