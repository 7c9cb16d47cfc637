"""Searches that choose each batch from the last one's numbers, run side by side on one pool.

A *plan* is a generator: it yields a :class:`StageRequest` (one batch, and the description its
store is keyed by), receives that batch's merged statistics, decides what to play next, and
finally returns its answer. A race that drops candidates between stages, a best-response
iteration, an equilibrium search and its certificate are all plans.

:func:`run_plans` keeps every plan's current stage in flight at once. As soon as one plan's
batch is merged it decides its next one, while the other plans' chunks keep the workers busy:
nothing waits for the slowest plan of a step, and a plan's own decisions (its solver, its
tables) overlap the others' games instead of leaving the cores idle.

The answers do not depend on this scheduling, bit for bit: a plan sees only its own batches,
and each batch's chunks are merged in chunk order whatever order they finish in
(:mod:`simcards.core.runner`). So the same seed gives the same answers for any number of
workers, any backend, and any mix of plans run together.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simcards.core.errors import Interrupted
from simcards.core.progress import Progress
from simcards.core.runner import (
    INLINE_SECONDS,
    Batch,
    Chunk,
    ChunkStore,
    InOrder,
    Stats,
    check_plan,
    chunk_size_at,
    in_flight_cap,
    local_executor,
    run_chunk,
    sigint_held,
)
from simcards.core.store import stage_stores


@dataclass(frozen=True)
class StageRequest:
    """What a plan needs run next: one batch, and the description its store is keyed by."""

    batch: Batch
    manifest: dict[str, Any]


Plan = Generator[StageRequest, Stats, Any]
"""Yields the stages it needs, receives each one's merged statistics, returns its answer."""


def run_plans(plans: Sequence[Plan], *, executor: Executor | None = None, workers: int = 1,
              store_for: Callable[[StageRequest], ChunkStore | None] | None = None,
              bar: Progress | None = None,
              on_request: Callable[[StageRequest], None] | None = None,
              kept_under: Path | None = None) -> list[Any]:
    """Run every plan to its end; return their answers in the order of ``plans``.

    Chunks run on ``executor``, else on a local pool of ``workers`` processes (one worker runs
    inline for its first second, as :func:`~simcards.core.runner.run_batches` does).
    ``store_for`` gives each stage the store that keeps its chunks (so a killed search resumes
    stage by stage); ``on_request`` sees each stage before it starts (a progress total, a
    label); ``bar`` counts the games. Ctrl-C ends the run with one line that says where the
    finished chunks are kept (``kept_under``)."""
    try:
        driver = _Driver(plans, store_for, bar or Progress(0, "", False), on_request)
        with ExitStack() as stack:
            pool = executor
            if pool is None:
                pool = stack.enter_context(local_executor(workers))
            if pool is None:
                pool = driver.run_inline(lambda: stack.enter_context(
                    local_executor(1, inline=False)))
            if pool is not None:
                driver.run_on(pool)
    except KeyboardInterrupt:
        where = f"; finished chunks kept under {kept_under}" if kept_under is not None else ""
        raise Interrupted(f"interrupted{where}, run the same command again to resume") from None
    return driver.answers()


def run_searches(plans: Sequence[Plan], *, label: Callable[[], str], progress: bool,
                 root: Path | None, executor: Executor | None = None, workers: int = 1,
                 still_to_ask: Callable[[], int] = lambda: 0) -> tuple[list[Any], int, int]:
    """:func:`run_plans` as a command runs it: each stage kept as its own run under ``root``
    (none when it is None), and one progress bar for all the plans, whose total is the games
    asked so far plus ``still_to_ask()`` (the most the plans may still ask, an estimate that
    only shrinks) and whose description is ``label()``. Returns the answers and how many chunks
    were resumed and computed."""
    bar = Progress(still_to_ask(), label(), progress)
    store_for, stores = stage_stores(root)
    asked = 0

    def on_request(request: StageRequest) -> None:
        nonlocal asked
        asked += request.batch.total
        bar.update(total=asked + still_to_ask(), label=label())

    try:
        answers = run_plans(plans, executor=executor, workers=workers, store_for=store_for,
                            bar=bar, on_request=on_request, kept_under=root)
    finally:
        bar.close()
    return answers, sum(s.resumed for s in stores), sum(s.computed for s in stores)


class _Stage:
    """One plan's batch in flight: its merger, its store, and the chunks not yet sent."""

    def __init__(self, plan: int, request: StageRequest, store: ChunkStore | None,
                 bar: Progress) -> None:
        batch = request.batch
        check_plan(batch.total, batch.chunk_size)
        self.plan, self.request, self.store = plan, request, store
        self.merged = InOrder(1)
        found = store.resume([batch]) if store is not None else {}
        done = {c for (b, c) in found if b == 0 and 0 <= c < batch.n_chunks}
        for c in sorted(done):
            self.merged.add((0, c), found[(0, c)])
            bar.skip(chunk_size_at(batch.total, batch.chunk_size, c))
        self.left = batch.n_chunks - len(done)
        self.unsent = self.left
        self.todo: Iterator[int] = (c for c in range(batch.n_chunks) if c not in done)

    def finish(self, chunk: Chunk, stats: Stats) -> None:
        if self.store is not None:
            self.store.save((0, chunk.index), chunk, stats)
        self.merged.add((0, chunk.index), stats)
        self.left -= 1

    def result(self) -> Stats:
        out = self.merged.acc[0]
        if out is None or self.merged.early:  # pragma: no cover - a bug, not a user error
            raise RuntimeError("some chunks were never merged")
        return out


class _Driver:
    def __init__(self, plans: Sequence[Plan],
                 store_for: Callable[[StageRequest], ChunkStore | None] | None,
                 bar: Progress, on_request: Callable[[StageRequest], None] | None) -> None:
        self.plans = list(plans)
        self.store_for, self.bar, self.on_request = store_for, bar, on_request
        self.active: list[_Stage] = []  # in the order they started
        self.done = [False] * len(self.plans)
        self.results: list[Any] = [None] * len(self.plans)
        for i in range(len(self.plans)):
            self._advance(i, None)

    def _advance(self, i: int, stats: Stats | None) -> None:
        """Send plan ``i`` its last stage's ``stats`` (None: start it) and take its next
        requests until one asks for chunks not yet computed, or the plan ends."""
        plan = self.plans[i]
        while True:
            try:
                request = next(plan) if stats is None else plan.send(stats)
            except StopIteration as stop:
                self.results[i], self.done[i] = stop.value, True
                return
            if self.on_request is not None:
                self.on_request(request)
            store = self.store_for(request) if self.store_for is not None else None
            stage = _Stage(i, request, store, self.bar)
            if stage.left > 0:
                self.active.append(stage)
                return
            stats = stage.result()  # every chunk was found in the store: go on at once

    def _next_chunk(self) -> tuple[_Stage, Chunk] | None:
        """The next chunk of the stage with the fewest chunks left to send (the oldest of
        those): a short stage ends soon and its plan decides its next one while the long ones
        keep the workers busy, so a search with many short stages is never left to run alone
        at the end, one chunk at a time, while the other cores idle."""
        best: _Stage | None = None
        for stage in self.active:
            if stage.unsent > 0 and (best is None or stage.unsent < best.unsent):
                best = stage
        if best is None:
            return None
        best.unsent -= 1
        return best, best.request.batch.chunk(next(best.todo))

    def _finished(self, stage: _Stage, chunk: Chunk, stats: Stats) -> None:
        stage.finish(chunk, stats)
        self.bar.advance(chunk.size)
        if stage.left == 0:
            self.active.remove(stage)
            self._advance(stage.plan, stage.result())

    def run_inline(self, make_pool: Callable[[], Executor | None]) -> Executor | None:
        """Run chunks in this process; after :data:`INLINE_SECONDS`, return a pool of one
        process (from ``make_pool``) for the rest, so that Ctrl-C is answered at once."""
        start = time.monotonic()
        while (item := self._next_chunk()) is not None:
            stage, chunk = item
            self._finished(stage, chunk, run_chunk(chunk))
            if time.monotonic() - start > INLINE_SECONDS and self.active:
                return make_pool()
        return None

    def run_on(self, pool: Executor) -> None:
        cap = in_flight_cap(pool)
        futures: dict[Future, tuple[_Stage, Chunk]] = {}

        def fill() -> None:
            while len(futures) < cap and (item := self._next_chunk()) is not None:
                # A submit may start a worker process: hold Ctrl-C until it has started.
                with sigint_held():
                    future = pool.submit(run_chunk, item[1])
                futures[future] = item

        try:
            fill()
            while futures:
                finished, _ = wait(futures, return_when=FIRST_COMPLETED)
                for fut in finished:
                    stage, chunk = futures.pop(fut)
                    self._finished(stage, chunk, fut.result())
                fill()
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise

    def answers(self) -> list[Any]:
        if not all(self.done):  # pragma: no cover - a bug, not a user error
            raise RuntimeError("a plan was left unfinished")
        return self.results
