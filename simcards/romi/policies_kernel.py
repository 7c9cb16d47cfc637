"""The policies' turns in numba (Q1-Q5 of ``seeds/romi.md``): the draw (:func:`choose_draw`), the
melding and the discard (:func:`plan_turn`), planned from the seat's observation only (I3).

The policy functions take the seat's hand and :class:`~simcards.romi.kernel_state.View` (the
table, the top of the discard pile, the cut card, its own flags and threshold), never the
workspace, and plan on scratch copies (:class:`~simcards.romi.kernel_state.Scratch`); the round
(:mod:`simcards.romi.round_kernel`) then copies the planned hand and table back and records the
moves. Every policy melds as greedy does (Q2) within its opening rule (Q3, Q4); the discard is
Q2's (:func:`discard_index`), the expert's is Q5's (:mod:`simcards.romi.expert_kernel`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.romi.cards import JOKER0, JOKER_KIND
from simcards.romi.codes import (
    MV_ADD,
    MV_C0,
    MV_CARD,
    MV_CODE,
    MV_DISCARD,
    MV_DRAW_CUT,
    MV_DRAW_DISCARD,
    MV_DRAW_STOCK,
    MV_LAY,
    MV_N,
    MV_OPEN,
    MV_P,
    MV_STANDS,
    MV_SWAP,
    MV_TARGET,
    TC_SIZE,
    TM_RANK,
    TM_RUN,
    TM_SIZE,
    TM_SUIT,
    X_ON,
    X_PILE,
)
from simcards.romi.expert_kernel import expert_discard
from simcards.romi.kernel_state import View
from simcards.romi.melds_kernel import (
    _VBITS,
    _VMASK,
    CACHE,
    F_VALUE,
    PEN_ORDER,
    _useful,
    discard_pick,
    fill_counts,
    find_kind,
    hand_key,
    hand_penalty,
    kind_of,
    kind_order,
    kind_pen,
    laydown,
    remove_at,
    solve_counts,
    sub_begin,
    sub_less,
)
from simcards.romi.table_melds_kernel import (
    add_place,
    apply_add,
    apply_swap,
    lay_row,
    meld_cards,
    swap_kind,
)

# ---------------------------------------------------------------- the discard (Q1, Q2)


@njit(cache=True)
def discard_index(hand, n, must, ace_low, sv, cnt):
    """Q2's discard: the card whose removal leaves the lowest min_penalty (V2) for the rest of
    the hand, ties by the higher penalty (M7), then card order (Q1); of two copies the one
    that is not ``must`` (a card drawn from the discard pile, T4), else the first in hand.

    A card in no meld of the hand leaves exactly min_penalty minus its own penalty, and no
    removal leaves less than that bound, so only cards that could beat the best so far are
    solved."""
    jk = fill_counts(hand, n, cnt)
    a, b = hand_key(cnt, jk, ace_low)
    ckey, cval = sv.dkey, sv.dval
    h = (a * 0x9E3779B97F4A7C1) ^ (b * 0x7FEB352D8A7C3B5) ^ a
    h = (h ^ (h >> 31)) & (CACHE - 1)
    if ckey[h, 0] == a and ckey[h, 1] == b:
        return discard_pick(hand, n, must, cval[h])
    best_k = _discard_kind(cnt, jk, ace_low, sv)
    ckey[h, 0] = a
    ckey[h, 1] = b
    cval[h] = best_k
    return discard_pick(hand, n, must, best_k)


@njit(cache=True)
def _discard_kind(cnt, jk, ace_low, sv):
    """The kind :func:`discard_index` throws, from the hand's counts alone."""
    _, mp0, _ = solve_counts(cnt, jk, ace_low, sv)
    best_m = 1 << 30
    best_pen = -1
    best_ord = 99
    best_k = np.int64(-1)
    key = -1
    cur = 0
    total = hand_penalty(cnt, jk)
    for t in range(53):
        k = PEN_ORDER[t]
        have = jk if k == JOKER_KIND else cnt[k]
        if have == 0:
            continue
        pk = kind_pen(k)
        lb = mp0 - pk
        if lb > best_m:
            continue
        if k < 52 and not _useful(cnt, jk, k):
            m = lb
        else:
            # min_penalty of the hand less k: its total less what the search lays.
            if key < 0:
                key, cur = sub_begin(cnt, jk, sv)
            res, _ = sub_less(k, jk, key, cur, -1, ace_low, sv)
            m = total - pk - ((res >> _VBITS) & _VMASK)
        o = kind_order(k)
        if m < best_m or (m == best_m and (pk > best_pen or (pk == best_pen and o < best_ord))):
            best_m = m
            best_pen = pk
            best_ord = o
            best_k = k
    return best_k


# ---------------------------------------------------------------- the turn's plan (Q2-Q5)


@njit(cache=True, inline="always")
def _row(mv, nmv, p, code, target, card, stands):
    r = mv[nmv]
    r[MV_P] = p
    r[MV_CODE] = code
    r[MV_TARGET] = target
    r[MV_CARD] = card
    r[MV_STANDS] = stands
    r[MV_N] = 0
    return nmv + 1


@njit(cache=True)
def _meld_row(mv, nmv, p, code, tm, tc, m):
    """A move row laying table meld m (``Open`` part or ``Lay``), cards in canonical form."""
    r = mv[nmv]
    r[MV_P] = p
    r[MV_CODE] = code
    r[MV_TARGET] = m
    r[MV_CARD] = -1
    k, stands = meld_cards(tm, tc, m, r[MV_C0:])
    r[MV_N] = k
    r[MV_STANDS] = stands
    return nmv + 1


@njit(cache=True, inline="always")
def _lay_rows(code, nr, n, must, avoid, nm, me, nmv, sv, ps):
    """Lay the solver's lay-down (its first ``nr`` rows, ``sv.rows``) from the plan's hand as
    new table melds from meld ``nm`` on (:func:`~simcards.romi.table_melds_kernel.lay_row`),
    each recorded as a move row of ``code`` (``MV_OPEN`` or ``MV_LAY``). Returns (hand count,
    moves, melds)."""
    rows = sv.rows
    for r in range(nr):
        n = lay_row(rows[r], n, must, avoid, ps, nm, me)
        nmv = _meld_row(ps.mv, nmv, me, code, ps.ptm, ps.ptc, nm)
        nm += 1
    return n, nmv, nm


@njit(cache=True)
def _sort_hand(hand, n, must):
    """Hand in card order (Q1), ``must`` first among equal kinds, then by id."""
    for i in range(1, n):
        c = hand[i]
        kc = kind_order(kind_of(c)) * 1000 + (0 if c == must else 1) * 500 + c
        j = i - 1
        while j >= 0:
            d = hand[j]
            kd = kind_order(kind_of(d)) * 1000 + (0 if d == must else 1) * 500 + d
            if kd <= kc:
                break
            hand[j + 1] = d
            j -= 1
        hand[j + 1] = c


@njit(cache=True)
def _meld_more(n, must, nm, me, ace_low, sv, ps, nmv):
    """Q2's melding once opened (T6, J1-J3), on the plan's copies: keep aside the card the
    discard rule would throw now; lay the min_penalty lay-down (V2) of the rest as new melds;
    then, while two cards or more are held, add the first card in card order that fits a table
    meld (the first meld in table order; a joker at a run's high end first), and when none fits
    swap the first table joker (table order) whose card the hand holds, provided the freed
    joker can be added at once to a table meld (the first that takes it). Returns (moves, hand
    count, melds)."""
    ph, ptm, ptc, mv, cnt = ps.ph, ps.ptm, ps.ptc, ps.mv, ps.cnt
    if n >= 2:
        di = discard_index(ph, n, must, ace_low, sv, cnt)
        avoid = ph[di]
        jk = fill_counts(ph, n, cnt)
        ka = kind_of(avoid)
        if ka == JOKER_KIND:
            jk -= 1
        else:
            cnt[ka] -= 1
        nr = laydown(cnt, jk, ace_low, sv, np.bool_(True))
        n, nmv, nm = _lay_rows(np.int64(MV_LAY), nr, n, must, avoid, nm, me, nmv, sv, ps)
    changed = True
    while changed and n >= 2:
        changed = False
        _sort_hand(ph, n, must)
        for i in range(n):
            c = ph[i]
            for m in range(nm):
                pl = add_place(ptm, m, c)
                if pl >= 0:
                    stands = apply_add(ptm, ptc, m, c, pl)
                    nmv = _row(mv, nmv, me, MV_ADD, m, c, stands)
                    n = remove_at(ph, n, i)
                    changed = True
                    break
            if changed:
                break
        if changed:
            continue
        for m in range(nm):
            need = swap_kind(ptm, m)
            if need < 0:
                continue
            i = find_kind(ph, n, need, must, np.int64(-1))
            if i < 0:
                continue
            c = ph[i]
            save_m = ptm[m].copy()
            save_c = ptc[m].copy()
            j = apply_swap(ptm, ptc, m, c)
            m2 = -1
            pl = -1
            for mm in range(nm):
                pl = add_place(ptm, mm, j)
                if pl >= 0:
                    m2 = mm
                    break
            if m2 < 0:
                ptm[m, :] = save_m
                ptc[m, :] = save_c
                continue
            nmv = _row(mv, nmv, me, MV_SWAP, m, c, -1)
            stands = apply_add(ptm, ptc, m2, j, pl)
            nmv = _row(mv, nmv, me, MV_ADD, m2, j, stands)
            n = remove_at(ph, n, i)
            changed = True
            break
    return nmv, n, nm


@njit(cache=True)
def plan_turn(hand, n, must, view, sv, ps):
    """The melding and the discard of a turn under Q2-Q5, planned on copies (``ps``: hand,
    table, moves) from the player's observation only (I3): his hand after the draw, the card he
    must meld (``must``, T4, or -1), and his :class:`~simcards.romi.kernel_state.View`: the
    table, whether he has opened, whether O2 lets him open now, his opening threshold ``x``
    (Q2: open_min, Q4: X) and ``hold`` (Q3 before an opponent is down to K cards: open only to
    go out).

    Opening (O1): greedy and threshold open when some card c can be kept aside with
    best_value (V1) of the other cards >= x; the c kept is the one leaving the lowest
    min_penalty, ties by the higher penalty, then card order; the opening is the V4 lay-down
    of the hand without c. Holding (Q3): it opens only when some c leaves the rest fully laid
    (min_penalty 0) by a min_penalty lay-down worth x or more, c tried by decreasing penalty,
    then card order; it then discards c and goes out. After opening the turn goes on as
    :func:`_meld_more`; the discard is Q2's (:func:`discard_index`).

    Returns (moves, opened after, hand count, melds, went out)."""
    nmv, opened, n, nm = _plan_melds(hand, n, must, view, sv, ps)
    nmv, n = _plan_discard(n, must, opened, nm, nmv, view, sv, ps)
    return nmv, opened, n, nm, n == 0


@njit(cache=True)
def _plan_melds(hand, n, must, view, sv, ps):
    """:func:`plan_turn` up to its discard. Returns (moves, opened after, hand count,
    melds)."""
    ph, ptm, ptc, cnt = ps.ph, ps.ptm, ps.ptc, ps.cnt
    tm, tc, nm, me, x, ace_low = view.tm, view.tc, view.nm, view.me, view.x, view.ace_low
    opened = view.opened
    for i in range(n):
        ph[i] = hand[i]
    for m in range(nm):
        for j in range(TM_SIZE):
            ptm[m, j] = tm[m, j]
        for j in range(TC_SIZE):
            ptc[m, j] = tc[m, j]
    nmv = np.int64(0)
    if not opened and view.may_open:
        jk = fill_counts(ph, n, cnt)
        bv0, _, go0 = solve_counts(cnt, jk, ace_low, sv)
        keep = np.int64(-1)
        nr = 0
        if view.hold:
            if go0 and bv0 >= x:
                for t in range(53):
                    k = PEN_ORDER[t]
                    if k == JOKER_KIND:
                        if jk == 0:
                            continue
                        jk -= 1
                    else:
                        if cnt[k] == 0:
                            continue
                        cnt[k] -= 1
                    if solve_counts(cnt, jk, ace_low, sv)[1] == 0:
                        nr = laydown(cnt, jk, ace_low, sv, np.bool_(True))
                        value = 0
                        for r in range(nr):
                            value += sv.rows[r, F_VALUE]
                        if value >= x:
                            keep = k
                    if k == JOKER_KIND:
                        jk += 1
                    else:
                        cnt[k] += 1
                    if keep >= 0:
                        break
        elif bv0 >= x:
            best_m = 1 << 30
            best_pen = -1
            best_ord = 99
            # The hand less each kind, in one shared search (sub_begin); a card in no meld of
            # the hand changes neither the value nor what is laid.
            key, cur = sub_begin(cnt, jk, sv)
            total = hand_penalty(cnt, jk)
            res0 = -1
            for k in range(53):
                if (jk if k == JOKER_KIND else cnt[k]) == 0:
                    continue
                res, res0 = sub_less(k, jk, key, cur, res0, ace_low, sv)
                bv = res & _VMASK
                mp = total - kind_pen(k) - ((res >> _VBITS) & _VMASK)
                if bv < x:
                    continue
                pk = kind_pen(k)
                o = kind_order(k)
                if mp < best_m or (mp == best_m and (pk > best_pen or (pk == best_pen
                                                                        and o < best_ord))):
                    best_m = mp
                    best_pen = pk
                    best_ord = o
                    keep = k
            if keep >= 0:
                if keep == JOKER_KIND:
                    nr = laydown(cnt, jk - 1, ace_low, sv, np.bool_(False))
                else:
                    cnt[keep] -= 1
                    nr = laydown(cnt, jk, ace_low, sv, np.bool_(False))
                    cnt[keep] += 1
        if keep >= 0:
            avoid = ph[discard_pick(ph, n, must, keep)]
            n, nmv, nm = _lay_rows(np.int64(MV_OPEN), nr, n, must, avoid, nm, me, nmv, sv, ps)
            opened = True
    if opened:
        nmv, n, nm = _meld_more(n, must, nm, me, ace_low, sv, ps, nmv)
    return nmv, opened, n, nm


@njit(cache=True)
def _plan_discard(n, must, opened, nm, nmv, view, sv, ps):
    """The discard that ends a turn planned by :func:`_plan_melds` (its hand count, opened
    flag, melds and moves): Q5's for the expert, which weighs it on the table and the opening as
    they are after melding, Q2's for the others. Returns (moves, hand count)."""
    ph = ps.ph
    if n == 1:
        i = 0
    elif ps.xs[X_ON] == 1:
        after = View(view.me, opened, view.may_open, view.first_draw, view.x, view.hold,
                     view.top, view.cut, view.ace_low, ps.ptm, ps.ptc, nm)
        i = expert_discard(ph, n, must, after, sv, ps)
    else:
        i = discard_index(ph, n, must, view.ace_low, sv, ps.cnt)
    nmv = _row(ps.mv, nmv, view.me, MV_DISCARD, -1, ph[i], -1)
    return nmv, remove_at(ph, n, i)


@njit(cache=True)
def _placeable(hand, n, tm, nm, cnt, jk, c):
    """A necessary condition for the card c of the hand to be melded this turn: a joker, in a
    meld of the hand, or of the suit of a table run or the rank of a table set."""
    if c >= JOKER0:
        return True
    k = c % 52
    if _useful(cnt, jk, k):
        return True
    for m in range(nm):
        if tm[m, TM_RUN]:
            if tm[m, TM_SUIT] == k // 13:
                return True
        elif tm[m, TM_RANK] == k % 13 + 1:
            return True
    return False


@njit(cache=True, inline="always")
def _keep_plan(kept, out):
    """Keep the answer of the plan a draw was chosen by; its moves stay in the scratch."""
    kept[0] = out[0]
    kept[1] = 1 if out[1] else 0
    kept[2] = out[2]
    kept[3] = out[3]
    kept[4] = 1 if out[4] else 0
    kept[5] = 1


@njit(cache=True, inline="always")
def kept_plan(kept):
    """The answer of the plan :func:`_keep_plan` kept, as :func:`plan_turn` returns it."""
    return kept[0], kept[1] == 1, kept[2], kept[3], kept[4] == 1


@njit(cache=True)
def choose_draw(hand, n, view, sv, ps):
    """Q2's draw (T2-T5) from the observation: the cut card when the turn planned with it goes
    out (T5); the top discard at a first draw when it raises best_value (T3), at a later draw
    when the turn planned with it melds it (T4); else the stock. Returns ``MV_DRAW_*``.

    When the cut card or the discard is chosen, the turn planned with it is exactly the turn
    the player then plays (same hand, same card to meld, same table), so its plan is left in
    the scratch and marked in ``ps.kept`` for :func:`play_turn` to play without planning it
    again. Neither test needs the plan's discard (a plan goes out only with one card left to
    throw; the top discard is melded exactly when the melding leaves it out of the hand, and
    then it is not the card thrown), so a plan's discard is planned only once it is kept."""
    opened, may_open, top, cut, tm = view.opened, view.may_open, view.top, view.cut, view.tm
    nm, ace_low = view.nm, view.ace_low
    h2, cnt, kept = ps.h2, ps.cnt2, ps.kept
    kept[5] = 0
    for i in range(n):
        h2[i] = hand[i]
    if cut >= 0 and (opened or may_open):
        h2[n] = cut
        jk = fill_counts(h2, n + 1, cnt)
        left = 0
        for i in range(n + 1):
            if not _placeable(h2, n + 1, tm, nm, cnt, jk, h2[i]):
                left += 1
        if left <= 1:
            # Only a plan left with one card before its discard goes out: no other needs one.
            nmv, op, nh, nm2 = _plan_melds(h2, n + 1, np.int64(-1), view, sv, ps)
            if nh == 1:
                nmv, nh = _plan_discard(nh, np.int64(-1), op, nm2, nmv, view, sv, ps)
                _keep_plan(kept, (nmv, op, nh, nm2, nh == 0))
                return MV_DRAW_CUT
    if top >= 0:
        h2[n] = top
        jk = fill_counts(h2, n + 1, cnt)
        if view.first_draw:
            b1 = solve_counts(cnt, jk, ace_low, sv)[0]
            jk0 = fill_counts(hand, n, cnt)
            b0 = solve_counts(cnt, jk0, ace_low, sv)[0]
            if b1 > b0:
                return MV_DRAW_DISCARD
        elif (opened or may_open) and _placeable(h2, n + 1, tm, nm, cnt, jk, top):
            # The card is placed when the melding leaves it out of the hand (then it is not
            # the discard either); only then is the plan's discard needed.
            nmv, op, nh, nm2 = _plan_melds(h2, n + 1, top, view, sv, ps)
            placed = True
            ph = ps.ph
            for i in range(nh):
                if ph[i] == top:
                    placed = False
            if placed:
                xs = ps.xs
                xs[X_PILE + kind_of(top)] -= 1
                nmv, nh = _plan_discard(nh, top, op, nm2, nmv, view, sv, ps)
                xs[X_PILE + kind_of(top)] += 1
                _keep_plan(kept, (nmv, op, nh, nm2, nh == 0))
                return MV_DRAW_DISCARD
    return MV_DRAW_STOCK
