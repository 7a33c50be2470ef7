"""The Italian deck's 9 cycles (N1k06/stracciacamicia's exhaustive search of its 20/20 deals,
tests/data/peers/n1k06_40.csv): six are closed pieces of the control `J-` (big hand to lead),
which the piece hunt builds from the deck alone; three swap the hands' roles every half period
(kernels/cycles/loops.swaps_roles), which no control of the piece form holds. Every cycle is
checked by the reference engine."""

import csv
from pathlib import Path

import pytest

from bmn.kernels.cycles.loops import LOOP, analyse, swaps_roles
from bmn.kernels.deal import parse_deal, parse_hand
from bmn.kernels.reference import play
from bmn.search.cycles.piece_hunt import HuntOptions, HuntState, hunt_chunk, judge
from bmn.search.cycles.pieces import Control, orbit

ITALIAN = (28, 4, 4, 4, 0)
J_BIG = Control.parse("J-", False, "-")
PEERS = Path(__file__).parents[2] / "data" / "peers" / "n1k06_40.csv"


def n1k06_cycles() -> dict[str, list]:
    """N1k06's looping 20/20 deals by the cycle they fall into (seat-blind key)."""
    cycles: dict[str, list] = {}
    with open(PEERS, newline="") as f:
        for row in csv.DictReader(f):
            if row["outcome"] == "INFINITO":
                cards = [int(c) for c in row["deck"]]
                deal = (cards[:20], cards[20:])
                cycles.setdefault(analyse(deal).rotation_key, []).append(deal)
    return cycles


CYCLES = n1k06_cycles()


def test_the_nine_cycles_six_of_pieces_three_swapping_roles():
    assert len(CYCLES) == 9
    forms = []
    for deals in CYCLES.values():
        result, loop = play(deals[0]), analyse(deals[0])
        assert result.status == LOOP and result.period_tricks == loop.period_tricks
        states = [(s.hands, s.leader) for s in loop.states]
        half = len(states) // 2
        mirrored = ((states[0][0][1], states[0][0][0]), 1 - states[0][1])
        assert swaps_roles(states) == (states[half] == mirrored)  # the mirror, half way round
        forms.append((loop.period_tricks, swaps_roles(states)))
    assert sorted(forms) == [(20, True), (33, False)] + [(33, False)] * 5 + [
        (36, True),
        (84, True),
    ]


def test_three_closed_pieces_of_j_make_an_italian_cycle_a_20_20_deal_falls_into():
    pieces = [bytes(parse_hand(p)) for p in ("--J", "--------Q----Q----J", "--K-K-Q-K-K--QJ")]
    assert all(orbit(J_BIG, p) is not None for p in pieces)  # closed: the cycle never ends
    deal = J_BIG.deal(pieces)
    assert sorted(v for hand in deal for v in hand) == sorted([0] * 28 + [1, 2, 3] * 4)
    assert play(deal).status == LOOP
    assert analyse(deal).rotation_key in CYCLES
    find = judge(deal, sizes=(20, 20))
    assert find.balanced and find.best["sizes"] == [20, 20]
    best = parse_deal(find.best["deal"])
    assert play(best).status == LOOP and analyse(best).rotation_key == find.key


@pytest.mark.slow
def test_a_piece_hunt_given_only_the_deck_builds_n1k06s_cycles():
    options = HuntOptions(deck=ITALIAN, hand_sizes=(20, 20))  # the control J-, the big hand leads
    state = HuntState.start(1)
    for _ in range(15):
        hunt_chunk(state, options)
    found = [f for f in state.cycles.values() if f.key in CYCLES]
    assert len(found) >= 2  # seed 1: the first after 10 rounds, the second after 15
    for find in found:
        assert find.balanced
        deal = parse_deal(find.best["deal"])
        assert [len(h) for h in deal] == [20, 20] and play(deal).status == LOOP
        assert analyse(deal).rotation_key == find.key
