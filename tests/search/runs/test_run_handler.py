"""The run handler and its backends: a run's result depends on its seed, iterations and streams,
never on how chunks are cut, where they run or in what order their results come back."""

import pickle
import random
import threading
import time
from collections import deque

import pytest

from bmn.kernels.deal import parse_deal
from bmn.kernels.reference import play
from bmn.records.store import Store
from bmn.search.backends.base import Result, Task, run_task
from bmn.search.backends.registry import BACKENDS, get_backend
from bmn.search.backends.threads import ThreadBackend
from bmn.search.runs.chunks import sized_chunk, stream_quota, stream_quotas
from bmn.search.runs.kinds import longest as driver
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.kinds.loop_hunt import LoopHuntJob, LoopHuntOptions
from bmn.search.runs.loop import RunLoop

KEYS = ("best_deal", "best_cards", "best_tricks", "games", "status")


class InlineBackend:
    """A second backend, the way a cluster may behave: every task and result is pickled, and
    when a result is asked for, every chunk queued runs here (the streams in a seeded random
    order) and the results come back latest first, so a stream's later chunk arrives before
    its earlier one."""

    name = where = "inline"

    def __init__(self, seed: int = 0):
        self.random = random.Random(seed)
        self.queues: list[deque] = []

    def default_streams(self) -> int:
        return 1

    def details(self) -> str:
        return f"{len(self.queues)} streams in turn"

    def start(self, streams, warm):
        pickle.loads(pickle.dumps(warm))()
        self.queues = [deque() for _ in range(streams)]
        self.last: dict[int, Result] = {}  # each stream's last result, as a chained future
        self.done: list[bytes] = []

    def submit(self, task):
        self.queues[task.stream].append(pickle.dumps(task))

    def next_result(self, timeout):
        if not self.done:
            turns = [q for q in self.queues for _ in q]
            self.random.shuffle(turns)
            for q in turns:
                task = pickle.loads(q.popleft())
                self.last[task.stream] = run_task(task, self.last.get(task.stream))
                self.done.append(pickle.dumps(self.last[task.stream]))
        return pickle.loads(self.done.pop()) if self.done else None

    def cancel(self):
        dropped = [pickle.loads(t).key for q in self.queues for t in q]
        for q in self.queues:
            q.clear()
        return dropped

    def close(self):
        self.cancel()


OPTIONS = dict(strategy="walk", iterations=300_000, workers=3, seed=5, keep_above=1800)


def search(tmp_path, name, backend=None, **changes):
    """Run a search into a store of its own; its summary and finds."""
    with Store(tmp_path / f"{name}.sqlite") as store:
        summary = RunLoop(
            store, LongestJob, LongestOptions(**{**OPTIONS, **changes}), backend=backend
        ).run()
        finds = {(f.deal, f.cards, f.tricks, f.status) for f in store.run_finds(summary.run)}
        assert store.get_run(summary.run).games == summary.games
    return [getattr(summary, k) for k in KEYS], finds


@pytest.fixture(scope="module")
def threads_run(tmp_path_factory):
    return search(tmp_path_factory.mktemp("threads"), "threads")


def test_threads_run_finds_true_lengths(threads_run):
    (deal, cards, tricks, games, status), finds = threads_run
    assert (games, status) == (300_000, "finished")
    assert (play(parse_deal(deal)).cards, play(parse_deal(deal)).tricks) == (cards, tricks)
    assert len(finds) > 10
    for deal, cards, tricks, _ in sorted(finds)[:10]:
        assert (play(parse_deal(deal)).cards, play(parse_deal(deal)).tricks) == (cards, tricks)


@pytest.mark.parametrize("cut", [7, 11])
def test_chunk_cuts_do_not_change_a_run(tmp_path, monkeypatch, threads_run, cut):
    """Random chunk sizes (1 to 5,000 deals, capped by the quota) instead of the rate's."""
    draw, sizes = random.Random(cut), []

    def random_cut(rate, left, deadline, ahead=0.0):
        sizes.append(min(draw.randint(1, 5000), left))
        return sizes[-1]

    monkeypatch.setattr(driver, "chunk_size", random_cut)
    assert search(tmp_path, "cut") == threads_run
    assert len(set(sizes)) > 50


def test_rate_sized_chunks_of_another_length_do_not_change_a_run(
    tmp_path, monkeypatch, threads_run
):
    monkeypatch.setattr(driver, "FIRST_CHUNK", 1234)
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.003)
    assert search(tmp_path, "short") == threads_run


@pytest.mark.parametrize("seed", [1, 2])
def test_a_second_backend_gives_the_same_run(tmp_path, monkeypatch, threads_run, seed):
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.01)  # many chunks, shuffled
    assert search(tmp_path, "inline", InlineBackend(seed)) == threads_run


class OneAtATime(ThreadBackend):
    """The threads backend, saying it runs one chunk at a time: every stream in one lane. It
    counts the chunks submitted and not yet back."""

    def __init__(self) -> None:
        super().__init__()
        self.out = self.most = 0

    def default_streams(self) -> int:
        return 1

    def submit(self, task: Task) -> None:
        self.out += 1
        self.most = max(self.most, self.out)
        super().submit(task)

    def next_result(self, timeout: float) -> Result | None:
        result = super().next_result(timeout)
        self.out -= result is not None
        return result


def test_streams_taking_turns_in_one_lane_give_the_same_run(tmp_path, monkeypatch, threads_run):
    """Three streams where the backend runs one chunk at a time: they take turns, with no
    more chunks out than one stream alone keeps (two), and the run is the same."""
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.01)  # many turns
    backend = OneAtATime()
    assert search(tmp_path, "turns", backend) == threads_run
    assert backend.most == LongestJob.in_flight == 2


def test_stopped_on_one_backend_and_resumed_on_another(tmp_path, monkeypatch, threads_run):
    monkeypatch.setattr(driver, "CHUNK_SECONDS", 0.01)
    monkeypatch.setattr(driver, "COMMIT_SECONDS", 0.0)  # a commit per chunk: stop at the first
    with Store(tmp_path / "moved.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**OPTIONS), backend=InlineBackend())
        first = job.run(lambda progress: job.stop.set())
        assert first.status == "interrupted" and 0 < first.games < OPTIONS["iterations"]
        resumed = RunLoop.resume(store, LongestJob, first.run, backend=ThreadBackend()).run()
        finds = {(f.deal, f.cards, f.tricks, f.status) for f in store.run_finds(first.run)}
    assert ([getattr(resumed, k) for k in KEYS], finds) == threads_run


def test_a_loop_hunt_on_a_second_backend(tmp_path):
    options = LoopHuntOptions(iterations=3000, workers=1, seed=11, deck="5,2,2,0,0")
    summaries, stored = [], []
    for name, backend in [("threads", None), ("inline", InlineBackend())]:
        with Store(tmp_path / f"{name}.sqlite") as store:
            summary = RunLoop(store, LoopHuntJob, options, backend=backend).run()
            stored.append({(r.key, r.times_seen, r.example_deal) for r in store.loops()})
        summaries.append({k: v for k, v in summary.as_dict().items() if k != "seconds"})
    assert summaries[0] == summaries[1] and summaries[0]["distinct_cycles"] == 2
    assert stored[0] == stored[1]


# -- the threads backend on its own ---------------------------------------------------------


def count(stream, chunk, state, options, iterations):
    """A trivial chunk: the state counts iterations; the finds name the chunk."""
    return state + iterations, [(stream, chunk)], iterations


def fail(stream, chunk, state, options, iterations):
    raise RuntimeError(f"chunk {chunk} failed")


def wait(stream, chunk, state, options, iterations):
    options.wait()
    return state, [], iterations


def results(backend, n):
    got = []
    while len(got) < n:
        result = backend.next_result(5.0)
        assert result is not None
        got.append(result)
    return got


def test_threads_run_each_stream_in_order_and_chain_its_state():
    backend = get_backend("threads")
    backend.start(2, lambda: None)
    try:
        for stream in range(2):
            backend.submit(Task(count, stream, 0, 100 * stream, None, 5))
            for chunk in range(1, 4):
                backend.submit(Task(count, stream, chunk, None, None, chunk))
        got = results(backend, 8)
        assert backend.next_result(0.01) is None
    finally:
        backend.close()
    for stream in range(2):
        mine = [r for r in got if r.stream == stream]
        assert [r.chunk for r in mine] == [0, 1, 2, 3]
        assert [r.state for r in mine] == [100 * stream + s for s in (5, 6, 8, 11)]
        assert all(r.finds == [(stream, r.chunk)] and r.seconds >= 0 for r in mine)


def test_threads_cancel_drops_queued_chunks_and_lets_running_ones_finish():
    gate = threading.Event()
    backend = ThreadBackend()
    backend.start(1, lambda: None)
    try:
        backend.submit(Task(wait, 0, 0, 0, gate, 1))
        backend.submit(Task(wait, 0, 1, None, gate, 1))
        backend.submit(Task(wait, 0, 2, None, gate, 1))
        while backend._tasks[0].qsize() > 2:  # chunk 0 has started
            threading.Event().wait(0.01)
        assert backend.cancel() == [(0, 1), (0, 2)]
        gate.set()
        assert [r.chunk for r in results(backend, 1)] == [0]
        assert backend.next_result(0.1) is None
    finally:
        backend.close()


def test_threads_raise_a_failed_chunk_in_the_caller():
    backend = ThreadBackend()
    backend.start(1, lambda: None)
    try:
        backend.submit(Task(fail, 0, 3, 0, None, 1))
        with pytest.raises(RuntimeError, match="chunk 3 failed"):
            backend.next_result(5.0)
    finally:
        backend.close()
    with pytest.raises(ValueError, match="no state"):
        run_task(Task(count, 0, 1, None, None, 1))


def test_backends_are_chosen_by_name():
    assert isinstance(get_backend("threads"), ThreadBackend)
    assert list(BACKENDS) == ["threads", "dask"]
    assert ThreadBackend().default_streams() >= 1
    with pytest.raises(ValueError, match="unknown backend 'magic'; choose from threads, dask"):
        get_backend("magic")


def test_a_timed_search_sizes_its_last_chunk_when_it_starts(tmp_path):
    """A chunk queued behind others is a full one; the last one waits to be sized on the time
    left when it starts, so a queued guess cannot run the search past its time."""
    with Store(tmp_path / "t.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(seconds=10, workers=1, seed=1)).job
        assert job.chunk_size(0, 1000.0, 0, ahead=2.0) == 1000  # a second at 1,000 deals/s
        assert job.chunk_size(0, 1000.0, 0, ahead=9.5) == 0  # queued behind the last second
        assert job.chunk_size(0, 1000.0, 0, ahead=0.0) == 1000
        last = RunLoop(store, LongestJob, LongestOptions(seconds=0.5, workers=1, seed=1)).job
        assert 1 <= last.chunk_size(0, 1000.0, 0, ahead=0.0) <= 501  # what half a second holds


def test_stream_quotas_share_the_iterations_as_the_cpu_and_gpu_runs_both_take_them():
    for iterations, streams in [(10, 3), (7, 7), (5, 8), (1_000_003, 128)]:
        quotas = stream_quotas(iterations, streams)
        assert quotas.sum() == iterations and quotas.max() - quotas.min() <= 1
        assert [stream_quota(iterations, streams, s) for s in range(streams)] == quotas.tolist()
        assert quotas[0] == quotas.max()  # the GPU run's one handler stream: device stream 0
    assert stream_quotas(None, 4) is None and stream_quota(None, 4, 0) is None


def test_sized_chunk_keeps_to_the_quota_and_the_deadline():
    sizes = dict(first=20_000, least=1000, seconds=1.0)
    assert sized_chunk(None, None, None, **sizes) == 20_000  # no rate yet
    assert sized_chunk(300.0, None, None, **sizes) == 1000  # at least `least`
    assert sized_chunk(5e6, 1234, None, **sizes) == 1234  # never past the quota
    assert sized_chunk(5e6, 0, None, **sizes) == 0
    now = time.monotonic()
    assert sized_chunk(5e6, None, now - 1, **sizes) == 0  # the time is up
    assert 1 <= sized_chunk(1000.0, None, now + 0.5, **sizes) <= 501  # what half a second holds
    assert sized_chunk(1000.0, None, now + 10, 9.5, **sizes) == 0  # queued behind the last second
