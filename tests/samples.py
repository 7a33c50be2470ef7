"""Deals the tests share: published record games, and every deal of a few tiny decks.

Plain constants and generators, imported by name (`from samples import CASELLA`); fixtures
are in conftest.py.
"""

from bmn.kernels.config import LOOP, STATUS_NAMES
from bmn.kernels.deal import parse_deal
from bmn.kernels.reference import play

# Nessler 2022, the longest known game: 8,344 cards, 1,164 tricks, seat 1 wins.
RECORD = "---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---"
# Paulhus 1999, the shortest of the published records: 4,791 cards, 670 tricks.
PAULHUS = "------------KAQ----J------/-JQQK---K----JK--QA-A-JA--"
# Casella 2024, the first published non-terminating game: seen to repeat at 474 cards, 66
# tricks; a cycle of 440 cards, 62 tricks after 34 cards, 4 tricks.
CASELLA = "---K---Q-KQAJ-----AAJ--J--/----------Q----KQ-J-----KA"
RECORD_DEAL = parse_deal(RECORD)
LOOP_DEAL = parse_deal(CASELLA)

# Small decks with loops (1, 1, 2 and 1 cycles): every order of the cards, every split.
TINY_DECKS = [
    (0, 0, 0, 0, 1, 1),
    (0, 0, 0, 0, 0, 1, 1, 2),
    (0, 0, 0, 0, 0, 1, 1, 2, 2),
    (0, 0, 0, 0, 0, 1, 1, 2, 2, 3),
]


def orders(deck):
    """Every distinct order of a multiset of cards."""
    if not deck:
        yield ()
        return
    for value in sorted(set(deck)):
        rest = list(deck)
        rest.remove(value)
        for tail in orders(tuple(rest)):
            yield (value, *tail)


def tiny_deals(deck, with_empty=True):
    """Every two-hand deal of `deck`: each distinct order, each split (empty hands if asked)."""
    low = 0 if with_empty else 1
    for order in orders(deck):
        for cut in range(low, len(deck) + 1 - low):
            yield order[:cut], order[cut:]


def exact_as_reference(figures) -> dict:
    """A kernel's exact figures (play_exact_at's tuple: status, cards, tricks, winner, loop
    start cards and tricks, period cards and tricks) in the reference engine's dict form."""
    status, cards, tricks, winner, start_c, start_t, period_c, period_t = figures
    out = {
        "status": STATUS_NAMES[status],
        "cards": cards,
        "tricks": tricks,
        "winner": None if winner < 0 else winner,
    }
    if status == LOOP:
        out.update(
            loop_start_cards=start_c,
            loop_start_tricks=start_t,
            period_cards=period_c,
            period_tricks=period_t,
        )
    return out


def figures(result):
    """The figures reference.Result and LoopAnalysis share."""
    return (
        result.status,
        result.cards,
        result.tricks,
        result.winner,
        result.loop_start_cards,
        result.loop_start_tricks,
        result.period_cards,
        result.period_tricks,
    )


def loop_figures(deal) -> tuple:
    """How the reference engine ends `deal`: (status, period cards, period tricks), the period
    None unless it loops."""
    result = play(deal)
    return result.status, result.period_cards, result.period_tricks


def hunted_cycle(deal: str = CASELLA, rules: str = "bmn", basin_states: int = 2_670):
    """The cycle `deal` falls into under `rules` as a loop hunt stores it, its basin searched
    over at most `basin_states` states: what `records merge` replays a stored cycle against."""
    from bmn.search.runs.kinds.cycle_book import loop_record, new_cycle

    return loop_record(new_cycle(parse_deal(deal), basin_states, rules))


def stored_cycle(deal: str = CASELLA, rules: str = "bmn", **figures):
    """The cycle `deal` falls into under bmn's rules, as a hunt under `rules` stores it: its
    key and period from cycle analysis, the basin figures made up (or given as `figures`)."""
    from bmn.kernels.cycles.loops import analyse
    from bmn.kernels.decks import counts_of, counts_text
    from bmn.records.store import Loop

    found = analyse(parse_deal(deal))
    made = dict(
        balanced_states=1, balanced_deals=1_234, mirrored_balanced_deals=12, basin_states=2_670
    )
    return Loop(
        key=found.key,
        rotation_key=found.rotation_key,
        deck=counts_text(counts_of(v for hand in parse_deal(deal) for v in hand)),
        period_cards=found.period_cards,
        period_tricks=found.period_tricks,
        cycle_states=found.period_tricks,
        basin_complete=True,
        example_deal=deal,
        first_deal=deal,
        rules=rules,
        **{**made, **figures},
    )
