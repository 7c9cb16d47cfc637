"""One Ctrl-C stops any command within two seconds: exit status 130, one line on stderr, no
process left behind, every finished chunk kept.

Each test starts the real command line in a subprocess, waits until it is computing (chunks
saved, or its first progress line), sends SIGINT to it alone and watches what follows.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from tests import sizes
from tests.interrupting import PROGRESS_LINE, STARTUP_S, chunk_files, ctrl_c_enabled, interrupt

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")


def _kept(message: str) -> int:
    m = re.search(r"(\d+) finished chunks kept", message)
    assert m, message
    return int(m.group(1))


def test_ctrl_c_stops_rounds_at_once_and_keeps_the_finished_chunks(tmp_path) -> None:
    store = tmp_path / "st"
    _, err, on_disk = interrupt(["ronco", "rounds", "--players", "6", "--rounds", "600M",
                                  "--workers", "2"], store, chunks=2)
    assert len(err) == 1 and err[0].startswith("simcards: error: interrupted"), err
    assert _kept(err[0]) == on_disk >= 2


def test_ctrl_c_stops_a_one_worker_rounds_run(tmp_path) -> None:
    store = tmp_path / "st"
    _, err, on_disk = interrupt(["ronco", "rounds", "--players", "6", "--rounds", "600M",
                                  "--workers", "1"], store, chunks=3)
    assert len(err) == 1 and _kept(err[0]) == on_disk >= 3


def test_ctrl_c_stops_games_at_once_and_keeps_the_finished_chunks(tmp_path) -> None:
    store = tmp_path / "st"
    _, err, on_disk = interrupt(["ronco", "games", "--players", "5", "--games", "100M",
                                  "--workers", "2"], store, chunks=2)
    assert len(err) == 1 and _kept(err[0]) == on_disk >= 2


SWALLOWED = """
import os, signal, sys, time
from simcards.core import interrupts

class Writer:
    def __del__(self):  # the Ctrl-C lands here, as in pyarrow's ParquetWriter.__del__
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000):
            time.sleep(0.001)

interrupts.arm()
try:
    Writer()
    for _ in range(2000):
        time.sleep(0.001)
    print("not interrupted")
except KeyboardInterrupt:
    print("unwound")
"""


def test_a_ctrl_c_swallowed_in_a_del_still_unwinds_the_run() -> None:
    """A Ctrl-C whose KeyboardInterrupt is raised inside a ``__del__`` (where Python can only
    print it as "Exception ignored" and drop it) is delivered again and unwinds the run as
    usual, with nothing printed."""
    done = subprocess.run([sys.executable, "-c", SWALLOWED], capture_output=True, text=True,
                          preexec_fn=ctrl_c_enabled, timeout=60)
    assert done.stdout.strip() == "unwound", (done.stdout, done.stderr)
    assert done.stderr == ""


def test_ctrl_c_stops_the_exact_enumeration(tmp_path) -> None:
    _, err, _ = interrupt(["ronco", "exact", "--players", "8"], tmp_path / "st",
                           after_line=True)
    assert err == ["simcards: error: interrupted"]


def test_ctrl_c_stops_the_exact_game_solver(tmp_path) -> None:
    env_store = tmp_path / "st"
    proc_args = ["ronco", "games", "--players", "6", "--lives", "3", "--exact"]
    # no chunks and no progress to wait for: give it a moment to be in the solver
    env = {**os.environ, "SIMCARDS_STORE": str(env_store)}
    proc = subprocess.Popen([sys.executable, "-m", "simcards", *proc_args],
                            preexec_fn=ctrl_c_enabled,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(4)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and time.monotonic() - sent < 2.0
    assert err.strip().splitlines() == ["simcards: error: interrupted"]


def test_ctrl_c_stops_best_threshold_and_keeps_its_stages(tmp_path) -> None:
    store = tmp_path / "st"
    _, err, on_disk = interrupt(["ronco", "best-threshold", "--players", "6-8",
                                  "--workers", "2"], store, chunks=2)
    assert len(err) == 1 and "finished chunks kept under" in err[0], err
    assert on_disk >= 2
    (run,) = list(store.iterdir())  # the stages live inside the search's own folder
    assert run.name.startswith("ronco-best-threshold-")


def test_ctrl_c_stops_report_and_keeps_its_chunks(tmp_path) -> None:
    store = tmp_path / "st"
    _, err, on_disk = interrupt(["report", "--only", "ronco-rounds", "--out",
                                  str(tmp_path / "reports"), "--workers", "2"], store,
                                 chunks=2)
    assert len(err) == 1 and "interrupted during study ronco-rounds" in err[0], err
    assert on_disk >= 2


TAG = "SIMCARDS_TEST_RUN_TAG"
"""An environment variable naming one test run: every process the run starts inherits it, so
what is left of the run can be found after it has ended (whoever its parent is by then)."""


def _tagged(tag: str) -> list[psutil.Process]:
    """The living processes that carry ``tag`` in their environment."""
    found = []
    for p in psutil.process_iter():
        try:
            if p.environ().get(TAG) == tag and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def _left_behind(tag: str, patience: float = 0.3) -> list[int]:
    """Processes of the run still alive ``patience`` seconds after it ended (each is then
    killed, so that one failure does not load the next run)."""
    time.sleep(patience)
    left = _tagged(tag)
    for p in left:
        with contextlib.suppress(psutil.NoSuchProcess):
            p.kill()
    return [p.pid for p in left]


def _start(argv: list[str], store: Path, tag: str, *, script: str | None = None
           ) -> tuple[subprocess.Popen, list[str], threading.Thread]:
    """Start ``simcards ARGV`` (or ``python -c SCRIPT ARGV``) with its stderr read into a
    list by a thread."""
    env = {**os.environ, "SIMCARDS_STORE": str(store), TAG: tag}
    cmd = [sys.executable, "-m", "simcards", *argv] if script is None else \
        [sys.executable, "-c", script, *argv]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=env, preexec_fn=ctrl_c_enabled)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(x.rstrip("\n") for x in proc.stderr))
    reader.start()
    return proc, lines, reader


WEDGED_STOP = """
import sys, time
import simcards.core.runner as runner
from simcards.core.cli import run

real_stop = runner.stop_pool
kept = []  # the pool stays referenced, as a reference cycle or a held lock can keep it


def wedged_stop(pool):
    kept.append(pool)
    if sys.argv[1] == "slow":
        time.sleep(0.4)  # the window in which a second Ctrl-C lands, widened
        real_stop(pool)


runner.stop_pool = wedged_stop
sys.argv = ["simcards", *sys.argv[2:]]
run()
"""


def _interrupt_wedged(tmp_path: Path, how: str, second: float | None
                      ) -> tuple[float, int | None, list[str], list[int]]:
    """Run a Römi games run whose pool stop is ``how`` ("slow": it takes 0.4 s; "never": it
    does nothing), Ctrl-C it once it has saved a chunk (and again ``second`` seconds later);
    the seconds it took to end, its exit status, its stderr and the processes left behind."""
    store, tag = tmp_path / "st", f"{how}-{os.getpid()}"
    proc, lines, reader = _start([how, "romi", "games", "--games", "100k", "--workers", "2"],
                                 store, tag, script=WEDGED_STOP)
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline and proc.poll() is None and not chunk_files(store):
        time.sleep(0.02)
    assert proc.poll() is None, lines
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    if second is not None:
        time.sleep(second)
        proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    seconds = time.monotonic() - sent
    reader.join(5)
    return seconds, proc.returncode, lines, _left_behind(tag)


def test_a_second_ctrl_c_during_the_shutdown_neither_hangs_nor_prints_a_traceback(
        tmp_path) -> None:
    """A second Ctrl-C while the first one's shutdown is stopping the pool (a terminal's second
    key press; ``timeout -s INT`` signalling the process and then its group) must not stop that
    shutdown half way: the workers would be left running, waiting for work, and the exit would
    wait on them for ever."""
    seconds, code, lines, left = _interrupt_wedged(tmp_path, "slow", 0.2)
    assert seconds < 2.0, f"took {seconds:.2f} s to stop"
    assert code == 130, (code, lines)
    assert left == [], f"processes left behind: {left}"
    messages = [x for x in lines if x and not PROGRESS_LINE.search(x)]
    assert len(messages) == 1 and messages[0].startswith("simcards: error: interrupted; "), lines


def test_ctrl_c_ends_the_command_even_when_its_pool_cannot_be_stopped(tmp_path) -> None:
    """Whatever the workers are doing (here nobody tells them to stop: the pool is never shut
    down, as when its shutdown is wedged on a lock), Ctrl-C ends the command within two
    seconds: its last step ends every child process itself, without waiting on any."""
    seconds, code, lines, left = _interrupt_wedged(tmp_path, "never", None)
    assert seconds < 2.0, f"took {seconds:.2f} s to stop"
    assert code == 130, (code, lines)
    assert left == [], f"processes left behind: {left}"
    messages = [x for x in lines if x and not PROGRESS_LINE.search(x)]
    assert len(messages) == 1 and messages[0].startswith("simcards: error: interrupted; "), lines


def _burn() -> subprocess.Popen:
    """A process that keeps one core busy: load, as on a machine doing other work."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


FULL_INTERRUPTS = 30
INTERRUPTS = FULL_INTERRUPTS if sizes.FULL else 6
"""Ctrl-Cs sent in all: six in ``make test`` (each phase twice), thirty in ``make test-full``
(``pytest --full``), where a hang that shows once in ten tries would be missed
with a chance of 4%."""
LANES = 3
"""Runs interrupted side by side (each its own run in its own store), ``INTERRUPTS / LANES``
times each."""
PHASES = ("start", "pool", "compute")
"""When a Ctrl-C is sent, at a random moment after: the command has begun loading its modules
(numpy is mapped: the package's own start-up code has run), its pool has started a worker, or
it has saved a new chunk."""


def _in_phase(proc: subprocess.Popen, store: Path, before: int, phase: str) -> bool:
    if phase == "start":
        try:
            return "_multiarray_umath" in Path(f"/proc/{proc.pid}/maps").read_text()
        except OSError:
            return False
    if phase == "pool":
        with contextlib.suppress(psutil.NoSuchProcess):
            return len(psutil.Process(proc.pid).children()) >= 2  # resource tracker, a worker
        return False
    return len(chunk_files(store)) > before


def _lane(lane: int, tmp_path: Path, rng: random.Random, failures: list[str]) -> None:
    """``INTERRUPTS / LANES`` runs of one store, each interrupted at a random moment of its
    phase."""
    store = tmp_path / f"st{lane}"
    for i in range(INTERRUPTS // LANES):
        phase = PHASES[(i + lane) % len(PHASES)]
        offset = rng.uniform(0.0, 1.0)
        second = rng.choice([None, None, 0.0, 0.05, 0.3])
        tag = f"random-{os.getpid()}-{lane}-{i}"
        before = len(chunk_files(store))
        proc, lines, reader = _start(
            ["romi", "games", "--players", "3", "--games", "5k", "--workers", "2"], store, tag)
        deadline = time.monotonic() + STARTUP_S
        while (proc.poll() is None and time.monotonic() < deadline
               and not _in_phase(proc, store, before, phase)):
            time.sleep(0.01)
        time.sleep(offset)
        what = f"lane {lane} run {i}: Ctrl-C {offset:.2f} s into {phase}, second {second}"
        sent = time.monotonic()
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)
            if second is not None:
                time.sleep(second)
                proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        seconds = time.monotonic() - sent - (second or 0.0)
        reader.join(5)
        left = _left_behind(tag)
        messages = [x for x in lines if x and not PROGRESS_LINE.search(x)
                    and not x.startswith("resumed ")]
        if proc.returncode not in (0, 130) or seconds > 2.5 or left:
            failures.append(f"{what}: exit {proc.returncode} after {seconds:.2f} s, left "
                            f"{left}, stderr {lines[-3:]}")
        elif proc.returncode == 130 and (
                len(messages) != 1 or not messages[0].startswith("simcards: error: interrupted")):
            failures.append(f"{what}: stderr {lines}")
        if any("damaged" in x or "Traceback" in x for x in lines):
            failures.append(f"{what}: stderr {lines}")
        if len(chunk_files(store)) < before:
            failures.append(f"{what}: chunks went from {before} to {len(chunk_files(store))}")


def test_ctrl_cs_at_random_moments_under_load_never_hang(tmp_path) -> None:
    """Ctrl-C at random moments (loading, starting the pool, computing, saving a chunk,
    resuming; sometimes twice in quick succession) with two busy processes loading the
    machine: every time the command ends within two seconds (and a half of margin) with exit
    status 130 (0 if it finished first) and one line, leaves no process behind, and never
    damages a finished chunk (each resume reads every chunk back and would report a damaged
    one); the chunks kept only grow."""
    burners = [_burn() for _ in range(2)]
    failures: list[str] = []
    try:
        lanes = [threading.Thread(target=_lane, args=(k, tmp_path, random.Random(1000 + k),
                                                      failures)) for k in range(LANES)]
        for t in lanes:
            t.start()
        for t in lanes:
            t.join()
    finally:
        for b in burners:
            b.kill()
            b.wait()
    assert failures == [], "\n".join(failures)
