"""benchmarks/deck_table.py's rows for 3 and 4 seats (the deck table of docs/endless-games.md),
against the reference engine over every deal of the deck: the deals, the looping deals, the
cycles by kind and seats left, and the longest finished game."""

import importlib.util
from collections import defaultdict
from pathlib import Path

import pytest

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import decode, format_deal
from bmn.kernels.decks import even_sizes
from bmn.kernels.ranks import arrangements, first_of, next_arrangement

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "deck_table.py"


def deck_table():
    spec = importlib.util.spec_from_file_location("deck_table", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def oracle(counts, players):
    """Every deal of the deck in rank order, even hands, played by the reference engine: the
    deals, the looping deals, the cycles by seats kept ([seats in, seat-bound, seat-blind], most
    first) and the longest finished game (cards, tricks, the first such deal in rank order)."""
    sizes = even_sizes(sum(counts), players)
    cards, deals, loops = first_of(counts), 0, 0
    bound, blind = defaultdict(set), defaultdict(set)
    longest = (-1, -1, "")
    for _ in range(arrangements(counts)):
        deal = decode(cards, sizes)
        game = reference.play(deal)
        deals += 1
        if game.status == LOOP:
            loops += 1
            cycle = analyse(deal)
            seats_in = cycle.seats - len(cycle.seats_out)
            bound[seats_in].add(cycle.key)
            blind[seats_in].add(cycle.rotation_key)
        elif game.cards > longest[0]:
            longest = (game.cards, game.tricks, format_deal(deal))
        next_arrangement(cards)
    kinds = [[n, len(bound[n]), len(blind[n])] for n in sorted(bound, reverse=True)]
    return deals, loops, kinds, longest


@pytest.mark.slow  # it starts bmn, which loads (or compiles) every kernel, for each row
@pytest.mark.parametrize(
    ("deck", "players"), [("6,3,0,0,0", 3), ("15,1,1,1,0", 3), ("8,4,0,0,0", 4)]
)
def test_a_row_for_three_and_four_seats_is_the_reference_engines(tmp_path, deck, players):
    script = deck_table()
    row = script.one_deck_seats(deck, tmp_path, workers=2, most=10_000, players=players)
    script.check(row)  # every stored looping deal replayed, the longest game too
    deals, loops, kinds, longest = oracle(tuple(map(int, deck.split(","))), players)
    assert (row["deals"], row["visited"], row["complete"]) == (deals, deals, True)
    assert row["hand_sizes"] == list(even_sizes(sum(map(int, deck.split(","))), players))
    assert row["looping_deals"] == row["looping_deals_stored"] == row["replayed"] == loops
    assert row["replayed_looping"] == loops
    assert row["by_seats_in"] == kinds
    assert row["cycles"] == sum(k[1] for k in kinds)
    assert (row["longest_cards"], row["longest_tricks"], row["longest_deal"]) == longest
    assert row["longest_checked"] is True
    text = script.seats_row(row)
    assert text.startswith(f"| `{deck}` | {players}, ") and f"| {deals:,} |" in text
