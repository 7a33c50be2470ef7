"""The record store and the published records in text: `bmn records` published, top, runs,
loops, compare and show, and a deal's rank among the published games in words (the web page
shows the same tables, with links)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from bmn.frontends.output.columns import numbered
from bmn.frontends.output.listings import (
    compare_find_listing,
    compare_listing,
    find_listing,
    loop_listing,
    loop_listing_of,
    published_json,
    published_listing,
    run_listing,
    standard_loop_listing,
)
from bmn.frontends.output.tables import Block, Table
from bmn.kernels.api import DEFAULT as DEFAULT_RULES
from bmn.search.api import format_duration, ordinal, short_time

if TYPE_CHECKING:
    from bmn.records.api import (
        Coverage,
        FindList,
        FindRow,
        Imported,
        LeftOut,
        LoopRow,
        Merged,
        PublishedGame,
        Rank,
        Replayed,
        Run,
    )


def published_table(rows: Sequence[Replayed]) -> Table:
    """`bmn records published` (listings.published_listing)."""
    return published_listing(rows).table(rows)


def top_text(
    lists: Sequence[FindList],
    loops: Sequence[FindRow] = (),
    loop_count: int = 0,
    by: str = "cards",
    cycles: str | None = None,
) -> list[Block]:
    """`bmn records top`: a table for each seat count and deck (only games of one deck compare),
    then the loops apart, in the order found: a game that never ends has no length to rank.
    With no find to list, `cycles` says what the store holds instead (cycles_held)."""
    if not lists and not loops:
        return ["no finds in the store match" + (f"; {cycles}" if cycles else "")]
    blocks: list[Block] = []
    for found in lists:
        blocks += [f"{found.seats} players, {found.label}: longest by {by}", find_table(found.rows)]
    if loops:
        shown = f"the first {len(loops):,} of {loop_count:,}" if loop_count > len(loops) else "all"
        blocks.append(
            f"games that never end ({shown}), not ranked; their cycles: bmn records loops"
        )
        blocks.append(loop_table(loops))
    return blocks


def top_json(lists: Sequence[FindList], loops: Sequence[FindRow] = ()) -> str:
    """`records top --json`: each list's finds, with its seats and deck, then the loops."""
    rows = [row for found in lists for row in find_listing(found).dicts(numbered(found.rows))]
    return json.dumps(rows + loop_listing().dicts(numbered(loops)))


def cycles_held(cycles: int, store: str) -> str | None:
    """What a store of cycles only holds, and the command that lists them; None for none."""
    if not cycles:
        return None
    from shlex import quote

    from bmn.records.api import DEFAULT_PATH

    held = f"{cycles:,} cycle{'' if cycles == 1 else 's'} of games that never end"
    named = "" if store == DEFAULT_PATH else f" --store {quote(store)}"
    return f"it holds {held}, listed by: bmn records loops{named}"


def find_table(rows: Sequence[FindRow]) -> Table:
    """One list of finished games, ranked (listings.find_listing)."""
    return find_listing().table(numbered(rows))


def loop_table(rows: Sequence[FindRow]) -> Table:
    """Looping deals, in the order found: no cards, no rank (listings.loop_listing)."""
    return loop_listing().table(numbered(rows))


def runs_text(runs: Sequence[Run]) -> Block:
    """`records runs` (listings.run_listing)."""
    if not runs:
        return "no runs in the store"
    return run_listing().table(runs)


def loops_text(rows: Sequence[LoopRow], rules: bool | None = None) -> Block:
    """`records loops`: one row per stored cycle (listings.loop_listing_of); the rule set each
    was found under a column where any is not bmn's (or as `rules` says)."""
    if not rows:
        return "no cycles in the store; hunt with: bmn search --objective loop"
    ruled = any(row.rules != DEFAULT_RULES for row in rows) if rules is None else rules
    return loop_listing_of(ruled).table(rows)


def loops_json(rows: Sequence[LoopRow]) -> str:
    return loop_listing_of(True).json(rows)


def standard_loops_text(rows: Sequence[dict]) -> Block:
    """`records loops --standard` (listings.standard_loop_listing; rows: report.
    standard_loops'); its rule set a column where any is not bmn's."""
    if not rows:
        return "no standard-deck cycles in the store; grow them with: bmn search --objective grow"
    ruled = any(row["rules"] != DEFAULT_RULES for row in rows)
    return standard_loop_listing(ruled).table(rows)


def standard_loops_json(rows: Sequence[dict]) -> str:
    return standard_loop_listing(True).json(rows)


def runs_json(runs: Sequence[Run]) -> str:
    return run_listing().json(runs)


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
    from bmn.records.api import published_games

    if players != 2:
        return (
            f"No {players}-player games were published before bmn: that table starts empty."
            f" Ranks are by cards among the {len(ranking)} games of bmn's own table (its"
            f" longest {players}-player finds: bmn records published --players {players}),"
            f" plus the deal ranked when it is not one of them (so 'of {len(ranking) + 1}')."
        )
    endless = [g.name for g in published_games() if g.status != "finished"]
    note = (
        f"Ranks are by cards among the {len(ranking)} published games that finish, plus"
        f" the deal ranked when it is not one of them (so 'of {len(ranking) + 1}')"
    )
    if endless:
        never = " and ".join(endless)
        note += f"; {never} never {'ends' if len(endless) == 1 else 'end'}, so has no length"
    return note + "."


def compare_text(
    rows: Sequence[FindRow],
    ranking: Sequence[PublishedGame],
    players: int = 2,
    left_out: LeftOut | None = None,
    store: str | None = None,
) -> list[Block]:
    """The published records and the store's finds in one list, longest first (listings.
    compare_listing); a find's place in its row ('run 3: 4th'), a find after every published
    game that finishes by its run alone, that place said once below the table; and the best
    find's rank in words (`store`: the one named in a command to copy)."""
    from bmn.records.api import rank_among

    entries = [(g.cards, g.tricks, g.name, g.deal) for g in ranking]
    last = None
    for r in rows:
        rank = rank_among(r.deal, r.cards, ranking)
        game = f"run {r.run}: {ordinal(rank.rank)}"
        if rank.published:
            game = f"run {r.run}: {rank.published}"
        elif rank.rank == rank.of:  # after every published game: said once, below
            game, last = f"run {r.run}", rank.of
        entries.append((r.cards, r.tricks, game, r.deal))
    entries.sort(key=lambda e: -e[0])
    blocks: list[Block] = [compare_listing().table(entries), ranking_note(ranking, players)]
    if last is not None:
        blocks.append(
            f"a find named by its run alone would rank {ordinal(last)} of {last}, after every"
            " published game that finishes"
        )
    if rows:
        best = rows[0]
        words = describe_rank(
            rank_among(best.deal, best.cards, ranking), best.cards, ranking, players
        )
        blocks.append(f"the best find (run {best.run}, {best.cards:,} cards): {words}")
    else:
        blocks.append(_none_to_rank(players, left_out, store))
    said = left_out.text(players) if left_out is not None else None
    return blocks + ([said] if said else [])


def compare_json(
    rows: Sequence[FindRow],
    ranking: Sequence[PublishedGame],
    players: int = 2,
    left_out: LeftOut | None = None,
) -> str:
    """`records compare --json`: the published games ranked, the finds with their ranks
    (listings.compare_find_listing), and what the store holds that does not compare."""
    left = left_out.as_dict() if left_out is not None else None
    finds = compare_find_listing(ranking).dicts(rows)
    published = published_json(ranking)
    return json.dumps(
        {"players": players, "published": published, "finds": finds, "left_out": left}
    )


def _none_to_rank(players: int, left_out: LeftOut | None, store: str | None = None) -> str:
    """Why `records compare` ranks no find; where the store holds finished finds of other seat
    counts that compare (the standard deck, bmn's rules), how many, and the --players to give
    for them; else any cycles it holds."""
    others = {int(s): n for s, n in (left_out.ranked_elsewhere if left_out else {}).items() if n}
    which = "" if players == 2 and not others else f" {players}-player"
    line = f"the store has no finished{which} standard-deck finds yet"
    if not others:
        held = cycles_held(left_out.cycles, store) if left_out and store else None
        return f"{line}; {held}" if held else line
    counts = sorted(others.items())
    first, *rest = counts
    held = [
        f"{first[1]:,} finished standard-deck {'find' if first[1] == 1 else 'finds'} of"
        f" {first[0]} players"
    ]
    held += [f"{n:,} of {s} players" for s, n in rest]
    give = " or ".join(f"--players {s}" for s, _ in counts)
    return f"{line}; it has {' and '.join(held)}: give {give}"


def show_text(shown: dict[str, Any], summary: str, store: str, ruled: str | None = None) -> str:
    """`bmn records show`: the replayed result (after `ruled`, the line naming a rule set
    other than bmn's), the published game it is, every time the deal was found, its rank."""
    from bmn.records.api import Rank, published_ranking

    lines = [f"deal: {shown['deal']}", *([ruled] if ruled else []), f"replayed: {summary}"]
    if (game := shown.get("published")) is not None:
        lines.append(published_line(game, shown["deal"].count("/") + 1))
    finds = shown["finds"]
    if shown["store"] is None:
        lines.append(f"no record store at {store}, so no finds to show")
    elif not finds:
        lines.append("not in the store")
    else:
        lines.append(f"found {len(finds)} time{'s' if len(finds) > 1 else ''}:")
        for row in finds:
            ruled = "" if row["rules"] == DEFAULT_RULES else f" under {row['rules']}'s rules"
            differs = "" if row["agrees"] else f"  <-- differs: {row['differs']}"
            lines.append(
                f"  run {row['run']} ({row['strategy']}) at {short_time(row['found_at'])} UTC,"
                f" {format_duration(row['elapsed'])} into the run: stored {row['cards']:,} cards,"
                f" {row['tricks']:,} tricks{ruled}{differs}"
            )
    rank = shown["published_rank"]
    if rank is not None:
        cards, players = shown["result"]["cards"], shown["deal"].count("/") + 1
        ranking = published_ranking(players)
        words = describe_rank(Rank(**rank), cards, ranking, players)
        against = "the published records" if players == 2 else f"bmn's {players}-player table"
        lines.append(f"against {against} ({cards:,} cards): {words}")
    numbers = shown.get("numbers")
    if numbers is not None:
        lines.append(numbers_line(numbers, shown["deal"].count("/") + 1))
    return "\n".join(lines)


def published_line(game: dict[str, Any], players: int) -> str:
    """The published game a deal is (report.published_as), with its published length."""
    table = "" if players == 2 else f" (bmn's {players}-player table)"
    if game["status"] == "loop":
        length = f"a game that never ends, repeating at {game['cards']:,} cards"
    else:
        length = f"{game['cards']:,} cards, {game['tricks']:,} tricks"
    return f"published: {game['name']}{table}, {length}"


def numbers_line(numbers: dict[str, str | None], players: int) -> str:
    """A standard deal's numbers (report.deal_numbers), and the command that deals each back."""
    back = "bmn deal --rank N" + (f" --players {players}" if players != 2 else "")
    line = f"deal number: {numbers['bmn']} in bmn's order ({back})"
    if numbers["camicia"] is not None:
        line += f"; {numbers['camicia']} in camicia.dev's (--rank-order camicia)"
    return line


def imported_line(done: Imported) -> str:
    """What an import did, in one line: its runs, the deals stored and not stored again."""
    runs = run_numbers(done.runs)
    name = PurePath(done.path).name
    if done.again:
        return f"{name}: imported before as {runs}; nothing new"
    skipped = f", {len(done.skipped):,} skipped" if done.skipped else ""
    return f"{name}: {runs}; finds {done.new:,} new, {done.known:,} given twice{skipped}"


def run_numbers(runs: Sequence[int]) -> str:
    """'run 3', 'runs 3 to 16' (numbers in a row), 'runs 3, 5 and 9'."""
    if len(runs) == 1:
        return f"run {runs[0]}"
    if list(runs) == list(range(runs[0], runs[0] + len(runs))):
        return f"runs {runs[0]} to {runs[-1]}"
    return f"runs {', '.join(map(str, runs[:-1]))} and {runs[-1]}"


def merged_line(done: Merged) -> str:
    """What one source's merge did, in one line that fits 80 columns (new, and already here)."""
    runs = f"runs {done.runs_new:,} new, {done.runs_known:,} here"
    if done.runs_advanced:
        runs += f" ({done.runs_advanced:,} searched further there)"
    finds = f"finds {done.finds_new:,} new, {done.finds_known:,} here"
    loops = f"cycles {done.loops_new:,} new, {done.loops_known:,} here"
    return f"{PurePath(done.source).name}: {runs}; {finds}; {loops}"


def coverage_text(groups: Sequence[Coverage]) -> str:
    """Each group of enumerations: its ranks done, missing and overlapping, as rank ranges."""
    if not groups:
        return "no enumerations in the store; run one with: bmn search --strategy every"
    blocks = []
    for g in groups:
        sizes = "/".join(str(n) for n in g.hand_sizes)
        title = f"deck {g.deck}, hands {sizes}, rules {g.rules}, objective {g.objective}"
        lines = [
            f"{title}: runs {', '.join(str(run) for run in g.runs)}",
            f"  done:     {g.done_deals:,} of {g.total:,} deals: {_spans(g.done)}",
            f"  missing:  {_spans(g.missing)}",
            f"  overlap:  {_spans(g.overlap)}",
        ]
        lines += [
            f"  unfinished: run {run}, ranks {_spans([span])}"
            f" ({g.unfinished_done[run]:,} of them visited)"
            for run, span in g.unfinished
        ]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _spans(spans: Sequence[tuple[int, int]]) -> str:
    """Rank ranges as a user types them back: first to last (inclusive)."""
    if not spans:
        return "none"
    return ", ".join(f"{first:,} to {end - 1:,}" for first, end in spans)
