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

A play, its points and greedy are those of :mod:`simcards.ronda.value_rules_kernel` (the rules on
card values, shared with the Monte Carlo loop of :mod:`simcards.ronda.value_kernel`); the
deal follows :func:`hand_kernel.deal_next` and :func:`finish` :func:`hand_kernel.finish_hand`.
``tests/ronda/test_compact.py`` holds the forms together: from positions of real hands in every
configuration, greedy played to the end here and on the workspace chooses the same value at
every play and ends in the same final values.

Cards of one value are interchangeable in play (D1), so plays are named by value and holdings
keep only how many cards of each value they hold. The deck is the caller's array of card ids,
dealt from ``x[C_STOCK]`` on.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.bits_kernel import lowest_bit, popcount
from simcards.ronda.codes import (
    ANNOUNCE_EVERY_DEAL,
    CHAIN_FLAT,
    MODE_POINTS,
    SRC_CARDS,
    SRC_DERBA,
    SRC_LAST_CARD,
    SRC_MISSA,
)
from simcards.ronda.hand_kernel import (
    N_VALUES,
    S_ANNP,
    S_DEAL,
    S_FIRST,
    S_HANDP,
    S_HELD,
    S_PLAYS,
    S_PUBLIC,
    S_PUBV,
    S_STOCK,
    S_TURN,
)
from simcards.ronda.hand_kernel import board_of as board_of_workspace
from simcards.ronda.kernel_state import Board, Spot
from simcards.ronda.value_rules_kernel import (
    N_CARDS,
    NIBBLE,
    act,
    announced,
    credit,
    greedy_value,
    held_nibbles,
    pairs,
    play_value,
    side_of,
    tier,
)

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



@njit(cache=True, inline="always")
def _next(p, n):
    """The player after ``p`` (no division in the hot loops)."""
    return p + 1 if p + 1 < n else 0


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
    the right size (a sample fills it). ``p = -1`` copies every holding, the true position
    (tests, and ``seeing``, Q9, which reads the full state). The packed slots are the
    workspace's own (``hand_kernel.S_PUBV`` .. ``S_TABLE_V``)."""
    st, hn, capn, pts = ws.st, ws.hn, ws.capn, ws.pts
    n = rules.players
    for i in range(C_SIZE):
        out[i] = 0
    set_board(out, board_of_workspace(st))
    out[C_DEAL] = st[S_DEAL]
    out[C_TURN] = st[S_TURN]
    out[C_STOCK] = st[S_STOCK]
    out[C_PLAYS] = st[S_PLAYS]
    out[C_PUBLIC] = st[S_PUBLIC]
    out[C_FIRST] = st[S_FIRST]
    out[C_HELD] = st[S_HELD]
    out[C_PUBV] = st[S_PUBV]
    for q in range(n):
        out[C_HN + q] = hn[q]
        if p < 0 or q == p:
            out[C_HAND + q] = st[S_HANDP + q]
        out[C_ANN + q] = st[S_ANNP + q]
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
def board_of(x):
    """The :class:`~simcards.ronda.kernel_state.Board` of the position ``x``."""
    return Board(x[C_TV], x[C_TN], x[C_PN], x[C_PV], x[C_PVC], x[C_PH], x[C_LAID], x[C_LC])


@njit(cache=True, inline="always")
def set_board(x, board):
    """Write ``board`` into the position ``x``."""
    x[C_TV] = board.table
    x[C_TN] = board.table_n
    x[C_PN] = board.pile_n
    x[C_PV] = board.pile_v
    x[C_PVC] = board.pile_vc
    x[C_PH] = board.hitter
    x[C_LAID] = board.laid
    x[C_LC] = board.lc


@njit(cache=True, inline="always")
def resolve(v, x, plays):
    """What a card of value ``v`` would do now (:func:`value_rules_kernel.act`, and whether it is
    the hand's last play): ``(action, taken, hit, chain_closed, missa, last)``."""
    action, k, hit, chain_closed, missa = act(v, board_of(x))
    return action, k, hit, chain_closed, missa, x[C_PLAYS] + 1 == plays


@njit(cache=True, inline="always")
def _close_pile(x, side):
    x[C_CAPN + side] += x[C_PN]
    x[C_PN] = 0
    x[C_PV] = -1
    x[C_PVC] = 0
    x[C_PH] = -1


@njit(cache=True, inline="always")
def play(v, x, rules):
    """The player to move plays a card of value ``v``: P1 here, then the play and its points
    by :mod:`simcards.ronda.value_rules_kernel` (announcements aside, Q1)."""
    p = x[C_TURN]
    nib = np.int64(1) << (4 * v)
    x[C_HAND + p] -= nib
    x[C_HN + p] -= 1
    x[C_HELD] -= 1
    x[C_PUBV] += nib
    x[C_PUBLIC] += 1
    if (x[C_ANN + p] >> (4 * v)) & NIBBLE:
        x[C_ANN + p] -= nib
    board, facts = play_value(v, p, board_of(x), x[C_PLAYS] + 1 == rules.plays, rules, x,
                              C_CAPN)
    set_board(x, board)
    credit(facts, rules, x, C_PTS, 1, 0)
    x[C_PLAYS] += 1
    x[C_TURN] = _next(p, rules.players)


@njit(cache=True)
def play_apart(v, x, rules):
    """:func:`play` as a call of its own, for the sites a decision passes once per candidate
    (the exact last deal's roots, the reply table): inlined there, the whole play would be
    typed and compiled again at each of them, which costs compile time and buys no speed."""
    play(v, x, rules)


@njit(cache=True, inline="always")
def deal_holdings(x, deck, at, size, first, n, announcing):
    """D5's cards into the holdings of ``x``: ``size`` rounds of one card each from ``deck[at]``
    on, first player first; the holdings' sizes, and A1's announced counts when
    ``announcing`` (else none). Returns the deck position after the deal."""
    for _ in range(size):
        q = first
        for _i in range(n):
            x[C_HAND + q] += np.int64(1) << (4 * (deck[at] >> 2))
            at += 1
            q = _next(q, n)
    for q in range(n):
        x[C_HN + q] += size
        if announcing:
            two, three = pairs(x[C_HAND + q])
            x[C_ANN + q] = announced(two, three)
        else:
            x[C_ANN + q] = 0
    return at


@njit(cache=True, inline="always")
def deal(x, rules, deck):
    """D5: the next deal from ``deck``, first player first; A1's announced counts (their
    points are left out, Q1)."""
    n = rules.players
    x[C_DEAL] += 1
    d = x[C_DEAL]
    size = rules.deal_sizes[d]
    first = x[C_FIRST]
    announcing = rules.mode == MODE_POINTS and (d == 0 or rules.announce == ANNOUNCE_EVERY_DEAL)
    x[C_STOCK] = deal_holdings(x, deck, x[C_STOCK], size, first, n, announcing)
    x[C_HELD] += size * n
    x[C_TURN] = first


@njit(cache=True, inline="always")
def greedy(x, rules, held):
    """Q3 for the player to move (:func:`value_rules_kernel.greedy_value`): the value of his best
    card. ``held`` is scratch of at least ``rules.sides`` entries."""
    p = x[C_TURN]
    nxt = _next(p, rules.players)
    h = x[C_HN + nxt]
    if h == 0:
        h = rules.deal_sizes[x[C_DEAL] + 1]
    spot = Spot(p, x[C_HAND + p], board_of(x), x[C_PLAYS] + 1 == rules.plays,
                N_CARDS - x[C_PUBLIC] - x[C_HN + p], h, x[C_ANN + nxt], x[C_PUBV])
    return greedy_value(spot, rules, x, C_CAPN, held)


@njit(cache=True, inline="always")
def derba_points(hit, rules):
    """X6/X7: the points of a play that is the ``hit``-th hit of its chain (0: no hit), as
    ``(the mover's side's, the previous hit's side's)``: under ``tiers`` the previous hit's
    points go back (announcements and the mode aside, Q1)."""
    own = 0
    prev = 0
    if hit > 0:
        if rules.chain == CHAIN_FLAT:
            own = 1  # X6
        else:
            own = tier(hit)  # X7
            if hit > 1:
                prev = -tier(hit - 1)
    return own, prev


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
    """The end of the hand (X5c, U1, S1, as :func:`hand_kernel.finish_hand`), then its final values
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


@njit(cache=True, _nrt=False)
def greedy_to_end(x, rules, deck, held, f):
    """Q5's playout: every player plays :func:`greedy` to the end of the hand, dealing from
    ``deck``; the final values into ``f``.

    As :func:`greedy` then :func:`play` at every play, with the board, the turn, the cards
    held and the public cards in local variables between deals (``ismcts:N:C`` plays one
    playout per iteration, so this loop is most of its time; ``rollout:K`` plays its own,
    :mod:`simcards.ronda.rollout_kernel`, which end where this one ends). Compiled without
    reference counting whoever calls it first (``search_kernel.search_card``)."""
    plays, n, sizes = rules.plays, rules.players, rules.deal_sizes
    board = board_of(x)
    k = x[C_PLAYS]
    turn = x[C_TURN]
    in_hand = x[C_HELD]
    public = x[C_PUBV]
    n_public = x[C_PUBLIC]
    while k < plays:
        if in_hand == 0:
            x[C_HELD] = in_hand
            deal(x, rules, deck)
            turn = x[C_TURN]
            in_hand = x[C_HELD]
        p = turn
        nxt = _next(p, n)
        m = x[C_HN + p]
        h = x[C_HAND + p]
        nh = x[C_HN + nxt]
        if nh == 0:
            nh = sizes[x[C_DEAL] + 1]
        last = k + 1 == plays
        v = greedy_value(Spot(p, h, board, last, N_CARDS - n_public - m, nh, x[C_ANN + nxt],
                              public), rules, x, C_CAPN, held)
        nib = np.int64(1) << (4 * v)
        x[C_HAND + p] = h - nib
        x[C_HN + p] = m - 1
        in_hand -= 1
        public += nib
        n_public += 1
        if (x[C_ANN + p] >> (4 * v)) & NIBBLE:
            x[C_ANN + p] -= nib
        board, facts = play_value(v, p, board, last, rules, x, C_CAPN)
        credit(facts, rules, x, C_PTS, 1, 0)
        k += 1
        turn = nxt
    set_board(x, board)
    x[C_PLAYS] = k
    x[C_TURN] = turn
    x[C_HELD] = in_hand
    x[C_PUBV] = public
    x[C_PUBLIC] = n_public
    finish(x, rules, f)
