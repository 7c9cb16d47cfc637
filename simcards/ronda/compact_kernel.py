"""Compact Ronda positions for the searching policies: a position as one small int64 array,
with plays, deals, ``greedy`` (Q3), the end of the hand and the final values on it.

Why a second form of the rules: ``rollout:K`` plays greedy to the end of the hand K times per
candidate and decision, and the exact last deal (Q7) walks thousands of positions per decision.
On the hand's workspace (:mod:`simcards.ronda.hand_kernel`: a dozen arrays, the holdings as sorted
card lists, the points by source) each such play costs a few hundred nanoseconds, most of it
copying and bookkeeping that a search never reads. Here a position is 36 integers: holdings as
counts of each value packed four bits a value, the table as a mask of values (P4 allows one
card per value), the pile in play, and per side only the captured count and the points that
enter the final values (Q1: announcements are left out, so they are not kept). Copying a
position is one short loop, and a play touches a handful of slots.

The rules are the engine's: :func:`resolve` follows :func:`engine.resolve`, :func:`play`
follows :func:`engine.apply_play` and :func:`engine.credits`, :func:`deal` follows
:func:`engine.deal_next`, :func:`greedy` follows :func:`engine.greedy_card`, and
:func:`finish` follows :func:`engine.finish_hand`; the point balance of one play is the
engine's own :func:`engine.balance`. ``tests/ronda/test_compact.py`` holds them together: from
positions of real hands in every configuration, greedy played to the end here and on the
workspace chooses the same value at every play and ends in the same final values.

Cards of one value are interchangeable in play (D1), so plays are named by value and holdings
keep only how many cards of each value they hold. The deck is the caller's array of card ids,
dealt from ``x[C_STOCK]`` on.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.bits import lowest_bit, popcount
from simcards.ronda.codes import (
    ACT_CAPTURE,
    ACT_DERBA,
    ACT_LAY,
    ACT_REHIT,
    ANNOUNCE_EVERY_DEAL,
    CHAIN_FLAT,
    MODE_POINTS,
    SRC_CARDS,
    SRC_DERBA,
    SRC_LAST_CARD,
    SRC_MISSA,
)
from simcards.ronda.hand_kernel import (
    AS,
    COMB,
    N_CARDS,
    N_VALUES,
    REY,
    S_DEAL,
    S_FIRST,
    S_HELD,
    S_LAST_CAPTURER,
    S_LAST_LAID,
    S_PILE_HITTER,
    S_PILE_N,
    S_PILE_V,
    S_PILE_VC,
    S_PLAYS,
    S_PUBLIC,
    S_STOCK,
    S_TABLE_N,
    S_TURN,
    balance,
    side_of,
    tier,
)
from simcards.ronda.kernel_state import PlayFacts

# Slots of a compact position.
C_TV = 0  # the table: bit v set when a card of value v lies there (P4)
C_TN = 1  # cards on the table
C_PN = 2  # cards in the pile in play (0: none)
C_PV = 3  # value of the pile's top, -1 if none
C_PVC = 4  # cards of that value in the pile
C_PH = 5  # the pile's last hitter, -1 if none
C_LAID = 6  # value the previous play laid (X1), -1 if it captured or there was none
C_LC = 7  # last capturer (U1), -1 if none
C_DEAL = 8
C_TURN = 9
C_STOCK = 10  # next position of the deck to deal
C_PLAYS = 11
C_PUBLIC = 12  # cards everyone has seen
C_FIRST = 13  # D3: the player after the dealer
C_HELD = 14  # cards in all holdings
C_PUBV = 15  # public cards of each value, four bits per value
C_HAND = 16  # 16..19: each player's holding: its count of value v in bits 4v .. 4v+3
C_HN = 20  # 20..23: each holding's size
C_ANN = 24  # 24..27: per player, announced cards of each value left unplayed (four bits each)
C_CAPN = 28  # 28..31: cards captured by each side
C_PTS = 32  # 32..35: points by side, announcements left out (Q1)
C_SIZE = 36

NIBBLE = 15
LOW_NIBBLE_BITS = 0x1111111111  # bit 4v of each value v


@njit(cache=True, inline="always")
def _next(p, n):
    """The player after ``p`` (no division in the hot loops)."""
    return p + 1 if p + 1 < n else 0


@njit(cache=True, inline="always")
def held_nibbles(h):
    """Bit 4v set for each value v a packed holding ``h`` holds (counts are 0..4)."""
    return (h | (h >> 1) | (h >> 2)) & LOW_NIBBLE_BITS


@njit(cache=True, inline="always")
def packed_counts(mask):
    """A card bit mask as packed counts of each value."""
    h = np.int64(0)
    for v in range(N_VALUES):
        h |= popcount((mask >> (4 * v)) & NIBBLE) << (4 * v)
    return h


@njit(cache=True)
def from_workspace(ws, rules, p, out):
    """Write into ``out`` the public part of the workspace position ``ws`` and the holdings of
    the players in ``p``'s view: his own cards and, for every other player, an empty holding of
    the right size (a sample fills it). ``p = -1`` copies every holding (tests)."""
    st = ws.st
    hc = ws.hc
    hn = ws.hn
    tab = ws.tab
    capn = ws.capn
    pts = ws.pts
    ann = ws.ann
    pubv = ws.pubv
    n = rules.players
    for i in range(C_SIZE):
        out[i] = 0
    tv = 0
    for v in range(N_VALUES):
        if tab[v] >= 0:
            tv |= 1 << v
    out[C_TV] = tv
    out[C_TN] = st[S_TABLE_N]
    out[C_PN] = st[S_PILE_N]
    out[C_PV] = st[S_PILE_V] if st[S_PILE_N] > 0 else -1
    out[C_PVC] = st[S_PILE_VC]
    out[C_PH] = st[S_PILE_HITTER]
    out[C_LAID] = (st[S_LAST_LAID] >> 2) if st[S_LAST_LAID] >= 0 else -1
    out[C_LC] = st[S_LAST_CAPTURER]
    out[C_DEAL] = st[S_DEAL]
    out[C_TURN] = st[S_TURN]
    out[C_STOCK] = st[S_STOCK]
    out[C_PLAYS] = st[S_PLAYS]
    out[C_PUBLIC] = st[S_PUBLIC]
    out[C_FIRST] = st[S_FIRST]
    out[C_HELD] = st[S_HELD]
    pv = 0
    for v in range(N_VALUES):
        pv |= pubv[v] << (4 * v)
    out[C_PUBV] = pv
    for q in range(n):
        out[C_HN + q] = hn[q]
        if p < 0 or q == p:
            h = np.int64(0)
            for i in range(hn[q]):
                h += np.int64(1) << (4 * (hc[q, i] >> 2))
            out[C_HAND + q] = h
        a = 0
        for v in range(N_VALUES):
            if ann[q, v] > 0:
                a |= ann[q, v] << (4 * v)
        out[C_ANN + q] = a
    for t in range(rules.sides):
        out[C_CAPN + t] = capn[t]
        out[C_PTS + t] = (pts[t, SRC_DERBA] + pts[t, SRC_MISSA] + pts[t, SRC_LAST_CARD]
                          + pts[t, SRC_CARDS])


@njit(cache=True, inline="always")
def copy(a, b):
    for i in range(C_SIZE):
        b[i] = a[i]


@njit(cache=True, inline="always")
def hand_values(x, q):
    """The values in player ``q``'s holding, as a bit mask of values."""
    nz = held_nibbles(x[C_HAND + q])
    m = 0
    while nz:
        m |= 1 << (lowest_bit(nz) >> 2)
        nz &= nz - 1
    return m


@njit(cache=True, inline="always")
def resolve(v, x, plays):
    """What a card of value ``v`` would do now, as :func:`engine.resolve`: ``(action, taken,
    hit, chain_closed, missa, last)``."""
    k = 0
    hit = 0
    chain_closed = False
    if x[C_PN] > 0 and x[C_PV] == v:
        action = ACT_REHIT
        hit = x[C_PVC]
        chain_closed = x[C_PVC] == 3
    elif (x[C_TV] >> v) & 1:
        k = lowest_bit(~(x[C_TV] >> v))  # P2: the run of values on the table from v up
        action = ACT_DERBA if x[C_LAID] == v else ACT_CAPTURE
        if action == ACT_DERBA:
            hit = 1
    else:
        action = ACT_LAY
    missa = k > 0 and x[C_TN] == k
    last = x[C_PLAYS] + 1 == plays
    return action, k, hit, chain_closed, missa, last


@njit(cache=True, inline="always")
def _close_pile(x, side):
    x[C_CAPN + side] += x[C_PN]
    x[C_PN] = 0
    x[C_PV] = -1
    x[C_PVC] = 0
    x[C_PH] = -1


@njit(cache=True, inline="always")
def play(v, x, rules):
    """The player to move plays a card of value ``v`` (P1 .. L5, as
    :func:`engine.apply_play`; points as :func:`engine.credits`, announcements aside)."""
    teams = rules.teams
    p = x[C_TURN]
    s = side_of(p, teams)
    x[C_HAND + p] -= np.int64(1) << (4 * v)
    x[C_HN + p] -= 1
    x[C_HELD] -= 1
    action, k, hit, chain_closed, missa, last = resolve(v, x, rules.plays)
    x[C_PUBV] += np.int64(1) << (4 * v)
    x[C_PUBLIC] += 1
    if (x[C_ANN + p] >> (4 * v)) & NIBBLE:
        x[C_ANN + p] -= np.int64(1) << (4 * v)
    hitter = x[C_PH]
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    if x[C_PN] > 0 and x[C_PV] != v:  # X5a
        _close_pile(x, hs)
    if action == ACT_REHIT:
        x[C_PN] += 1
        x[C_PVC] += 1
        x[C_PH] = p
        x[C_LC] = p
        x[C_LAID] = -1
        if chain_closed:
            _close_pile(x, s)  # X5b
    elif action == ACT_LAY:
        x[C_TV] |= 1 << v
        x[C_TN] += 1
        x[C_LAID] = v
    else:
        x[C_TV] &= ~(((1 << k) - 1) << v)
        x[C_TN] -= k
        if action == ACT_DERBA:  # X3
            x[C_PN] = k + 1
            x[C_PV] = v
            x[C_PVC] = 2
            x[C_PH] = p
        else:
            x[C_CAPN + s] += k + 1
        x[C_LC] = p
        x[C_LAID] = -1
    if rules.mode == MODE_POINTS:
        if hit > 0:
            if rules.chain == CHAIN_FLAT:
                x[C_PTS + s] += 1  # X6
            else:
                x[C_PTS + s] += tier(hit)  # X7
                if hit > 1:
                    x[C_PTS + hs] -= tier(hit - 1)
        if missa:
            x[C_PTS + s] += 1
        if last:
            if v == REY and action != ACT_LAY:
                x[C_PTS + s] += 10  # L1
            elif v in (REY, AS):
                for t in range(rules.sides):  # L2, L3
                    if t != s:
                        x[C_PTS + t] += 10
    x[C_PLAYS] += 1
    x[C_TURN] = _next(p, rules.players)


@njit(cache=True, inline="always")
def deal(x, rules, deck):
    """D5: the next deal from ``deck``, first player first; A1's announced counts (their
    points are left out, Q1)."""
    n = rules.players
    x[C_DEAL] += 1
    d = x[C_DEAL]
    size = rules.deal_sizes[d]
    first = x[C_FIRST]
    at = x[C_STOCK]
    for _ in range(size):
        q = first
        for _i in range(n):
            x[C_HAND + q] += np.int64(1) << (4 * (deck[at] >> 2))
            at += 1
            q = _next(q, n)
    for q in range(n):
        x[C_HN + q] += size
    x[C_STOCK] = at
    x[C_HELD] += size * n
    x[C_TURN] = first
    announcing = rules.mode == MODE_POINTS and (d == 0 or rules.announce == ANNOUNCE_EVERY_DEAL)
    for q in range(n):
        a = 0
        if announcing:
            h = x[C_HAND + q]
            for v in range(N_VALUES):
                k = (h >> (4 * v)) & NIBBLE
                if k >= 2:
                    a |= (2 if k == 2 else 3) << (4 * v)
        x[C_ANN + q] = a


@njit(cache=True, inline="always")
def greedy(x, rules, held):
    """Q3 for the player to move, as :func:`engine.greedy_card`: the value of his best card
    (highest V(own side) of the single play, ties by lowest Derba risk, then card order).
    ``held`` is scratch of at least ``rules.sides`` entries."""
    teams = rules.teams
    ns = rules.sides
    plays = rules.plays
    p = x[C_TURN]
    s = side_of(p, teams)
    pile_n = x[C_PN]
    hitter = x[C_PH]
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    hand = x[C_HAND + p]
    nz = held_nibbles(hand)
    if nz & (nz - 1) == 0:
        return lowest_bit(nz) >> 2  # one value held: nothing to weigh
    nxt = _next(p, rules.players)
    big_u = N_CARDS - x[C_PUBLIC] - x[C_HN + p]
    h = x[C_HN + nxt]
    if h == 0:
        h = rules.deal_sizes[x[C_DEAL] + 1]
    safe = COMB[big_u, h]
    ann = x[C_ANN + nxt]
    pubv = x[C_PUBV]
    best = -1
    best_v = 0
    best_keep = 0
    while nz:
        v = lowest_bit(nz) >> 2
        nz &= nz - 1
        action, k, hit, chain_closed, missa, last = resolve(v, x, plays)
        bal = balance(PlayFacts(action, hit, missa, last, v, s, hs), rules)
        if action == ACT_REHIT:
            dk = 1 if hs == s else pile_n + 1
        elif action == ACT_LAY:
            dk = 0
        else:
            dk = k + 1
        if last:
            for t in range(ns):
                held[t] = x[C_CAPN + t]
            if pile_n > 0:
                held[hs] += pile_n
            before = held[s]
            if action == ACT_REHIT:
                held[hs] -= pile_n
                held[s] += pile_n + 1
            elif action != ACT_LAY:
                held[s] += k + 1
            left = x[C_TN] - k + (1 if action == ACT_LAY else 0)
            if left > 0:  # U1
                lc = p if action != ACT_LAY else x[C_LC]
                held[side_of(lc, teams) if lc >= 0 else ns - 1] += left
            if rules.mode == MODE_POINTS:
                share = rules.share
                for t in range(ns):  # S1
                    if held[t] > share:
                        bal += held[t] - share if t == s else share - held[t]
            dk = held[s] - before
        value = 100 * bal + dk
        if best >= 0 and (value < best_v or (value == best_v and best_keep >= safe)):
            continue
        if action == ACT_CAPTURE or chain_closed or last:
            keep = safe
        elif (ann >> (4 * v)) & NIBBLE:
            keep = 0
        else:
            own = (hand >> (4 * v)) & NIBBLE
            keep = COMB[big_u - (4 - ((pubv >> (4 * v)) & NIBBLE) - own), h]
        if best < 0 or value > best_v or keep > best_keep:
            best = v
            best_v = value
            best_keep = keep
    return best


@njit(cache=True, inline="always")
def values(x, rules, f):
    """The final values F(t) of every side (Q1, :mod:`simcards.ronda.search_kernel`): 100 x (2 P(t)
    - sum of P) + captured cards, an open pile counted for its last hitter's side."""
    ns = rules.sides
    total = 0
    for t in range(ns):
        total += x[C_PTS + t]
    for t in range(ns):
        f[t] = 100 * (2 * x[C_PTS + t] - total) + x[C_CAPN + t]
    if x[C_PN] > 0:
        f[side_of(x[C_PH], rules.teams)] += x[C_PN]


@njit(cache=True, inline="always")
def finish(x, rules, f):
    """The end of the hand (X5c, U1, S1, as :func:`engine.finish_hand`), then its final values
    into ``f``."""
    teams = rules.teams
    ns = rules.sides
    if x[C_PN] > 0:
        _close_pile(x, side_of(x[C_PH], teams))
    if x[C_TN] > 0:
        lc = x[C_LC]
        x[C_CAPN + (side_of(lc, teams) if lc >= 0 else ns - 1)] += x[C_TN]
        x[C_TN] = 0
        x[C_TV] = 0
    if rules.mode == MODE_POINTS:
        share = rules.share
        for t in range(ns):
            if x[C_CAPN + t] > share:
                x[C_PTS + t] += x[C_CAPN + t] - share
    values(x, rules, f)


@njit(cache=True)
def greedy_to_end(x, rules, deck, held, f):
    """Q5's playout: every player plays :func:`greedy` to the end of the hand, dealing from
    ``deck``; the final values into ``f``."""
    plays = rules.plays
    while x[C_PLAYS] < plays:
        if x[C_HELD] == 0:
            deal(x, rules, deck)
        play(greedy(x, rules, held), x, rules)
    finish(x, rules, f)
