"""The one way every game's Monte Carlo command runs: executor, run store, progress, timing.

A command builds its manifest (what identifies the run) and calls its simulation inside
:func:`batch_run`::

    with batch_run(scheduler, workers, store, manifest, quiet=as_json) as run:
        stats = run_batch(chunk_fn, config, seed=seed, total=n, chunk_size=size,
                          stream="game.command", workers=workers, progress=not as_json,
                          **run.options())
    if run.store is not None:
        run.store.finish(frame, summary)

:func:`batch_run` picks the executor (a dask cluster's when a scheduler is given, else local
processes), opens the run's store so finished chunks are resumed and new ones saved as they
finish, times the simulation apart from the cluster's warm-up, and turns Ctrl-C into a one-line
message saying where the finished chunks are kept.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from simcards.core.errors import Interrupted
from simcards.core.store import RunStore, finished_chunks, store_root


@contextmanager
def stored_run(store_option: str | None, manifest: dict[str, Any]) -> Iterator[
        RunStore | None]:
    """Open the run's store (resuming finished chunks) and turn an interruption into a
    one-line message saying where the finished chunks are kept.

    A run that reused stored chunks says so on stderr in one line, with ``--json`` too: an
    answer read back from the store, rather than computed, should never pass silently.
    """
    root = store_root(store_option)
    store = RunStore(root, manifest) if root is not None else None
    try:
        yield store
    except KeyboardInterrupt:
        where = f"; {finished_chunks(store.computed + store.resumed)} kept in {store.path}, " \
            "run the same command again to resume" if store is not None else ""
        raise Interrupted(f"interrupted{where}") from None
    if store is not None and store.resumed:
        if store.was_complete and not store.computed:
            sys.stderr.write(f"the run was already complete: its result is read from the run "
                             f"store ({finished_chunks(store.resumed)} in {store.path})\n")
        else:
            sys.stderr.write(f"resumed {finished_chunks(store.resumed)} from {store.path}\n")


@contextmanager
def executor_for(scheduler: str | None, workers: int | None,
                 quiet: bool) -> Iterator[Any]:
    """The cluster's executor when a scheduler is given (option or environment), else None
    (local processes). dask is imported only in the first case. On a cluster ``workers`` is
    only a cap on the chunks in flight, and only when the user gave one: pass the option's raw
    value (None when absent), never the local core count, or a big cluster would be throttled
    to the client's cores."""
    from simcards.core.cluster import open_executor, scheduler_from_env  # imports no dask

    address = scheduler_from_env(scheduler)
    if address is None:
        yield None
        return
    with open_executor(address, workers) as ex:
        if not quiet:
            info = ex.info
            sys.stderr.write(f"cluster {info.address}: {info.workers} workers, warm-up "
                             f"{info.warmup_seconds:.2f} s\n")
        yield ex


def cluster_info(ex: Any, seconds: float) -> dict[str, Any]:
    """What a cluster run adds to its JSON: warm-up apart from simulation time."""
    if ex is None:
        return {}
    return {"cluster": {**ex.info.to_dict(), "simulation_seconds": seconds}}


@dataclass
class BatchRun:
    """Where one batch command runs (executor) and keeps its chunks (store), and how long the
    simulation itself took."""

    executor: Any
    store: RunStore | None
    seconds: float = 0.0

    def options(self) -> dict[str, Any]:
        """Keyword arguments for the runner: the executor and the store's resume hooks."""
        return {"executor": self.executor,
                **(self.store.batch_options() if self.store is not None else {})}

    def cluster_json(self) -> dict[str, Any]:
        return cluster_info(self.executor, self.seconds)


@contextmanager
def batch_run(scheduler: str | None, workers: int | None, store_option: str | None,
              manifest: dict[str, Any], quiet: bool) -> Iterator[BatchRun]:
    """:func:`executor_for` and :func:`stored_run` together, timing what runs inside."""
    with executor_for(scheduler, workers, quiet) as ex, \
            stored_run(store_option, manifest) as st:
        run = BatchRun(ex, st)
        t0 = time.perf_counter()
        yield run
        run.seconds = time.perf_counter() - t0
