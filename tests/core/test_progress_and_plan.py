"""Chunks are planned lazily and submitted a few at a time; every long run shows progress on
stderr (a plain line with rate and time left when stderr is not a terminal)."""

from __future__ import annotations

import re
from concurrent.futures import Executor, Future

import numpy as np
import psutil
import pytest
from toygame.deal_kernel import chunk as toy_chunk

from simcards.core import progress as progress_mod
from simcards.core.progress import Progress
from simcards.core.runner import Batch, plan_chunks, run_batch, run_batches


def test_a_batch_of_1e15_rounds_is_planned_without_listing_its_chunks() -> None:
    batch = Batch(toy_chunk, 2, 1, 10**15, 1 << 21, "plan")
    assert batch.n_chunks == 476_837_159
    first = next(iter(batch.chunks()))
    assert (first.index, first.size) == (0, 1 << 21)
    assert batch.chunk(batch.n_chunks - 1).size == 10**15 - (batch.n_chunks - 1) * (1 << 21)
    sizes = plan_chunks(10**15, 1 << 21)
    assert not isinstance(sizes, list) and next(sizes) == 1 << 21


class _CountingExecutor(Executor):
    """Runs each chunk when submitted, recording how many were in flight at most."""

    def __init__(self) -> None:
        self.open: list[Future] = []
        self.most = 0
        self.submitted = 0

    def submit(self, fn, /, *args, **kwargs) -> Future:
        fut: Future = Future()
        fut.set_result(fn(*args, **kwargs))
        self.open = [f for f in self.open if not getattr(f, "_seen", False)] + [fut]
        self.submitted += 1
        self.most = max(self.most, len(self.open))
        fut.add_done_callback(lambda f: setattr(f, "_seen", True))
        return fut


def test_a_huge_batch_is_submitted_a_few_chunks_at_a_time_and_stops_when_interrupted() -> None:
    ex = _CountingExecutor()
    ex._max_workers = 2  # sized like a local pool of two
    seen: list = []

    def stop_after_ten(key, _stats) -> None:
        seen.append(key)
        if len(seen) == 10:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_batches([Batch(toy_chunk, 2, 1, 10**15, 100, "huge")], executor=ex,
                    on_chunk=stop_after_ten)
    assert ex.submitted <= 10 + 8  # never the 1e13 chunks, only the next few


def test_an_interrupted_pool_leaves_no_worker_behind() -> None:
    me = psutil.Process()
    seen: list = []

    def stop_after_two(key, _stats) -> None:
        seen.append(key)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_batch(toy_chunk, 2, seed=1, total=10**12, chunk_size=20_000, stream="pool",
                  workers=2, on_chunk=stop_after_two)
    workers = [c for c in me.children(recursive=True)
               if c.is_running() and c.status() != psutil.STATUS_ZOMBIE
               and "resource_tracker" not in " ".join(c.cmdline())]
    assert workers == []


def test_results_merged_as_chunks_arrive_equal_a_merge_in_chunk_order() -> None:
    a = run_batch(toy_chunk, 3, seed=4, total=230_000, chunk_size=10_000, stream="m",
                  workers=1)
    b = run_batch(toy_chunk, 3, seed=4, total=230_000, chunk_size=10_000, stream="m",
                  workers=2)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def _count(text: str) -> float:
    scale = {"k": 1e3, "M": 1e6}.get(text[-1], 1.0)
    return float(text.rstrip("kM")) * scale


@pytest.fixture
def fast_clock(monkeypatch) -> list[float]:
    """progress.time.monotonic under the test's control."""
    now = [1000.0]
    monkeypatch.setattr(progress_mod.time, "monotonic", lambda: now[0])
    monkeypatch.setattr(progress_mod, "_stderr_is_terminal", lambda: False)
    return now


def test_progress_off_a_terminal_is_a_plain_line_every_ten_seconds(fast_clock, capsys) -> None:
    bar = Progress(600_000_000, "Ronco rounds")
    for _ in range(60):
        fast_clock[0] += 0.5
        bar.advance(2_000_000)
    bar.close()
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3  # at 2 s, 12 s and 22 s of a 30 s run
    assert lines[0] == "Ronco rounds: 8M/600M (1%), 4M/s, 2m 28s left"
    assert all(re.fullmatch(r"Ronco rounds: \S+/600M \(\d+%\), \S+/s, .* left", x)
               for x in lines)


def test_a_short_run_shows_no_progress(fast_clock, capsys) -> None:
    bar = Progress(10, "quick")
    for _ in range(10):
        fast_clock[0] += 0.1
        bar.advance(1)
    bar.close()
    assert capsys.readouterr().err == ""


def test_a_long_run_says_once_how_long_it_will_take_even_with_progress_off(
        fast_clock, capsys, monkeypatch) -> None:
    """After the first chunks, a run whose work left would take more than three minutes says
    so once on stderr, also where no progress is shown (a ``--json`` run of the command)."""
    monkeypatch.setattr(progress_mod, "_ESTIMATE_WHEN_QUIET", [True])
    bar = Progress(100_000, "Ronda matches", enabled=False)
    for _ in range(40):
        fast_clock[0] += 1.0
        bar.advance(100)  # 100 a second: at 5 s, 99,500 left take 16m 35s
    bar.close()
    assert capsys.readouterr().err.splitlines() == [
        "Ronda matches: about 17 minutes to go (100/s)"]


def test_a_run_of_a_few_minutes_or_a_quiet_python_call_gives_no_estimate(fast_clock, capsys,
                                                                        monkeypatch) -> None:
    monkeypatch.setattr(progress_mod, "_ESTIMATE_WHEN_QUIET", [True])
    short = Progress(15_000, "short", enabled=False)  # 2m 30s at 100 a second
    quiet = Progress(100_000, "quiet", enabled=False)
    for _ in range(20):
        fast_clock[0] += 1.0
        short.advance(100)
    monkeypatch.setattr(progress_mod, "_ESTIMATE_WHEN_QUIET", [False])
    for _ in range(20):
        fast_clock[0] += 1.0
        quiet.advance(100)
    assert capsys.readouterr().err == ""


def test_a_json_run_of_the_command_gives_the_estimate_on_stderr_and_the_same_stdout(
        capsys, monkeypatch) -> None:
    from simcards.core.cli import main

    args = ["ronco", "rounds", "--rounds", "3M", "--json", "--workers", "1", "--store", "none"]
    assert main(args) == 0
    plain = capsys.readouterr()
    assert "to go" not in plain.err
    monkeypatch.setattr(progress_mod, "ESTIMATE_AFTER", 0.0)
    monkeypatch.setattr(progress_mod, "ESTIMATE_OVER", -1.0)  # any run counts as long
    assert main(args) == 0
    estimated = capsys.readouterr()
    assert estimated.out == plain.out
    lines = [x for x in estimated.err.splitlines() if "to go" in x]
    assert len(lines) == 1 and re.fullmatch(r"Ronco rounds: about \S+ .*to go \(\S+/s\)", lines[0])


def test_best_threshold_shows_one_overall_progress_not_one_per_stage(monkeypatch,
                                                                   capsys) -> None:
    from simcards.ronco import best_threshold_batch as bt
    from simcards.ronco.policies import Policy
    from simcards.ronco.rules import RoncoRules

    monkeypatch.setattr(progress_mod, "_stderr_is_terminal", lambda: False)
    monkeypatch.setattr(progress_mod, "SHOW_AFTER", 0.0)
    monkeypatch.setattr(progress_mod, "FIRST_LINE", 0.0)
    monkeypatch.setattr(progress_mod, "LINE_EVERY", 0.0)
    made: list = []
    real_init = Progress.__init__

    def counting_init(self, *args, **kwargs):
        made.append(args)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(Progress, "__init__", counting_init)
    opts = {"seed": 3, "first_stage": 1024, "max_games": 4096, "z_drop": 3.0,
            "max_iterations": 1, "gain_games": 2048, "min_games": 2048}
    bt.search(RoncoRules.make(), [3, 4], 2, "threshold", Policy("threshold", 5, 5), opts,
              workers=1, root=None, progress=True)
    assert len(made) == 1  # one bar for the whole search
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) > 3 and all(x.startswith("best-threshold, ") for x in lines)
    done = [_count(re.search(r": (\S+)/", x).group(1)) for x in lines]
    assert done == sorted(done)
    assert "2 of 2 table sizes done" not in lines[0]
