"""numba kernel that builds the decision table of the ``bayes`` policy (rule S4) exactly.

For one round of ``k`` positions whose other players follow declared deterministic policies
(threshold or informed), the kernel finds, for every position ``h`` and every information
state the player there can be in, the exact expected lives he loses if he keeps and if he
passes (the dealer: keeps or cuts).

The computation is a dynamic programme over deals, exact in floating point. Only strengths
matter (C2), so a card is a *class* (a distinct strength, in increasing order) and a deal is
drawn class by class without replacement. Three facts keep it small:

* the probability of a partial deal depends only on the multiset ``U`` of classes drawn so far,
  so deals that reach the same ``(U, current card, swap seen, history)`` before a position acts
  are merged (the *prefix* states, one table per position);
* swaps only move cards between positions, so the final cards of positions ``0 .. h-1`` are
  exactly ``U`` less the card position ``h`` holds: the lowest of them is known from the state;
* what happens after position ``h`` has acted depends on the past only through ``U``, the card
  handed on and the swap seen, so it is computed once per such *suffix* state, as the
  probability (for every possible final card ``f`` of the player who acted) that every later
  final card is at least ``f`` and no cut top card made the dealer the sole loser (R7).

A player with final card ``f`` loses (R8) when every earlier final card is at least ``f``
(strictly above it under ``ties=first``) and every later one at least ``f``; he loses two lives
when ``f`` is the Poroli card (R10). The dealer's loss is computed directly from his cut card.

Multisets are stored as base-5 numbers (at most 4 cards share a strength), and states are
merged with numba typed dictionaries keyed by one packed 64-bit integer.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from simcards.ronco.codes import CUT_KING_LOSES, CUT_KING_NONE, TIES_FIRST
from simcards.ronco.kernel import field_keeps

_I64 = types.int64


@njit(cache=True, inline="always")
def _count(u, pow5, j):
    return (u // pow5[j]) % 5


@njit(cache=True)
def _lowest_other(u, pow5, n_cls, c):
    """The lowest class in the multiset ``u`` once one card of class ``c`` is taken out
    (``n_cls`` when nothing is left)."""
    for j in range(n_cls):
        m = _count(u, pow5, j)
        if j == c:
            m -= 1
        if m > 0:
            return j
    return n_cls


@njit(cache=True, inline="always")
def _qkey(u, carry, d, n_cls):
    return (u * n_cls + carry) * (n_cls + 1) + (d + 1)


@njit(cache=True, inline="always")
def _pkey(u, carry, d, hist, n_cls):
    return _qkey(u, carry, d, n_cls) * 3 ** 19 + hist


@njit(cache=True)
def _field_decides(pos, carry, d, k, kind, t, td, cls_strength, ties, cut_king, below, counts):
    """Whether the field player at ``pos`` keeps (the dealer: does not cut)."""
    dealer = pos == k - 1
    sw = d >= 0
    ds = cls_strength[d] if sw else -1
    return field_keeps(kind[pos], t[pos], td[pos], cls_strength[carry], pos, dealer, sw, ds,
                       ties, cut_king, below, counts)


@njit(cache=True)
def _dealer_q(u, carry, d, k, n_cls, cls_count, pow5, n_cards, kind, t, td, cls_strength,
              top_cls, ties, cut_king, below, counts, out):
    """Suffix probabilities when only the (field) dealer is left to act, written to ``out``:
    ``out[f]`` = P(the dealer's final card is at least class f and R7 did not fire)."""
    for f in range(n_cls):
        out[f] = 0.0
    if _field_decides(k - 1, carry, d, k, kind, t, td, cls_strength, ties, cut_king, below,
                      counts):
        for f in range(carry + 1):
            out[f] = 1.0
        return
    left = n_cards - k
    for z in range(n_cls):
        r = cls_count[z] - _count(u, pow5, z)
        if r == 0:
            continue
        w = r / left
        fin = z
        if z == top_cls and cut_king != CUT_KING_NONE:
            if cut_king == CUT_KING_LOSES:
                continue  # R7: the dealer is the sole loser; nobody else loses
            fin = carry  # R7 blocked: the top card is not taken
        for f in range(fin + 1):
            out[f] += w


@njit(cache=True)
def build_table(k, kind, t, td, cls_strength, cls_count, n_cards, top_cls, ties, cut_king,
                below, counts, is_hero):
    """Exact keep/pass losses for every information state of every position ``h`` with
    ``is_hero[h]``.

    ``kind``/``t``/``td`` hold the declared policy of every position (the hero's own row is
    ignored at his position). Returns parallel arrays, one row per information state:
    ``(pos, hist, card, dealt, weight, loss_keep, loss_pass)`` where ``hist`` is the public
    history of positions ``0 .. pos-1`` in base 3 (0 keep, 1 swap, 2 refused; position 0 the
    most significant digit), ``card`` and ``dealt`` are class indices (``dealt`` -1 unless the
    previous position swapped with him), ``weight`` the probability of the state, and the
    losses are expected lives lost times ``weight``.
    """
    n_cls = cls_strength.shape[0]
    pow5 = np.empty(n_cls, np.int64)
    pw = 1
    for j in range(n_cls):
        pow5[j] = pw
        pw *= 5
    mult = np.ones(n_cls, np.float64)
    for j in range(n_cls):
        if cls_strength[j] == 0:
            mult[j] = 2.0  # R10: the Poroli card costs two lives
    first = ties == TIES_FIRST

    # ---- prefix states, level by level: before position m acts ----
    # Level arrays: u, carry, d, hist, weight.
    lv_u = []
    lv_c = []
    lv_d = []
    lv_h = []
    lv_w = []
    u0 = np.empty(n_cls, np.int64)
    c0 = np.empty(n_cls, np.int64)
    d0 = np.full(n_cls, -1, np.int64)
    h0 = np.zeros(n_cls, np.int64)
    w0 = np.empty(n_cls, np.float64)
    for j in range(n_cls):
        u0[j] = pow5[j]
        c0[j] = j
        w0[j] = cls_count[j] / n_cards
    lv_u.append(u0)
    lv_c.append(c0)
    lv_d.append(d0)
    lv_h.append(h0)
    lv_w.append(w0)
    # The dealer's level is never stored: it is reached from level k-2 on the fly.
    for m in range(k - 2):
        pu = lv_u[m]
        pc = lv_c[m]
        pd = lv_d[m]
        ph = lv_h[m]
        pwt = lv_w[m]
        index = Dict.empty(_I64, _I64)
        cap = pu.shape[0] * 4 + 16
        nu = np.empty(cap, np.int64)
        nc = np.empty(cap, np.int64)
        nd = np.empty(cap, np.int64)
        nh = np.empty(cap, np.int64)
        nw = np.empty(cap, np.float64)
        size = 0
        left = n_cards - (m + 1)
        for s in range(pu.shape[0]):
            u = pu[s]
            carry = pc[s]
            keep = _field_decides(m, carry, pd[s], k, kind, t, td, cls_strength, ties,
                                  cut_king, below, counts)
            for j in range(n_cls):
                r = cls_count[j] - _count(u, pow5, j)
                if r == 0:
                    continue
                u2 = u + pow5[j]
                if keep:
                    c2, d2, h2 = j, -1, ph[s] * 3
                elif j == top_cls:
                    c2, d2, h2 = j, -1, ph[s] * 3 + 2
                else:
                    c2, d2, h2 = carry, j, ph[s] * 3 + 1
                key = _pkey(u2, c2, d2, h2, n_cls)
                w = pwt[s] * r / left
                at = index[key] if key in index else -1  # noqa: SIM401 - get() types as optional
                if at >= 0:
                    nw[at] += w
                    continue
                if size == cap:
                    cap *= 2
                    nu = _grow_i(nu, cap)
                    nc = _grow_i(nc, cap)
                    nd = _grow_i(nd, cap)
                    nh = _grow_i(nh, cap)
                    nw = _grow_f(nw, cap)
                index[key] = size
                nu[size] = u2
                nc[size] = c2
                nd[size] = d2
                nh[size] = h2
                nw[size] = w
                size += 1
        lv_u.append(nu[:size].copy())
        lv_c.append(nc[:size].copy())
        lv_d.append(nd[:size].copy())
        lv_h.append(nh[:size].copy())
        lv_w.append(nw[:size].copy())

    # ---- suffix keys: every state after a hero's action, and what the field makes of it ----
    q_index = []
    q_u = []
    q_c = []
    q_d = []
    for _ in range(k):
        q_index.append(Dict.empty(_I64, _I64))
        q_u.append(np.empty(0, np.int64))
        q_c.append(np.empty(0, np.int64))
        q_d.append(np.empty(0, np.int64))
    # Seeds at level m+1 from hero states at level m (m <= k-3: level k-1 is the dealer's,
    # computed on the fly).
    for m in range(1, k - 1):
        # collect keys for level m: from the hero at m-1, and the field at m-1 (from level
        # m-1 keys)
        idx = q_index[m]
        bu = []
        bc = []
        bd = []
        h = m - 1
        left = n_cards - m
        if is_hero[h]:
            pu = lv_u[h]
            pc = lv_c[h]
            for s in range(pu.shape[0]):
                u = pu[s]
                carry = pc[s]
                for j in range(n_cls):
                    r = cls_count[j] - _count(u, pow5, j)
                    if r == 0:
                        continue
                    u2 = u + pow5[j]
                    # keep, or a refused pass: the next position holds j, nothing seen
                    key = _qkey(u2, j, -1, n_cls)
                    if key not in idx:
                        idx[key] = len(bu)
                        bu.append(u2)
                        bc.append(j)
                        bd.append(-1)
                    if j != top_cls:  # a pass: the next position holds our card, saw j
                        key = _qkey(u2, carry, j, n_cls)
                        if key not in idx:
                            idx[key] = len(bu)
                            bu.append(u2)
                            bc.append(carry)
                            bd.append(j)
        if m >= 2:
            fu = q_u[m - 1]
            fc = q_c[m - 1]
            fd = q_d[m - 1]
            for s in range(fu.shape[0]):
                u = fu[s]
                carry = fc[s]
                keep = _field_decides(m - 1, carry, fd[s], k, kind, t, td, cls_strength, ties,
                                      cut_king, below, counts)
                for j in range(n_cls):
                    r = cls_count[j] - _count(u, pow5, j)
                    if r == 0:
                        continue
                    u2 = u + pow5[j]
                    if keep or j == top_cls:
                        c2, d2 = j, -1
                    else:
                        c2, d2 = carry, j
                    key = _qkey(u2, c2, d2, n_cls)
                    if key not in idx:
                        idx[key] = len(bu)
                        bu.append(u2)
                        bc.append(c2)
                        bd.append(d2)
        q_u[m] = np.array(bu, dtype=np.int64) if len(bu) else np.empty(0, np.int64)
        q_c[m] = np.array(bc, dtype=np.int64) if len(bc) else np.empty(0, np.int64)
        q_d[m] = np.array(bd, dtype=np.int64) if len(bd) else np.empty(0, np.int64)

    # ---- suffix values, backwards: q_val[m][s, f] ----
    q_val = []
    for _ in range(k):
        q_val.append(np.zeros((0, n_cls), np.float64))
    scratch = np.empty(n_cls, np.float64)
    for m in range(k - 2, 0, -1):
        su = q_u[m]
        sc = q_c[m]
        sd = q_d[m]
        vals = np.zeros((su.shape[0], n_cls), np.float64)
        left = n_cards - (m + 1)
        for s in range(su.shape[0]):
            u = su[s]
            carry = sc[s]
            keep = _field_decides(m, carry, sd[s], k, kind, t, td, cls_strength, ties,
                                  cut_king, below, counts)
            for j in range(n_cls):
                r = cls_count[j] - _count(u, pow5, j)
                if r == 0:
                    continue
                w = r / left
                u2 = u + pow5[j]
                if keep or j == top_cls:
                    fin, c2, d2 = carry, j, -1
                else:
                    fin, c2, d2 = j, carry, j
                if m + 1 == k - 1:
                    _dealer_q(u2, c2, d2, k, n_cls, cls_count, pow5, n_cards, kind, t, td,
                              cls_strength, top_cls, ties, cut_king, below, counts, scratch)
                    for f in range(fin + 1):
                        vals[s, f] += w * scratch[f]
                else:
                    row = q_index[m + 1][_qkey(u2, c2, d2, n_cls)]
                    child = q_val[m + 1]
                    for f in range(fin + 1):
                        vals[s, f] += w * child[row, f]
        q_val[m] = vals

    # ---- the heroes' information states ----
    o_pos = []
    o_hist = []
    o_card = []
    o_dealt = []
    o_w = []
    o_keep = []
    o_pass = []
    for h in range(k - 1):
        if not is_hero[h]:
            continue
        info = Dict.empty(_I64, _I64)
        pu = lv_u[h]
        pc = lv_c[h]
        pd = lv_d[h]
        ph = lv_h[h]
        pwt = lv_w[h]
        left = n_cards - (h + 1)
        for s in range(pu.shape[0]):
            u = pu[s]
            c = pc[s]
            lo = _lowest_other(u, pow5, n_cls, c)
            lk = 0.0
            lp = 0.0
            for j in range(n_cls):
                r = cls_count[j] - _count(u, pow5, j)
                if r == 0:
                    continue
                w = r / left
                u2 = u + pow5[j]
                # keep: final c; the next position holds j, saw nothing
                if lo > c or (lo == c and not first):
                    if h + 1 == k - 1:
                        _dealer_q(u2, j, -1, k, n_cls, cls_count, pow5, n_cards, kind, t, td,
                                  cls_strength, top_cls, ties, cut_king, below, counts, scratch)
                        lk += w * scratch[c] * mult[c]
                    else:
                        lk += w * q_val[h + 1][q_index[h + 1][_qkey(u2, j, -1, n_cls)], c] \
                            * mult[c]
                # pass: refused when j is the top card (R4), else a swap
                if j == top_cls:
                    f, c2, d2 = c, j, -1
                else:
                    f, c2, d2 = j, c, j
                if lo > f or (lo == f and not first):
                    if h + 1 == k - 1:
                        _dealer_q(u2, c2, d2, k, n_cls, cls_count, pow5, n_cards, kind, t, td,
                                  cls_strength, top_cls, ties, cut_king, below, counts, scratch)
                        lp += w * scratch[f] * mult[f]
                    else:
                        lp += w * q_val[h + 1][q_index[h + 1][_qkey(u2, c2, d2, n_cls)], f] \
                            * mult[f]
            key = (ph[s] * n_cls + c) * (n_cls + 1) + pd[s] + 1
            at = info[key] if key in info else -1  # noqa: SIM401 - get() types as optional
            if at < 0:
                info[key] = len(o_pos)
                o_pos.append(h)
                o_hist.append(ph[s])
                o_card.append(c)
                o_dealt.append(pd[s])
                o_w.append(pwt[s])
                o_keep.append(pwt[s] * lk)
                o_pass.append(pwt[s] * lp)
            else:
                o_w[at] += pwt[s]
                o_keep[at] += pwt[s] * lk
                o_pass[at] += pwt[s] * lp
    if is_hero[k - 1]:
        _dealer_hero(k, lv_u[k - 2], lv_c[k - 2], lv_d[k - 2], lv_h[k - 2], lv_w[k - 2], n_cls,
                     cls_count, pow5, n_cards, kind, t, td, cls_strength, top_cls, ties,
                     cut_king, below, counts, mult, o_pos, o_hist, o_card, o_dealt, o_w,
                     o_keep, o_pass)
    return (np.array(o_pos, dtype=np.int64), np.array(o_hist, dtype=np.int64),
            np.array(o_card, dtype=np.int64), np.array(o_dealt, dtype=np.int64),
            np.array(o_w, dtype=np.float64), np.array(o_keep, dtype=np.float64),
            np.array(o_pass, dtype=np.float64))


@njit(cache=True)
def _dealer_hero(k, pu, pc, pd, ph, pwt, n_cls, cls_count, pow5, n_cards, kind, t, td,
                 cls_strength, top_cls, ties, cut_king, below, counts, mult, o_pos, o_hist,
                 o_card, o_dealt, o_w, o_keep, o_pass):
    """The dealer's information states, reached from the states before position k-2 acts:
    his loss if he keeps and if he cuts, from the final cards of everybody else (the dealt
    cards less his own) and the cut card."""
    first = ties == TIES_FIRST
    info = Dict.empty(_I64, _I64)
    m = k - 2
    left = n_cards - (m + 1)
    left_cut = n_cards - k
    for s in range(pu.shape[0]):
        u = pu[s]
        carry = pc[s]
        keep = _field_decides(m, carry, pd[s], k, kind, t, td, cls_strength, ties, cut_king,
                              below, counts)
        for j in range(n_cls):
            r = cls_count[j] - _count(u, pow5, j)
            if r == 0:
                continue
            w = pwt[s] * r / left
            u2 = u + pow5[j]
            if keep:
                c, d, hist = j, -1, ph[s] * 3
            elif j == top_cls:
                c, d, hist = j, -1, ph[s] * 3 + 2
            else:
                c, d, hist = carry, j, ph[s] * 3 + 1
            lo = _lowest_other(u2, pow5, n_cls, c)
            # The dealer acts last, so under ties=first he loses only a strict lowest.
            lk = mult[c] if (lo > c or (lo == c and not first)) else 0.0
            lc = 0.0
            for z in range(n_cls):
                rz = cls_count[z] - _count(u2, pow5, z)
                if rz == 0:
                    continue
                wz = rz / left_cut
                fin = z
                if z == top_cls and cut_king != CUT_KING_NONE:
                    if cut_king == CUT_KING_LOSES:
                        lc += wz  # R7: the sole loser, one life
                        continue
                    fin = c  # R7 blocked: he keeps his card
                if lo > fin or (lo == fin and not first):
                    lc += wz * mult[fin]
            key = (hist * n_cls + c) * (n_cls + 1) + d + 1
            at = info[key] if key in info else -1  # noqa: SIM401 - get() types as optional
            if at < 0:
                info[key] = len(o_pos)
                o_pos.append(k - 1)
                o_hist.append(hist)
                o_card.append(c)
                o_dealt.append(d)
                o_w.append(w)
                o_keep.append(w * lk)
                o_pass.append(w * lc)
            else:
                o_w[at] += w
                o_keep[at] += w * lk
                o_pass[at] += w * lc


@njit(cache=True)
def _grow_i(a, cap):
    out = np.empty(cap, np.int64)
    out[:a.shape[0]] = a
    return out


@njit(cache=True)
def _grow_f(a, cap):
    out = np.empty(cap, np.float64)
    out[:a.shape[0]] = a
    return out
