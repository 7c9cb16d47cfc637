"""The dask cluster backend: same counts as a local run, bit for bit, even when a worker dies;
prepared workers; one-line errors for bad addresses; no dask import on the local path.

Everything runs on loopback: a two-process LocalCluster shared by the module.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")  # a dependency of distributed

from simcards.core import cluster as simcluster  # noqa: E402
from simcards.core.cluster import (  # noqa: E402
    ClusterExecutor,
    open_executor,
    register_warmup,
    registered_warmups,
    scheduler_from_env,
)
from simcards.core.errors import UsageError  # noqa: E402
from simcards.core.runner import run_batch  # noqa: E402
from simcards.ronco import rounds_batch as ronco_rounds  # noqa: E402
from simcards.ronco.policies import Policy  # noqa: E402
from simcards.ronco.rounds_batch import KernelConfig, rounds_chunk  # noqa: E402
from simcards.ronco.rules import RoncoRules  # noqa: E402
from tests.ronco.configs import CONFIGS, RANDOM_CONFIGS, Config  # noqa: E402

NO_DASHBOARD = "127.0.0.1:0"
"""Where test clusters put the scheduler's HTTP server: any free loopback port.
``dashboard_address=None`` does not turn it off; the scheduler then takes port 8787, warns
"Port 8787 is already in use" whenever another cluster holds it, and holds it itself."""


def _children() -> set[psutil.Process]:
    """This process's descendants, less multiprocessing's resource tracker: started once with
    the first spawned process, it ends with this process."""
    found = set()
    for proc in psutil.Process().children(recursive=True):
        try:
            if "multiprocessing.resource_tracker" not in " ".join(proc.cmdline()):
                found.add(proc)
        except psutil.NoSuchProcess:
            pass
    return found


@contextmanager
def loopback_cluster(**kwargs) -> Iterator[distributed.LocalCluster]:
    """A LocalCluster on loopback without a fixed port, closed on exit; every process it
    started (workers, nannies, and workers restarted after a kill) is gone afterwards."""
    before = _children()
    try:
        with distributed.LocalCluster(host="127.0.0.1", dashboard_address=NO_DASHBOARD,
                                      silence_logs=logging.CRITICAL, **kwargs) as lc:
            yield lc
    finally:
        started = _children() - before
        _, alive = psutil.wait_procs(started, timeout=20)
        for proc in alive:
            proc.kill()
        assert not alive, f"cluster processes left running: {alive}"


def _wait_for_two_workers(lc: distributed.LocalCluster) -> None:
    with distributed.Client(lc.scheduler_address, set_as_default=False, timeout=30) as c:
        c.wait_for_workers(2, timeout=120)


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[distributed.LocalCluster]:
    with loopback_cluster(n_workers=2, threads_per_worker=1, processes=True) as lc:
        _wait_for_two_workers(lc)
        yield lc


@pytest.fixture
def two_workers(local_cluster) -> distributed.LocalCluster:
    """The module's cluster once both its workers are connected again (a test before may have
    killed or restarted one): the run no longer waits for them itself."""
    _wait_for_two_workers(local_cluster)
    return local_cluster


@pytest.fixture(scope="module")
def executor(local_cluster) -> Iterator[ClusterExecutor]:
    with open_executor(local_cluster.scheduler_address, 2) as ex:
        assert isinstance(ex, ClusterExecutor)
        yield ex


def _kernel_signatures(dask_worker) -> int:
    """How many compiled signatures the round kernel has in this worker process."""
    from simcards.ronco.round_kernel import simulate_rounds

    return len(simulate_rounds.signatures)


def _numba_env(dask_worker) -> str | None:
    return os.environ.get("NUMBA_NUM_THREADS")


def test_every_worker_is_pinned_to_one_numba_thread_and_warmed_before_any_chunk(
        executor) -> None:
    info = executor.info
    workers = set(executor.client.scheduler_info(n_workers=-1)["workers"])
    assert info.workers == 2 and set(info.worker_warmup_seconds) == workers
    assert set(info.numba_threads.values()) == {1}
    assert "simcards.ronco.warmups:warm_ronco_rounds" in info.warmups
    assert info.warmup_seconds > 0 and all(s > 0 for s in info.worker_warmup_seconds.values())
    assert info.allowed_failures is not None and info.allowed_failures >= 1
    # No chunk has run yet (this is the module's first cluster test): the kernel is already there.
    assert set(executor.client.run(_kernel_signatures).values()) == {1}
    assert set(executor.client.run(_numba_env).values()) == {"1"}


@pytest.mark.parametrize("config", [*CONFIGS[:3], CONFIGS[3], RANDOM_CONFIGS[1]],
                         ids=lambda c: c.name)
def test_cluster_counts_equal_local_counts_bit_for_bit_over_41_chunks(executor,
                                                                      config: Config) -> None:
    cfg = KernelConfig.build(config.rules, config.policies)
    options = {"seed": 77, "total": 40 * 5_000 + 123, "chunk_size": 5_000}
    local = run_batch(rounds_chunk, cfg, workers=1, **options)
    remote = run_batch(rounds_chunk, cfg, executor=executor, **options)
    assert list(local) == list(remote) == ["lost", "double", "tallies"]
    for name, a in local.items():
        assert a.dtype == remote[name].dtype
        np.testing.assert_array_equal(a, remote[name])


def test_simulate_through_the_cluster_equals_the_local_run(executor) -> None:
    rules = RoncoRules.make(poroli=True, ties="first")
    policies = [Policy("informed", 5, 6)] * 5
    rounds = 5 * ronco_rounds.ROUNDS_CHUNK + 123
    local = ronco_rounds.simulate(rules, policies, rounds, seed=2026, workers=1)
    remote = ronco_rounds.simulate(rules, policies, rounds, seed=2026, executor=executor)
    np.testing.assert_array_equal(local.lost, remote.lost)
    np.testing.assert_array_equal(local.double, remote.double)
    assert (local.all_tie, local.cut, local.cut_king) == \
        (remote.all_tie, remote.cut, remote.cut_king)


def test_chunks_of_a_killed_worker_run_again_and_the_result_is_unchanged(executor) -> None:
    client = executor.client
    cfg = KernelConfig.build(RoncoRules.make(), [Policy("threshold", 6, 5)] * 4)
    chunk_size, n_chunks = 1 << 23, 14  # about a quarter of a second per chunk
    options = {"seed": 5, "total": n_chunks * chunk_size, "chunk_size": chunk_size}
    expected = run_batch(rounds_chunk, cfg, workers=1, **options)

    done: list[tuple[int, int]] = []
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["stats"] = run_batch(rounds_chunk, cfg, executor=executor,
                                         on_chunk=lambda key, _: done.append(key), **options)
        except BaseException as exc:  # reported by the assertions below
            outcome["error"] = exc

    pids = client.run(os.getpid)
    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 60
    victim, in_flight = sorted(pids)[0], []
    # Once three chunks are in, kill a worker caught running one (the run keeps only a few
    # chunks in flight, so at a given instant one worker may be idle).
    while thread.is_alive() and time.monotonic() < deadline:
        if len(done) >= 3:
            busy = {w: t for w, t in client.processing().items() if t and w in pids}
            if busy:
                victim, in_flight = next(iter(busy.items()))
                break
        time.sleep(0.005)
    done_at_kill = len(done)
    os.kill(pids[victim], signal.SIGKILL)
    thread.join(120)

    assert not thread.is_alive(), "the run did not finish after the kill"
    assert "error" not in outcome, outcome.get("error")
    assert 3 <= done_at_kill < n_chunks, "the kill must land mid-run"
    assert in_flight, "the killed worker was running a chunk when it died"
    assert victim not in client.scheduler_info(n_workers=-1)["workers"]
    assert sorted(done) == [(0, c) for c in range(n_chunks)]
    assert list(expected) == list(outcome["stats"])
    for name, a in expected.items():
        np.testing.assert_array_equal(a, outcome["stats"][name])
    client.wait_for_workers(2, timeout=120)  # the nanny restarts it, for the tests that follow


def test_a_worker_that_joins_later_is_pinned_and_warmed_up_too(executor) -> None:
    client = executor.client
    client.wait_for_workers(2, timeout=120)
    before = client.run(os.getpid)
    victim = sorted(before)[-1]
    client.restart_workers([victim], timeout=120)  # it warms up before it is back
    client.wait_for_workers(2, timeout=120)
    reports = client.run(simcluster._worker_report)
    assert all(r is not None for r in reports.values())
    fresh = [r for r in reports.values() if r["pid"] not in before.values()]
    assert len(fresh) == 1
    assert fresh[0]["numba_threads"] == 1 and fresh[0]["warmup_seconds"] > 0


def test_asking_for_more_workers_than_the_cluster_has_neither_waits_nor_fails(
        two_workers) -> None:
    """--workers defaults to the client's core count, which says nothing about the cluster:
    the run starts with the 2 workers there are, and the number asked for is only a cap."""
    t0 = time.monotonic()
    with open_executor(two_workers.scheduler_address, 8, worker_timeout=5) as ex:
        assert isinstance(ex, ClusterExecutor)
        assert ex.info.workers == 2 and len(ex.info.worker_warmup_seconds) == 2
        assert ex.max_in_flight == 8
    assert time.monotonic() - t0 < 5, "it must not wait for workers that do not exist"
    with open_executor(two_workers.scheduler_address, None) as ex:
        assert ex.info.workers == 2 and ex.max_in_flight is None


def test_a_cluster_without_workers_is_a_usage_error_after_the_worker_timeout() -> None:
    with loopback_cluster(n_workers=0, processes=True) as empty:
        t0 = time.monotonic()
        with pytest.raises(UsageError, match=r"has no worker; waited 1 s for one"), \
                open_executor(empty.scheduler_address, 3, worker_timeout=1):
            pass
        assert time.monotonic() - t0 < 15


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts connections and never says a word."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield sock.getsockname()[1]
    sock.close()


_BAD_ADDRESS = textwrap.dedent("""
    import sys, time
    from simcards.core.cluster import open_executor
    from simcards.core.errors import UsageError
    t0 = time.monotonic()
    try:
        with open_executor(sys.argv[1], None):
            print("connected")
    except UsageError as exc:
        print(f"{time.monotonic() - t0:.3f}")
        print(exc)
""")


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:1", "nonsense::", "tcp://127.0.0.1:",
                                     "silent"])
def test_a_bad_scheduler_address_is_a_quick_one_line_usage_error(address: str,
                                                                 request) -> None:
    if address == "silent":
        address = f"tcp://127.0.0.1:{request.getfixturevalue('silent_port')}"
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", _BAD_ADDRESS, address], capture_output=True,
                          text=True, timeout=60)
    wall = time.monotonic() - t0
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and len(lines) == 2, proc.stdout + proc.stderr
    assert float(lines[0]) < 30 and wall < 30, "UsageError and interpreter exit within 30 s"
    assert address in lines[1]
    assert "Traceback" not in proc.stderr, proc.stderr


def test_scheduler_option_wins_over_the_environment(monkeypatch) -> None:
    monkeypatch.delenv(simcluster.SCHEDULER_ENV, raising=False)
    assert scheduler_from_env(None) is None
    monkeypatch.setenv("SIMCARDS_SCHEDULER", "tcp://127.0.0.1:8786")
    assert scheduler_from_env(None) == "tcp://127.0.0.1:8786"
    assert scheduler_from_env("tcp://127.0.0.1:9999") == "tcp://127.0.0.1:9999"
    assert scheduler_from_env("") is None, "an empty option means: run locally"
    monkeypatch.setenv("SIMCARDS_SCHEDULER", " ")
    assert scheduler_from_env(None) is None


def test_local_path_never_imports_dask() -> None:
    code = textwrap.dedent("""
        import sys
        import simcards.core.cluster
        from simcards.core.cluster import open_executor
        from simcards.ronco.policies import Policy
        from simcards.ronco.rounds_batch import simulate
        from simcards.ronco.rules import RoncoRules
        with open_executor(None, 1) as ex:
            assert ex is None
            simulate(RoncoRules.make(), [Policy("threshold", 5, 5)] * 3, 1000, workers=1,
                     executor=ex)
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed"))
        assert not loaded, loaded
        print("ok")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def _a_warmup() -> None:
    """A stand-in game warm-up."""


def test_games_register_warmups_by_importable_name() -> None:
    before = registered_warmups()
    try:
        assert register_warmup(_a_warmup) is _a_warmup
        register_warmup(_a_warmup)
        assert registered_warmups() == (*before, f"{__name__}:_a_warmup")
        with pytest.raises(ValueError, match="module-level function"):
            register_warmup(lambda: None)
    finally:
        simcluster._WARMUPS[:] = before


def test_ronco_games_through_the_cluster_equal_the_local_run(executor) -> None:
    from simcards.ronco import games_batch as ronco_games

    rules = RoncoRules.make(poroli=True, absolute_tie="replay")
    policies = [Policy("informed", 5, 5), Policy("threshold", 6, 4), Policy("random", p=0.4),
                Policy("threshold", 5, 5), Policy("informed", 4, 6)]
    total = 5 * ronco_games.GAMES_CHUNK + 77
    local = ronco_games.simulate(rules, policies, 4, total, seed=8, workers=1)
    remote = ronco_games.simulate(rules, policies, 4, total, seed=8, executor=executor)
    assert local.to_dict() == remote.to_dict()
    for a, b in zip((local.wins, local.hist, local.places, local.rounds_sums),
                    (remote.wins, remote.hist, remote.places, remote.rounds_sums), strict=True):
        np.testing.assert_array_equal(a, b)


def test_best_threshold_search_through_the_cluster_equals_the_local_run(executor) -> None:
    from simcards.ronco import best_threshold_batch as bt

    rules = RoncoRules.make()
    opts = {"seed": 4, "first_stage": 1024, "max_games": 8192, "min_games": 2048,
            "z_drop": 3.0, "max_iterations": 1, "gain_games": 2048}
    local, _, _ = bt.search(rules, [3, 5], 2, "threshold", Policy(), opts, workers=1,
                            root=None, progress=False)
    remote, _, _ = bt.search(rules, [3, 5], 2, "threshold", Policy(), opts, workers=2,
                             root=None, progress=False, executor=executor)
    assert [bt.row_dict(r) for r in local] == [bt.row_dict(r) for r in remote]


def test_cli_scheduler_flag_gives_the_local_json_plus_cluster_timings(two_workers,
                                                                      capsys) -> None:
    import json

    from simcards.core.cli import main

    args = ["ronco", "games", "--players", "6", "--lives", "3", "--games", "100k", "--seed",
            "3", "--json", "--store", "none"]
    assert main([*args, "--workers", "1"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*args, "--scheduler", two_workers.scheduler_address]) == 0
    remote = json.loads(capsys.readouterr().out)
    timing = remote.pop("cluster")
    assert remote == local
    assert timing["workers"] == 2 and timing["warmup_seconds"] >= 0
    assert timing["simulation_seconds"] > 0


def test_cli_bad_scheduler_is_one_line_exit_2_and_keeps_finished_chunks(tmp_path,
                                                                        capsys) -> None:
    from simcards.core.cli import main

    store = tmp_path / "store"
    args = ["ronco", "rounds", "--rounds", "5M", "--seed", "1", "--json", "--store", str(store)]
    assert main([*args, "--workers", "1"]) == 0  # a finished run in the store
    capsys.readouterr()
    before = sorted(p.name for p in store.glob("*/chunks/*"))
    t0 = time.monotonic()
    assert main([*args, "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert time.monotonic() - t0 < 30
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tcp://127.0.0.1:1" in err[0]
    assert sorted(p.name for p in store.glob("*/chunks/*")) == before


def test_cluster_run_interrupted_resumes_locally_or_on_the_cluster_to_the_same_result(
        local_cluster, tmp_path, capsys, interrupt_after_chunks) -> None:
    import json

    from simcards.core.cli import main

    args = ["ronco", "games", "--players", "5", "--lives", "3", "--games", "300000", "--seed",
            "12", "--json"]
    assert main([*args, "--store", "none", "--workers", "1"]) == 0
    expected = json.loads(capsys.readouterr().out)

    store = tmp_path / "store"
    interrupt_after_chunks(4)
    cluster = ["--scheduler", local_cluster.scheduler_address, "--store", str(store)]
    assert main([*args, *cluster]) == 130
    assert "finished chunks kept" in capsys.readouterr().err
    interrupt_after_chunks(None)
    assert main([*args, *cluster]) == 0
    resumed = json.loads(capsys.readouterr().out)
    resumed.pop("cluster")
    assert resumed == expected
    (run,) = list(store.iterdir())
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["chunks_resumed"] >= 4
    assert manifest["chunks_resumed"] + manifest["chunks_computed"] == 10


@pytest.fixture
def talking_port() -> Iterator[int]:
    """A loopback port where a service that is not dask (a web server, say) answers."""
    import threading

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)

    def serve() -> None:
        while True:
            try:
                conn, _ = sock.accept()
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            except OSError:
                return

    threading.Thread(target=serve, daemon=True).start()
    yield sock.getsockname()[1]
    sock.close()


def test_a_scheduler_address_where_something_else_answers_says_so_in_one_line(
        talking_port: int) -> None:
    """Before, dask read the reply as a frame header: ``Unable to allocate 3.07 EiB``."""
    address = f"tcp://127.0.0.1:{talking_port}"
    proc = subprocess.run([sys.executable, "-c", _BAD_ADDRESS, address], capture_output=True,
                          text=True, timeout=60)
    lines = proc.stdout.splitlines()
    assert len(lines) == 2, proc.stdout + proc.stderr
    assert lines[1] == (f"cannot reach dask scheduler at {address}: something answers there, "
                        "but not as a dask scheduler (is the address or port right?)")
    assert "allocate" not in proc.stdout + proc.stderr
