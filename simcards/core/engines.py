"""Which engine plays a run that seats users' own functions, and how the Python engine asks
one of them for a move: the parts of a user policy's run that are the same in every game
(:mod:`simcards.core.userpolicy` reads and compiles the functions).

Two engines, one answer. The compiled engine calls each function as a first-class function
in the game's kernels (:data:`COMPILED`); the Python engine (:data:`PYTHON`) plays the same
deals on the game's table engine, the engine of its environments, and is chosen when numba
cannot compile a function (a notice says why) or when ``--engine python`` asks for it.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from simcards.core.errors import UsageError
from simcards.core.userpolicy import MAX_USER_POLICIES, UserPolicy

# A user's function is a first-class function in the kernels; numba calls the feature
# experimental, and a user need not hear of it.
warnings.filterwarnings("ignore", message="First-class function type feature is experimental")

COMPILED = "compiled"
"""The engine of a run whose functions numba compiles: the game's kernels."""
PYTHON = "python"
"""The engine of a run with a function numba cannot compile (or ``--engine python``)."""
ENGINES = (COMPILED, PYTHON)


def distinct(users: Sequence[UserPolicy | None]) -> list[UserPolicy]:
    """The different user functions among the seats, in seat order (at most
    :data:`MAX_USER_POLICIES`: the kernels hold that many slots)."""
    out: list[UserPolicy] = []
    for u in users:
        if u is not None and u not in out:
            out.append(u)
    if len(out) > MAX_USER_POLICIES:
        raise UsageError(f"--policies: at most {MAX_USER_POLICIES} different functions of "
                         f"yours at one table, got {len(out)}")
    return out


def engine_for(users: Sequence[UserPolicy | None], engine: str | None) -> tuple[str, str]:
    """The engine a run plays on, and why when it is the Python engine although not asked
    for: every function compiled (:data:`COMPILED`), or one numba cannot compile
    (:data:`PYTHON`, with numba's reason)."""
    if engine not in (None, *ENGINES):
        raise UsageError(f"--engine must be one of {'|'.join(ENGINES)}, got {engine!r}")
    if engine == PYTHON:
        return PYTHON, ""
    if engine is None and not any(users):
        return COMPILED, ""
    for u in distinct(users):
        fn, why = u.compiled()
        if fn is None:
            if engine == COMPILED:
                raise UsageError(f"--engine compiled: numba cannot compile {u.text()}: {why}")
            return PYTHON, f"numba cannot compile {u.text()} ({why})"
    return COMPILED, ""


def notice(why: str) -> None:
    """The one line that says a run plays on the Python engine and why (nothing without a
    reason: the engine was asked for, or every function compiles)."""
    if why:
        print(f"simcards: this run plays on the Python engine (the environments' table, slower): "
              f"{why}", file=sys.stderr, flush=True)


def compiled_functions(users: Sequence[UserPolicy | None]) -> tuple[list[Any], np.ndarray]:
    """The distinct functions among ``users`` compiled in this process, padded with spare
    slots to :data:`MAX_USER_POLICIES`, and each seat's slot (-1 for a built-in seat)."""
    from simcards.core.user_kernel import spare

    order = distinct(users)
    fns = []
    for u in order:
        fn, why = u.compiled()
        if fn is None:
            raise UsageError(f"numba cannot compile {u.text()}: {why}")
        fns.append(fn)
    slot = np.array([-1 if u is None else order.index(u) for u in users], np.int64)
    return fns + [spare] * (MAX_USER_POLICIES - len(fns)), slot


def ask(fn: Any, user: UserPolicy, obs: np.ndarray, legal: np.ndarray, seat: str,
        actions: str) -> int:
    """One decision of a user function on the Python engine, checked: a function that raises
    or returns an action its mask does not allow stops the run with one line naming the
    function, the seat (``seat``, as the game says it) and the action; ``actions`` says what
    the legal actions are."""
    try:
        move = fn(obs, legal)
    except Exception as exc:  # the user's code failed: one line naming it
        raise UsageError(f"{user} raised {type(exc).__name__} at {seat}: {exc}") from None
    if (isinstance(move, bool) or not isinstance(move, int | np.integer)
            or not 0 <= move < len(legal) or not legal[move]):
        raise UsageError(f"{user} returned {move!r} at {seat}: not a legal action ({actions})")
    return int(move)


def illegal(user: UserPolicy, move: int, seat: str, actions: str) -> UsageError:
    """The error of a compiled chunk in which ``user`` returned ``move``, not legal, at
    ``seat``; or raised an exception there (``move`` is
    :data:`~simcards.core.user_kernel.RAISED`)."""
    from simcards.core.user_kernel import RAISED

    if move == RAISED:
        return UsageError(f"{user} raised an exception at {seat} (--engine python shows the "
                          "exception, where the command takes it)")
    return UsageError(f"{user} returned {move} at {seat}: not a legal action ({actions})")
