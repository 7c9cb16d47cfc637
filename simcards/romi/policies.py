"""Römi's policy kinds (Q2-Q5, Q7, Q8 of ``seeds/romi.md``), declared once as data.

``--policies`` takes one spec per seat (Q6): ``greedy``, ``rummy:K`` (play for a Römi until an
opponent holds K cards or fewer, Q3), ``threshold:X`` (open only with X points or more, Q4),
``expert`` (greedy's draws and melds with a discard weighed over the unseen cards, Q5),
``search:N`` (expert's turn and its alternatives weighed by N determinized play-outs each, Q7),
``seeing:N`` (Q8: the same search on the true state) or ``random`` (Q6: uniform over the legal
moves, one move at a time).
The engine (:mod:`simcards.romi.round_kernel`) takes a seat's policy as two integers, its kind code
and its one parameter. ``threshold``'s X may not be below the rules' ``open_min`` (O1): that
bound is named here and supplied by :func:`policy_arrays` from the rules.

``random`` has no kernel code: the compiled engine decides a whole turn at once and has no
move-by-move player, so a batch run with a ``random`` seat plays every seat on the table engine
(:mod:`simcards.romi.table_batch`), the engine of the table environments.

``seeing`` is no legal player: it sees the other hands and the order of the stock (I2), which
breaks I3. It is a bound, for ``rounds``, ``games``, ``compare`` and ``ladder`` (how much the
hidden cards are worth to the search); the table environments refuse it (:func:`check_legal`),
and ``search`` too, which plays only in the batch commands.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simcards.core.errors import UsageError
from simcards.core.policyspec import Param, PolicyKind, PolicyKinds, PolicySpec
from simcards.romi.codes import (
    POLICY_EXPERT,
    POLICY_GREEDY,
    POLICY_RUMMY,
    POLICY_SEARCH,
    POLICY_SEEING,
    POLICY_THRESHOLD,
)
from simcards.romi.kernel_state import Seats
from simcards.romi.rules import RomiRules

MAX_THRESHOLD = 1000
"""Q4: the largest opening threshold accepted (no lay-down of 15 cards is worth more)."""
MAX_SAMPLES = 10_000
"""Q7, Q8: the most play-outs per candidate of a searching decision
(``search_kernel.MAX_SAMPLES``)."""
SEEING_NOTE = ("sees the hidden cards (the other hands and the stock order): an all-seeing "
               "bound for rounds, games, compare and ladder, not a legal player")
"""Q8: what every help text that lists ``seeing`` says of it."""
SEES_HIDDEN = frozenset({"seeing"})
"""The kinds that read hidden cards (I2) and so are no legal player (Q8)."""
BATCH_ONLY = frozenset({"search", "seeing"})
"""The kinds only the batch commands play (Q7, Q8): the table environments refuse them."""
TABLE_ENGINE = frozenset({"random"})
"""The kinds the compiled engine has no player for (Q6): a batch run with one of them plays on
the table engine (:mod:`simcards.romi.table_batch`), where a seat picks one move at a time."""
RANDOM_CODE = -1
"""``random``'s kind code: none the kernels know (:func:`policy_arrays` refuses it)."""

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
    PolicyKind("search", POLICY_SEARCH,
               (Param("N", int, 1, MAX_SAMPLES, 16, "play-outs per candidate"),),
               "Q7: expert's turn and its alternatives (draw, discard, holding the opening) "
               "weighed by N determinized play-outs each"),
    PolicyKind("seeing", POLICY_SEEING,
               (Param("N", int, 1, MAX_SAMPLES, 16, "play-outs per candidate"),),
               "Q8: Q7's search on the true state, seeing every hand and the stock",
               note=SEEING_NOTE),
    PolicyKind("random", RANDOM_CODE, (),
               "Q6: uniform over the legal moves, one move at a time; played on the table "
               "engine"),
])
"""Römi's policy kinds: what ``--policies`` accepts, with ranges and defaults."""


def policy_arrays(specs: Sequence[PolicySpec | str], rules: RomiRules) -> Seats:
    """The engine's form of per-seat policies: :class:`~simcards.romi.kernel_state.Seats`
    ``(kinds, params)``, int64 arrays with the kind
    code and the one parameter of each seat (0 for ``greedy``). Specs are checked against the
    rules (``threshold``'s X >= ``open_min``); a ``random`` seat is refused, since the kernels
    have no such player (Q6, :data:`TABLE_ENGINE`)."""
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
        if spec.kind in TABLE_ENGINE:
            raise UsageError(f"policies: {spec.text()} plays on the table engine, not the "
                             "compiled one (rule Q6)")
        kinds[p] = KINDS.code(spec.kind)
        params[p] = int(spec.values[0]) if spec.values else 0
    return Seats(kinds, params)


def searching(kinds) -> bool:
    """Whether some seat of ``kinds`` searches (Q7, Q8), so that its rounds are played by
    :mod:`simcards.romi.search_kernel`."""
    return any(int(k) in (POLICY_SEARCH, POLICY_SEEING) for k in kinds)


def check_table_seat(spec: PolicySpec) -> None:
    """Refuse a kind the table environments cannot seat (Q7, Q8): one line saying why."""
    if spec.kind in SEES_HIDDEN:
        raise UsageError(f"seat policy: {spec.text()} sees hidden cards (the other hands and "
                         "the stock order, rule Q8): it is a bound for rounds, games, compare "
                         "and ladder, not a player")
    if spec.kind in BATCH_ONLY:
        raise UsageError(f"seat policy: {spec.text()} plays in rounds, games, compare and "
                         "ladder only (rule Q7); a table seats random, greedy, rummy, threshold "
                         "or expert")
