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
from numba import njit, uint64

from simcards.core.rng import next_u64
from simcards.ronco.game_kernel import RANDOM, WON, any_random, game_buffers, play_game


@njit(cache=True)
def _splitmix_state(x, out):
    """Fill ``out`` (uint64[4]) from the 64-bit seed ``x`` (splitmix64, as xoshiro advises)."""
    for i in range(4):
        x += uint64(0x9E3779B97F4A7C15)
        z = x
        z = (z ^ (z >> uint64(30))) * uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> uint64(27))) * uint64(0x94D049BB133111EB)
        out[i] = z ^ (z >> uint64(31))
    if out[0] == 0 and out[1] == 0 and out[2] == 0 and out[3] == 0:
        out[0] = uint64(1)


@njit(cache=True)
def play_candidates(seed, n, lives0, kind, t, td, p, bkeys, bvals, cand_kind, cand_t, cand_td,
                    cand_p, any_field_random, strengths, deck, game_state, top, ties, cut_king,
                    below, counts, absolute_tie, first_dealer, max_rounds, buf, won):
    """Every candidate in turn as player 0 of the game seeded by ``seed`` (the others' rows of
    ``kind``/``t``/``td``/``p`` already set); ``won[c]``: whether candidate c won it."""
    for c in range(cand_kind.shape[0]):
        _splitmix_state(seed, game_state)
        for j in range(deck.shape[0]):
            deck[j] = strengths[j]
        kind[0] = cand_kind[c]
        t[0] = cand_t[c]
        td[0] = cand_td[c]
        p[0] = cand_p[c]
        # Random draws are taken whenever any player could need them, so that the hero's
        # choice of policy does not shift the stream under the field.
        draw_uniforms = any_field_random or cand_kind[c] == RANDOM
        ending, winner, _r, _d = play_game(
            game_state, deck, n, lives0, kind, t, td, p, bkeys, bvals, top, ties, cut_king,
            below, counts, absolute_tie, first_dealer, draw_uniforms, max_rounds, buf)
        won[c] = ending == WON and winner == 0


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
def race_games(state, games, n, lives0, field_kind, field_t, field_td, field_p, field_bkeys,
               field_bvals, cand_kind, cand_t, cand_td, cand_p, cand_bkeys, cand_bvals,
               strengths, top, ties, cut_king, below, counts, absolute_tie, first_dealer,
               max_rounds):
    """Play ``games`` games for every hero candidate; the hero is player 0.

    Returns ``(wins[K], beats[K, K], games[1])`` where ``beats[i, j]`` counts games that
    candidate i won and candidate j did not: the discordant pairs of a paired comparison.
    A ``bayes`` candidate (S4) looks its decisions up in the candidates' table; the field's
    table is used when the candidates bring none.
    """
    bkeys = cand_bkeys if cand_bkeys.shape[0] > 0 else field_bkeys
    bvals = cand_bvals if cand_bkeys.shape[0] > 0 else field_bvals
    k_cand = cand_kind.shape[0]
    kind = field_kind.copy()
    t = field_t.copy()
    td = field_td.copy()
    p = field_p.copy()
    game_state = np.empty(4, np.uint64)
    deck = np.empty(strengths.shape[0], np.int64)
    buf = game_buffers(n)
    won = np.zeros(k_cand, np.bool_)
    wins = np.zeros(k_cand, np.int64)
    beats = np.zeros((k_cand, k_cand), np.int64)
    any_field_random = any_random(field_kind, 1)
    for _ in range(games):
        play_candidates(next_u64(state), n, lives0, kind, t, td, p, bkeys, bvals, cand_kind,
                        cand_t, cand_td, cand_p, any_field_random, strengths, deck, game_state,
                        top, ties, cut_king, below, counts, absolute_tie, first_dealer,
                        max_rounds, buf, won)
        add_pairs(won, wins, beats)
    total = np.zeros(1, np.int64)
    total[0] = games
    return wins, beats, total
