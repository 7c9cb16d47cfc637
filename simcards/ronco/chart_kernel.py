"""A policy's decision in every situation of a keep chart (:mod:`simcards.ronco.charts`),
asked of the round kernel's own dispatch, so that a chart written from a policy holds exactly
the decisions the kernel plays."""

from __future__ import annotations

from numba import njit

from simcards.ronco.kernel_state import Decision
from simcards.ronco.round_kernel import _keeps


@njit(cache=True)
def decide(seats, n, pos, hist, card, dealt, rules, users, keep):
    """``keep[r]``: whether the seat at position ``pos[r]`` of a table of ``n`` keeps (the
    dealer: does not cut) holding strength ``card[r]``, the earlier positions' public actions
    being ``hist[r]`` (base 3, the latest last) and ``dealt[r]`` the strength it was dealt when
    the previous position swapped with it (else -1). ``seats`` holds the policy at every
    position; ``users`` its function (S5) or None. Each situation is a decision of its own:
    a user seat's observation is written whole for it."""
    for r in range(pos.shape[0]):
        if users is not None:
            users.mark[0] = -1
        i = pos[r]
        dec = Decision(card[r], i, i == n - 1, dealt[r] >= 0, dealt[r], hist[r])
        keep[r] = _keeps(seats, i, 0.5, n, dec, rules, users)
