"""numba kernels for one Ronda hand (rules D, P, X, M1, U1, L, A, S1, C of ``seeds/ronda.md``).

A hand is played from a given deck order (D5: top card first) and dealer, with one policy per
seat (Q6): ``random`` (Q2) or ``greedy`` (Q3). ``lookahead`` (Q4) and ``rollout`` (Q5) are not
in the kernel yet; :mod:`simcards.ronda.reference` plays them.

Cards are ids 0..39: value index ``c >> 2`` (0 = As .. 9 = Rey, the D1 sequence) and suit
``c & 3``, so id order is the card order of Q1. A hand is kept in a handful of int64 arrays
(the *workspace*, :func:`new_workspace`): the scalars ``st`` (slots ``S_*`` below), the holdings
sorted by card order, the table by value (P4: at most one card per value), the captured cards
and the pile in play as bit masks with their counts, and the points by side and source.

Chance never enters a hand: :func:`simulate_hands` draws everything first. Its stream layout,
per hand, from the chunk's xoshiro256** state, in this order:

1. when ``dealer < 0``: the dealer, ``randbelow(players)`` (D3); otherwise none;
2. the shuffle (D5): a Fisher-Yates pass over the chunk's deck array, which is kept from hand
   to hand (it starts as 0..39): for j = 0 .. 38, ``r = j + randbelow(40 - j)``, swap
   ``deck[j]`` and ``deck[r]``; the deck is then read top card first (``deck[0]``);
3. one ``uniform`` per play of a ``random`` seat (Q2), in play order (play k of the hand is
   seat ``(dealer + 1 + k) % players``, D3); greedy plays draw nothing.

:func:`record_hands` returns exactly these deals, dealers and uniforms, and :func:`replay`
plays given ones with a per-play log, so that the reference engine can play the same hands
with the same decisions.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from simcards.core.errors import UsageError
from simcards.core.rng import randbelow, uniform
from simcards.ronda.codes import (
    ACT_CAPTURE,
    ACT_DERBA,
    ACT_LAY,
    ACT_REHIT,
    ANNOUNCE_EVERY_DEAL,
    CHAIN_FLAT,
    CONFLICT_TEXT,
    F_ACTION,
    F_CARD,
    F_CHAIN_CLOSED,
    F_CLOSED,
    F_CLOSED_TO,
    F_HIT,
    F_LAST,
    F_MISSA,
    F_N_TAKEN,
    F_PLAYER,
    F_TAKEN,
    KIND_RONDA,
    MAX_DEALS,
    MAX_HAND,
    MODE_POINTS,
    N_FIELDS,
    N_SOURCES,
    POLICY_GREEDY,
    POLICY_RANDOM,
    R_ANNOUNCE,
    R_CHAIN,
    R_CONFLICT,
    R_FACE_UP,
    R_MODE,
    R_PLAYERS,
    R_PLAYS,
    R_SHARE,
    R_SIDES,
    R_TEAMS,
    SRC_CARDS,
    SRC_DERBA,
    SRC_LAST_CARD,
    SRC_MISSA,
    SRC_RONDA,
    SRC_TRINGLA,
)

N_CARDS = 40
N_VALUES = 10
AS = 0
REY = 9
FULL = (1 << N_CARDS) - 1
MAX_HOLD = 20  # 2 players: 20 cards each over the hand (at most 4 at a time)

# Scalar slots of the workspace's ``st``.
S_TABLE_N = 0  # cards on the table
S_TABLE_MASK = 1
S_PILE_N = 2  # cards in the pile in play (0: none, X3)
S_PILE_MASK = 3
S_PILE_V = 4  # value index of the pile's top
S_PILE_VC = 5  # cards of that value in the pile (2 after a Derba, 4 closes it: X5b)
S_PILE_HITTER = 6  # last hitter (player), -1 if none
S_LAST_LAID = 7  # the card the previous play laid (X1), -1 if it captured / no play yet
S_LAST_CAPTURER = 8  # U1: player who captured last, -1 if none
S_DEAL = 9  # deal in progress (0-based)
S_TURN = 10  # player to move
S_STOCK = 11  # next card of the deck to deal
S_PLAYS = 12  # plays made in the hand
S_PUBLIC = 13  # cards everyone has seen (played, and the 3-player face-up card)
S_DEALER = 14
S_FIRST = 15  # D3: the player after the dealer
S_HELD = 16  # cards in all holdings
S_RONDAS = 17  # Rondas held in the hand's 4-card holdings (A2, scoring or not)
S_TRINGLAS = 18
S_HOLDINGS = 19  # 4-card holdings dealt in the hand
S_VIOLATIONS = 20  # broken invariants (two cards of a value on the table)
S_SCORE = 21  # 21 .. 24: each side's points of the hand, added up credit by credit
S_SIZE = 25


@njit(cache=True, inline="always")
def _side(p, teams):
    """D2: each player alone, or partnerships {0, 2} and {1, 3}."""
    if teams:
        return p & 1
    return p


@njit(cache=True, inline="always")
def _tier(hit):
    """X7: the first, second and third hit of a chain score 1, 5 and 10."""
    if hit == 1:
        return 1
    if hit == 2:
        return 5
    return 10


def _comb_table() -> np.ndarray:
    """C(a, b) for 0 <= a <= 40 and 0 <= b <= 4 (0 when b > a), exactly."""
    table = np.zeros((N_CARDS + 1, MAX_HAND + 1), np.int64)
    for a in range(N_CARDS + 1):
        for b in range(MAX_HAND + 1):
            table[a, b] = math.comb(a, b)
    return table


_COMB = _comb_table()


@njit(cache=True)
def new_workspace(rl):
    """The arrays one hand is played in (see the module docstring); reused hand after hand."""
    n = rl[R_PLAYERS]
    ns = rl[R_SIDES]
    st = np.zeros(S_SIZE, np.int64)
    hc = np.zeros((n, MAX_HOLD), np.int64)  # holdings, card order
    hn = np.zeros(n, np.int64)
    tab = np.full(N_VALUES, -1, np.int64)  # table: card of each value, -1 if none
    capm = np.zeros(ns, np.int64)  # captured cards by side, bit masks
    capn = np.zeros(ns, np.int64)
    pts = np.zeros((ns, N_SOURCES), np.int64)  # points of the hand by side and source
    ann = np.zeros((n, N_VALUES), np.int64)  # Q1: announced count of v left unplayed, this deal
    pubv = np.zeros(N_VALUES, np.int64)  # public cards of each value
    dp = np.zeros((ns, N_SOURCES), np.int64)  # scratch: credits of one play or deal
    held = np.zeros(ns, np.int64)  # scratch
    annbuf = np.zeros((2 * n, 3), np.int64)  # scratch: announcements of a deal
    return st, hc, hn, tab, capm, capn, pts, ann, pubv, dp, held, annbuf


# ---------------------------------------------------------------- deals and announcements


@njit(cache=True)
def _announce_credits(annbuf, na, rl, dp):
    """A4/A5: the credits of the ``na`` announcements of one deal into ``dp`` (zeroed here).

    ``annbuf`` rows are (player, kind, value). Each announcement is booked under its own kind,
    also when ``highest_takes_all`` gives it to another side.
    """
    teams = rl[R_TEAMS]
    ns = rl[R_SIDES]
    for t in range(ns):
        for s in range(N_SOURCES):
            dp[t, s] = 0
    if rl[R_CONFLICT] == CONFLICT_TEXT:
        # A4b: Tringlas of one side all score; of several sides only the lowest.
        t_side = -1
        t_multi = False
        t_low = N_VALUES
        for i in range(na):
            if annbuf[i, 1] != KIND_RONDA:
                sd = _side(annbuf[i, 0], teams)
                if t_side < 0:
                    t_side = sd
                elif sd != t_side:
                    t_multi = True
                if annbuf[i, 2] < t_low:
                    t_low = annbuf[i, 2]
        for i in range(na):
            sd = _side(annbuf[i, 0], teams)
            v = annbuf[i, 2]
            if annbuf[i, 1] == KIND_RONDA:
                # A4a: a Ronda of the same value held by another side cancels both.
                ok = True
                for j in range(na):
                    if (annbuf[j, 1] == KIND_RONDA and annbuf[j, 2] == v
                            and _side(annbuf[j, 0], teams) != sd):
                        ok = False
                if ok:
                    dp[sd, SRC_RONDA] += 1
            elif not t_multi or v == t_low:
                dp[sd, SRC_TRINGLA] += 5
        return
    # A5: the side of the strongest announcement (A3) takes all; a tie between sides, nothing.
    best = -1
    for i in range(na):
        strength = annbuf[i, 1] * 16 + annbuf[i, 2]
        if strength > best:
            best = strength
    winner = -1
    for i in range(na):
        if annbuf[i, 1] * 16 + annbuf[i, 2] == best:
            sd = _side(annbuf[i, 0], teams)
            if winner < 0:
                winner = sd
            elif sd != winner:
                return
    for i in range(na):
        if annbuf[i, 1] == KIND_RONDA:
            dp[winner, SRC_RONDA] += 1
        else:
            dp[winner, SRC_TRINGLA] += 5


@njit(cache=True, inline="always")
def _deal_next(deck, rl, ds, ws, deal_log, log_on):
    """D5: the next deal, one card at a time from the top, first player first, dealer last;
    then A1 .. A5 (announcements of the holdings as dealt) and the A2 counters."""
    st = ws[0]
    hc = ws[1]
    hn = ws[2]
    pts = ws[6]
    ann = ws[7]
    dp = ws[9]
    annbuf = ws[11]
    n = rl[R_PLAYERS]
    st[S_DEAL] += 1
    d = st[S_DEAL]
    size = ds[d]
    first = st[S_FIRST]
    for _ in range(size):
        for i in range(n):
            p = (first + i) % n
            c = deck[st[S_STOCK]]
            st[S_STOCK] += 1
            j = hn[p]  # insertion keeps the holding in card order
            while j > 0 and hc[p, j - 1] > c:
                hc[p, j] = hc[p, j - 1]
                j -= 1
            hc[p, j] = c
            hn[p] += 1
    st[S_HELD] += size * n
    st[S_TURN] = first
    for p in range(n):
        for v in range(N_VALUES):
            ann[p, v] = 0
    announcing = rl[R_MODE] == MODE_POINTS and (d == 0 or rl[R_ANNOUNCE] == ANNOUNCE_EVERY_DEAL)
    na = 0
    for i in range(n):
        p = (first + i) % n
        rondas = 0
        tringlas = 0
        j = 0
        while j < hn[p]:  # the holding is sorted, so equal values are adjacent
            v = hc[p, j] >> 2
            k = 1
            while j + k < hn[p] and (hc[p, j + k] >> 2) == v:
                k += 1
            if k >= 2:
                kind = KIND_RONDA if k == 2 else 1
                if k == 2:
                    rondas += 1
                else:
                    tringlas += 1
                if announcing:
                    annbuf[na, 0] = p
                    annbuf[na, 1] = kind
                    annbuf[na, 2] = v
                    na += 1
                    ann[p, v] = 2 if k == 2 else 3
            j += k
        if size == 4:
            st[S_RONDAS] += rondas
            st[S_TRINGLAS] += tringlas
            st[S_HOLDINGS] += 1
    if na > 0:
        _announce_credits(annbuf, na, rl, dp)
        ns = rl[R_SIDES]
        for t in range(ns):
            for s in range(N_SOURCES):
                pts[t, s] += dp[t, s]
                st[S_SCORE + t] += dp[t, s]
                if log_on:
                    deal_log[d, t, s] += dp[t, s]


@njit(cache=True, inline="always")
def start_hand(deck, dealer, rl, ds, ws, deal_log, log_on):
    """A fresh hand from ``deck`` (top first) with ``dealer`` (D3): the 3-player face-up card
    (D4) and the first deal (D5) with its announcements (A1)."""
    st = ws[0]
    hn = ws[2]
    tab = ws[3]
    capm = ws[4]
    capn = ws[5]
    pts = ws[6]
    pubv = ws[8]
    n = rl[R_PLAYERS]
    for i in range(S_SIZE):
        st[i] = 0
    st[S_PILE_HITTER] = -1
    st[S_PILE_V] = -1
    st[S_LAST_LAID] = -1
    st[S_LAST_CAPTURER] = -1
    st[S_DEAL] = -1
    st[S_DEALER] = dealer
    st[S_FIRST] = (dealer + 1) % n
    for p in range(n):
        hn[p] = 0
    for v in range(N_VALUES):
        tab[v] = -1
        pubv[v] = 0
    for t in range(rl[R_SIDES]):
        capm[t] = 0
        capn[t] = 0
        for s in range(N_SOURCES):
            pts[t, s] = 0
    if rl[R_FACE_UP]:
        c = deck[0]
        tab[c >> 2] = c
        st[S_TABLE_N] = 1
        st[S_TABLE_MASK] = np.int64(1) << c
        st[S_STOCK] = 1
        st[S_PUBLIC] = 1
        pubv[c >> 2] += 1
    _deal_next(deck, rl, ds, ws, deal_log, log_on)


# ---------------------------------------------------------------- one play


@njit(cache=True, inline="always")
def _resolve(card, st, tab, plays):
    """What ``card`` would do now (P2-P4, X1, X4, X5b, M1): ``(action, taken, hit,
    chain_closed, missa, last)``. Pure: the state is not changed."""
    v = card >> 2
    k = 0
    hit = 0
    chain_closed = False
    if st[S_PILE_N] > 0 and st[S_PILE_V] == v:
        action = ACT_REHIT  # X4: the card goes on the pile; nothing from the table
        hit = st[S_PILE_VC]
        chain_closed = st[S_PILE_VC] == 3  # X5b: the fourth card of the value
    elif tab[v] >= 0:
        w = v
        while w <= REY and tab[w] >= 0:  # P2: the run, Rey last
            k += 1
            w += 1
        laid = st[S_LAST_LAID]
        if laid >= 0 and (laid >> 2) == v:
            action = ACT_DERBA  # X1
            hit = 1
        else:
            action = ACT_CAPTURE
    else:
        action = ACT_LAY  # P3
    missa = k > 0 and st[S_TABLE_N] == k  # M1
    last = st[S_PLAYS] + 1 == plays
    return action, k, hit, chain_closed, missa, last


@njit(cache=True, inline="always")
def _credits(action, hit, missa, last, v, s, prev_side, rl, dp):
    """The points of one play into ``dp`` (zeroed here), S3 steps (3)-(5): X6/X7, M1, L1-L5."""
    ns = rl[R_SIDES]
    for t in range(ns):
        for src in range(N_SOURCES):
            dp[t, src] = 0
    if rl[R_MODE] != MODE_POINTS:
        return
    if hit > 0:
        if rl[R_CHAIN] == CHAIN_FLAT:
            dp[s, SRC_DERBA] += 1  # X6
        else:
            dp[s, SRC_DERBA] += _tier(hit)  # X7
            if hit > 1:
                dp[prev_side, SRC_DERBA] -= _tier(hit - 1)
    if missa:
        dp[s, SRC_MISSA] += 1
    if last:
        if v == REY and action != ACT_LAY:
            dp[s, SRC_LAST_CARD] += 10  # L1
        elif v in (REY, AS):
            for t in range(ns):  # L2, L3: each other side (a team once)
                if t != s:
                    dp[t, SRC_LAST_CARD] += 10


@njit(cache=True, inline="always")
def _balance(action, hit, missa, last, v, s, prev_side, rl):
    """What :func:`_credits` gives, as the Q1 balance dP(s) - sum of dP(t) over the other
    sides (S1 left to the caller)."""
    if rl[R_MODE] != MODE_POINTS:
        return 0
    b = 0
    if hit > 0:
        if rl[R_CHAIN] == CHAIN_FLAT:
            b += 1
        else:
            b += _tier(hit)
            if hit > 1:
                b += _tier(hit - 1) if prev_side != s else -_tier(hit - 1)
    if missa:
        b += 1
    if last:
        if v == REY and action != ACT_LAY:
            b += 10
        elif v in (REY, AS):
            b -= 10 * (rl[R_SIDES] - 1)
    return b


@njit(cache=True, inline="always")
def _close_pile(st, capm, capn, side):
    """X5: the pile in play goes to ``side``'s captured cards."""
    capm[side] |= st[S_PILE_MASK]
    capn[side] += st[S_PILE_N]
    st[S_PILE_N] = 0
    st[S_PILE_MASK] = 0
    st[S_PILE_V] = -1
    st[S_PILE_VC] = 0
    st[S_PILE_HITTER] = -1


@njit(cache=True, inline="always")
def greedy_card(p, rl, ds, ws):
    """Q3: the card whose single play has the highest V(own side) (Q1: 100 x the point balance
    without announcements, plus the change in cards held; the last play includes X5c, U1 and
    S1); ties go to the lowest Derba risk, then card order.

    Q1's Derba risk of a card of value v is 1 - C(U-u, h) / C(U, h), or 1 when the next
    player's announcements at this deal prove he holds a v, or 0 for a capture without Derba, a
    chain closed by X5b or the last play. U and h are the same for every card of one decision,
    so the risks of two cards compare exactly as their integers ``keep`` = C(U-u, h) (C(U, h)
    for a risk of 0, 0 for a proven v) compare, the other way round: distinct numerators below
    2**53 over one denominator give distinct quotients. The kernel ranks by ``keep`` and never
    forms the quotient.
    """
    st = ws[0]
    hc = ws[1]
    hn = ws[2]
    tab = ws[3]
    capn = ws[5]
    ann = ws[7]
    pubv = ws[8]
    held = ws[10]
    teams = rl[R_TEAMS]
    ns = rl[R_SIDES]
    plays = rl[R_PLAYS]
    s = _side(p, teams)
    pile_n = st[S_PILE_N]
    hitter = st[S_PILE_HITTER]
    hs = _side(hitter, teams) if hitter >= 0 else -1
    nxt = (p + 1) % rl[R_PLAYERS]
    big_u = N_CARDS - st[S_PUBLIC] - hn[p]  # unseen cards: other holdings and the stock
    h = hn[nxt]
    if h == 0:
        h = ds[st[S_DEAL] + 1]  # his holding at his next play comes from the next deal
    safe = _COMB[big_u, h]  # keep of a risk of 0
    best = -1
    best_v = 0
    best_keep = 0
    m = hn[p]
    i = 0
    while i < m:
        c = hc[p, i]
        v = c >> 2
        own = 1  # the holding is in card order: cards of one value are adjacent and the
        while i + own < m and (hc[p, i + own] >> 2) == v:  # first of them wins any tie
            own += 1
        i += own
        action, k, hit, chain_closed, missa, last = _resolve(c, st, tab, plays)
        bal = _balance(action, hit, missa, last, v, s, hs, rl)
        if action == ACT_REHIT:
            dk = 1 if hs == s else pile_n + 1
        elif action == ACT_LAY:
            dk = 0
        else:
            dk = k + 1
        if last:
            for t in range(ns):
                held[t] = capn[t]
            if pile_n > 0:
                held[hs] += pile_n
            before = held[s]
            if action == ACT_REHIT:
                held[hs] -= pile_n
                held[s] += pile_n + 1
            elif action != ACT_LAY:
                held[s] += k + 1
            left = st[S_TABLE_N] - k + (1 if action == ACT_LAY else 0)
            if left > 0:  # U1
                lc = p if action != ACT_LAY else st[S_LAST_CAPTURER]
                held[_side(lc, teams)] += left
            if rl[R_MODE] == MODE_POINTS:
                share = rl[R_SHARE]
                for t in range(ns):  # S1
                    if held[t] > share:
                        bal += held[t] - share if t == s else share - held[t]
            dk = held[s] - before
        value = 100 * bal + dk
        if best >= 0 and (value < best_v or (value == best_v and best_keep >= safe)):
            continue  # not better: lower value, or a tie that no risk can break
        if action == ACT_CAPTURE or chain_closed or last:
            keep = safe
        elif ann[nxt, v] > 0:
            keep = 0  # his announcements at this deal prove he holds a v: risk 1
        else:
            keep = _COMB[big_u - (4 - pubv[v] - own), h]  # u = unseen cards of value v
        if best < 0 or value > best_v or keep > best_keep:
            best = c
            best_v = value
            best_keep = keep
    return best


@njit(cache=True, inline="always")
def apply_play(card, rl, ws, log, play_pts, log_on):
    """Play ``card`` for the player to move (P1 .. L5, credits in the S3 order); when
    ``log_on``, fill the play's row of ``log`` (fields ``codes.F_*``) and its credits.
    Returns ``(action, missa)``."""
    st = ws[0]
    hc = ws[1]
    hn = ws[2]
    tab = ws[3]
    capm = ws[4]
    capn = ws[5]
    pts = ws[6]
    ann = ws[7]
    pubv = ws[8]
    dp = ws[9]
    teams = rl[R_TEAMS]
    ns = rl[R_SIDES]
    p = st[S_TURN]
    s = _side(p, teams)
    v = card >> 2
    # P1: out of the holding.
    j = 0
    while hc[p, j] != card:
        j += 1
    while j + 1 < hn[p]:
        hc[p, j] = hc[p, j + 1]
        j += 1
    hn[p] -= 1
    st[S_HELD] -= 1
    action, k, hit, chain_closed, missa, last = _resolve(card, st, tab, rl[R_PLAYS])
    pubv[v] += 1
    st[S_PUBLIC] += 1
    ann[p, v] -= 1
    hitter = st[S_PILE_HITTER]
    hs = _side(hitter, teams) if hitter >= 0 else -1
    bit = np.int64(1) << card
    # (1) X5a: another value closes the pile before the card acts.
    closed = 0
    if st[S_PILE_N] > 0 and st[S_PILE_V] != v:
        closed = st[S_PILE_N]
        _close_pile(st, capm, capn, hs)
    # (2) The card acts.
    taken = np.int64(0)
    if action == ACT_REHIT:
        st[S_PILE_MASK] |= bit
        st[S_PILE_N] += 1
        st[S_PILE_VC] += 1
        st[S_PILE_HITTER] = p
        st[S_LAST_CAPTURER] = p
        st[S_LAST_LAID] = -1
        if chain_closed:
            _close_pile(st, capm, capn, s)  # X5b
    elif action == ACT_LAY:
        if tab[v] >= 0:
            st[S_VIOLATIONS] += 1
        tab[v] = card
        st[S_TABLE_N] += 1
        st[S_TABLE_MASK] |= bit
        st[S_LAST_LAID] = card
    else:
        for w in range(v, v + k):
            taken |= np.int64(1) << tab[w]
            tab[w] = -1
        st[S_TABLE_N] -= k
        st[S_TABLE_MASK] &= ~taken
        if action == ACT_DERBA:  # X3: the Derba's cards form the pile in play
            st[S_PILE_MASK] = taken | bit
            st[S_PILE_N] = k + 1
            st[S_PILE_V] = v
            st[S_PILE_VC] = 2
            st[S_PILE_HITTER] = p
        else:  # P5
            capm[s] |= taken | bit
            capn[s] += k + 1
        st[S_LAST_CAPTURER] = p
        st[S_LAST_LAID] = -1
    # (3)-(5) X6/X7, M1, L1-L5.
    scores = rl[R_MODE] == MODE_POINTS and (hit > 0 or missa or last)
    if scores or log_on:
        _credits(action, hit, missa, last, v, s, hs, rl, dp)
    if scores:
        for t in range(ns):
            for src in range(N_SOURCES):
                pts[t, src] += dp[t, src]
                st[S_SCORE + t] += dp[t, src]
    if log_on:
        r = st[S_PLAYS]
        log[r, F_PLAYER] = p
        log[r, F_CARD] = card
        log[r, F_ACTION] = action
        log[r, F_TAKEN] = taken
        log[r, F_N_TAKEN] = k
        log[r, F_CLOSED] = closed
        log[r, F_CLOSED_TO] = hs if closed > 0 else -1
        log[r, F_HIT] = hit
        log[r, F_CHAIN_CLOSED] = chain_closed
        log[r, F_MISSA] = missa
        log[r, F_LAST] = last
        for t in range(ns):
            for src in range(N_SOURCES):
                play_pts[r, t, src] = dp[t, src]
    st[S_PLAYS] += 1
    st[S_TURN] = (p + 1) % rl[R_PLAYERS]
    return action, missa


@njit(cache=True, inline="always")
def finish_hand(rl, ws):
    """End of the hand: X5c, U1 (Ultima), then S1. Returns ``(ultima side, ultima mask)``."""
    st = ws[0]
    tab = ws[3]
    capm = ws[4]
    capn = ws[5]
    pts = ws[6]
    teams = rl[R_TEAMS]
    if st[S_PILE_N] > 0:
        _close_pile(st, capm, capn, _side(st[S_PILE_HITTER], teams))
    u_side = -1
    u_mask = st[S_TABLE_MASK]
    if st[S_TABLE_N] > 0:
        u_side = _side(st[S_LAST_CAPTURER], teams)
        capm[u_side] |= u_mask
        capn[u_side] += st[S_TABLE_N]
        st[S_TABLE_N] = 0
        st[S_TABLE_MASK] = 0
        for v in range(N_VALUES):
            tab[v] = -1
    if rl[R_MODE] == MODE_POINTS:
        share = rl[R_SHARE]
        for t in range(rl[R_SIDES]):
            if capn[t] > share:
                pts[t, SRC_CARDS] += capn[t] - share
                st[S_SCORE + t] += capn[t] - share
    return u_side, u_mask


@njit(cache=True)
def play_hand(deck, dealer, kinds, us, rl, ds, ws, log, play_pts, deal_log, events, log_on):
    """One whole hand from ``deck`` (top first) and ``dealer``; ``kinds`` are the seats'
    policies (``codes.POLICY_*``), ``us[k]`` the uniform of play k when its seat is random (Q2:
    the card of rank floor(u * k) in card order). Adds the Derbas, re-hits and Missas of each
    side to ``events[side, 0 .. 2]``. Returns the Ultima ``(side, mask)``."""
    st = ws[0]
    hc = ws[1]
    hn = ws[2]
    start_hand(deck, dealer, rl, ds, ws, deal_log, log_on)
    plays = rl[R_PLAYS]
    teams = rl[R_TEAMS]
    for k in range(plays):
        p = st[S_TURN]
        if kinds[p] == POLICY_RANDOM:
            m = hn[p]
            i = np.int64(us[k] * m)
            if i >= m:
                i = m - 1
            card = hc[p, i]
        elif kinds[p] == POLICY_GREEDY:
            card = greedy_card(p, rl, ds, ws)
        else:
            raise ValueError("policy kind not in the kernel")
        action, missa = apply_play(card, rl, ws, log, play_pts, log_on)
        s = _side(p, teams)
        if action == ACT_DERBA:
            events[s, 0] += 1
        elif action == ACT_REHIT:
            events[s, 1] += 1
        if missa:
            events[s, 2] += 1
        if st[S_HELD] == 0 and k + 1 < plays:
            _deal_next(deck, rl, ds, ws, deal_log, log_on)
    return finish_hand(rl, ws)


@njit(cache=True)
def hand_violations(rl, ws):
    """Invariants at the end of a hand: every card in exactly one side's captured cards,
    holdings, table and pile empty, counts equal to the masks; plus the laying check (P4)."""
    st = ws[0]
    hn = ws[2]
    capm = ws[4]
    capn = ws[5]
    pts = ws[6]
    bad = st[S_VIOLATIONS]
    seen = np.int64(0)
    total = 0
    for t in range(rl[R_SIDES]):
        if seen & capm[t]:
            bad += 1
        seen |= capm[t]
        total += capn[t]
        m = capm[t]
        cnt = 0
        while m:
            m &= m - 1
            cnt += 1
        if cnt != capn[t]:
            bad += 1
    if seen != FULL or total != N_CARDS:
        bad += 1
    if st[S_TABLE_N] != 0 or st[S_PILE_N] != 0 or st[S_HELD] != 0:
        bad += 1
    for t in range(rl[R_SIDES]):  # S2: each score is the sum of its sources
        tot = 0
        for src in range(N_SOURCES):
            tot += pts[t, src]
        if tot != st[S_SCORE + t]:
            bad += 1
    for p in range(rl[R_PLAYERS]):
        if hn[p] != 0:
            bad += 1
    return bad


# ---------------------------------------------------------------- chance


@njit(cache=True)
def _draw_hand(state, deck, dealer, n, plays, kinds, us):
    """The stream layout of one hand (module docstring): dealer, shuffle, uniforms."""
    if dealer < 0:
        dealer = randbelow(state, n)
    for j in range(N_CARDS - 1):
        r = j + randbelow(state, N_CARDS - j)
        x = deck[j]
        deck[j] = deck[r]
        deck[r] = x
    for k in range(plays):
        if kinds[(dealer + 1 + k) % n] == POLICY_RANDOM:
            us[k] = uniform(state)
        else:
            us[k] = 0.0
    return dealer


@njit(cache=True)
def record_hands(state, hands, dealer, kinds, rl):
    """The deals, dealers and uniforms :func:`simulate_hands` would use from ``state``:
    ``(decks (hands x 40), dealers (hands), us (hands x 40))``."""
    n = rl[R_PLAYERS]
    plays = rl[R_PLAYS]
    deck = np.arange(N_CARDS)
    decks = np.empty((hands, N_CARDS), np.int64)
    dealers = np.empty(hands, np.int64)
    us = np.zeros((hands, N_CARDS), np.float64)
    for h in range(hands):
        dealers[h] = _draw_hand(state, deck, dealer, n, plays, kinds, us[h])
        decks[h] = deck
    return decks, dealers, us


@njit(cache=True)
def replay(decks, dealers, us, kinds, rl, ds):
    """Play given hands with per-play logs.

    Returns ``(plays, play_points, deal_points, points, captured, ultima, counters)``:
    ``plays[h, k]`` the log row of play k (fields ``codes.F_*``), ``play_points[h, k, side,
    source]`` its credits, ``deal_points[h, d, side, source]`` the announcement credits of
    deal d, ``points[h, side, source]`` the hand's points, ``captured[h, side]`` the captured
    cards as bit masks, ``ultima[h] = (side, mask)`` (side -1: none) and ``counters[h] =
    (rondas, tringlas, 4-card holdings, invariant violations)``.
    """
    hands = decks.shape[0]
    ns = rl[R_SIDES]
    ws = new_workspace(rl)
    plays = np.zeros((hands, N_CARDS, N_FIELDS), np.int64)
    play_points = np.zeros((hands, N_CARDS, ns, N_SOURCES), np.int64)
    deal_points = np.zeros((hands, MAX_DEALS, ns, N_SOURCES), np.int64)
    points = np.zeros((hands, ns, N_SOURCES), np.int64)
    captured = np.zeros((hands, ns), np.int64)
    ultima = np.zeros((hands, 2), np.int64)
    counters = np.zeros((hands, 4), np.int64)
    events = np.zeros((ns, 3), np.int64)
    log_on = hands >= 0  # True, as a run-time value: one compiled play_hand serves both callers
    for h in range(hands):
        u_side, u_mask = play_hand(decks[h], dealers[h], kinds, us[h], rl, ds, ws, plays[h],
                                   play_points[h], deal_points[h], events, log_on)
        st = ws[0]
        pts = ws[6]
        capm = ws[4]
        for t in range(ns):
            captured[h, t] = capm[t]
            for src in range(N_SOURCES):
                points[h, t, src] = pts[t, src]
        ultima[h, 0] = u_side
        ultima[h, 1] = u_mask if u_side >= 0 else 0
        counters[h, 0] = st[S_RONDAS]
        counters[h, 1] = st[S_TRINGLAS]
        counters[h, 2] = st[S_HOLDINGS]
        counters[h, 3] = hand_violations(rl, ws)
    return plays, play_points, deal_points, points, captured, ultima, counters


# ---------------------------------------------------------------- Monte Carlo

STAT_NAMES = (
    "hands",  # [1] hands played
    "points",  # [side, source] points summed over hands (codes.SOURCES order)
    "points_sq",  # [side, source] sum over hands of (points of the source in the hand)^2
    "score",  # [side] all points of the hand, summed
    "score_sq",  # [side] sum of squares of the hand's points
    "cards",  # [side] captured cards (Ultima included), summed
    "cards_sq",  # [side]
    "hands_won",  # [side] points: strictly most points in the hand; classic: C2
    "derbas",  # [side] Derbas made (X1)
    "rehits",  # [side] re-hits made (X4)
    "missas",  # [side] Missas made (M1, counted in classic mode too)
    "holdings",  # [1] 4-card holdings dealt
    "rondas",  # [1] Rondas held in 4-card holdings (A2, scoring or not)
    "rondas_sq",  # [1] sum over hands of (Rondas held in the hand)^2
    "tringlas",  # [1] Tringlas held in 4-card holdings
    "tringlas_sq",  # [1] sum over hands of (Tringlas held in the hand)^2
    "violations",  # [1] hands breaking an invariant (hand_violations)
)
"""The statistics :func:`simulate_hands` returns, in its tuple order (int64 arrays)."""


def named_stats(stats: tuple) -> dict[str, np.ndarray]:
    """:func:`simulate_hands`'s tuple as ``{name: array}`` (names of :data:`STAT_NAMES`)."""
    return dict(zip(STAT_NAMES, stats, strict=True))


def policy_kinds(specs) -> np.ndarray:
    """The kernel's policy codes for per-seat policy names (Q6): ``random`` or ``greedy``.

    ``lookahead`` and ``rollout`` are played by the reference engine only, for now.
    """
    kinds = []
    for spec in specs:
        name = str(spec).partition(":")[0]
        if name == "random" and spec == name:
            kinds.append(POLICY_RANDOM)
        elif name == "greedy" and spec == name:
            kinds.append(POLICY_GREEDY)
        elif name in ("lookahead", "rollout"):
            raise UsageError(f"policy {spec!r} is not in the fast kernel yet (random, greedy)")
        else:
            raise UsageError(f"unknown policy {spec!r}; the kernel plays random or greedy")
    return np.array(kinds, np.int64)


@njit(cache=True)
def simulate_hands(state, hands, dealer, kinds, rl, ds):
    """Monte Carlo: ``hands`` independent hands from the stream ``state`` (layout in the module
    docstring); ``dealer`` a seat, or -1 to draw it for every hand. Returns the statistics of
    :data:`STAT_NAMES`, in that order."""
    n = rl[R_PLAYERS]
    ns = rl[R_SIDES]
    plays_n = rl[R_PLAYS]
    ws = new_workspace(rl)
    st = ws[0]
    capn = ws[5]
    pts = ws[6]
    deck = np.arange(N_CARDS)
    us = np.zeros(N_CARDS, np.float64)
    log = np.zeros((1, N_FIELDS), np.int64)
    play_pts = np.zeros((1, ns, N_SOURCES), np.int64)
    deal_log = np.zeros((1, ns, N_SOURCES), np.int64)
    n_hands = np.zeros(1, np.int64)
    points = np.zeros((ns, N_SOURCES), np.int64)
    points_sq = np.zeros((ns, N_SOURCES), np.int64)
    score = np.zeros(ns, np.int64)
    score_sq = np.zeros(ns, np.int64)
    cards = np.zeros(ns, np.int64)
    cards_sq = np.zeros(ns, np.int64)
    won = np.zeros(ns, np.int64)
    events = np.zeros((ns, 3), np.int64)  # Derbas, re-hits, Missas by side
    holdings = np.zeros(1, np.int64)
    rondas = np.zeros(1, np.int64)
    rondas_sq = np.zeros(1, np.int64)
    tringlas = np.zeros(1, np.int64)
    tringlas_sq = np.zeros(1, np.int64)
    violations = np.zeros(1, np.int64)
    totals = np.zeros(ns, np.int64)
    classic = rl[R_MODE] != MODE_POINTS
    log_on = hands < 0  # False, as a run-time value (see replay)
    for _ in range(hands):
        d = _draw_hand(state, deck, dealer, n, plays_n, kinds, us)
        play_hand(deck, d, kinds, us, rl, ds, ws, log, play_pts, deal_log, events, log_on)
        bad = hand_violations(rl, ws)
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
        if bad:
            violations[0] += 1
        holdings[0] += st[S_HOLDINGS]
        rondas[0] += st[S_RONDAS]
        rondas_sq[0] += st[S_RONDAS] * st[S_RONDAS]
        tringlas[0] += st[S_TRINGLAS]
        tringlas_sq[0] += st[S_TRINGLAS] * st[S_TRINGLAS]
    return (n_hands, points, points_sq, score, score_sq, cards, cards_sq, won,
            events[:, 0].copy(), events[:, 1].copy(), events[:, 2].copy(), holdings, rondas,
            rondas_sq, tringlas, tringlas_sq, violations)
