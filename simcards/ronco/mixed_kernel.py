"""numba kernel for hero candidates against a *mixed* field (rule E5), on common games.

As in :mod:`simcards.ronco.race_kernel`, every game starts from one 64-bit seed drawn from the
chunk's stream, and every hero candidate (player 0) replays that game from the same deal state.
Each of the other players draws his pure strategy for the whole game from a mixture (support
arrays and cumulative probabilities) by inverse CDF on one uniform of his own. Those uniforms
come from a second generator seeded by ``seed ^ FIELD_SALT``, apart from the deal stream, so:

* the field a game draws does not depend on the candidate (all candidates meet the same field);
* a point mass draws nothing that matters and leaves the deal stream untouched: it plays
  exactly the games :func:`~simcards.ronco.race_kernel.race_games` plays with that field;
* the uniforms do not depend on the probabilities, so moving probability mass a little changes
  the strategy drawn only for the few players whose uniform falls in the moved sliver: the
  estimates of nearby mixtures share almost all their games (smooth common random numbers).

The kernel also tabulates wins by the field's *composition* (how many other players drew each
support strategy), for supports of at most :data:`MAX_TABULATED` strategies: the win rate
against any mixture over the same support is the composition-weighted sum of these rates
(the field is exchangeable given its composition), which the solver uses to evaluate many
mixtures from one batch of games.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from simcards.core.rng_kernel import next_u64, seed_state, uniform
from simcards.ronco.game_kernel import any_random
from simcards.ronco.kernel_state import Seats
from simcards.ronco.race_kernel import add_pairs, play_candidates, race_buffers

FIELD_SALT = 0x5F1E1D5EEDC0FFEE
"""XORed into a game's seed to seed the field's own draws (apart from the deal stream)."""
MAX_TABULATED = 4
"""Largest support whose compositions are tabulated (``players ** (k - 1)`` bins)."""


@njit(cache=True)
def draw_index(u, cum):
    """Inverse CDF: the first index whose cumulative probability exceeds ``u``."""
    k = cum.shape[0]
    for j in range(k - 1):
        if u < cum[j]:
            return j
    return k - 1


@njit(cache=True)
def mixed_games(state, games, cum, sup, cand, rules, game, bins):
    """Play ``games`` games for every hero candidate against a field drawn from a mixture.

    ``cum`` holds the mixture's cumulative probabilities (the last is 1) over the support
    policies ``sup``; players 1 .. n-1 each draw one support index per game. ``bins`` is
    :func:`~simcards.ronco.equilibrium_batch.composition_bins`. A ``bayes`` candidate (S4)
    would use the candidates' table. Returns
    ``(wins[K], beats[K, K], games[1], comp_wins[K, bins], comp_games[bins])``: ``beats[i, j]``
    counts games that candidate i won and candidate j did not (the discordant pairs of a paired
    comparison); ``comp_*`` split wins and games by the field's composition.
    """
    n = game.players
    k_cand = cand.kind.shape[0]
    k_sup = cum.shape[0]
    tabulate = bins > 1
    use_cand = cand.bkeys.shape[0] > 0
    seats = Seats(np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
                  np.empty(n, np.float64), cand.bkeys if use_cand else sup.bkeys,
                  cand.bvals if use_cand else sup.bvals)
    field_state = np.empty(4, np.uint64)
    buf = race_buffers(n, rules.strengths)
    won = np.zeros(k_cand, np.bool_)
    wins = np.zeros(k_cand, np.int64)
    beats = np.zeros((k_cand, k_cand), np.int64)
    comp_wins = np.zeros((k_cand, bins), np.int64)
    comp_games = np.zeros(bins, np.int64)
    any_field_random = any_random(sup.kind, 0)
    for _ in range(games):
        seed = next_u64(state)
        seed_state(field_state, seed ^ uint64(FIELD_SALT))
        code = 0
        for i in range(1, n):  # E5: each other player draws his strategy for the game
            j = draw_index(uniform(field_state), cum)
            seats.kind[i] = sup.kind[j]
            seats.T[i] = sup.T[j]
            seats.Td[i] = sup.Td[j]
            seats.p[i] = sup.p[j]
            if tabulate and j < k_sup - 1:
                code += n ** j
        comp_games[code] += 1
        play_candidates(seed, seats, cand, any_field_random, rules, game, buf, won, None)
        add_pairs(won, wins, beats)
        for c in range(k_cand):
            if won[c]:
                comp_wins[c, code] += 1
    total = np.zeros(1, np.int64)
    total[0] = games
    return wins, beats, total, comp_wins, comp_games
