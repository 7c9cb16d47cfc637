"""Ronda's searching policies in numba: ``lookahead:D`` (Q4), ``rollout:K`` (Q5) and the
exact last deal (Q7) of ``seeds/ronda.md``."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def new_search_workspace(rl):
    """The scratch arrays one searching decision works in; reused decision after decision."""
    return (np.zeros(1, np.int64),)


@njit(cache=True)
def search_card(p, kind, param, rl, ds, ws, sw, pst):
    """The card a searching seat plays (Q4, Q5, Q7)."""
    raise ValueError("searching policies are not in the kernel yet")
