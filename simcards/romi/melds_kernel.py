"""The exact meld solver in numba (V1-V4 of ``seeds/romi.md``) and the card arithmetic the
round's kernels share.

How the solver searches. The hand is a multiset: copies of each of the 52 kinds (``cards.kind``)
and a number of jokers. Cards in no meld of the whole hand are taken out first (they are left in
every lay-down). The search then looks at the *pivot*, the first kind still held in the order
suit-major, As first within a suit: either every copy of the pivot is left, or one copy goes
into a meld that contains it. Every card of a lower kind has already been decided, so those
melds are few: sets of the pivot's rank with higher suits (and a joker), runs of its suit that
start at the pivot (or at a joker just below it), and, for an As, runs that end at it above the
King. Every lay-down is reached this way (a copy left is left with all later copies; two copies
in two melds come one after the other), so the search is exhaustive. Its result for the cards
still held does not depend on how they were reached, so it is memoised on the remaining
multiset, encoded as a mixed-radix number (at most 2**16 states for 16 cards) in a table that a
stamp per hand invalidates without clearing. One search gives all three numbers: the greatest
value, the greatest penalty laid down, and which of "0 cards left" and "1 card left" can be
reached. Jokers: one per meld (M4), anywhere a real card could be, even where the hand holds
that card (the real card may be wanted elsewhere); an end joker is tried at both ends, so it
stands where it is worth most.

The round asks its questions through a :class:`~simcards.romi.kernel_state.Solver`
(:func:`new_solver`): one search workspace reused for every hand (a stamp per question instead
of a new table), answers kept per exact hand (:func:`solve_counts`), and the hands one card
short of a hand searched under one stamp (:func:`sub_begin`, :func:`sub_less`). The questions
on a hand given as text or card ids (``best_value``, ``melds``, ...) are
:mod:`simcards.romi.melds_exact`'s.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.romi.cards import JOKER0, JOKER_KIND
from simcards.romi.kernel_state import MeldWork, Solver

MAX_HAND = 16
"""The largest hand the solver takes (15 dealt to the starter plus a draw)."""
TABLE = 1 << MAX_HAND
"""Memo entries: the mixed-radix key of a sub-multiset of 16 cards is below 2**16."""
MAX_DEPTH = MAX_HAND + 4
MAX_OPTIONS = 512
"""Candidate melds of one pivot: sets (at most 16) and runs (at most 2 * 13 * 14)."""
ROW = 20
"""One candidate meld: [n_real, joker, joker_kind, value, penalty_laid, is_run, lowest place,
real kinds (up to 13)...]."""
F_NREAL, F_JOKER, F_JKIND, F_VALUE, F_PEN, F_RUN, F_LO, F_KINDS = 0, 1, 2, 3, 4, 5, 6, 7
JOKER_PENALTY = 20
"""M7."""

_VBITS = 12
_VMASK = (1 << _VBITS) - 1
CACHE = 1 << 14
"""Entries of the solver's answer cache (:func:`solve_counts`)."""


def _pen_order() -> np.ndarray:
    """Kinds 0 .. 52 by decreasing penalty (M7), then card order (Q1)."""
    def pen(k: int) -> int:
        if k == JOKER_KIND:
            return 20
        r = k % 13 + 1
        return 10 if r == 1 or r > 10 else r

    def order(k: int) -> int:
        return 52 if k == JOKER_KIND else (k % 13) * 4 + k // 13

    return np.array(sorted(range(53), key=lambda k: (-pen(k), order(k))), np.int64)


PEN_ORDER = _pen_order()


# ---------------------------------------------------------------- cards


@njit(cache=True, inline="always")
def kind_of(c):
    return JOKER_KIND if c >= JOKER0 else c % 52


@njit(cache=True, inline="always")
def kind_pen(k):
    """M7: numbers face value, figures and As 10, a joker 20."""
    if k == JOKER_KIND:
        return 20
    r = k % 13 + 1
    if r == 1 or r > 10:
        return 10
    return r


@njit(cache=True, inline="always")
def kind_order(k):
    """Q1's card order: rank As .. K, then suit s h d c; jokers last."""
    if k == JOKER_KIND:
        return 52
    return (k % 13) * 4 + k // 13


@njit(cache=True, inline="always")
def pos_kind(s, p):
    """The kind at place p (1 .. 14) of a run of suit s."""
    return s * 13 + (p - 1) % 13


@njit(cache=True, inline="always")
def popcount4(mask):
    return (mask & 1) + (mask >> 1 & 1) + (mask >> 2 & 1) + (mask >> 3 & 1)


@njit(cache=True)
def fill_counts(hand, n, counts):
    """The hand's kind counts into ``counts`` (int64[52]); returns its jokers."""
    for k in range(52):
        counts[k] = 0
    jk = 0
    for i in range(n):
        c = hand[i]
        if c >= JOKER0:
            jk += 1
        else:
            counts[c % 52] += 1
    return jk


@njit(cache=True)
def find_kind(hand, n, k, must, avoid):
    """Index of a card of kind k in the hand: ``must`` if it is of that kind, never ``avoid``;
    otherwise the first in hand order. -1 when none."""
    idx = -1
    for i in range(n):
        c = hand[i]
        if c == avoid or kind_of(c) != k:
            continue
        if c == must:
            return i
        if idx < 0:
            idx = i
    return idx


@njit(cache=True, inline="always")
def remove_at(hand, n, i):
    """Remove hand[i], keeping the order of the rest; returns the new count."""
    for j in range(i, n - 1):
        hand[j] = hand[j + 1]
    hand[n - 1] = -1
    return n - 1


@njit(cache=True, inline="always")
def discard_pick(hand, n, must, best_k):
    """The copy of kind ``best_k`` to throw: not ``must`` when another is held (T4)."""
    i = find_kind(hand, n, best_k, np.int64(-1), must)
    if i < 0:
        i = find_kind(hand, n, best_k, np.int64(-1), np.int64(-1))
    return i


# ---------------------------------------------------------------- the exact search


@njit(cache=True, inline="always")
def _rank_value(r: int) -> int:
    """M6/M7 for a rank outside a low run: numbers face value, figures and As 10."""
    if r == 1 or r > 10:
        return 10
    return r


@njit(cache=True, inline="always")
def _pos_value(p: int, ace_low: int) -> int:
    """M6 for place p of a run (1 = As below the 2, 2 .. 13, 14 = As above the King)."""
    if p == 1:
        return ace_low
    if p > 10:
        return 10
    return p


@njit(cache=True, inline="always")
def _pack(v: int, p: int, bits: int) -> int:
    return v | (p << _VBITS) | (bits << (2 * _VBITS))


@njit(cache=True)
def _emit_run(buf, depth, n, s, lo, hi, jpos, ace_low):
    """Write the run of suit s over places lo .. hi (joker at jpos, 0 for none) as option n."""
    row = buf[depth, n]
    nreal = 0
    value = 0
    pen = 0
    for p in range(lo, hi + 1):
        value += _pos_value(p, ace_low)
        if p == jpos:
            continue
        k = pos_kind(s, p)
        row[F_KINDS + nreal] = k
        nreal += 1
        pen += _rank_value(k % 13 + 1)
    row[F_NREAL] = nreal
    row[F_JOKER] = 1 if jpos > 0 else 0
    row[F_JKIND] = pos_kind(s, jpos) if jpos > 0 else -1
    row[F_VALUE] = value
    row[F_PEN] = pen + (JOKER_PENALTY if jpos > 0 else 0)
    row[F_RUN] = 1
    row[F_LO] = lo
    return n + 1


@njit(cache=True)
def _options(counts, jk, k, ace_low, buf, depth):
    """Every meld containing one copy of the pivot kind k, given that no card of a kind below
    k is held: writes them to ``buf[depth]`` and returns how many (M1-M4)."""
    r = k % 13 + 1
    s = k // 13
    n = np.int64(0)
    # Sets (M1): the pivot with any higher suits of its rank, and at most one joker (M4).
    rv = _rank_value(r)
    for used in range(16):
        if not (used >> s & 1):
            continue
        size = 0
        ok = True
        for s2 in range(4):
            if used >> s2 & 1:
                if counts[s2 * 13 + r - 1] == 0:
                    ok = False
                    break
                size += 1
        if not ok:
            continue
        for joker in range(2):
            if joker == 1 and jk == 0:
                continue
            if size + joker < 3 or size + joker > 4:
                continue
            row = buf[depth, n]
            t = 0
            jkind = -1
            for s2 in range(4):
                if used >> s2 & 1:
                    row[F_KINDS + t] = s2 * 13 + r - 1
                    t += 1
                elif jkind < 0 and joker == 1:
                    jkind = s2 * 13 + r - 1
            row[F_NREAL] = size
            row[F_JOKER] = joker
            row[F_JKIND] = jkind
            row[F_VALUE] = rv * (size + joker)
            row[F_PEN] = rv * size + JOKER_PENALTY * joker
            row[F_RUN] = 0
            row[F_LO] = 0
            n += 1
    # Runs (M2) whose lowest place is the pivot (an As as place 1 below the 2).
    p0 = 1 if r == 1 else r
    top = min(14, p0 + 12)
    # no joker
    b = p0 + 1
    while b <= top and counts[pos_kind(s, b)] > 0:
        if b - p0 >= 2:
            n = _emit_run(buf, depth, n, s, p0, b, np.int64(0), ace_low)
        b += 1
    if jk > 0:
        # joker at place q above the pivot; places p0+1 .. q-1 and q+1 .. b held
        q = p0 + 1
        while q <= top:
            if q - p0 >= 2:
                n = _emit_run(buf, depth, n, s, p0, q, q, ace_low)
            b = q + 1
            while b <= top and counts[pos_kind(s, b)] > 0:
                if b - p0 >= 2:
                    n = _emit_run(buf, depth, n, s, p0, b, q, ace_low)
                b += 1
            if counts[pos_kind(s, q)] == 0:
                break
            q += 1
        # joker just below the pivot (for an As below a 2 too)
        if r >= 2:
            lo = r - 1
            top2 = min(14, lo + 12)
            b = r + 1
            while b <= top2 and counts[pos_kind(s, b)] > 0:
                n = _emit_run(buf, depth, n, s, lo, b, lo, ace_low)
                b += 1
    # Runs that end with the pivot As above the King (place 14), reaching down at most to 2.
    if r == 1:
        a = np.int64(13)
        while a >= 2 and counts[pos_kind(s, a)] > 0:
            if 14 - a >= 2:
                n = _emit_run(buf, depth, n, s, a, np.int64(14), np.int64(0), ace_low)
            a -= 1
        if jk > 0:
            q = np.int64(13)
            while q >= 2:
                if 14 - q >= 2:
                    n = _emit_run(buf, depth, n, s, q, np.int64(14), q, ace_low)
                a = q - 1
                while a >= 2 and counts[pos_kind(s, a)] > 0:
                    if 14 - a >= 2:
                        n = _emit_run(buf, depth, n, s, a, np.int64(14), q, ace_low)
                    a -= 1
                if counts[pos_kind(s, q)] == 0:
                    break
                q -= 1
    return n


# Frame of one state of the search (``_search``): pivot kind, memo key, jokers held, copies of
# the pivot, option being tried (-1: every copy left), options, best value, most penalty laid,
# leftover bits.
FR_K, FR_KEY, FR_JK, FR_C, FR_I, FR_N, FR_V, FR_P, FR_BITS = 0, 1, 2, 3, 4, 5, 6, 7, 8
N_FRAME = 9


@njit(cache=True)
def _search(counts, jk, start, key, base, ace_low, mw, cur):
    """Packed (best value, most penalty laid, reachable leftover counts in {0, 1} as bits) over
    every lay-down of the cards still held (kinds >= start, and jk jokers).

    A depth-first search with an explicit stack of frames (``mw.fr[base:]``, options in
    ``mw.buf[base:]``) rather than recursion, which numba cannot cache; answers are memoised
    under the stamp ``cur`` (:class:`~simcards.romi.kernel_state.MeldWork`). ``counts`` is
    restored on return."""
    w, stamp, memo, buf, fr = mw.w, mw.stamp, mw.memo, mw.buf, mw.fr
    d = base
    calling = True
    ret = 0
    c_start = start
    c_key = key
    c_jk = jk
    while True:
        if calling:
            k = c_start
            while k < 52 and counts[k] == 0:
                k += 1
            if k == 52:
                # Only jokers remain: a joker cannot meld without two real cards (M4).
                ret = _pack(0, 0, 1 if c_jk == 0 else (2 if c_jk == 1 else 0))
                calling = False
            elif stamp[c_key] == cur:
                ret = memo[c_key]
                calling = False
            else:
                f = fr[d]
                c = counts[k]
                f[FR_K] = k
                f[FR_KEY] = c_key
                f[FR_JK] = c_jk
                f[FR_C] = c
                f[FR_I] = -1
                # first child: every copy of the pivot left
                counts[k] = 0
                c_start = k + 1
                c_key = c_key - c * w[k]
                d += 1
                continue
        # ret is the result of the state at depth d; hand it to its parent
        if d == base:
            return ret
        d -= 1
        f = fr[d]
        k = f[FR_K]
        i = f[FR_I]
        if i < 0:
            c = f[FR_C]
            counts[k] = c
            f[FR_V] = ret & _VMASK
            f[FR_P] = (ret >> _VBITS) & _VMASK
            f[FR_BITS] = ((ret >> (2 * _VBITS)) << c) & 3
            f[FR_N] = _options(counts, f[FR_JK], k, ace_low, buf, d)
        else:
            row = buf[d, i]
            for t in range(row[F_NREAL]):
                counts[row[F_KINDS + t]] += 1
            v = (ret & _VMASK) + row[F_VALUE]
            p = ((ret >> _VBITS) & _VMASK) + row[F_PEN]
            if v > f[FR_V]:
                f[FR_V] = v
            if p > f[FR_P]:
                f[FR_P] = p
            f[FR_BITS] |= ret >> (2 * _VBITS)
        i += 1
        f[FR_I] = i
        if i < f[FR_N]:
            row = buf[d, i]
            joker = row[F_JOKER]
            c_key = f[FR_KEY] - joker * w[52]
            for t in range(row[F_NREAL]):
                kk = row[F_KINDS + t]
                counts[kk] -= 1
                c_key -= w[kk]
            c_jk = f[FR_JK] - joker
            c_start = k
            d += 1
            calling = True
            continue
        ret = _pack(f[FR_V], f[FR_P], f[FR_BITS])
        stamp[f[FR_KEY]] = cur
        memo[f[FR_KEY]] = ret


@njit(cache=True)
def _useful(counts, jk, k):
    """Whether kind k is in at least one valid meld of the whole hand (M1-M4)."""
    r = k % 13 + 1
    s = k // 13
    suits = 0
    for s2 in range(4):
        if counts[s2 * 13 + r - 1] > 0:
            suits += 1
    if suits >= 3 or (jk > 0 and suits >= 2):
        return True
    need = 3 if jk == 0 else 2
    for p in (r, 14):
        if p == 14 and r != 1:
            break
        for a in range(p - 2, p + 1):
            if a < 1 or a + 2 > 14:
                continue
            held = 0
            for q in range(a, a + 3):
                if counts[pos_kind(s, q)] > 0:
                    held += 1
            if held >= need:
                return True
    return False


@njit(cache=True)
def _prepare(counts, jk, w):
    """Takes out the cards in no meld (they are left in every lay-down) and sets the mixed-radix
    weights w of the rest. Returns (cards taken out, first key)."""
    out_n = 0
    useless = 0  # a bit per kind: no allocation, this runs for every hand solved
    for k in range(52):
        if counts[k] > 0 and not _useful(counts, jk, k):
            useless |= 1 << k
    radix = 1
    key = 0
    for k in range(52):
        w[k] = 0
        c = counts[k]
        if c == 0:
            continue
        if useless >> k & 1:
            out_n += c
            counts[k] = 0
            continue
        w[k] = radix
        key += c * radix
        radix *= c + 1
    w[52] = radix
    key += jk * radix
    radix *= jk + 1
    if radix > TABLE:
        raise ValueError("hand too large for the meld solver")
    return out_n, key


@njit(cache=True)
def _solve_counts(counts, jk, ace_low, mw, cur):
    """(best_value, min_penalty, can_go_out as 0/1) of one hand; ``counts`` is changed (the
    cards in no meld are taken out). ``cur`` must differ from every stamp of earlier hands."""
    total = 0
    for k in range(52):
        total += counts[k] * _rank_value(k % 13 + 1)
    total += JOKER_PENALTY * jk
    out_n, key = _prepare(counts, jk, mw.w)
    res = _search(counts, jk, np.int64(0), key, np.int64(0), ace_low, mw, cur)
    bits = ((res >> (2 * _VBITS)) << out_n) & 3
    best_v = res & _VMASK
    laid = (res >> _VBITS) & _VMASK
    return best_v, total - laid, 1 if bits & 2 else 0


@njit(cache=True)
def _workspace():
    """Search arrays for one batch: only the stamps need clearing (nothing is read from the
    memo, the option rows or the frames before it is written)."""
    return MeldWork(np.zeros(53, np.int64), np.zeros(TABLE, np.int32), np.empty(TABLE, np.int64),
                    np.empty((MAX_DEPTH, MAX_OPTIONS, ROW), np.int64),
                    np.empty((MAX_DEPTH, N_FRAME), np.int64))


@njit(cache=True)
def solve_batch(hands: np.ndarray, ace_low: int) -> np.ndarray:
    """V1-V3 for many hands: ``hands`` is int[n, m] of card ids (0 .. 107, each hand a valid
    multiset of at most 16 cards; ids are not checked here), padded with -1. Returns
    int64[n, 3]: best_value, min_penalty, can_go_out (0/1)."""
    n = hands.shape[0]
    out = np.zeros((n, 3), np.int64)
    mw = _workspace()
    counts = np.zeros(52, np.int64)
    for h in range(n):
        counts[:] = 0
        jk = 0
        size = 0
        for j in range(hands.shape[1]):
            c = hands[h, j]
            if c < 0:
                continue
            size += 1
            if c >= 104:
                jk += 1
            else:
                counts[c % 52] += 1
        if size == 0:
            continue
        v, p, g = _solve_counts(counts, jk, ace_low, mw, h + 1)
        out[h, 0] = v
        out[h, 1] = p
        out[h, 2] = g
    return out


@njit(cache=True)
def lay_down(counts, jk, ace_low, mw, cur, rows, by_penalty):
    """One lay-down of the hand ``counts`` (consumed: the caller passes a copy) with ``jk``
    jokers reaching best_value (V4) or, with ``by_penalty``, min_penalty (V2): its melds as
    rows of ``_options`` into ``rows[:n]``; returns n. Melds are chosen pivot by pivot: the
    pivot's copies all left out when that still reaches the target, else the first option (sets,
    then runs, in the solver's order) that does. ``mw`` and ``cur`` are the search's workspace
    and its memo stamp (:func:`_search`). The meld solver's answers and the round engine's
    lay-downs both come from here."""
    w = mw.w
    buf = mw.buf
    _, key = _prepare(counts, jk, w)
    shift = _VBITS if by_penalty else 0
    one = np.int64(1)  # typed, not a literal: one compiled _search for every caller
    depth = np.int64(0)  # the lay-down's own options live in buf[0]; the searches use buf[1:]
    n_chosen = 0
    start = 0
    while True:
        k = start
        while k < 52 and counts[k] == 0:
            k += 1
        if k == 52:
            break
        target = (_search(counts, jk, k, key, one, ace_low, mw, cur) >> shift) & _VMASK
        c = counts[k]
        counts[k] = 0
        res = _search(counts, jk, k + 1, key - c * w[k], one, ace_low, mw, cur)
        if (res >> shift) & _VMASK == target:
            key -= c * w[k]
            start = k + 1
            continue
        counts[k] = c
        n = _options(counts, jk, k, ace_low, buf, depth)
        found = False
        for i in range(n):
            row = buf[depth, i]
            nreal = row[F_NREAL]
            joker = row[F_JOKER]
            key2 = key - joker * w[52]
            for t in range(nreal):
                counts[row[F_KINDS + t]] -= 1
                key2 -= w[row[F_KINDS + t]]
            res = _search(counts, jk - joker, k, key2, one, ace_low, mw, cur)
            gain = row[F_PEN] if by_penalty else row[F_VALUE]
            if ((res >> shift) & _VMASK) + gain == target:
                rows[n_chosen, :] = row
                n_chosen += 1
                key = key2
                jk -= joker
                start = k
                found = True
                break
            for t in range(nreal):
                counts[row[F_KINDS + t]] += 1
        if not found:
            raise ValueError("lay-down: no option reaches the solver's value")
    return n_chosen


@njit(cache=True)
def best_laydown(counts, jk, ace_low):
    """One lay-down reaching best_value (V4): rows as in ``_options`` (int64[melds, ROW])."""
    chosen = np.zeros((MAX_HAND, ROW), np.int64)
    n = lay_down(counts, jk, ace_low, _workspace(), np.int64(1), chosen, np.bool_(False))
    return chosen[:n].copy()


# ---------------------------------------------------------------- the round's solver


@njit(cache=True)
def new_solver():
    """The meld solver's search arrays, kept for a whole batch; ``info[0]`` the stamp of the
    last question (each question gets a new one, so the memo is never cleared), ``rows`` the
    melds of the last lay-down; then the answer cache of :func:`solve_counts` (keys, packed
    answers, and its hits and misses in ``stats``) and that of :func:`discard_index` (keys,
    kinds thrown)."""
    melds = _workspace()
    tmp = np.zeros(52, np.int64)
    info = np.zeros(2, np.int64)
    rows = np.zeros((16, ROW), np.int64)
    ckey = np.full((CACHE, 2), -1, np.int64)
    cval = np.zeros(CACHE, np.int64)
    stats = np.zeros(2, np.int64)
    dkey = np.full((CACHE, 2), -1, np.int64)
    dval = np.zeros(CACHE, np.int64)
    return Solver(melds, tmp, info, rows, ckey, cval, stats, dkey, dval)


@njit(cache=True, inline="always")
def _stamp(sv):
    info = sv.info
    info[0] += 1
    if info[0] >= 2_000_000_000:
        sv.melds.stamp[:] = 0
        info[0] = 1
    return info[0]


@njit(cache=True, inline="always")
def hand_key(counts, jk, ace_low):
    """The hand as two non-negative words: 2 bits per kind count (0 .. 2), kinds 0 .. 25 in
    the first, 26 .. 51 in the second with the jokers (3 bits) and ``ace_low`` (4 bits)."""
    a = 0
    b = 0
    for k in range(26):
        a |= counts[k] << (2 * k)
        b |= counts[k + 26] << (2 * k)
    b |= (jk << 52) | (ace_low << 55)
    return a, b


@njit(cache=True)
def solve_counts(counts, jk, ace_low, sv):
    """V1-V3 of a hand given as kind counts and jokers: (best_value, min_penalty, can_go_out
    as 0/1). ``counts`` is left unchanged.

    A policy asks about the same hands again and again (the hand before and after a discard
    choice, the same turn planned for the draw and then played), so answers are kept in a
    direct-mapped table keyed by the exact hand (:func:`hand_key`): an answer is a function of
    the hand alone, so reusing it changes nothing."""
    a, b = hand_key(counts, jk, ace_low)
    ckey, cval = sv.ckey, sv.cval
    h = (a * 0x9E3779B97F4A7C1) ^ (b * 0x7FEB352D8A7C3B5) ^ a
    h = (h ^ (h >> 31)) & (CACHE - 1)
    if ckey[h, 0] == a and ckey[h, 1] == b:
        sv.stats[0] += 1
        v = cval[h]
        return v & _VMASK, (v >> _VBITS) & _VMASK, v >> (2 * _VBITS)
    sv.stats[1] += 1
    tmp = sv.tmp
    for k in range(52):
        tmp[k] = counts[k]
    cur = _stamp(sv)
    bv, mp, go = _solve_counts(tmp, jk, ace_low, sv.melds, cur)
    ckey[h, 0] = a
    ckey[h, 1] = b
    cval[h] = bv | (mp << _VBITS) | (go << (2 * _VBITS))
    return bv, mp, go


@njit(cache=True, inline="always")
def hand_penalty(counts, jk):
    """M7: the penalty of the whole hand."""
    total = 20 * jk
    for k in range(52):
        total += counts[k] * kind_pen(k)
    return total


@njit(cache=True)
def sub_begin(counts, jk, sv):
    """Prepare the search for sub-hands of one hand (the hand less one card): the hand is
    copied to the solver's ``tmp`` with its cards in no meld taken out (they are in no meld of
    any sub-hand either) and weighted by its own counts, so every sub-hand is keyed in the same
    mixed radix and all its questions share one memo stamp (a state's answer depends only on
    the cards still held). Returns (key of the whole hand, stamp)."""
    tmp = sv.tmp
    for k in range(52):
        tmp[k] = counts[k]
    cur = _stamp(sv)
    _, key = _prepare(tmp, jk, sv.melds.w)
    return key, cur


@njit(cache=True, inline="always")
def sub_search(jk, key, cur, ace_low, sv):
    """The packed search answer (best value, penalty laid) for the cards in ``tmp`` and jk
    jokers under :func:`sub_begin`'s weights and stamp."""
    # Constants go to compiled callees typed (np.int64(0)), not as literals: numba compiles a
    # callee once more for each literal argument it is given, copies that are never needed.
    return _search(sv.tmp, jk, np.int64(0), key, np.int64(0), ace_low, sv.melds, cur)


@njit(cache=True, inline="always")
def sub_less(k, jk, key, cur, res0, ace_low, sv):
    """:func:`sub_search` for the hand of :func:`sub_begin` less one card of kind k (52 the
    joker). A kind that :func:`sub_begin` took out (in no meld) leaves the whole hand's answer,
    which ``res0`` keeps once searched (-1 before). Returns (answer, res0)."""
    if k == JOKER_KIND:
        return sub_search(jk - 1, key - sv.melds.w[52], cur, ace_low, sv), res0
    tmp = sv.tmp
    if tmp[k] == 0:
        if res0 < 0:
            res0 = sub_search(jk, key, cur, ace_low, sv)
        return res0, res0
    tmp[k] -= 1
    res = sub_search(jk, key - sv.melds.w[k], cur, ace_low, sv)
    tmp[k] += 1
    return res, res0


@njit(cache=True)
def laydown(counts, jk, ace_low, sv, by_penalty):
    """One lay-down of the hand reaching best_value (V4) or, with ``by_penalty``, min_penalty
    (V2): its melds as solver rows in ``sv.rows[:n]``; returns n
    (:func:`lay_down`, on the round's solver workspace)."""
    tmp = sv.tmp
    for k in range(52):
        tmp[k] = counts[k]
    return lay_down(tmp, jk, ace_low, sv.melds, _stamp(sv), sv.rows, by_penalty)
