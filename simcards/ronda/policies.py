"""Ronda's policy kinds (Q2-Q6, Q8, Q9 of ``seeds/ronda.md``), declared once as data.

``--policies`` takes one spec per seat (Q6): ``random``, ``greedy``, ``lookahead:D`` (D plays
searched after the player's own, Q4), ``rollout:K`` (K consistent samples, Q5),
``ismcts:N:C`` (N iterations of information-set Monte Carlo tree search with exploration
constant C, Q8), ``ismcts-match:N:C`` (Q10: Q8 backing up the match result with V in a match)
or ``seeing:N:C`` (Q9: the same search on the true position). The kernels take
a seat's policy as its kind code (``codes.POLICY_*``), its integer parameter and its real one
(:class:`~simcards.ronda.kernel_state.Seats`).

``seeing`` is no legal player: it sees every other hand and the order of the stock (the hidden
cards, I2), which breaks I3. It is a bound, for ``hands``, ``matches``, ``compare`` and
``ladder`` (how much the hidden cards are worth to a search); ``ronda play`` and the table
environments refuse it (:func:`check_legal`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simcards.core.errors import UsageError
from simcards.core.policyspec import Param, PolicyKind, PolicyKinds, PolicySpec
from simcards.ronda import codes
from simcards.ronda.kernel_state import Seats

MAX_DEPTH = 8
"""Q4: the deepest ``lookahead`` the kernel searches (each ply multiplies the work by ~4)."""
MAX_ROLLOUTS = 100_000
"""Q5: the most samples a ``rollout`` decision may draw."""
MAX_ISMCTS = 100_000
"""Q8, Q9: the most iterations an ``ismcts`` or ``seeing`` decision may run (its tree holds one
node more)."""
ISMCTS_C = 0.5
"""Q8: the default exploration constant C of ``ismcts`` (values are normalized to [0, 1] by
the spread of values seen at the decision, so C has one meaning everywhere). Chosen on a grid
at N = 200 against ``greedy`` in duplicate, two players, 4,000 deal sets per value (``simcards
ronda compare ismcts:200:C greedy``): the paired win-rate difference was +0.25 at C = 0.1,
+0.37 at 0.25, 0.5, 0.7 and 1.0 (95% intervals +-0.02; 0.5 the best, also in points per
hand), +0.34 at 1.5 and +0.32 at 2.5."""

SEEING_NOTE = ("sees the hidden cards (every hand and the stock order): an all-seeing bound "
               "for hands, matches, compare and ladder, not a legal player; ronda play "
               "refuses it")
"""Q9: what every help text that lists ``seeing`` says of it."""
SEES_HIDDEN = frozenset({"seeing"})
"""The kinds that read hidden cards (I2) and so are no legal player (Q9)."""

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
    PolicyKind("ismcts", codes.POLICY_ISMCTS,
               (Param("N", int, 1, MAX_ISMCTS, 1000, "iterations"),
                Param("C", float, 0.0, 100.0, ISMCTS_C, "exploration constant")),
               "Q8: information-set Monte Carlo tree search, greedy playouts"),
    PolicyKind("ismcts-match", codes.POLICY_ISMCTS_MATCH,
               (Param("N", int, 1, MAX_ISMCTS, 1000, "iterations"),
                Param("C", float, 0.0, 100.0, ISMCTS_C, "exploration constant")),
               "Q10: Q8 backing up the match result with V where the match is at stake"),
    PolicyKind("seeing", codes.POLICY_SEEING,
               (Param("N", int, 1, MAX_ISMCTS, 1000, "iterations"),
                Param("C", float, 0.0, 100.0, ISMCTS_C, "exploration constant")),
               "Q9: Q8's search on the true position, seeing every hand and the stock",
               note=SEEING_NOTE),
])
"""Ronda's policy kinds: what ``--policies`` accepts, with ranges and defaults."""


def policy_arrays(specs: Sequence[PolicySpec | str]) -> Seats:
    """The kernels' form of per-seat policies: :class:`~simcards.ronda.kernel_state.Seats`,
    int64 arrays with the kind code and the integer parameter of each seat (0 for ``random``
    and ``greedy``), and a float64 array with its real parameter (``ismcts``'s C, else 0)."""
    kinds = np.zeros(len(specs), np.int64)
    params = np.zeros(len(specs), np.int64)
    explore = np.zeros(len(specs), np.float64)
    for p, spec in enumerate(specs):
        if isinstance(spec, str):
            spec = KINDS.parse(spec)
        kinds[p] = KINDS.code(spec.kind)
        params[p] = int(spec.values[0]) if spec.values else 0
        if len(spec.values) > 1:
            explore[p] = float(spec.values[1])
    return Seats(kinds, params, explore)


def check_legal(spec: PolicySpec | str, where: str = "--policies") -> None:
    """Refuse a policy that sees hidden cards (Q9) where only legal players may sit (``ronda
    play``, the table environments): one line saying why, under ``where``."""
    kind = spec.kind if isinstance(spec, PolicySpec) else str(spec).partition(":")[0].strip()
    if kind.lower() in SEES_HIDDEN:
        text = spec.text() if isinstance(spec, PolicySpec) else str(spec).strip()
        raise UsageError(f"{where}: {text} sees hidden cards (every hand and the stock order, "
                         "rule Q9): it is a bound for hands, matches, compare and ladder, not "
                         "a player")
