"""One Ctrl-C stops any command within two seconds: exit status 130, one line on stderr, no
process left behind, every finished chunk kept.

Each test starts the real command line in a subprocess, waits until it is computing (chunks
saved, or its first progress line), sends SIGINT to it alone and watches what follows.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")

PROGRESS_LINE = re.compile(r"\(\d+%\), .*/s, .* left$|time left unknown$|^report \d+/\d+: ")
STARTUP_S = 300
"""Patience for the run to get going (spawned workers may have to compile the kernels)."""



def _ctrl_c_enabled() -> None:
    """In the child before it starts: SIGINT back to its default. A test runner started in the
    background of a non-interactive shell (as CI may be) passes SIGINT on as ignored, and
    Python then keeps ignoring it: the run would never see the Ctrl-C the test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _chunk_files(store: Path) -> list[Path]:
    return list(store.glob("**/chunks/*.parquet"))


def _interrupt(args: list[str], store: Path, *, chunks: int = 0, after_line: bool = False,
               cwd: Path | None = None) -> tuple[float, list[str], int]:
    """Run ``simcards ARGS``, interrupt it once it has saved ``chunks`` chunks (or printed a
    line, or both), check that it stopped in time with nothing left running; returns the
    seconds it took, its stderr lines other than progress lines, and the chunks on disk."""
    env = {**os.environ, "SIMCARDS_STORE": str(store)}
    proc = subprocess.Popen([sys.executable, "-m", "simcards", *args], stdout=subprocess.PIPE,
                            preexec_fn=_ctrl_c_enabled,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(x.rstrip("\n") for x in proc.stderr))
    reader.start()
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline and proc.poll() is None:
        if len(_chunk_files(store)) >= chunks and (lines or not after_line):
            break
        time.sleep(0.02)
    assert proc.poll() is None, f"the run ended before it could be interrupted: {lines}"
    children = psutil.Process(proc.pid).children(recursive=True)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    seconds = time.monotonic() - sent
    reader.join(5)
    proc.stdout.close()
    time.sleep(0.3)  # a stray process would still be here
    left = [c.pid for c in children
            if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
    assert proc.returncode == 130, (proc.returncode, lines)
    assert seconds < 2.0, f"took {seconds:.2f} s to stop"
    assert left == [], f"processes left behind: {left}"
    messages = [x for x in lines if x and not PROGRESS_LINE.search(x)]
    return seconds, messages, len(_chunk_files(store))


def _kept(message: str) -> int:
    m = re.search(r"(\d+) finished chunks kept", message)
    assert m, message
    return int(m.group(1))


def test_ctrl_c_stops_rounds_at_once_and_keeps_the_finished_chunks(tmp_path) -> None:
    store = tmp_path / "st"
    _, err, on_disk = _interrupt(["ronco", "rounds", "--players", "6", "--rounds", "600M",
                                  "--workers", "2"], store, chunks=2)
    assert len(err) == 1 and err[0].startswith("simcards: error: interrupted"), err
    assert _kept(err[0]) == on_disk >= 2


def test_ctrl_c_stops_a_one_worker_rounds_run(tmp_path) -> None:
    store = tmp_path / "st"
    _, err, on_disk = _interrupt(["ronco", "rounds", "--players", "6", "--rounds", "600M",
                                  "--workers", "1"], store, chunks=3)
    assert len(err) == 1 and _kept(err[0]) == on_disk >= 3


def test_ctrl_c_stops_games_at_once_and_keeps_the_finished_chunks(tmp_path) -> None:
    store = tmp_path / "st"
    _, err, on_disk = _interrupt(["ronco", "games", "--players", "5", "--games", "100M",
                                  "--workers", "2"], store, chunks=2)
    assert len(err) == 1 and _kept(err[0]) == on_disk >= 2


def test_ctrl_c_stops_the_exact_enumeration(tmp_path) -> None:
    _, err, _ = _interrupt(["ronco", "exact", "--players", "8"], tmp_path / "st",
                           after_line=True)
    assert err == ["simcards: error: interrupted"]


def test_ctrl_c_stops_the_exact_game_solver(tmp_path) -> None:
    env_store = tmp_path / "st"
    proc_args = ["ronco", "games", "--players", "6", "--lives", "3", "--exact"]
    # no chunks and no progress to wait for: give it a moment to be in the solver
    env = {**os.environ, "SIMCARDS_STORE": str(env_store)}
    proc = subprocess.Popen([sys.executable, "-m", "simcards", *proc_args],
                            preexec_fn=_ctrl_c_enabled,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(4)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and time.monotonic() - sent < 2.0
    assert err.strip().splitlines() == ["simcards: error: interrupted"]


def test_ctrl_c_stops_best_threshold_and_keeps_its_stages(tmp_path) -> None:
    store = tmp_path / "st"
    _, err, on_disk = _interrupt(["ronco", "best-threshold", "--players", "6-8",
                                  "--workers", "2"], store, chunks=2)
    assert len(err) == 1 and "finished chunks kept under" in err[0], err
    assert on_disk >= 2
    (run,) = list(store.iterdir())  # the stages live inside the search's own folder
    assert run.name.startswith("ronco-best-threshold-")


def test_ctrl_c_stops_report_and_keeps_its_chunks(tmp_path) -> None:
    store = tmp_path / "st"
    _, err, on_disk = _interrupt(["report", "--only", "ronco-rounds", "--out",
                                  str(tmp_path / "reports"), "--workers", "2"], store,
                                 chunks=2)
    assert len(err) == 1 and "interrupted during study ronco-rounds" in err[0], err
    assert on_disk >= 2
