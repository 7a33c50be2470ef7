"""The explicit generator: reproducible from a seed, uniform enough, resumable from its state."""

import numpy as np

from bmn.kernels import rng
from bmn.kernels.rng import bounded, next_u64, seed_state, shuffle


def test_same_seed_same_stream_and_streams_differ():
    a, b, c = seed_state(7), seed_state(7), seed_state(7, stream=1)
    first = [next_u64(a) for _ in range(5)]
    assert first == [next_u64(b) for _ in range(5)]
    assert first != [next_u64(c) for _ in range(5)]


def test_state_copy_resumes_exactly():
    state = seed_state(3)
    for _ in range(10):
        next_u64(state)
    saved = state.copy()
    assert [bounded(state, 1000) for _ in range(10)] == [bounded(saved, 1000) for _ in range(10)]


def test_bounded_is_uniform():
    state = seed_state(11)
    counts = np.bincount([bounded(state, 7) for _ in range(70_000)], minlength=7)
    assert counts.min() > 9_600 and counts.max() < 10_400


def test_shuffle_is_a_permutation_with_even_positions():
    state = seed_state(5)
    deck = np.array([0] * 36 + [1, 2, 3, 4] * 4, dtype=np.uint8)
    totals = np.zeros(52)
    for _ in range(4000):
        shuffle(deck, state)
        totals += deck
    assert sorted(deck.tolist()) == sorted([0] * 36 + [1, 2, 3, 4] * 4)
    assert np.allclose(totals / 4000, 40 / 52, atol=0.1)


def test_the_shared_steps_run_as_python_draw_what_the_compiled_ones_draw():
    """The steps are one source for the CPU and the GPU; run as plain Python (as Numba's CUDA
    simulator runs the device copies) they draw exactly the compiled generator's numbers."""
    compiled, plain = seed_state(13), tuple(seed_state(13))
    deck = np.arange(52, dtype=np.uint8)
    want = deck.copy()
    with np.errstate(over="ignore"):  # xoshiro's multiplies wrap modulo 2**64 by design
        for bound in (0, 52, 1, 3 * 2**30, 7, 0, 3 * 2**30):
            if bound == 0:
                value, *rest = rng.xoshiro(*plain)
                assert value == next_u64(compiled)
            else:
                value, *rest = rng.lemire(bound, *plain)
                assert value == bounded(compiled, bound)
            plain = tuple(rest)
        for i in range(51, 0, -1):
            _, *rest = rng.fix(deck, i, *plain)
            plain = tuple(rest)
    shuffle(want, compiled)
    assert deck.tolist() == want.tolist() and list(plain) == compiled.tolist()
