"""Players' own functions at a Ronda table (Q11): seated in the compiled hand and match kernels
(:func:`user_seats`; :func:`duplicate_seats` for ``compare``, whose plays move A's and B's
functions from seat to seat), or played on the Python table engine, the engine of the
``ronda_v0`` environment, on the very hands the compiled kernel plays (whole matches:
:mod:`simcards.ronda.table_matches`).

The compiled engine calls each function as a first-class function of one signature
(:data:`simcards.core.user_kernel.SIGNATURE`) from
:func:`simcards.ronda.play_kernel.play_hand` (matches, ``compare``, hands of three or four
players) or, for hands of two players, from
:func:`simcards.ronda.user_hands_kernel.user_hands` (the same hands and observations, on card
values), so each kernel is compiled and cached once for every user policy.

:func:`python_hands` plays the hands :func:`simcards.ronda.play_kernel.record_hands` records
from a chunk's stream (the kernel's own draws, so the same deals, dealers and uniforms) on
:class:`simcards.ronda.table.RondaTable`, asking each user seat with the environment's
observation and action mask (:func:`simcards.core.engines.ask`) and each built-in seat as the
kernel decides it (``random`` from the kernel's uniform, Q2; ``greedy`` by Q3), and adds the
hands up into the statistics the kernel returns: a function both engines can run gives the
same numbers on both.

Searching seats (``lookahead``, ``rollout``, ``ismcts``, ``seeing``) draw their samples from
their own streams in the kernel, which the reference's players do not share; a run on the
Python engine seats only ``random``, ``greedy`` and users' functions
(:data:`PYTHON_KINDS`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simcards.core.engines import ask, compiled_functions, illegal
from simcards.core.policyspec import USER_KIND, PolicySpec
from simcards.core.userpolicy import UserPolicy
from simcards.ronda import codes
from simcards.ronda import reference as ref
from simcards.ronda.kernel_state import KernelRules, UserSeats
from simcards.ronda.rules import RondaRules

ACTIONS = "a card id 0..39 of the seat's hand"
"""The legal actions of a Ronda seat, as an illegal action's error names them."""
PYTHON_KINDS = ("random", "greedy", USER_KIND)
"""The kinds the Python engine seats (module docstring)."""


def user_seats(users: Sequence[UserPolicy | None], rules: KernelRules) -> UserSeats:
    """The kernel's :class:`~simcards.ronda.kernel_state.UserSeats` for the seats ``users``
    (by seat, None for a built-in), compiled in this process."""
    from simcards.ronda.observation_kernel import SIZE

    fns, slot = compiled_functions(users)
    n = rules.players
    return UserSeats(tuple(fns), slot, np.zeros((n, SIZE), np.float32),
                     np.zeros((n, ref.N_CARDS), np.int8), np.zeros(3 + rules.sides, np.int64),
                     np.zeros(2, np.int64), np.zeros((2, rules.sides), np.int64))


def duplicate_seats(a: UserPolicy | None, b: UserPolicy | None,
                    rules: KernelRules) -> tuple[UserSeats, np.ndarray]:
    """The duplicate kernel's :class:`~simcards.ronda.kernel_state.UserSeats` for policy A's
    and B's functions (None for a built-in), with every seat's slot -1 (each play of a deal
    set writes them as it seats A and B), and ``user_ab``: A's and B's slots."""
    seats = user_seats([a, b], rules)
    user_ab = seats.slot.copy()
    return seats._replace(slot=np.full(rules.players, -1, np.int64)), user_ab


def check_duplicate_errors(seats: UserSeats, a: UserPolicy | None, b: UserPolicy | None,
                           user_ab: np.ndarray) -> None:
    """:func:`check_errors` for a duplicate chunk: the seat's function is the one its slot
    held in the play that stopped the chunk."""
    by_slot = {int(user_ab[0]): a, int(user_ab[1]): b}
    check_errors(seats, [by_slot.get(int(j)) for j in seats.slot])


def check_errors(seats: UserSeats, users: Sequence[UserPolicy | None]) -> None:
    """Refuse a chunk in which a user function chose a card its seat does not hold."""
    if seats.err[0]:
        p = int(seats.err[0]) - 1
        raise illegal(users[p], int(seats.err[1]), seat_name(p), ACTIONS)


def seat_name(p: int) -> str:
    """A seat as the errors of a user's function name it."""
    return f"seat {p}"


def python_hands(state: np.ndarray, size: int, dealer: int, rules: RondaRules,
                 specs: Sequence[PolicySpec], skip: int = 0) -> dict[str, np.ndarray]:
    """``size`` hands on the Python table engine, on the hands the kernel would play from
    ``state`` after its first ``skip`` (advanced as the kernel advances it; ``dealer`` a seat
    or -1 to draw it, D3): the statistics of :data:`simcards.ronda.hands_batch.STAT_NAMES`."""
    from simcards.ronda.hands_batch import new_stats
    from simcards.ronda.play_kernel import record_hands
    from simcards.ronda.policies import policy_arrays
    from simcards.ronda.table import RondaSetup, RondaTable

    seats = policy_arrays(specs)
    decks, dealers, us, _ = record_hands(state, size, dealer, seats, rules.kernel, skip)
    options = ref.RondaOptions(**rules.summary())
    deciders = [(s.kind, s.user.function() if s.user is not None else None, s.user)
                for s in specs]
    stats = new_stats(rules.n_sides)
    legal = np.zeros(ref.N_CARDS, np.int8)
    for h in range(size):
        table = RondaTable(RondaSetup(options, int(dealers[h]), False))
        for c in decks[h]:
            table.apply_chance(int(c))
        k = 0
        while table.current_player() >= 0:
            p = table.current_player()
            kind, fn, user = deciders[p]
            hand = table.hand
            if kind == USER_KIND:
                legal[:] = 0
                legal[hand.hands[p]] = 1
                card = ask(fn, user, table.observation(p), legal, seat_name(p), ACTIONS)
            elif kind == "random":
                card = ref.random_policy(hand.observation(p), float(us[h, k]))
            else:
                card = ref.greedy_policy(hand.observation(p))
            table.play(card)
            k += 1
        add_reference_hand(stats, table.hand, rules)
    return stats


def add_reference_hand(stats: dict[str, np.ndarray], hand: ref.HandState,
                       rules: RondaRules) -> None:
    """One finished reference hand added to the statistics, as the kernel adds its hands
    (:func:`simcards.ronda.value_kernel.add_hand` and the counters of A2)."""
    ns = rules.n_sides
    classic = rules.mode != "points"
    totals = np.zeros(ns, np.int64)
    capn = np.zeros(ns, np.int64)
    stats["hands"][0] += 1
    for t in range(ns):
        by_source = hand.points_by_source(t)
        for src, name in enumerate(codes.SOURCES):
            x = by_source[name]
            stats["points"][t, src] += x
            stats["points_sq"][t, src] += x * x
            totals[t] += x
        capn[t] = len(hand.captured_cards(t))
        stats["score"][t] += totals[t]
        stats["score_sq"][t] += totals[t] * totals[t]
        stats["cards"][t] += capn[t]
        stats["cards_sq"][t] += capn[t] * capn[t]
    key = capn if classic else totals
    best = key.max()
    if int((key == best).sum()) == 1:
        stats["hands_won"][int(key.argmax())] += 1
    for rec in hand.records:
        side = rules.side_of(rec.player)
        stats["derbas"][side] += rec.action == "derba"
        stats["rehits"][side] += rec.action == "rehit"
        stats["missas"][side] += rec.missa
    held = hand.holding_counters()
    rondas = sum(x[2] for x in held)
    tringlas = sum(x[3] for x in held)
    stats["holdings"][0] += len(held)
    stats["rondas"][0] += rondas
    stats["rondas_sq"][0] += rondas * rondas
    stats["tringlas"][0] += tringlas
    stats["tringlas_sq"][0] += tringlas * tringlas
