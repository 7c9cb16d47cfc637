"""Run the batch runner's chunks on a dask distributed cluster.

The runner accepts any :class:`concurrent.futures.Executor`; this module supplies one backed by a
``distributed.Client`` and prepares the cluster's workers for numba kernels::

    from simcards.core.cluster import open_executor, scheduler_from_env

    with open_executor(scheduler_from_env(option), workers) as ex:
        result = simulate(rules, policies, rounds, seed=seed, workers=workers, executor=ex)
        if ex is not None:                  # a cluster: report its set-up cost on its own
            print(f"warm-up {ex.info.warmup_seconds:.2f} s")

With no scheduler the context manager yields ``None`` and the runner keeps its local process
pool; dask is then never imported, so a plain install without the ``cluster`` extra works.

With a scheduler address it yields a :class:`ClusterExecutor` whose ``info`` (a
:class:`ClusterInfo`) holds the warm-up wall time, measured apart from the simulation so that a
report can separate "compiling kernels on the workers" from "simulating".

Every worker, including one that joins or is restarted later, is prepared once by a worker
plugin: numba is pinned to one thread (dask already runs one task per worker thread, so a
parallel kernel would otherwise oversubscribe the cores), then each registered warm-up function
compiles or loads its kernels on a tiny batch, so no chunk pays for compilation.

A worker lost mid-run costs nothing but time: dask runs the lost worker's tasks again elsewhere,
and the runner merges chunks in chunk order, so the result is bit-identical.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from simcards.core.errors import UsageError
from simcards.core.registry import resolve

SCHEDULER_ENV = "SIMCARDS_SCHEDULER"
"""Environment variable naming the dask scheduler when no ``--scheduler`` option is given."""

CONNECT_TIMEOUT = 10.0
"""Seconds allowed to reach the scheduler: a wrong address fails well within half a minute."""

WORKER_TIMEOUT = 60.0
"""Seconds to wait for a first worker to be connected to the scheduler."""

PLUGIN_NAME = "simcards-worker-setup"
"""Name of the worker plugin on the scheduler; registering again replaces it."""


# --- warm-up registry (no dask needed) ----------------------------------------------------------

_WARMUPS: list[str] = []


def _reference(fn: Callable[[], object] | str) -> str:
    """``"module:qualname"`` of a warm-up function, checked to be importable by a worker.

    Workers get names rather than pickled functions: unpickling a function imports its module,
    which would import numba before the worker has been pinned to one thread.
    """
    if isinstance(fn, str):
        module, sep, name = fn.partition(":")
        if not (module and sep and name):
            raise ValueError(f"warm-up reference must look like 'package.module:function', "
                             f"got {fn!r}")
        return fn
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__qualname__", "")
    if not module or module == "__main__" or "<" in name:
        raise ValueError(f"warm-up {fn!r} must be a module-level function that workers can "
                         f"import by name")
    return f"{module}:{name}"


def register_warmup(fn: Callable[[], object] | str) -> Callable[[], object] | str:
    """Add a warm-up run on every cluster worker before any chunk; usable as a decorator.

    A warm-up takes no argument and calls its game's kernels on a tiny batch, so that numba
    compiles them (or loads them from its cache) once per worker instead of inside the first
    chunk each worker runs. Register before :func:`open_executor`; registering twice is a no-op.
    """
    ref = _reference(fn)
    if ref not in _WARMUPS:
        _WARMUPS.append(ref)
    return fn


def registered_warmups() -> tuple[str, ...]:
    """The warm-ups workers will run, as ``"module:function"`` names: every registered game's
    (see :mod:`simcards.core.registry`), then those added by :func:`register_warmup`."""
    from simcards.core.registry import all_warmups

    return tuple(dict.fromkeys([*all_warmups(), *_WARMUPS]))


# --- what runs on each worker -------------------------------------------------------------------


def pin_numba_threads() -> int:
    """Limit numba to one thread in this process; return the thread count numba will use.

    Setting ``NUMBA_NUM_THREADS`` before numba is imported fixes its pool size for good. If numba
    is already loaded, its configuration is re-read; if its threads were already launched that is
    impossible, and the calling thread is limited instead (``set_num_threads`` is per thread).
    """
    os.environ["NUMBA_NUM_THREADS"] = "1"
    if "numba" not in sys.modules:
        return 1
    import numba

    try:
        numba.config.reload_config()
    except RuntimeError:
        numba.set_num_threads(1)
        return int(numba.get_num_threads())
    return int(numba.config.NUMBA_NUM_THREADS)


def run_warmups(refs: tuple[str, ...]) -> dict[str, Any]:
    """Run every warm-up in this process; return what the client reports about the worker."""
    start = time.perf_counter()
    for ref in refs:
        resolve(ref)()
    seconds = time.perf_counter() - start
    threads = 1
    if "numba" in sys.modules:
        threads = int(sys.modules["numba"].config.NUMBA_NUM_THREADS)
    return {"warmup_seconds": seconds, "numba_threads": threads, "pid": os.getpid()}


def _worker_report(dask_worker: Any) -> dict[str, Any] | None:
    """The setup report of one worker (run there through ``Client.run``)."""
    plugin = dask_worker.plugins.get(PLUGIN_NAME)
    return getattr(plugin, "report", None)


_plugin_class: type | None = None


def _make_plugin_class() -> type:
    """Build the worker plugin class; it derives from dask's, so it exists only once dask does."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class WorkerSetup(WorkerPlugin):
        """Pin numba to one thread, then run the warm-ups, on every worker that joins.

        The pinning is done before the first ``await``, so before the worker can start a task;
        the warm-ups run in a helper thread so the worker keeps answering the scheduler while
        numba compiles.
        """

        idempotent = False

        def __init__(self, warmups: tuple[str, ...]) -> None:
            self.warmups = warmups
            self.report: dict[str, Any] | None = None

        async def setup(self, worker: Any) -> None:
            pin_numba_threads()
            loop = asyncio.get_running_loop()
            self.report = await loop.run_in_executor(None, run_warmups, self.warmups)

    WorkerSetup.__module__ = __name__
    WorkerSetup.__qualname__ = "WorkerSetup"
    return WorkerSetup


def __getattr__(name: str) -> Any:
    """``simcards.core.cluster.WorkerSetup``, created on first use so that importing needs no dask.

    Being a module attribute, the class pickles by reference and workers rebuild it the same way.
    """
    global _plugin_class
    if name == "WorkerSetup":
        if _plugin_class is None:
            _plugin_class = _make_plugin_class()
        return _plugin_class
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# --- the client side ----------------------------------------------------------------------------


def scheduler_from_env(option: str | None) -> str | None:
    """The scheduler to use: the command-line option, else ``$SIMCARDS_SCHEDULER``, else None.

    An empty value means "no cluster", so ``--scheduler ''`` overrides the environment.
    """
    value = option if option is not None else os.environ.get(SCHEDULER_ENV)
    if value is None or not value.strip():
        return None
    return value.strip()


@dataclass(frozen=True)
class ClusterInfo:
    """What the cluster looked like once ready, and what getting it ready cost.

    ``warmup_seconds`` is the wall time, seen from the client, of pinning and warming up every
    worker present at connection (they run in parallel): it is spent before the first chunk and
    is not part of the simulation time. ``worker_warmup_seconds`` is each worker's own figure.
    """

    address: str
    workers: int
    warmup_seconds: float
    worker_warmup_seconds: dict[str, float] = field(default_factory=dict)
    numba_threads: dict[str, int] = field(default_factory=dict)
    warmups: tuple[str, ...] = ()
    allowed_failures: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "scheduler": self.address,
            "workers": self.workers,
            "warmup_seconds": self.warmup_seconds,
            "worker_warmup_seconds": dict(self.worker_warmup_seconds),
            "numba_threads": dict(self.numba_threads),
            "warmups": list(self.warmups),
            "allowed_failures": self.allowed_failures,
        }


class ClusterExecutor(Executor):
    """The cluster's ``concurrent.futures`` executor, plus the client and :class:`ClusterInfo`.

    Tasks are submitted as impure (``pure=False``): every chunk gets a fresh key, so a cancelled
    earlier run of the same chunk can never be confused with this one, and no time is spent
    hashing chunk arguments. No retries or worker restrictions are set, so dask is free to rerun
    the chunks of a lost worker on the others.

    ``max_in_flight`` is the most chunks a caller should have submitted and not yet finished:
    the ``workers`` given to :func:`open_executor`, or ``None`` for no cap. The executor itself
    does not enforce it (dask queues whatever it is given and runs it on every worker it has);
    it is for the runner to honour.
    """

    max_in_flight: int | None
    """At most this many chunks in flight at once; ``None``: no cap (use the whole cluster)."""

    def __init__(self, client: Any, info: ClusterInfo, max_in_flight: int | None = None) -> None:
        if max_in_flight is not None and max_in_flight < 1:
            raise ValueError(f"max_in_flight must be at least 1 or None, got {max_in_flight}")
        self.client = client
        self.info = info
        self.max_in_flight = max_in_flight
        self._inner: Executor = client.get_executor(pure=False)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        return self._inner.submit(fn, *args, **kwargs)

    def map(self, fn: Callable[..., Any], *iterables: Any, timeout: float | None = None,
            chunksize: int = 1) -> Iterator[Any]:
        return self._inner.map(fn, *iterables, timeout=timeout)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._inner.shutdown(wait=wait and not cancel_futures)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _reason(exc: BaseException, timeout: float) -> str:
    """Why a connection failed, without repeating the address the message already names.

    A service there that is not a dask scheduler (a web server, say) answers bytes that dask
    reads as a frame header, which ends in an absurd allocation (``Unable to allocate 3.07
    EiB``) or another decoding error: that says nothing useful, so it is named for what it
    is."""
    if isinstance(exc, TimeoutError) or "Timed out trying to connect" in str(exc):
        return f"no answer within {timeout:g} s"
    if not isinstance(exc, OSError):
        return ("something answers there, but not as a dask scheduler (is the address or "
                "port right?)")
    return _one_line(exc)


def _check_address(address: str) -> None:
    """Reject a malformed address before a client exists.

    A ``distributed.Client`` that fails on a malformed address is left half started and hangs
    for 20 s at interpreter exit with a traceback, so the address is parsed here first.
    """
    from distributed.comm.addressing import parse_address
    from distributed.comm.registry import get_backend

    try:
        scheme, loc = parse_address(address, strict=False)
        backend = get_backend(scheme)
        if scheme in ("tcp", "tls", "ws", "wss"):
            _, port = backend.get_address_host_port(loc)
            if not 0 < int(port) < 65536:
                raise ValueError(f"port {port} out of range")
    except (ValueError, TypeError, AttributeError, NotImplementedError) as exc:
        raise UsageError(f"bad dask scheduler address {address!r}: {_one_line(exc)}") from None


def _probe(address: str, timeout: float) -> None:
    """Connect to the scheduler and complete dask's handshake within ``timeout`` seconds.

    ``Client`` waits for the handshake without a deadline, so a port held by a silent non-dask
    service would stall it for minutes; this probe runs in its own thread and event loop (the
    caller may have one running) and gives up in time.
    """
    from distributed.comm import connect
    from distributed.security import Security

    args = Security().get_connection_args("client")

    async def attempt() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=timeout, **args),
                                      timeout + 2.0)
        await comm.close()

    failure: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(attempt())
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=target, name="simcards-scheduler-probe", daemon=True)
    thread.start()
    thread.join(timeout + 5.0)
    if thread.is_alive():
        raise UsageError(f"cannot reach dask scheduler at {address}: no answer within "
                         f"{timeout:g} s")
    if failure:
        raise UsageError(f"cannot reach dask scheduler at {address}: "
                         f"{_reason(failure[0], timeout)}") from None


def _connect(address: str, timeout: float) -> Any:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError(f"running on the dask scheduler {address} needs dask.distributed: "
                         "pip install -e '.[cluster]' from the simcards clone") from None
    _check_address(address)
    _probe(address, timeout)
    from distributed import Client

    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot reach dask scheduler at {address}: "
                         f"{_reason(exc, timeout)}") from None


def _prepare(client: Any, address: str, worker_timeout: float) -> ClusterInfo:
    """Wait for a first worker, pin and warm up every worker there is, and say how long that
    took. The run uses the workers the cluster has; more may join later (they are prepared as
    they join), so there is no point in waiting for a given number."""
    try:
        client.wait_for_workers(1, timeout=worker_timeout)
    except TimeoutError:
        raise UsageError(f"dask scheduler at {address} has no worker; waited "
                         f"{worker_timeout:g} s for one") from None
    warmups = registered_warmups()
    plugin = __getattr__("WorkerSetup")(warmups)
    start = time.perf_counter()
    try:
        client.register_plugin(plugin, name=PLUGIN_NAME)
    except Exception as exc:
        raise UsageError(f"the workers of dask scheduler {address} could not be prepared "
                         f"({type(exc).__name__}: {_one_line(exc)}); do they have simcards "
                         f"installed?") from None
    warmup = time.perf_counter() - start
    reports = {addr: rep for addr, rep in client.run(_worker_report).items() if rep}
    try:
        allowed = client.run_on_scheduler(_allowed_failures)
    except Exception:  # the scheduler may refuse to run client code; the figure is optional
        allowed = None
    return ClusterInfo(
        address=str(client.scheduler.address),
        workers=len(reports),
        warmup_seconds=warmup,
        worker_warmup_seconds={a: float(r["warmup_seconds"]) for a, r in reports.items()},
        numba_threads={a: int(r["numba_threads"]) for a, r in reports.items()},
        warmups=warmups,
        allowed_failures=allowed,
    )


def _allowed_failures(dask_scheduler: Any) -> int:
    """How many worker deaths a task may live through before dask gives up on it."""
    return int(dask_scheduler.allowed_failures)


@contextmanager
def open_executor(
    scheduler: str | None,
    workers: int | None,
    *,
    connect_timeout: float = CONNECT_TIMEOUT,
    worker_timeout: float = WORKER_TIMEOUT,
) -> Iterator[ClusterExecutor | None]:
    """The executor to hand to the runner: ``None`` locally, a dask cluster's otherwise.

    ``scheduler=None`` yields ``None`` without importing dask; the runner then uses ``workers``
    local processes as usual. With an address (``tcp://host:8786``) this connects a client,
    waits (up to ``worker_timeout`` seconds) until at least one worker is connected, pins and
    warms up every worker the cluster has, and yields a :class:`ClusterExecutor`; its ``info``
    holds the number of workers and the warm-up time. ``workers`` does not make it wait for
    that many workers (the client's core count says nothing about the cluster): it is only a
    cap, the executor's ``max_in_flight`` (``None``: no cap). The client is closed on exit.
    A malformed, unreachable or silent address, a cluster without workers, or workers that
    cannot be prepared, raise :class:`~simcards.core.errors.UsageError` with a one-line message,
    the first three within about ``connect_timeout`` (``worker_timeout``) seconds.
    """
    if scheduler is None:
        yield None
        return
    if workers is not None and workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    client = _connect(scheduler, connect_timeout)
    try:
        info = _prepare(client, scheduler, worker_timeout)
        executor = ClusterExecutor(client, info, max_in_flight=workers)
        try:
            yield executor
        finally:
            executor.shutdown(wait=False)
    finally:
        client.close()
