"""The compiled side of users' own policies (:mod:`simcards.core.userpolicy`): the one
signature every game's kernels call them by, the compilation of a user's function to it, and
the function of a spare slot.

One signature for every game: a policy reads the seat's observation (float32) and its action
mask (int8) and returns an action code. The kernels take the compiled policies as first-class
function arguments of this type, so they are compiled and cached once for every policy.
"""

from __future__ import annotations

import warnings
from typing import Any

from numba import cfunc, njit, types
from numba.core.errors import NumbaExperimentalFeatureWarning

SIGNATURE = types.int64(types.float32[::1], types.int8[::1])
"""``f(obs, legal) -> action`` as the kernels call it."""

# A policy is a first-class function in the kernels; numba calls the feature experimental.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)


@cfunc(SIGNATURE, cache=True)
def spare(obs, legal):
    """The function of a slot no seat uses (never called)."""
    return 0


RAISED = -(2**62)
"""What a compiled policy returns when the user's function raised an exception: an action no
game has, so the kernels refuse it as they refuse any action that is not legal, and the
error says the function raised (:func:`simcards.core.engines.illegal`)."""


@njit
def _guarded(inner, obs, legal):
    """``inner(obs, legal)``, an exception it raises answered as :data:`RAISED`."""
    try:
        return inner(obs, legal)
    except Exception:
        return RAISED


def compile_policy(fn: Any) -> Any:
    """``fn`` (a plain Python function) compiled to :data:`SIGNATURE`, an exception it raises
    answered as :data:`RAISED` (a compiled function cannot raise into its caller: numba would
    print the exception and return 0, an action); numba's error when it cannot be compiled."""
    inner = njit(fn)
    return cfunc(SIGNATURE)(lambda obs, legal: _guarded(inner, obs, legal))
