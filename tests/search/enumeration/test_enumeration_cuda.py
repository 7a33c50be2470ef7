"""Every deal of a deck on a GPU (search/enumeration/cuda.py, search/runs/kinds/every_cuda.py), run
by Numba's CUDA simulator against the CPU enumeration (search/enumeration/cpu.py), which
tests/search/runs/test_every.py checks against the reference engine over every deal.

As in tests/kernels/test_cuda_two.py, the simulator must be on before numba is first imported:
in the suite's own process one slow test runs this file again in a child with
NUMBA_ENABLE_CUDASIM=1, where the classes marked `__test__ = SIMULATED` run. Without the
simulator, `--strategy every --device cuda` is one line and exit 1 where CUDA cannot run.
"""

import importlib.util
import json

import numpy as np
import pytest
from simulator import ROOT, SIMULATED, run_under_simulator

from bmn.kernels.cuda import env as cuda_env
from bmn.kernels.ranks import arrangements, unrank
from bmn.records.store import Store
from bmn.search.enumeration.cpu import score_run
from bmn.search.runs.kinds.every import EveryJob, EveryOptions
from bmn.search.runs.loop import RunLoop

SEED = 20_260_114
ITALIAN = (28, 4, 4, 4, 0)  # 40 cards: 193,584,473,082,000 deals
DEVICE_CHECK = ROOT / "benchmarks" / "device_check.py"

if SIMULATED:
    from numba import cuda

    from bmn.search.enumeration import cuda as cuda_every
    from bmn.search.runs.kinds import every_base as every
    from bmn.search.runs.kinds.every_cuda import EveryCudaJob, EveryCudaOptions


@pytest.mark.slow  # a child interpreter: the slow tier, whatever the tiers of the checks in it
def test_the_gpu_enumeration_under_the_simulator():
    """Run this file's simulator checks in a child interpreter; they must all pass."""
    run_under_simulator(__file__)


test_the_gpu_enumeration_under_the_simulator.__test__ = not SIMULATED


def test_without_cuda_the_device_enumeration_is_one_line_exit_1_and_no_store(
    bmn, failed, tmp_path, monkeypatch
):
    monkeypatch.setattr(cuda_env, "available", lambda: "no CUDA GPU found (test)")
    store = tmp_path / "gpu.sqlite"
    args = ("search", "--strategy", "every", "--device", "cuda", "--deck", "6,2,1,1,0")
    failed(bmn(*args, "--store", store), 1, "no CUDA GPU found (test)")
    assert not store.exists()


test_without_cuda_the_device_enumeration_is_one_line_exit_1_and_no_store.__test__ = not SIMULATED


def same(gpu, cpu) -> None:
    """The GPU's Visited equals the CPU's, field by field."""
    assert gpu.done == cpu.done
    figures = ("best_score", "best_cards", "best_tricks", "best_offset")
    assert [getattr(gpu, f) for f in figures] == [getattr(cpu, f) for f in figures]
    if cpu.best_score >= 0:
        assert gpu.best.tolist() == cpu.best.tolist()
    assert gpu.meta.tolist() == cpu.meta.tolist()
    assert gpu.decks.tolist() == cpu.decks.tolist()


def cpu_run(counts, sizes, first, n, objective, keep_above, max_finds=1 << 18, rules=None):
    start = unrank(first, counts)
    return score_run(start, np.array(sizes), n, objective, keep_above, max_finds, rules)


class TestRanksOnDevice:
    __test__ = SIMULATED

    def test_unrank_on_the_device_is_kernels_ranks_unrank(self):
        @cuda.jit
        def unranked(counts, strides, table, ranks, rows):
            t = cuda.grid(1)
            if t < ranks.shape[0]:
                left = cuda.local.array(5, np.int64)
                for v in range(5):
                    left[v] = counts[v]
                cuda_every._unrank(ranks[t], left, strides, table, rows[t])

        rng = np.random.default_rng(SEED)
        total = arrangements(ITALIAN)
        ranks = [0, 1, total - 2, total - 1, 2**40 + 3, 2**47 - 1]
        ranks += rng.integers(0, total, 10).tolist()
        for counts, wanted in [((4, 1, 1, 1, 0), list(range(210))), (ITALIAN, ranks)]:
            strides, table = cuda_every.rank_table(counts)
            assert table[-1] == arrangements(counts)
            rows = np.zeros((len(wanted), sum(counts)), np.uint8)
            blocks = -(-len(wanted) // 16)
            unranked[blocks, 16](np.array(counts), strides, table, np.array(wanted), rows)
            assert rows.tolist() == [unrank(r, counts).tolist() for r in wanted]

    def test_a_deck_past_63_bits_is_refused(self):
        with pytest.raises(ValueError, match="ranks on the GPU fit in 63 bits"):
            cuda_every.rank_table((36, 4, 4, 4, 4))

    def test_slices_cover_the_range_once_in_order(self):
        for first, n, threads in [(0, 10, 3), (7, 2, 5), (2**62, 1000, 128)]:
            starts, lengths = cuda_every.slices(first, n, threads)
            assert starts[0] == first and lengths.min() >= 1 and lengths.sum() == n
            assert (starts[1:] == starts[:-1] + lengths[:-1]).all()


class TestEnumerationOnDevice:
    __test__ = SIMULATED

    @pytest.mark.parametrize(
        "counts, sizes, first, n, objective, keep_above, cap, threads",
        [
            # the whole deck of test_every.py: 2,520 deals, 14 loops, every game past 30 cards
            ((6, 2, 1, 1, 0), (5, 5), 0, 2520, 0, 30, 200, 8),
            ((5, 2, 1, 0, 0), (4, 4), 0, 168, 1, 0, 60, 7),  # tricks, every deal kept
            ((5, 2, 1, 0, 0), (4, 4), 13, 100, 0, 20, 60, 3),  # a range of ranks
            ((4, 2, 0, 0, 0), (2, 4), 0, 15, 0, 0, 40, 4),  # unequal hands and a loop
            ((4, 2, 0, 0, 0), (0, 6), 0, 15, 0, 0, 40, 4),  # seat 0 holds nothing
            ((5, 2, 1, 0, 0), (4, 4), 150, 1000, 0, 0, 60, 8),  # past the deck's last rank
        ],
    )
    def test_same_deals_best_and_loops_as_the_cpu(
        self, counts, sizes, first, n, objective, keep_above, cap, threads
    ):
        gpu = cuda_every.score_range(
            first, n, counts, sizes, objective, keep_above, threads, cap=cap, threads_per_block=4
        )
        same(gpu, cpu_run(counts, sizes, first, n, objective, keep_above))

    @pytest.mark.parametrize("rules", ["at-once", "leodog896", "n1k06", "pelagaletto2"])
    def test_a_rule_set_plays_as_the_cpu_plays_it(self, rules):
        """The first 840 of the deck's 2,520 deals under a rule set (the simulator plays each
        thread in Python), every game past 20 cards kept and a cap low enough that the host
        replays some: what the CPU's enumeration returns."""
        counts, sizes, n = (6, 2, 1, 1, 0), (5, 5), 840
        gpu = cuda_every.score_range(0, n, counts, sizes, 0, 20, 8, cap=40, rules=rules)
        cpu = cpu_run(counts, sizes, 0, n, 0, 20, rules=rules)
        same(gpu, cpu)
        assert cpu.best_cards > 40  # past the cap: the host replayed those
        bmns = cpu_run(counts, sizes, 0, n, 0, 20)
        assert cpu.best_cards != bmns.best_cards  # the rule set plays these otherwise

    def test_a_rule_set_that_plays_two_seats_as_bmn_s_runs_bmn_s_kernel(self):
        """Paulhus's reading differs only with a third seat: no copy is compiled for it."""
        assert cuda_every.kernel_for("paulhus")[0] is cuda_every._enumerate
        assert cuda_every.kernel_for("at-once")[0] is not cuda_every._enumerate

    def test_threads_stopped_by_a_full_buffer_go_on_from_where_they_stopped(self, monkeypatch):
        counts, sizes = (5, 2, 1, 0, 0), (4, 4)
        launches = []
        kernel = cuda_every._enumerate
        monkeypatch.setattr(cuda_every, "_enumerate", _Counted(kernel, launches))
        gpu = cuda_every.score_range(0, 168, counts, sizes, 0, 0, 6, cap=60, buffer=5)
        assert len(launches) > 10  # 168 finds, 5 a launch
        same(gpu, cpu_run(counts, sizes, 0, 168, 0, 0))

    def test_max_finds_stops_at_a_prefix_of_the_ranks(self):
        counts, sizes = (5, 2, 1, 0, 0), (4, 4)
        gpu = cuda_every.score_range(0, 168, counts, sizes, 0, 0, 6, 12, cap=60, buffer=5)
        assert 0 < gpu.done < 168  # the threads past the first stopped one are dropped
        same(gpu, cpu_run(counts, sizes, 0, gpu.done, 0, 0))


class _Counted:
    """A kernel whose launches are counted."""

    def __init__(self, kernel, launches: list):
        self.kernel, self.launches = kernel, launches

    def __getitem__(self, grid):
        self.launches.append(grid)
        return self.kernel[grid]


DECK = "5,2,1,0,0"  # 168 deals dealt 4/4, 4 of them loop


def enumerate_on(path, run_class, options_class, **changes):
    """A new enumeration into its own store: (summary as a dict, finds, cycles)."""
    options = {**dict(deck=DECK, keep_above=0, objective="loop"), **changes}
    with Store(path) as store:
        planned = run_class.plan(options)
        run_class.prepare(planned, set(options), store, None)  # on a GPU: its resident threads
        summary = RunLoop(store, run_class, planned).run()
        finds = sorted((f.deal, f.cards, f.tricks, f.status) for f in store.run_finds(summary.run))
        return summary, finds, sorted((row.key, row.times_seen) for row in store.loops())


def outcome(summary) -> tuple:
    keys = ("deals", "complete", "best_deal", "best_cards", "best_tricks", "best_rank", "loops")
    return tuple(getattr(summary, k) for k in keys) + (summary.cycles, summary.seat_blind_cycles)


class TestRunOnDevice:
    __test__ = SIMULATED

    @pytest.fixture
    def small_chunks(self, monkeypatch):
        monkeypatch.setattr(every, "FIRST_CHUNK", 40)
        monkeypatch.setattr(every, "LEAST_CHUNK", 40)
        monkeypatch.setattr(every, "CHUNK_SECONDS", 1e-9)
        monkeypatch.setattr(every, "COMMIT_SECONDS", 0.0)

    def test_a_gpu_run_stores_what_a_cpu_run_stores(self, tmp_path, small_chunks):
        cpu = enumerate_on(tmp_path / "c.sqlite", EveryJob, EveryOptions, workers=2)
        gpu = enumerate_on(tmp_path / "g.sqlite", EveryCudaJob, EveryCudaOptions)
        assert outcome(gpu[0]) == outcome(cpu[0]) and gpu[0].loops == 4 and gpu[0].complete
        assert gpu[1:] == cpu[1:]

    def test_a_gpu_run_stopped_and_resumed_equals_a_cpu_run(self, tmp_path, small_chunks):
        cpu = enumerate_on(tmp_path / "c.sqlite", EveryJob, EveryOptions, workers=1)
        path = tmp_path / "r.sqlite"
        with Store(path) as store:
            options = EveryCudaOptions(deck=DECK, keep_above=0, objective="loop")
            EveryCudaJob.prepare(options, (), store, None)
            job = RunLoop(store, EveryCudaJob, options)
            seen = []

            def stop_early(progress):
                seen.append(progress.games)
                if len(seen) == 2:
                    job.stop.set()

            stopped = job.run(stop_early)
            assert stopped.status == "interrupted" and 0 < stopped.deals < 168
            run = store.get_run(stopped.run)
            assert run.kind == "every-cuda" and run.backend == "cuda"
            resumed = RunLoop.resume(store, EveryCudaJob, stopped.run).run()
            finds = sorted((f.deal, f.cards, f.tricks, f.status) for f in store.run_finds(run.id))
        assert outcome(resumed) == outcome(cpu[0]) and finds == cpu[1]

    def test_a_gpu_run_under_a_rule_set_stores_what_a_cpu_run_stores(self, tmp_path, small_chunks):
        under = dict(objective="cards", rules="leodog896")
        cpu = enumerate_on(tmp_path / "c.sqlite", EveryJob, EveryOptions, workers=1, **under)
        gpu = enumerate_on(tmp_path / "g.sqlite", EveryCudaJob, EveryCudaOptions, **under)
        assert outcome(gpu[0]) == outcome(cpu[0]) and gpu[0].complete
        assert gpu[1:] == cpu[1:] and gpu[1]
        with Store(tmp_path / "g.sqlite") as store:
            assert store.get_run(gpu[0].run).rules == "leodog896"

    def test_the_command_line_enumerates_a_deck_on_the_gpu(self, bmn, tmp_path):
        store = tmp_path / "c.sqlite"
        args = ("search", "--strategy", "every", "--device", "cuda", "--deck", DECK)
        result = bmn(*args, "--device-threads", "8", "--quiet", "--json", "--store", store)
        assert result.exit_code == 0, result.output
        summary = json.loads(result.stdout)
        assert summary["deals"] == 168 and summary["complete"] and summary["loops"] == 4
        assert summary["best_cards"] == 31 and summary["hand_sizes"] == [4, 4]
        with Store(store) as db:
            run = db.get_run(summary["run"])
            assert run.kind == "every-cuda" and run.params["device_threads"] == 8


class TestDeviceCheck:
    __test__ = SIMULATED

    def test_the_device_checks_enumeration_agrees_with_the_cpu_and_times_a_deck(self):
        """benchmarks/device_check.py's `every` section, at its --quick sizes."""
        spec = importlib.util.spec_from_file_location("device_check", DEVICE_CHECK)
        script = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(script)
        report = script.every(script.parse_args(["--quick"]), {"threads": 8})
        assert report["mismatches"] == 0 and report["check"]["deals"] == 168
        assert report["loops"] == 4
        assert report["rate"]["deals"] == 2000 and report["rate"]["deals_per_s"] > 0
        assert report["italian_deck_days"] > 0
