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



def python_deciders(policies: Sequence[Any]) -> list[tuple[Any, Any, Any]]:
    """Each player's decider on the Python table engine, by player: ``(function, user, None)``
    for a function of the user's (S5), ``(None, None, RefPolicy)`` for a built-in policy."""
    from simcards.ronco import reference as ref

    return [(p.user.function(), p.user, None) if p.user is not None
            else (None, None, ref.RefPolicy(p.kind, p.T, p.Td, p.p)) for p in policies]


def python_game(state: np.ndarray, setup: Any, first_dealer: int, deciders: Sequence[tuple],
                draw_uniforms: bool, perm: np.ndarray, us: np.ndarray) -> Any:
    """One whole game on :class:`simcards.ronco.table.GameState` (the engine of the
    ``ronco_game_v0`` environment), drawn from ``state`` exactly as the game kernel's
    ``play_game`` draws it (the module docstring of :mod:`simcards.ronco.game_kernel`: the
    first dealer when drawn, then per round one deal of the survivors' cards and the cut card,
    and, with ``draw_uniforms``, one uniform per survivor), ``state`` advanced in place: both
    engines play the same game. A game's draws depend on its play (how many survive, how long
    it lasts), so the game is drawn as it is played. ``setup`` is the
    :class:`~simcards.ronco.table.RoncoSetup`, ``first_dealer`` a seat or -1 (drawn, G4),
    ``deciders`` by player (:func:`python_deciders`); ``perm`` is the deck's card indices,
    shuffled in place as the kernel shuffles its deck, ``us`` scratch for the uniforms.
    Returns the finished game."""
    from simcards.core.rng_kernel import randbelow, uniform
    from simcards.ronco import reference as ref
    from simcards.ronco.round_kernel import deal
    from simcards.ronco.table import CHANCE, KEEP, PASS, GameState

    rules = setup.rules
    legal = np.ones(2, np.int8)
    st = GameState(setup)
    st.apply_chance(first_dealer if first_dealer >= 0 else int(randbelow(state, setup.players)))
    dealt = 0  # rounds dealt so far
    while not st.over:
        if len(st.rounds) > dealt:  # a new round (or a replayed one, G6): its deal
            dealt = len(st.rounds)
            k = len(st.order)
            deal(state, perm, k + 1)
            for pos in range(k if draw_uniforms else 0):
                us[pos] = uniform(state)
            for pos in range(k):
                st.apply_chance(int(perm[pos]))
            continue
        p = st.current_player()
        if p == CHANCE:  # the dealer cut: the card under the dealt ones (R6)
            st.apply_chance(int(perm[len(st.order)]))
            continue
        fn, user, builtin = deciders[p]
        pos = st.order.index(p)
        if user is not None:
            move = ask(fn, user, st.observation(p), legal, f"player {p}", ACTIONS)
        else:
            keeps = ref._decide_keep(builtin, st.round.decision_view(), float(us[pos]),
                                     deck=rules.deck, ties=rules.ties,
                                     cut_king=rules.cut_king, poroli=rules.poroli)
            move = KEEP if keeps else PASS
        st.play(move)
    return st


def python_games(state: np.ndarray, size: int, n: int, lives: int, first_dealer: int,
                 rules: Any, policies: Sequence[Any], hist_len: int
                 ) -> tuple[np.ndarray, ...]:
    """``size`` whole games on the Python table engine (:func:`python_game`), drawing from
    ``state`` exactly as :func:`simcards.ronco.game_kernel.simulate_games` does: both engines
    play the same games. Returns ``(wins, endings, hist, places, rounds_sums)`` as the kernel
    does; ``first_dealer`` is a seat or -1 (drawn, G4)."""
    from simcards.ronco.codes import ENDING_ALL_OUT, ENDING_VOID, ENDING_WON
    from simcards.ronco.table import RoncoSetup

    setup = RoncoSetup(rules, n, lives, None)
    perm = np.arange(setup.table.n_cards)  # the kernel's deck, shuffled in place game after game
    draw_uniforms = any(p.kind == "random" for p in policies)
    deciders = python_deciders(policies)
    wins = np.zeros(n, np.int64)
    endings = np.zeros(4, np.int64)
    hist = np.zeros(hist_len, np.int64)
    places = np.zeros((n, n), np.int64)
    sums = np.zeros(2, np.int64)
    us = np.zeros(n, np.float64)
    for _ in range(size):
        st = python_game(state, setup, first_dealer, deciders, draw_uniforms, perm, us)
        played = len(st.rounds)
        if st.void:
            endings[ENDING_VOID] += 1
        elif st.winner is not None:
            endings[ENDING_WON] += 1
            wins[st.winner] += 1
        else:
            endings[ENDING_ALL_OUT] += 1
        hist[min(played, hist_len - 1)] += 1
        sums[0] += played
        sums[1] += played * played
        out = [r or 0 for r in st.eliminated_in_round]
        for a in range(n):  # as the kernel's finish_places: players out strictly after a
            later = sum(1 for b in range(n) if out[a] and (not out[b] or out[b] > out[a]))
            places[a, later] += 1
    return wins, endings, hist, places, sums


def python_race(state: np.ndarray, size: int, n: int, lives: int, rules: Any, field: Any,
                candidates: Sequence[Any]) -> tuple[np.ndarray, ...]:
    """``size`` games of a race on the Python table engine, drawing from ``state`` exactly as
    :func:`simcards.ronco.race_kernel.race_games` does: per game one 64-bit seed, from which
    every candidate of ``candidates`` (the hero, player 0) replays the game (:func:`python_game`
    from the seed's generator state and a fresh deck, common random numbers) against ``field``
    (the :class:`~simcards.ronco.policies.Policy` of every other player, the user's function
    included, S5). Returns ``(wins[K], beats[K, K], games[1])`` as the kernel does."""
    from simcards.core.rng_kernel import next_u64, seed_state
    from simcards.ronco.table import RoncoSetup

    setup = RoncoSetup(rules, n, lives, None)
    cards = np.arange(setup.table.n_cards)
    perm = cards.copy()
    game_state = np.zeros(4, np.uint64)
    us = np.zeros(n, np.float64)
    deciders = python_deciders([field] * n)
    heroes = python_deciders(candidates)
    # as the kernel: uniforms are drawn whenever any player could need them
    draws = [field.kind == "random" or c.kind == "random" for c in candidates]
    k = len(candidates)
    won = np.zeros(k, np.bool_)
    wins = np.zeros(k, np.int64)
    beats = np.zeros((k, k), np.int64)
    for _ in range(size):
        seed = np.uint64(next_u64(state))
        for c in range(k):
            seed_state(game_state, seed)
            perm[:] = cards
            deciders[0] = heroes[c]
            st = python_game(game_state, setup, -1, deciders, draws[c], perm, us)
            won[c] = not st.void and st.winner == 0
        wins += won
        beats += np.outer(won, ~won)
    return wins, beats, np.array([size], np.int64)
