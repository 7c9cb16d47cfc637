"""The rules of one Ronda hand as numba primitives (rules D, P, X, M1, U1, L, A, S1, C of
``seeds/ronda.md``): the workspace a hand is played in, deals and announcements, what a card
does, its credits, the end of the hand, and the ``greedy`` policy (Q3) on it.

This is the form of a hand that keeps every card's identity: :mod:`simcards.ronda.play_kernel`
plays whole hands with per-play logs (the reference engine's checks), hands with searching
seats, and :mod:`simcards.ronda.match_kernel` matches with it. Where suits cannot matter, play
runs on card values (:mod:`simcards.ronda.value_rules_kernel`): the Monte Carlo loop of random and
greedy seats (:mod:`simcards.ronda.value_kernel`) and the searches' compact positions
(:mod:`simcards.ronda.compact_kernel`). Greedy is written once, there, and read here from the
packed slots ``S_PUBV`` .. ``S_TABLE_V`` that every play keeps up to date;
``tests/ronda/test_compact.py`` and ``tests/ronda/test_value_kernel.py`` play the forms side
by side and require the same position after every play and the same statistics.

Cards are ids 0..39: value index ``c >> 2`` (0 = As .. 9 = Rey, the D1 sequence) and suit
``c & 3``, so id order is the card order of Q1. A hand is kept in a handful of int64 arrays
(the *workspace*, a :class:`~simcards.ronda.kernel_state.HandWork` made by
:func:`new_workspace`; the rules come as one :class:`~simcards.ronda.kernel_state.KernelRules`):
the scalars ``st`` (slots ``S_*`` below), the holdings
sorted by card order, the table by value (P4: at most one card per value), the captured cards
and the pile in play as bit masks with their counts, the points by side and source, and per
player the announced and the played cards of each value at the current deal (public facts, I1,
from which the searching policies derive their samples, I3).

The functions that run once per hand or per deal and allocate nothing (:func:`hand_violations`,
and the hand loops of :mod:`simcards.ronda.play_kernel`) are compiled with ``_nrt=False``,
numba's switch that turns off reference counting. With it on, every array taken out of the
workspace's named tuple, and every array argument of an inlined helper, is counted up and down
with atomic instructions; in a whole hand of greedy plays that counting cost about three
quarters of the time. The arrays live as long as their caller, which allocated them, so nothing
needs counting; a function compiled so cannot allocate (numba refuses to compile it if it
tries).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.bits_kernel import popcount
from simcards.ronda.codes import (
    ACT_DERBA,
    ACT_LAY,
    ACT_REHIT,
    ANNOUNCE_EVERY_DEAL,
    CHAIN_FLAT,
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
    MODE_POINTS,
    N_SOURCES,
    SRC_CARDS,
    SRC_DERBA,
    SRC_LAST_CARD,
    SRC_MISSA,
)
from simcards.ronda.kernel_state import Board, HandWork, PlayFacts, Spot
from simcards.ronda.value_rules_kernel import (
    AS,
    N_CARDS,
    REY,
    act,
    announcement_credits,
    greedy_value,
    side_of,
    tier,
)

N_VALUES = 10
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
# The position as greedy reads it (value_rules_kernel.Spot), kept as play goes, packed four bits a
# value: the public cards, per player the announced cards left unplayed at this deal (never
# below 0, unlike ``ann``) and the holding; and the table's values as a bit mask.
S_PUBV = 25
S_ANNP = 26  # 26 .. 29
S_HANDP = 30  # 30 .. 33
S_TABLE_V = 34
S_SIZE = 35


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
    dplay = np.zeros((n, N_VALUES), np.int64)  # I1/Q1: cards of v each player played this deal
    return HandWork(st, hc, hn, tab, capm, capn, pts, ann, pubv, dp, held, dplay)


# ---------------------------------------------------------------- deals and announcements


@njit(cache=True, inline="always")
def deal_next(deck, rules, ws, plog):
    """D5: the next deal, one card at a time from the top, first player first, dealer last;
    then A1 .. A5 (announcements of the holdings as dealt) and the A2 counters."""
    st, hc, hn, pts, ann, dp, dplay = ws.st, ws.hc, ws.hn, ws.pts, ws.ann, ws.dp, ws.dplay
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
            st[S_HANDP + p] += np.int64(1) << (4 * (c >> 2))
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
    any_announced = False
    p = first - 1
    for _i in range(n):
        p += 1
        if p == n:
            p = 0
        rondas = 0
        tringlas = 0
        packed = np.int64(0)
        j = 0
        while j < hn[p]:  # the holding is sorted, so equal values are adjacent
            v = hc[p, j] >> 2
            k = 1
            while j + k < hn[p] and (hc[p, j + k] >> 2) == v:
                k += 1
            if k >= 2:
                if k == 2:
                    rondas += 1
                else:
                    tringlas += 1
                if announcing:
                    any_announced = True
                    ann[p, v] = 2 if k == 2 else 3
                    packed |= np.int64(2 if k == 2 else 3) << (4 * v)
            j += k
        st[S_ANNP + p] = packed
        if size == 4:
            st[S_RONDAS] += rondas
            st[S_TRINGLAS] += tringlas
            st[S_HOLDINGS] += 1
    if any_announced:
        ns = rules.sides
        for t in range(ns):
            for s in range(N_SOURCES):
                dp[t, s] = 0
        announcement_credits(rules, st, S_ANNP, dp)
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
    st, hn, tab, capm, capn, pts, pubv = ws.st, ws.hn, ws.tab, ws.capm, ws.capn, ws.pts, ws.pubv
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
        st[S_PUBV] = np.int64(1) << (4 * (c >> 2))
        st[S_TABLE_V] = np.int64(1) << (c >> 2)
    deal_next(deck, rules, ws, plog)


# ---------------------------------------------------------------- one play


@njit(cache=True, inline="always")
def board_of(st):
    """The workspace's :class:`~simcards.ronda.kernel_state.Board` (its packed slots)."""
    laid = st[S_LAST_LAID]
    return Board(st[S_TABLE_V], st[S_TABLE_N], st[S_PILE_N], st[S_PILE_V], st[S_PILE_VC],
                 st[S_PILE_HITTER], (laid >> 2) if laid >= 0 else np.int64(-1),
                 st[S_LAST_CAPTURER])


@njit(cache=True, inline="always")
def resolve(card, st, plays):
    """What ``card`` would do now (P2-P4, X1, X4, X5b, M1, by :func:`value_rules_kernel.act`):
    ``(action, taken, hit, chain_closed, missa, last)``. Pure: the state is not changed."""
    action, k, hit, chain_closed, missa = act(card >> 2, board_of(st))
    return action, k, hit, chain_closed, missa, st[S_PLAYS] + 1 == plays


@njit(cache=True, inline="always")
def credits(play, rules, dp):
    """The points of one play (:class:`~simcards.ronda.kernel_state.PlayFacts`) into ``dp``
    (zeroed here), S3 steps (3)-(5): X6/X7, M1, L1-L5."""
    hit, s, v = play.hit, play.side, play.value
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
    """Q3 for player ``p`` on the workspace (:func:`value_rules_kernel.greedy_value`): the first
    card, in card order, of the value greedy chooses."""
    st, hc, hn = ws.st, ws.hc, ws.hn
    nxt = p + 1
    if nxt == rules.players:
        nxt = 0
    h = hn[nxt]
    if h == 0:
        # His holding at his next play comes from the next deal.
        h = rules.deal_sizes[st[S_DEAL] + 1]
    spot = Spot(p, st[S_HANDP + p], board_of(st), st[S_PLAYS] + 1 == rules.plays,
                N_CARDS - st[S_PUBLIC] - hn[p], h, st[S_ANNP + nxt], st[S_PUBV])
    v = greedy_value(spot, rules, ws.capn, 0, ws.held)
    j = 0
    while (hc[p, j] >> 2) != v:
        j += 1
    return hc[p, j]


@njit(cache=True, inline="always")
def apply_play(card, rules, ws, plog):
    """Play ``card`` for the player to move (P1 .. L5, credits in the S3 order); when
    ``plog.on``, fill the play's row of the log (fields ``codes.F_*``) and its credits.
    Returns ``(action, missa)``."""
    st, hc, hn, tab, capm, capn, pts = ws.st, ws.hc, ws.hn, ws.tab, ws.capm, ws.capn, ws.pts
    ann, pubv, dp = ws.ann, ws.pubv, ws.dp
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
    action, k, hit, chain_closed, missa, last = resolve(card, st, rules.plays)
    pubv[v] += 1
    st[S_PUBLIC] += 1
    ann[p, v] -= 1
    nib = np.int64(1) << (4 * v)
    st[S_HANDP + p] -= nib
    st[S_PUBV] += nib
    if (st[S_ANNP + p] >> (4 * v)) & 15:
        st[S_ANNP + p] -= nib
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
        st[S_TABLE_V] |= np.int64(1) << v
        st[S_LAST_LAID] = card
    else:
        for w in range(v, v + k):
            taken |= np.int64(1) << tab[w]
            tab[w] = -1
        st[S_TABLE_N] -= k
        st[S_TABLE_MASK] &= ~taken
        st[S_TABLE_V] &= ~(((np.int64(1) << k) - 1) << v)
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
    st, tab, capm, capn, pts = ws.st, ws.tab, ws.capm, ws.capn, ws.pts
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
        st[S_TABLE_V] = 0
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
    st, hn, capm, capn, pts = ws.st, ws.hn, ws.capm, ws.capn, ws.pts
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


