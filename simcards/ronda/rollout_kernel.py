"""Q5's playouts for ``rollout:K`` (``seeds/ronda.md``): for one consistent sample, each
candidate card followed by ``greedy`` (Q3) to the end of the hand, summed per candidate.

The playouts here end exactly where :func:`compact_kernel.greedy_to_end` ends from the same
position (``tests/ronda/test_compact.py`` compares them in every configuration); they are that
loop rewritten for speed, since ``rollout:K`` spends nearly all its time in them:

- *Nothing copied per candidate.* The board, the turn and the counts live in local variables
  for the whole playout, the candidate is played from the sample's position like any other
  play, and with two players (no teams) both holdings, announcements, captured cards and
  points are local variables too.
- *The table as a nibble mask* (bit 4v for a card of value v on it): a holding and the table
  then meet in one AND, so greedy sees at once which of its values capture.
- *Greedy by cases* (:func:`value_rules_kernel.greedy_nibbles`, which the two-player Monte Carlo
  loop on card values plays too): a capture or a re-hit always scores above a laid card, so
  most decisions need no scoring at all. The result is greedy's own
  (:func:`value_rules_kernel.greedy_value`).
- *Playouts of one sample share their ends* (:func:`_meet`). When every holding is empty
  (between deals), what is left of the hand depends only on the board (table, pile in play,
  the card the last play laid, the last capturer) and the stock, which the candidates of one
  sample share: the plays, captures and points from there on are the same whatever the
  captured cards and points so far (greedy reads them only at the hand's last play, which
  holds one card and has no choice). So a candidate that reaches a deal with the board of an
  earlier candidate at that deal takes that candidate's gains from there to the end instead
  of playing them again; the end of the hand (S1) is then counted on its own totals.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.bits_kernel import lowest_bit
from simcards.ronda.codes import ANNOUNCE_EVERY_DEAL, MAX_DEALS, MODE_POINTS
from simcards.ronda.compact_kernel import (
    C_ANN,
    C_CAPN,
    C_DEAL,
    C_FIRST,
    C_HAND,
    C_HELD,
    C_HN,
    C_LAID,
    C_LC,
    C_PH,
    C_PLAYS,
    C_PN,
    C_PTS,
    C_PUBLIC,
    C_PUBV,
    C_PV,
    C_PVC,
    C_STOCK,
    C_TN,
    C_TURN,
    C_TV,
    copy,
    deal_holdings,
    derba_points,
)
from simcards.ronda.kernel_state import Board, Spot
from simcards.ronda.value_rules_kernel import (
    N_CARDS,
    NIBBLE,
    NIBBLES,
    act_nibbles,
    announced,
    deal_two,
    greedy_nibbles,
    held_nibbles,
    pairs,
    side_of,
)

ACE = 0
REY = 9

# The memo of one sample's playouts (``SearchWork.memo[candidate, deal, column]``): at each
# deal a candidate reached, the board's key and its captured cards and points by side; in the
# row ``M_END`` its totals at the end of the hand before S1.
M_KEY = 0
M_CAPN = 1  # 1 .. 4
M_PTS = 5  # 5 .. 8
M_WIDTH = 9
M_END = MAX_DEALS
M_ROWS = MAX_DEALS + 1


@njit(cache=True, inline="always")
def _key(b):
    """The board ``b`` (table as a nibble mask) as one integer, equal for equal boards: the
    table in bits 0 .. 36, then fields that fit their bits (a pile holds at most 13 cards: the
    Derba card, a run of at most ten, two re-hits)."""
    return (b.table | (b.pile_n << 40) | ((b.pile_v + 1) << 44) | (b.pile_vc << 48)
            | ((b.hitter + 1) << 51) | ((b.laid + 1) << 54) | ((b.lc + 1) << 58))


@njit(cache=True, inline="always")
def _scores(v, hit, k, b, last, rules):
    """The play's points (S3 steps (3)-(5), announcements aside): ``(own, previous hitter's,
    each other side's)`` for the mover's side, the side of the chain's previous hit (X7) and,
    at the hand's last card, every other side (L2, L3). ``b`` the board after the play."""
    if rules.mode != MODE_POINTS:
        return 0, 0, 0
    own, prev = derba_points(hit, rules)
    others = 0
    if k > 0 and b.table_n == 0:  # M1
        own += 1
    if last:
        if v == REY and b.laid != v:  # L1: the Rey captured
            own += 10
        elif v in (REY, ACE):  # L2, L3
            others += 10
    return own, prev, others


@njit(cache=True, inline="always")
def _meet(j, d, key, memo):
    """The earlier candidate of this sample whose playout met the board ``key`` at deal ``d``,
    or -1 (module docstring)."""
    for i in range(j):
        if memo[i, d, M_KEY] == key:
            return i
    return -1


@njit(cache=True, inline="always")
def _note(j, d, capn, pts, memo):
    """Candidate ``j``'s captured cards and points by side (``capn``, ``pts``) into its row
    ``d`` of the memo."""
    for t in range(len(capn)):
        memo[j, d, M_CAPN + t] = capn[t]
        memo[j, d, M_PTS + t] = pts[t]


@njit(cache=True, inline="always")
def _reach(j, d, b, capn, pts, memo):
    """Candidate ``j`` reaches deal ``d`` with the board ``b`` and the totals ``capn``,
    ``pts``: the earlier candidate whose playout met that board there (:func:`_meet`), or -1
    once the board and the totals are noted for the later ones."""
    key = _key(b)
    met = _meet(j, d, key, memo)
    if met < 0:
        memo[j, d, M_KEY] = key
        _note(j, d, capn, pts, memo)
    return met


@njit(cache=True, inline="always")
def _rest(met, d, col, memo):
    """What candidate ``met``'s playout gained in the memo's column ``col`` from deal ``d`` to
    the end of the hand."""
    return memo[met, M_END, col] - memo[met, d, col]


@njit(cache=True, inline="always")
def _forget(j, memo):
    """Candidate ``j``'s memo before its playout: no deal reached yet."""
    for d in range(M_ROWS):
        memo[j, d, M_KEY] = -1


@njit(cache=True, inline="always")
def _locals(x):
    """What a playout keeps in local variables of the sample's position ``x``: ``(board,
    plays, mover, cards held, public cards, their number, deal, stock, first player)``, the
    board's table as a nibble mask."""
    return (Board(NIBBLES[x[C_TV]], x[C_TN], x[C_PN], x[C_PV], x[C_PVC], x[C_PH], x[C_LAID],
                  x[C_LC]),
            x[C_PLAYS], x[C_TURN], x[C_HELD], x[C_PUBV], x[C_PUBLIC], x[C_DEAL], x[C_STOCK],
            x[C_FIRST])


@njit(cache=True, inline="always")
def _final(s, rules, capn, pts):
    """F(s) (Q1, the search's final value) from the totals at the end of the hand before S1,
    adding S1 to ``pts``."""
    ns = rules.sides
    if rules.mode == MODE_POINTS:
        share = rules.share
        for t in range(ns):
            if capn[t] > share:
                pts[t] += capn[t] - share
    total = 0
    for t in range(ns):
        total += pts[t]
    return 100 * (2 * pts[s] - total) + capn[s]


@njit(cache=True, _nrt=False)
def _playout_any(j, v0, s, rules, x0, x, deck, memo):
    """Candidate ``j`` (a card of value ``v0``) played from the sample's position ``x0``
    (its stock in ``deck``), then greedy to the end of the hand, any number of players: F(s).
    The holdings, announcements, captured cards and points are kept in ``x``, a copy of
    ``x0``. The arrays come one by one, not in the search's workspace: a call copies its
    arguments, and the workspace is a few hundred words."""
    _forget(j, memo)
    copy(x0, x)
    n, ns, teams, plays = rules.players, rules.sides, rules.teams, rules.plays
    sizes = rules.deal_sizes
    announcing = rules.mode == MODE_POINTS and rules.announce == ANNOUNCE_EVERY_DEAL
    b, k, p, held, public, n_public, deal, stock, first = _locals(x)
    capn = x[C_CAPN:C_CAPN + ns]
    pts = x[C_PTS:C_PTS + ns]
    v = v0
    met = -1
    while True:
        # The play of v by p.
        sh = 4 * v
        nib = np.int64(1) << sh
        x[C_HAND + p] -= nib
        x[C_HN + p] -= 1
        if (x[C_ANN + p] >> sh) & NIBBLE:
            x[C_ANN + p] -= nib
        held -= 1
        public += nib
        n_public += 1
        last = k + 1 == plays
        b, hs, closed, gained, hit, taken = act_nibbles(v, p, b, teams)
        ps = side_of(p, teams)
        if closed > 0:
            x[C_CAPN + hs] += closed
        x[C_CAPN + ps] += gained
        own, prev, others = _scores(v, hit, taken, b, last, rules)
        x[C_PTS + ps] += own
        if prev != 0:
            x[C_PTS + hs] += prev
        if others != 0:
            for t in range(ns):
                if t != ps:
                    x[C_PTS + t] += others
        k += 1
        p = p + 1 if p + 1 < n else 0
        if last:
            break
        if held == 0:  # D5: the next deal, unless an earlier candidate met this board
            deal += 1
            met = _reach(j, deal, b, capn, pts, memo)
            if met >= 0:
                break
            size = sizes[deal]
            stock = deal_holdings(x, deck, stock, size, first, n, announcing)
            held = size * n
            p = first
        # Greedy's card for p.
        h = x[C_HAND + p]
        nz = held_nibbles(h)
        if nz & (nz - 1) == 0:
            v = lowest_bit(nz) >> 2
        else:
            nxt = p + 1 if p + 1 < n else 0
            nh = x[C_HN + nxt]
            if nh == 0:
                nh = sizes[deal + 1]
            hs = side_of(b.hitter, teams) if b.hitter >= 0 else -1
            v = greedy_nibbles(Spot(p, h, b, False, N_CARDS - n_public - x[C_HN + p], nh,
                                    x[C_ANN + nxt], public), hs, rules)
    if met >= 0:  # the rest of the hand as candidate met played it
        for t in range(ns):
            capn[t] += _rest(met, deal, M_CAPN + t, memo)
            pts[t] += _rest(met, deal, M_PTS + t, memo)
    else:  # X5c, U1
        if b.pile_n > 0:
            capn[side_of(b.hitter, teams)] += b.pile_n
        if b.table_n > 0:
            capn[side_of(b.lc, teams) if b.lc >= 0 else ns - 1] += b.table_n
    _note(j, M_END, capn, pts, memo)
    return _final(s, rules, capn, pts)


@njit(cache=True, _nrt=False)
def _playout_two(j, v0, s, rules, x, deck, memo):
    """:func:`_playout_any` for two players without teams (sides are players): every count in
    a local variable, the sample's position ``x`` only read."""
    _forget(j, memo)
    plays = rules.plays
    sizes = rules.deal_sizes
    announcing = rules.mode == MODE_POINTS and rules.announce == ANNOUNCE_EVERY_DEAL
    b, k, p, held, public, n_public, deal, stock, first = _locals(x)
    h0 = x[C_HAND]
    h1 = x[C_HAND + 1]
    m0 = x[C_HN]
    m1 = x[C_HN + 1]
    a0 = x[C_ANN]
    a1 = x[C_ANN + 1]
    c0 = x[C_CAPN]
    c1 = x[C_CAPN + 1]
    q0 = x[C_PTS]
    q1 = x[C_PTS + 1]
    v = v0
    met = -1
    while True:
        # The play of v by p.
        sh = 4 * v
        nib = np.int64(1) << sh
        if p == 0:
            h0 -= nib
            m0 -= 1
            if (a0 >> sh) & NIBBLE:
                a0 -= nib
        else:
            h1 -= nib
            m1 -= 1
            if (a1 >> sh) & NIBBLE:
                a1 -= nib
        held -= 1
        public += nib
        n_public += 1
        last = k + 1 == plays
        b, hs, closed, gained, hit, taken = act_nibbles(v, p, b, 0)
        own, prev, others = _scores(v, hit, taken, b, last, rules)
        if hs == 0:
            c0 += closed
            q0 += prev
        elif hs == 1:
            c1 += closed
            q1 += prev
        if p == 0:
            c0 += gained
            q0 += own
            q1 += others
        else:
            c1 += gained
            q1 += own
            q0 += others
        k += 1
        p = 1 - p
        if last:
            break
        if held == 0:  # D5: the next deal, unless an earlier candidate met this board
            deal += 1
            met = _reach(j, deal, b, (c0, c1), (q0, q1), memo)
            if met >= 0:
                break
            size = sizes[deal]
            h0, h1 = deal_two(deck, stock, size, first, h0, h1, 2)
            stock += 2 * size
            m0 += size
            m1 += size
            if announcing:
                two, three = pairs(h0)
                a0 = announced(two, three)
                two, three = pairs(h1)
                a1 = announced(two, three)
            else:
                a0 = 0
                a1 = 0
            held = 2 * size
            p = first
        # Greedy's card for p.
        h = h0 if p == 0 else h1
        nz = held_nibbles(h)
        if nz & (nz - 1) == 0:
            v = lowest_bit(nz) >> 2
        else:
            m = m0 if p == 0 else m1
            nh = m1 if p == 0 else m0
            if nh == 0:
                nh = sizes[deal + 1]
            hs = b.hitter  # sides are players
            v = greedy_nibbles(Spot(p, h, b, False, N_CARDS - n_public - m, nh,
                                    a1 if p == 0 else a0, public), hs, rules)
    if met >= 0:  # the rest of the hand as candidate met played it
        c0 += _rest(met, deal, M_CAPN, memo)
        c1 += _rest(met, deal, M_CAPN + 1, memo)
        q0 += _rest(met, deal, M_PTS, memo)
        q1 += _rest(met, deal, M_PTS + 1, memo)
    else:  # X5c, U1 (with no capture at all the table goes to the last side, 1)
        if b.pile_n > 0:
            if b.hitter == 0:
                c0 += b.pile_n
            else:
                c1 += b.pile_n
        if b.lc == 0:
            c0 += b.table_n
        else:
            c1 += b.table_n
    _note(j, M_END, (c0, c1), (q0, q1), memo)
    if rules.mode == MODE_POINTS:  # S1
        share = rules.share
        if c0 > share:
            q0 += c0 - share
        if c1 > share:
            q1 += c1 - share
    if s == 0:
        return 100 * (q0 - q1) + c0
    return 100 * (q1 - q0) + c1


@njit(cache=True, inline="always")
def rollout_sample(s, nc, rules, sw):
    """Q5 on one sample: each root candidate ``sw.cand[j]`` (j < ``nc``) played from the
    sample's position ``sw.st[0]`` (deck ``sw.deck``), then greedy to the end of the hand;
    F(s) of each added to ``sw.totals[j]``."""
    cand = sw.cand
    totals = sw.totals
    x0 = sw.st[0]
    deck = sw.deck
    memo = sw.memo
    two = rules.players == 2 and rules.sides == 2
    for j in range(nc):
        v = cand[j] >> 2
        if two:
            totals[j] += _playout_two(j, v, s, rules, x0, deck, memo)
        else:
            totals[j] += _playout_any(j, v, s, rules, x0, sw.st[1], deck, memo)
