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

The helpers called once per state (:func:`_field_decides`, :func:`_dealer_q`,
:func:`_lowest_other`, :func:`_field_child` and the hash look-ups) allocate nothing and are
compiled with ``_nrt=False``: with reference counting on, every array taken out of the named
tuples they receive (the field's policies, the classes, the rules) is counted up and down with
atomic instructions at every call, which made the tables of 8 players 1.7 times slower.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

from simcards.ronco.codes import CUT_KING_LOSES, CUT_KING_NONE, TIES_FIRST
from simcards.ronco.kernel_state import Decision
from simcards.ronco.round_kernel import field_keeps

_I64 = types.int64


@njit(cache=True, inline="always")
def _count(u, pow5, j):
    return (u // pow5[j]) % 5


@njit(cache=True, _nrt=False)
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
def _unqkey(q, n_cls):
    """``(u, carry, d)`` of the key ``q = _qkey(u, carry, d)``: the inverse of :func:`_qkey`."""
    d = q % (n_cls + 1) - 1
    q //= n_cls + 1
    return q // n_cls, q % n_cls, d


@njit(cache=True, inline="always")
def _unpack(key, span, n_cls):
    """A level's packed state ``_qkey(u, carry, d) * span + hist`` read back as ``(hist, u,
    carry, d)``: :func:`_unqkey`, with the decision history below ``span``."""
    u, carry, d = _unqkey(key // span, n_cls)
    return key % span, u, carry, d


@njit(cache=True, _nrt=False)
def _field_decides(pos, carry, d, k, field, cls, rules):
    """Whether the field player at ``pos`` keeps (the dealer: does not cut)."""
    dealer = pos == k - 1
    sw = d >= 0
    ds = cls.strength[d] if sw else -1
    return field_keeps(field, pos, Decision(cls.strength[carry], pos, dealer, sw, ds,
                                            np.int64(0)), rules)


@njit(cache=True, inline="always")
def _cut_final(z, card, top_cls, cut_king):
    """R7: the class the dealer ends the round with when he holds ``card`` and cuts a card of
    class ``z``; -1 when the cut card makes him the sole loser (``cut_king`` loses)."""
    if z == top_cls and cut_king != CUT_KING_NONE:
        if cut_king == CUT_KING_LOSES:
            return -1
        return card  # blocked: the top card is not taken, he keeps his own
    return z


@njit(cache=True, _nrt=False)
def _dealer_q(u, carry, d, k, field, cls, rules, out):
    """Suffix probabilities when only the (field) dealer is left to act, written to ``out``:
    ``out[f]`` = P(the dealer's final card is at least class f and R7 did not fire)."""
    n_cls = cls.strength.shape[0]
    cls_count, pow5, n_cards, top_cls = cls.count, cls.pow5, cls.n_cards, cls.top
    cut_king = rules.cut_king
    for f in range(n_cls):
        out[f] = 0.0
    if _field_decides(k - 1, carry, d, k, field, cls, rules):
        for f in range(carry + 1):
            out[f] = 1.0
        return
    left = n_cards - k
    for z in range(n_cls):
        r = cls_count[z] - _count(u, pow5, z)
        if r == 0:
            continue
        w = r / left
        fin = _cut_final(z, carry, top_cls, cut_king)
        if fin < 0:
            continue  # R7: the dealer is the sole loser; nobody else loses
        for f in range(fin + 1):
            out[f] += w


@njit(cache=True, _nrt=False)
def _slot(hkeys, key):
    """Open addressing: the slot of ``key`` in ``hkeys`` (a power-of-two array, -1 for free),
    or the free slot where it belongs."""
    mask = hkeys.shape[0] - 1
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    i = np.int64(h >> np.uint64(33)) & mask
    while True:
        kk = hkeys[i]
        if kk == key or kk == -1:
            return i
        i = (i + 1) & mask


@njit(cache=True)
def _rehash(dense, count, cap):
    """A hash of the first ``count`` keys of ``dense`` (key -> position) with ``cap`` slots."""
    hkeys = np.full(cap, -1, np.int64)
    hpos = np.empty(cap, np.int64)
    for p in range(count):
        i = _slot(hkeys, dense[p])
        hkeys[i] = dense[p]
        hpos[i] = p
    return hkeys, hpos


@njit(cache=True, _nrt=False)
def _find(hkeys, hpos, key):
    i = _slot(hkeys, key)
    return hpos[i] if hkeys[i] == key else -1


@njit(cache=True)
def _capacity(n):
    cap = 1024
    while cap < 2 * n:
        cap *= 2
    return cap


@njit(cache=True, _nrt=False)
def _field_child(keep, carry, j, top_cls):
    """After a field player holding ``carry`` acted and the next position was dealt ``j``:
    ``(next carry, dealt seen by the next position or -1, history digit)``."""
    if keep:
        return j, -1, 0
    if j == top_cls:
        return j, -1, 2  # R4: refused
    return carry, j, 1


@njit(cache=True)
def _prefix_levels(k, last, field, cls, rules):
    """The prefix states before positions 0 .. ``last`` act: per level, packed keys
    (``_qkey(u, carry, d) * 3**m + hist``) and probabilities."""
    n_cls = cls.strength.shape[0]
    cls_count, pow5, n_cards, top_cls = cls.count, cls.pow5, cls.n_cards, cls.top
    keys_by = []
    w_by = []
    k0 = np.empty(n_cls, np.int64)
    w0 = np.empty(n_cls, np.float64)
    for j in range(n_cls):
        k0[j] = _qkey(pow5[j], j, -1, n_cls)
        w0[j] = cls_count[j] / n_cards
    keys_by.append(k0)
    w_by.append(w0)
    span = 1
    for m in range(last):
        pk = keys_by[m]
        pw = w_by[m]
        cap = _capacity(pk.shape[0] * 4)
        hk = np.full(cap, -1, np.int64)
        hp = np.empty(cap, np.int64)
        nk = np.empty(pk.shape[0] * 4 + 16, np.int64)
        nw = np.empty(pk.shape[0] * 4 + 16, np.float64)
        size = 0
        left = n_cards - (m + 1)
        for s in range(pk.shape[0]):
            hist, u, carry, d = _unpack(pk[s], span, n_cls)
            keep = _field_decides(m, carry, d, k, field, cls, rules)
            for j in range(n_cls):
                r = cls_count[j] - _count(u, pow5, j)
                if r == 0:
                    continue
                c2, d2, digit = _field_child(keep, carry, j, top_cls)
                key = _qkey(u + pow5[j], c2, d2, n_cls) * (span * 3) + hist * 3 + digit
                w = pw[s] * r / left
                i = _slot(hk, key)
                if hk[i] == key:
                    nw[hp[i]] += w
                    continue
                if size == nk.shape[0]:
                    nk = _grow_i(nk, 2 * size)
                    nw = _grow_f(nw, 2 * size)
                nk[size] = key
                nw[size] = w
                hk[i] = key
                hp[i] = size
                size += 1
                if 2 * size > cap:
                    cap *= 2
                    hk, hp = _rehash(nk, size, cap)
        keys_by.append(nk[:size].copy())
        w_by.append(nw[:size].copy())
        span *= 3
    return keys_by, w_by


@njit(cache=True)
def _add_key(dense, count, hk, hp, key):
    """Insert ``key`` if new; returns the (possibly grown) arrays and the new count."""
    i = _slot(hk, key)
    if hk[i] == key:
        return dense, count, hk, hp
    if count == dense.shape[0]:
        dense = _grow_i(dense, 2 * count + 16)
    dense[count] = key
    hk[i] = key
    hp[i] = count
    count += 1
    if 2 * count > hk.shape[0]:
        hk, hp = _rehash(dense, count, 2 * hk.shape[0])
    return dense, count, hk, hp


@njit(cache=True, nogil=True)
def build_table(k, field, cls, rules, is_hero):
    """Exact keep/pass losses for every information state of every position ``h`` with
    ``is_hero[h]``.

    ``field`` holds the declared policy of every position (the hero's own row is ignored at his
    position); ``cls`` is the deck as strength classes
    (:class:`~simcards.ronco.kernel_state.Classes`). Returns parallel arrays, one row per
    information state:
    ``(pos, hist, card, dealt, weight, loss_keep, loss_pass)`` where ``hist`` is the public
    history of positions ``0 .. pos-1`` in base 3 (0 keep, 1 swap, 2 refused; position 0 the
    most significant digit), ``card`` and ``dealt`` are class indices (``dealt`` -1 unless the
    previous position swapped with him), ``weight`` the probability of the state, and the
    losses are expected lives lost times ``weight``.
    """
    cls_strength, cls_count, n_cards, top_cls, pow5, mult = cls
    n_cls = cls_strength.shape[0]
    first = rules.ties == TIES_FIRST
    last = 0
    for h in range(k):
        if is_hero[h]:
            last = h
    # Prefix states up to the last hero's level (the dealer's level is reached from k-2).
    lv_k, lv_w = _prefix_levels(k, min(last, k - 2), field, cls, rules)

    # ---- suffix keys: every state after a hero's action, and what the field makes of it ----
    q_keys = [np.empty(0, np.int64)]
    q_hk = [np.full(1, -1, np.int64)]
    q_hp = [np.empty(1, np.int64)]
    # Level k-1 is the dealer's, computed on the fly.
    for m in range(1, k - 1):
        dense = np.empty(1024, np.int64)
        count = 0
        hk = np.full(2048, -1, np.int64)
        hp = np.empty(2048, np.int64)
        h = m - 1
        if is_hero[h]:
            pk = lv_k[h]
            span = 3 ** h
            for s in range(pk.shape[0]):
                _hist, u, carry, _d = _unpack(pk[s], span, n_cls)
                for j in range(n_cls):
                    if cls_count[j] - _count(u, pow5, j) == 0:
                        continue
                    u2 = u + pow5[j]
                    # keep, or a refused pass: the next position holds j, nothing seen
                    dense, count, hk, hp = _add_key(dense, count, hk, hp,
                                                    _qkey(u2, j, -1, n_cls))
                    if j != top_cls:  # a pass: the next position holds our card, saw j
                        dense, count, hk, hp = _add_key(dense, count, hk, hp,
                                                        _qkey(u2, carry, j, n_cls))
        if m >= 2:
            fk = q_keys[m - 1]
            for s in range(fk.shape[0]):
                u, carry, d = _unqkey(fk[s], n_cls)
                keep = _field_decides(m - 1, carry, d, k, field, cls, rules)
                for j in range(n_cls):
                    if cls_count[j] - _count(u, pow5, j) == 0:
                        continue
                    c2, d2, _digit = _field_child(keep, carry, j, top_cls)
                    dense, count, hk, hp = _add_key(dense, count, hk, hp,
                                                    _qkey(u + pow5[j], c2, d2, n_cls))
        q_keys.append(dense[:count].copy())
        q_hk.append(hk)
        q_hp.append(hp)

    # ---- suffix values, backwards: q_val[m][s, f] ----
    q_val = []
    for _ in range(k):
        q_val.append(np.zeros((0, n_cls), np.float64))
    scratch = np.empty(n_cls, np.float64)
    for m in range(k - 2, 0, -1):
        sk = q_keys[m]
        vals = np.zeros((sk.shape[0], n_cls), np.float64)
        left = n_cards - (m + 1)
        for s in range(sk.shape[0]):
            u, carry, d = _unqkey(sk[s], n_cls)
            keep = _field_decides(m, carry, d, k, field, cls, rules)
            for j in range(n_cls):
                r = cls_count[j] - _count(u, pow5, j)
                if r == 0:
                    continue
                w = r / left
                u2 = u + pow5[j]
                c2, d2, _digit = _field_child(keep, carry, j, top_cls)
                fin = j if d2 >= 0 else carry
                if m + 1 == k - 1:
                    _dealer_q(u2, c2, d2, k, field, cls, rules, scratch)
                    for f in range(fin + 1):
                        vals[s, f] += w * scratch[f]
                else:
                    row = _find(q_hk[m + 1], q_hp[m + 1], _qkey(u2, c2, d2, n_cls))
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
        pk = lv_k[h]
        pwt = lv_w[h]
        span = 3 ** h
        left = n_cards - (h + 1)
        for s in range(pk.shape[0]):
            hist, u, c, dealt = _unpack(pk[s], span, n_cls)
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
                        _dealer_q(u2, j, np.int64(-1), k, field, cls, rules, scratch)
                        lk += w * scratch[c] * mult[c]
                    else:
                        row = _find(q_hk[h + 1], q_hp[h + 1], _qkey(u2, j, -1, n_cls))
                        lk += w * q_val[h + 1][row, c] * mult[c]
                # pass: refused when j is the top card (R4), else a swap
                if j == top_cls:
                    f, c2, d2 = c, j, -1
                else:
                    f, c2, d2 = j, c, j
                if lo > f or (lo == f and not first):
                    if h + 1 == k - 1:
                        _dealer_q(u2, c2, d2, k, field, cls, rules, scratch)
                        lp += w * scratch[f] * mult[f]
                    else:
                        row = _find(q_hk[h + 1], q_hp[h + 1], _qkey(u2, c2, d2, n_cls))
                        lp += w * q_val[h + 1][row, f] * mult[f]
            key = (hist * n_cls + c) * (n_cls + 1) + dealt + 1
            at = info[key] if key in info else -1  # noqa: SIM401 - get() types as optional
            if at < 0:
                info[key] = len(o_pos)
                o_pos.append(h)
                o_hist.append(hist)
                o_card.append(c)
                o_dealt.append(dealt)
                o_w.append(pwt[s])
                o_keep.append(pwt[s] * lk)
                o_pass.append(pwt[s] * lp)
            else:
                o_w[at] += pwt[s]
                o_keep[at] += pwt[s] * lk
                o_pass[at] += pwt[s] * lp
    if is_hero[k - 1]:
        m = k - 2
        _dealer_hero(k, lv_k[m], lv_w[m], 3 ** m, field, cls, rules,
                     (o_pos, o_hist, o_card, o_dealt, o_w, o_keep, o_pass))
    return (np.array(o_pos, dtype=np.int64), np.array(o_hist, dtype=np.int64),
            np.array(o_card, dtype=np.int64), np.array(o_dealt, dtype=np.int64),
            np.array(o_w, dtype=np.float64), np.array(o_keep, dtype=np.float64),
            np.array(o_pass, dtype=np.float64))


@njit(cache=True)
def _dealer_hero(k, pk, pwt, span, field, cls, rules, out):
    """The dealer's information states, reached from the states before position k-2 acts:
    his loss if he keeps and if he cuts, from the final cards of everybody else (the dealt
    cards less his own) and the cut card; appended to the lists ``out`` (positions,
    histories, cards, dealt cards, weights, losses keeping, losses cutting)."""
    o_pos, o_hist, o_card, o_dealt, o_w, o_keep, o_pass = out
    cls_strength, cls_count, n_cards, top_cls, pow5, mult = cls
    n_cls = cls_strength.shape[0]
    cut_king = rules.cut_king
    first = rules.ties == TIES_FIRST
    info = Dict.empty(_I64, _I64)
    m = k - 2
    left = n_cards - (m + 1)
    left_cut = n_cards - k
    for s in range(pk.shape[0]):
        hist0, u, carry, d0 = _unpack(pk[s], span, n_cls)
        keep = _field_decides(m, carry, d0, k, field, cls, rules)
        for j in range(n_cls):
            r = cls_count[j] - _count(u, pow5, j)
            if r == 0:
                continue
            w = pwt[s] * r / left
            u2 = u + pow5[j]
            c, d, digit = _field_child(keep, carry, j, top_cls)
            hist = hist0 * 3 + digit
            lo = _lowest_other(u2, pow5, n_cls, c)
            # The dealer acts last, so under ties=first he loses only a strict lowest.
            lk = mult[c] if (lo > c or (lo == c and not first)) else 0.0
            lc = 0.0
            for z in range(n_cls):
                rz = cls_count[z] - _count(u2, pow5, z)
                if rz == 0:
                    continue
                wz = rz / left_cut
                fin = _cut_final(z, c, top_cls, cut_king)
                if fin < 0:
                    lc += wz  # R7: the sole loser, one life
                    continue
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
