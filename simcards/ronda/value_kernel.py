"""Monte Carlo hands on card values: the loop :func:`simcards.ronda.hands_batch.simulate_hands`
runs when no seat searches (every seat ``random``, Q2, or ``greedy``, Q3).

Why a loop of its own: a batch of hands reads only counts and points, never which card of a
value was played, and suits never matter to play or points (D1). Here a card is its value, the
table is a bit mask of values (P4 allows one card per value), a holding is its count of each
value packed four bits a value, and the position (table, pile in play, last laid, last capturer,
public cards) and the chunk's generator live in local variables for the whole chunk, not in a
workspace written at every play. The rules are those of :mod:`simcards.ronda.hand_kernel` step
by step, greedy is the one rule of :mod:`simcards.ronda.value_rules_kernel`, and the statistics
are those of the hands on the workspace (:func:`play_kernel.workspace_hands`), bit for bit:
``tests/ronda/test_value_kernel.py`` plays every configuration both ways from the same streams
and requires identical statistics.

The stream layout is :mod:`simcards.ronda.play_kernel`'s: the dealer when drawn, the shuffle,
then one uniform per play of a random seat. No other draw comes between a hand's uniforms, so
each is drawn when its play comes instead of before the first play. Searching seats draw a
seed per hand after the uniforms and play on the workspace; they never come here.

With two players (every rule option but D4's face-up card, a three-player rule) the hands are
played by a loop of their own, :func:`_two_player_hands`, which keeps in local words what the
general loop keeps in arrays by seat: both holdings and announcements, the captured cards,
points and events of both seats, packed (a loop whose values outnumber the processor's
registers spills them to memory at every play). Its table is a nibble mask and greedy there is
:func:`value_rules_kernel.greedy_nibbles`, the case-by-case form ``rollout:K``'s playouts use;
the general loop keeps :func:`value_rules_kernel.greedy_value`. Both give the workspace's
statistics.

A hand's invariant check (the ``violations`` of the hands' statistics) is here the one
a values-only hand can make: all 40 cards end captured, and every holding empty.

Compiled without reference counting (``hand_kernel`` module docstring): the caller allocates.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from simcards.core.bits_kernel import lowest_bit, popcount
from simcards.core.rng_kernel import below, load, step, store
from simcards.ronda.codes import (
    ACT_CAPTURE,
    ACT_DERBA,
    ACT_LAY,
    ACT_REHIT,
    ANNOUNCE_EVERY_DEAL,
    MODE_POINTS,
    N_SOURCES,
    POLICY_RANDOM,
    SRC_CARDS,
)
from simcards.ronda.kernel_state import Board, PlayFacts, Spot, ValueWork
from simcards.ronda.value_rules_kernel import (
    LOW_NIBBLE_BITS,
    N_CARDS,
    NIBBLE,
    act_nibbles,
    announced,
    announcement_credits,
    credit,
    deal_two,
    greedy_nibbles,
    greedy_value,
    held_nibbles,
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
def _chance(s0, s1, s2, s3, dealer, n, deck):
    """A hand's chance in the ``play_kernel`` layout, on local words: the dealer when drawn
    (``dealer`` < 0: ``randbelow(n)``), then the shuffle of ``deck`` in place. Returns
    ``(s0, s1, s2, s3, dealer)``."""
    d = dealer
    if d < 0:
        s0, s1, s2, s3, d = below(s0, s1, s2, s3, n)
    for j in range(N_CARDS - 1):
        s0, s1, s2, s3, r = below(s0, s1, s2, s3, N_CARDS - j)
        r += j
        x = deck[j]
        deck[j] = deck[r]
        deck[r] = x
    return s0, s1, s2, s3, d


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
    the hands' statistics (:data:`simcards.ronda.hands_batch.STAT_NAMES` order; the last array
    is a scratch of totals by side). ``classic``: C2 decides who wins the hand, else the points."""
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


@njit(cache=True, inline="always")
def _count_hand(stats, pts, capn, classic, bad, hand_holdings, hand_rondas, hand_tringlas):
    """One hand added to the statistics (:func:`add_hand`, then the invariant check's verdict
    ``bad`` and A2's counters of 4-card holdings, Rondas and Tringlas)."""
    add_hand(pts, capn, classic, stats)
    holdings, rondas, rondas_sq, tringlas, tringlas_sq, violations = stats[9:15]
    if bad:
        violations[0] += 1
    holdings[0] += hand_holdings
    rondas[0] += hand_rondas
    rondas_sq[0] += hand_rondas * hand_rondas
    tringlas[0] += hand_tringlas
    tringlas_sq[0] += hand_tringlas * hand_tringlas


@njit(cache=True, _nrt=False)
def value_hands(state, hands, dealer, seats, rules, work, stats):
    """``hands`` hands from the stream ``state`` (``play_kernel`` layout), adding up into
    ``stats`` as :func:`play_kernel.workspace_hands` does (its arrays in ``STAT_NAMES`` order,
    events as one (side, 3) array, then a scratch of totals by side)."""
    if rules.players == 2 and not rules.face_up:
        _two_player_hands(state, hands, dealer, seats, rules, work, stats)
        return
    events = stats[8]
    n, ns, teams, plays = rules.players, rules.sides, rules.teams, rules.plays
    sizes, share = rules.deal_sizes, rules.share
    points_mode = rules.mode == MODE_POINTS
    every_deal = rules.announce == ANNOUNCE_EVERY_DEAL
    kinds = seats.kinds
    deck, hold, hn, ann, capn, pts = work.deck, work.hold, work.hn, work.ann, work.capn, work.pts
    flat, held = work.flat, work.held
    s0, s1, s2, s3 = load(state)
    for _ in range(hands):
        s0, s1, s2, s3, d = _chance(s0, s1, s2, s3, dealer, n, deck)
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
            if play.hit > 0 or play.missa or last:  # rare: counted in the branch points need
                s = play.side
                events[s, 0] += play.action == ACT_DERBA
                events[s, 1] += play.action == ACT_REHIT
                events[s, 2] += play.missa
                if points_mode:  # X6/X7, M1, L1-L5
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
        _count_hand(stats, pts, capn, not points_mode, bad, hand_holdings, hand_rondas,
                    hand_tringlas)
    store(state, s0, s1, s2, s3)


@njit(cache=True, _nrt=False)
def _two_player_hands(state, hands, dealer, seats, rules, work, stats):
    """:func:`value_hands` for two players (module docstring): the same statistics from the
    same streams, with both holdings, captured cards, points and events in local words.

    Two random seats get a loop of their own, :func:`_two_player_loop` with both seats' kinds
    constant: the compiler then drops greedy and everything only greedy reads (the public
    cards, the announcements left in hand), and the loop keeps fewer values in registers."""
    random0 = seats.kinds[0] == POLICY_RANDOM
    random1 = seats.kinds[1] == POLICY_RANDOM
    if random0 and random1:
        _two_player_loop(state, hands, dealer, True, True, rules, work, stats)
    else:
        _two_player_loop(state, hands, dealer, random0, random1, rules, work, stats)


@njit(cache=True, inline="always")
def _two_player_loop(state, hands, dealer, random0, random1, rules, work, stats):
    """The loop of :func:`_two_player_hands`; ``random0`` and ``random1`` tell whether seat 0
    and seat 1 play ``random`` (else ``greedy``)."""
    events = stats[8]
    plays, sizes, share = rules.plays, rules.deal_sizes, rules.share
    points_mode = rules.mode == MODE_POINTS
    every_deal = rules.announce == ANNOUNCE_EVERY_DEAL
    deck, ann, capn, pts, flat = work.deck, work.ann, work.capn, work.pts, work.flat
    s0, s1, s2, s3 = load(state)
    for _ in range(hands):
        s0, s1, s2, s3, d = _chance(s0, s1, s2, s3, dealer, 2, deck)
        for t in range(2):
            for src in range(N_SOURCES):
                pts[t, src] = 0
        first = 1 - d
        h0 = np.int64(0)
        h1 = np.int64(0)
        a0 = np.int64(0)
        a1 = np.int64(0)
        # Few words for the counters of every play (every register the loop keeps is one it
        # does not spill): cards captured by seat 0 in bits 0-31 and seat 1 in 32-63; Derbas,
        # re-hits and Missas of seat 0 then seat 1, 8 bits each (a hand has 40 plays). The
        # few plays that score are credited into ``pts`` by the shared rule.
        cc = np.int64(0)
        ev = np.int64(0)
        board = Board(np.int64(0), np.int64(0), np.int64(0), np.int64(-1), np.int64(0),
                      np.int64(-1), np.int64(-1), np.int64(-1))
        public = np.int64(0)  # public cards by value, packed (k of them at play k)
        stock = 0
        deal = -1
        in_hand = 0
        hand_rondas = 0
        hand_tringlas = 0
        hand_holdings = 0
        p = first
        for k in range(plays):
            if in_hand == 0:
                deal += 1
                size = sizes[deal]
                h0, h1 = deal_two(deck, stock, size, first, h0, h1, 0)
                stock += 2 * size
                in_hand = 2 * size
                p = first
                announcing = points_mode and (deal == 0 or every_deal)
                two0, three0 = pairs(h0)
                two1, three1 = pairs(h1)
                if size == 4:
                    hand_rondas += popcount(two0) + popcount(two1)
                    hand_tringlas += popcount(three0) + popcount(three1)
                    hand_holdings += 2
                if announcing:
                    a0 = announced(two0, three0)
                    a1 = announced(two1, three1)
                    if a0 | a1:
                        ann[0] = a0
                        ann[1] = a1
                        announcement_credits(rules, ann, 0, pts)
                else:
                    a0 = 0
                    a1 = 0
            last = k + 1 == plays
            h = h0 if p == 0 else h1
            m = (in_hand + 1) >> 1  # the mover holds one card more than the other, or as many
            rnd = random0 if p == 0 else random1
            if rnd:
                s0, s1, s2, s3, w = step(s0, s1, s2, s3)
                v = _nth_value(h, rank_of(w, m))
            else:
                nz = held_nibbles(h)
                if nz & (nz - 1) == 0:
                    v = lowest_bit(nz) >> 2
                else:
                    nh = in_hand >> 1  # the other's holding at his next play
                    if nh == 0:
                        nh = sizes[deal + 1]
                    v = greedy_nibbles(Spot(p, h, board, False, N_CARDS - k - m, nh,
                                            a1 if p == 0 else a0, public), board.hitter, rules)
            sh = 4 * v
            nib = np.int64(1) << sh
            if p == 0:
                h0 -= nib
                if (a0 >> sh) & NIBBLE:
                    a0 -= nib
            else:
                h1 -= nib
                if (a1 >> sh) & NIBBLE:
                    a1 -= nib
            in_hand -= 1
            public += nib
            board, hs, closed, gained, hit, taken = act_nibbles(v, p, board, False)
            missa = taken > 0 and board.table_n == 0
            if closed > 0:  # X5a closed a pile: it has a hitter, so hs >= 0
                cc += closed << (32 * hs)
            cc += gained << (32 * p)
            # A play that hits or sweeps is rare; counting it inside the one branch its points
            # need anyway is cheaper than counting every play without a branch.
            if hit > 0 or missa or last:
                ev += (np.int64(hit == 1) | (np.int64(hit > 1) << 8)
                       | (np.int64(missa) << 16)) << (24 * p)
                if points_mode:  # X6/X7, M1, L1-L5
                    if hit == 1:
                        action = ACT_DERBA
                    elif hit > 1:
                        action = ACT_REHIT
                    elif board.laid == v:
                        action = ACT_LAY
                    else:
                        action = ACT_CAPTURE
                    credit(PlayFacts(action, hit, missa, last, v, p, hs), rules, flat, 0,
                           N_SOURCES, 1)
            p = 1 - p
        c0 = cc & 0xFFFFFFFF
        c1 = cc >> 32
        if board.pile_n > 0:
            if board.hitter == 0:
                c0 += board.pile_n
            else:
                c1 += board.pile_n
        if board.table_n > 0:
            if board.lc == 0:
                c0 += board.table_n
            else:
                c1 += board.table_n
        capn[0] = c0
        capn[1] = c1
        if points_mode:
            if c0 > share:
                pts[0, SRC_CARDS] += c0 - share
            if c1 > share:
                pts[1, SRC_CARDS] += c1 - share
        events[0, 0] += ev & 255
        events[0, 1] += (ev >> 8) & 255
        events[0, 2] += (ev >> 16) & 255
        events[1, 0] += (ev >> 24) & 255
        events[1, 1] += (ev >> 32) & 255
        events[1, 2] += (ev >> 40) & 255
        _count_hand(stats, pts, capn, not points_mode, c0 + c1 != N_CARDS or h0 != 0 or h1 != 0,
                    hand_holdings, hand_rondas, hand_tringlas)
    store(state, s0, s1, s2, s3)
