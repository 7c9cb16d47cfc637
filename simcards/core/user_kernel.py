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

from numba import cfunc, types
from numba.core.errors import NumbaExperimentalFeatureWarning

SIGNATURE = types.int64(types.float32[::1], types.int8[::1])
"""``f(obs, legal) -> action`` as the kernels call it."""

# A policy is a first-class function in the kernels; numba calls the feature experimental.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning)


@cfunc(SIGNATURE, cache=True)
def spare(obs, legal):
    """The function of a slot no seat uses (never called)."""
    return 0


def compile_policy(fn: Any) -> Any:
    """``fn`` (a plain Python function) compiled to :data:`SIGNATURE`; numba's error when it
    cannot be."""
    return cfunc(SIGNATURE)(fn)
