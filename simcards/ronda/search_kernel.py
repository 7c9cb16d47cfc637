"""Ronda's searching policies in numba: ``lookahead:D`` (Q4), ``rollout:K`` (Q5) and the
exact last deal (Q7) of ``seeds/ronda.md``; the sampling (Q1) that ``ismcts:N:C`` (Q8,
:mod:`simcards.ronda.ismcts_kernel`) shares with them, and its tree's allocation.

A searching seat sees only its observation (I1, I3): the unseen cards are derived from public
facts and its own hand (40 minus its hand, the table, the pile in play and every side's
captured cards), the other hands' sizes, and the current deal's announcements with the cards
each player has played since that deal (the workspace's ``ann`` and ``dplay``). The caller's
workspace holds every hand and the deck order; nothing here reads another player's holding
nor the stock: :func:`compact_kernel.from_workspace` copies only the seat's view, and each sample
(Q1) or assignment (Q7) fills in the other holdings and the stock.

Positions are searched as compact positions (:mod:`simcards.ronda.compact_kernel`, the engine's
rules on 36 integers) stacked by depth in the search workspace (:func:`new_search_workspace`): level
0 is the observed position completed by a sample or an assignment, level 1 the position after a
candidate card, and so on, so a decision allocates nothing. Values are kept per side as the
*final value* F(t) = 100 * (2 P(t) - sum of P) + K(t), P the points without announcements, K
the captured cards with an open pile counted for its last hitter's side: Q1's V(t) of a stretch
is F(t) at its end minus F(t) at its start, so every comparison of V made from one position is a
comparison of F.

Cards of one value are interchangeable in play (suits never matter, D1), so each mover tries
only one card of each value: the others give the same values and would lose every tie on card
order anyway.

Two exact shortcuts keep the searches fast without changing a single decision:

- *Alpha-beta* (:func:`max_n`). With two sides, a search that reaches the end of the hand is a
  constant-sum game (F(0) + F(1) = 40 once every card is captured), so max-n is minimax, and
  alpha-beta pruning returns the same value at the root while skipping lines that cannot
  change it. Ties inside the tree do not matter: tying children carry the same values.
- *The reply table* (:func:`search_card`). For ``lookahead:1`` within a deal, the candidate's
  play does not depend on the sample and the reply depends only on which values the replier
  holds, so each candidate's reply to each value is scored once per decision and each sample
  only looks up the best of the replier's values.

``rollout:K``'s playouts are :mod:`simcards.ronda.rollout_kernel`'s, which play each sample's
candidates without copying positions and let candidates whose playouts meet at a deal share
the rest of the hand.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from simcards.core.bits_kernel import popcount
from simcards.core.rng_kernel import (
    below,
    load,
    randbelow,
    randbelow_wide,
    store,
)
from simcards.ronda import compact_kernel
from simcards.ronda.codes import (
    ACT_CAPTURE,
    ACT_LAY,
    ACT_REHIT,
    ANNOUNCE_EVERY_DEAL,
    MAX_HAND,
    MODE_POINTS,
    POLICY_LOOKAHEAD,
)
from simcards.ronda.compact_kernel import (
    C_HAND,
    C_HELD,
    C_PH,
    C_PLAYS,
    C_PN,
    C_SIZE,
    C_TURN,
    hand_values,
)
from simcards.ronda.hand_kernel import (
    FULL,
    N_VALUES,
    S_DEAL,
    S_HELD,
    S_PILE_MASK,
    S_PLAYS,
    S_PUBLIC,
    S_STOCK,
    S_TABLE_MASK,
    resolve,
)
from simcards.ronda.kernel_state import PlayFacts, SearchWork, Tree, Unseen
from simcards.ronda.policies import MAX_DEPTH
from simcards.ronda.rollout_kernel import M_ROWS, M_WIDTH, rollout_sample
from simcards.ronda.value_rules_kernel import COMB, N_CARDS, balance, side_of

LOOKAHEAD_SAMPLES = 32
"""Q4: consistent samples per ``lookahead`` decision."""
LEVELS = MAX_DEPTH + 2
"""Stacked positions: the sampled position, the candidate's, and one per searched play (Q7's
last deal needs at most 8 plays, which ``MAX_DEPTH + 2`` covers)."""
UNBOUNDED = 1 << 40
"""Beyond any final value: the open window of an alpha-beta search."""

# Columns of the search workspace's per-level scalars (``SearchWork.lvl``).
L_NORD = 0  # the mover's values to try at this level
L_IDX = 1  # the next one
L_LO = 2  # alpha-beta's window on F(0)
L_HI = 3
L_BEST = 4  # alpha-beta: the best F(0) so far; max-n: 1 once a child was kept
L_MAXI = 5  # alpha-beta: 1 when the mover's side is side 0 (he maximises F(0))
L_SIZE = 6

RADIX = MAX_HAND + 1
"""A hand holds 0..MAX_HAND cards: the counting states of :func:`_count_ways` write the other
hands' room in this radix."""


def _multinomials() -> np.ndarray:
    """``[n, a, b, c]``: the ways to split n cards into groups of a, b, c and the rest."""
    fact = [1, 1, 2, 6, 24]
    out = np.zeros((5, 5, 5, 5), np.int64)
    for n in range(5):
        for a in range(n + 1):
            for b in range(n + 1 - a):
                for c in range(n + 1 - a - b):
                    out[n, a, b, c] = fact[n] // (fact[a] * fact[b] * fact[c] * fact[n - a - b - c])
    return out


MULTINOMIAL = _multinomials()

REC_HAND = 0
REC_PLAY = 1
REC_SEAT = 2
REC_FIRST = 3
REC_COUNT = 4
REC_KIND = 5


@njit(cache=True)
def new_tree(rules, cap):
    """Q8's tree (:class:`~simcards.ronda.kernel_state.Tree`) for ``cap`` nodes (at least 1):
    an ``ismcts:N`` seat needs N + 1 (``ismcts_kernel.tree_capacity``). The node arrays are
    zeros (``np.zeros`` leaves untouched pages unallocated) and set as nodes are made."""
    cap = max(cap, 1)
    logs = np.zeros(cap + 1, np.float64)
    for k in range(1, cap + 1):
        logs[k] = math.log(k)
    return Tree(np.zeros((cap, N_VALUES), np.int64), np.zeros(cap, np.int64),
                np.zeros(cap, np.int64), np.zeros(cap, np.int64), np.zeros(cap, np.int64),
                np.zeros(N_CARDS + 1, np.int64), logs, np.zeros(max(rules.sides, 2), np.int64),
                np.zeros(rules.sides + 1, np.int64), np.zeros(rules.sides + 1, np.int64))


@njit(cache=True)
def new_search_workspace(rules, rec_cap, tree_cap):
    """The scratch arrays searching decisions work in, reused decision after decision (slots
    ``W_*``). ``rec_cap > 0`` records up to that many samples with their decisions (for the
    reference engine to replay them); 0 records nothing. ``tree_cap``: the nodes of Q8's tree
    (:func:`new_tree`; 1 when no seat plays ``ismcts``)."""
    n = rules.players
    ns = rules.sides
    cap = max(rec_cap, 1)
    info = np.zeros(4, np.int64)
    info[0] = rec_cap
    return SearchWork(
        np.zeros((LEVELS, C_SIZE), np.int64),
        np.zeros((LEVELS, N_VALUES), np.int64),
        np.zeros((LEVELS, ns), np.int64),
        np.zeros((LEVELS, N_VALUES), np.int64),
        np.zeros(max(ns, 2), np.int64),
        np.zeros(4, np.int64),
        np.zeros(N_CARDS, np.int64),
        np.zeros(N_CARDS, np.int64),
        np.zeros(C_SIZE, np.int64),
        np.zeros(MAX_HAND, np.int64),
        np.zeros(MAX_HAND, np.int64),
        np.zeros(MAX_HAND, np.int64),
        np.zeros((MAX_HAND, N_VALUES), np.int64),
        np.zeros((MAX_HAND, N_VALUES), np.int64),
        np.zeros(N_VALUES, np.int64),
        info,
        np.zeros((cap, 6), np.int64),
        np.zeros((cap, n), np.int64),
        np.full((cap, N_CARDS), -1, np.int64),
        np.zeros((N_VALUES + 1, RADIX**3), np.int64),
        np.zeros((2, 3, N_VALUES), np.int64),
        np.zeros(4, np.int64),
        np.zeros((LEVELS, L_SIZE), np.int64),
        new_tree(rules, tree_cap),
        np.zeros((MAX_HAND, M_ROWS, M_WIDTH), np.int64),
    )


# ---------------------------------------------------------------- searching positions


@njit(cache=True, inline="always")
def _reply_score(v, x, rules):
    """The horizon's score of a card of value ``v`` for the player to move in ``x``: V(own
    side) of that single play as greedy scores it (never the hand's last play here), and the
    parts of it the final values need: ``(score, action, taken, hit, missa)``."""
    teams = rules.teams
    p = x[C_TURN]
    s = side_of(p, teams)
    hitter = x[C_PH]
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    action, k, hit, _chain_closed, missa, _last = compact_kernel.resolve(v, x, rules.plays)
    if action == ACT_REHIT:
        dk = 1 if hs == s else x[C_PN] + 1
    elif action == ACT_LAY:
        dk = 0
    else:
        dk = k + 1
    play = PlayFacts(action, hit, missa, np.bool_(False), v, s, hs)
    return 100 * balance(play, rules) + dk, action, k, hit, missa


@njit(cache=True, inline="always")
def _horizon(x, rules, vm, f):
    """The last searched play from ``x`` (one that does not end the hand), chosen and scored
    without being made: the mover's best value in ``vm`` by :func:`_reply_score` (first in card
    order on a tie); the final values after it into ``f``.

    F changes by 100 * (2 dP(t) - sum of dP) + dK(t) per side t: the mover's side gains the
    Derba or re-hit and Missa points (X6/X7, M1) and the cards captured or put on the pile; the
    pile's previous owner loses its cards on a re-hit and, under ``tiers``, the previous hit's
    points. X5a only moves a pile from its owner's count to the same side's captured cards."""
    teams = rules.teams
    ns = rules.sides
    p = x[C_TURN]
    s = side_of(p, teams)
    hitter = x[C_PH]
    hs = side_of(hitter, teams) if hitter >= 0 else -1
    pile_n = x[C_PN]
    b_score = 0
    b_action = -1
    b_k = 0
    b_hit = 0
    b_missa = False
    for v in range(N_VALUES):
        if (vm >> v) & 1:
            score, action, k, hit, missa = _reply_score(v, x, rules)
            if b_action < 0 or score > b_score:
                b_score = score
                b_action = action
                b_k = k
                b_hit = hit
                b_missa = missa
    compact_kernel.values(x, rules, f)
    if rules.mode == MODE_POINTS:
        own, prev = compact_kernel.derba_points(b_hit, rules)
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


@njit(cache=True, inline="always")
def _insert(row, key, m, item, sc):
    """Insertion sort's step: ``item`` of score ``sc`` into ``row[:m + 1]``, whose first ``m``
    entries are sorted by their scores ``key``, highest first: after every entry that scores as
    high (ties keep their order of arrival)."""
    i = m
    while i > 0 and key[i - 1] < sc:
        key[i] = key[i - 1]
        row[i] = row[i - 1]
        i -= 1
    key[i] = sc
    row[i] = item


@njit(cache=True, inline="always")
def _order(x, rules, row, key):
    """The mover's values in ``x`` into ``row``, best immediate score first
    (:func:`_reply_score`; ties by card order): good moves first make alpha-beta's cuts early.
    Returns how many."""
    vm = hand_values(x, x[C_TURN])
    m = 0
    for v in range(N_VALUES):
        if (vm >> v) & 1:
            _insert(row, key, m, v, _reply_score(v, x, rules)[0])
            m += 1
    return m


@njit(cache=True, inline="always")
def _ab_enter(stack, d, rules, order, key, lvl, lo, hi):
    """Alpha-beta's level ``d`` starts in the window ``(lo, hi)``, its values ordered."""
    lvl[d, L_NORD] = _order(stack[d], rules, order[d], key[d])
    lvl[d, L_IDX] = 0
    lvl[d, L_LO] = lo
    lvl[d, L_HI] = hi
    maxi = side_of(stack[d, C_TURN], rules.teams) == 0
    lvl[d, L_MAXI] = maxi
    lvl[d, L_BEST] = -UNBOUNDED if maxi else UNBOUNDED


@njit(cache=True, inline="always")
def _next_child(stack, d, order, lvl, rules):
    """Both searches' step down: level ``d``'s next value in its order, played on a copy of
    its position at level ``d + 1``, which is returned."""
    v = order[d, lvl[d, L_IDX]]
    lvl[d, L_IDX] += 1
    child = stack[d + 1]
    compact_kernel.copy(stack[d], child)
    compact_kernel.play(v, child, rules)
    return child


@njit(cache=True, _nrt=False)
def _alphabeta(sw, base, rules, lo, hi):
    """F(0) at the end of the hand from ``stack[base]`` (two sides, a mover to play), by
    fail-soft alpha-beta in the window ``(lo, hi)``: side 0's movers maximise it, side 1's
    minimise it. Exact inside the window; at or below ``lo`` (at or above ``hi``) it is only a
    bound. Iterative over the stacked levels of ``sw`` (numba cannot cache recursive
    functions)."""
    stack, deck, order, key, lvl, f = sw.st, sw.deck, sw.ord, sw.key, sw.lvl, sw.f
    plays = rules.plays
    d = base
    _ab_enter(stack, d, rules, order, key, lvl, lo, hi)
    while True:
        if lvl[d, L_IDX] < lvl[d, L_NORD]:
            child = _next_child(stack, d, order, lvl, rules)
            if child[C_PLAYS] == plays:
                compact_kernel.finish(child, rules, f)
                val = f[0]
            else:
                if child[C_HELD] == 0:
                    compact_kernel.deal(child, rules, deck)
                _ab_enter(stack, d + 1, rules, order, key, lvl, lvl[d, L_LO], lvl[d, L_HI])
                d += 1
                continue
        else:
            val = lvl[d, L_BEST]
            if d == base:
                return val
            d -= 1
        if lvl[d, L_MAXI]:
            if val > lvl[d, L_BEST]:
                lvl[d, L_BEST] = val
                if val > lvl[d, L_LO]:
                    lvl[d, L_LO] = val
        elif val < lvl[d, L_BEST]:
            lvl[d, L_BEST] = val
            if val < lvl[d, L_HI]:
                lvl[d, L_HI] = val
        if lvl[d, L_LO] >= lvl[d, L_HI]:
            lvl[d, L_IDX] = lvl[d, L_NORD]  # the cut: no other child can change the value above


@njit(cache=True, inline="always")
def _mn_enter(stack, d, order, lvl):
    """Max-n's level ``d`` starts: its mover's values in card order, no child kept yet."""
    vm = hand_values(stack[d], stack[d, C_TURN])
    m = 0
    for v in range(N_VALUES):
        if (vm >> v) & 1:
            order[d, m] = v
            m += 1
    lvl[d, L_NORD] = m
    lvl[d, L_IDX] = 0
    lvl[d, L_BEST] = 0


@njit(cache=True, _nrt=False)
def _max_n(sw, base, plays_left, rules):
    """Max-n from ``stack[base]`` (a mover to play) over the next ``plays_left`` plays: each
    mover plays the value that maximises his side's final value, the first in card order on a
    tie; the final values of the line into ``f``. The horizon's play is scored without being
    made (:func:`_horizon`) unless it ends the hand. Iterative over the stacked levels of
    ``sw``."""
    stack, deck, order, lvl, best, f = sw.st, sw.deck, sw.ord, sw.lvl, sw.best, sw.f
    plays, ns, teams = rules.plays, rules.sides, rules.teams
    d = base
    _mn_enter(stack, d, order, lvl)
    while True:
        if lvl[d, L_BEST] == 0 and d + 1 - base == plays_left and \
                stack[d, C_PLAYS] + 1 < plays:
            x = stack[d]
            _horizon(x, rules, hand_values(x, x[C_TURN]), f)  # scored, not made
            lvl[d, L_IDX] = lvl[d, L_NORD]
            for t in range(ns):
                best[d, t] = f[t]
            lvl[d, L_BEST] = 1
        if lvl[d, L_IDX] < lvl[d, L_NORD]:
            child = _next_child(stack, d, order, lvl, rules)
            if child[C_PLAYS] == plays:
                compact_kernel.finish(child, rules, f)
            elif d + 1 - base == plays_left:
                compact_kernel.values(child, rules, f)
            else:
                if child[C_HELD] == 0:
                    compact_kernel.deal(child, rules, deck)
                d += 1
                _mn_enter(stack, d, order, lvl)
                continue
        else:
            for t in range(ns):
                f[t] = best[d, t]
            if d == base:
                return
            d -= 1
        s = side_of(stack[d, C_TURN], teams)
        if lvl[d, L_BEST] == 0 or f[s] > best[d, s]:
            for t in range(ns):
                best[d, t] = f[t]
            lvl[d, L_BEST] = 1


@njit(cache=True, inline="always")
def max_n(base, plays_left, rules, sw, lo, hi):
    """Max-n (Q4, Q7) from the position at level ``base``, which follows a play: each of the
    next ``plays_left`` plays (or up to the end of the hand) is the card that maximises its
    mover's side's V from his play to the horizon, knowing every holding of the position; ties
    by card order. The end of the hand (X5c, U1, S1) is included when reached. Writes the final
    values of the line played into ``sw.f``. With two sides and the search reaching the end
    of the hand it is computed by alpha-beta (module docstring), which gives the same values
    inside the window ``(lo, hi)`` on F(0); the full window gives them exactly."""
    plays = rules.plays
    f, deck, stack = sw.f, sw.deck, sw.st
    x = stack[base]
    if x[C_PLAYS] == plays:
        compact_kernel.finish(x, rules, f)
        return
    if plays_left == 0:
        compact_kernel.values(x, rules, f)
        return
    if x[C_HELD] == 0:
        compact_kernel.deal(x, rules, deck)
    if rules.sides == 2 and x[C_PLAYS] + plays_left >= plays:
        f[0] = _alphabeta(sw, base, rules, lo, hi)
        f[1] = N_CARDS - f[0]
    else:
        _max_n(sw, base, plays_left, rules)


# ---------------------------------------------------------------- what the seat may know


@njit(cache=True)
def unseen_mask(p, rules, ws):
    """I2: the cards ``p`` has not seen, from public facts and his own hand only: 40 minus his
    hand, the table, the pile in play and every side's captured cards."""
    st, hc, capm = ws.st, ws.hc, ws.capm
    seen = st[S_TABLE_MASK] | st[S_PILE_MASK]
    for i in range(ws.hn[p]):
        seen |= np.int64(1) << hc[p, i]
    for t in range(rules.sides):
        seen |= capm[t]
    return FULL & ~seen


@njit(cache=True, inline="always")
def announcing_deal(rules, st):
    """A1: the current deal announced (points mode; the first deal, or every deal)."""
    return rules.mode == MODE_POINTS and (st[S_DEAL] == 0 or rules.announce == ANNOUNCE_EVERY_DEAL)


@njit(cache=True, inline="always")
def _fits(q, cnt, ws):
    """Q1: ``cnt[v]`` (the cards of value v given to ``q``) plus what ``q`` has played since
    the deal make exactly his announcements at that deal (A2): 2 of a Ronda's value, 3 or 4 of
    a Tringla's, at most 1 of any other value. The announced count is recovered as ``ann``
    (announced minus played) plus ``dplay`` (played)."""
    ann = ws.ann
    dplay = ws.dplay
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
def _limits(p, rules, ws, lim):
    """Q1/A2: for each other hand (seat order, index ``i``) and value ``v``, the least and most
    unseen cards of ``v`` it can hold now (``lim[0, i, v]``, ``lim[1, i, v]``) for its holding
    as dealt (held plus played since the deal) to give exactly its announcements: 2 of a
    Ronda's value, 3 or 4 of a Tringla's, at most 1 of any other. Absent hands get 0..0."""
    ann = ws.ann
    dplay = ws.dplay
    i = 0
    for q in range(rules.players):
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
def _radices(p, rules, ws):
    """The other hands' sizes plus one (seat order; 1 for absent hands): the counting radices."""
    hn = ws.hn
    r0 = 1
    r1 = 1
    r2 = 1
    i = 0
    for q in range(rules.players):
        if q != p:
            if i == 0:
                r0 = hn[q] + 1
            elif i == 1:
                r1 = hn[q] + 1
            else:
                r2 = hn[q] + 1
            i += 1
    return r0, r1, r2


@njit(cache=True, inline="always")
def _splits(ways, lim, v, uv, room, radix, r):
    """Q1's splits of the ``uv`` unseen cards of value ``v`` between the other hands (each
    within its limits and its ``room``, ``(c0, c1, c2)``, counted in the mixed ``radix``
    ``(r0, r1)``) and the stock, in one fixed order,
    each weighted by its ways to split the cards (a multinomial) times the completions of the
    values above it (``ways[v + 1]``). Returns ``(total, k0, k1, k2)``: with ``r = -1`` the
    total weight of every split (``k0 = -1``); with ``0 <= r`` below that total, the first split
    at which the running total passes ``r``, which draws a split in proportion to its weight."""
    c0, c1, c2 = room
    r0, r1 = radix
    s = c0 + c1 * r0 + c2 * r0 * r1
    tot = 0
    for k0 in range(lim[0, 0, v], min(lim[1, 0, v], c0, uv) + 1):
        for k1 in range(lim[0, 1, v], min(lim[1, 1, v], c1, uv - k0) + 1):
            for k2 in range(lim[0, 2, v], min(lim[1, 2, v], c2, uv - k0 - k1) + 1):
                tot += MULTINOMIAL[uv, k0, k1, k2] * ways[v + 1, s - k0 - k1 * r0 - k2 * r0 * r1]
                if r >= 0 and tot > r:
                    return tot, k0, k1, k2
    return tot, -1, 0, 0


@njit(cache=True, _nrt=False)
def _count_ways(p, rules, ws, sw, u):
    """Q1: ``ways[v, s]``, the number of ways to give the unseen cards of values ``v`` .. 9 to
    the other hands, each within its limits (:func:`_limits`), so that the hands' remaining
    room (state ``s = c0 + c1 r0 + c2 r0 r1``, mixed radix) is filled exactly; the rest goes to
    the stock. Counted once per decision; :func:`draw_sample` walks the table to draw a
    consistent sample exactly uniformly. The counts stay below C(32,4)·C(28,4)·C(24,4) < 2**43
    (unordered hands). Returns the state of the hands' full sizes."""
    ways = sw.ways
    lim = sw.lim
    _limits(p, rules, ws, lim)
    r0, r1, r2 = _radices(p, rules, ws)
    nst = r0 * r1 * r2
    for s in range(nst):
        ways[N_VALUES, s] = 0
    ways[N_VALUES, 0] = 1
    for v in range(N_VALUES - 1, -1, -1):
        uv = popcount((u >> (4 * v)) & 15)
        s = 0
        for c2 in range(r2):
            for c1 in range(r1):
                for c0 in range(r0):
                    ways[v, s] = _splits(ways, lim, v, uv, (c0, c1, c2), (r0, r1), -1)[0]
                    s += 1
    return nst - 1


@njit(cache=True, inline="always")
def _draw_constrained(p, rules, ws, sw, pst, u, full):
    """Q1 at an announcing deal: the other hands' blocks of ``sw.un`` drawn exactly
    uniformly among the consistent ones. Value by value, the split of its unseen cards between
    the hands and the stock is drawn with probability proportional to its number of
    completions (:func:`_splits`), then which cards go where by a shuffle of that value's
    cards. The stock's cards follow the hands, for the caller to shuffle."""
    un, ways, lim, vc = sw.un, sw.ways, sw.lim, sw.vc
    r0, r1, r2 = _radices(p, rules, ws)
    f0 = 0
    f1 = r0 - 1
    f2 = f1 + r1 - 1
    sp = f2 + r2 - 1
    if ways[0, full] == 0:
        raise ValueError("no consistent sample exists (Q1): the workspace is broken")
    c0 = r0 - 1  # the hands' room left: their full sizes (the state ``full``)
    c1 = r1 - 1
    c2 = r2 - 1
    s = full
    for v in range(N_VALUES):
        uv = 0
        for j in range(4):
            if (u >> (4 * v + j)) & 1:
                vc[uv] = 4 * v + j
                uv += 1
        r = randbelow_wide(pst, ways[v, s])
        _tot, pick0, pick1, pick2 = _splits(ways, lim, v, uv, (c0, c1, c2), (r0, r1), r)
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
        c0 -= pick0
        c1 -= pick1
        c2 -= pick2
        s -= pick0 + pick1 * r0 + pick2 * r0 * r1


@njit(cache=True, inline="always")
def _shuffle(un, lo, hi, nu, pst):
    """Fisher-Yates steps ``lo`` .. ``hi - 1`` on ``un[:nu]``: step j swaps position j with
    ``j + randbelow(pst, nu - j)``, the state of ``pst`` kept in local variables meanwhile
    (the same draws, without storing the state after each one)."""
    if lo >= hi:
        return
    s0, s1, s2, s3 = load(pst)
    for j in range(lo, hi):
        s0, s1, s2, s3, r = below(s0, s1, s2, s3, nu - j)
        r += j
        x = un[j]
        un[j] = un[r]
        un[r] = x
    store(pst, s0, s1, s2, s3)


@njit(cache=True, inline="always")
def draw_sample(p, need, rules, ws, sw, pst, unseen):
    """Q1: a consistent sample into ``sw.un[:nu]``: the other hands as blocks in seat order
    (each at its size), then the stock top first, drawn from the seat's own stream ``pst``.
    Every consistent sample is equally likely. At an announcing deal (``full >= 0``, the
    counting state of :func:`_count_ways`) the hands come from :func:`_draw_constrained`;
    otherwise nothing constrains them and a Fisher-Yates shuffle deals them. Only the first
    ``need`` positions are shuffled (hands, then as much of the stock as the search can
    reach); the rest stays in its previous order, which no search reads."""
    u, nu, full = unseen.mask, unseen.count, unseen.full
    un = sw.un
    hn = ws.hn
    n = rules.players
    # np.int64(0), not 0: numba would also compile every callee this count reaches for the
    # literal type of a constant start (Literal[int](0)), a second copy that is never run.
    hands = np.int64(0)
    for q in range(n):
        if q != p:
            hands += hn[q]
    if full >= 0:
        _draw_constrained(p, rules, ws, sw, pst, u, full)
    else:
        _shuffle(un, 0, min(hands, nu - 1), nu, pst)
    _shuffle(un, hands, min(need, nu - 1), nu, pst)
    return hands


@njit(cache=True)
def _record(p, kind, hands, rules, ws, sw, nu, new_decision):
    """Keep the sample just placed (and, on its decision's first sample, the decision)."""
    info = sw.rec_info
    meta = sw.rec_meta
    k = info[2]
    if k >= info[0]:
        raise ValueError("search recording capacity exceeded")
    if new_decision:
        d = info[1]
        meta[d, REC_HAND] = info[3]
        meta[d, REC_PLAY] = ws.st[S_PLAYS]
        meta[d, REC_SEAT] = p
        meta[d, REC_FIRST] = k
        meta[d, REC_COUNT] = 0
        meta[d, REC_KIND] = kind
        info[1] += 1
    meta[info[1] - 1, REC_COUNT] += 1
    un, rh, rs = sw.un, sw.rec_hands, sw.rec_stock
    n = rules.players
    hn = ws.hn
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


@njit(cache=True, inline="always")
def _candidates(p, ws, sw):
    """The root's candidates: the first card of each value in ``p``'s holding into
    ``sw.cand`` with how many cards of its value he holds into ``sw.own``; returns how many."""
    hc = ws.hc
    cand = sw.cand
    own = sw.own
    nc = np.int64(0)
    for i in range(ws.hn[p]):
        c = hc[p, i]
        if nc > 0 and (cand[nc - 1] >> 2) == (c >> 2):
            own[nc - 1] += 1
        else:
            cand[nc] = c
            own[nc] = 1
            nc += 1
    return nc


@njit(cache=True, inline="always")
def _unseen(p, rules, ws, sw):
    """Q1: the cards ``p`` has not seen, in card order into ``sw.un`` (samples permute them in
    place), as an :class:`Unseen`, with :func:`_count_ways`'s counts at an announcing deal."""
    un = sw.un
    u = unseen_mask(p, rules, ws)
    nu = np.int64(0)
    for c in range(N_CARDS):
        if (u >> c) & 1:
            un[nu] = c
            nu += 1
    full = _count_ways(p, rules, ws, sw, u) if announcing_deal(rules, ws.st) else -1
    return Unseen(u, nu, full)


@njit(cache=True, inline="always")
def _keep(p, c, own, rules, ws):
    """Q1's Derba risk of ``c`` as greedy ranks it (:func:`value_rules_kernel.greedy_value`): the
    integer C(U-u, h) over the decision's common denominator C(U, h); higher keeps mean lower
    risk."""
    st = ws.st
    hn = ws.hn
    nxt = (p + 1) % rules.players
    big_u = N_CARDS - st[S_PUBLIC] - hn[p]
    h = hn[nxt]
    if h == 0:
        h = rules.deal_sizes[st[S_DEAL] + 1]
    action, _k, _hit, chain_closed, _missa, last = resolve(c, st, rules.plays)
    if action == ACT_CAPTURE or chain_closed or last:
        return COMB[big_u, h]
    v = c >> 2
    if ws.ann[nxt, v] > 0:
        return 0
    return COMB[big_u - (4 - ws.pubv[v] - own), h]


@njit(cache=True)
def _stock_reach(plays_after, rules, st):
    """Stock cards the next ``plays_after`` plays can reach: the deals they start (D5)."""
    n = rules.players
    held = st[S_HELD]
    d = st[S_DEAL]
    need = 0
    while plays_after > held and d + 1 < rules.deals:
        d += 1
        need += rules.deal_sizes[d] * n
        held += rules.deal_sizes[d] * n
    return need


@njit(cache=True, _nrt=False)
def _solve_one(s, nc, rules, sw):
    """Q7 with two players: the one assignment at level 0 is the whole truth, so each
    candidate's total is its exact value. The candidates are tried best immediate score first;
    after the first, each is searched only for whether it reaches the best so far (a window
    just below it): one that cannot gets a bound below the best as its total, which loses to
    the best exactly as its true value would, and one that can gets its exact value."""
    cand = sw.cand
    totals = sw.totals
    key = sw.key[0]
    f = sw.f
    x0 = sw.st[0]
    x1 = sw.st[1]
    order = sw.ord[0]
    for j in range(nc):
        _insert(order, key, j, j, _reply_score(cand[j] >> 2, x0, rules)[0])
    best = 0
    for i in range(nc):
        j = order[i]
        lo = np.int64(-UNBOUNDED)
        hi = np.int64(UNBOUNDED)
        if i > 0:
            if s == 0:
                lo = best - 1
            else:
                hi = N_CARDS - best + 1
        compact_kernel.copy(x0, x1)
        compact_kernel.play_apart(cand[j] >> 2, x1, rules)
        max_n(1, np.int64(N_CARDS), rules, sw, lo, hi)
        totals[j] += f[s]
        if i == 0 or f[s] > best:
            best = f[s]


@njit(cache=True, _nrt=False)
def _solve_last_deal(p, rules, ws, sw, nc):
    """Q7: every consistent assignment of the unseen cards to the other holdings (the stock is
    empty), each counted once; for each, each candidate followed by max-n to the end of the
    hand. Adds the candidates' final values to ``sw.totals``; returns the assignments."""
    n = rules.players
    s = side_of(p, rules.teams)
    hn = ws.hn
    x0 = sw.st[0]
    x1 = sw.st[1]
    compact_kernel.copy(sw.pub, x0)
    o0 = (p + 1) % n  # the other seats, in play order from p
    o1 = (p + 2) % n
    o2 = (p + 3) % n
    k = n - 1
    u = unseen_mask(p, rules, ws)
    check = announcing_deal(rules, ws.st)
    cnt, cand, totals, f = sw.cnt, sw.cand, sw.totals, sw.f
    count = 0
    h0 = hn[o0]
    h1 = hn[o1] if k > 1 else 0
    m0 = u
    while True:  # the first other holding: every subset of the unseen cards of its size
        if popcount(m0) == h0:
            r0 = u & ~m0
            m1 = r0
            while True:  # the second: subsets of the rest (the third takes what is left)
                if k < 2 or popcount(m1) == h1:
                    if k < 2:
                        m1 = 0
                    m2 = r0 & ~m1
                    ok = True
                    for i in range(k):
                        mq = m0 if i == 0 else (m1 if i == 1 else m2)
                        q = o0 if i == 0 else (o1 if i == 1 else o2)
                        x0[C_HAND + q] = compact_kernel.packed_counts(mq)
                        if check:
                            for v in range(N_VALUES):
                                cnt[v] = popcount((mq >> (4 * v)) & 15)
                            if not _fits(q, cnt, ws):
                                ok = False
                    if ok:
                        count += 1
                        if k == 1:
                            _solve_one(s, nc, rules, sw)
                        else:
                            for j in range(nc):
                                compact_kernel.copy(x0, x1)
                                compact_kernel.play_apart(cand[j] >> 2, x1, rules)
                                max_n(1, np.int64(N_CARDS), rules, sw, np.int64(-UNBOUNDED),
                                      np.int64(UNBOUNDED))
                                totals[j] += f[s]
                if k < 2 or m1 == 0:
                    break
                m1 = (m1 - 1) & r0
        if m0 == 0 or k < 2:
            break
        m0 = (m0 - 1) & u
    return count


@njit(cache=True, inline="always")
def _place(p, hands, need, rules, ws, sw):
    """Complete the seat's view with the sample of ``sw.un`` at level 0: the other holdings
    from their blocks, and the stock the search can reach at the undealt positions of the
    deck."""
    n = rules.players
    un = sw.un
    hn = ws.hn
    x0 = sw.st[0]
    compact_kernel.copy(sw.pub, x0)
    pos = 0
    for q in range(n):
        if q == p:
            continue
        h = np.int64(0)
        for i in range(pos, pos + hn[q]):
            h += np.int64(1) << (4 * (un[i] >> 2))
        x0[C_HAND + q] = h
        pos += hn[q]
    deck = sw.deck
    s0 = ws.st[S_STOCK]
    for i in range(need - hands):
        deck[s0 + i] = un[hands + i]


@njit(cache=True, _nrt=False)
def _reply_table(p, nc, rules, sw):
    """``lookahead:1`` within a deal: each candidate is played once on the seat's view, and
    the next player's reply with each value is scored (:func:`_reply_score`) with the
    searcher's final value after it (:func:`_horizon`), into ``sw.rsc`` and ``sw.rf``."""
    s = side_of(p, rules.teams)
    cand, rsc, rf, f = sw.cand, sw.rsc, sw.rf, sw.f
    x1 = sw.st[1]
    for j in range(nc):
        compact_kernel.copy(sw.pub, x1)
        compact_kernel.play_apart(cand[j] >> 2, x1, rules)
        for v in range(N_VALUES):
            rsc[j, v] = _reply_score(v, x1, rules)[0]
            _horizon(x1, rules, 1 << v, f)
            rf[j, v] = f[s]


@njit(cache=True, _nrt=False)
def search_card(p, kind, param, rules, ws, sw, pst):
    """The card seat ``p`` plays under ``lookahead:param`` (Q4) or ``rollout:param`` (Q5), or,
    once the stock is empty, by the exact last deal (Q7). Reads only ``p``'s observation from
    ``ws`` (I3) and draws only from ``pst``. The highest mean V(own side) wins (every candidate
    is scored on the same samples, so sums compare as means); ties by Derba risk (as greedy
    ranks it), then card order.

    Compiled without reference counting (``hand_kernel`` module docstring) by its own
    setting: a function without one is compiled with its first caller's, and numba keeps one
    compiled copy per signature, cache included, so the hand loops (which turn it off) and
    the match loops (which do not) would otherwise share whichever compiled it first, at up to
    three times the time with counting."""
    n = rules.players
    st = ws.st
    hn = ws.hn
    s = side_of(p, rules.teams)
    cand, own, totals = sw.cand, sw.own, sw.totals
    nc = _candidates(p, ws, sw)
    for j in range(nc):
        totals[j] = 0
    if nc == 1:
        return cand[0]  # one value: nothing to search
    compact_kernel.from_workspace(ws, rules, p, sw.pub)
    stock_left = N_CARDS - st[S_STOCK]
    if stock_left == 0:
        _solve_last_deal(p, rules, ws, sw, nc)
    else:
        unseen = _unseen(p, rules, ws, sw)
        nu = unseen.count
        if kind == POLICY_LOOKAHEAD:
            samples = LOOKAHEAD_SAMPLES
            need = nu - stock_left + _stock_reach(param + 1, rules, st)
        else:
            samples = param
            need = nu
        f = sw.f
        x0 = sw.st[0]
        x1 = sw.st[1]
        plays = rules.plays
        recording = sw.rec_info[0] > 0
        # lookahead:1 with the deal going on after the reply: the reply table (module
        # docstring); each sample only tells which values the replier holds.
        reply_only = kind == POLICY_LOOKAHEAD and param == 1 and st[S_HELD] > 1 and \
            st[S_PLAYS] + 2 < plays
        q = (p + 1) % n
        q_at = 0  # where the replier's block starts in a sample
        for r in range(q):
            if r != p:
                q_at += hn[r]
        if reply_only:
            _reply_table(p, nc, rules, sw)
        un, rsc, rf = sw.un, sw.rsc, sw.rf
        for k in range(samples):
            hands = draw_sample(p, need, rules, ws, sw, pst, unseen)
            if recording:
                _record(p, kind, hands, rules, ws, sw, nu, k == 0)
            if reply_only:
                vm = 0
                for i in range(q_at, q_at + hn[q]):
                    vm |= 1 << (un[i] >> 2)
                for j in range(nc):
                    bv = -1
                    for v in range(N_VALUES):
                        if (vm >> v) & 1 and (bv < 0 or rsc[j, v] > rsc[j, bv]):
                            bv = v
                    totals[j] += rf[j, bv]
                continue
            _place(p, hands, need, rules, ws, sw)
            if kind != POLICY_LOOKAHEAD:
                rollout_sample(s, nc, rules, sw)  # Q5
                continue
            for j in range(nc):
                compact_kernel.copy(x0, x1)
                compact_kernel.play(cand[j] >> 2, x1, rules)
                max_n(1, param, rules, sw, np.int64(-UNBOUNDED), np.int64(UNBOUNDED))
                totals[j] += f[s]
    best = -1
    best_v = 0
    best_keep = 0
    for j in range(nc):
        keep = _keep(p, cand[j], own[j], rules, ws)
        if best < 0 or totals[j] > best_v or (totals[j] == best_v and keep > best_keep):
            best = j
            best_v = totals[j]
            best_keep = keep
    return cand[best]
