"""Ronda's policy kinds (Q2-Q6, Q8, Q9 of ``seeds/ronda.md``), declared once as data.

``--policies`` takes one spec per seat (Q6): ``random``, ``greedy``, ``lookahead:D`` (D plays
searched after the player's own, Q4), ``rollout:K`` (K consistent samples, Q5),
``ismcts:N:C`` (N iterations of information-set Monte Carlo tree search with exploration
constant C, Q8), ``ismcts-match:N:C`` (Q10: Q8 backing up the match result with V in a match)
or ``seeing:N:C`` (Q9: the same search on the true position). The kernels take
a seat's policy as its kind code (``codes.POLICY_*``), its integer parameter and its real one
(:class:`~simcards.ronda.kernel_state.Seats`, laid out by :data:`COLUMNS`).

``seeing`` is no legal player (declared ``legal=False``): it sees every other hand and the order
of the stock (the hidden cards, I2), which breaks I3. It is a bound, for ``hands``,
``matches``, ``compare`` and ``ladder`` (how much the hidden cards are worth to a search);
``ronda play`` and the table environments refuse it (:func:`check_legal`).

Each kind declares its cost per play relative to a ``greedy`` play (a rough model, from
timings): the hands, matches and compare commands size their chunks by it
(:func:`simcards.ronda.hands_batch.chunk_size`), so it is part of every run's identity. A
searching seat deals every other player a hand in each sample, so ``lookahead`` and ``rollout``
cost more with more players (measured: 2 to 3 times as much with four as with two).
"""

from __future__ import annotations

from collections.abc import Sequence

from simcards.core.policyspec import (
    USER_KIND,
    Param,
    PolicyKind,
    PolicyKinds,
    PolicySpec,
    SeatColumn,
)
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
SEEING_ILLEGAL = ("sees hidden cards (every hand and the stock order, rule Q9): it is a bound "
                  "for hands, matches, compare and ladder, not a player")
"""Q9: why ``seeing`` is no legal player, as :func:`check_legal` says it after the spec."""

LOOKAHEAD_COST = 250.0
"""Q4: cost of a ``lookahead:1`` play relative to a ``greedy`` play, two players (measured:
about 290 hands per second with one such seat against greedy, 35,000 all greedy, one core)."""
LOOKAHEAD_GROWTH = 2.0
"""Q4: each further ply searched multiplies that by about this (``lookahead:3`` measured at
about four times ``lookahead:1``: the exact last deal, Q7, weighs the same at every depth)."""
ROLLOUT_COST = 32.0
"""Q5: cost of a ``rollout:K`` play per sample, relative to a ``greedy`` play, two players
(``rollout:32`` measured at about 1,000 times a greedy play)."""
ISMCTS_COST = 0.8
"""Q8: cost of an ``ismcts:N`` play per iteration, relative to a ``greedy`` play, two players
(``ismcts:1000`` measured at about 85 hands per second against greedy, about 800 times a
greedy play: one sample and one playout to the end of the hand per iteration)."""
SEEING_COST = 0.55
"""Q9: cost of a ``seeing:N`` play per iteration, relative to a ``greedy`` play: Q8's search
without the sampling (``seeing:1000`` measured at about 127 hands per second against greedy,
where ``ismcts:1000`` made 85)."""

USER_FUNCTION = "user function"
"""A need: the seat calls the player's own function (Q11) with its observation; the compiled
hand engine calls it as a first-class function, the Python engine (``--engine python``) as
Python."""

COLUMNS = (SeatColumn("params", int, ("D", "K", "N")), SeatColumn("explore", float, ("C",)))
"""The kernels' seat arrays (:class:`~simcards.ronda.kernel_state.Seats` after the kind codes):
the integer parameter (Q4's D, Q5's K, Q8-Q10's N) and the real one (C)."""

KINDS = PolicyKinds("ronda", [
    PolicyKind("random", codes.POLICY_RANDOM, (), "Q2: any card of the hand, uniformly"),
    PolicyKind("greedy", codes.POLICY_GREEDY, (),
               "Q3: best immediate result, ties by the lowest Derba risk"),
    PolicyKind("lookahead", codes.POLICY_LOOKAHEAD,
               (Param("D", int, 1, MAX_DEPTH, 1, "plays searched after its own"),),
               "Q4: own play plus the best replies, over 32 consistent samples",
               cost=lambda v, n: LOOKAHEAD_COST * LOOKAHEAD_GROWTH ** (int(v[0]) - 1) * (n - 1)),
    PolicyKind("rollout", codes.POLICY_ROLLOUT,
               (Param("K", int, 1, MAX_ROLLOUTS, 32, "consistent samples"),),
               "Q5: K samples, each card followed by greedy play to the end of the hand",
               cost=lambda v, n: ROLLOUT_COST * int(v[0]) * (n - 1)),
    PolicyKind("ismcts", codes.POLICY_ISMCTS,
               (Param("N", int, 1, MAX_ISMCTS, 1000, "iterations"),
                Param("C", float, 0.0, 100.0, ISMCTS_C, "exploration constant")),
               "Q8: information-set Monte Carlo tree search, greedy playouts",
               cost=lambda v, n: ISMCTS_COST * int(v[0])),
    PolicyKind("ismcts-match", codes.POLICY_ISMCTS_MATCH,
               (Param("N", int, 1, MAX_ISMCTS, 1000, "iterations"),
                Param("C", float, 0.0, 100.0, ISMCTS_C, "exploration constant")),
               "Q10: Q8 backing up the match result with V where the match is at stake",
               cost=lambda v, n: ISMCTS_COST * int(v[0])),
    PolicyKind("seeing", codes.POLICY_SEEING,
               (Param("N", int, 1, MAX_ISMCTS, 1000, "iterations"),
                Param("C", float, 0.0, 100.0, ISMCTS_C, "exploration constant")),
               "Q9: Q8's search on the true position, seeing every hand and the stock",
               note=SEEING_NOTE, legal=False, illegal=SEEING_ILLEGAL,
               cost=lambda v, n: SEEING_COST * int(v[0])),
    PolicyKind(USER_KIND, codes.POLICY_USER, (),
               "Q11: your own function f(obs, legal) -> card id, of the ronda_v0 observation "
               "(ronda_match_v0's in a match)",
               note="your function f(obs, legal); matches, compare and ladder need numba to "
               "compile it",
               needs=frozenset({USER_FUNCTION})),
], COLUMNS)
"""Ronda's policy kinds: what ``--policies`` accepts, with ranges and defaults, and each kind's
cost per play (module docstring)."""


def policy_arrays(specs: Sequence[PolicySpec | str]) -> Seats:
    """The kernels' form of per-seat policies: :class:`~simcards.ronda.kernel_state.Seats`,
    int64 arrays with the kind code and the integer parameter of each seat (0 for ``random``
    and ``greedy``), and a float64 array with its real parameter (``ismcts``'s C, else 0)
    (:meth:`~simcards.core.policyspec.PolicyKinds.seat_arrays`, by :data:`COLUMNS`)."""
    return Seats(*KINDS.seat_arrays([KINDS.parse(s) if isinstance(s, str) else s
                                     for s in specs]))


check_legal = KINDS.check_legal
"""Refuse a policy that sees hidden cards (Q9) where only legal players may sit (``ronda
play``, the table environments): one line saying why, under ``where``
(:meth:`~simcards.core.policyspec.PolicyKinds.check_legal` of :data:`KINDS`)."""
