"""numba kernel for comparing hero policies on common games (common random numbers).

Every game starts from its own generator state, drawn from the chunk's stream with one 64-bit
draw and expanded by splitmix64, and every candidate policy of the hero (player 0) replays that
same game from that same state. Candidates therefore meet the same deals for as long as their
decisions keep the games alike, and a candidate's results do not depend on which other
candidates are in the race, so a race can drop candidates between stages without changing the
others' numbers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng_kernel import next_u64, seed_state
from simcards.ronco.game_kernel import RANDOM, WON, any_random, game_buffers, play_game
from simcards.ronco.kernel_state import RaceWork, Seats


@njit(cache=True, _nrt=False)
def play_candidates(seed, seats, cand, any_field_random, rules, game, buf, won, users):
    """Every candidate of ``cand`` in turn as player 0 of the game seeded by ``seed`` (the
    other players' rows of ``seats`` already set; row 0 is overwritten); ``won[c]``: whether
    candidate c won it. ``users``: the field players' user functions (S5), or None."""
    game_state = buf.state
    deck = buf.work.deck
    strengths = rules.strengths
    for c in range(cand.kind.shape[0]):
        seed_state(game_state, seed)
        for j in range(deck.shape[0]):
            deck[j] = strengths[j]
        seats.kind[0] = cand.kind[c]
        seats.T[0] = cand.T[c]
        seats.Td[0] = cand.Td[c]
        seats.p[0] = cand.p[c]
        # Random draws are taken whenever any player could need them, so that the hero's
        # choice of policy does not shift the stream under the field.
        draw_uniforms = any_field_random or cand.kind[c] == RANDOM
        ending, winner, _r, _d = play_game(game_state, seats, rules, game, draw_uniforms,
                                           buf.work, users)
        won[c] = ending == WON and winner == 0


@njit(cache=True)
def hero_seats(field, cand):
    """The players' policies for a race: copies of ``field``'s rows (row 0 is the hero's, set
    candidate by candidate) and the ``bayes`` table (S4) of the candidates, or the field's
    when the candidates bring none."""
    use_cand = cand.bkeys.shape[0] > 0
    return Seats(field.kind.copy(), field.T.copy(), field.Td.copy(), field.p.copy(),
                 cand.bkeys if use_cand else field.bkeys, cand.bvals if use_cand else field.bvals)


@njit(cache=True)
def race_buffers(n, strengths):
    """A :class:`RaceWork`: the game scratch and the state of each candidate's game stream."""
    return RaceWork(game_buffers(n, strengths), np.empty(4, np.uint64))


@njit(cache=True)
def add_pairs(won, wins, beats):
    """Count one game's wins, and its discordant pairs: ``beats[i, j]`` += 1 when candidate i
    won and candidate j did not."""
    k = won.shape[0]
    for i in range(k):
        if won[i]:
            wins[i] += 1
            for j in range(k):
                if not won[j]:
                    beats[i, j] += 1


@njit(cache=True)
def race_games(state, games, field, cand, rules, game, users):
    """Play ``games`` games for every hero candidate of ``cand`` against the players of
    ``field`` (its row 0 is ignored); the hero is player 0. ``users``: the field players'
    user functions (S5, :class:`~simcards.ronco.kernel_state.UserSeats` of a game, the hero's
    slot -1), asked at their every decision with their ``ronco_game_v0`` observation as in
    ``games``; None when the field plays a built-in policy or a chart.

    Returns ``(wins[K], beats[K, K], games[1])`` where ``beats[i, j]`` counts games that
    candidate i won and candidate j did not: the discordant pairs of a paired comparison.
    A ``bayes`` candidate (S4) looks its decisions up in the candidates' table; the field's
    table is used when the candidates bring none.
    """
    k_cand = cand.kind.shape[0]
    seats = hero_seats(field, cand)
    buf = race_buffers(game.players, rules.strengths)
    won = np.zeros(k_cand, np.bool_)
    wins = np.zeros(k_cand, np.int64)
    beats = np.zeros((k_cand, k_cand), np.int64)
    any_field_random = any_random(field.kind, 1)
    for _ in range(games):
        play_candidates(next_u64(state), seats, cand, any_field_random, rules, game, buf, won,
                        users)
        add_pairs(won, wins, beats)
    total = np.zeros(1, np.int64)
    total[0] = games
    return wins, beats, total
