"""numba kernel for whole Ronco games (rules G1-G7 on top of the round kernel).

Players own policies (indexed by player); before every round the survivors are laid out in
round positions (G3: position 0 is the next survivor after the dealer, the dealer is last) and
the round kernel plays them.

Stream layout, per game: the first dealer (only when it is drawn, G4) by
:func:`simcards.core.rng_kernel.randbelow` of n (the high half of one 64-bit output, more
outputs only on a rejection); then per round one deal of k+1 cards by
:func:`simcards.ronco.round_kernel.deal` (k survivors in position order, then the cut card; two
cards per 64-bit output, each deal starting on a fresh output) and, when any player's policy is
random, k uniforms in position order (:func:`simcards.core.rng_kernel.uniform`, one 64-bit
output each). An independent engine fed the same stream plays exactly the same games.

The per-game functions (:func:`play_game`, :func:`_field_game`, :func:`_general_game`, and the
race kernel's ``play_candidates``) are compiled with ``_nrt=False``, numba's switch that turns
off reference counting: with it on, every array taken out of the named tuples they are given
(:mod:`simcards.ronco.kernel_state`) is counted up and down with atomic instructions, once per
game, which cost a third of the time of a short game (a race of 5 players with 3 lives). The
arrays belong to the batch function that allocated them, so nothing needs counting, and these
functions allocate nothing (numba refuses to compile one that tries).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng_kernel import load, randbelow, step, store, to_uniform
from simcards.ronco.codes import ABSOLUTE_TIE_REPLAY as REPLAY_TIE
from simcards.ronco.codes import ABSOLUTE_TIE_VOID as VOID_TIE
from simcards.ronco.codes import CUT_KING_LOSES as LOSES
from simcards.ronco.codes import CUT_KING_NONE as NONE
from simcards.ronco.codes import ENDING_ALL_OUT as ALL_OUT
from simcards.ronco.codes import ENDING_STALLED as STALLED
from simcards.ronco.codes import ENDING_VOID as VOID
from simcards.ronco.codes import ENDING_WON as WON
from simcards.ronco.codes import INFORMED, RANDOM, THRESHOLD, TIES_ALL
from simcards.ronco.kernel_state import Decision, GameWork, Seats
from simcards.ronco.round_kernel import ALL_TIE, deal_words, field_keeps, play_round

__all__ = ["ALL_OUT", "RANDOM", "REPLAY_TIE", "STALLED", "VOID", "VOID_TIE", "WON"]


@njit(cache=True)
def game_buffers(n, strengths):
    """Scratch for :func:`play_game` (:class:`~simcards.ronco.kernel_state.GameWork`),
    allocated once per chunk, not once per game; the deck starts as ``strengths``."""
    by_pos = Seats(np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64),
                   np.empty(n, np.float64), np.empty(0, np.int64), np.empty(0, np.int8))
    return GameWork(strengths.copy(), np.empty(n, np.int64), np.empty(n, np.int64),
                    np.empty(n, np.int64), np.empty(n, np.int64), np.zeros(n, np.float64),
                    np.empty(n, np.int64), by_pos, np.empty(n, np.int64))


@njit(cache=True)
def any_random(kind, first):
    """Whether any policy from index ``first`` on draws at random (S3)."""
    for i in range(first, kind.shape[0]):  # noqa: SIM110 - numba compiles loops, not generators
        if kind[i] == RANDOM:
            return True
    return False


@njit(cache=True, inline="always")
def _seat_order(n, d, lives, order):
    """G3: the survivors from the dealer's right into ``order``, the dealer ``d`` last; returns
    how many there are."""
    k = 0
    j = d
    for _ in range(n):
        j += 1
        if j == n:
            j = 0
        if lives[j] > 0:
            order[k] = j
            k += 1
    return k


@njit(cache=True, inline="always")
def _next_dealer(n, order, lives):
    """G5: the first survivor from position 0 of the last round on, in seat order."""
    nd = order[0]
    while lives[nd] == 0:
        nd += 1
        if nd == n:
            nd = 0
    return nd


@njit(cache=True, inline="always")
def _lose_lives(pl, hit, lives, elim_round, rounds):
    """G1, G2: player ``pl`` loses ``hit`` lives (0: none) in round ``rounds``; returns 1 when
    that puts him out, 0 otherwise. Every game loop books its losses here."""
    left = lives[pl] - hit
    lives[pl] = left
    if left <= 0:
        lives[pl] = 0
        elim_round[pl] = rounds
        return 1
    return 0


@njit(cache=True, inline="always")
def _winner(n, lives):
    """G7: the last survivor, or -1 when nobody has lives left."""
    for i in range(n):
        if lives[i] > 0:
            return i
    return -1


@njit(cache=True, _nrt=False)
def _field_game(words, seats, rules, game, d, buf, informed):
    """:func:`play_game` when every player plays the threshold (S1) or the informed (S2)
    policy, so that no uniforms are drawn and nothing is looked up: the round's rules fused
    into one pass over the deal, as in the round kernel's threshold path. ``buf.ring`` holds
    the survivors in seat order, rebuilt only when someone is eliminated, so that a round's
    order (G3) is a rotation of it. ``informed`` says whether any player plays S2; callers pass
    it as a literal, so that numba compiles an all-threshold copy with S2's bookkeeping gone.
    ``words`` is the generator's state as four local words. Returns ``(s0, s1, s2, s3,
    ending, winner, rounds)``."""
    s0, s1, s2, s3 = words
    n, _, _, max_rounds = game
    t = seats.T
    td = seats.Td
    _, top, ties, cut_king, _, _, absolute_tie = rules
    deck, lives, elim_round, order, final, _, _, _, ring = buf
    alive = n
    rounds = 0
    for i in range(n):
        ring[i] = i
    di = d  # the dealer's index in ring
    while rounds < max_rounds:
        k = alive
        pos = 0
        for q in range(di + 1, k):  # G3: from the dealer's right round to the dealer
            order[pos] = ring[q]
            pos += 1
        for q in range(di + 1):
            order[pos] = ring[q]
            pos += 1
        s0, s1, s2, s3 = deal_words(s0, s1, s2, s3, deck, k + 1)
        rounds += 1
        carry = deck[0]
        low = top + 1
        high = -1
        swapped = False  # S2: whether the previous position swapped with this one
        for pos in range(k - 1):
            nxt = deck[pos + 1]
            pl = order[pos]
            if informed:
                wants = not field_keeps(seats, pl, Decision(carry, pos, False, swapped,
                                                            deck[pos], 0), rules)
            else:
                wants = carry < t[pl]
            passes = wants & (nxt != top)  # R3, R4 (a refusal)
            f = nxt if passes else carry  # a pass: the next card is ours for good
            carry = carry if passes else nxt  # and ours travels on
            swapped = passes
            final[pos] = f
            low = min(low, f)
            high = max(high, f)
        dealer = order[k - 1]
        fired = False
        if informed:
            cuts = not field_keeps(seats, dealer, Decision(carry, k - 1, True, swapped,
                                                           deck[k - 1], 0), rules)
        else:
            cuts = carry < td[dealer]
        if cuts:  # the dealer cuts (R6)
            cut_card = deck[k]
            if cut_card != top or cut_king == NONE:
                carry = cut_card
            elif cut_king == LOSES:  # R7: the dealer is the sole loser
                fired = True
            # R7 blocked: the top card is not taken
        if fired:
            alive -= _lose_lives(dealer, 1, lives, elim_round, rounds)
        else:
            final[k - 1] = carry
            low = min(low, carry)
            high = max(high, carry)
            if low == high:  # G6: an absolute tie, no lives lost
                if absolute_tie == VOID_TIE:
                    return s0, s1, s2, s3, VOID, -1, rounds
                continue  # replay: same dealer
            hit = 2 if low == 0 else 1  # R10: the Poroli card costs two lives
            if ties == TIES_ALL:
                for pos in range(k):  # G1, G2; branch-free: who loses is a coin toss
                    alive -= _lose_lives(order[pos], hit * (final[pos] == low), lives,
                                         elim_round, rounds)
            else:
                pos = 0
                while final[pos] != low:
                    pos += 1
                alive -= _lose_lives(order[pos], hit, lives, elim_round, rounds)
        if alive <= 1:  # G7
            w = _winner(n, lives)
            return s0, s1, s2, s3, (WON if w >= 0 else ALL_OUT), w, rounds
        if alive == k:  # G5: nobody went out, the deal passes to the right
            di = di + 1 if di + 1 < k else 0
        else:
            d = _next_dealer(n, order, lives)
            m = 0
            for i in range(n):
                if lives[i] > 0:
                    if i == d:
                        di = m
                    ring[m] = i
                    m += 1
    return s0, s1, s2, s3, STALLED, -1, rounds


@njit(cache=True, inline="always")
def _seat_users(users, order, k, lives, n):
    """S5: seat the players who play a user's function at the round's positions (``order``,
    ``k`` of them), with everybody's lives and the dealer, so that each sees its
    ``ronco_game_v0`` observation (:func:`simcards.ronco.observation_kernel.user_keeps`)."""
    slot, seat, ulives, info, mark = users.slot, users.seat, users.lives, users.game, users.mark
    for pos in range(k):
        pl = order[pos]
        seat[pos] = pl
        slot[pos] = info[3 + pl]
    for i in range(n):
        ulives[i] = lives[i]
    info[2] = order[k - 1]
    mark[0] = -1  # a new round: its observation is written whole
    mark[4] = -1


@njit(cache=True, _nrt=False)
def _general_game(words, seats, rules, game, d, draw_uniforms, buf, users):
    """:func:`play_game` for any mix of policies, through the round kernel's
    :func:`play_round`; ``users`` the players' user functions (S5,
    :class:`~simcards.ronco.kernel_state.UserSeats`), or None. Returns ``(s0, s1, s2, s3,
    ending, winner, rounds)``."""
    s0, s1, s2, s3 = words
    n, _, _, max_rounds = game
    kind, t, td, p, _, _ = seats
    deck, lives, elim_round, order, hold, u, lost, _, _ = buf
    pk, pt, ptd, pp = buf.by_pos.kind, buf.by_pos.T, buf.by_pos.Td, buf.by_pos.p
    by_pos = Seats(pk, pt, ptd, pp, seats.bkeys, seats.bvals)
    alive = n
    rounds = 0
    while rounds < max_rounds:
        k = _seat_order(n, d, lives, order)
        s0, s1, s2, s3 = deal_words(s0, s1, s2, s3, deck, k + 1)
        for pos in range(k):
            pl = order[pos]
            hold[pos] = deck[pos]
            pk[pos] = kind[pl]
            pt[pos] = t[pl]
            ptd[pos] = td[pl]
            pp[pos] = p[pl]
        if draw_uniforms:
            for pos in range(k):
                s0, s1, s2, s3, x = step(s0, s1, s2, s3)
                u[pos] = to_uniform(x)
        rounds += 1
        if users is not None:
            _seat_users(users, order, k, lives, n)
        flags = play_round(hold, deck[k], k, by_pos, u, rules, lost, users)
        if flags & ALL_TIE:  # G6: no lives lost
            if rules.absolute_tie == VOID_TIE:
                return s0, s1, s2, s3, VOID, -1, rounds
            continue  # replay: same dealer
        for pos in range(k):  # G1, G2, R10
            if lost[pos] > 0:
                alive -= _lose_lives(order[pos], lost[pos], lives, elim_round, rounds)
        if alive <= 1:  # G7
            w = _winner(n, lives)
            return s0, s1, s2, s3, (WON if w >= 0 else ALL_OUT), w, rounds
        d = _next_dealer(n, order, lives)
    return s0, s1, s2, s3, STALLED, -1, rounds


@njit(cache=True, _nrt=False)
def play_game(state, seats, rules, game, draw_uniforms, buf, users):
    """Play one game set up by ``game`` (:class:`~simcards.ronco.kernel_state.GameSpec`), ``seats``
    by player, ``users`` the players' user functions (S5) or None. ``buf`` comes from
    :func:`game_buffers`; its deck holds the strengths of the deck's cards in any order (it is
    shuffled in place, like card indices would be, draw for draw), and its ``lives`` and
    ``elim_round`` (by player; 0 = never eliminated) hold the final state afterwards. ``state``
    is advanced in place (see the module docstring for the stream layout).

    Returns ``(ending, winner, rounds, first_dealer)``; ``winner`` is -1 without a winner.
    """
    n = game.players
    kind = seats.kind
    lives = buf.lives
    elim_round = buf.elim_round
    for i in range(n):
        lives[i] = game.lives
        elim_round[i] = 0
    first_dealer = game.first_dealer
    d0 = first_dealer if first_dealer >= 0 else randbelow(state, n)  # G4
    fused = not draw_uniforms
    informed = False
    for i in range(n):
        if kind[i] == INFORMED:
            informed = True
        elif kind[i] != THRESHOLD:
            fused = False
    words = load(state)
    if fused and informed:
        s0, s1, s2, s3, ending, winner, rounds = _field_game(words, seats, rules, game, d0, buf,
                                                             True)
    elif fused:
        s0, s1, s2, s3, ending, winner, rounds = _field_game(words, seats, rules, game, d0, buf,
                                                             False)
    else:
        s0, s1, s2, s3, ending, winner, rounds = _general_game(words, seats, rules, game, d0,
                                                               draw_uniforms, buf, users)
    store(state, s0, s1, s2, s3)
    return ending, winner, rounds, d0


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
def simulate_games(state, games, seats, rules, game, hist_len, users):
    """Monte Carlo games; returns sufficient statistics (all int64, mergeable by sum).
    ``users``: the players' user functions (S5), or None.

    ``(wins[n], endings[4], rounds_hist[hist_len], places[n, n], rounds_sums[2])``; the last
    bin of ``rounds_hist`` collects
    longer games, ``rounds_sums`` holds the sum of rounds and of their squares.
    """
    n = game.players
    buf = game_buffers(n, rules.strengths)
    elim_round = buf.elim_round
    place = np.empty(n, np.int64)
    draw_uniforms = any_random(seats.kind, 0)
    wins = np.zeros(n, np.int64)
    endings = np.zeros(4, np.int64)
    hist = np.zeros(hist_len, np.int64)
    places = np.zeros((n, n), np.int64)
    sums = np.zeros(2, np.int64)
    for _ in range(games):
        ending, winner, rounds, _d0 = play_game(state, seats, rules, game, draw_uniforms, buf,
                                                users)
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
def detail_games(state, games, seats, rules, game):
    """Game-by-game outcomes (for checking against the reference engine)."""
    n = game.players
    buf = game_buffers(n, rules.strengths)
    lives, elim_round = buf.lives, buf.elim_round
    draw_uniforms = any_random(seats.kind, 0)
    out = np.zeros((games, 4), np.int64)  # ending, winner, rounds, first dealer
    lives_left = np.zeros((games, n), np.int64)
    elim = np.zeros((games, n), np.int64)
    for g in range(games):
        ending, winner, rounds, d0 = play_game(state, seats, rules, game, draw_uniforms, buf,
                                               None)
        out[g, 0] = ending
        out[g, 1] = winner
        out[g, 2] = rounds
        out[g, 3] = d0
        for i in range(n):
            lives_left[g, i] = lives[i]
            elim[g, i] = elim_round[i]
    return out, lives_left, elim
