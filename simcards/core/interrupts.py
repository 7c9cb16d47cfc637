"""How the ``simcards`` command answers Ctrl-C: one line, exit status 130, within two seconds,
whatever its worker processes are doing, and nothing left running.

Only the command itself (the ``simcards`` script or ``python -m simcards``) is affected; the
Python API and the tests that call :func:`simcards.core.cli.main` keep Python's own handling.

* While the command is still importing its modules (:func:`hold_during_start`, called from
  ``simcards/__init__.py``), a Ctrl-C ends it at once with the one line: a
  ``KeyboardInterrupt`` there would end in a traceback, and nothing has been started or
  computed yet that would need stopping or saving.
* The first Ctrl-C raises ``KeyboardInterrupt`` once; the run unwinds (the pool's workers are
  stopped, the finished chunks are already on disk). Later ones are ignored, so that no
  second ``KeyboardInterrupt`` can land in the middle of that shutdown (a terminal sends one
  Ctrl-C per key press, and ``timeout -s INT`` signals the process and its group apart), which
  would leave workers running and the exit waiting on them, or print a traceback.
* A ``KeyboardInterrupt`` that lands where Python cannot raise it (in an object's ``__del__``,
  as pyarrow's writers have, or a weakref callback) would be printed as "Exception ignored"
  with a traceback and then lost, leaving the run going until the watchdog. The command's
  unraisable hook keeps quiet about it and delivers the Ctrl-C again a moment later, where it
  can unwind the run as usual.
* A watchdog started by the first Ctrl-C ends the process :data:`DEADLINE_S` seconds later if it
  is still there (a pool wedged on a lock or a pipe), stopping every child process first.
* :func:`end_now` is the last step of an interrupted command: it stops every child process
  (terminated, then killed after a short grace) and exits without waiting on anything else.

Killing the process at any moment loses no computed data: chunks and manifests are written to
a temporary name and renamed (:mod:`simcards.core.store`), and a resumed run removes the
leftovers of a killed write.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from contextlib import suppress
from typing import Any, NoReturn

DEADLINE_S = 1.7
"""Seconds from the first Ctrl-C to a forced exit, if the command has not ended by then."""
GRACE_S = 0.4
"""Seconds a terminated child process is given to end before it is killed."""

_state = {"interrupted_at": None, "reported": False}
_lock = threading.Lock()


def started_as_command() -> bool:
    """Whether this interpreter runs the ``simcards`` command (its script, or ``python -m
    simcards``), rather than importing the package for the Python API or the tests."""
    argv = list(getattr(sys, "orig_argv", []) or [])
    if "-m" in argv[1:]:
        i = argv.index("-m", 1)
        return argv[i + 1:i + 2] == ["simcards"]
    return len(argv) > 1 and os.path.basename(argv[1]) == "simcards"


def hold_during_start() -> None:
    """Until :func:`arm`, a Ctrl-C ends the command at once with its one line (it is still
    importing its modules: nothing to stop or save). Does nothing where SIGINT is already
    handled otherwise (ignored by the parent, or a handler of the caller's) or outside the
    command."""
    if not started_as_command():
        return
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return
    signal.signal(signal.SIGINT, _ctrl_c_at_start)


def _ctrl_c_at_start(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with suppress(OSError, ValueError):
        sys.stderr.write("simcards: error: interrupted\n")
        sys.stderr.flush()
    os._exit(130)


def arm() -> None:
    """From now on the first Ctrl-C raises ``KeyboardInterrupt`` and starts the watchdog;
    later ones are ignored. Leaves SIGINT alone when it was ignored when the command
    started."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return
    signal.signal(signal.SIGINT, _on_ctrl_c)
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
            _deliver_again()
        else:
            previous(unraisable)

    sys.unraisablehook = hook


REDELIVER_S = 0.02
"""Seconds before a Ctrl-C swallowed in a ``__del__`` is delivered again."""


def _deliver_again() -> None:
    """The Ctrl-C's ``KeyboardInterrupt`` was raised where it could only be ignored: arm the
    handler again and signal this process once more from another thread, so that the handler
    runs again in the main thread once the ``__del__`` has returned."""
    if threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGINT, _on_ctrl_c)

    def resend() -> None:
        time.sleep(REDELIVER_S)
        with suppress(OSError):
            os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=resend, name="simcards-ctrl-c-again", daemon=True).start()


def _on_ctrl_c(signum: int, frame: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    note_interrupted()
    raise KeyboardInterrupt


def note_interrupted() -> None:
    """The command is being interrupted: start the watchdog (once)."""
    with _lock:
        if _state["interrupted_at"] is not None:
            return
        _state["interrupted_at"] = time.monotonic()
    threading.Thread(target=_watchdog, name="simcards-ctrl-c-watchdog", daemon=True).start()


def report(message: str) -> None:
    """Print the command's one line for an interruption; once a Ctrl-C has started the
    watchdog, only once (by whoever comes first: the command's error handling or the
    watchdog)."""
    with _lock:
        if _state["reported"] and _state["interrupted_at"] is not None:
            return
        _state["reported"] = True
    with suppress(OSError, ValueError):  # stderr closed: nothing more to say
        sys.stderr.write(f"simcards: error: {message}\n")
        sys.stderr.flush()


def _watchdog() -> None:
    started = _state["interrupted_at"]
    assert isinstance(started, float)
    time.sleep(max(DEADLINE_S - (time.monotonic() - started), 0.0))
    report("interrupted")
    end_now(130)


def _child_pids() -> set[int]:
    """The processes whose parent is this one, from ``/proc`` (empty where there is none):
    those started with :mod:`subprocess` too (the report's compile step), which
    :mod:`multiprocessing` does not list. Its resource tracker is left out: it ends by itself
    once this process has gone, after releasing what the pool held."""
    me = os.getpid()
    found = set()
    with suppress(OSError):
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            with suppress(OSError, ValueError, IndexError), open(f"/proc/{name}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == me:
                    found.add(int(name))
    with suppress(Exception):
        from multiprocessing import resource_tracker

        found.discard(getattr(resource_tracker._resource_tracker, "_pid", None))
    return found


def stop_children(grace: float = GRACE_S) -> None:
    """Terminate every child process (pool workers, compile steps), give them ``grace``
    seconds, then kill and reap what is left."""
    import multiprocessing

    children = []
    with suppress(Exception):  # the module may be half torn down: /proc still serves
        children = multiprocessing.active_children()
    others = _child_pids() - {p.pid for p in children}
    for pid in others:
        with suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    stop_processes(children, grace)
    while others and time.monotonic() < deadline:
        others = {pid for pid in others if not _reaped(pid)}
        time.sleep(0.02)
    for pid in others:
        with suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)


def stop_processes(procs: list[Any], grace: float = GRACE_S) -> None:
    """Terminate the :mod:`multiprocessing` processes ``procs``, give them ``grace`` seconds
    together, then kill and reap what is left; never raises (a process may already be gone,
    or its module half torn down)."""
    for p in procs:
        with suppress(Exception):
            p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        with suppress(Exception):
            p.join(max(deadline - time.monotonic(), 0.01))
            if p.is_alive():
                p.kill()
                p.join(0.2)


def _reaped(pid: int) -> bool:
    """Whether child ``pid`` has ended (and is now reaped)."""
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    except ChildProcessError:  # reaped elsewhere (its Popen): gone
        return True


def end_now(code: int) -> NoReturn:
    """End the command at once with ``code``: no further Ctrl-C, every child process stopped,
    multiprocessing's exit work (releasing the pool's semaphores and queues) given a moment,
    then the process ends without tearing down numba and the interpreter."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.excepthook = lambda args: None  # ending now: no thread's last words
    stop_children()
    with suppress(Exception):
        from multiprocessing.util import _exit_function

        tidy = threading.Thread(target=_exit_function, daemon=True)
        tidy.start()
        tidy.join(0.3)  # it joins children and queue threads: never wait on it for long
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
