"""The Dask backend: every stream's chunks as tasks on a Dask cluster (bmn.search.backends.base).

The cluster is an existing engine (Dask distributed); bmn adds no sockets or queues of its
own. The process that runs `bmn search` submits chunks and commits their results; the cluster's
workers only compute, so the record store stays on this machine with one writer.

- **Chaining.** A chunk queued while its stream's previous one is still out (state None) is
  submitted with the previous chunk's future as its argument, so the worker holding that
  result starts it at once, without a round trip through this process. A chain keeps every
  link it passed through in the scheduler (to recompute a lost result from its inputs), so
  every ANCHOR_EVERY chunks one starts from a state this process already has, and the links
  before it are forgotten: a long run holds a few tasks per stream, and a lost result costs at
  most ANCHOR_EVERY chunks of recomputation.
- **Releasing.** Each future is released as soon as its result is handed to the run: a result
  still held when its worker dies would be silently recomputed.
- **Faults.** A worker killed mid-chunk: Dask reruns the chunk elsewhere from the same input,
  and a chunk is deterministic, so the run ends exactly as it would have. The scheduler gone
  (or no worker left for NO_WORKERS_SECONDS): `BackendError`, and the run checkpoints and
  stops, to be resumed on a cluster or on threads.
- **Versions.** Workers must run the same bmn as this process: checked on connecting, and by
  every chunk where it runs (a worker that joins later).

Keys name the run session, stream and chunk (`bmn-chunk-<session>-<stream>-<chunk>`), so a
resumed run never meets an earlier session's tasks on a long-lived cluster.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import importlib.metadata
import itertools
import json
import logging
import queue
import socket
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bmn.search.backends.base import BackendError, Result, Task, run_task

INSTALL_HINT = "the Dask backend needs Dask distributed: pip install 'bmn[dask]'"
try:
    import distributed
    from distributed import Client, Future, KilledWorker, LocalCluster, WorkerPlugin
except ImportError as err:  # an optional extra: one line for the user, not a traceback
    raise BackendError(INSTALL_HINT) from err

CONNECT_SECONDS = 5.0  # a scheduler that does not answer within this is reported unreachable
WORKERS_SECONDS = 30.0  # how long to wait for a first worker to join the scheduler
LOST = ("lost", "pending")  # a done chunk whose result left with its worker, to run again
NO_WORKERS_SECONDS = 60.0  # a cluster without a worker this long is taken as gone
ANCHOR_EVERY = 8  # chained chunks before one starts from a state this process has
LOCAL_HOST = "127.0.0.1"  # a local cluster listens on this machine only
DASHBOARD_PORT = 8787  # a local cluster's dashboard, if free (else any free port)


def bmn_version() -> str:
    """The bmn installed in this process (on a worker: the worker's)."""
    return importlib.metadata.version("bmn")


@functools.lru_cache(maxsize=1)
def _worker_version() -> str:
    return bmn_version()


class VersionMismatch(RuntimeError):
    """A worker runs another bmn than the process that submitted the chunk."""


def run_chunk(task: Task, previous: Result | None, version: str) -> Result:
    """A chunk on a worker: `run_task`, refused under a bmn other than `version`."""
    mine = _worker_version()
    if mine != version:
        raise VersionMismatch(f"a worker runs bmn {mine}, this search bmn {version}")
    return run_task(task, previous)


class WarmUp(WorkerPlugin):
    """Compiles (or loads) the kernels on every worker, those that join later included, in a
    thread so the worker keeps answering the scheduler meanwhile."""

    def __init__(self, warm: Callable[[], object]):
        self.warm = warm

    async def setup(self, worker: Any) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.warm)


def plugin_name(warm: Callable[[], object]) -> str:
    """The warm-up's name on the workers: its function and the arguments bound to it (a
    search warms its own strategy and seats), the same in every process."""
    func, args = getattr(warm, "func", warm), getattr(warm, "args", ())
    bound = f"({', '.join(map(repr, args))})" if args else ""
    return f"bmn-warm-{func.__module__}.{func.__qualname__}{bound}"


@dataclass
class _Stream:
    """The backend's book of one stream."""

    tail: Future | None = None  # the stream's latest chunk submitted, until handed over
    state: Any = None  # the state of the latest chunk handed over, when it was the tail
    chained: int = 0  # chunks chained since one started from a known state
    deferred: Task | None = None  # a chained task held back to anchor the chain


class DaskBackend:
    """Streams as tasks on a Dask cluster (see the module's docstring).

    `DaskBackend(address)` connects to a running scheduler (`tcp://host:8786`),
    `DaskBackend(scheduler_file=path)` to the one a scheduler file names, and
    `DaskBackend(local=True, local_workers=n)` starts a LocalCluster of n one-thread worker
    processes on this machine, listening on 127.0.0.1 only, closed with the backend.
    Connecting checks that every worker runs this bmn; BackendError otherwise."""

    name = "dask"

    def __init__(
        self,
        address: str | None = None,
        scheduler_file: str | None = None,
        local: bool = False,
        local_workers: int | None = None,
        connect_seconds: float = CONNECT_SECONDS,
    ):
        self.cluster: LocalCluster | None = None
        self.client: Client | None = None
        self.version = bmn_version()
        self._futures: dict[str, Future] = {}  # by key: the chunks out, until handed over
        self._streams: list[_Stream] = []
        self._done: queue.Queue[Future] = queue.Queue()  # put by Dask's callback thread
        self._ready: collections.deque[Result] = collections.deque()  # fetched, to hand back
        self._dropped: set[str] = set()  # keys this backend cancelled
        self._session = ""
        self._plugin = ""
        self._workerless_since: float | None = None
        self._checked = 0.0  # when _check_alive last asked the scheduler
        if local:
            self.cluster = start_local_cluster(local_workers)
            address, self.where = self.cluster.scheduler_address, "dask local"
        elif scheduler_file is not None:
            address = read_scheduler_file(scheduler_file)
            self.where = f"dask {address}"
        elif address is None:
            raise ValueError("give a scheduler address, a scheduler file or local=True")
        else:
            self.where = f"dask {address}"
        try:
            self.client = connect(address, connect_seconds)
            self.address = self.client.scheduler.address
            self._check_versions()
        except BaseException:
            self.close()
            raise

    # -- the Backend interface ------------------------------------------------------------------

    def default_streams(self) -> int:
        """Every thread of every worker of the cluster."""
        return sum(self._nthreads().values())

    def details(self) -> str:
        workers = self._nthreads()
        text = f"{_count(len(workers), 'worker')}, {_count(sum(workers.values()), 'thread')}"
        link = self.dashboard()
        return text if link is None else f"{text}, dashboard {link}"

    def start(self, streams: int, warm: Callable[[], object]) -> None:
        self._nthreads()  # waits for a first worker
        self._plugin = plugin_name(warm)
        try:
            self.client.register_plugin(WarmUp(warm), name=self._plugin)
        except Exception as err:
            raise BackendError(
                f"the workers of {self.where} cannot load bmn's kernels: {err}"
            ) from None
        self._session = uuid.uuid4().hex[:12]
        self._streams = [_Stream() for _ in range(streams)]
        self._done, self._ready = queue.Queue(), collections.deque()
        self._futures, self._dropped = {}, set()

    def submit(self, task: Task) -> None:
        s = self._streams[task.stream]
        if task.state is None and s.tail is None:
            if s.state is None:
                raise ValueError(f"chunk {task.chunk} of stream {task.stream} has no state")
            task = replace(task, state=s.state)  # the previous chunk is back: no chain needed
        elif task.state is None and s.chained >= ANCHOR_EVERY:
            s.deferred = task  # submitted when the chunk before it is back
            return
        previous = s.tail if task.state is None else None
        s.chained = 0 if previous is None else s.chained + 1
        key = f"bmn-chunk-{self._session}-{task.stream}-{task.chunk}"
        future = self.client.submit(run_chunk, task, previous, self.version, key=key)
        self._futures[key] = future
        s.tail = future
        future.add_done_callback(self._done.put)

    def next_result(self, timeout: float) -> Result | None:
        """The next result fetched; when none is, every future done by now is fetched in
        one round trip (a run loop behind its workers fetches many at once)."""
        if not self._ready:
            try:
                done = [self._done.get(timeout=timeout)]
            except queue.Empty:
                self._check_alive()
                return None
            with contextlib.suppress(queue.Empty):
                while True:
                    done.append(self._done.get_nowait())
            self._fetch([future for future in done if future.key not in self._dropped])
        return self._ready.popleft() if self._ready else None

    def cancel(self) -> list[tuple[int, int]]:
        """Drop the chunks no worker has started (a stop): those deferred, and from each
        stream's first future the scheduler does not have processing on a worker, that one
        and every later one (Dask cancels a future's dependents with it)."""
        dropped = []
        for stream, s in enumerate(self._streams):
            if s.deferred is not None:
                dropped.append((stream, s.deferred.chunk))
                s.deferred = None
        try:
            running = set(itertools.chain.from_iterable(self.client.processing().values()))
        except Exception:  # the scheduler is gone: every chunk is lost anyway
            running = set()
        chunks = {key: _chunk_of(key) for key in self._futures}
        first: dict[int, int] = {}  # stream -> its first chunk not started
        for key, (stream, chunk) in chunks.items():
            if key not in running:
                first[stream] = min(first.get(stream, chunk), chunk)
        waiting = [key for key, (s, c) in chunks.items() if c >= first.get(s, c + 1)]
        self._dropped.update(waiting)
        self._cancel([self._futures.pop(key) for key in waiting])
        return dropped + [_chunk_of(key) for key in waiting]

    def close(self) -> None:
        """Cancel what is left, and close the client (and the local cluster, if ours)."""
        if self.client is not None:
            self._dropped = set(self._futures)
            self._cancel(list(self._futures.values()))
            self._futures = {}
            if self._plugin and self.client.status == "running":
                with _quietly():
                    self.client.unregister_worker_plugin(self._plugin)
            self._plugin = ""
            with _quietly():
                self.client.close(timeout=CONNECT_SECONDS)
            self.client = None
        if self.cluster is not None:
            with _quietly():
                self.cluster.close(timeout=CONNECT_SECONDS)
            self.cluster = None

    # -- the rest ---------------------------------------------------------------------------------

    def dashboard(self) -> str | None:
        """The scheduler's dashboard link, or None when it has none."""
        if "dashboard" not in self.client.scheduler_info().get("services", {}):
            return None
        return self.client.dashboard_link

    def _fetch(self, futures: list[Future]) -> None:
        """Fetch done futures' results into the ready queue and hand each over; the first
        failed one raises (a future cancelled by someone else: the scheduler is gone)."""
        lost = [future for future in futures if future.status in LOST]
        for future in futures:
            if future.status not in ("finished", *LOST):
                raise self._explain(future, _failure(future))
        futures = [future for future in futures if future.status not in LOST]
        try:
            results = self.client.gather(futures)
        except OSError:  # a timeout: the worker holding a result left while it was fetched
            if self.client.status != "running":
                raise BackendError(f"lost the Dask scheduler at {self.address}") from None
            lost, futures, results = lost + futures, [], []
        except Exception as err:
            raise self._explain(futures[0], err) from None
        for future, result in zip(futures, results, strict=True):
            self._hand_over(future, result)
            self._ready.append(result)
        if lost:  # their worker left with their results: Dask runs them again on a worker
            for future in lost:  # (and _check_alive says when none comes back)
                future.add_done_callback(self._done.put)
            self._check_alive()

    def _hand_over(self, future: Future, result: Result) -> None:
        """Release a result's future; a stream whose latest chunk is back may submit the
        chunk it held back, from that chunk's state."""
        self._futures.pop(future.key, None)
        s = self._streams[result.stream]
        if s.tail is future:
            s.tail, s.state = None, result.state
            if s.deferred is not None:
                task, s.deferred = s.deferred, None
                self.submit(task)
        future.release()

    def _explain(self, future: Future, err: BaseException) -> BaseException:
        """The error a failed chunk means to a user: the cluster's problems as BackendError
        (one line), anything else (a bug in a chunk) as it is."""
        stream, chunk = _chunk_of(future.key)
        if isinstance(err, VersionMismatch):
            return BackendError(f"{self.where}: {err}; install the same bmn on every worker")
        if isinstance(err, KilledWorker):
            return BackendError(
                f"{self.where}: chunk {chunk} of stream {stream} was lost with every worker "
                "that ran it (out of memory?)"
            )
        if isinstance(err, (distributed.client.FutureCancelledError, OSError)) or (
            self.client.status != "running"
        ):
            return BackendError(f"lost the Dask scheduler at {self.address}")
        return err

    def _check_alive(self) -> None:
        """Raise BackendError when the scheduler is gone, or has had no worker too long
        (asking the scheduler at most once a second)."""
        if self.client.status != "running":
            raise BackendError(f"lost the Dask scheduler at {self.address}")
        if time.monotonic() - self._checked < 1.0:
            return
        self._checked = time.monotonic()
        try:
            workers = len(self.client.nthreads())
        except Exception:
            raise BackendError(f"lost the Dask scheduler at {self.address}") from None
        if workers:
            self._workerless_since = None
            return
        now = time.monotonic()
        self._workerless_since = self._workerless_since or now
        if now - self._workerless_since > NO_WORKERS_SECONDS:
            raise BackendError(
                f"the Dask cluster at {self.address} has had no worker for "
                f"{NO_WORKERS_SECONDS:.0f} s"
            )

    def _nthreads(self) -> dict[str, int]:
        """Each worker's threads, once at least one worker has joined."""
        try:
            self.client.wait_for_workers(1, timeout=WORKERS_SECONDS)
        except TimeoutError:
            raise BackendError(
                f"no Dask worker joined the scheduler at {self.address} within "
                f"{WORKERS_SECONDS:g} s: start them with `dask worker {self.address}`"
            ) from None
        return self.client.nthreads()

    def _check_versions(self) -> None:
        """Refuse a cluster one of whose workers runs another bmn, or none."""
        self._nthreads()
        found = self.client.run(_worker_version, on_error="return")
        for worker, version in sorted(found.items()):
            if isinstance(version, BaseException):
                raise BackendError(
                    f"worker {worker} of {self.where} cannot run bmn ({version}): "
                    f"install bmn {self.version} there"
                )
            if version != self.version:
                raise BackendError(
                    f"worker {worker} of {self.where} runs bmn {version}, this is bmn "
                    f"{self.version}: install the same version on every worker"
                )

    def _cancel(self, futures: list[Future]) -> None:
        if futures and self.client is not None and self.client.status == "running":
            with _quietly():
                self.client.cancel(futures)


def connect(address: str, seconds: float) -> Client:
    """A client of the scheduler at `address`; BackendError within `seconds` if none answers.

    A handshake comes first, on a thread of its own under a deadline: Dask's client waits
    without end for the handshake of a server that never sends one (a dashboard's port)."""
    try:
        _listening(address, seconds)
        with ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, _handshake(address, seconds)).result()
        return Client(address, timeout=seconds, set_as_default=False)
    except TimeoutError:
        reason = f"no Dask answer within {seconds:.0f} s (a scheduler listens on port 8786)"
    except OSError as err:  # refused, unreachable, unknown host: Dask retried until `seconds`
        reason = str(err).split("\n")[0] or type(err).__name__
    except Exception:
        reason = "what answers there is not a Dask scheduler"
    raise BackendError(f"cannot reach a Dask scheduler at {address}: {reason}")


def _listening(address: str, seconds: float) -> None:
    """Refused at once where nothing listens (Dask would retry a refused connection until
    its time-out, and then call it one): a TCP connection to a tcp:// or tls:// address."""
    scheme, _, rest = address.rpartition("://")
    host, _, port = rest.rpartition(":")
    if scheme not in ("", "tcp", "tls") or not port.isdecimal():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
    except ConnectionRefusedError:
        raise OSError(f"connection refused: nothing listens on port {port} of {host}") from None


async def _handshake(address: str, seconds: float) -> None:
    args = distributed.security.Security().get_connection_args("client")
    connecting = distributed.comm.connect(address, seconds, **args)
    comm = await asyncio.wait_for(connecting, seconds + 1.0)  # Dask's own timeout first
    await comm.close()


def read_scheduler_file(path: str) -> str:
    """The address a scheduler file (`dask scheduler --scheduler-file PATH`) names."""
    try:
        address = json.loads(Path(path).read_text())["address"]
        if not isinstance(address, str):
            raise TypeError(f"its address is {type(address).__name__}, not text")
        return address
    except FileNotFoundError:
        raise BackendError(
            f"no scheduler file at {path}: start the scheduler with "
            f"`dask scheduler --scheduler-file {path}` first"
        ) from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise BackendError(f"{path} is not a Dask scheduler file ({err})") from None


def start_local_cluster(workers: int | None) -> LocalCluster:
    """One-thread worker processes on this machine, every port on 127.0.0.1 only."""
    from bmn.search.backends.threads import default_workers

    _tracker_ignoring_hangups()
    try:
        return LocalCluster(
            n_workers=workers or default_workers(),
            threads_per_worker=1,
            processes=True,
            host=LOCAL_HOST,
            dashboard_address=f"{LOCAL_HOST}:{DASHBOARD_PORT if _free(DASHBOARD_PORT) else 0}",
            silence_logs=logging.ERROR,
            preload=["bmn.search.backends.worker_signals"],  # Ctrl-C: no worker tracebacks
        )
    except Exception as err:
        raise BackendError(f"cannot start a local Dask cluster: {err}") from None


def _tracker_ignoring_hangups() -> None:
    """Start multiprocessing's resource tracker with SIGHUP ignored: it ignores SIGINT and
    SIGTERM itself but not a hang-up, which would kill it (and fill stderr with its
    restarts' tracebacks) while the search checkpoints and stops."""
    import multiprocessing.resource_tracker
    import signal

    if not hasattr(signal, "SIGHUP"):
        return
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        multiprocessing.resource_tracker.ensure_running()
    finally:
        signal.signal(signal.SIGHUP, before)


def _free(port: int) -> bool:
    """Whether a port of 127.0.0.1 is free (Dask warns, and takes another, if it is not)."""
    with socket.socket() as probe:
        try:
            probe.bind((LOCAL_HOST, port))
        except OSError:
            return False
    return True


def _failure(future: Future) -> BaseException:
    """What a failed future raised; a cancelled one's error."""
    try:
        return future.exception(timeout=CONNECT_SECONDS) or RuntimeError(future.status)
    except BaseException as err:  # cancelled, or the scheduler is gone
        return err


def _count(n: int, thing: str) -> str:
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def _chunk_of(key: str) -> tuple[int, int]:
    """(stream, chunk) of a chunk's key."""
    *_, stream, chunk = key.split("-")
    return int(stream), int(chunk)


def quiet_logs() -> None:
    """Silence Dask's own log lines in this process (a lost scheduler logs its reconnection
    attempts): the run says what happened in one line of its own."""
    names = [name for name in logging.root.manager.loggerDict if name.startswith("distributed.")]
    for name in ["distributed", *names]:
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _quietly() -> contextlib.suppress:
    """Ignore the errors of a cleanup step: a cluster already gone has nothing to clean."""
    return contextlib.suppress(Exception)
