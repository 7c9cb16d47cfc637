"""Monte Carlo hands on card values: the loop :func:`play_kernel.simulate_hands` runs when no
seat searches (every seat ``random``, Q2, or ``greedy``, Q3).

Why a loop of its own: a batch of hands reads only counts and points, never which card of a
value was played, and suits never matter to play or points (D1). Here a card is its value, the
table is a bit mask of values (P4 allows one card per value), a holding is its count of each
value packed four bits a value, and the position (table, pile in play, last laid, last capturer,
public cards) and the chunk's generator live in local variables for the whole chunk, not in a
workspace written at every play. The rules are those of :mod:`simcards.ronda.hand_kernel` step
by step, greedy is the one rule of :mod:`simcards.ronda.value_rules`, and the statistics are
:func:`play_kernel.simulate_hands`'s, bit for bit: ``tests/ronda/test_value_kernel.py`` plays
every configuration both ways from the same streams and requires identical statistics.

The stream layout is :mod:`simcards.ronda.play_kernel`'s: the dealer when drawn, the shuffle,
then one uniform per play of a random seat. No other draw comes between a hand's uniforms, so
each is drawn when its play comes instead of before the first play. Searching seats draw a
seed per hand after the uniforms and play on the workspace; they never come here.

A hand's invariant check (:func:`play_kernel.simulate_hands`'s ``violations``) is here the one
a values-only hand can make: all 40 cards end captured, and every holding empty.

Compiled without reference counting (``hand_kernel`` module docstring): the caller allocates.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from simcards.core.bits import popcount
from simcards.core.rng import load, step, store, word_accepts
from simcards.ronda.codes import (
    ACT_DERBA,
    ACT_REHIT,
    ANNOUNCE_EVERY_DEAL,
    MODE_POINTS,
    N_SOURCES,
    POLICY_RANDOM,
    SRC_CARDS,
)
from simcards.ronda.kernel_state import Board, Spot, ValueWork
from simcards.ronda.value_rules import (
    LOW_NIBBLE_BITS,
    N_CARDS,
    NIBBLE,
    announced,
    announcement_credits,
    credit,
    greedy_value,
    pairs,
    play_value,
    side_of,
)

__all__ = ["add_hand", "new_value_work", "rank_of", "value_hands"]

N_VALUES = 10
VALUE_NIBBLES = (1 << (4 * N_VALUES)) - 1  # the ten nibbles of a packed holding
HIGH_NIBBLE_BITS = LOW_NIBBLE_BITS << 3  # bit 4v + 3 of each value v


@njit(cache=True)
def new_value_work(rules):
    """A :class:`~simcards.ronda.kernel_state.ValueWork` for hands of ``rules``, the deck as
    the values of cards 0..39 (the play kernel's deck, whose shuffles it follows)."""
    n = rules.players
    ns = rules.sides
    flat = np.zeros(ns * N_SOURCES, np.int64)
    return ValueWork(np.arange(N_CARDS) >> 2, np.zeros(n, np.int64), np.zeros(n, np.int64),
                     np.zeros(n, np.int64), np.zeros(ns, np.int64),
                     flat.reshape((ns, N_SOURCES)), flat, np.zeros(ns, np.int64))


@njit(cache=True, inline="always")
def _below(s0, s1, s2, s3, n):
    """``rng.randbelow`` on local words: ``(s0, s1, s2, s3, draw)``."""
    nn = uint64(n)
    while True:
        s0, s1, s2, s3, w = step(s0, s1, s2, s3)
        prod = (w >> uint64(32)) * nn
        if word_accepts(prod, nn):
            return s0, s1, s2, s3, np.int64(prod >> uint64(32))


ROUNDS_UP = (1 << 54) // 3
"""The one 53-bit word for which ``uniform * 3`` rounds up across an integer (see
:func:`rank_of`)."""


@njit(cache=True, inline="always")
def rank_of(w, m):
    """Q2's rank ``floor(u * m)`` of a random seat's card, ``u`` the uniform of the 64-bit word
    ``w`` (``rng.to_uniform``) and ``m`` (1 to 4) the cards held, in integer arithmetic: the
    float product takes a dozen cycles more between the draw and the play, exposed after every
    mispredicted branch.

    Why it is the same: ``u = x / 2**53`` exactly, for ``x = w >> 11``. For ``m`` 1, 2 or 4 the
    product ``u * m`` is exact, so its floor is ``(x * m) >> 53``. For ``m = 3`` the exact
    ``3x / 2**53`` is rounded to 53 bits; below 1 it is exact, in [2, 3) it never comes
    within half a unit of 3, and in [1, 2) the one value within half a unit of 2 is
    ``x = (2**54 - 1) / 3``, a tie that rounds to the even 2.0: that ``x`` ranks 2, one more
    than the integer floor (``tests/ronda/test_value_kernel.py`` checks both forms agree)."""
    x = w >> uint64(11)
    i = np.int64((x * uint64(m)) >> uint64(53))
    if x == uint64(ROUNDS_UP) and m == 3:
        i = 2
    return i


@njit(cache=True, inline="always")
def _nth_value(h, i):
    """The value of the card of rank ``i`` (0-based, card order) in the packed holding ``h`` of
    at most four cards, without a branch: nibble v of ``h * LOW_NIBBLE_BITS`` is the number
    of cards of value v or lower (at most 4, so no nibble carries), and the value sought is the
    number of those prefix counts that are at most ``i``. Adding 7 - i to every nibble sets its
    high bit exactly where the count exceeds ``i``."""
    prefix = (h * LOW_NIBBLE_BITS) & VALUE_NIBBLES
    over = (prefix + (7 - i) * LOW_NIBBLE_BITS) & HIGH_NIBBLE_BITS
    return N_VALUES - popcount(over)


@njit(cache=True, inline="always")
def add_hand(pts, capn, classic, stats):
    """One hand's points by side and source (``pts``) and captured cards (``capn``) added to
    ``play_kernel``'s statistics (:data:`play_kernel.STAT_NAMES` order; the last array is a
    scratch of totals by side). ``classic``: C2 decides who wins the hand, else the points."""
    n_hands, points, points_sq, score, score_sq, cards, cards_sq, won = stats[:8]
    totals = stats[15]
    ns = capn.shape[0]
    n_hands[0] += 1
    best = 0
    best_n = 0
    for t in range(ns):
        tot = 0
        for src in range(N_SOURCES):
            x = pts[t, src]
            points[t, src] += x
            points_sq[t, src] += x * x
            tot += x
        totals[t] = tot
        score[t] += tot
        score_sq[t] += tot * tot
        cards[t] += capn[t]
        cards_sq[t] += capn[t] * capn[t]
        key = capn[t] if classic else tot
        if t == 0 or key > best:
            best = key
            best_n = 1
        elif key == best:
            best_n += 1
    if best_n == 1:
        for t in range(ns):
            if (capn[t] if classic else totals[t]) == best:
                won[t] += 1


@njit(cache=True, _nrt=False)
def value_hands(state, hands, dealer, seats, rules, work, stats):
    """``hands`` hands from the stream ``state`` (``play_kernel`` layout), adding up into
    ``stats`` as ``play_kernel._simulate_loop`` does (its arrays in ``STAT_NAMES`` order,
    events as one (side, 3) array, then a scratch of totals by side)."""
    events = stats[8]
    holdings, rondas, rondas_sq, tringlas, tringlas_sq, violations = stats[9:15]
    n = rules.players
    ns = rules.sides
    teams = rules.teams
    plays = rules.plays
    sizes = rules.deal_sizes
    share = rules.share
    points_mode = rules.mode == MODE_POINTS
    every_deal = rules.announce == ANNOUNCE_EVERY_DEAL
    kinds = seats.kinds
    deck = work.deck
    hold = work.hold
    hn = work.hn
    ann = work.ann
    capn = work.capn
    pts = work.pts
    flat = work.flat
    held = work.held
    s0, s1, s2, s3 = load(state)
    for _ in range(hands):
        # Chance (play_kernel layout): the dealer when drawn, then the shuffle.
        d = dealer
        if d < 0:
            s0, s1, s2, s3, d = _below(s0, s1, s2, s3, n)
        for j in range(N_CARDS - 1):
            s0, s1, s2, s3, r = _below(s0, s1, s2, s3, N_CARDS - j)
            r += j
            x = deck[j]
            deck[j] = deck[r]
            deck[r] = x
        for q in range(n):
            hold[q] = 0
            hn[q] = 0
            ann[q] = 0
        for t in range(ns):
            capn[t] = 0
            for src in range(N_SOURCES):
                pts[t, src] = 0
        first = d + 1 if d + 1 < n else 0
        board = Board(np.int64(0), np.int64(0), np.int64(0), np.int64(-1), np.int64(0),
                      np.int64(-1), np.int64(-1), np.int64(-1))
        public = np.int64(0)  # public cards by value, packed
        n_public = 0
        stock = 0
        deal = -1
        in_hand = 0
        hand_rondas = 0
        hand_tringlas = 0
        hand_holdings = 0
        if rules.face_up:  # D4: one card face up on the table
            c = deck[0]
            board = Board(np.int64(1) << c, np.int64(1), np.int64(0), np.int64(-1),
                          np.int64(0), np.int64(-1), np.int64(-1), np.int64(-1))
            public = np.int64(1) << (4 * c)
            n_public = 1
            stock = 1
        turn = first
        for k in range(plays):
            if in_hand == 0:  # D5: the next deal, first player first, dealer last
                deal += 1
                size = sizes[deal]
                for _r in range(size):
                    q = first
                    for _i in range(n):
                        hold[q] += np.int64(1) << (4 * deck[stock])
                        stock += 1
                        q = q + 1 if q + 1 < n else 0
                for q in range(n):
                    hn[q] = size
                in_hand = size * n
                turn = first
                announcing = points_mode and (deal == 0 or every_deal)
                for q in range(n):
                    two, three = pairs(hold[q])
                    if size == 4:  # A2's counters, scoring or not
                        hand_rondas += popcount(two)
                        hand_tringlas += popcount(three)
                        hand_holdings += 1
                    ann[q] = announced(two, three) if announcing else 0
                if announcing:
                    announcement_credits(rules, ann, 0, pts)
            p = turn
            m = hn[p]
            h = hold[p]
            last = k + 1 == plays
            if kinds[p] == POLICY_RANDOM:
                s0, s1, s2, s3, w = step(s0, s1, s2, s3)
                v = _nth_value(h, rank_of(w, m))
            else:
                nxt = p + 1 if p + 1 < n else 0
                nh = hn[nxt]
                if nh == 0:
                    nh = sizes[deal + 1]
                v = greedy_value(Spot(p, h, board, last, N_CARDS - n_public - m, nh, ann[nxt],
                                      public), rules, capn, 0, held)
            nib = np.int64(1) << (4 * v)
            hold[p] = h - nib
            hn[p] = m - 1
            in_hand -= 1
            public += nib
            n_public += 1
            if (ann[p] >> (4 * v)) & NIBBLE:
                ann[p] -= nib
            board, play = play_value(v, p, board, last, rules, capn, 0)
            s = play.side  # counted without a branch: the kind of play is the deal's chance
            events[s, 0] += play.action == ACT_DERBA
            events[s, 1] += play.action == ACT_REHIT
            events[s, 2] += play.missa
            if points_mode and (play.hit > 0 or play.missa or last):  # X6/X7, M1, L1-L5
                credit(play, rules, flat, 0, N_SOURCES, 1)
            turn = p + 1 if p + 1 < n else 0
        # The end of the hand: X5c, U1, S1.
        if board.pile_n > 0:
            capn[side_of(board.hitter, teams)] += board.pile_n
        if board.table_n > 0:
            lc = board.lc
            capn[side_of(lc, teams) if lc >= 0 else ns - 1] += board.table_n
        total_cards = 0
        for t in range(ns):
            total_cards += capn[t]
            if points_mode and capn[t] > share:
                pts[t, SRC_CARDS] += capn[t] - share
        bad = total_cards != N_CARDS
        for q in range(n):
            if hn[q] != 0:
                bad = True
        add_hand(pts, capn, not points_mode, stats)
        if bad:
            violations[0] += 1
        holdings[0] += hand_holdings
        rondas[0] += hand_rondas
        rondas_sq[0] += hand_rondas * hand_rondas
        tringlas[0] += hand_tringlas
        tringlas_sq[0] += hand_tringlas * hand_tringlas
    store(state, s0, s1, s2, s3)
