"""Römi's policy kinds (Q2-Q5 of ``seeds/romi.md``), declared once as data.

``--policies`` takes one spec per seat (Q6): ``greedy``, ``rummy:K`` (play for a Römi until an
opponent holds K cards or fewer, Q3), ``threshold:X`` (open only with X points or more, Q4) or
``expert`` (greedy's draws and melds with a discard weighed over the unseen cards, Q5).
The engine (:mod:`simcards.romi.round_kernel`) takes a seat's policy as two integers, its kind code
and its one parameter. ``threshold``'s X may not be below the rules' ``open_min`` (O1): that
bound is named here and supplied by :func:`policy_arrays` from the rules.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simcards.core.errors import UsageError
from simcards.core.policyspec import Param, PolicyKind, PolicyKinds, PolicySpec
from simcards.romi.codes import POLICY_EXPERT, POLICY_GREEDY, POLICY_RUMMY, POLICY_THRESHOLD
from simcards.romi.kernel_state import Seats
from simcards.romi.rules import RomiRules

MAX_THRESHOLD = 1000
"""Q4: the largest opening threshold accepted (no lay-down of 15 cards is worth more)."""

KINDS = PolicyKinds("romi", [
    PolicyKind("greedy", POLICY_GREEDY, (),
               "Q2: opens at once, lays and adds all it can, keeps the lowest penalty"),
    PolicyKind("rummy", POLICY_RUMMY,
               (Param("K", int, 0, 14, 3, "plays greedy once an opponent holds K cards or "
                                          "fewer"),),
               "Q3: opens only to go out in the same turn (a Römi, -20)"),
    PolicyKind("threshold", POLICY_THRESHOLD,
               (Param("X", int, "open_min", MAX_THRESHOLD, 70, "least value of its opening"),),
               "Q4: greedy, but opens only with X points or more"),
    PolicyKind("expert", POLICY_EXPERT, (),
               "Q5: greedy's draws and melds; discards by the unseen cards, never feeding the "
               "next player"),
])
"""Römi's policy kinds: what ``--policies`` accepts, with ranges and defaults."""


def policy_arrays(specs: Sequence[PolicySpec | str], rules: RomiRules) -> Seats:
    """The engine's form of per-seat policies: :class:`~simcards.romi.kernel_state.Seats`
    ``(kinds, params)``, int64 arrays with the kind
    code and the one parameter of each seat (0 for ``greedy``). Specs are checked against the
    rules (``threshold``'s X >= ``open_min``)."""
    if len(specs) != rules.players:
        raise UsageError(f"policies: need one per player, got {len(specs)} for "
                         f"{rules.players} players")
    kinds = np.zeros(len(specs), np.int64)
    params = np.zeros(len(specs), np.int64)
    for p, spec in enumerate(specs):
        if isinstance(spec, str):
            spec = KINDS.parse(spec, {"open_min": rules.open_min})
        else:
            spec = KINDS.check(spec, {"open_min": rules.open_min})
        kinds[p] = KINDS.code(spec.kind)
        params[p] = int(spec.values[0]) if spec.values else 0
    return Seats(kinds, params)
