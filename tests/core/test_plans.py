"""Searches run side by side (core/plans.py): each one's answer is what it gives alone, for any
number of workers, and a search stopped and started again resumes stage by stage."""

from __future__ import annotations

from collections.abc import Generator
from concurrent.futures import Executor, Future
from typing import Any

import numpy as np
from toygame.deal_kernel import chunk as toy_chunk

from simcards.core.plans import StageRequest, run_plans
from simcards.core.runner import Batch, Stats, run_chunk
from simcards.core.store import stage_stores

CHUNK = 500


def _adaptive(name: str, stages: int, seed: int = 3) -> Generator[StageRequest, Stats, Any]:
    """A search that sizes each batch from the last one's numbers, as the races do: the next
    batch has one to four chunks, by the parity of the wins so far."""
    chunks, wins = 2, []
    for s in range(stages):
        batch = Batch(toy_chunk, 3, seed, chunks * CHUNK - 7, CHUNK, stream=f"{name}.{s}")
        stats = yield StageRequest(batch, {"game": "toy", "command": "plan-test",
                                           "search": name, "stage": s, "chunks": chunks})
        wins.append(stats["wins"].tolist())
        chunks = 1 + int(stats["wins"].sum()) % 4
    return wins


def _plans() -> list[Generator[StageRequest, Stats, Any]]:
    return [_adaptive("a", 5), _adaptive("b", 1), _adaptive("c", 3, seed=4), _adaptive("d", 4)]


def test_searches_run_together_give_what_each_gives_alone_for_any_worker_count() -> None:
    alone = [run_plans([p])[0] for p in _plans()]
    assert run_plans(_plans(), workers=1) == alone
    assert run_plans(_plans(), workers=2) == alone
    assert len({len(a) for a in alone}) == 4  # the searches have different lengths


class _Recording(Executor):
    """Runs each chunk when it is submitted and records the order, two in flight at most."""

    max_in_flight = 2

    def __init__(self) -> None:
        self.order: list[str] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future:
        chunk = args[0]
        self.order.append(f"{chunk.stream}:{chunk.index}")
        fut: Future = Future()
        fut.set_result(run_chunk(chunk))
        return fut


def test_a_short_stage_goes_first_so_its_search_never_waits_on_a_long_one() -> None:
    """A search of one long stage and one of many short stages: each short stage is sent as
    soon as the one before it is merged, not after the long stage's chunks."""
    long = Batch(toy_chunk, 3, 1, 40 * CHUNK, CHUNK, stream="long")

    def one_long() -> Generator[StageRequest, Stats, Any]:
        return (yield StageRequest(long, {"search": "long"}))

    def short_chain() -> Generator[StageRequest, Stats, Any]:
        total = 0
        for s in range(5):
            stats = yield StageRequest(Batch(toy_chunk, 3, 1, CHUNK, CHUNK, stream=f"short{s}"),
                                       {"search": "short", "stage": s})
            total += int(stats["wins"].sum())
        return total

    ex = _Recording()
    run_plans([one_long(), short_chain()], executor=ex)
    from simcards.core.runner import stream_id

    shorts = [ex.order.index(f"{stream_id(f'short{s}')}:0") for s in range(5)]
    assert shorts[-1] < 15, ex.order  # all five before most of the long stage's 40 chunks


def test_a_search_stopped_between_stages_resumes_from_its_stored_stages(tmp_path) -> None:
    store_for, stores = stage_stores(tmp_path)
    first = run_plans(_plans()[:2], workers=2, store_for=store_for)
    computed = sum(s.computed for s in stores)
    assert computed > 0 and sum(s.resumed for s in stores) == 0
    store_for, stores = stage_stores(tmp_path)
    again = run_plans(_plans()[:2], workers=2, store_for=store_for)
    assert again == first
    assert sum(s.computed for s in stores) == 0
    assert sum(s.resumed for s in stores) == computed


def test_each_stage_merges_its_chunks_in_chunk_order() -> None:
    """A stage's statistics are those of the same batch run alone."""
    from simcards.core.runner import run_batches

    batch = Batch(toy_chunk, 4, 9, 7 * CHUNK + 3, CHUNK, stream="order")

    def once() -> Generator[StageRequest, Stats, Any]:
        return (yield StageRequest(batch, {}))

    got = run_plans([once()], workers=2)[0]
    want = run_batches([batch], workers=1)[0]
    assert got.keys() == want.keys()
    assert all(np.array_equal(got[k], want[k]) for k in got)
