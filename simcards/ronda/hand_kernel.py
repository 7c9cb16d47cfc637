"""The rules of one Ronda hand as numba primitives (rules D, P, X, M1, U1, L, A, S1, C of
``seeds/ronda.md``): the workspace a hand is played in, deals and announcements, what a card
does, its credits, the end of the hand, and the ``greedy`` policy (Q3).

:mod:`simcards.ronda.play_kernel` plays whole hands and Monte Carlo batches with these. The
searching policies (:mod:`simcards.ronda.search_kernel`) play thousands of positions per decision,
so they search a compact form of the position (:mod:`simcards.ronda.compact_kernel`) whose plays
follow these functions step by step and use their point balance; ``tests/ronda/test_compact.py``
plays both forms side by side and requires the same position after every play.

Cards are ids 0..39: value index ``c >> 2`` (0 = As .. 9 = Rey, the D1 sequence) and suit
``c & 3``, so id order is the card order of Q1. A hand is kept in a handful of int64 arrays
(the *workspace*, a :class:`~simcards.ronda.kernel_state.HandWork` made by
:func:`new_workspace`; the rules come as one :class:`~simcards.ronda.kernel_state.KernelRules`):
the scalars ``st`` (slots ``S_*`` below), the holdings
sorted by card order, the table by value (P4: at most one card per value), the captured cards
and the pile in play as bit masks with their counts, the points by side and source, and per
player the announced and the played cards of each value at the current deal (public facts, I1,
from which the searching policies derive their samples, I3).

The functions that run once per hand or per deal and allocate nothing (:func:`announce_credits`,
:func:`hand_violations`, and the hand loops of :mod:`simcards.ronda.play_kernel`) are compiled with
``_nrt=False``, numba's switch that turns off reference counting. With it on, every array taken
out of the workspace's named tuple, and every array argument of an inlined helper, is counted up
and down with atomic instructions; in a whole hand of greedy plays that counting cost about three
quarters of the time. The arrays live as long as their caller, which allocated them, so nothing
needs counting; a function compiled so cannot allocate (numba refuses to compile it if it
tries).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from simcards.core.bits import popcount
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
    MAX_HAND,
    MODE_POINTS,
    N_SOURCES,
    SRC_CARDS,
    SRC_DERBA,
    SRC_LAST_CARD,
    SRC_MISSA,
    SRC_RONDA,
    SRC_TRINGLA,
)
from simcards.ronda.kernel_state import HandWork, PlayFacts

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
def side_of(p, teams):
    """D2: each player alone, or partnerships {0, 2} and {1, 3}."""
    if teams:
        return p & 1
    return p


@njit(cache=True, inline="always")
def tier(hit):
    """X7: the first, second and third hit of a chain score 1, 5 and 10."""
    if hit == 1:
        return 1
    if hit == 2:
        return 5
    return 10


def comb_table() -> np.ndarray:
    """C(a, b) for 0 <= a <= 40 and 0 <= b <= 4 (0 when b > a), exactly."""
    table = np.zeros((N_CARDS + 1, MAX_HAND + 1), np.int64)
    for a in range(N_CARDS + 1):
        for b in range(MAX_HAND + 1):
            table[a, b] = math.comb(a, b)
    return table


COMB = comb_table()


@njit(cache=True)
def new_workspace(rules):
    """The arrays one hand is played in (see the module docstring); reused hand after hand."""
    n = rules.players
    ns = rules.sides
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
    dplay = np.zeros((n, N_VALUES), np.int64)  # I1/Q1: cards of v each player played this deal
    return HandWork(st, hc, hn, tab, capm, capn, pts, ann, pubv, dp, held, annbuf, dplay)


# ---------------------------------------------------------------- deals and announcements


@njit(cache=True, _nrt=False)
def announce_credits(annbuf, na, rules, dp):
    """A4/A5: the credits of the ``na`` announcements of one deal into ``dp`` (zeroed here).

    ``annbuf`` rows are (player, kind, value). Each announcement is booked under its own kind,
    also when ``highest_takes_all`` gives it to another side.
    """
    teams = rules.teams
    ns = rules.sides
    for t in range(ns):
        for s in range(N_SOURCES):
            dp[t, s] = 0
    if rules.conflict == CONFLICT_TEXT:
        # A4b: Tringlas of one side all score; of several sides only the lowest.
        t_side = -1
        t_multi = False
        t_low = N_VALUES
        for i in range(na):
            if annbuf[i, 1] != KIND_RONDA:
                sd = side_of(annbuf[i, 0], teams)
                if t_side < 0:
                    t_side = sd
                elif sd != t_side:
                    t_multi = True
                if annbuf[i, 2] < t_low:
                    t_low = annbuf[i, 2]
        for i in range(na):
            sd = side_of(annbuf[i, 0], teams)
            v = annbuf[i, 2]
            if annbuf[i, 1] == KIND_RONDA:
                # A4a: a Ronda of the same value held by another side cancels both.
                ok = True
                for j in range(na):
                    if (annbuf[j, 1] == KIND_RONDA and annbuf[j, 2] == v
                            and side_of(annbuf[j, 0], teams) != sd):
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
            sd = side_of(annbuf[i, 0], teams)
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
def deal_next(deck, rules, ws, plog):
    """D5: the next deal, one card at a time from the top, first player first, dealer last;
    then A1 .. A5 (announcements of the holdings as dealt) and the A2 counters."""
    st = ws.st
    hc = ws.hc
    hn = ws.hn
    pts = ws.pts
    ann = ws.ann
    dp = ws.dp
    annbuf = ws.annbuf
    dplay = ws.dplay
    n = rules.players
    st[S_DEAL] += 1
    d = st[S_DEAL]
    size = rules.deal_sizes[d]
    first = st[S_FIRST]
    for _ in range(size):
        p = first  # seats in play order, wrapped by a comparison: no division per card
        for _i in range(n):
            c = deck[st[S_STOCK]]
            st[S_STOCK] += 1
            j = hn[p]  # insertion keeps the holding in card order
            while j > 0 and hc[p, j - 1] > c:
                hc[p, j] = hc[p, j - 1]
                j -= 1
            hc[p, j] = c
            hn[p] += 1
            p += 1
            if p == n:
                p = 0
    st[S_HELD] += size * n
    st[S_TURN] = first
    for p in range(n):
        for v in range(N_VALUES):
            ann[p, v] = 0
            dplay[p, v] = 0
    announcing = rules.mode == MODE_POINTS and (d == 0 or rules.announce == ANNOUNCE_EVERY_DEAL)
    na = np.int64(0)
    p = first - 1
    for _i in range(n):
        p += 1
        if p == n:
            p = 0
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
        announce_credits(annbuf, na, rules, dp)
        ns = rules.sides
        for t in range(ns):
            for s in range(N_SOURCES):
                pts[t, s] += dp[t, s]
                st[S_SCORE + t] += dp[t, s]
                if plog.on:
                    plog.deal_points[d, t, s] += dp[t, s]


@njit(cache=True, inline="always")
def start_hand(deck, dealer, rules, ws, plog):
    """A fresh hand from ``deck`` (top first) with ``dealer`` (D3): the 3-player face-up card
    (D4) and the first deal (D5) with its announcements (A1)."""
    st = ws.st
    hn = ws.hn
    tab = ws.tab
    capm = ws.capm
    capn = ws.capn
    pts = ws.pts
    pubv = ws.pubv
    n = rules.players
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
    for t in range(rules.sides):
        capm[t] = 0
        capn[t] = 0
        for s in range(N_SOURCES):
            pts[t, s] = 0
    if rules.face_up:
        c = deck[0]
        tab[c >> 2] = c
        st[S_TABLE_N] = 1
        st[S_TABLE_MASK] = np.int64(1) << c
        st[S_STOCK] = 1
        st[S_PUBLIC] = 1
        pubv[c >> 2] += 1
    deal_next(deck, rules, ws, plog)


# ---------------------------------------------------------------- one play


@njit(cache=True, inline="always")
def resolve(card, st, tab, plays):
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
def credits(play, rules, dp):
    """The points of one play (:class:`~simcards.ronda.kernel_state.PlayFacts`) into ``dp``
    (zeroed here), S3 steps (3)-(5): X6/X7, M1, L1-L5."""
    hit = play.hit
    s = play.side
    v = play.value
    ns = rules.sides
    for t in range(ns):
        for src in range(N_SOURCES):
            dp[t, src] = 0
    if rules.mode != MODE_POINTS:
        return
    if hit > 0:
        if rules.chain == CHAIN_FLAT:
            dp[s, SRC_DERBA] += 1  # X6
        else:
            dp[s, SRC_DERBA] += tier(hit)  # X7
            if hit > 1:
                dp[play.prev_side, SRC_DERBA] -= tier(hit - 1)
    if play.missa:
        dp[s, SRC_MISSA] += 1
    if play.last:
        if v == REY and play.action != ACT_LAY:
            dp[s, SRC_LAST_CARD] += 10  # L1
        elif v in (REY, AS):
            for t in range(ns):  # L2, L3: each other side (a team once)
                if t != s:
                    dp[t, SRC_LAST_CARD] += 10


@njit(cache=True, inline="always")
def balance(play, rules):
    """What :func:`_credits` gives, as the Q1 balance dP(s) - sum of dP(t) over the other
    sides (S1 left to the caller)."""
    if rules.mode != MODE_POINTS:
        return 0
    hit = play.hit
    v = play.value
    b = 0
    if hit > 0:
        if rules.chain == CHAIN_FLAT:
            b += 1
        else:
            b += tier(hit)
            if hit > 1:
                b += tier(hit - 1) if play.prev_side != play.side else -tier(hit - 1)
    if play.missa:
        b += 1
    if play.last:
        if v == REY and play.action != ACT_LAY:
            b += 10
        elif v in (REY, AS):
            b -= 10 * (rules.sides - 1)
    return b


@njit(cache=True, inline="always")
def close_pile(st, capm, capn, side):
    """X5: the pile in play goes to ``side``'s captured cards."""
    capm[side] |= st[S_PILE_MASK]
    capn[side] += st[S_PILE_N]
    st[S_PILE_N] = 0
    st[S_PILE_MASK] = 0
    st[S_PILE_V] = -1
    st[S_PILE_VC] = 0
    st[S_PILE_HITTER] = -1


@njit(cache=True, inline="always")
def greedy_card(p, rules, ws):
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
    st = ws.st
    hc = ws.hc
    hn = ws.hn
    m = hn[p]
    if (hc[p, 0] >> 2) == (hc[p, m - 1] >> 2):
        return hc[p, 0]  # one value held (the holding is sorted): nothing to weigh
    tab = ws.tab
    capn = ws.capn
    ann = ws.ann
    pubv = ws.pubv
    held = ws.held
    teams = rules.teams
    ns = rules.sides
    plays = rules.plays
    s = side_of(p, teams)
    pile_n = st[S_PILE_N]
    hitter = st[S_PILE_HITTER]
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    nxt = p + 1
    if nxt == rules.players:
        nxt = 0
    big_u = N_CARDS - st[S_PUBLIC] - hn[p]  # unseen cards: other holdings and the stock
    h = hn[nxt]
    if h == 0:
        # His holding at his next play comes from the next deal.
        h = rules.deal_sizes[st[S_DEAL] + 1]
    safe = COMB[big_u, h]  # keep of a risk of 0
    best = -1
    best_v = 0
    best_keep = 0
    i = 0
    while i < m:
        c = hc[p, i]
        v = c >> 2
        own = 1  # the holding is in card order: cards of one value are adjacent and the
        while i + own < m and (hc[p, i + own] >> 2) == v:  # first of them wins any tie
            own += 1
        i += own
        action, k, hit, chain_closed, missa, last = resolve(c, st, tab, plays)
        bal = balance(PlayFacts(action, hit, missa, last, v, s, hs), rules)
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
                held[side_of(lc, teams)] += left
            if rules.mode == MODE_POINTS:
                share = rules.share
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
            keep = COMB[big_u - (4 - pubv[v] - own), h]  # u = unseen cards of value v
        if best < 0 or value > best_v or keep > best_keep:
            best = c
            best_v = value
            best_keep = keep
    return best


@njit(cache=True, inline="always")
def apply_play(card, rules, ws, plog):
    """Play ``card`` for the player to move (P1 .. L5, credits in the S3 order); when
    ``plog.on``, fill the play's row of the log (fields ``codes.F_*``) and its credits.
    Returns ``(action, missa)``."""
    st = ws.st
    hc = ws.hc
    hn = ws.hn
    tab = ws.tab
    capm = ws.capm
    capn = ws.capn
    pts = ws.pts
    ann = ws.ann
    pubv = ws.pubv
    dp = ws.dp
    teams = rules.teams
    ns = rules.sides
    p = st[S_TURN]
    s = side_of(p, teams)
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
    action, k, hit, chain_closed, missa, last = resolve(card, st, tab, rules.plays)
    pubv[v] += 1
    st[S_PUBLIC] += 1
    ann[p, v] -= 1
    ws.dplay[p, v] += 1
    hitter = st[S_PILE_HITTER]
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    bit = np.int64(1) << card
    # (1) X5a: another value closes the pile before the card acts.
    closed = 0
    if st[S_PILE_N] > 0 and st[S_PILE_V] != v:
        closed = st[S_PILE_N]
        close_pile(st, capm, capn, hs)
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
            close_pile(st, capm, capn, s)  # X5b
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
    scores = rules.mode == MODE_POINTS and (hit > 0 or missa or last)
    log_on = plog.on
    if scores or log_on:
        credits(PlayFacts(action, hit, missa, last, v, s, hs), rules, dp)
    if scores:
        for t in range(ns):
            for src in range(N_SOURCES):
                pts[t, src] += dp[t, src]
                st[S_SCORE + t] += dp[t, src]
    if log_on:
        r = st[S_PLAYS]
        log = plog.plays
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
                plog.play_points[r, t, src] = dp[t, src]
    st[S_PLAYS] += 1
    st[S_TURN] = p + 1 if p + 1 < rules.players else 0
    return action, missa


@njit(cache=True, inline="always")
def finish_hand(rules, ws):
    """End of the hand: X5c, U1 (Ultima), then S1. Returns ``(ultima side, ultima mask)``."""
    st = ws.st
    tab = ws.tab
    capm = ws.capm
    capn = ws.capn
    pts = ws.pts
    teams = rules.teams
    if st[S_PILE_N] > 0:
        close_pile(st, capm, capn, side_of(st[S_PILE_HITTER], teams))
    u_side = -1
    u_mask = st[S_TABLE_MASK]
    if st[S_TABLE_N] > 0:
        u_side = side_of(st[S_LAST_CAPTURER], teams)
        capm[u_side] |= u_mask
        capn[u_side] += st[S_TABLE_N]
        st[S_TABLE_N] = 0
        st[S_TABLE_MASK] = 0
        for v in range(N_VALUES):
            tab[v] = -1
    if rules.mode == MODE_POINTS:
        share = rules.share
        for t in range(rules.sides):
            if capn[t] > share:
                pts[t, SRC_CARDS] += capn[t] - share
                st[S_SCORE + t] += capn[t] - share
    return u_side, u_mask


@njit(cache=True, _nrt=False)
def hand_violations(rules, ws):
    """Invariants at the end of a hand: every card in exactly one side's captured cards,
    holdings, table and pile empty, counts equal to the masks; plus the laying check (P4)."""
    st = ws.st
    hn = ws.hn
    capm = ws.capm
    capn = ws.capn
    pts = ws.pts
    bad = st[S_VIOLATIONS]
    seen = np.int64(0)
    total = 0
    for t in range(rules.sides):
        if seen & capm[t]:
            bad += 1
        seen |= capm[t]
        total += capn[t]
        if popcount(capm[t]) != capn[t]:
            bad += 1
    if seen != FULL or total != N_CARDS:
        bad += 1
    if st[S_TABLE_N] != 0 or st[S_PILE_N] != 0 or st[S_HELD] != 0:
        bad += 1
    for t in range(rules.sides):  # S2: each score is the sum of its sources
        tot = 0
        for src in range(N_SOURCES):
            tot += pts[t, src]
        if tot != st[S_SCORE + t]:
            bad += 1
    for p in range(rules.players):
        if hn[p] != 0:
            bad += 1
    return bad


