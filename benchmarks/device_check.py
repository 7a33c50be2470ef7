"""Check and time bmn's CUDA kernel on this machine's GPU: one command, one JSON line.

    pip install -e '.[cuda]'
    python benchmarks/device_check.py

The line holds the GPU's name; `selfcheck`: 1,000,000 random deals scored on the GPU and by
the CPU kernel, every field compared (mismatches must be 0); `search_replay`: device search
streams replayed game by game by the CPU search (mismatches must be 0); `bench`: games/s and
cards/s of random deals (and of the walk, without the backlog, and with a register cap, to
choose the defaults); `search`: a 60-second walk on every resident thread and its best deal,
replayed by the reference engine; `search_run`: `bmn search --device cuda` as the command runs
it (the run handler, launches from a worker thread, checkpoints in a store) for 20 seconds, its
rate and checkpoint size, and its chunks cut two ways (mismatches must be 0); `every`: every
deal of a small deck (6,2,1,1,0, 2,520 deals, 14 loops) enumerated on the GPU against the CPU
enumeration (mismatches must be 0), and the enumeration's deals/s on the first ranks of the
40-card Italian deck (28,4,4,4,0 dealt 20/20) with the whole deck's projected time; `compile`:
every kernel compiled by NVVM and ptxas for sm_80, sm_90a and this GPU's own architecture
(lab/cuda_compiled.py): registers, spills, stack and shared memory per kernel, to
read beside the speeds (`bench` gives the registers the driver reports for the launched kernels).
It takes under 5 minutes including compilation. Exit status 0 when every check passed, 1 when one
failed, a kernel did not compile, or CUDA is unusable (the line says which).

`--quick` runs tiny sizes, so it also runs under Numba's CUDA simulator
(NUMBA_ENABLE_CUDASIM=1), as the test suite does. The `compile` section is computed there too:
its compiler runs in child interpreters with the simulator off, and needs no GPU. It is skipped,
with the reason in place of the figures, only where ptxas is missing (numba-cuda without its
cu12 wheels).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
SEED = 20_260_114
KEEP_ABOVE = 3000


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes (seconds; simulator)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--selfcheck-deals", type=int, default=None)
    parser.add_argument("--bench-games", type=int, default=None)
    parser.add_argument("--search-seconds", type=float, default=None)
    parser.add_argument("--run-seconds", type=float, default=None)
    parser.add_argument("--every-deals", type=int, default=1 << 32)
    parser.add_argument("--every-seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    full = {"selfcheck_deals": 1_000_000, "bench_games": 2**30, "search_seconds": 60.0}
    full["run_seconds"] = 20.0
    quick = {"selfcheck_deals": 40, "bench_games": 32, "search_seconds": 1.0, "run_seconds": 1.0}
    for name, value in (quick if args.quick else full).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def selfcheck(args) -> dict:
    from bmn.kernels.cuda import two as cuda_two

    start = time.perf_counter()
    mismatches = cuda_two.selfcheck(args.selfcheck_deals, args.seed)
    seconds = time.perf_counter() - start
    return {"deals": args.selfcheck_deals, "mismatches": mismatches, "seconds": round(seconds, 2)}


def search_replay(args, shape: dict) -> dict:
    """A short device walk (with the backlog), every stream replayed by the CPU search."""
    from bmn.search.strategies import cpu as strategies
    from bmn.search.strategies import worker
    from bmn.search.strategies.cuda import host
    from bmn.search.strategies.cuda import streams as cuda_streams

    n = shape["threads"] if args.quick else 256
    before = cuda_streams.Streams.new(args.seed + 1, n)
    search = host.DeviceSearch(
        before, "walk", keep_above=400, threads_per_block=shape["threads_per_block"]
    )
    finds = search.run(4 if args.quick else 32)
    after = search.streams()
    slots = [
        (worker.GAMES, cuda_streams.GAMES),
        (worker.CURRENT, cuda_streams.CURRENT),
        (worker.BEST, cuda_streams.BEST),
    ]
    slots += [
        (worker.BEST_CARDS, cuda_streams.BEST_CARDS),
        (worker.BEST_TRICKS, cuda_streams.BEST_TRICKS),
    ]
    mismatches = 0
    for t in range(n):
        state = worker.new_worker(args.seed + 1, t)
        games = int(after.counters[t, cuda_streams.GAMES])
        cpu = worker.LoopFinds.empty()
        _, found = strategies.run_chunk("walk", state, cpu, games, 0, 400, 1)
        kept = [k for k in range(found) if cpu.meta[k, 0] >= 400]
        mine = finds.figures[:, cuda_streams.F_STREAM] == t
        same = (
            cpu.decks[kept].tolist() == finds.decks[mine].tolist()
            and cpu.meta[kept, :2].tolist() == finds.figures[mine, :2].tolist()
            and state.rng.tolist() == after.rng[t].tolist()
            and state.best.tolist() == after.best[t].tolist()
            and [state.counters[a] for a, _ in slots] == [after.counters[t, b] for _, b in slots]
        )
        mismatches += not same
    games = int(after.counters[:, cuda_streams.GAMES].sum())
    return {"streams": n, "games": games, "finds": len(finds), "mismatches": mismatches}


def bench(args, shape: dict) -> dict:
    from bmn.search.strategies.cuda import host
    from bmn.search.strategies.cuda import kernels as cuda_kernels

    whole = cuda_kernels.WHOLE_GAMES
    variants = {  # the defaults first, then one change each, to choose the defaults by
        "random": {"mode": "random"},
        "walk": {"mode": "walk"},
        "random_whole_games": {"mode": "random", "window": whole},
        "walk_whole_games": {"mode": "walk", "window": whole},
        "random_window_4": {"mode": "random", "window": 4},
        "random_no_backlog": {"mode": "random", "backlog": False},
        "walk_64_registers": {"mode": "walk", "max_registers": 64},
    }
    threads = shape["threads"] if args.quick else None
    tpb = shape["threads_per_block"]
    return {
        name: host.bench(args.bench_games, args.seed, threads=threads, threads_per_block=tpb, **kw)
        for name, kw in variants.items()
    }


def search(args, shape: dict) -> dict:
    """The walk on every resident thread for a while; the best deal, checked by the reference."""
    from bmn.kernels import reference
    from bmn.kernels.deal import decode, format_deal
    from bmn.search.strategies.cuda import host
    from bmn.search.strategies.cuda import streams as cuda_streams

    threads = shape["threads"] or host.resident_threads(shape["threads_per_block"], mode="walk")
    device = host.DeviceSearch(
        cuda_streams.Streams.new(args.seed + 2, threads), "walk", keep_above=KEEP_ABOVE,
        threads_per_block=shape["threads_per_block"],
    )  # fmt: skip
    games_per_launch, finds = 1 if args.quick else 16, 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < args.search_seconds:
        began = time.perf_counter()
        finds += len(device.run(games_per_launch))
        if time.perf_counter() - began < 0.25 and not args.quick:  # launches of about a second
            games_per_launch *= 2
    streams = device.streams()
    t = streams.best_stream()
    deal = decode(streams.best[t], (26, 26))
    replayed = reference.play(deal)
    cards = int(streams.counters[t, cuda_streams.BEST_CARDS])
    tricks = int(streams.counters[t, cuda_streams.BEST_TRICKS])
    verified = (replayed.status, replayed.cards, replayed.tricks) == ("finished", cards, tricks)
    games = int(streams.counters[:, cuda_streams.GAMES].sum())
    return {
        "seconds": round(elapsed, 1),
        "threads": threads,
        "games": games,
        "games_per_s": round(games / elapsed),
        f"finds_{KEEP_ABOVE}_cards": finds,
        "best": {"deal": format_deal(deal), "cards": cards, "tricks": tricks, "verified": verified},
    }


def search_run(args, shape: dict) -> dict:
    """`bmn search --device cuda`'s own path: a timed run through the run handler into a
    store, and a chunk of rounds cut in two against it uncut (the checkpoints must be equal)."""
    import tempfile

    from bmn.kernels import reference
    from bmn.kernels.deal import parse_deal
    from bmn.records.store import Store
    from bmn.search.runs.kinds.longest_cuda import LongestCudaJob, LongestCudaOptions, cuda_chunk
    from bmn.search.runs.loop import RunLoop
    from bmn.search.strategies.cuda import host
    from bmn.search.strategies.cuda import streams as cuda_streams

    threads = shape["threads"] or host.resident_threads(shape["threads_per_block"], mode="walk")
    options = LongestCudaOptions(
        seconds=args.run_seconds, device_threads=threads, seed=args.seed + 3, keep_above=KEEP_ABOVE
    )
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "run.sqlite") as db:
        summary = RunLoop(db, LongestCudaJob, options).run()
        blob = db.load_checkpoints(summary.run)[0][0]
    replayed = reference.play(parse_deal(summary.best_deal))
    verified = (replayed.cards, replayed.tricks) == (summary.best_cards, summary.best_tricks)
    small = LongestCudaOptions(
        iterations=None, device_threads=min(threads, 1024), seed=args.seed + 4
    )
    start = cuda_streams.Streams.new(small.seed, small.workers)
    rounds = 2 if args.quick else 24
    whole, _, _ = cuda_chunk(0, 0, start, small, rounds)
    half, _, _ = cuda_chunk(0, 0, start, small, rounds // 2)
    cut, _, _ = cuda_chunk(0, 1, half, small, rounds - rounds // 2)
    mismatches = sum(
        int((getattr(whole, name) != getattr(cut, name)).any(axis=1).sum())
        for name in ("rng", "deck", "best", "counters")
    )
    return {
        "threads": threads,
        "seconds": round(summary.seconds, 1),
        "games": summary.games,
        "games_per_s": round(summary.games / summary.seconds),
        "checkpoint_bytes": len(blob),
        "best": {"cards": summary.best_cards, "verified": verified},
        "chunk_mismatches": mismatches,
    }


def every(args, shape: dict) -> dict:
    """`bmn search --strategy every --device cuda`'s kernel: a small deck's every deal against
    the CPU enumeration, field by field, then the rate on the Italian deck's first ranks."""
    from bmn.kernels.ranks import arrangements, unrank
    from bmn.search.enumeration import cuda as cuda_every
    from bmn.search.enumeration.cpu import score_run

    threads = shape["threads"] or cuda_every.resident_threads()
    counts, sizes = ((5, 2, 1, 0, 0), (4, 4)) if args.quick else ((6, 2, 1, 1, 0), (5, 5))
    n = arrangements(counts)
    gpu = cuda_every.score_range(0, n, counts, sizes, 0, 30, threads)
    cpu = score_run(unrank(0, counts), np.array(sizes), n, 0, 30)
    figures = ("done", "best_score", "best_cards", "best_tricks", "best_offset")
    same = [getattr(gpu, f) for f in figures] == [getattr(cpu, f) for f in figures] and all(
        np.array_equal(getattr(gpu, f), getattr(cpu, f)) for f in ("best", "decks", "meta")
    )
    loops = int((cpu.meta[:, 2] == 1).sum())
    italian, halves = (28, 4, 4, 4, 0), (20, 20)
    ranks = 2_000 if args.quick else args.every_deals
    rate = cuda_every.bench(italian, halves, min(ranks, 1 << 24), threads)  # a probe
    if not args.quick and rate["deals_per_s"]:  # about every_seconds of work
        ranks = min(ranks, int(rate["deals_per_s"] * args.every_seconds))
        rate = cuda_every.bench(italian, halves, ranks, threads)
    whole = arrangements(italian) / rate["deals_per_s"] if rate["deals_per_s"] else None
    return {
        "check": {"deck": "5,2,1,0,0" if args.quick else "6,2,1,1,0", "deals": gpu.done},
        "loops": loops,
        "mismatches": int(not same),
        "rate": rate,
        "italian_deck_days": None if whole is None else round(whole / 86400, 2),
    }


def compiled(gpu_arch: str | None) -> dict:
    """Every kernel through NVIDIA's compiler: for sm_80, sm_90a and the GPU's own architecture."""
    sys.path.insert(0, str(ROOT))  # lab/ sits beside the package, not inside it
    from lab import cuda_compiled

    reason = cuda_compiled.missing()
    if reason is not None:
        return {"skipped": reason}
    architectures = list(cuda_compiled.ARCHITECTURES)
    if gpu_arch is not None and gpu_arch not in architectures:
        architectures.append(gpu_arch)
    result = cuda_compiled.compile_kernels(architectures)
    return {
        "gpu_arch": gpu_arch,
        "toolkit": result.toolkit,
        "seconds": result.seconds,
        "kernels": result.rows,
        "unlisted": result.unlisted(),
        "errors": result.errors(),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    from bmn.kernels.cuda.env import available

    missing = available()
    if missing is not None:
        print(json.dumps({"ok": False, "error": missing}))
        return 1
    from bmn.kernels.cuda import two as cuda_two

    # Quick runs keep the simulator's Python threads few; a GPU gets every resident thread.
    shape = {"threads": 8, "threads_per_block": 8} if args.quick else {"threads": None}
    shape.setdefault("threads_per_block", cuda_two.THREADS_PER_BLOCK)
    report = {"gpu": cuda_two.device_name(), "simulator": cuda_two.SIMULATED}
    report["compile"] = compiled(None if cuda_two.SIMULATED else _gpu_arch(cuda_two.cuda))
    report["selfcheck"] = selfcheck(args)
    report["search_replay"] = search_replay(args, shape)
    report["bench"] = bench(args, shape)
    report["search"] = search(args, shape)
    report["search_run"] = search_run(args, shape)
    report["every"] = every(args, shape)
    report["ok"] = bool(
        report["selfcheck"]["mismatches"] == 0
        and report["search_replay"]["mismatches"] == 0
        and report["search"]["best"]["verified"]
        and report["search_run"]["best"]["verified"]
        and report["search_run"]["chunk_mismatches"] == 0
        and report["every"]["mismatches"] == 0
        and not report["compile"].get("errors")
    )
    report["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(report, default=_plain))
    return 0 if report["ok"] else 1


def _gpu_arch(cuda) -> str:
    """The architecture numba-cuda compiles for on this GPU (sm_90a on an H100 or H200)."""
    from lab.cuda_compiled import arch_of

    return arch_of(cuda.get_current_device().compute_capability)


def _plain(value):
    """numpy integers in the report as plain JSON numbers."""
    if isinstance(value, np.integer):
        return int(value)
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


if __name__ == "__main__":
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        import warnings

        # xoshiro256** multiplies wrap by design; the simulator runs them as numpy scalars, which
        # warn when they wrap (on a GPU they are plain machine multiplies).
        warnings.filterwarnings("ignore", "overflow encountered in scalar multiply", RuntimeWarning)
    sys.exit(main())
