"""Running a real command line and interrupting it as a user's Ctrl-C does: the helpers that
every interruption test shares (``tests/core/test_interrupt.py``, the contract suite)."""

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

PROGRESS_LINE = re.compile(r"\(\d+%\), .*/s, .* left$|time left unknown$|^report \d+/\d+: "
                           r"| to go \([^)]*/s\)$")
"""A line of progress: the bar, the run's one estimate of the time to go (given when a run is
slow, as on a loaded machine), a report's step."""
STARTUP_S = 300
"""Patience for the run to get going (spawned workers may have to compile the kernels)."""



def ctrl_c_enabled() -> None:
    """In the child before it starts: SIGINT back to its default. A test runner started in the
    background of a non-interactive shell (as CI may be) passes SIGINT on as ignored, and
    Python then keeps ignoring it: the run would never see the Ctrl-C the test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def chunk_files(store: Path) -> list[Path]:
    return list(store.glob("**/chunks/*.parquet"))


def interrupt(args: list[str], store: Path, *, chunks: int = 0, after_line: bool = False,
               cwd: Path | None = None) -> tuple[float, list[str], int]:
    """Run ``simcards ARGS``, interrupt it once it has saved ``chunks`` chunks (or printed a
    line, or both), check that it stopped in time with nothing left running; returns the
    seconds it took, its stderr lines other than progress lines, and the chunks on disk."""
    env = {**os.environ, "SIMCARDS_STORE": str(store)}
    proc = subprocess.Popen([sys.executable, "-m", "simcards", *args], stdout=subprocess.PIPE,
                            preexec_fn=ctrl_c_enabled,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=cwd)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(x.rstrip("\n") for x in proc.stderr))
    reader.start()
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline and proc.poll() is None:
        if len(chunk_files(store)) >= chunks and (lines or not after_line):
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
    return seconds, messages, len(chunk_files(store))
