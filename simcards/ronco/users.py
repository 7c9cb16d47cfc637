"""Users' own functions at a Ronco table (S5): seated in the compiled round kernel, or played
on the Python table engine when numba cannot compile one of them.

The compiled engine calls each function as a first-class function of one signature
(:data:`simcards.core.user_kernel.SIGNATURE`), so
:func:`simcards.ronco.round_kernel.simulate_rounds` is compiled and cached once for every user
policy. The Python engine (:func:`python_rounds`) plays the very
deals the kernel would (:func:`simcards.ronco.round_kernel.record_deals`) on
:class:`simcards.ronco.table.RoundState`, the engine of the ``ronco_v0`` environment, asking
each user seat with the environment's observation: a function that both engines can run gives
the same numbers on both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simcards.core.engines import ask, compiled_functions, illegal
from simcards.core.userpolicy import UserPolicy
from simcards.ronco.kernel_state import KernelRules, UserSeats

ACTIONS = "0 keep, 1 pass"
"""The legal actions of a Ronco seat, as an illegal action's error names them."""

def user_seats(users: Sequence[UserPolicy | None], rules: KernelRules, n: int,
               lives: int = 0) -> UserSeats:
    """The kernel's :class:`~simcards.ronco.kernel_state.UserSeats` for the seats ``users``
    (by position, None for a built-in), compiled in this process; at a table of up to
    :data:`~simcards.ronco.observation_kernel.MAX_TABLED` positions with each user position's
    action in every situation (:func:`~simcards.ronco.observation_kernel.tabulate`, once per
    process and table).

    ``lives`` > 0: the seats of a game of ``n`` players (``users`` by player) starting with
    that many lives, who see the ``ronco_game_v0`` observation and are asked at every decision
    (their answers may depend on the lives); the game kernel seats them round by round."""
    from simcards.ronco.observation_kernel import MAX_TABLED, tabulate

    fns, slot = compiled_functions(users)
    counts = np.asarray(rules.counts)
    cls = (np.cumsum(counts > 0) - 1).astype(np.int64)  # a strength's rank among those dealt
    c = int(np.count_nonzero(counts))
    mark = np.array([0, -1, -1, -1, -1], np.int64)
    if lives > 0:
        obs = np.zeros(c * (n + 4) + 10 * n + 3, np.float32)
        game = np.array([n, lives, -1, *slot], np.int64)
        return UserSeats(tuple(fns), slot.copy(), obs, np.ones(2, np.int8), cls, c, mark,
                         np.zeros(2, np.int64), np.zeros(0, np.int64), np.zeros(n, np.int64),
                         np.zeros(n, np.int64), np.zeros(n, np.int64), game)
    obs = np.zeros(c * (n + 4) + 7 * n + 3, np.float32)
    obs[-1] = n / 20
    off, size = table_offsets(slot, rules.top)
    key = (tuple(None if u is None else u.digest for u in users), counts.tobytes(), n)
    table = _TABLES.get(key) if n <= MAX_TABLED else np.zeros(0, np.int64)
    seats = UserSeats(tuple(fns), slot, obs, np.ones(2, np.int8), cls, c, mark,
                      np.zeros(2, np.int64),
                      np.zeros(size, np.int64) if table is None else table, off,
                      np.zeros(0, np.int64), np.zeros(0, np.int64),
                      np.array([n, 0, -1], np.int64))
    if table is None:
        tabulate(seats, n, counts, rules.top)
        _TABLES[key] = seats.table
    return seats


def table_offsets(slot: np.ndarray, top: int) -> tuple[np.ndarray, int]:
    """Where each position's situations start in a user seats' table, and its size: a user
    position ``i`` has ``3**i`` histories, each with every dealt strength (or none) and held
    strength; a built-in position has none."""
    off = np.zeros(len(slot), np.int64)
    size = 0
    for i, k in enumerate(slot):
        off[i] = size
        if k >= 0:
            size += 3**i * (top + 2) * (top + 1)
    return off, size


_TABLES: dict[tuple, np.ndarray] = {}
"""This process's user seats' tables, by the functions at each position, the deck and the
table size."""


def check_errors(seats: UserSeats, users: Sequence[UserPolicy | None]) -> None:
    """Refuse a chunk in which a user function returned an action that is not legal (a game:
    ``err`` names the player, ``users`` are by player)."""
    if seats.err[0]:
        at = int(seats.err[0]) - 1
        where = f"player {at}" if seats.seat.shape[0] else f"position {at}"
        raise illegal(users[at], int(seats.err[1]), where, ACTIONS)


def python_rounds(state: np.ndarray, size: int, n: int, kind: np.ndarray,
                  rules: Any, policies: Sequence[Any], skip: int = 0
                  ) -> tuple[np.ndarray, ...]:
    """``size`` rounds on the Python table engine, on the deals the kernel would play from
    ``state`` (advanced as the kernel advances it): ``(lost, double, tallies)`` as
    :func:`simcards.ronco.round_kernel.simulate_rounds` returns them. ``rules`` is the
    :class:`~simcards.ronco.rules.RoncoRules`, ``policies`` the positions'
    :class:`~simcards.ronco.policies.Policy`; the first ``skip`` deals from ``state`` are
    drawn and not played."""
    from simcards.ronco import reference as ref
    from simcards.ronco.round_kernel import record_deals
    from simcards.ronco.table import KEEP, PASS, PASSED, CardTable, RoundState

    table = CardTable.build(rules)
    cards, us = record_deals(state, size, n, kind, table.n_cards, skip)
    legal = np.ones(2, np.int8)
    deciders = []
    for pol in policies:
        if pol.user is not None:
            deciders.append(("user", pol.user.function(), pol.user))
        else:
            deciders.append(("ref", ref.RefPolicy(pol.kind, pol.T, pol.Td, pol.p), None))
    lost = np.zeros(n, np.int64)
    double = np.zeros(n, np.int64)
    tallies = np.zeros(3, np.int64)
    for r in range(size):
        st = RoundState(table, n)
        for j in range(n):
            st.apply_chance(int(cards[r, j]))
        while not st.done:
            i = st.current_player()
            if i < 0:  # the dealer cut: the card under the dealt ones (R6)
                st.apply_chance(int(cards[r, n]))
                continue
            how, fn, user = deciders[i]
            if how == "user":
                move = ask(fn, user, st.observation(i), legal, f"position {i}", ACTIONS)
            else:
                keeps = ref._decide_keep(fn, st.decision_view(), float(us[r, i]),
                                         deck=rules.deck, ties=rules.ties,
                                         cut_king=rules.cut_king, poroli=rules.poroli)
                move = KEEP if keeps else PASS
            st.play(move)
        for i in range(n):
            lost[i] += st.losers[i]
            double[i] += st.double[i]
        tallies[0] += st.absolute_tie
        tallies[1] += st.acts[-1] == PASSED
        tallies[2] += st.cut_king_fired
    return lost, double, tallies

