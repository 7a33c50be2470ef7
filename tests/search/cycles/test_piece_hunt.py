"""The piece hunt (bmn.search.cycles.piece_hunt): resumable chunks, and every find checked by
replay."""

import json

from samples import LOOP_DEAL, loop_figures

from bmn.kernels import reference
from bmn.kernels.cycles.loops import LOOP, analyse
from bmn.kernels.deal import parse_deal, parse_hand
from bmn.kernels.decks import STANDARD_COUNTS
from bmn.search.cycles.piece_hunt import HuntOptions, HuntState, hunt_chunk, judge
from bmn.search.cycles.pieces import Control, controls_for, orbit

OPTIONS = HuntOptions(tries=20_000, deals=4, basin_states=20_000)
PUBLISHED_PIECES = ["--J", "--------K---------Q-Q-K---Q-KAQJ", "--------A-KAAJ"]


def start() -> HuntState:
    """A hunt whose library starts with the published cycle's pieces (so the standard deck is
    reachable from the first chunk)."""
    state = HuntState.start(seed=8)
    control = Control.parse("J-", False, "-")
    state.pieces = [w for p in PUBLISHED_PIECES for w in orbit(control, bytes(parse_hand(p)))]
    return state


def test_chunks_resume_exactly():
    straight = start()
    reports = [hunt_chunk(straight, OPTIONS) for _ in range(3)]
    resumed = start()
    for _ in range(3):
        hunt_chunk(resumed, OPTIONS)
        resumed = HuntState.from_json(json.loads(json.dumps(resumed.as_json())))
    assert resumed.as_json() == straight.as_json()
    assert sum(r.assembled for r in reports) == 12 and straight.cycles
    assert len(straight.pieces) > 7 and straight.chunks == 3


def test_every_find_loops_with_its_period_and_its_best_deal_reaches_it():
    state = start()
    for _ in range(2):
        hunt_chunk(state, OPTIONS)
    for find in state.cycles.values():
        deal = parse_deal(find.cycle_deal)
        assert sorted(v for h in deal for v in h) == sorted([0] * 36 + [1, 2, 3, 4] * 4)
        assert loop_figures(deal) == (LOOP, find.period_cards, find.period_tricks)
        assert analyse(deal).rotation_key == find.key
        best = parse_deal(find.best["deal"])
        assert analyse(best).rotation_key == find.key
        assert find.balanced == (find.best["sizes"] == [26, 26])


def test_judge_finds_the_published_even_deals():
    find = judge(LOOP_DEAL)
    assert (find.period_tricks, find.period_cards, find.balanced) == (62, 440, True)
    assert find.best["sizes"] == [26, 26] and not find.best["mirrored"]


def test_a_hunt_over_several_controls_resumes_exactly_and_its_finds_replay():
    deck = (14, 2, 0, 0, 2)
    options = HuntOptions(deck=deck, controls=("--J-/big/-", "A-/big/-"), tries=20_000)
    straight = HuntState.start(seed=3)
    for _ in range(6):
        hunt_chunk(straight, options)
    resumed = HuntState.start(seed=3)
    for _ in range(6):
        hunt_chunk(resumed, options)
        resumed = HuntState.from_json(json.loads(json.dumps(resumed.as_json())))
    assert resumed.as_json() == straight.as_json() and len(straight.extra_pieces) == 2
    assert straight.cycles  # `--J-` with the big hand to lead makes a 3-trick cycle at once
    for find in straight.cycles.values():
        deal = parse_deal(find.cycle_deal)
        assert sorted(v for h in deal for v in h) == [0] * 14 + [1, 1, 4, 4]
        assert reference.play(deal).status == LOOP
        assert analyse(parse_deal(find.best["deal"])).rotation_key == find.key
        assert find.balanced == (find.best["sizes"] == [9, 9])


def test_controls_fit_the_deck_and_round_trip():
    assert controls_for(STANDARD_COUNTS)[0] == "J-/big/-"
    for deck in [(14, 2, 2, 2, 0), (14, 2, 0, 0, 2), (3, 0, 0, 0, 2)]:
        specs = controls_for(deck)
        assert specs and len(set(specs)) == len(specs)
        for spec in specs:
            control = Control.from_spec(spec)
            assert control.spec() == spec and control.fits(deck)
            held = [0] * 5
            for v in control.small + control.tail:
                held[v] += 1
            assert all(h <= d for h, d in zip(held, deck, strict=True))
    assert "J-/big/-" not in controls_for((14, 0, 2, 2, 0))  # no J in the deck


def test_rounds_go_most_to_the_controls_that_assembled_deals():
    state = HuntState.start(seed=1)
    state.extra_pieces = [[bytes(parse_hand("--J"))], []]  # control 1 has a piece, 2 none
    state.extra_anchors = [[], []]
    state.visits, state.dealt = [1, 0, 0], [4, 0, 0]
    assert state.next_control(3) == 1  # every control gets a first round
    state.visits = [3, 1, 1]
    assert state.next_control(3) == 0  # then: 3 rounds that dealt, against 8 and 64
    state.visits = [9, 1, 1]
    assert state.next_control(3) == 1  # 9 rounds against a piece-only control's 1 x 8
    state.visits = [70, 9, 1]
    assert state.next_control(3) == 2  # 70 and 72 against 64: a pieceless control's turn
    again = HuntState.from_json(json.loads(json.dumps(state.as_json())))
    assert (again.visits, again.dealt) == ([70, 9, 1], [4, 0, 0])
