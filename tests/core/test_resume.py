"""Kill-and-resume: a run interrupted half-way and started again with the same command resumes
from its finished chunks, computes each missing chunk exactly once, and ends with exactly the
result of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simcards.core.cli import main

GAMES_ARGS = ["ronco", "games", "--players", "5", "--lives", "4", "--policy", "informed",
              "--seed", "99", "--json", "--workers", "1"]


def _manifest(store: Path) -> dict:
    (run,) = list(store.iterdir())
    return json.loads((run / "manifest.json").read_text())


def test_interrupted_run_resumes_without_recomputing_a_chunk(tmp_path, capsys,
                                                             interrupt_after_chunks) -> None:
    args = [*GAMES_ARGS, "--games", "400000"]  # 13 chunks of 32,768 games
    assert main([*args, "--store", "none"]) == 0
    uninterrupted = json.loads(capsys.readouterr().out)

    store = tmp_path / "store"
    interrupt_after_chunks(5)
    assert main([*args, "--store", str(store)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "5 finished chunks kept" in err[0]
    assert _manifest(store)["status"] == "running"

    interrupt_after_chunks(None)
    assert main([*args, "--store", str(store)]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed == uninterrupted
    m = _manifest(store)
    assert m["status"] == "complete"
    assert (m["chunks_resumed"], m["chunks_computed"]) == (5, 13 - 5)


@pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")
def test_killed_process_resumes_to_the_identical_result(tmp_path) -> None:
    args = [*GAMES_ARGS, "--games", "1600000"]  # 49 chunks
    env = {**os.environ, "SIMCARDS_STORE": str(tmp_path / "store")}
    cmd = [sys.executable, "-m", "simcards", *args]
    full = subprocess.run([*cmd, "--store", "none"], capture_output=True, text=True,
                          check=True, env=env, timeout=300)
    chunks = tmp_path / "store"
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 120
    done_at_kill = 0
    try:
        while time.monotonic() < deadline:
            found = list(chunks.glob("*/chunks/*.parquet"))
            if len(found) >= 8:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                done_at_kill = len(list(chunks.glob("*/chunks/*.parquet")))
                break
            time.sleep(0.02)
    finally:  # never leave the run going when the kill did not happen
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    assert 8 <= done_at_kill < 49, "the kill must land mid-run"
    assert _manifest(chunks)["status"] == "running"
    again = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env,
                           timeout=300)
    assert json.loads(again.stdout) == json.loads(full.stdout)
    m = _manifest(chunks)
    assert (m["chunks_resumed"], m["chunks_computed"]) == (done_at_kill, 49 - done_at_kill)


BEST_ARGS = ["ronco", "best-threshold", "--players", "3", "--lives", "2", "--first-stage", "1024",
             "--max-games", "2048", "--min-games", "1024", "--max-iterations", "1",
             "--gain-games", "0", "--workers", "1", "--json"]
EQUILIBRIUM_ARGS = ["ronco", "equilibrium", "--players", "3", "--lives", "2", "--start", "6:6",
                    "--json", "--workers", "1", "--seed", "4"]


@pytest.mark.parametrize("args", [BEST_ARGS, EQUILIBRIUM_ARGS],
                         ids=["best-threshold", "equilibrium"])
def test_a_search_says_when_it_reads_its_result_back_from_the_run_store(tmp_path, capsys,
                                                                        args) -> None:
    """A search run again reuses every stage's chunks, and says so on stderr as every other
    command does (``--json`` too), with the same answer."""
    store = ["--store", str(tmp_path / "store")]
    assert main([*args, *store]) == 0
    first = capsys.readouterr()
    assert "run store" not in first.err and "resumed" not in first.err
    assert main([*args, *store]) == 0
    again = capsys.readouterr()
    assert json.loads(again.out) == json.loads(first.out)
    (run,) = list((tmp_path / "store").iterdir())
    assert ("the run was already complete: its result is read from the run store ("
            in again.err) and "finished chunk" in again.err and str(run) in again.err


def test_a_search_says_how_many_chunks_it_resumed_after_an_interruption(
        tmp_path, capsys, interrupt_after_chunks) -> None:
    store = ["--store", str(tmp_path / "store")]
    interrupt_after_chunks(1)
    assert main([*BEST_ARGS, *store]) == 130
    capsys.readouterr()
    interrupt_after_chunks(None)
    assert main([*BEST_ARGS, *store]) == 0
    (run,) = list((tmp_path / "store").iterdir())
    assert f"resumed 1 finished chunk from {run}" in capsys.readouterr().err


def test_report_says_how_many_chunks_each_study_resumed(tmp_path, capsys,
                                                        interrupt_after_chunks) -> None:
    args = ["report", "--only", "ronco-rounds", "--quick", "--workers", "1", "--out",
            str(tmp_path / "reports"), "--store", str(tmp_path / "store")]
    interrupt_after_chunks(3)
    assert main(args) == 130
    capsys.readouterr()
    interrupt_after_chunks(None)
    assert main(args) == 0
    (run,) = list((tmp_path / "store").iterdir())
    assert f"resumed 3 finished chunks from {run}" in capsys.readouterr().err
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "the run was already complete: its result is read from the run store (" in err
