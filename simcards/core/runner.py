"""The batch runner: work split into seeded chunks, run anywhere, merged in chunk order.

A batch of ``total`` deals is cut into chunks of ``chunk_size`` whatever the number of workers;
chunk ``c`` draws from the stream ``chunk_state(seed, c, stream)``. Each chunk returns *named*
sufficient statistics (a NamedTuple or a mapping of name -> int64 or float64 array); the runner
sums them name by name in chunk order. So the result depends only on (seed, stream, total,
chunk_size), never on the worker count or on which worker ran which chunk.

Streams are named, not numbered by hand: :func:`stream_id` turns a name such as
``"ronco.best-threshold.stage"`` into a stable integer, so two studies can never pick the same
stream by accident.

Chunks run inline for one worker and in a process pool otherwise; any
:class:`concurrent.futures.Executor` can be passed instead (a dask cluster's, for example).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any, Protocol

import numpy as np

from simcards.core.errors import UsageError, caused_by_interrupt
from simcards.core.interrupts import stop_processes
from simcards.core.progress import Progress, as_progress
from simcards.core.rng import chunk_state

Stats = dict[str, np.ndarray]
"""Named sufficient statistics: the merged result of a batch, and what the store keeps."""
ChunkFn = Callable[[np.ndarray, int, Any], Any]
"""``fn(state, size, config)``: returns a NamedTuple or a mapping of named arrays."""

MERGEABLE = (np.dtype(np.int64), np.dtype(np.uint64), np.dtype(np.float64))
"""The only dtypes a chunk may return: 64-bit counts add exactly (no overflow at any batch size
this package allows), float64 sums add in a fixed order. Booleans and 32-bit integers are
refused rather than silently widened or wrapped."""


def stream_id(name: str) -> int:
    """A stable stream number for ``name``: the first 8 bytes of its SHA-256, as an integer.

    Stable across processes, machines and Python versions (unlike ``hash()``), and spread over
    2**64 values, so distinct names do not collide in practice.
    """
    import hashlib

    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")


def named_stats(raw: Any) -> Stats:
    """A chunk's return value as named arrays, checked to be mergeable exactly."""
    if hasattr(raw, "_asdict"):
        items = raw._asdict()
    elif isinstance(raw, dict):
        items = raw
    else:
        raise TypeError(f"a chunk must return named statistics (a NamedTuple or a dict), got "
                        f"{type(raw).__name__}")
    out: Stats = {}
    for name, value in items.items():
        a = np.asarray(value)
        if a.dtype not in MERGEABLE:
            raise TypeError(f"statistic {name!r} has dtype {a.dtype}: only int64, uint64 and "
                            f"float64 can be merged exactly")
        out[str(name)] = a
    return out


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


MAX_WORKERS = 1024
"""The most worker processes ``--workers`` may ask for. On one machine more processes than
cores only share them; the bound stops a typing slip (an extra zero, a pasted number) from
reaching the operating system as an impossible request. On a cluster it is a cap."""


WORKER_MEMORY = 180 * 2**20
"""About what one local worker process holds (resident): the interpreter, numpy, numba and
the loaded kernels; measured at 180 MB for Ronco's rounds and Ronda's hands."""


def total_memory() -> int | None:
    """This machine's physical memory in bytes (None where it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


def memory_workers() -> int | None:
    """The most local workers this machine's memory holds at :data:`WORKER_MEMORY` each, with
    room for the process that leads them (None where memory cannot be read)."""
    total = total_memory()
    return None if total is None else max(1, total // WORKER_MEMORY - 1)


def check_workers(workers: int | None, *, local: bool = False) -> int:
    """``--workers`` checked: 1 .. :data:`MAX_WORKERS`; with ``local`` (the workers are
    processes of this machine, not a cluster's, where ``--workers`` only caps the chunks in
    flight) also no more than the machine's memory holds (:func:`memory_workers`): a
    thousand workers would exhaust it and fail at random, or freeze the machine, long after
    the command started. The default, every core, is held to that number too."""
    most = memory_workers() if local else None
    if workers is None:
        cores = default_workers()
        return cores if most is None else min(cores, most)
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    if workers > MAX_WORKERS:
        raise UsageError(f"--workers must be at most {MAX_WORKERS}, got {workers}")
    if most is not None and workers > most:
        gib = (total_memory() or 0) / 2**30
        raise UsageError(f"--workers {workers} needs about {workers * WORKER_MEMORY / 2**30:.0f} "
                         f"GiB of memory ({WORKER_MEMORY // 2**20} MB a worker) and this "
                         f"machine has {gib:.0f} GiB: use at most --workers {most}")
    return workers


def check_plan(total: int, chunk_size: int) -> None:
    if total < 1:
        raise UsageError(f"the number of deals must be positive, got {total}")
    if chunk_size < 1:
        raise UsageError(f"chunk size must be positive, got {chunk_size}")


def chunk_count(total: int, chunk_size: int) -> int:
    """How many chunks a batch of ``total`` deals has: arithmetic, nothing is listed."""
    check_plan(total, chunk_size)
    return -(-total // chunk_size)


def chunk_size_at(total: int, chunk_size: int, index: int) -> int:
    """The size of chunk ``index``: ``chunk_size``, but the last one may be shorter."""
    return min(chunk_size, total - index * chunk_size)


def plan_chunks(total: int, chunk_size: int) -> Iterator[int]:
    """Sizes of the chunks of a batch, lazily: all ``chunk_size`` but a shorter last one.

    A batch of 1e15 rounds has 5e8 chunks; they are produced one at a time, never listed."""
    n = chunk_count(total, chunk_size)
    return (chunk_size_at(total, chunk_size, i) for i in range(n))


@dataclass(frozen=True)
class Chunk:
    """One unit of work: everything a worker needs, and nothing that depends on the worker."""

    fn: ChunkFn
    config: Any
    seed: int
    stream: int
    """The stream number, :func:`stream_id` of the batch's stream name."""
    index: int
    size: int


def run_chunk(chunk: Chunk) -> Stats:
    """Run one chunk from its own stream (module-level, so it pickles by reference). A chunk
    function marked ``wants_origin = True`` is also told where its stream comes from,
    ``origin=(seed, index, stream)``: an engine whose chunks are finer than another's, playing
    the same deals, finds them so (a Python engine beside a compiled one)."""
    state = chunk_state(chunk.seed, chunk.index, chunk.stream)
    extra = ({"origin": (chunk.seed, chunk.index, chunk.stream)}
             if getattr(chunk.fn, "wants_origin", False) else {})
    try:
        return named_stats(chunk.fn(state, chunk.size, chunk.config, **extra))
    except SystemError as exc:  # a Ctrl-C inside a numba call: say it is one
        if caused_by_interrupt(exc):
            raise KeyboardInterrupt from None
        raise


def merge(parts: Sequence[Stats]) -> Stats:
    """Sum named statistics, name by name, in the order given; each keeps its dtype.

    Parts must carry the same names, shapes and dtypes: anything else means chunks of different
    runs were mixed, and is refused.
    """
    first = parts[0]
    out = {k: np.array(a, copy=True) for k, a in first.items()}
    for part in parts[1:]:
        _merge_into(out, part)
    return out



def _worker_init(parent: int) -> None:
    """Set up a pool process: Ctrl-C is the parent's to handle (a terminal sends it to the
    whole process group; a worker that took it would print a traceback and could wedge the
    pool), and a worker whose parent has gone (killed, say) exits instead of lingering."""
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="simcards-parent-watch", daemon=True).start()


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with its stderr on the null device.

    The tracker is a helper process that outlives an interrupted run by a moment; when the
    workers were stopped mid-chunk it may warn about semaphores it can no longer unlink. Those
    warnings would break the one-line promise of Ctrl-C and say nothing a user can act on. The
    tracker takes the stderr it is started with, so it is started here, once, with a quiet one.
    """
    from multiprocessing import resource_tracker

    if getattr(resource_tracker._resource_tracker, "_pid", None) is not None:
        return
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        resource_tracker.ensure_running()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _quiet_pool_threads() -> None:
    """From now on, errors of a stopped pool's own threads (its manager and queue feeder, which
    find their pipes closed under them) are not printed: they would follow the one-line
    message of an interruption with a traceback that says nothing to act on. Errors of any
    other thread still reach the previous hook."""
    import threading
    from concurrent.futures.process import _ExecutorManagerThread

    previous = threading.excepthook
    if getattr(previous, "_simcards_quiet", False):
        return

    def hook(args: threading.ExceptHookArgs) -> None:
        thread = args.thread
        if isinstance(thread, _ExecutorManagerThread) or (
                thread is not None and thread.name.startswith("QueueFeederThread")):
            return
        previous(args)

    hook._simcards_quiet = True  # type: ignore[attr-defined]
    threading.excepthook = hook


STOP_GRACE_S = 0.4
"""Seconds a terminated worker is given to end before it is killed."""


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a process pool now: end the worker processes (terminated, killed after
    :data:`STOP_GRACE_S`), then cancel what has not started (a chunk in flight is lost; its
    result would be thrown away anyway).

    The workers are ended first and directly, whatever they are doing (computing, or waiting
    on the pool's queue lock or pipe), so that nothing here waits on the pool's own threads;
    a further Ctrl-C meanwhile is dropped, as one that stopped this half way would leave
    workers running for the interpreter's exit to wait on."""
    _quiet_pool_threads()
    with _sigint_dropped():
        procs = list((getattr(pool, "_processes", None) or {}).values())
        for proc in procs:
            with suppress(Exception):
                proc.terminate()
        with suppress(Exception):
            pool.shutdown(wait=False, cancel_futures=True)
        stop_processes(procs, STOP_GRACE_S)  # terminated again: harmless, and then reaped


@contextmanager
def local_executor(workers: int, *, inline: bool = True) -> Iterator[Executor | None]:
    """``None`` (run inline) for one worker (unless ``inline`` is false), else a pool of fresh
    processes.

    Processes are spawned rather than forked: a forked child would inherit the parent's threads
    (a progress bar, a dask client) in an undefined state. When the block ends by an exception
    (Ctrl-C among others) the workers are stopped at once rather than waited for, so nothing
    outlives an interrupted run.
    """
    if workers == 1 and inline:
        yield None
        return
    _quiet_resource_tracker()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                               initializer=_worker_init, initargs=(os.getpid(),))
    try:
        yield pool
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True, cancel_futures=True)


@dataclass(frozen=True)
class Batch:
    """A batch of ``total`` deals of one configuration, cut into chunks of ``chunk_size``."""

    fn: ChunkFn
    config: Any
    seed: int
    total: int
    chunk_size: int
    stream: str = "default"
    """The name of the batch's random stream (see :func:`stream_id`): batches that must not
    share random numbers have different names, those that must (common random numbers) the
    same."""

    @property
    def n_chunks(self) -> int:
        return chunk_count(self.total, self.chunk_size)

    def chunk(self, index: int) -> Chunk:
        """Chunk ``index`` of the batch, made on demand."""
        return Chunk(self.fn, self.config, self.seed, stream_id(self.stream), index,
                     chunk_size_at(self.total, self.chunk_size, index))

    def chunks(self) -> Iterator[Chunk]:
        """Every chunk, in order, one at a time (never a list: a batch may have 5e8)."""
        return (self.chunk(i) for i in range(self.n_chunks))


ChunkKey = tuple[int, int]
"""(batch number, chunk index): the name of a chunk within one call of :func:`run_batches`."""


class ChunkStore(Protocol):
    """Where a :func:`run_batches` call keeps its finished chunks (see
    :class:`simcards.core.store.RunStore`)."""

    def resume(self, batches: Sequence[Batch]) -> dict[ChunkKey, Stats]:
        """The chunks of ``batches`` already finished, checked to be theirs."""
        ...

    def save(self, key: ChunkKey, chunk: Chunk, stats: Stats) -> None:
        """Keep one newly finished chunk."""
        ...


class InOrder:
    """Merges each batch's chunks in chunk order as they arrive in any order, holding only the
    ones that arrived early: the sum is the same, bit for bit, as merging a full list."""

    def __init__(self, n_batches: int) -> None:
        self.acc: list[Stats | None] = [None] * n_batches
        self.next = [0] * n_batches
        self.early: dict[ChunkKey, Stats] = {}

    def add(self, key: ChunkKey, stats: Stats) -> None:
        self.early[key] = stats
        b = key[0]
        while (b, self.next[b]) in self.early:
            part = self.early.pop((b, self.next[b]))
            acc = self.acc[b]
            self.acc[b] = merge([part]) if acc is None else _merge_into(acc, part)
            self.next[b] += 1


def _merge_into(acc: Stats, part: Stats) -> Stats:
    if part.keys() != acc.keys():
        raise ValueError(f"cannot merge statistics named {sorted(part)} into {sorted(acc)}")
    for k, a in acc.items():
        x = part[k]
        if x.dtype != a.dtype or x.shape != a.shape:
            raise ValueError(f"cannot merge statistic {k!r}: {x.dtype}{list(x.shape)} into "
                             f"{a.dtype}{list(a.shape)}")
        a += x
    return acc


IN_FLIGHT_PER_WORKER = 4
"""Chunks submitted ahead per worker: enough to keep every worker busy, few enough that a
batch of any size costs no memory for its queue and an interruption loses little."""


def in_flight_cap(executor: Executor) -> int:
    cap = getattr(executor, "max_in_flight", None)
    if cap:
        return int(cap)
    workers = getattr(executor, "_max_workers", None)
    info = getattr(executor, "info", None)
    if workers is None and info is not None:
        workers = getattr(info, "workers", None)
    return IN_FLIGHT_PER_WORKER * max(int(workers or default_workers()), 1)


def run_batches(
    batches: Sequence[Batch],
    *,
    workers: int | None = None,
    progress: bool | Progress = False,
    label: str = "simulating",
    executor: Executor | None = None,
    store: ChunkStore | None = None,
    done: dict[ChunkKey, Stats] | None = None,
    on_chunk: Callable[[ChunkKey, Stats], None] | None = None,
) -> list[Stats]:
    """Run every chunk of every batch on one pool; return each batch's merged statistics.

    Chunks are planned lazily and submitted a few per worker at a time, so a batch of any size
    costs no memory up front. ``store`` (or the lower-level ``done``, chunks already computed,
    and ``on_chunk``, called in the parent as each new chunk finishes) resumes and keeps them.
    ``progress`` is a flag, or a :class:`~simcards.core.progress.Progress` shared with other
    calls (whose total its owner keeps).
    """
    for b in batches:
        check_plan(b.total, b.chunk_size)
    found: dict[ChunkKey, Stats] = dict(done or {})
    if store is not None:
        found.update(store.resume(batches))
    found = {k: v for k, v in found.items()
             if 0 <= k[0] < len(batches) and 0 <= k[1] < batches[k[0]].n_chunks}
    bar, own_bar = as_progress(progress, sum(b.total for b in batches), label)
    merged = InOrder(len(batches))
    bar.skip(sum(chunk_size_at(batches[b].total, batches[b].chunk_size, c) for b, c in found))
    resumed = set(found)
    for key in sorted(resumed):
        merged.add(key, found.pop(key))
    todo = ((b, batch.chunk(c)) for b, batch in enumerate(batches)
            for c in range(batch.n_chunks) if (b, c) not in resumed)

    def finish(item: tuple[int, Chunk], stats: Stats) -> None:
        b, chunk = item
        if store is not None:
            store.save((b, chunk.index), chunk, stats)
        if on_chunk is not None:
            on_chunk((b, chunk.index), stats)
        merged.add((b, chunk.index), stats)
        bar.advance(chunk.size)

    try:
        if executor is not None:
            _run_on(executor, todo, finish)
        else:
            with local_executor(check_workers(workers, local=True)) as pool:
                if pool is None:
                    _run_inline_then_apart(todo, finish)
                else:
                    _run_on(pool, todo, finish)
    finally:
        if own_bar:
            bar.close()
    out = merged.acc
    if any(a is None for a in out) or merged.early:  # pragma: no cover - a bug, not a user error
        raise RuntimeError("some chunks were never merged")
    return [a for a in out if a is not None]


INLINE_SECONDS = 1.0
"""How long one worker runs chunks in the calling process before moving to a process of its
own: a numba call cannot be interrupted, so a long run computes apart and Ctrl-C is answered at
once, while a short one (most tests) pays no process start."""


def _run_inline_then_apart(todo: Iterator[tuple[int, Chunk]],
                           finish: Callable[[tuple[int, Chunk], Stats], None]) -> None:
    start = time.monotonic()
    for item in todo:
        finish(item, run_chunk(item[1]))
        if time.monotonic() - start > INLINE_SECONDS:
            break
    else:
        return
    with local_executor(1, inline=False) as pool:
        assert pool is not None
        _run_on(pool, todo, finish)


def run_batch(fn: ChunkFn, config: Any, *, seed: int, total: int, chunk_size: int,
              stream: str = "default", **options: Any) -> Stats:
    """One batch: see :func:`run_batches` for the options."""
    return run_batches([Batch(fn, config, seed, total, chunk_size, stream)], **options)[0]


@contextmanager
def sigint_held() -> Iterator[None]:
    """Hold Ctrl-C for the length of the block, then act on it.

    In the main thread only (elsewhere, nothing changes): SIGINT is recorded rather than raised
    by this process (whichever of its threads takes it), and blocked in the main thread, so a
    process started inside the block inherits it blocked and never sees a Ctrl-C meant for
    the whole process group. A Ctrl-C that came in the meantime is handed, once the block
    ends, to the handler that was in place (Python's raises ``KeyboardInterrupt``; the
    command's also ignores any later one), and dropped if Ctrl-C was being ignored.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        signal.signal(signal.SIGINT, previous)
    if caught and previous is not signal.SIG_IGN:
        if callable(previous):  # the handler that was in place answers it (Python's raises)
            previous(signal.SIGINT, None)
        else:
            raise KeyboardInterrupt


@contextmanager
def _sigint_dropped() -> Iterator[None]:
    """Ignore Ctrl-C for the length of the block (main thread only): for a shutdown that must
    run to its end once it has begun."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _run_on(executor: Executor, todo: Iterator[tuple[int, Chunk]],
            finish: Callable[[tuple[int, Chunk], Stats], None]) -> None:
    """Submit the chunks, a bounded number at a time (``executor.max_in_flight`` when it has
    that attribute, else a few per worker), and finish each as it completes."""
    cap = in_flight_cap(executor)
    futures: dict[Future, tuple[int, Chunk]] = {}

    def submit_next() -> None:
        item = next(todo, None)
        if item is not None:
            # A submit may start a worker process: a Ctrl-C in the middle would leave it to
            # die reading its start-up data, with a traceback. Hold the signal until the start
            # is done (the held mask is inherited, so the worker never sees it either).
            with sigint_held():
                future = executor.submit(run_chunk, item[1])
            futures[future] = item

    try:
        for _ in range(cap):
            submit_next()
        while futures:
            done, _ = wait(futures, return_when=FIRST_COMPLETED)
            for fut in done:
                finish(futures.pop(fut), fut.result())
                submit_next()
    except BaseException:
        for fut in futures:
            fut.cancel()
        raise
