"""True-cycle runs chunk by chunk (bmn.search.cycles.true_run): state through JSON, finds
checked by the reference engine."""

import json

from bmn.kernels.deal import parse_deal
from bmn.search.cycles.true_cycles import is_true_cycle, true_cycle
from bmn.search.cycles.true_run import TrueRunState, true_chunk

THREE = "---J-/KJ-/J--KJ-"


def test_a_chunk_adds_only_new_true_cycles_and_the_state_round_trips():
    state = TrueRunState(seats=3, seed=2, found=[THREE])
    new = true_chunk(state, 1.0)
    assert state.chunks == 1
    assert state.found[0] == THREE and len(state.found) == 1 + len(new)
    known = true_cycle(parse_deal(THREE)).key
    assert known not in {c.key for c in new}
    for cycle in new:
        assert is_true_cycle(cycle.most_balanced())
    again = TrueRunState.from_dict(json.loads(json.dumps(state.as_dict())))
    assert again == state
    assert [c.key for c in again.cycles()] == [known, *(c.key for c in new)]
