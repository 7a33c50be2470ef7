"""The CUDA kernel and the device search, run by Numba's CUDA simulator, against the reference.

The simulator must be switched on before numba is first imported, and the rest of the suite
has imported numba for the CPU kernels by then. So in the suite's own process this file holds
one test that runs the file again in a fresh interpreter with NUMBA_ENABLE_CUDASIM=1; there
the checks below run (classes marked `__test__ = SIMULATED`), both tiers in one child, which is
itself a slow test.

The kernel's scores against the reference engine on the shared edge cases, every small deal and
random deals are test_oracle.py's (with every registered kernel); here: what is the CUDA
kernel's own (its bit counts past bit 31, the CPU's exact replay of games past the cap, its
self-check), the device generator against kernels/rng.py, and the device search.

On a machine with a GPU, benchmarks/device_check.py runs the same kernel for real.
"""

import importlib.util
import json
import subprocess
import sys

import numpy as np
import pytest
from simulator import ROOT, SIMULATED, run_under_simulator

from bmn.kernels import reference
from bmn.kernels.config import FINISHED, LOOP
from bmn.kernels.cuda import env as cuda_env
from bmn.kernels.deal import encode, parse_deal
from bmn.kernels.results import Scores
from bmn.kernels.rng import bounded, next_u64, seed_state, shuffle
from bmn.records.published import published_games
from bmn.search.strategies import cpu as strategies
from bmn.search.strategies import worker

SEED = 20_260_114

if SIMULATED:
    from numba import cuda

    from bmn.kernels.cuda import two as cuda_two
    from bmn.search.strategies.cuda import host as cuda_host
    from bmn.search.strategies.cuda import kernels as cuda_kernels
    from bmn.search.strategies.cuda import streams as cuda_streams

# xoshiro256** multiplies wrap modulo 2**64 by design; the simulator runs them as numpy scalars,
# which warn when they wrap. Any other overflow still fails the test.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in scalar multiply")


@pytest.mark.slow  # a child interpreter: the slow tier, whatever the tiers of the checks in it
def test_cuda_kernel_under_the_simulator():
    """Run this file's simulator checks, both tiers, in a child interpreter; they must all pass."""
    run_under_simulator(__file__)


test_cuda_kernel_under_the_simulator.__test__ = not SIMULATED


def test_available_names_the_missing_package(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    missing = cuda_env.available()
    assert "numba-cuda" in missing and "bmn[cuda]" in missing and "\n" not in missing
    with pytest.raises(cuda_env.CudaUnavailable, match="numba-cuda"):
        cuda_env.require()


# Loops of tiny decks: the device stops them at any cap and the CPU proves them.
SMALL_LOOPS = ["--J-/J-", "-J/--J-", "--K--A-J--/A-JA-K-AA-"]


def masks(hand) -> tuple[int, int, int]:
    """A hand's bit-queue masks, computed plainly (court with sentinel, value bits 0 and 1)."""
    court, bit0, bit1 = 1 << len(hand), 0, 0
    for i, v in enumerate(hand):
        if v:
            court |= 1 << i
            bit0 |= ((v - 1) & 1) << i
            bit1 |= ((v - 1) >> 1) << i
    return court, bit0, bit1


def score_on_device(deals, cap=20_000) -> Scores:
    width = max(64, max(sum(map(len, d)) for d in deals))
    rows, sizes = zip(*(encode(d, width) for d in deals), strict=True)
    out = Scores.empty(len(deals))
    cuda_two.score_rows(np.array(rows), np.array(sizes), np.arange(len(deals)), out, cap)
    return out


class TestGameOnDevice:
    __test__ = SIMULATED

    def test_bit_counts_past_bit_31(self):
        @cuda.jit
        def counts(values, out):
            i = cuda.grid(1)
            if i < values.shape[0]:
                out[i, 0] = cuda_two.ctz(values[i])
                out[i, 1] = cuda_two.top_bit(values[i])

        draws = np.random.default_rng(SEED).integers(
            1, 2**64 - 1, 40, dtype=np.uint64, endpoint=True
        )
        plain = [1 << k for k in range(64)] + [(1 << 63) | (1 << k) for k in range(63)]
        high = [(1 << 40) | (1 << 33), 0xFFFFFFFF00000000, (1 << 32) | (1 << 62)]
        values = np.array(plain + high, dtype=np.uint64)
        values = np.concatenate([values, draws, draws >> np.uint64(32) << np.uint64(32)])
        values = values[values != 0]
        out = np.zeros((len(values), 2), dtype=np.int64)
        counts[4, 64](values, out)
        want = [((int(v) & -int(v)).bit_length() - 1, int(v).bit_length() - 1) for v in values]
        assert out.tolist() == [list(w) for w in want]

    @pytest.mark.parametrize("game", published_games(), ids=lambda g: g.name)
    def test_published_records(self, game, monkeypatch):
        deal = parse_deal([game.hand_1, game.hand_2])
        replayed = []
        monkeypatch.setattr(cuda_two, "_replay", _counting(cuda_two._replay, replayed))
        cap = 2_000 if game.status == "loop" else 20_000  # the loop passes any cap
        got = score_on_device([deal], cap).as_dict(0)
        assert got == reference.play(deal).as_dict()
        published = {"status": game.status, "cards": game.cards, "tricks": game.tricks}
        assert {key: got[key] for key in published} == published
        assert len(replayed) == (game.status == "loop")  # proven on the CPU

    def test_games_past_a_small_cap_are_replayed_exactly(self, monkeypatch):
        deals = [parse_deal(text) for text in SMALL_LOOPS]
        deals.append(parse_deal("---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---"))
        replayed = []
        monkeypatch.setattr(cuda_two, "_replay", _counting(cuda_two._replay, replayed))
        out = score_on_device(deals, cap=30)
        assert [out.as_dict(i) for i in range(len(deals))] == [
            reference.play(deal).as_dict() for deal in deals
        ]
        assert len(replayed) == len(deals)

    def test_selfcheck_against_the_cpu_kernel(self):
        assert cuda_two.selfcheck(60, SEED) == 0

    def test_selfcheck_under_a_rule_set(self):
        assert cuda_two.selfcheck(60, SEED, rules="pelagaletto2") == 0
        assert cuda_two.first_difference(60, SEED, rules="leodog896") is None


def _counting(function, calls: list):
    def counted(*args):
        calls.append(args)
        return function(*args)

    return counted


class TestGeneratorOnDevice:
    __test__ = SIMULATED

    def test_draws_match_kernels_rng(self):
        @cuda.jit
        def draws(states, bounds, out):
            t = cuda.grid(1)
            s0, s1, s2, s3 = states[t, 0], states[t, 1], states[t, 2], states[t, 3]
            for k in range(bounds.shape[0]):
                if bounds[k] == 0:
                    r, s0, s1, s2, s3 = cuda_kernels.next_u64(s0, s1, s2, s3)
                else:
                    v, s0, s1, s2, s3 = cuda_kernels.bounded(bounds[k], s0, s1, s2, s3)
                    r = np.uint64(v)
                out[t, k] = r
            states[t, 0], states[t, 1], states[t, 2], states[t, 3] = s0, s1, s2, s3

        # bound 0 asks for raw bits; 3 * 2**30 rejects a quarter of draws (Lemire's slow path)
        bounds = np.array([0, 0, 52, 2, 1, 3 * 2**30, 3 * 2**30, 0, 7, 3 * 2**30, 51], np.int64)
        states = np.array([seed_state(SEED, s) for s in range(4)] + [seed_state(2**70 + 5)])
        out = np.zeros((len(states), len(bounds)), dtype=np.uint64)
        device_states = states.copy()
        draws[1, len(states)](device_states, bounds, out)
        for state, got, after in zip(states, out, device_states, strict=True):
            want = [next_u64(state) if b == 0 else bounded(state, b) for b in bounds]
            assert got.tolist() == want
            assert after.tolist() == state.tolist()

    def test_shuffle_matches_kernels_rng_and_builds_the_masks(self):
        @cuda.jit
        def shuffled(states, decks, out):
            t = cuda.grid(1)
            deck = cuda.local.array(52, np.uint8)
            for k in range(52):
                deck[k] = decks[t, k]
            s0, s1, s2, s3 = states[t, 0], states[t, 1], states[t, 2], states[t, 3]
            for _ in range(3):
                got = cuda_kernels._shuffle(deck, s0, s1, s2, s3)  # 6 masks, then the state
                s0, s1, s2, s3 = got[6], got[7], got[8], got[9]
            for k in range(52):
                decks[t, k] = deck[k]
            states[t, 0], states[t, 1], states[t, 2], states[t, 3] = s0, s1, s2, s3
            for k in range(6):
                out[t, k] = got[k]

        streams = cuda_streams.Streams.new(SEED, 6)
        decks, states = streams.deck.copy(), streams.rng.copy()
        out = np.zeros((6, 6), dtype=np.uint64)
        shuffled[1, 6](states, decks, out)
        for t in range(6):
            deck, state = streams.deck[t].copy(), streams.rng[t].copy()
            for _ in range(3):
                shuffle(deck, state)
            assert decks[t].tolist() == deck.tolist() and states[t].tolist() == state.tolist()
            assert out[t].tolist() == [*masks(deck[:26].tolist()), *masks(deck[26:].tolist())]

    def test_streams_start_as_cpu_workers(self):
        streams = cuda_streams.Streams.new(SEED, 5, first=3)
        for i in range(5):
            cpu = worker.new_worker(SEED, 3 + i)
            assert streams.rng[i].tolist() == cpu.rng.tolist()
            assert streams.deck[i].tolist() == cpu.deck.tolist() == streams.best[i].tolist()
        far = cuda_streams.seed_states(-3, np.array([2**40], np.uint64))[0]
        assert far.tolist() == seed_state(-3, 2**40).tolist()


COUNTERS = [
    (worker.GAMES, "GAMES"),
    (worker.CURRENT, "CURRENT"),
    (worker.BEST, "BEST"),
    (worker.BEST_CARDS, "BEST_CARDS"),
    (worker.BEST_TRICKS, "BEST_TRICKS"),
    (worker.IMPROVEMENTS, "IMPROVEMENTS"),
]


def replay_on_cpu(before, after, finds, mode: str, objective: str, keep_above: int) -> list:
    """Replay every stream's games with the CPU search (search/strategies/cpu.py); the differences.

    Each stream plays as many games as it did on the device (with the backlog that varies);
    its finds must be the CPU finds of at least keep_above cards or proven loops, and its
    whole state after the games must be the CPU worker's.
    """
    problems = []
    for t in range(len(before)):
        state = worker.WorkerState(
            before.deck[t].copy(), before.best[t].copy(), before.rng[t].copy(),
            np.zeros(worker.N_COUNTERS, np.int64), np.full(1, -1, np.int64),
            np.array(worker.STANDARD_SIZES, np.int64),
        )  # fmt: skip
        for slot, name in COUNTERS:
            state.counters[slot] = before.counters[t, getattr(cuda_streams, name)]
        games = int(after.counters[t, cuda_streams.GAMES] - before.counters[t, cuda_streams.GAMES])
        cpu_finds = worker.LoopFinds.empty()
        done, n = strategies.run_chunk(
            mode, state, cpu_finds, games, cuda_host.OBJECTIVES.index(objective), keep_above, 1
        )
        meta = cpu_finds.meta[:n]
        kept = np.flatnonzero((meta[:, 0] >= keep_above) | (meta[:, 2] == LOOP))
        mine = finds.figures[:, cuda_streams.F_STREAM] == t
        same_finds = (
            cpu_finds.decks[kept].tolist() == finds.decks[mine].tolist()
            and meta[kept].tolist() == finds.figures[mine, :3].tolist()
        )
        same_state = (
            done == games
            and state.rng.tolist() == after.rng[t].tolist()
            and state.deck.tolist() == after.deck[t].tolist()
            and state.best.tolist() == after.best[t].tolist()
            and [state.counters[s] for s, _ in COUNTERS]
            == [after.counters[t, getattr(cuda_streams, name)] for _, name in COUNTERS]
        )
        if not (same_finds and same_state):
            problems.append(t)
    return problems


# One search chunk in the fast tier; the other modes, objectives and shapes of a run in the slow.
SLOW = pytest.mark.slow


class TestSearchOnDevice:
    __test__ = SIMULATED

    @pytest.mark.parametrize(
        ("mode", "objective"),
        [
            ("walk", "cards"),
            pytest.param("random", "cards", marks=SLOW),
            pytest.param("walk", "tricks", marks=SLOW),
            pytest.param("random", "tricks", marks=SLOW),
        ],
    )
    def test_a_chunk_equals_the_cpu_search(self, mode, objective):
        before = cuda_streams.Streams.new(SEED, 8)
        after, finds = cuda_host.search_chunk(
            before, 5, mode, objective, keep_above=300, threads_per_block=8
        )
        assert (after.counters[:, cuda_streams.GAMES] == 5).all()
        assert len(finds) > 0 and (finds.figures[:, cuda_streams.F_STATUS] == FINISHED).all()
        assert replay_on_cpu(before, after, finds, mode, objective, 300) == []

    @SLOW
    @pytest.mark.parametrize("mode", ["walk", "random"])
    @pytest.mark.parametrize("window", [1, 3, "whole games"])
    def test_every_window_plays_the_same_games(self, mode, window):
        window = cuda_kernels.WHOLE_GAMES if window == "whole games" else window
        before = cuda_streams.Streams.new(SEED + 4, 8)
        after, finds = cuda_host.search_chunk(
            before, 4, mode, keep_above=300, threads_per_block=8, window=window
        )
        assert (after.counters[:, cuda_streams.GAMES] == 4).all()
        assert replay_on_cpu(before, after, finds, mode, "cards", 300) == []

    @SLOW
    def test_the_backlog_shares_games_and_chunks_resume(self):
        before = cuda_streams.Streams.new(SEED + 1, 16)
        search = cuda_host.DeviceSearch(before, "walk", keep_above=350, threads_per_block=8)
        first = search.run(3)
        middle = search.streams()
        second = search.run(3)
        after = search.streams()
        for start, end, finds in ((before, middle, first), (middle, after, second)):
            played = end.counters[:, cuda_streams.GAMES] - start.counters[:, cuda_streams.GAMES]
            assert played.reshape(2, 8).sum(axis=1).tolist() == [24, 24]  # each block's quota
            assert replay_on_cpu(start, end, finds, "walk", "cards", 350) == []

    @SLOW
    def test_games_past_the_cap_are_finished_on_the_cpu(self):
        before = cuda_streams.Streams.new(SEED + 2, 8)
        after, finds = cuda_host.search_chunk(
            before, 6, "random", keep_above=400, cap=200, threads_per_block=8
        )
        played = after.counters[:, cuda_streams.GAMES] - before.counters[:, cuda_streams.GAMES]
        assert played.min() < 6  # some streams stopped at a long game, finished exactly on the CPU
        assert (finds.figures[:, cuda_streams.F_CARDS] > 200).any()
        assert replay_on_cpu(before, after, finds, "random", "cards", 400) == []

    @SLOW
    def test_a_full_finds_buffer_stops_streams_without_losing_finds(self):
        before = cuda_streams.Streams.new(SEED + 3, 8)
        search = cuda_host.DeviceSearch(
            before, "walk", keep_above=0, threads_per_block=8, backlog=False, max_finds=5
        )
        finds = search.run(3)
        after = search.streams()
        played = after.counters[:, cuda_streams.GAMES] - before.counters[:, cuda_streams.GAMES]
        assert len(finds) == played.sum() and played.sum() < 24
        assert replay_on_cpu(before, after, finds, "walk", "cards", 0) == []

    @pytest.mark.parametrize("rules", ["leodog896", "n1k06"])
    def test_a_rule_set_searched_on_the_device_counts_as_the_reference(self, rules):
        """Every game the device search plays under a rule set (each kept: keep_above 0) has
        the reference engine's figures under it; the rule set changes some of them."""
        before = cuda_streams.Streams.new(SEED + 5, 8)
        after, finds = cuda_host.search_chunk(
            before, 4, "random", keep_above=0, threads_per_block=8, rules=rules
        )
        assert len(finds) == 32
        changed = 0
        for deck, figures in zip(finds.decks, finds.figures, strict=True):
            deal = (tuple(int(v) for v in deck[:26]), tuple(int(v) for v in deck[26:]))
            want, plain = reference.play(deal, rules=rules), reference.play(deal)
            assert [want.cards, want.tricks] == figures[:2].tolist()
            changed += (want.cards, want.tricks) != (plain.cards, plain.tricks)
        assert changed > 0

    @SLOW
    def test_bench_sums_every_card(self):
        # No time limit: the simulator is slow enough that the probe would shrink the count
        result = cuda_host.bench(
            40, SEED, mode="random", backlog=False, threads=8, threads_per_block=8, max_seconds=1e9
        )
        cards = 0
        for t in range(8):
            state = worker.new_worker(SEED, t)
            for game in range(7):  # two games warm up and time the device; the bench counts 5
                strategies.run_chunk("random", state, worker.LoopFinds.empty(), 1, 0, 1 << 62, 1)
                cards += state.counters[worker.CURRENT] if game >= 2 else 0
        assert (result["games"], result["cards"]) == (40, cards)
        assert result["tricks"] > 0 and result["games_per_s"] > 0


@SLOW
class TestDeviceCheckScript:
    __test__ = SIMULATED

    def test_quick_run_prints_one_json_line(self):
        script = ROOT / "benchmarks" / "device_check.py"
        done = subprocess.run(
            [sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stderr[-3000:]
        lines = done.stdout.strip().splitlines()
        assert len(lines) == 1
        report = json.loads(lines[0])
        assert report["gpu"] == "simulator"
        assert report["selfcheck"]["mismatches"] == 0 and report["selfcheck"]["deals"] > 0
        assert report["search_replay"]["mismatches"] == 0
        assert report["bench"]["random"]["games"] > 0 and report["bench"]["walk"]["cards_per_s"] > 0
        best = report["search"]["best"]
        assert best["verified"] is True
        run = report["search_run"]
        assert run["chunk_mismatches"] == 0 and run["best"]["verified"] is True
        assert run["games"] > 0 and run["checkpoint_bytes"] > 8 * 200
        want = reference.play(parse_deal(best["deal"]))
        assert (want.cards, want.tricks) == (best["cards"], best["tricks"])
