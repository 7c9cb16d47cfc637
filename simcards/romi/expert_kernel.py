"""The expert's discard (Q5 of ``seeds/romi.md``) in numba: :func:`expert_discard`, the card an
``expert`` seat throws, weighed by the next card its hand could get; the comment after the
imports says how its questions are answered without a search each. The rest of the expert's
turn is greedy's (Q2, :mod:`simcards.romi.policies_kernel`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.romi.cards import JOKER_KIND
from simcards.romi.codes import (
    TC_SIZE,
    TM_HI,
    TM_JID,
    TM_LO,
    TM_RANK,
    TM_RUN,
    TM_SUIT,
    X_BV0,
    X_CAND,
    X_CTX,
    X_D,
    X_DW,
    X_EXACT,
    X_FITS,
    X_LIVE,
    X_MP0,
    X_NEXT_OPEN,
    X_PILE,
    X_PRO,
    X_SEEN,
    X_TS,
)
from simcards.romi.melds_kernel import (
    _VBITS,
    _VMASK,
    PEN_ORDER,
    _pos_value,
    _useful,
    discard_pick,
    fill_counts,
    hand_penalty,
    kind_of,
    kind_pen,
    pos_kind,
    sub_begin,
    sub_less,
    sub_search,
)
from simcards.romi.table_melds_kernel import add_place

# ---------------------------------------------------------------- how Q5 is weighed
#
# Q5 weighs every card c the expert could throw by the next card d the hand H could get:
# best_value (before opening) or min_penalty (once opened) of H-c+d, for every c held and every
# d unseen. The engine decides exactly as if it asked the solver each of them, but most are
# answered without a search of their own:
#
# - A dead d, in no meld of H+d, is in no meld of any H-c+d: H-c+d is laid as H-c is (d left
#   over), known from the candidates' own searches.
# - For a live d, one copy of d is either left over (the answer of H-c) or in some meld M of
#   H-c+d, the rest laid from H-c less M's other cards T:
#       best_value(H-c+d) = max(best_value(H-c), max over M of value(M) + best_value(H-c-T)),
#   and the same with the penalty laid (min_penalty is the cards' penalty less the most laid).
#   Every H-c-T is part of H, so one memo stamp serves every search of the discard (the mixed
#   radix of :func:`sub_begin` on H). Runs of 3 to 5 places are enough for M: a longer run
#   cuts into runs of 3 to 5, one of them holding d, worth and costing as much together.
# - best_value(H-c-T) <= best_value(H-T), which does not depend on c: each meld's bound
#   value(M) + best_value(H-T) is searched once per d, and a candidate's melds are walked by
#   decreasing bound until a bound is no better than the best found. For a card c in no meld
#   of H the bound is the answer.
# - Each candidate's prospect is first summed with the bound of the first meld it can still
#   make for every live d: a number at least its prospect. The candidates are ranked in Q5's
#   order by these numbers, the first is computed exactly and the ranking made again, until
#   the first is exact. It is then Q5's card: every other ranks after it by a number at least
#   its own prospect, so by its prospect too (ties go to the earlier card, as in Q5).
# - A card that feeds is not weighed while one that does not is held; when only one card does
#   not feed, it is thrown.

XR_ROWS = 6400
"""Rows of the expert's meld list: at most 110 melds hold a real card d with cards of a hand
(10 sets, and 50 runs of 3 to 5 places through each place of d, two places for an As), 650
hold a joker d (130 sets and 520 runs); 52 * 110 + 650 < 6400."""
XR_VALUE, XR_PEN, XR_JOKER, XR_NT, XR_T, XR_BOUND = 0, 1, 2, 3, 4, 8
"""A row: the meld's value (M6) and penalty (M7), whether it takes a joker of the hand, how
many other real cards it takes and their kinds (up to 4), and its bound (value(M) +
best_value(H-T) before opening, penalty(M) + most laid of H-T once opened)."""
XR_W = 9


@njit(cache=True, inline="always")
def _xr_put(rows, r, value, pen, joker, ts, nt):
    row = rows[r]
    row[XR_VALUE] = value
    row[XR_PEN] = pen
    row[XR_JOKER] = joker
    row[XR_NT] = nt
    for i in range(nt):
        row[XR_T + i] = ts[i]
    return r + 1


@njit(cache=True, inline="always")
def _set_cards(cnt, rk, used, ts):
    """The kinds of rank ``rk`` in the suits of the mask ``used``, into ``ts``: how many, or -1
    when the hand (kind counts ``cnt``) lacks one of them."""
    nt = 0
    for s2 in range(4):
        if used >> s2 & 1:
            k = s2 * 13 + rk - 1
            if cnt[k] == 0:
                return -1
            ts[nt] = k
            nt += 1
    return nt


@njit(cache=True, inline="always")
def _run_gaps(cnt, s, lo, hi, p, ace_low):
    """A run of suit ``s`` over places ``lo`` .. ``hi``: its value (M6), how many of its places
    other than ``p`` (0: none) the hand (``cnt``) lacks, and the last such place."""
    value = 0
    miss = 0
    gaps = 0
    for q in range(lo, hi + 1):
        value += _pos_value(q, ace_low)
        if q != p and cnt[pos_kind(s, q)] == 0:
            gaps += 1
            miss = q
    return value, gaps, miss


@njit(cache=True)
def _melds_through(cnt, jk, d, ace_low, rows, r, ts):
    """Every meld (M1-M4) made of one card of the real kind d and other cards of the hand
    (kind counts ``cnt``, ``jk`` jokers): sets of 3 or 4 cards, runs of 3 to 5 places through
    d's place (either place of an As), at most one joker, which may stand anywhere but at d.
    Written from row r of ``rows`` (``ts``: four slots of scratch); returns the next row."""
    rk = d % 13 + 1
    s = d // 13
    rv = kind_pen(d)
    for used in range(16):
        if used >> s & 1:
            continue
        nt = _set_cards(cnt, rk, used, ts)
        if nt < 0:
            continue
        for j in range(min(jk, 1) + 1):
            if 3 <= 1 + nt + j <= 4:
                r = _xr_put(rows, r, rv * (1 + nt + j), rv * (1 + nt) + 20 * j, j, ts, nt)
    for pi in range(2 if rk == 1 else 1):
        p = 14 if pi == 1 else rk
        for size in range(3, 6):
            for lo in range(max(1, p - size + 1), min(p, 15 - size) + 1):
                hi = lo + size - 1
                value, gaps, miss = _run_gaps(cnt, s, lo, hi, p, ace_low)
                if gaps > 1 or (gaps == 1 and jk == 0):
                    continue
                # the joker's place: none (every place held), the gap, or any place but d's
                for jq in range(lo - 1, hi + 1):
                    if jq == lo - 1:
                        if gaps == 1:
                            continue
                    elif jq == p or jk == 0 or (gaps == 1 and jq != miss):
                        continue
                    nt = 0
                    pen = 0
                    for q in range(lo, hi + 1):
                        if q == jq:
                            pen += 20
                            continue
                        k = pos_kind(s, q)
                        pen += kind_pen(k)
                        if q != p:
                            ts[nt] = k
                            nt += 1
                    r = _xr_put(rows, r, value, pen, 1 if jq >= lo else 0, ts, nt)
    return r


@njit(cache=True)
def _melds_through_joker(cnt, ace_low, rows, r, ts):
    """Every meld made of one joker more and real cards of the hand (``cnt``): sets of 2 or 3
    real suits and runs of 3 to 5 places, the joker at any of them. As
    :func:`_melds_through`."""
    for rk in range(1, 14):
        rv = kind_pen(rk - 1)
        for used in range(16):
            nt = _set_cards(cnt, rk, used, ts)
            if 2 <= nt <= 3:
                r = _xr_put(rows, r, rv * (nt + 1), rv * nt + 20, 0, ts, nt)
    for s in range(4):
        for size in range(3, 6):
            for lo in range(1, 16 - size):
                hi = lo + size - 1
                value, gaps, miss = _run_gaps(cnt, s, lo, hi, np.int64(0), ace_low)
                if gaps > 1:
                    continue
                for jq in range(lo, hi + 1):
                    if gaps == 1 and jq != miss:
                        continue
                    nt = 0
                    pen = 20
                    for q in range(lo, hi + 1):
                        if q != jq:
                            k = pos_kind(s, q)
                            pen += kind_pen(k)
                            ts[nt] = k
                            nt += 1
                    r = _xr_put(rows, r, value, pen, 0, ts, nt)
    return r


@njit(cache=True)
def _search_less(row, c, jk, key, cur, ace_low, sv):
    """The packed search answer (:func:`sub_search`) for the hand of :func:`sub_begin` less
    one card of kind c (-1: none, 52: a joker) and the other cards of the meld ``row`` (its
    real cards, its joker). Kinds :func:`sub_begin` took out (in no meld) are not searched."""
    tmp = sv.tmp
    w = sv.melds.w
    j = jk - row[XR_JOKER]
    key -= row[XR_JOKER] * w[52]
    if c == JOKER_KIND:
        j -= 1
        key -= w[52]
    elif c >= 0 and w[c] > 0:
        tmp[c] -= 1
        key -= w[c]
    for i in range(row[XR_NT]):
        t = row[XR_T + i]
        if w[t] > 0:
            tmp[t] -= 1
            key -= w[t]
    res = sub_search(j, key, cur, ace_low, sv)
    for i in range(row[XR_NT]):
        t = row[XR_T + i]
        if w[t] > 0:
            tmp[t] += 1
    if c >= 0 and c != JOKER_KIND and w[c] > 0:
        tmp[c] += 1
    return res


@njit(cache=True, inline="always")
def _row_usable(row, c, cnt, jk):
    """Whether the meld ``row`` can be made once a card of kind c is thrown."""
    if c == JOKER_KIND:
        return row[XR_JOKER] == 0 or jk > 1
    usable = cnt[c] > 1
    if not usable:
        usable = True
        for i in range(row[XR_NT]):
            if row[XR_T + i] == c:
                usable = False
    return usable


@njit(cache=True)
def _expert_candidates(hand, n, view, sv, ps):
    """Q5's candidates, into ``ps.xs``: the unseen copies u(d) (``X_SEEN`` holds the copies
    seen), and for every kind c held, in the order of :data:`PEN_ORDER` (ties go to the
    first): its kind, best_value and min_penalty of H-c, whether it is in the running
    (``X_EXACT`` -1 when it feeds while some card does not, else 1) and prospects cleared.
    Prepares the shared search of H (:func:`sub_begin`). Returns (candidates, candidates in
    the running, jokers held, memo key of H, stamp, penalty of H)."""
    tm, tc, nm = view.tm, view.tc, view.nm
    cnt = ps.cnt
    xs = ps.xs
    jk = fill_counts(hand, n, cnt)
    seen = xs[X_SEEN:X_SEEN + 53]
    for k in range(53):
        seen[k] = xs[X_PILE + k]
    for m in range(nm):
        for j in range(TC_SIZE):
            if tc[m, j] >= 0:
                seen[kind_of(tc[m, j])] += 1
        if tm[m, TM_JID] >= 0:
            seen[JOKER_KIND] += 1
    for k in range(52):
        seen[k] += cnt[k]
    seen[JOKER_KIND] += jk
    total = hand_penalty(cnt, jk)
    key, cur = sub_begin(cnt, jk, sv)
    watch = xs[X_NEXT_OPEN] == 1
    fits = xs[X_FITS:X_FITS + 52]
    _table_fits(tm, nm, fits)
    nc = 0
    free = 0
    res0 = -1
    for t in range(53):
        k = PEN_ORDER[t]
        if (jk if k == JOKER_KIND else cnt[k]) == 0:
            continue
        res, res0 = sub_less(k, jk, key, cur, res0, view.ace_low, sv)
        xs[X_CAND + nc] = k
        xs[X_BV0 + nc] = res & _VMASK
        xs[X_MP0 + nc] = total - kind_pen(k) - ((res >> _VBITS) & _VMASK)
        xs[X_PRO + nc] = 0
        xs[X_LIVE + nc] = 0
        feeds = watch and (k == JOKER_KIND or fits[k] == 1)
        xs[X_EXACT + nc] = -1 if feeds else 1
        if not feeds:
            free += 1
        nc += 1
    if free == 0:
        for i in range(nc):
            xs[X_EXACT + i] = 1
        free = nc
    return nc, free, jk, key, cur, total


@njit(cache=True, inline="always")
def _alone(cnt, jk, c, d):
    """Whether the real kind d is in no meld of the hand (``cnt``, ``jk``) less a card of kind
    c plus d (Q5 once opened: d that fits a table meld then leaves the rest as it is)."""
    if c == JOKER_KIND:
        jk -= 1
    else:
        cnt[c] -= 1
    cnt[d] += 1
    alone = not _useful(cnt, jk, d)
    cnt[d] -= 1
    if c != JOKER_KIND:
        cnt[c] += 1
    return alone


@njit(cache=True, inline="always")
def _first_bound(rows, order, start, nr, c, cnt, jk, best):
    """The bound of the first meld of a live d (``rows[start:start + nr]`` in the order of
    ``order``, best bound first) still made once a card of kind c is thrown, when it is above
    ``best``; else ``best``."""
    for a in range(nr):
        row = rows[start + (order[start + a] & 8191)]
        if row[XR_BOUND] <= best:
            break
        if _row_usable(row, c, cnt, jk):
            return row[XR_BOUND]
    return best


@njit(cache=True)
def _expert_weigh(nc, view, sv, ps):
    """Every unseen d into the candidates' prospects (Q5): a dead d exactly into ``X_PRO``
    (best_value(H-c) before opening; min_penalty(H-c), plus d's penalty unless d fits a table
    meld, once opened); a live d into ``X_D``, with its melds (:func:`_melds_through`) and
    their bounds in ``ps.xr`` ordered in ``ps.xo``, and into ``X_LIVE`` by the bound of its
    first meld each candidate can still make (``X_EXACT`` 0 unless that is exact). Returns the
    live d's."""
    xs, cnt, rows, order = ps.xs, ps.cnt, ps.xr, ps.xo
    w = sv.melds.w
    opened, x, ace_low = view.opened, view.x, view.ace_low
    jk = xs[X_CTX]
    key = xs[X_CTX + 1]
    cur = xs[X_CTX + 2]
    total = xs[X_CTX + 3]
    ts = xs[X_TS:X_TS + 4]
    nd = 0
    nr = 0
    dead_u = 0
    dead_pen = 0
    for d in range(53):
        u = (4 if d == JOKER_KIND else 2) - xs[X_SEEN + d]
        if u <= 0:
            continue
        live = d == JOKER_KIND
        if not live:
            cnt[d] += 1
            live = _useful(cnt, jk, d)
            cnt[d] -= 1
        fits = d != JOKER_KIND and opened and xs[X_FITS + d] == 1
        if not live:
            dead_u += u
            if not fits:
                dead_pen += u * kind_pen(d)
            continue
        if d == JOKER_KIND:
            end = _melds_through_joker(cnt, ace_low, rows, nr, ts)
        else:
            end = _melds_through(cnt, jk, d, ace_low, rows, nr, ts)
        for r in range(nr, end):
            res = _search_less(rows[r], np.int64(-1), jk, key, cur, ace_low, sv)
            if opened:
                rows[r, XR_BOUND] = rows[r, XR_PEN] + ((res >> _VBITS) & _VMASK)
            else:
                rows[r, XR_BOUND] = rows[r, XR_VALUE] + (res & _VMASK)
            order[r] = -rows[r, XR_BOUND] * 8192 + (r - nr)
        order[nr:end].sort()
        at = X_D + X_DW * nd
        xs[at] = d
        xs[at + 1] = u
        xs[at + 2] = nr
        xs[at + 3] = end - nr
        xs[at + 4] = 1 if fits else 0
        for i in range(nc):
            if xs[X_EXACT + i] < 0:
                continue
            c = xs[X_CAND + i]
            if opened:
                if fits and _alone(cnt, jk, c, d):
                    xs[X_LIVE + i] -= u * xs[X_MP0 + i]
                    continue
                base = total - kind_pen(c) - xs[X_MP0 + i]
            else:
                base = xs[X_BV0 + i]
                if base >= x:
                    xs[X_LIVE + i] += u * x
                    continue
            best = _first_bound(rows, order, nr, end - nr, c, cnt, jk, base)
            if best > base and (c == JOKER_KIND or w[c] > 0):
                # c is in some meld of H: the bound may be above the answer. (A card in no
                # meld of H is in none of H-T either, and the bound is the answer.)
                xs[X_EXACT + i] = 0
            if opened:
                xs[X_LIVE + i] -= u * (total + kind_pen(d) - kind_pen(c) - best)
            else:
                xs[X_LIVE + i] += u * min(best, x)
        nd += 1
        nr = end
    for i in range(nc):
        if opened:
            xs[X_PRO + i] = -dead_u * xs[X_MP0 + i] - dead_pen
        else:
            xs[X_PRO + i] = dead_u * min(xs[X_BV0 + i], x)
    return nd


@njit(cache=True)
def _expert_exact(i, nd, view, sv, ps):
    """Candidate i's prospect from the live d's (``X_D``, :func:`_expert_weigh`), exactly:
    the melds of each d are walked by decreasing bound, each searched with c thrown
    (:func:`_search_less`), until a bound is no better than the best found."""
    xs, cnt, rows, order = ps.xs, ps.cnt, ps.xr, ps.xo
    opened = view.opened
    x = view.x
    jk = xs[X_CTX]
    total = xs[X_CTX + 3]
    c = xs[X_CAND + i]
    gain = XR_PEN if opened else XR_VALUE
    shift = _VBITS if opened else 0
    s = 0
    for di in range(nd):
        at = X_D + X_DW * di
        d = xs[at]
        u = xs[at + 1]
        start = xs[at + 2]
        if opened:
            if xs[at + 4] == 1 and _alone(cnt, jk, c, d):
                s -= u * xs[X_MP0 + i]
                continue
            best = total - kind_pen(c) - xs[X_MP0 + i]
            cap = 1 << 30
        else:
            best = xs[X_BV0 + i]
            cap = x
        for a in range(xs[at + 3]):
            row = rows[start + (order[start + a] & 8191)]
            if row[XR_BOUND] <= best or best >= cap:
                break
            if _row_usable(row, c, cnt, jk):
                res = _search_less(row, c, jk, xs[X_CTX + 1], xs[X_CTX + 2], view.ace_low, sv)
                best = max(best, row[gain] + ((res >> shift) & _VMASK))
        if opened:
            s -= u * (total + kind_pen(d) - kind_pen(c) - best)
        else:
            s += u * min(best, x)
    return s


@njit(cache=True)
def expert_discard(hand, n, must, view, sv, ps):
    """Q5's discard: the index in ``hand`` of the card the expert throws, from its observation
    only (its hand, its ``view`` after its melding: the table, whether it has opened, its
    threshold x; the discard pile counts in ``ps.xs``, whether the next player has opened).

    Every kind c held is weighed by the next card the hand could get: each kind d as often as
    it is unseen (u(d): 2 copies, 4 jokers, less those in the hand, the discard pile and the
    table). Before opening, the prospect of c is the sum of u(d) * min(best_value(H-c+d), x)
    (how near one more card brings the rest to an opening); once opened, minus the sum of
    u(d) * the penalty the rest keeps with d (min_penalty(H-c+d) when d lies in a meld of it,
    min_penalty(H-c) when d fits a table meld, else min_penalty(H-c) plus d's penalty). A card
    the next player could add to a table meld, once he has opened, is thrown only when every
    card is such a card. Ties: the higher prospect, then (not opened) the lower penalty value,
    then the lower min_penalty of the rest, then the higher penalty value, then card order.

    How the questions are answered without a search each: the notes above
    :data:`XR_ROWS`."""
    xs = ps.xs
    nc, free, jk, key, cur, total = _expert_candidates(hand, n, view, sv, ps)
    if free == 1:
        for i in range(nc):
            if xs[X_EXACT + i] == 1:
                return discard_pick(hand, n, must, xs[X_CAND + i])
    xs[X_CTX] = jk
    xs[X_CTX + 1] = key
    xs[X_CTX + 2] = cur
    xs[X_CTX + 3] = total
    nd = _expert_weigh(nc, view, sv, ps)
    opened = view.opened
    while True:
        # The candidate first in Q5's order by its prospect or bound, the earlier on ties.
        b = -1
        for i in range(nc):
            if xs[X_EXACT + i] < 0:
                continue
            if b >= 0:
                si = xs[X_PRO + i] + xs[X_LIVE + i]
                sb = xs[X_PRO + b] + xs[X_LIVE + b]
                vi = 0 if opened else kind_pen(xs[X_CAND + i])
                vb = 0 if opened else kind_pen(xs[X_CAND + b])
                if not (si > sb or (si == sb and (vi < vb or (vi == vb and xs[X_MP0 + i]
                                                             < xs[X_MP0 + b])))):
                    continue
            b = i
        if xs[X_EXACT + b] == 1:
            return discard_pick(hand, n, must, xs[X_CAND + b])
        # Its prospect, exactly: the dead d's are in already, the live ones are searched.
        xs[X_LIVE + b] = _expert_exact(b, nd, view, sv, ps)
        xs[X_EXACT + b] = 1


@njit(cache=True)
def _table_fits(tm, nm, fits):
    """Q5's feeding test and its opened prospect for every kind at once: ``fits[k]`` 1 when a
    card of kind k (0 .. 51) can be added to some table meld (T6), else 0. Only the kinds a
    meld could take are asked of :func:`add_place`: those at the places beside a run (either
    may be an As) and those of a set's rank."""
    for k in range(52):
        fits[k] = 0
    for m in range(nm):
        if tm[m, TM_RUN]:
            for p in (tm[m, TM_LO] - 1, tm[m, TM_HI] + 1):
                if 1 <= p <= 14:
                    k = pos_kind(tm[m, TM_SUIT], p)
                    if add_place(tm, m, k) >= 0:
                        fits[k] = 1
        else:
            for s in range(4):
                k = s * 13 + tm[m, TM_RANK] - 1
                if add_place(tm, m, k) >= 0:
                    fits[k] = 1
