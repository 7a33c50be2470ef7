"""True cycles from pieces with 3 and 4 seats (bmn.search.cycles.seat_pieces) against the
reference engine."""

import random

import numpy as np

from bmn.kernels.deal import parse_deal, parse_hand
from bmn.search.cycles.pieces import DEAD, DONE, SHORT, word_reader
from bmn.search.cycles.seat_pieces import (
    SeatControl,
    SeatLibrary,
    controls,
    controls_of,
    descend,
    largest,
    orbit,
    play,
)
from bmn.search.cycles.true_cycles import is_true_cycle, true_cycle

# A true 3-seat cycle a descent found (14 cards), and a 4-seat one a hunt found (19 cards).
THREE = "---J-/-J-/J---J-"
FOUR = "--AKJ-/KK-J-/K-J-/--J-"


def _word(text: str) -> bytes:
    return bytes(parse_hand(text))


def _reader(word: bytes):
    return word_reader(word)[0]


def test_a_control_round_trips_through_its_spec():
    control = SeatControl.parse("-J-,J-/0/-")
    assert control.smalls == (_word("-J-"), _word("J-")) and control.leader == 0
    assert SeatControl.parse(control.spec()) == control
    assert control.seats == 3 and control.fixed() == (4, 2, 0, 0, 0)


def test_play_returns_done_short_or_dead():
    control = SeatControl.parse("-J-,J-/0/-")
    status, out = play(control, _reader(_word("---J")))
    assert status == DONE and out is not None
    assert play(control, _reader(_word("--")))[0] == SHORT
    # A small hand that must lay and holds none: it would go out, so no true cycle.
    assert play(SeatControl.parse("-,-/0/-"), _reader(_word("----")))[0] == DEAD


def test_every_control_a_true_cycle_passes_through_rebuilds_it():
    for text in (THREE, FOUR):
        cycle = true_cycle(parse_deal(text))
        found = controls_of(cycle.states)
        assert found
        for control, parts in found:
            state = control.state(parts)
            assert true_cycle(state).key == cycle.key
            assert all(orbit(control, p) is not None for p in parts)


def test_closed_pieces_repeat_into_larger_true_cycles():
    control = SeatControl.parse("-J-,J-/0/-")
    library = SeatLibrary(control)
    assert library.offer(_word("---J")) >= 1
    pieces = largest(library, np.random.default_rng(1))
    # Two jacks are in the small hands: the piece repeats twice, with the deck's other two.
    assert pieces == [_word("---J")] * 2
    state = control.state(pieces)
    assert sum(map(len, state)) == 14 and is_true_cycle(state)
    assert true_cycle(state).key == true_cycle(parse_deal(THREE)).key


def test_descents_find_pieces_that_play_back_to_the_control():
    rng = random.Random(5)
    control = SeatControl.parse("-J-,J-/0/-")
    words = [descend(control, rng, (0.7, 0.1, 0.1, 0.05, 0.05)) for _ in range(300)]
    found = [w for w in words if w]
    assert found
    for word in found:
        assert play(control, _reader(word))[0] == DONE


def test_controls_cover_every_leader():
    every = controls(4, ("J-", "-J-"))
    assert len(every) == 2**3 * 4
    assert {c.leader for c in every} == {0, 1, 2, 3}
