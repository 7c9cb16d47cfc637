"""The one way every game's Monte Carlo command runs: executor, run store, progress, timing.

A command checks its input, describes its work, and hands both to :func:`monte_carlo`::

    return monte_carlo(header, {"hands": total, "chunk_size": size},
                       lambda **options: simulate(rules, specs, total, seed=seed, **options),
                       answer=lambda res: {"hands": total, **res.to_dict()},
                       frame=hands_frame, summary=("points_mean", "hands"), seed=seed,
                       workers=workers, scheduler=scheduler, store=store, progress=progress)

which checks the seed and the worker count, runs the batch inside :func:`batch_run`, builds the
JSON and the result, and finishes the store.

:func:`batch_run` picks the executor (a dask cluster's when a scheduler is given, else local
processes), opens the run's store so finished chunks are resumed and new ones saved as they
finish, times the simulation apart from the cluster's warm-up, and turns Ctrl-C into a one-line
message saying where the finished chunks are kept.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from simcards.core.errors import Interrupted
from simcards.core.results import Result
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
    if store is not None:
        say_resumed(store.path, store.resumed, store.computed, store.was_complete)


def say_resumed(path: Path, resumed: int, computed: int, was_complete: bool) -> None:
    """The one line on stderr of a run that reused stored chunks (nothing when it reused none):
    every command that keeps its chunks says it alike, ``--json`` or not, since an answer read
    back from the store, rather than computed, should never pass silently."""
    if not resumed:
        return
    if was_complete and not computed:
        sys.stderr.write(f"the run was already complete: its result is read from the run "
                         f"store ({finished_chunks(resumed)} in {path})\n")
    else:
        sys.stderr.write(f"resumed {finished_chunks(resumed)} from {path}\n")


def runs_locally(scheduler: str | None) -> bool:
    """Whether a command given ``--scheduler scheduler`` runs its chunks in processes of this
    machine (no scheduler, as option or environment) rather than on a cluster."""
    from simcards.core.cluster import scheduler_from_env  # imports no dask

    return scheduler_from_env(scheduler) is None


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


def monte_carlo(header: dict[str, Any], size: dict[str, Any], simulate: Callable[..., Any], *,
                answer: Callable[[Any], dict[str, Any]], frame: Callable[[dict], pd.DataFrame],
                summary: Sequence[str], seed: int, workers: int | None,
                scheduler: str | None, store: str | None, progress: bool,
                shown_header: dict[str, Any] | None = None,
                stored_frame: Callable[[dict, Any], pd.DataFrame] | None = None) -> Result:
    """Run one Monte Carlo command whose input is checked and whose work is described: the
    one path every game's batch commands take.

    ``header`` says what the answer is about (game, command, rules, policies); with the seed
    and ``size`` (the count and the chunking) it is the run's manifest, which names its store.
    ``simulate(workers=, progress=, executor=, ...)`` runs the batch with the options of
    :func:`batch_run`; ``answer(raw)`` gives the figures of its JSON after the seed, ``frame``
    its table. The store keeps ``stored_frame(out, raw)`` (default: the table) and the
    ``summary`` keys. The JSON is ``shown_header`` (default ``header``), the seed, the
    answer, and on a cluster its timings."""
    from simcards.core.cli_options import check_seed
    from simcards.core.runner import check_workers
    from simcards.core.spawnsafe import main_not_reimported

    check_seed(seed)
    # On a cluster only a cap, if given; local workers must fit in memory.
    cap, workers = workers, check_workers(workers, local=runs_locally(scheduler))
    manifest = {**header, "seed": seed, **size}
    with main_not_reimported(), batch_run(scheduler, cap, store, manifest, not progress) as run:
        raw = simulate(workers=workers, progress=progress, **run.options())
    out = {**(header if shown_header is None else shown_header), "seed": seed, **answer(raw),
           **run.cluster_json()}
    result = Result(out, raw, frame)
    if run.store is not None:
        table = stored_frame(out, raw) if stored_frame is not None else frame(out)
        run.store.finish(table, {k: out[k] for k in summary})
    return result


def search_command(manifest: dict[str, Any], search: Callable[..., tuple[Any, int, int]], *,
                   answer: Callable[[Any], dict[str, Any]],
                   frame: Callable[[dict], pd.DataFrame],
                   summary: Callable[[dict], dict[str, Any]], seed: int,
                   workers: int | None, scheduler: str | None, store: str | None,
                   progress: bool,
                   stored_frame: Callable[[dict], pd.DataFrame] | None = None) -> Result:
    """Run one command that is a search (:mod:`simcards.core.plans`): the path of
    ``best-threshold`` and ``equilibrium``, as :func:`monte_carlo` is that of the batch commands.

    ``manifest`` names the run (its store folder holds every stage of the search, so a killed
    search resumes stage by stage). ``search(workers=, root=, progress=, executor=)`` returns
    ``(rows, chunks resumed, chunks computed)``; the JSON is the manifest, ``answer(rows)`` and
    on a cluster its timings; the store keeps ``stored_frame(out)`` (default: the table) and
    ``summary(out)``."""
    from simcards.core.cli_options import check_seed
    from simcards.core.runner import check_workers
    from simcards.core.spawnsafe import main_not_reimported

    check_seed(seed)
    # On a cluster only a cap, if given; local workers must fit in memory.
    cap, workers = workers, check_workers(workers, local=runs_locally(scheduler))
    root = store_root(store)
    top = RunStore(root, manifest) if root is not None else None
    if top is not None:
        top.create()  # the search's stages are kept inside its own folder
    with main_not_reimported(), executor_for(scheduler, cap, not progress) as ex:
        t0 = time.perf_counter()
        rows, resumed, computed = search(workers=workers,
                                         root=top.path / "stages" if top else None,
                                         progress=progress, executor=ex)
        seconds = time.perf_counter() - t0
    out = {**manifest, **answer(rows), **cluster_info(ex, seconds)}
    result = Result(out, rows, frame)
    if top is not None:
        say_resumed(top.path, resumed, computed, top.was_complete)
        top.resumed, top.computed = resumed, computed
        top.finish(stored_frame(out) if stored_frame is not None else result.to_frame(),
                   summary(out))
    return result
