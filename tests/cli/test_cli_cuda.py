"""`--device cuda` on score, bench, selfcheck and search: under Numba's CUDA simulator against
the reference engine and the CPU kernel and search; without it, one line and exit 1.

As in test_cuda_two.py, the simulator must be on before numba is first imported, so the suite's
process runs this file again in a child interpreter with NUMBA_ENABLE_CUDASIM=1, where the
classes marked `__test__ = SIMULATED` run. The tests of the normal process (no simulator, and
numba-cuda finds no GPU here) check what `--device cuda` says when CUDA cannot run.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import samples
from simulator import SIMULATED, run_under_simulator

from bmn.kernels import reference
from bmn.kernels.cuda import env as cuda_env
from bmn.kernels.deal import format_deal, parse_deal
from bmn.kernels.score import KERNELS
from bmn.records.published import published_games
from bmn.records.store import Store
from bmn.search.strategies import cpu as strategies
from bmn.search.strategies import worker

SEED = 20_260_115

if SIMULATED:
    from bmn.kernels.cuda import two as cuda_two
    from bmn.search.runs.kinds import longest_cuda as cuda_driver
    from bmn.search.runs.loop import RunLoop
    from bmn.search.strategies.cuda import host as cuda_host
    from bmn.search.strategies.cuda import streams as cuda_streams

# xoshiro256** multiplies wrap modulo 2**64 by design; the simulator runs them as numpy scalars,
# which warn when they wrap. Any other overflow still fails the test.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in scalar multiply")


@pytest.mark.slow
def test_device_commands_under_the_simulator():
    """Run this file's simulator checks in a child interpreter; they must all pass."""
    run_under_simulator(__file__)


test_device_commands_under_the_simulator.__test__ = not SIMULATED


# -- without CUDA: one line, exit 1 --------------------------------------------------------------

DEVICE_COMMANDS = [
    ["score", "--device", "cuda", "deals.txt"],
    ["bench", "--device", "cuda"],
    ["selfcheck", "--device", "cuda"],
    ["search", "--device", "cuda", "--iterations", "100", "--store", "s.sqlite"],
]


class TestWithoutCuda:
    __test__ = not SIMULATED

    @pytest.mark.parametrize("args", DEVICE_COMMANDS, ids=lambda a: a[0])
    def test_no_gpu_is_one_line_and_exit_1(self, bmn, failed, args, tmp_path, monkeypatch):
        from numba import cuda

        monkeypatch.chdir(tmp_path)
        (tmp_path / "deals.txt").write_text(samples.RECORD + "\n")
        monkeypatch.setattr(cuda, "is_available", lambda: False)  # as on a machine without one
        result = bmn(*args)
        assert failed(result, 1, "no CUDA GPU found") == "Error: " + cuda_env.available()
        assert result.stdout == "" and not (tmp_path / "s.sqlite").exists()

    @pytest.mark.parametrize("args", DEVICE_COMMANDS, ids=lambda a: a[0])
    def test_no_extra_is_one_line_naming_it(self, bmn, failed, args, tmp_path, monkeypatch):
        import importlib.util

        monkeypatch.chdir(tmp_path)
        (tmp_path / "deals.txt").write_text(samples.RECORD + "\n")
        monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
        failed(bmn(*args), 1, "numba-cuda", "pip install 'bmn[cuda]'")

    def test_a_gpu_run_resumes_only_where_cuda_runs(self, bmn, failed, tmp_path, monkeypatch):
        from numba import cuda

        store = tmp_path / "s.sqlite"
        with Store(store) as db:
            params = {"device": "cuda", "workers": 8, "seed": 7}
            run = db.create_run("walk", "cards", 7, params, kind="longest-cuda")
            db.update_run(run, status="interrupted")
        monkeypatch.setattr(cuda, "is_available", lambda: False)
        failed(bmn("search", "--resume", "--store", store), 1, "no CUDA GPU found")
        with Store(store) as db:
            assert db.get_run(run).status == "interrupted"

    def test_this_machine(self, bmn, failed):
        """Nothing patched: without a GPU (as on the test machines) one line and exit 1; with
        one, the GPU's kernel agrees with the CPU kernel."""
        from numba import cuda

        result = bmn("selfcheck", "--device", "cuda", "--deals", "1000")
        if cuda.is_available():
            assert result.exit_code == 0 and "agree on 1,000 random deals" in result.stdout
        else:
            failed(result, 1, "no CUDA GPU found")

    def test_the_registry_names_the_cuda_kernel(self, monkeypatch):
        """Registered by name: imported, and CUDA asked for, only when a deal goes to it."""
        from numba import cuda

        from bmn.kernels.score import kernel_for

        monkeypatch.setitem(KERNELS, (2, "cuda"), "bmn.kernels.cuda.two")
        monkeypatch.delitem(sys.modules, "bmn.kernels.cuda.two", raising=False)
        monkeypatch.setattr(cuda, "is_available", lambda: False)
        with pytest.raises(cuda_env.CudaUnavailable, match="no CUDA GPU found"):
            kernel_for(2, "cuda")
        assert KERNELS[(2, "cuda")] == "bmn.kernels.cuda.two"  # asked again next time

    @pytest.mark.parametrize(
        "args, words",
        [
            (["search", "--device", "cuda", "--strategy", "climb"], "--strategy climb runs on"),
            (["search", "--device", "cuda", "--strategy", "lahc"], "walk or random"),
            (["search", "--device", "cuda", "--workers", "2"], "--workers sets CPU threads"),
            (["search", "--device", "cuda", "--objective", "loop"], "a loop hunt runs on the CPU"),
            (["search", "--device-threads", "8"], "--device-threads is for --device cuda only"),
            (["search", "--device", "cuda", "--device-threads", "200"], "a multiple of 128"),
            (["search", "--resume", "--device", "cuda"], "drop --device"),
            (["search", "--resume", "--device-threads", "8"], "drop --device-threads"),
            (["bench", "--device", "cuda", "--threads", "2"], "--threads sets CPU threads"),
            (["bench", "--device-threads", "8"], "--device-threads is for --device cuda only"),
            (["bench", "--device", "cuda", "--device-threads", "130"], "a multiple of 128"),
            (["bench", "--device", "gpu"], "'gpu' is not one of 'cpu', 'cuda'"),
        ],
    )
    def test_options_that_cannot_run_on_the_gpu_are_refused(self, bmn, failed, args, words):
        failed(bmn(*args), 2, words)


# -- under the simulator -----------------------------------------------------------------------


class TestScoreAndCheckOnDevice:
    __test__ = SIMULATED

    def test_score_matches_the_reference(self, bmn, tmp_path):
        from bmn.kernels.dealer import random_deals
        from bmn.kernels.rng import seed_state

        rows, sizes = random_deals(20, seed_state(SEED))
        deals = [format_deal(((*r[:26],), (*r[26:],))) for r in rows.tolist()]
        deals += [f"{g.hand_1}/{g.hand_2}" for g in published_games()]  # with the loop
        deals += [
            "./-J",  # an empty hand is written '.'
            "J/-",
            "A/--",
            "-" * 63 + "/J",
            "-J/Q-",
            "--K/J-/---",
            "-" * 40 + "/" + "Q" * 30,
        ]
        path = tmp_path / "deals.txt"
        path.write_text("\n".join(deals) + "\n")
        result = bmn("score", path, "--device", "cuda", "--json", "--any-deck")  # of many decks
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in result.stdout.splitlines()]
        assert [row.pop("deal") for row in rows] == [format_deal(parse_deal(d)) for d in deals]
        assert rows == [{**reference.play(parse_deal(d)).as_dict(), "rules": "bmn"} for d in deals]

    def test_score_under_a_rule_set_is_the_reference_engines(self, bmn):
        from bmn.kernels.dealer import random_deals
        from bmn.kernels.rng import seed_state

        rows, _ = random_deals(30, seed_state(SEED))
        deals = [((*r[:26],), (*r[26:],)) for r in rows.tolist()] + [parse_deal("Q-/--J")]
        text = "\n".join(map(format_deal, deals)) + "\n"
        result = bmn(
            "score", "--device", "cuda", "--rules", "at-once", "--json", "--any-deck", input=text
        )
        assert result.exit_code == 0, result.output
        got = [json.loads(line) for line in result.stdout.splitlines()]
        want = [reference.play(d, rules="at-once").as_dict() for d in deals]
        assert [{k: v for k, v in g.items() if k != "deal"} for g in got] == [
            {**w, "rules": "at-once"} for w in want
        ]
        assert want != [reference.play(d).as_dict() for d in deals]

    def test_score_plays_two_seat_deals_on_the_device(self, bmn, monkeypatch):
        seen = []
        real = cuda_two.score_rows
        monkeypatch.setattr(cuda_two, "score_rows", lambda d, s, rows, *a: [
            seen.extend(rows.tolist()), real(d, s, rows, *a)
        ])  # fmt: skip
        text = f"{samples.RECORD}\n--K/J-/---\n-J/Q-\n"
        result = bmn("score", "--device", "cuda", "--any-deck", input=text)
        assert result.exit_code == 0, result.output
        assert seen == [0, 1]  # the two-seat deals; the three-seat one went to the CPU kernel

    def test_selfcheck_agrees_with_the_cpu_kernel(self, bmn):
        result = bmn("selfcheck", "--device", "cuda", "--deals", "50", "--seed", "5")
        assert result.exit_code == 0, result.output
        assert result.stdout == (
            "OK: the CUDA kernel (simulator) and the CPU kernel agree on 50 random deals (seed 5)\n"
        )

    def test_selfcheck_and_bench_under_a_rule_set(self, bmn):
        args = ["--deals", "50", "--seed", "5", "--rules", "at-once"]
        result = bmn("selfcheck", "--device", "cuda", *args)
        assert result.exit_code == 0, result.output
        assert result.stdout.endswith("random deals (seed 5) under rule set at-once\n")
        args = ["--deals", "8", "--device-threads", "8", "--rules", "at-once"]
        out = json.loads(bmn("bench", "--device", "cuda", *args, "--json").stdout)
        assert (out["rules"], out["deals"]) == ("at-once", 8)
        text = bmn("bench", "--device", "cuda", *args).stdout
        assert text.startswith("8 deals (at-once's rules) on 8 GPU threads (simulator) in ")

    def test_selfcheck_reports_a_disagreement(self, bmn, monkeypatch, failed):
        real = cuda_two.score_rows

        def off_by_one(deals, sizes, rows, out, cap):
            real(deals, sizes, rows, out, cap)
            out.tricks[rows[3]] += 1

        monkeypatch.setattr(cuda_two, "score_rows", off_by_one)
        result = bmn("selfcheck", "--device", "cuda", "--deals", "8", "--seed", "5")
        failed(result, 1, "the CUDA kernel disagrees with the CPU kernel")
        first, gpu, cpu = result.stdout.splitlines()
        assert first.startswith("deal 3: ")
        gpu, cpu = (json.loads(line.split(":", 1)[1]) for line in (gpu, cpu))
        assert gpu["tricks"] == cpu["tricks"] + 1
        assert cpu == reference.play(parse_deal(first.split(": ")[1])).as_dict()

    def test_bench_counts_every_card_the_cpu_counts(self, bmn, monkeypatch):
        """Every launch's streams before and after, replayed game by game by the CPU search:
        the bench's totals are those of the games the device played in the timed launch."""
        launches = []
        run = cuda_host.DeviceSearch.run

        def recorded(self, games, limits=None):
            before = self.streams()
            finds = run(self, games, limits)
            launches.append((before, self.streams()))
            return finds

        monkeypatch.setattr(cuda_host.DeviceSearch, "run", recorded)
        args = ["--deals", "16", "--device-threads", "8", "--seed", str(SEED), "--json"]
        result = bmn("bench", "--device", "cuda", *args)
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        assert (out["deals"], out["threads"], out["device"], out["gpu"]) == (
            16, 8, "cuda", "simulator",
        )  # fmt: skip
        before, after = launches[-1]  # the timed launch, after a warm-up and a probe
        played = after.counters[:, cuda_streams.GAMES] - before.counters[:, cuda_streams.GAMES]
        cards = tricks = 0
        for t in range(8):
            state = cpu_worker(before, t)
            for _ in range(played[t]):
                strategies.run_chunk("random", state, worker.LoopFinds.empty(), 1, 0, 1 << 62, 1)
                cards += state.counters[worker.CURRENT]
                deal = (tuple(state.deck[:26].tolist()), tuple(state.deck[26:].tolist()))
                tricks += reference.play(deal).tricks
        assert played.sum() == 16
        assert (out["mean_cards"] * 16, out["mean_tricks"] * 16) == (cards, tricks)
        assert out["games_per_s"] > 0 and out["cards_per_s"] > out["games_per_s"]

    def test_bench_text(self, bmn):
        result = bmn("bench", "--device", "cuda", "--deals", "8", "--device-threads", "8")
        assert result.exit_code == 0, result.output
        assert result.stdout.startswith("8 deals on 8 GPU threads (simulator) in ")
        assert "games/s" in result.stdout and "mean" in result.stdout


def cpu_worker(streams, t: int) -> worker.WorkerState:
    """Device stream t as a CPU search worker (search/strategies/worker.py)."""
    counters = np.zeros(worker.N_COUNTERS, np.int64)
    for name in ("GAMES", "CURRENT", "BEST", "BEST_CARDS", "BEST_TRICKS", "IMPROVEMENTS"):
        counters[getattr(worker, name)] = streams.counters[t, getattr(cuda_streams, name)]
    return worker.WorkerState(
        streams.deck[t].copy(), streams.best[t].copy(), streams.rng[t].copy(), counters,
        np.full(1, -1, np.int64), np.array(worker.STANDARD_SIZES, np.int64),
    )  # fmt: skip


SEARCH = ["--seed", "7", "--keep-above", "400", "--json", "--quiet"]
KEYS = ("best_deal", "best_cards", "best_tricks", "games", "status")


def run_search(bmn, store: Path, *args: str) -> dict:
    result = bmn("search", *args, "--store", store, *SEARCH)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def long_finds(store: Path) -> set:
    """Every find of at least 400 cards (the keep threshold), and the run's best."""
    with Store(store) as db:
        return {(f.deal, f.cards, f.tricks, f.status) for f in db.top(n=10**6, min_cards=400)}


class TestSearchOnDevice:
    __test__ = SIMULATED

    @pytest.mark.parametrize(
        "strategy, objective, iterations, rules",
        [
            ("walk", "cards", 200, "bmn"),
            ("random", "tricks", 203, "bmn"),
            ("walk", "cards", 200, "leodog896"),
        ],  # fmt: skip
    )
    def test_a_device_run_is_the_cpu_run_of_as_many_workers(
        self, bmn, tmp_path, strategy, objective, iterations, rules
    ):
        """Device stream t plays CPU worker t's deals under the same rules: the same best deal
        and long finds."""
        args = ["--iterations", iterations, "--strategy", strategy, "--objective", objective,
                "--rules", rules]  # fmt: skip
        gpu = run_search(bmn, tmp_path / "gpu.sqlite", *args, "--device", "cuda",
                         "--device-threads", "8")  # fmt: skip
        cpu = run_search(bmn, tmp_path / "cpu.sqlite", *args, "--workers", "8")
        assert [gpu[k] for k in KEYS] == [cpu[k] for k in KEYS]
        assert gpu["games"] == iterations and gpu["status"] == "finished"
        finds = long_finds(tmp_path / "gpu.sqlite")
        assert finds == long_finds(tmp_path / "cpu.sqlite") and len(finds) > 3
        best = reference.play(parse_deal(gpu["best_deal"]), rules=rules)
        assert (best.cards, best.tricks) == (gpu["best_cards"], gpu["best_tricks"])
        with Store(tmp_path / "gpu.sqlite") as db:
            run = db.get_run(gpu["run"])
            assert run.rules == rules
            params = (run.params["device"], run.params["device_threads"], run.backend)
            assert params == ("cuda", 8, "cuda") and "workers" not in run.params
            assert (run.best_deal, run.games) == (gpu["best_deal"], iterations)
            in_bulk = db._db.execute("SELECT count(*) FROM find_batches").fetchone()[0]
            assert in_bulk > 0  # finds under 3,000 cards are stored in bulk, as on the CPU

    def test_interrupted_and_resumed_is_the_uninterrupted_run(self, bmn, tmp_path, monkeypatch):
        whole = run_search(bmn, tmp_path / "whole.sqlite", "--iterations", "160",
                           "--device", "cuda", "--device-threads", "8")  # fmt: skip
        # Chunks of a round or two, a commit after each, a stop after the first commit.
        monkeypatch.setattr(cuda_driver, "FIRST_ROUNDS", 2)
        monkeypatch.setattr(cuda_driver, "CHUNK_SECONDS", 1e-6)
        monkeypatch.setattr(cuda_driver, "COMMIT_SECONDS", 0.0)
        parts = tmp_path / "parts.sqlite"
        with Store(parts) as db:
            options = cuda_driver.LongestCudaOptions(
                iterations=160, device_threads=8, seed=7, keep_above=400
            )
            job = RunLoop(db, cuda_driver.LongestCudaJob, options)
            stopped = job.run(lambda progress: job.stop.set())
        assert stopped.status == "interrupted" and 0 < stopped.games < 160
        resumed = run_search_resume(bmn, parts)
        assert [resumed[k] for k in KEYS] == [whole[k] for k in KEYS]
        assert long_finds(parts) == long_finds(tmp_path / "whole.sqlite")
        assert (
            checkpoint(parts).counters.tolist()
            == checkpoint(tmp_path / "whole.sqlite").counters.tolist()
        )
        for name in ("rng", "deck", "best"):
            got, want = (getattr(checkpoint(p), name) for p in (parts, tmp_path / "whole.sqlite"))
            assert got.tolist() == want.tolist()

    def test_a_timed_run_stops_on_time(self, bmn, tmp_path):
        out = run_search(bmn, tmp_path / "t.sqlite", "--time", "2s", "--device", "cuda",
                         "--device-threads", "8", "--strategy", "random")  # fmt: skip
        assert out["status"] == "finished" and out["games"] > 0 and out["seconds"] >= 2
        assert (
            checkpoint(tmp_path / "t.sqlite").counters[:, cuda_streams.GAMES].sum() == out["games"]
        )


def run_search_resume(bmn, store: Path) -> dict:
    result = bmn("search", "--resume", "--store", store, "--json", "--quiet")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def checkpoint(store: Path):
    with Store(store) as db:
        (run,) = db.runs()
        return cuda_streams.Streams.from_bytes(db.load_checkpoints(run.id)[0][0])
