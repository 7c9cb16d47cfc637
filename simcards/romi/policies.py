"""Römi's policy kinds (Q2-Q5, Q7, Q8 of ``seeds/romi.md``), declared once as data.

``--policies`` takes one spec per seat (Q6): ``greedy``, ``rummy:K`` (play for a Römi until an
opponent holds K cards or fewer, Q3), ``threshold:X`` (open only with X points or more, Q4),
``expert`` (greedy's draws and melds with a discard weighed over the unseen cards, Q5),
``search:N`` (expert's turn and its alternatives weighed by N determinized play-outs each, Q7),
``seeing:N`` (Q8: the same search on the true state), ``random`` (Q6: uniform over the legal
moves, one move at a time) or ``PATH.py:FUNCTION`` (Q9: a player's own function of the
``romi_v0`` observation).
The engine (:mod:`simcards.romi.round_kernel`) takes a seat's policy as two integers, its kind code
and its one parameter (:data:`COLUMNS`). ``threshold``'s X may not be below the rules'
``open_min`` (O1): that bound is named here and supplied by :func:`policy_arrays` from the rules.

What a kind needs is declared with it (:attr:`~simcards.core.policyspec.PolicyKind.needs`):
``search`` and ``seeing`` need the :data:`SEARCH_KERNEL` (a table with such a seat plays its
rounds there, in small chunks, and only in the batch commands: the table environments refuse
them); ``random`` and ``user`` (Q9) need the :data:`TABLE_ENGINE`: they have no kernel code, since
the compiled engine decides a whole turn at once and has no move-by-move player, so a batch run
with such a seat plays every seat on the table engine (:mod:`simcards.romi.table_batch`), the
engine of the table environments; a ``user`` seat also needs the :data:`USER_FUNCTION`.

``seeing`` is no legal player (declared ``legal=False``): it sees the other hands and the order
of the stock (I2), which breaks I3. It is a bound, for ``rounds``, ``games``, ``compare`` and
``ladder`` (how much the hidden cards are worth to the search); the table environments refuse
it (:func:`check_table_seat`).
"""

from __future__ import annotations

from collections.abc import Sequence

from simcards.core.errors import UsageError
from simcards.core.policyspec import (
    USER_KIND,
    Param,
    PolicyKind,
    PolicyKinds,
    PolicySpec,
    SeatColumn,
)
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
SEEING_ILLEGAL = ("sees hidden cards (the other hands and the stock order, rule Q8): it is a "
                  "bound for rounds, games, compare and ladder, not a player")
"""Q8: why ``seeing`` is no legal player, as the table environments say it after the spec."""
SEARCH_KERNEL = "search kernel"
"""A need: the kind plays on :mod:`simcards.romi.search_kernel` (Q7, Q8), only in the batch
commands, in small chunks; the table environments refuse it."""
TABLE_ENGINE = "table engine"
"""A need: the compiled engine has no player for the kind (Q6); a batch run with one of them
plays on the table engine (:mod:`simcards.romi.table_batch`), where a seat picks one move at a
time."""
USER_FUNCTION = "user function"
"""A need: the seat asks the user's function (Q9) with its ``romi_v0`` observation and action
mask, one action code at a time (:mod:`simcards.romi.users`)."""
RANDOM_CODE = -1
"""``random``'s kind code: none the kernels know (:func:`policy_arrays` refuses it)."""
USER_CODE = -2
"""``user``'s kind code (Q9): none the kernels know either."""
COLUMNS = (SeatColumn("params", int, ("K", "X", "N")),)
"""The engine's seat arrays (:class:`~simcards.romi.kernel_state.Seats` after the kind codes):
the one parameter (Q3's K, Q4's X, Q7's and Q8's N)."""

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
               "weighed by N determinized play-outs each", needs=frozenset({SEARCH_KERNEL})),
    PolicyKind("seeing", POLICY_SEEING,
               (Param("N", int, 1, MAX_SAMPLES, 16, "play-outs per candidate"),),
               "Q8: Q7's search on the true state, seeing every hand and the stock",
               note=SEEING_NOTE, legal=False, illegal=SEEING_ILLEGAL,
               needs=frozenset({SEARCH_KERNEL})),
    PolicyKind("random", RANDOM_CODE, (),
               "Q6: uniform over the legal moves, one move at a time; played on the table "
               "engine", needs=frozenset({TABLE_ENGINE})),
    PolicyKind(USER_KIND, USER_CODE, (),
               "Q9: your own function f(obs, legal) -> action code of the romi_v0 "
               "environment; played on the table engine",
               needs=frozenset({TABLE_ENGINE, USER_FUNCTION})),
], COLUMNS)
"""Römi's policy kinds: what ``--policies`` accepts, with ranges and defaults."""


def policy_arrays(specs: Sequence[PolicySpec | str], rules: RomiRules) -> Seats:
    """The engine's form of per-seat policies: :class:`~simcards.romi.kernel_state.Seats`
    ``(kinds, params)``, int64 arrays with the kind
    code and the one parameter of each seat (0 for ``greedy``). Specs are checked against the
    rules (``threshold``'s X >= ``open_min``); a seat whose kind needs the table engine
    (``random``) is refused, since the kernels have no such player (Q6, :data:`TABLE_ENGINE`)."""
    if len(specs) != rules.players:
        raise UsageError(f"policies: need one per player, got {len(specs)} for "
                         f"{rules.players} players")
    checked = []
    for spec in specs:
        if isinstance(spec, str):
            spec = KINDS.parse(spec, {"open_min": rules.open_min})
        else:
            spec = KINDS.check(spec, {"open_min": rules.open_min})
        if TABLE_ENGINE in KINDS.kind(spec.kind).needs:
            raise UsageError(f"policies: {spec.text()} plays on the table engine, not the "
                             f"compiled one (rule {'Q9' if spec.user else 'Q6'})")
        checked.append(spec)
    return Seats(*KINDS.seat_arrays(checked))


def searching(kinds) -> bool:
    """Whether some seat of ``kinds`` (kernel codes) needs the search kernel (Q7, Q8), so that
    its rounds are played there."""
    return any(SEARCH_KERNEL in KINDS.by_code(int(k)).needs for k in kinds)


def check_table_seat(spec: PolicySpec) -> None:
    """Refuse a kind the table environments cannot seat: one that is no legal player (Q8,
    :meth:`~simcards.core.policyspec.PolicyKinds.check_legal`) or that needs the search kernel
    (Q7), one line saying why."""
    KINDS.check_legal(spec, "seat policy")
    if SEARCH_KERNEL in KINDS.kind(spec.kind).needs:
        raise UsageError(f"seat policy: {spec.text()} plays in rounds, games, compare and "
                         "ladder only (rule Q7); a table seats random, greedy, rummy, threshold "
                         "or expert")
