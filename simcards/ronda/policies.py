"""Ronda's policy kinds (Q2-Q6 of ``seeds/ronda.md``), declared once as data.

``--policies`` takes one spec per seat (Q6): ``random``, ``greedy``, ``lookahead:D`` (D plays
searched after the player's own, Q4) or ``rollout:K`` (K consistent samples, Q5). The kernels
take a seat's policy as two integers, its kind code (``codes.POLICY_*``) and its one parameter.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simcards.core.policyspec import Param, PolicyKind, PolicyKinds, PolicySpec
from simcards.ronda import codes
from simcards.ronda.kernel_state import Seats

MAX_DEPTH = 8
"""Q4: the deepest ``lookahead`` the kernel searches (each ply multiplies the work by ~4)."""
MAX_ROLLOUTS = 100_000
"""Q5: the most samples a ``rollout`` decision may draw."""

KINDS = PolicyKinds("ronda", [
    PolicyKind("random", codes.POLICY_RANDOM, (), "Q2: any card of the hand, uniformly"),
    PolicyKind("greedy", codes.POLICY_GREEDY, (),
               "Q3: best immediate result, ties by the lowest Derba risk"),
    PolicyKind("lookahead", codes.POLICY_LOOKAHEAD,
               (Param("D", int, 1, MAX_DEPTH, 1, "plays searched after its own"),),
               "Q4: own play plus the best replies, over 32 consistent samples"),
    PolicyKind("rollout", codes.POLICY_ROLLOUT,
               (Param("K", int, 1, MAX_ROLLOUTS, 32, "consistent samples"),),
               "Q5: K samples, each card followed by greedy play to the end of the hand"),
])
"""Ronda's policy kinds: what ``--policies`` accepts, with ranges and defaults."""


def policy_arrays(specs: Sequence[PolicySpec | str]) -> Seats:
    """The kernels' form of per-seat policies: :class:`~simcards.ronda.kernel_state.Seats`,
    int64 arrays with the kind code and the one parameter of each seat (0 for ``random`` and
    ``greedy``)."""
    kinds = np.zeros(len(specs), np.int64)
    params = np.zeros(len(specs), np.int64)
    for p, spec in enumerate(specs):
        if isinstance(spec, str):
            spec = KINDS.parse(spec)
        kinds[p] = KINDS.code(spec.kind)
        params[p] = int(spec.values[0]) if spec.values else 0
    return Seats(kinds, params)
