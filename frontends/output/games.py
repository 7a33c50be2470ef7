"""One game in text: `bmn play`'s result line and trick table, `bmn loop`'s cycle."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bmn.frontends.output.tables import Block, Table


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
    """'4 cards, 1 trick', '8,344 cards, 1,164 tricks': a game's figures, singular for one."""
    return (
        f"{cards:,} card{'' if cards == 1 else 's'}, {tricks:,} trick{'' if tricks == 1 else 's'}"
    )


def trace_table(trace: Iterable[Any], seats: int) -> Table:
    """`bmn play --trace`: trick number, taker, cards in the pile, hand sizes after it."""
    head = ["trick", "taker", "pile"] + [f"seat {s}" for s in range(seats)]
    rows = [[i, t.taker, t.cards, *t.hand_sizes] for i, t in enumerate(trace, start=1)]
    return Table(head, rows)


def describe_loop(analysis: Any) -> list[Block]:
    """`bmn loop`: a summary, then for a loop its key and a table of every cycle state."""
    from bmn.kernels.api import format_hand

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
        *(_seats_lines(analysis) if seats > 2 else []),  # two seats: never one out on a cycle
        Table(head, rows, left=range(4, 4 + seats)),
    ]


def _seats_lines(analysis: Any) -> list[Block]:
    """`bmn loop` with 3 or 4 seats: which seats the cycle holds, and its seat-blind key."""
    seats_in, out = analysis.seats_in, analysis.seats_out
    listed = ", ".join(map(str, seats_in))
    kind = (
        f"{analysis.kind}, every seat keeps cards for ever"
        if not out
        else f"{analysis.kind}, a {len(seats_in)}-seat cycle left after seat"
        f"{'s' if len(out) > 1 else ''} {', '.join(map(str, out))} went out"
    )
    return [
        f"seats in the cycle: {len(seats_in)} of {analysis.seats} ({listed}); {kind}",
        f"seat-blind key: {analysis.rotation_key}",
    ]
