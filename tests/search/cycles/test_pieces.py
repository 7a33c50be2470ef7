"""Cycles from pieces (bmn.search.cycles.pieces) against trick-by-trick play and the reference
engine."""

import random
from collections import Counter

import numpy as np
from hypothesis import strategies as st
from samples import LOOP_DEAL
from tiers import properties

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP, analyse, play_trick
from bmn.kernels.deal import format_deal, parse_deal, parse_hand
from bmn.kernels.rng import seed_state
from bmn.kernels.score import score_parsed
from bmn.search.cycles.pieces import (
    DEAD,
    DONE,
    Control,
    Library,
    assemble,
    composition,
    orbit,
    piece_output,
    piece_peak,
    play,
    sample_pieces,
    sums_reachable,
)

PUBLISHED = LOOP_DEAL
J_BIG = Control.parse("J-", False, "-")  # the published cycle's control
PUBLISHED_PIECES = ["--J", "--------K---------Q-Q-K---Q-KAQJ", "--------A-KAAJ"]
# Found by this module (random descent, closed pieces, knapsack): not the published cycle.
NEW_CYCLE = "--------------------J--A-A--Q-AK--AJ--Q-Q-K-QKK-J-/J-"


def cards(text: str) -> bytes:
    return bytes(parse_hand(text))


def by_tricks(control: Control, big: bytes):
    """Trick-by-trick play (bmn.kernels.cycles.loops) from the control state with this big hand,
    to the first return of the control state: (big hand cards laid, big hand then, small hand then),
    or None if the game ends first."""
    seat = 0 if control.small_leads else 1  # the small hand's seat (seat 0 leads the control)
    hands = [None, None]
    hands[seat], hands[1 - seat] = tuple(control.small), tuple(big)
    hands, leader = tuple(hands), 0
    laid = 0
    for _ in range(200):
        step = play_trick(hands, leader)
        if step.finished:
            return None
        took = step.cards if step.taker == 1 - seat else 0
        laid += len(hands[1 - seat]) - (len(step.hands[1 - seat]) - took)
        hands, leader = step.hands, step.taker
        if leader == 0 and hands[seat] == tuple(control.small):
            return laid, bytes(hands[1 - seat]), bytes(hands[seat])
    return None


CONTROLS = [J_BIG, Control.parse("--J-", True, "-"), Control.parse("Q--", False, "--")]
words = st.lists(st.sampled_from([0, 0, 0, 0, 0, 1, 2, 3, 4]), min_size=1, max_size=30)


@properties(50, 200, st.sampled_from(CONTROLS), words, words)
def test_play_matches_trick_by_trick_play(control, word, rest):
    """A piece is laid from the top of the big hand and its output goes under it; play() says
    so exactly when trick-by-trick play of the whole deal does."""
    big = bytes(word + rest) + control.tail
    next_card, at = _stream(big)
    status, out = play(control, next_card)
    seen = by_tricks(control, big)
    if status == DONE:
        assert seen is not None
        laid, big_after, _ = seen
        assert laid == at[0]
        assert big_after == big[laid:] + out
        assert piece_output(control, big[:laid]) == out
    elif status == DEAD:
        assert seen is None
    else:  # SHORT: the return, if any, lays cards the big hand took during the play
        assert seen is None or seen[0] > len(big)


def _stream(big: bytes):
    at = [0]

    def next_card():
        if at[0] >= len(big):
            return None
        at[0] += 1
        return big[at[0] - 1]

    return next_card, at


def test_published_cycle_is_three_closed_pieces():
    pieces = [cards(p) for p in PUBLISHED_PIECES]
    for p in pieces:
        assert orbit(J_BIG, p) is not None
    assert [len(orbit(J_BIG, p)) for p in pieces] == [1, 4, 2]
    assert piece_peak(J_BIG, pieces[1]) == 22  # the small hand grows to 22 cards
    built = J_BIG.deal(pieces)
    assert analyse(built).rotation_key == analyse(PUBLISHED).rotation_key
    assert composition(b"".join(pieces)) == J_BIG_TARGET


J_BIG_TARGET = (34, 3, 4, 4, 4)


def test_any_order_of_closed_pieces_loops():
    """The theorem the module rests on, checked by the reference engine: closed pieces in any
    order and number, then the tail, against the small hand, never end."""
    library = Library(J_BIG)
    state = seed_state(4)
    for p in sample_pieces(J_BIG, state, [0.7, 0.075, 0.075, 0.075, 0.075], 20_000, min_len=3):
        library.offer(p)
    closed = sorted(library.closed)
    assert len(closed) > 20
    rng = random.Random(4)
    deals = []
    for _ in range(150):
        pieces = [rng.choice(closed) for _ in range(rng.randint(1, 3))]
        deal = J_BIG.deal(pieces)
        if sum(map(len, deal)) <= 64:
            deals.append(deal)
    assert len(deals) > 100
    for deal in deals[:40]:
        assert reference.play(deal).status == LOOP, format_deal(deal)
    assert set(score_parsed(deals).status.tolist()) == {1}  # the kernel agrees on all of them
    for p in closed:
        assert piece_output(J_BIG, p) is not None and orbit(J_BIG, p) is not None
    assert all(w not in library.closed for w in library.failed)


def test_sample_pieces_is_seeded_and_gives_pieces():
    weights = [0.8, 0.05, 0.05, 0.05, 0.05]
    one = sample_pieces(J_BIG, seed_state(9), weights, 5000, min_len=5)
    two = sample_pieces(J_BIG, seed_state(9), weights, 5000, min_len=5)
    assert one == two and len(one) > 50
    for p in one:
        assert len(p) >= 5 and piece_output(J_BIG, p) is not None
    late = sample_pieces(J_BIG, seed_state(9), weights, 5000, late=[0.3] + [0.175] * 4, switch=6)
    assert late != one and all(piece_output(J_BIG, p) is not None for p in late)


def test_assemble_adds_up_to_the_target():
    pieces = [cards(p) for p in ["--J", "--------A-KAAJ", "--------K---------Q-Q-K---Q-KAQJ"]]
    library = Library(J_BIG, [w for p in pieces for w in orbit(J_BIG, p)])
    target = library.target()
    assert target == J_BIG_TARGET
    reach = sums_reachable(library.by_counts, target)
    assert target in reach and (0, 0, 0, 0, 0) in reach
    rng = np.random.default_rng(1)
    for _ in range(6):
        found = assemble(library, target, rng, reach)
        assert composition(b"".join(found)) == target
        assert Counter(composition(p) for p in found) == Counter(composition(p) for p in pieces)
        assert reference.play(J_BIG.deal(found)).status == LOOP
    assert assemble(library, (1, 0, 0, 0, 0), rng) is None


def test_a_new_standard_deck_cycle():
    """A standard-deck cycle built from closed pieces; not the published one."""
    deal = parse_deal(NEW_CYCLE)
    assert composition(bytes(deal[0] + deal[1])) == (36, 4, 4, 4, 4)
    result = reference.play(deal)
    assert (result.status, result.period_tricks, result.period_cards) == (LOOP, 36, 311)
    assert analyse(deal).rotation_key != analyse(PUBLISHED).rotation_key
    assert np.array_equal(score_parsed([deal]).period_cards, [311])


def test_sums_reachable_matches_brute_force():
    counts = [(2, 1, 0, 0, 0), (3, 0, 1, 0, 0), (0, 0, 0, 2, 1)]
    target = (7, 3, 2, 2, 1)
    expected = {(0,) * 5}
    frontier = [(0,) * 5]
    while frontier:
        s = frontier.pop()
        for c in counts:
            t = tuple(a + b for a, b in zip(s, c, strict=True))
            if t not in expected and all(a <= b for a, b in zip(t, target, strict=True)):
                expected.add(t)
                frontier.append(t)
    assert sums_reachable(counts, target) == expected
    assert (7, 2, 1, 2, 1) in expected and (7, 3, 2, 2, 1) not in expected
