"""numba kernel for whole Ronco games (rules G1-G7 on top of the round kernel).

Players own policies (indexed by player); before every round the survivors are laid out in
round positions (G3: position 0 is the next survivor after the dealer, the dealer is last) and
the round kernel plays them. The random stream is consumed per game as: the first dealer (one
``randbelow(n)``, only when it is drawn, G4), then per round k+1 cards (k survivors, then the cut
card) and, when any player's policy is random, k uniforms in position order. An independent
engine fed the same stream plays exactly the same games.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng import randbelow, uniform
from simcards.ronco.codes import ABSOLUTE_TIE_REPLAY as REPLAY_TIE
from simcards.ronco.codes import ABSOLUTE_TIE_VOID as VOID_TIE
from simcards.ronco.codes import ENDING_ALL_OUT as ALL_OUT
from simcards.ronco.codes import ENDING_STALLED as STALLED
from simcards.ronco.codes import ENDING_VOID as VOID
from simcards.ronco.codes import ENDING_WON as WON
from simcards.ronco.codes import RANDOM
from simcards.ronco.kernel import ALL_TIE, deal, play_round

__all__ = ["ALL_OUT", "RANDOM", "REPLAY_TIE", "STALLED", "VOID", "VOID_TIE", "WON"]


@njit(cache=True)
def game_buffers(n):
    """Scratch arrays for :func:`play_game`, allocated once per chunk, not once per game:
    ``(lives, elim_round, order, hold, u, lost, pk, pt, ptd, pp)``."""
    return (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
            np.empty(n, np.int64), np.zeros(n, np.float64), np.empty(n, np.int64),
            np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
            np.empty(n, np.float64))


@njit(cache=True)
def any_random(kind, first):
    """Whether any policy from index ``first`` on draws at random (S3)."""
    for i in range(first, kind.shape[0]):  # noqa: SIM110 - numba compiles loops, not generators
        if kind[i] == RANDOM:
            return True
    return False


@njit(cache=True)
def play_game(state, deck, n, lives0, kind, t, td, p, top, ties, cut_king, below, counts,
              absolute_tie, first_dealer, draw_uniforms, max_rounds, buf):
    """Play one game. ``deck`` holds the strengths of the deck's cards in any order (it is
    shuffled in place, like card indices would be, draw for draw); ``buf`` comes from
    :func:`game_buffers`; its ``lives`` and ``elim_round`` (by player; 0 = never eliminated)
    hold the final state afterwards.

    Returns ``(ending, winner, rounds, first_dealer)``; ``winner`` is -1 without a winner.
    """
    lives, elim_round, order, hold, u, lost, pk, pt, ptd, pp = buf
    for i in range(n):
        lives[i] = lives0
        elim_round[i] = 0
    d = first_dealer if first_dealer >= 0 else randbelow(state, n)  # G4
    d0 = d
    alive = n
    rounds = 0
    while rounds < max_rounds:
        k = 0
        j = d
        for _ in range(n):  # G3: survivors from the dealer's right; the dealer comes last
            j += 1
            if j == n:
                j = 0
            if lives[j] > 0:
                order[k] = j
                k += 1
        deal(state, deck, k + 1)
        for pos in range(k):
            pl = order[pos]
            hold[pos] = deck[pos]
            pk[pos] = kind[pl]
            pt[pos] = t[pl]
            ptd[pos] = td[pl]
            pp[pos] = p[pl]
        if draw_uniforms:
            for pos in range(k):
                u[pos] = uniform(state)
        rounds += 1
        flags = play_round(hold, deck[k], k, pk, pt, ptd, pp, u, top, ties,
                           cut_king, below, counts, lost)
        if flags & ALL_TIE:  # G6: no lives lost
            if absolute_tie == VOID_TIE:
                return VOID, -1, rounds, d0
            continue  # replay: same dealer
        for pos in range(k):  # G1, G2, R10
            if lost[pos] > 0:
                pl = order[pos]
                lives[pl] -= lost[pos]
                if lives[pl] <= 0:
                    lives[pl] = 0
                    elim_round[pl] = rounds
                    alive -= 1
        if alive <= 1:  # G7
            for i in range(n):
                if lives[i] > 0:
                    return WON, i, rounds, d0
            return ALL_OUT, -1, rounds, d0
        nd = order[0]  # G5
        while lives[nd] == 0:
            nd += 1
            if nd == n:
                nd = 0
        d = nd
    return STALLED, -1, rounds, d0


@njit(cache=True)
def finish_places(n, elim_round, place):
    """Place of each player (0 = best): how many players went out strictly after him.

    Survivors count as never eliminated; players eliminated together share a place.
    """
    for a in range(n):
        ea = elim_round[a]
        c = 0
        for b in range(n):
            eb = elim_round[b]
            if ea != 0 and (eb == 0 or eb > ea):
                c += 1
        place[a] = c


@njit(cache=True)
def simulate_games(state, games, n, lives0, kind, t, td, p, strengths, top, ties, cut_king,
                   below, counts, absolute_tie, first_dealer, max_rounds, hist_len):
    """Monte Carlo games; returns sufficient statistics (all int64, mergeable by sum).

    ``(wins[n], endings[4], rounds_hist[hist_len], places[n, n], rounds_sums[2])``; the last
    bin of ``rounds_hist`` collects
    longer games, ``rounds_sums`` holds the sum of rounds and of their squares.
    """
    deck = strengths.copy()
    buf = game_buffers(n)
    elim_round = buf[1]
    place = np.empty(n, np.int64)
    draw_uniforms = any_random(kind, 0)
    wins = np.zeros(n, np.int64)
    endings = np.zeros(4, np.int64)
    hist = np.zeros(hist_len, np.int64)
    places = np.zeros((n, n), np.int64)
    sums = np.zeros(2, np.int64)
    for _ in range(games):
        ending, winner, rounds, _d0 = play_game(
            state, deck, n, lives0, kind, t, td, p, top, ties, cut_king, below, counts,
            absolute_tie, first_dealer, draw_uniforms, max_rounds, buf)
        endings[ending] += 1
        if winner >= 0:
            wins[winner] += 1
        hist[min(rounds, hist_len - 1)] += 1
        sums[0] += rounds
        sums[1] += rounds * rounds
        finish_places(n, elim_round, place)
        for i in range(n):
            places[i, place[i]] += 1
    return wins, endings, hist, places, sums


@njit(cache=True)
def detail_games(state, games, n, lives0, kind, t, td, p, strengths, top, ties, cut_king,
                 below, counts, absolute_tie, first_dealer, max_rounds):
    """Game-by-game outcomes (for checking against the reference engine)."""
    deck = strengths.copy()
    buf = game_buffers(n)
    lives, elim_round = buf[0], buf[1]
    draw_uniforms = any_random(kind, 0)
    out = np.zeros((games, 4), np.int64)  # ending, winner, rounds, first dealer
    lives_left = np.zeros((games, n), np.int64)
    elim = np.zeros((games, n), np.int64)
    for g in range(games):
        ending, winner, rounds, d0 = play_game(
            state, deck, n, lives0, kind, t, td, p, top, ties, cut_king, below, counts,
            absolute_tie, first_dealer, draw_uniforms, max_rounds, buf)
        out[g, 0] = ending
        out[g, 1] = winner
        out[g, 2] = rounds
        out[g, 3] = d0
        for i in range(n):
            lives_left[g, i] = lives[i]
            elim[g, i] = elim_round[i]
    return out, lives_left, elim
