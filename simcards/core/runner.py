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
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing import get_context
from typing import Any

import numpy as np

from simcards.core.errors import UsageError
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


def check_workers(workers: int | None) -> int:
    if workers is None:
        return default_workers()
    if workers < 1:
        raise UsageError(f"workers must be at least 1, got {workers}")
    return workers


def plan_chunks(total: int, chunk_size: int) -> list[int]:
    """Sizes of the chunks of a batch: all ``chunk_size`` but a shorter last one."""
    if total < 1:
        raise UsageError(f"the number of deals must be positive, got {total}")
    if chunk_size < 1:
        raise UsageError(f"chunk size must be positive, got {chunk_size}")
    full, rest = divmod(total, chunk_size)
    return [chunk_size] * full + ([rest] if rest else [])


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
    """Run one chunk from its own stream (module-level, so it pickles by reference)."""
    state = chunk_state(chunk.seed, chunk.index, chunk.stream)
    return named_stats(chunk.fn(state, chunk.size, chunk.config))


def merge(parts: Sequence[Stats]) -> Stats:
    """Sum named statistics, name by name, in the order given; each keeps its dtype.

    Parts must carry the same names, shapes and dtypes: anything else means chunks of different
    runs were mixed, and is refused.
    """
    first = parts[0]
    out = {k: np.array(a, copy=True) for k, a in first.items()}
    for part in parts[1:]:
        if part.keys() != first.keys():
            raise ValueError(f"cannot merge statistics named {sorted(part)} into "
                             f"{sorted(first)}")
        for k, acc in out.items():
            a = part[k]
            if a.dtype != acc.dtype or a.shape != acc.shape:
                raise ValueError(f"cannot merge statistic {k!r}: {a.dtype}{list(a.shape)} into "
                                 f"{acc.dtype}{list(acc.shape)}")
            acc += a
    return out


class _Progress:
    """A progress bar on stderr that appears only once a run has taken more than a second."""

    def __init__(self, total: int, label: str, enabled: bool) -> None:
        self.total = total
        self.label = label
        self.enabled = enabled
        self.start = time.monotonic()
        self.done = 0
        self._bar = None
        self._task = None

    def advance(self, deals: int) -> None:
        self.done += deals
        if not self.enabled:
            return
        if self._bar is None and time.monotonic() - self.start > 1.0:
            from rich.console import Console

            console = Console(stderr=True)
            if not console.is_terminal:  # a log file gets no bar, only the answer
                self.enabled = False
                return
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                "[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), TimeRemainingColumn(),
                console=console, transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total)
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


@contextmanager
def local_executor(workers: int) -> Iterator[Executor | None]:
    """``None`` (run inline) for one worker, else a pool of fresh processes.

    Processes are spawned rather than forked: a forked child would inherit the parent's threads
    (a progress bar, a dask client) in an undefined state.
    """
    if workers == 1:
        yield None
        return
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"))
    try:
        yield pool
    finally:
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

    def chunks(self) -> list[Chunk]:
        sizes = plan_chunks(self.total, self.chunk_size)
        sid = stream_id(self.stream)
        return [Chunk(self.fn, self.config, self.seed, sid, i, n)
                for i, n in enumerate(sizes)]


ChunkKey = tuple[int, int]
"""(batch number, chunk index): the name of a chunk within one call of :func:`run_batches`."""


def run_batches(
    batches: Sequence[Batch],
    *,
    workers: int | None = None,
    progress: bool = False,
    label: str = "simulating",
    executor: Executor | None = None,
    done: dict[ChunkKey, Stats] | None = None,
    on_chunk: Callable[[ChunkKey, Stats], None] | None = None,
) -> list[Stats]:
    """Run every chunk of every batch on one pool; return each batch's merged statistics.

    ``done`` holds chunks already computed (a resumed run): they are not run again.
    ``on_chunk`` is called in the parent as each new chunk finishes (to save it).
    """
    plans = [b.chunks() for b in batches]
    sizes = {(b, c.index): c.size for b, plan in enumerate(plans) for c in plan}
    results: dict[ChunkKey, Stats] = {k: v for k, v in (done or {}).items() if k in sizes}
    todo = [(b, c) for b, plan in enumerate(plans) for c in plan if (b, c.index) not in results]
    bar = _Progress(sum(sizes.values()), label, progress)
    bar.advance(sum(sizes[k] for k in results))

    def finish(key: ChunkKey, stats: Stats) -> None:
        results[key] = stats
        if on_chunk is not None:
            on_chunk(key, stats)
        bar.advance(sizes[key])

    try:
        if executor is not None:
            _run_on(executor, todo, finish)
        else:
            with local_executor(check_workers(workers)) as pool:
                if pool is None:
                    for b, c in todo:
                        finish((b, c.index), run_chunk(c))
                else:
                    _run_on(pool, todo, finish)
    finally:
        bar.close()
    return [merge([results[(b, c.index)] for c in plan]) for b, plan in enumerate(plans)]


def run_batch(fn: ChunkFn, config: Any, *, seed: int, total: int, chunk_size: int,
              stream: str = "default", **options: Any) -> Stats:
    """One batch: see :func:`run_batches` for the options."""
    return run_batches([Batch(fn, config, seed, total, chunk_size, stream)], **options)[0]


def _run_on(executor: Executor, todo: list[tuple[int, Chunk]],
            finish: Callable[[ChunkKey, Stats], None]) -> None:
    """Submit the chunks, at most ``executor.max_in_flight`` at a time when it has that
    attribute (a cluster capped by ``--workers``), and finish each as it completes."""
    cap = getattr(executor, "max_in_flight", None) or len(todo)
    pending = iter(todo)
    futures: dict[Future, ChunkKey] = {}

    def submit_next() -> None:
        item = next(pending, None)
        if item is not None:
            b, c = item
            futures[executor.submit(run_chunk, c)] = (b, c.index)

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
