"""Ronda's searching policies in numba: ``lookahead:D`` (Q4), ``rollout:K`` (Q5) and the
exact last deal (Q7) of ``seeds/ronda.md``.

A searching seat sees only its observation (I1, I3): the unseen cards are derived from public
facts and its own hand (40 minus its hand, the table, the pile in play and every side's
captured cards), the other hands' sizes, and the current deal's announcements with the cards
each player has played since that deal (the workspace's ``ann`` and ``dplay``). The caller's
workspace holds every hand and the deck order; nothing here reads another player's holding
nor the stock.

Positions are searched on copies of the hand's workspace stacked by depth in the search
workspace (:func:`new_search_workspace`): level 0 is the observed position completed by a
sample (Q1) or an assignment (Q7), level 1 the position after a candidate card, and so on, so a
decision allocates nothing. Plays are made by the engine's own primitives (one copy of the
rules). Values are kept per side as the *final value* F(t) = 100 * (2 P(t) - sum of P) + K(t),
P the points without announcements, K the captured cards with an open pile counted for its last
hitter's side: Q1's V(t) of a stretch is F(t) at its end minus F(t) at its start, so every
comparison of V made from one position is a comparison of F.

Cards of one value are interchangeable in play (suits never matter, D1), so each mover tries
only the first card of each value in his hand: the others give the same values and would lose
every tie on card order anyway.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng import randbelow, randbelow_wide
from simcards.ronda.codes import (
    ACT_CAPTURE,
    ACT_LAY,
    ACT_REHIT,
    ANNOUNCE_EVERY_DEAL,
    CHAIN_FLAT,
    MAX_HAND,
    MODE_POINTS,
    N_FIELDS,
    N_SOURCES,
    POLICY_LOOKAHEAD,
    R_ANNOUNCE,
    R_CHAIN,
    R_DEALS,
    R_MODE,
    R_PLAYERS,
    R_PLAYS,
    R_SIDES,
    R_TEAMS,
    SRC_CARDS,
    SRC_DERBA,
    SRC_LAST_CARD,
    SRC_MISSA,
)
from simcards.ronda.engine import (
    COMB,
    FULL,
    MAX_HOLD,
    N_CARDS,
    N_VALUES,
    S_DEAL,
    S_HELD,
    S_PILE_HITTER,
    S_PILE_MASK,
    S_PILE_N,
    S_PLAYS,
    S_PUBLIC,
    S_SIZE,
    S_STOCK,
    S_TABLE_MASK,
    S_TURN,
    apply_play,
    balance,
    deal_next,
    finish_hand,
    greedy_card,
    resolve,
    side_of,
    tier,
)
from simcards.ronda.policies import MAX_DEPTH

LOOKAHEAD_SAMPLES = 32
"""Q4: consistent samples per ``lookahead`` decision."""
LEVELS = MAX_DEPTH + 2
"""Stacked positions: the sampled position, the candidate's, and one per searched play (Q7's
last deal needs at most 8 plays, which ``MAX_DEPTH + 2`` covers)."""

# Slots of the search workspace.
W_ST = 0  # (LEVELS, S_SIZE): the stacked positions, one array of the workspace each
W_HC = 1
W_HN = 2
W_TAB = 3
W_CAPM = 4
W_CAPN = 5
W_PTS = 6
W_ANN = 7
W_PUBV = 8
W_DPLAY = 9
W_DP = 10  # scratch of the engine
W_HELD = 11
W_ANNBUF = 12
W_DECK = 13  # the sample's deck: its stock at the positions the hand has not dealt yet
W_UN = 14  # the unseen cards, permuted in place by the samples
W_CARDS = 15  # (LEVELS, MAX_HAND): each level's mover's candidates (first card of each value)
W_NC = 16
W_IDX = 17
W_BEST = 18  # (LEVELS, sides): final values of each level's best child so far
W_HAS = 19
W_MOVER = 20  # each level's mover's side
W_F = 21  # (sides,): final values returned by a search
W_TOTALS = 22  # (MAX_HAND,): the root candidates' summed values
W_CAND = 23
W_OWN = 24  # cards of the candidate's value in the root holding
W_DEAL_LOG = 25  # unused logs of the engine's primitives
W_LOG = 26
W_PLAY_PTS = 27
W_CNT = 28  # (N_VALUES,): scratch of the consistency check
W_REC_INFO = 29  # capacity in samples (0: recording off), decisions, samples, current hand
W_REC_META = 30  # per recorded decision: hand, play, seat, first sample, samples, kind
W_REC_HANDS = 31  # per recorded sample: each seat's hand as a bit mask (0 for the searcher)
W_REC_STOCK = 32  # per recorded sample: the stock, top first, -1 after its end
W_WAYS = 33  # (N_VALUES + 1, RADIX**3): Q1's counts of consistent completions (_count_ways)
W_LIM = 34  # (2, 3, N_VALUES): least and most unseen cards of each value per other hand
W_VC = 35  # (4,): scratch: the unseen cards of one value

RADIX = MAX_HAND + 1
"""A hand holds 0..MAX_HAND cards: the counting states of :func:`_count_ways` write the other
hands' room in this radix."""
FACT = np.array([1, 1, 2, 6, 24], np.int64)

REC_HAND = 0
REC_PLAY = 1
REC_SEAT = 2
REC_FIRST = 3
REC_COUNT = 4
REC_KIND = 5


@njit(cache=True)
def new_search_workspace(rl, rec_cap):
    """The scratch arrays searching decisions work in, reused decision after decision (slots
    ``W_*``). ``rec_cap > 0`` records up to that many samples with their decisions (for the
    reference engine to replay them); 0 records nothing."""
    n = rl[R_PLAYERS]
    ns = rl[R_SIDES]
    cap = max(rec_cap, 1)
    info = np.zeros(4, np.int64)
    info[0] = rec_cap
    return (
        np.zeros((LEVELS, S_SIZE), np.int64),
        np.zeros((LEVELS, n, MAX_HOLD), np.int64),
        np.zeros((LEVELS, n), np.int64),
        np.full((LEVELS, N_VALUES), -1, np.int64),
        np.zeros((LEVELS, ns), np.int64),
        np.zeros((LEVELS, ns), np.int64),
        np.zeros((LEVELS, ns, N_SOURCES), np.int64),
        np.zeros((LEVELS, n, N_VALUES), np.int64),
        np.zeros((LEVELS, N_VALUES), np.int64),
        np.zeros((LEVELS, n, N_VALUES), np.int64),
        np.zeros((ns, N_SOURCES), np.int64),
        np.zeros(ns, np.int64),
        np.zeros((2 * n, 3), np.int64),
        np.zeros(N_CARDS, np.int64),
        np.zeros(N_CARDS, np.int64),
        np.zeros((LEVELS, MAX_HAND), np.int64),
        np.zeros(LEVELS, np.int64),
        np.zeros(LEVELS, np.int64),
        np.zeros((LEVELS, ns), np.int64),
        np.zeros(LEVELS, np.int64),
        np.zeros(LEVELS, np.int64),
        np.zeros(ns, np.int64),
        np.zeros(MAX_HAND, np.int64),
        np.zeros(MAX_HAND, np.int64),
        np.zeros(MAX_HAND, np.int64),
        np.zeros((1, ns, N_SOURCES), np.int64),
        np.zeros((1, N_FIELDS), np.int64),
        np.zeros((1, ns, N_SOURCES), np.int64),
        np.zeros(N_VALUES, np.int64),
        info,
        np.zeros((cap, 6), np.int64),
        np.zeros((cap, n), np.int64),
        np.full((cap, N_CARDS), -1, np.int64),
        np.zeros((N_VALUES + 1, RADIX**3), np.int64),
        np.zeros((2, 3, N_VALUES), np.int64),
        np.zeros(4, np.int64),
    )


# ---------------------------------------------------------------- stacked positions


@njit(cache=True, inline="always")
def _level(sw, lv):
    """The position at stack level ``lv``, as a workspace tuple (engine order)."""
    return (sw[W_ST][lv], sw[W_HC][lv], sw[W_HN][lv], sw[W_TAB][lv], sw[W_CAPM][lv],
            sw[W_CAPN][lv], sw[W_PTS][lv], sw[W_ANN][lv], sw[W_PUBV][lv], sw[W_DP],
            sw[W_HELD], sw[W_ANNBUF], sw[W_DPLAY][lv])


@njit(cache=True, inline="always")
def _copy_public(a, b, n, ns):
    """Copy every public part of position ``a`` into ``b``: all but the holdings' cards."""
    sa = a[0]
    sb = b[0]
    for i in range(S_SIZE):
        sb[i] = sa[i]
    for q in range(n):
        b[2][q] = a[2][q]
        for v in range(N_VALUES):
            b[7][q, v] = a[7][q, v]
            b[12][q, v] = a[12][q, v]
    for v in range(N_VALUES):
        b[3][v] = a[3][v]
        b[8][v] = a[8][v]
    for t in range(ns):
        b[4][t] = a[4][t]
        b[5][t] = a[5][t]
        for src in range(N_SOURCES):
            b[6][t, src] = a[6][t, src]


@njit(cache=True, inline="always")
def _copy(a, b, n, ns):
    """Copy position ``a`` into ``b`` (both searched positions: their holdings are samples)."""
    _copy_public(a, b, n, ns)
    for q in range(n):
        for i in range(a[2][q]):
            b[1][q, i] = a[1][q, i]


@njit(cache=True, inline="always")
def _values(rl, ws, f):
    """The final values F(t) of every side in position ``ws`` (module docstring)."""
    st = ws[0]
    capn = ws[5]
    pts = ws[6]
    ns = rl[R_SIDES]
    total = 0
    for t in range(ns):
        x = pts[t, SRC_DERBA] + pts[t, SRC_MISSA] + pts[t, SRC_LAST_CARD] + pts[t, SRC_CARDS]
        f[t] = x
        total += x
    for t in range(ns):
        f[t] = 100 * (2 * f[t] - total) + capn[t]
    if st[S_PILE_N] > 0:
        f[side_of(st[S_PILE_HITTER], rl[R_TEAMS])] += st[S_PILE_N]


@njit(cache=True)
def _play(card, rl, ws, log, play_pts):
    """One play in a searched position (not inlined: one compiled copy of the rules)."""
    apply_play(card, rl, ws, log, play_pts, False)


@njit(cache=True)
def _deal(rl, ds, ws, deck, deal_log):
    """The next deal of a searched position, from the sample's deck."""
    deal_next(deck, rl, ds, ws, deal_log, False)


@njit(cache=True)
def _finish(rl, ws, f):
    """The end of the hand in a searched position, then its final values into ``f``."""
    finish_hand(rl, ws)
    _values(rl, ws, f)


@njit(cache=True, inline="always")
def _setup(sw, lv, ws, rl):
    """Level ``lv``'s mover (``ws`` is its position) and his candidates: the first card of each
    value he holds."""
    p = ws[0][S_TURN]
    hc = ws[1]
    cards = sw[W_CARDS]
    nc = 0
    for i in range(ws[2][p]):
        c = hc[p, i]
        if nc == 0 or (cards[lv, nc - 1] >> 2) != (c >> 2):
            cards[lv, nc] = c
            nc += 1
    sw[W_NC][lv] = nc
    sw[W_IDX][lv] = 0
    sw[W_HAS][lv] = 0
    sw[W_MOVER][lv] = side_of(p, rl[R_TEAMS])


@njit(cache=True, inline="always")
def _offer(sw, lv, f, ns):
    """A child of level ``lv`` ends in final values ``f``: kept if strictly better for the
    mover (so the first in card order wins a tie)."""
    best = sw[W_BEST]
    s = sw[W_MOVER][lv]
    if sw[W_HAS][lv] == 0 or f[s] > best[lv, s]:
        for t in range(ns):
            best[lv, t] = f[t]
        sw[W_HAS][lv] = 1


@njit(cache=True, inline="always")
def _leaf(sw, lv, ws, rl, f):
    """The last searched play from level ``lv`` (one that does not end the hand), chosen and
    scored without being made, as greedy scores a card: the mover's best card by V(own side)
    of that play (first in card order on a tie); the final values after it into ``f``.

    F changes by 100 * (2 dP(t) - sum of dP) + dK(t) per side t: the mover's side gains the
    Derba or re-hit and Missa points (X6/X7, M1) and the cards captured or put on the pile; the
    pile's previous owner loses its cards on a re-hit and, under ``tiers``, the previous hit's
    points. X5a only moves a pile from its owner's count to the same side's captured cards."""
    st = ws[0]
    tab = ws[3]
    teams = rl[R_TEAMS]
    ns = rl[R_SIDES]
    plays = rl[R_PLAYS]
    p = st[S_TURN]
    s = side_of(p, teams)
    hitter = st[S_PILE_HITTER]
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    pile_n = st[S_PILE_N]
    cards = sw[W_CARDS]
    b_score = 0
    b_action = -1
    b_k = 0
    b_hit = 0
    b_missa = False
    for i in range(sw[W_NC][lv]):
        c = cards[lv, i]
        action, k, hit, _chain_closed, missa, _last = resolve(c, st, tab, plays)
        if action == ACT_REHIT:
            dk = 1 if hs == s else pile_n + 1
        elif action == ACT_LAY:
            dk = 0
        else:
            dk = k + 1
        score = 100 * balance(action, hit, missa, False, c >> 2, s, hs, rl) + dk
        if b_action < 0 or score > b_score:
            b_score = score
            b_action = action
            b_k = k
            b_hit = hit
            b_missa = missa
    _values(rl, ws, f)
    if rl[R_MODE] == MODE_POINTS:
        own = 0
        prev = 0
        if b_hit > 0:
            if rl[R_CHAIN] == CHAIN_FLAT:
                own += 1
            else:
                own += tier(b_hit)
                if b_hit > 1:
                    prev = -tier(b_hit - 1)
        if b_missa:
            own += 1
        total = own + prev
        for t in range(ns):
            d = -total
            if t == s:
                d += 2 * own
            if t == hs:
                d += 2 * prev
            f[t] += 100 * d
    if b_action == ACT_REHIT:
        f[s] += pile_n + 1
        f[hs] -= pile_n
    elif b_action != ACT_LAY:
        f[s] += b_k + 1


@njit(cache=True)
def max_n(base, ws, plays_left, rl, ds, sw):
    """Max-n (Q4, Q7) from the position at level ``base``, which follows a play: each of the
    next ``plays_left`` plays (or up to the end of the hand) is the card that maximises its
    mover's side's V from his play to the horizon, knowing every holding of the position; ties
    by card order. The end of the hand (X5c, U1, S1) is included when reached. Writes the final
    values of the line played into ``sw[W_F]``. Iterative over the stacked levels; ``ws`` is
    the position at ``base``."""
    n = rl[R_PLAYERS]
    ns = rl[R_SIDES]
    plays = rl[R_PLAYS]
    f = sw[W_F]
    deck = sw[W_DECK]
    deal_log = sw[W_DEAL_LOG]
    log = sw[W_LOG]
    play_pts = sw[W_PLAY_PTS]
    st = ws[0]
    if st[S_PLAYS] == plays:
        _finish(rl, ws, f)
        return
    if plays_left == 0:
        _values(rl, ws, f)
        return
    if st[S_HELD] == 0:
        _deal(rl, ds, ws, deck, deal_log)
    top = base
    cur = ws
    _setup(sw, top, cur, rl)
    cards = sw[W_CARDS]
    nc = sw[W_NC]
    idx = sw[W_IDX]
    best = sw[W_BEST]
    while True:
        if idx[top] == 0 and top + 1 - base == plays_left and \
                sw[W_ST][top, S_PLAYS] + 1 < plays:
            _leaf(sw, top, cur, rl, f)  # the horizon's plays: scored without being made
            idx[top] = nc[top]
            for t in range(ns):
                best[top, t] = f[t]
        if idx[top] < nc[top]:
            c = cards[top, idx[top]]
            idx[top] += 1
            wb = _level(sw, top + 1)
            _copy(cur, wb, n, ns)
            apply_play(c, rl, wb, log, play_pts, False)  # inlined: calls cost more than plays
            stb = wb[0]
            if stb[S_PLAYS] == plays:
                _finish(rl, wb, f)
            elif top + 1 - base == plays_left:
                _values(rl, wb, f)
            else:
                if stb[S_HELD] == 0:
                    _deal(rl, ds, wb, deck, deal_log)
                top += 1
                cur = wb
                _setup(sw, top, cur, rl)
                continue
            _offer(sw, top, f, ns)
        else:
            for t in range(ns):
                f[t] = best[top, t]
            if top == base:
                return
            top -= 1
            cur = ws if top == base else _level(sw, top)
            _offer(sw, top, f, ns)


@njit(cache=True)
def rollout(ws, rl, ds, sw):
    """Q5: from the searched position ``ws`` every player plays ``greedy`` (Q3, from his own
    view of that position) to the end of the hand; final values into ``sw[W_F]``."""
    st = ws[0]
    deck = sw[W_DECK]
    deal_log = sw[W_DEAL_LOG]
    log = sw[W_LOG]
    play_pts = sw[W_PLAY_PTS]
    plays = rl[R_PLAYS]
    while st[S_PLAYS] < plays:
        if st[S_HELD] == 0:
            _deal(rl, ds, ws, deck, deal_log)
        q = st[S_TURN]
        apply_play(greedy_card(q, rl, ds, ws), rl, ws, log, play_pts, False)  # inlined
    _finish(rl, ws, sw[W_F])


# ---------------------------------------------------------------- what the seat may know


@njit(cache=True, inline="always")
def _popcount(m):
    c = 0
    while m:
        m &= m - 1
        c += 1
    return c


@njit(cache=True)
def unseen_mask(p, rl, ws):
    """I2: the cards ``p`` has not seen, from public facts and his own hand only: 40 minus his
    hand, the table, the pile in play and every side's captured cards."""
    st = ws[0]
    hc = ws[1]
    capm = ws[4]
    seen = st[S_TABLE_MASK] | st[S_PILE_MASK]
    for i in range(ws[2][p]):
        seen |= np.int64(1) << hc[p, i]
    for t in range(rl[R_SIDES]):
        seen |= capm[t]
    return FULL & ~seen


@njit(cache=True, inline="always")
def announcing_deal(rl, st):
    """A1: the current deal announced (points mode; the first deal, or every deal)."""
    return rl[R_MODE] == MODE_POINTS and (st[S_DEAL] == 0 or rl[R_ANNOUNCE] == ANNOUNCE_EVERY_DEAL)


@njit(cache=True, inline="always")
def _fits(q, cnt, ws):
    """Q1: ``cnt[v]`` (the cards of value v given to ``q``) plus what ``q`` has played since
    the deal make exactly his announcements at that deal (A2): 2 of a Ronda's value, 3 or 4 of
    a Tringla's, at most 1 of any other value. The announced count is recovered as ``ann``
    (announced minus played) plus ``dplay`` (played)."""
    ann = ws[7]
    dplay = ws[12]
    for v in range(N_VALUES):
        c = cnt[v] + dplay[q, v]
        a = ann[q, v] + dplay[q, v]
        if a == 2:
            if c != 2:
                return False
        elif a == 3:
            if c < 3:
                return False
        elif c >= 2:
            return False
    return True


@njit(cache=True)
def _limits(p, rl, ws, lim):
    """Q1/A2: for each other hand (seat order, index ``i``) and value ``v``, the least and most
    unseen cards of ``v`` it can hold now (``lim[0, i, v]``, ``lim[1, i, v]``) for its holding
    as dealt (held plus played since the deal) to give exactly its announcements: 2 of a
    Ronda's value, 3 or 4 of a Tringla's, at most 1 of any other. Absent hands get 0..0."""
    ann = ws[7]
    dplay = ws[12]
    i = 0
    for q in range(rl[R_PLAYERS]):
        if q == p:
            continue
        for v in range(N_VALUES):
            played = dplay[q, v]
            a = ann[q, v] + played
            if a == 2:
                lim[0, i, v] = 2 - played
                lim[1, i, v] = 2 - played
            elif a == 3:
                lim[0, i, v] = max(0, 3 - played)
                lim[1, i, v] = 4
            else:
                lim[0, i, v] = 0
                lim[1, i, v] = 1 - played
        i += 1
    while i < 3:
        for v in range(N_VALUES):
            lim[0, i, v] = 0
            lim[1, i, v] = 0
        i += 1


@njit(cache=True, inline="always")
def _radices(p, rl, ws):
    """The other hands' sizes plus one (seat order; 1 for absent hands): the counting radices."""
    hn = ws[2]
    r0 = 1
    r1 = 1
    r2 = 1
    i = 0
    for q in range(rl[R_PLAYERS]):
        if q != p:
            if i == 0:
                r0 = hn[q] + 1
            elif i == 1:
                r1 = hn[q] + 1
            else:
                r2 = hn[q] + 1
            i += 1
    return r0, r1, r2


@njit(cache=True)
def _count_ways(p, rl, ws, sw, u):
    """Q1: ``ways[v, s]``, the number of ways to give the unseen cards of values ``v`` .. 9 to
    the other hands, each within its limits (:func:`_limits`), so that the hands' remaining
    room (state ``s``, mixed radix) is filled exactly; the rest goes to the stock. Counted once
    per decision; :func:`draw_sample` walks the table to draw a consistent sample exactly
    uniformly. The counts stay below C(32,4)·C(28,4)·C(24,4) < 2**43 (unordered hands).
    Returns the state of the hands' full sizes."""
    ways = sw[W_WAYS]
    lim = sw[W_LIM]
    _limits(p, rl, ws, lim)
    r0, r1, r2 = _radices(p, rl, ws)
    nst = r0 * r1 * r2
    for s in range(nst):
        ways[N_VALUES, s] = 0
    ways[N_VALUES, 0] = 1
    for v in range(N_VALUES - 1, -1, -1):
        uv = _popcount((u >> (4 * v)) & 15)
        for s in range(nst):
            c0 = s % r0
            c1 = (s // r0) % r1
            c2 = s // (r0 * r1)
            tot = 0
            for k0 in range(lim[0, 0, v], min(lim[1, 0, v], c0, uv) + 1):
                for k1 in range(lim[0, 1, v], min(lim[1, 1, v], c1, uv - k0) + 1):
                    for k2 in range(lim[0, 2, v], min(lim[1, 2, v], c2, uv - k0 - k1) + 1):
                        m = FACT[uv] // (FACT[k0] * FACT[k1] * FACT[k2] * FACT[uv - k0 - k1 - k2])
                        tot += m * ways[v + 1, s - k0 - k1 * r0 - k2 * r0 * r1]
            ways[v, s] = tot
    return nst - 1


@njit(cache=True)
def _draw_constrained(p, rl, ws, sw, pst, u, full):
    """Q1 at an announcing deal: the other hands' blocks of ``sw[W_UN]`` drawn exactly
    uniformly among the consistent ones. Value by value, the split of its unseen cards between
    the hands and the stock is drawn with probability proportional to its number of
    completions (:func:`_count_ways`), then which cards go where by a shuffle of that value's
    cards. The stock's cards follow the hands, for the caller to shuffle."""
    un = sw[W_UN]
    ways = sw[W_WAYS]
    lim = sw[W_LIM]
    vc = sw[W_VC]
    r0, r1, r2 = _radices(p, rl, ws)
    f0 = 0
    f1 = r0 - 1
    f2 = f1 + r1 - 1
    sp = f2 + r2 - 1
    s = full
    if ways[0, s] == 0:
        raise ValueError("no consistent sample exists (Q1): the workspace is broken")
    for v in range(N_VALUES):
        uv = 0
        for j in range(4):
            if (u >> (4 * v + j)) & 1:
                vc[uv] = 4 * v + j
                uv += 1
        c0 = s % r0
        c1 = (s // r0) % r1
        c2 = s // (r0 * r1)
        r = randbelow_wide(pst, ways[v, s])
        pick0 = -1
        pick1 = 0
        pick2 = 0
        for k0 in range(lim[0, 0, v], min(lim[1, 0, v], c0, uv) + 1):
            for k1 in range(lim[0, 1, v], min(lim[1, 1, v], c1, uv - k0) + 1):
                for k2 in range(lim[0, 2, v], min(lim[1, 2, v], c2, uv - k0 - k1) + 1):
                    if pick0 < 0:
                        m = FACT[uv] // (FACT[k0] * FACT[k1] * FACT[k2] * FACT[uv - k0 - k1 - k2])
                        r -= m * ways[v + 1, s - k0 - k1 * r0 - k2 * r0 * r1]
                        if r < 0:
                            pick0 = k0
                            pick1 = k1
                            pick2 = k2
        for j in range(uv - 1):
            x = j + randbelow(pst, uv - j)
            t = vc[j]
            vc[j] = vc[x]
            vc[x] = t
        for j in range(uv):
            if j < pick0:
                un[f0] = vc[j]
                f0 += 1
            elif j < pick0 + pick1:
                un[f1] = vc[j]
                f1 += 1
            elif j < pick0 + pick1 + pick2:
                un[f2] = vc[j]
                f2 += 1
            else:
                un[sp] = vc[j]
                sp += 1
        s -= pick0 + pick1 * r0 + pick2 * r0 * r1


@njit(cache=True, inline="always")
def draw_sample(p, need, rl, ws, sw, pst, u, nu, full):
    """Q1: a consistent sample into ``sw[W_UN][:nu]``: the other hands as blocks in seat order
    (each at its size), then the stock top first, drawn from the seat's own stream ``pst``.
    Every consistent sample is equally likely. At an announcing deal (``full >= 0``, the
    counting state of :func:`_count_ways`) the hands come from :func:`_draw_constrained`;
    otherwise nothing constrains them and a Fisher-Yates shuffle deals them. Only the first
    ``need`` positions are shuffled (hands, then as much of the stock as the search can
    reach); the rest stays in its previous order, which no search reads."""
    un = sw[W_UN]
    hn = ws[2]
    n = rl[R_PLAYERS]
    hands = 0
    for q in range(n):
        if q != p:
            hands += hn[q]
    if full >= 0:
        _draw_constrained(p, rl, ws, sw, pst, u, full)
    else:
        for j in range(min(hands, nu - 1)):
            r = j + randbelow(pst, nu - j)
            x = un[j]
            un[j] = un[r]
            un[r] = x
    for j in range(hands, min(need, nu - 1)):
        r = j + randbelow(pst, nu - j)
        x = un[j]
        un[j] = un[r]
        un[r] = x
    return hands


@njit(cache=True, inline="always")
def _place(p, hands, rl, ws0, sw, nu):
    """Put the sample of ``sw[W_UN]`` into the position at level 0: the other holdings (sorted
    by card order) and the stock at the undealt positions of the deck."""
    n = rl[R_PLAYERS]
    un = sw[W_UN]
    hc = ws0[1]
    hn = ws0[2]
    pos = 0
    for q in range(n):
        if q == p:
            continue
        m = hn[q]
        for i in range(m):
            c = un[pos + i]
            j = i
            while j > 0 and hc[q, j - 1] > c:
                hc[q, j] = hc[q, j - 1]
                j -= 1
            hc[q, j] = c
        pos += m
    deck = sw[W_DECK]
    s0 = ws0[0][S_STOCK]
    for i in range(nu - hands):
        deck[s0 + i] = un[hands + i]


@njit(cache=True)
def _record(p, kind, hands, rl, ws, sw, nu, new_decision):
    """Keep the sample just placed (and, on its decision's first sample, the decision)."""
    info = sw[W_REC_INFO]
    meta = sw[W_REC_META]
    k = info[2]
    if k >= info[0]:
        raise ValueError("search recording capacity exceeded")
    if new_decision:
        d = info[1]
        meta[d, REC_HAND] = info[3]
        meta[d, REC_PLAY] = ws[0][S_PLAYS]
        meta[d, REC_SEAT] = p
        meta[d, REC_FIRST] = k
        meta[d, REC_COUNT] = 0
        meta[d, REC_KIND] = kind
        info[1] += 1
    meta[info[1] - 1, REC_COUNT] += 1
    un = sw[W_UN]
    rh = sw[W_REC_HANDS]
    rs = sw[W_REC_STOCK]
    n = rl[R_PLAYERS]
    hn = ws[2]
    pos = 0
    for q in range(n):
        rh[k, q] = 0
        if q == p:
            continue
        for i in range(pos, pos + hn[q]):
            rh[k, q] |= np.int64(1) << un[i]
        pos += hn[q]
    for i in range(N_CARDS):
        rs[k, i] = un[hands + i] if hands + i < nu else -1
    info[2] += 1


# ---------------------------------------------------------------- the decision


@njit(cache=True)
def _keep(p, c, own, rl, ds, ws):
    """Q1's Derba risk of ``c`` as greedy ranks it (:func:`engine.greedy_card`): the integer
    C(U-u, h) over the decision's common denominator C(U, h); higher keeps mean lower risk."""
    st = ws[0]
    hn = ws[2]
    nxt = (p + 1) % rl[R_PLAYERS]
    big_u = N_CARDS - st[S_PUBLIC] - hn[p]
    h = hn[nxt]
    if h == 0:
        h = ds[st[S_DEAL] + 1]
    action, _k, _hit, chain_closed, _missa, last = resolve(c, st, ws[3], rl[R_PLAYS])
    if action == ACT_CAPTURE or chain_closed or last:
        return COMB[big_u, h]
    v = c >> 2
    if ws[7][nxt, v] > 0:
        return 0
    return COMB[big_u - (4 - ws[8][v] - own), h]


@njit(cache=True)
def _stock_reach(plays_after, rl, ds, st):
    """Stock cards the next ``plays_after`` plays can reach: the deals they start (D5)."""
    n = rl[R_PLAYERS]
    held = st[S_HELD]
    d = st[S_DEAL]
    need = 0
    while plays_after > held and d + 1 < rl[R_DEALS]:
        d += 1
        need += ds[d] * n
        held += ds[d] * n
    return need


@njit(cache=True)
def _solve_last_deal(p, rl, ds, ws, sw, nc):
    """Q7: every consistent assignment of the unseen cards to the other holdings (the stock is
    empty), each counted once; for each, each candidate followed by max-n to the end of the
    hand. Adds the candidates' final values to ``sw[W_TOTALS]``; returns the assignments."""
    n = rl[R_PLAYERS]
    ns = rl[R_SIDES]
    s = side_of(p, rl[R_TEAMS])
    hn = ws[2]
    w0 = _level(sw, 0)
    w1 = _level(sw, 1)
    _copy_public(ws, w0, n, ns)
    for i in range(hn[p]):
        w0[1][p, i] = ws[1][p, i]
    o0 = (p + 1) % n  # the other seats, in play order from p
    o1 = (p + 2) % n
    o2 = (p + 3) % n
    k = n - 1
    u = unseen_mask(p, rl, ws)
    check = announcing_deal(rl, ws[0])
    cnt = sw[W_CNT]
    cand = sw[W_CAND]
    totals = sw[W_TOTALS]
    f = sw[W_F]
    count = 0
    h0 = hn[o0]
    h1 = hn[o1] if k > 1 else 0
    m0 = u
    while True:  # the first other holding: every subset of the unseen cards of its size
        if _popcount(m0) == h0:
            r0 = u & ~m0
            m1 = r0
            while True:  # the second: subsets of the rest (the third takes what is left)
                if k < 2 or _popcount(m1) == h1:
                    if k < 2:
                        m1 = 0
                    m2 = r0 & ~m1
                    ok = True
                    for i in range(k):
                        mq = m0 if i == 0 else (m1 if i == 1 else m2)
                        q = o0 if i == 0 else (o1 if i == 1 else o2)
                        j = 0
                        for v in range(N_VALUES):
                            cnt[v] = 0
                        for c in range(N_CARDS):
                            if (mq >> c) & 1:
                                w0[1][q, j] = c
                                cnt[c >> 2] += 1
                                j += 1
                        if check and not _fits(q, cnt, ws):
                            ok = False
                    if ok:
                        count += 1
                        for j in range(nc):
                            _copy(w0, w1, n, ns)
                            _play(cand[j], rl, w1, sw[W_LOG], sw[W_PLAY_PTS])
                            max_n(1, w1, N_CARDS, rl, ds, sw)
                            totals[j] += f[s]
                if k < 2 or m1 == 0:
                    break
                m1 = (m1 - 1) & r0
        if m0 == 0 or k < 2:
            break
        m0 = (m0 - 1) & u
    return count


@njit(cache=True)
def search_card(p, kind, param, rl, ds, ws, sw, pst):
    """The card seat ``p`` plays under ``lookahead:param`` (Q4) or ``rollout:param`` (Q5), or,
    once the stock is empty, by the exact last deal (Q7). Reads only ``p``'s observation from
    ``ws`` (I3) and draws only from ``pst``. The highest mean V(own side) wins (every candidate
    is scored on the same samples, so sums compare as means); ties by Derba risk (as greedy
    ranks it), then card order."""
    n = rl[R_PLAYERS]
    ns = rl[R_SIDES]
    st = ws[0]
    hc = ws[1]
    hn = ws[2]
    s = side_of(p, rl[R_TEAMS])
    cand = sw[W_CAND]
    own = sw[W_OWN]
    totals = sw[W_TOTALS]
    nc = 0
    for i in range(hn[p]):
        c = hc[p, i]
        if nc > 0 and (cand[nc - 1] >> 2) == (c >> 2):
            own[nc - 1] += 1
        else:
            cand[nc] = c
            own[nc] = 1
            totals[nc] = 0
            nc += 1
    if nc == 1:
        return cand[0]  # one value: nothing to search
    stock_left = N_CARDS - st[S_STOCK]
    if stock_left == 0:
        _solve_last_deal(p, rl, ds, ws, sw, nc)
    else:
        # Q1: the unseen cards in card order; samples permute them in place.
        un = sw[W_UN]
        u = unseen_mask(p, rl, ws)
        nu = 0
        for c in range(N_CARDS):
            if (u >> c) & 1:
                un[nu] = c
                nu += 1
        w0 = _level(sw, 0)
        w1 = _level(sw, 1)
        _copy_public(ws, w0, n, ns)
        for i in range(hn[p]):
            w0[1][p, i] = hc[p, i]
        if kind == POLICY_LOOKAHEAD:
            samples = LOOKAHEAD_SAMPLES
            need = nu - stock_left + _stock_reach(param + 1, rl, ds, st)
        else:
            samples = param
            need = nu
        f = sw[W_F]
        log = sw[W_LOG]
        play_pts = sw[W_PLAY_PTS]
        plays = rl[R_PLAYS]
        recording = sw[W_REC_INFO][0] > 0
        full = _count_ways(p, rl, ws, sw, u) if announcing_deal(rl, st) else -1
        # lookahead:1 with the deal going on after the reply: the reply alone is searched, and
        # the candidate's play does not depend on the sample (it touches only the searcher's
        # hand, the table and the pile), so each candidate is played once, at the top levels
        # of the stack, and each sample only gives the replier his hand there.
        reply_only = kind == POLICY_LOOKAHEAD and param == 1 and st[S_HELD] > 1 and \
            st[S_PLAYS] + 2 < plays
        if reply_only:
            for j in range(nc):
                wj = _level(sw, LEVELS - 1 - j)
                _copy(w0, wj, n, ns)
                apply_play(cand[j], rl, wj, log, play_pts, False)  # inlined
        for k in range(samples):
            hands = draw_sample(p, need, rl, ws, sw, pst, u, nu, full)
            _place(p, hands, rl, w0, sw, nu)
            if recording:
                _record(p, kind, hands, rl, ws, sw, nu, k == 0)
            if reply_only:
                q = (p + 1) % n
                for j in range(nc):
                    lv = LEVELS - 1 - j
                    wj = _level(sw, lv)
                    for i in range(w0[2][q]):
                        wj[1][q, i] = w0[1][q, i]
                    _setup(sw, lv, wj, rl)
                    _leaf(sw, lv, wj, rl, f)
                    totals[j] += f[s]
                continue
            for j in range(nc):
                _copy(w0, w1, n, ns)
                apply_play(cand[j], rl, w1, log, play_pts, False)  # inlined
                if kind == POLICY_LOOKAHEAD:
                    st1 = w1[0]
                    if param == 1 and st1[S_HELD] > 0 and st1[S_PLAYS] + 1 < plays:
                        _setup(sw, 1, w1, rl)  # lookahead:1 within a deal: the reply alone
                        _leaf(sw, 1, w1, rl, f)
                    else:
                        max_n(1, w1, param, rl, ds, sw)
                else:
                    rollout(w1, rl, ds, sw)
                totals[j] += f[s]
    best = -1
    best_v = 0
    best_keep = 0
    for j in range(nc):
        keep = _keep(p, cand[j], own[j], rl, ds, ws)
        if best < 0 or totals[j] > best_v or (totals[j] == best_v and keep > best_keep):
            best = j
            best_v = totals[j]
            best_keep = keep
    return cand[best]
