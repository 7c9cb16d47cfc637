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
- *Greedy by cases* (:func:`_greedy`). A capture or a re-hit always scores above a laid card
  (it gains cards, and its points are never negative), so a holding with no capturing value
  compares only Derba risks, one with a single capturing value plays it, and only two or more
  capturing values are scored in full. The result is greedy's own: the highest value, then the
  highest ``keep`` (the lowest Derba risk, :func:`value_rules.greedy_value`), then card order.
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

from simcards.core.bits import lowest_bit
from simcards.ronda.codes import ANNOUNCE_EVERY_DEAL, CHAIN_FLAT, MAX_DEALS, MODE_POINTS
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
)
from simcards.ronda.hand_kernel import N_VALUES
from simcards.ronda.kernel_state import Board, Spot
from simcards.ronda.value_rules import (
    COMB,
    N_CARDS,
    NIBBLE,
    announced,
    held_nibbles,
    pairs,
    side_of,
    tier,
)

RUN_STOP = 0x11111111111
"""Bit 4v for v = 0 .. 10: a capture run (P2) stops at the first value missing from the
table, at the latest after the Rey."""
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


def _nibble_masks() -> np.ndarray:
    """``[m]``: the mask of values ``m`` (bit v) as a nibble mask (bit 4v)."""
    out = np.zeros(1 << N_VALUES, np.int64)
    for m in range(1 << N_VALUES):
        out[m] = sum(1 << (4 * v) for v in range(N_VALUES) if (m >> v) & 1)
    return out


NIBBLES = _nibble_masks()
"""A table's values as a nibble mask, a constant of the compiled code."""


@njit(cache=True, inline="always")
def _key(b):
    """The board ``b`` (table as a nibble mask) as one integer, equal for equal boards: the
    table in bits 0 .. 36, then fields that fit their bits (a pile holds at most 13 cards: the
    Derba card, a run of at most ten, two re-hits)."""
    return (b.table | (b.pile_n << 40) | ((b.pile_v + 1) << 44) | (b.pile_vc << 48)
            | ((b.hitter + 1) << 51) | ((b.laid + 1) << 54) | ((b.lc + 1) << 58))


@njit(cache=True, inline="always")
def _greedy(sp, hs, rules):
    """Q3's value for the mover of ``sp`` (:class:`~simcards.ronda.kernel_state.Spot`, its
    board's table a nibble mask) holding two values or more, so never the hand's last play;
    ``hs`` the side of the pile's last hitter (-1: no pile). Chooses as
    :func:`value_rules.greedy_value` (module docstring)."""
    b = sp.board
    h = sp.hand
    nz = held_nibbles(h)
    opts = nz & b.table
    if b.pile_n > 0:
        opts |= nz & (np.int64(1) << (4 * b.pile_v))
    nh = sp.next_h
    if opts == 0:  # every card is laid: V = 0, the lowest Derba risk wins
        base = sp.unseen - 4
        seen = sp.public + h
        best = -1
        best_keep = np.int64(-1)
        while nz:
            w = lowest_bit(nz) >> 2
            nz &= nz - 1
            announced_v = (sp.next_ann >> (4 * w)) & NIBBLE  # he holds a v: risk 1
            keep = 0 if announced_v else COMB[base + ((seen >> (4 * w)) & NIBBLE), nh]
            if keep > best_keep:
                best_keep = keep
                best = w
        return best
    if opts & (opts - 1) == 0:
        return lowest_bit(opts) >> 2
    points = rules.mode == MODE_POINTS
    flat = rules.chain == CHAIN_FLAT
    s = side_of(sp.p, rules.teams)
    safe = COMB[sp.unseen, nh]
    best_key = np.int64(-1)
    while opts:
        w = lowest_bit(opts) >> 2
        opts &= opts - 1
        bal = 0
        if b.pile_n > 0 and b.pile_v == w:  # X4
            hit = b.pile_vc
            dk = 1 if hs == s else b.pile_n + 1
            if points:
                if flat:
                    bal = 1
                else:
                    bal = tier(hit)
                    if hit > 1:
                        bal += tier(hit - 1) if hs != s else -tier(hit - 1)
            sure = hit == 3  # X5b closes the chain
        else:  # P2, X1
            k = lowest_bit(~(b.table >> (4 * w)) & RUN_STOP) >> 2
            dk = k + 1
            sure = b.laid != w  # a plain capture; a Derba leaves a pile in play
            if points:
                if not sure:
                    bal = 1
                if b.table_n == k:
                    bal += 1
        if sure:
            keep = safe
        elif (sp.next_ann >> (4 * w)) & NIBBLE:
            keep = 0
        else:
            keep = COMB[sp.unseen - 4 + (((sp.public + h) >> (4 * w)) & NIBBLE), nh]
        key = ((100 * bal + dk) << 24) | (keep << 4) | (15 - w)
        if key > best_key:
            best_key = key
    return 15 - (best_key & 15)


@njit(cache=True, inline="always")
def _act(v, p, b, teams):
    """Player ``p`` plays a card of value ``v`` on ``b`` (table a nibble mask), S3 steps
    (1)-(2): ``(board after, hs, closed, gained, hit, taken)``: ``hs`` the side of the pile's
    last hitter before the play (-1: no pile), which gets the ``closed`` cards of a pile X5a
    closes; the mover's side gains ``gained`` cards; ``hit`` the play's place in a chain (0:
    none), ``taken`` the cards taken from the table."""
    table = b.table
    table_n = b.table_n
    pile_n = b.pile_n
    pile_v = b.pile_v
    pile_vc = b.pile_vc
    hitter = b.hitter
    laid = b.laid
    lc = b.lc
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    closed = 0
    if pile_n > 0 and pile_v != v:  # X5a
        closed = pile_n
        pile_n, pile_v, pile_vc, hitter = 0, -1, 0, -1
    gained = 0
    hit = 0
    k = 0
    sh = 4 * v
    if pile_n > 0:  # X4
        hit = pile_vc
        pile_n += 1
        pile_vc += 1
        hitter = p
        lc = p
        laid = -1
        if pile_vc == 4:  # X5b
            gained = pile_n
            pile_n, pile_v, pile_vc, hitter = 0, -1, 0, -1
    elif (table >> sh) & 1:  # P2
        k = lowest_bit(~(table >> sh) & RUN_STOP) >> 2
        table &= ~(((np.int64(1) << (4 * k)) - 1) << sh)
        table_n -= k
        if laid == v:  # X1, X3
            hit = 1
            pile_n, pile_v, pile_vc, hitter = k + 1, v, 2, p
        else:  # P5
            gained = k + 1
        lc = p
        laid = -1
    else:  # P3
        table |= np.int64(1) << sh
        table_n += 1
        laid = v
    return Board(table, table_n, pile_n, pile_v, pile_vc, hitter, laid, lc), hs, closed, gained, \
        hit, k


@njit(cache=True, inline="always")
def _scores(v, hit, k, b, last, rules):
    """The play's points (S3 steps (3)-(5), announcements aside): ``(own, previous hitter's,
    each other side's)`` for the mover's side, the side of the chain's previous hit (X7) and,
    at the hand's last card, every other side (L2, L3). ``b`` the board after the play."""
    own = 0
    prev = 0
    others = 0
    if rules.mode != MODE_POINTS:
        return own, prev, others
    if hit > 0:
        if rules.chain == CHAIN_FLAT:
            own += 1  # X6
        else:
            own += tier(hit)  # X7
            if hit > 1:
                prev -= tier(hit - 1)
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
    copy(x0, x)
    n = rules.players
    ns = rules.sides
    teams = rules.teams
    plays = rules.plays
    sizes = rules.deal_sizes
    announcing = rules.mode == MODE_POINTS and rules.announce == ANNOUNCE_EVERY_DEAL
    b = Board(NIBBLES[x[C_TV]], x[C_TN], x[C_PN], x[C_PV], x[C_PVC], x[C_PH], x[C_LAID],
              x[C_LC])
    k = x[C_PLAYS]
    p = x[C_TURN]
    held = x[C_HELD]
    public = x[C_PUBV]
    n_public = x[C_PUBLIC]
    deal = x[C_DEAL]
    stock = x[C_STOCK]
    first = x[C_FIRST]
    for d in range(M_ROWS):
        memo[j, d, M_KEY] = -1
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
        b, hs, closed, gained, hit, taken = _act(v, p, b, teams)
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
            key = _key(b)
            met = _meet(j, deal, key, memo)
            if met >= 0:
                break
            memo[j, deal, M_KEY] = key
            for t in range(ns):
                memo[j, deal, M_CAPN + t] = x[C_CAPN + t]
                memo[j, deal, M_PTS + t] = x[C_PTS + t]
            size = sizes[deal]
            for _ in range(size):
                q = first
                for _i in range(n):
                    x[C_HAND + q] += np.int64(1) << (4 * (deck[stock] >> 2))
                    stock += 1
                    q = q + 1 if q + 1 < n else 0
            for q in range(n):
                x[C_HN + q] += size
                if announcing:
                    two, three = pairs(x[C_HAND + q])
                    x[C_ANN + q] = announced(two, three)
                else:
                    x[C_ANN + q] = 0
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
            v = _greedy(Spot(p, h, b, False, N_CARDS - n_public - x[C_HN + p], nh,
                             x[C_ANN + nxt], public), hs, rules)
    capn = x[C_CAPN:C_CAPN + ns]
    pts = x[C_PTS:C_PTS + ns]
    if met >= 0:  # the rest of the hand as candidate met played it
        for t in range(ns):
            capn[t] += memo[met, M_END, M_CAPN + t] - memo[met, deal, M_CAPN + t]
            pts[t] += memo[met, M_END, M_PTS + t] - memo[met, deal, M_PTS + t]
    else:  # X5c, U1
        if b.pile_n > 0:
            capn[side_of(b.hitter, teams)] += b.pile_n
        if b.table_n > 0:
            capn[side_of(b.lc, teams) if b.lc >= 0 else ns - 1] += b.table_n
    for t in range(ns):
        memo[j, M_END, M_CAPN + t] = capn[t]
        memo[j, M_END, M_PTS + t] = pts[t]
    return _final(s, rules, capn, pts)


@njit(cache=True, _nrt=False)
def _playout_two(j, v0, s, rules, x, deck, memo):
    """:func:`_playout_any` for two players without teams (sides are players): every count in
    a local variable, the sample's position ``x`` only read."""
    plays = rules.plays
    sizes = rules.deal_sizes
    announcing = rules.mode == MODE_POINTS and rules.announce == ANNOUNCE_EVERY_DEAL
    b = Board(NIBBLES[x[C_TV]], x[C_TN], x[C_PN], x[C_PV], x[C_PVC], x[C_PH], x[C_LAID],
              x[C_LC])
    k = x[C_PLAYS]
    p = x[C_TURN]
    held = x[C_HELD]
    public = x[C_PUBV]
    n_public = x[C_PUBLIC]
    deal = x[C_DEAL]
    stock = x[C_STOCK]
    first = x[C_FIRST]
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
    for d in range(M_ROWS):
        memo[j, d, M_KEY] = -1
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
        b, hs, closed, gained, hit, taken = _act(v, p, b, 0)
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
            key = _key(b)
            met = _meet(j, deal, key, memo)
            if met >= 0:
                break
            memo[j, deal, M_KEY] = key
            memo[j, deal, M_CAPN] = c0
            memo[j, deal, M_CAPN + 1] = c1
            memo[j, deal, M_PTS] = q0
            memo[j, deal, M_PTS + 1] = q1
            size = sizes[deal]
            for _ in range(size):
                c_first = np.int64(1) << (4 * (deck[stock] >> 2))
                c_second = np.int64(1) << (4 * (deck[stock + 1] >> 2))
                stock += 2
                if first == 0:
                    h0 += c_first
                    h1 += c_second
                else:
                    h1 += c_first
                    h0 += c_second
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
            v = _greedy(Spot(p, h, b, False, N_CARDS - n_public - m, nh, a1 if p == 0 else a0,
                             public), hs, rules)
    if met >= 0:  # the rest of the hand as candidate met played it
        c0 += memo[met, M_END, M_CAPN] - memo[met, deal, M_CAPN]
        c1 += memo[met, M_END, M_CAPN + 1] - memo[met, deal, M_CAPN + 1]
        q0 += memo[met, M_END, M_PTS] - memo[met, deal, M_PTS]
        q1 += memo[met, M_END, M_PTS + 1] - memo[met, deal, M_PTS + 1]
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
    memo[j, M_END, M_CAPN] = c0
    memo[j, M_END, M_CAPN + 1] = c1
    memo[j, M_END, M_PTS] = q0
    memo[j, M_END, M_PTS + 1] = q1
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
