"""Römi rounds in numba (D, T, O, J, G of ``seeds/romi.md``) and the policies of Q2-Q5.

The state of a round is a handful of int64 arrays, the *workspace* (:func:`new_workspace`):
the scalars ``st`` (slots ``S_*``), each player's hand as card ids (``hand[p, :hn[p]]``), the
opened, has-drawn and turns-played flags per player, the stock (``stock[pos:end]``, top first),
the discard pile (``pile[:pn]``, bottom first) and the table melds (``tm[m]``: owner, kind,
suit or rank, places, joker; ``tc[m]``: the real card at each place of a run, 1 .. 14, or of
each suit of a set, -1 where none). Card ids are those of :mod:`simcards.romi.cards`; the slots
and every other integer code shared with Python (``R_*``, ``S_*``, ``TM_*``, ``MV_*``, ``X_*``,
the policy kinds, scores and the turn limit) are declared in :mod:`simcards.romi.codes`.

A turn is planned by the seat's policy from its observation only (I3): its own hand, the table,
the top of the discard pile, the cut card, every player's card count and opened flag, and its
own first-draw and turn flags. The policy functions (:func:`choose_draw`, :func:`plan_turn`)
take exactly those arrays, never the workspace, and work on scratch copies; the engine then
copies the planned hand and table back and records the moves (rows ``MV_*``, decoded into the
:mod:`simcards.romi.actions` vocabulary by :mod:`simcards.romi.records`).

The meld questions are answered by the exact solver of :mod:`simcards.romi.melds_exact`, with one
search workspace reused for every hand (a stamp per question instead of a new table).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.rng import next_u64, randbelow, seed_state
from simcards.romi.cards import JOKER0, JOKER_KIND, N_CARDS
from simcards.romi.codes import (
    GO_OUT,
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
    MW,
    NEVER_OPENED,
    POLICY_EXPERT,
    POLICY_RUMMY,
    POLICY_THRESHOLD,
    ROMI,
    S_CUT,
    S_DEALER,
    S_END,
    S_NM,
    S_OUT,
    S_PN,
    S_POS,
    S_ROMI,
    S_SHUF,
    S_SIZE,
    S_STALLED,
    S_TURN,
    S_TURNS,
    STALL_TURNS,
    TC_SIZE,
    TM_HI,
    TM_JID,
    TM_JP,
    TM_LO,
    TM_MASK,
    TM_OWNER,
    TM_RANK,
    TM_RUN,
    TM_SIZE,
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
    X_ON,
    X_PILE,
    X_PRO,
    X_SEEN,
    X_SIZE,
    X_TS,
)
from simcards.romi.kernel_state import (
    MeldWork,
    RoundLog,
    RoundState,
    RoundWork,
    Scratch,
    Solver,
    View,
)
from simcards.romi.melds_exact import (
    _VBITS,
    _VMASK,
    F_JOKER,
    F_KINDS,
    F_LO,
    F_NREAL,
    F_RUN,
    F_VALUE,
    MAX_DEPTH,
    MAX_OPTIONS,
    N_FRAME,
    ROW,
    TABLE,
    _pos_value,
    _prepare,
    _search,
    _solve_counts,
    _useful,
    lay_down,
)

HW = 20
"""Width of a hand row (a hand holds at most 16 cards, D4 plus one draw)."""
MAX_MELDS = 40
"""More than the 36 melds 108 cards can make."""
CACHE = 1 << 14
"""Entries of the solver's answer cache (:func:`solve_counts`)."""
MAX_PLAN = 96
"""Moves of one turn: at most 16 cards placed, each a row, plus swaps and their joker adds."""


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


# ---------------------------------------------------------------- solver


@njit(cache=True)
def new_solver():
    """The meld solver's search arrays, kept for a whole batch; ``info[0]`` the stamp of the
    last question (each question gets a new one, so the memo is never cleared), ``rows`` the
    melds of the last lay-down; then the answer cache of :func:`solve_counts` (keys, packed
    answers, and its hits and misses in ``stats``) and that of :func:`discard_index` (keys,
    kinds thrown)."""
    melds = MeldWork(np.zeros(53, np.int64), np.zeros(TABLE, np.int32), np.empty(TABLE, np.int64),
                     np.empty((MAX_DEPTH, MAX_OPTIONS, ROW), np.int64),
                     np.empty((MAX_DEPTH, N_FRAME), np.int64))
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
    (:func:`simcards.romi.melds_exact.lay_down`, on the round's solver workspace)."""
    tmp = sv.tmp
    for k in range(52):
        tmp[k] = counts[k]
    return lay_down(tmp, jk, ace_low, sv.melds, _stamp(sv), sv.rows, by_penalty)


# ---------------------------------------------------------------- table melds


@njit(cache=True)
def lay_row(row, n, must, avoid, ps, m, owner):
    """Lay the solver meld ``row`` from the plan's hand ``ps.ph`` (its first ``n`` cards) as
    meld m of the plan's table (M5): its cards leave the hand (``must`` first where it fits,
    never ``avoid``). Returns the hand's new count."""
    hand = ps.ph
    tm = ps.ptm
    tc = ps.ptc
    nreal = row[F_NREAL]
    joker = row[F_JOKER]
    for j in range(TC_SIZE):
        tc[m, j] = -1
    tm[m, TM_OWNER] = owner
    tm[m, TM_JP] = 0
    tm[m, TM_JID] = -1
    tm[m, TM_MASK] = 0
    if row[F_RUN]:
        s = row[F_KINDS] // 13
        lo = row[F_LO]
        hi = lo + nreal + joker - 1
        tm[m, TM_RUN] = 1
        tm[m, TM_SUIT] = s
        tm[m, TM_RANK] = 0
        tm[m, TM_LO] = lo
        tm[m, TM_HI] = hi
        t = 0
        for p in range(lo, hi + 1):
            if t < nreal and row[F_KINDS + t] == pos_kind(s, p):
                i = find_kind(hand, n, row[F_KINDS + t], must, avoid)
                if i < 0:
                    raise ValueError("lay: card not in hand")
                tc[m, p] = hand[i]
                n = remove_at(hand, n, i)
                t += 1
            else:
                i = find_kind(hand, n, np.int64(JOKER_KIND), must, avoid)
                if i < 0:
                    raise ValueError("lay: joker not in hand")
                tm[m, TM_JP] = p
                tm[m, TM_JID] = hand[i]
                n = remove_at(hand, n, i)
    else:
        tm[m, TM_RUN] = 0
        tm[m, TM_SUIT] = 0
        tm[m, TM_RANK] = row[F_KINDS] % 13 + 1
        tm[m, TM_LO] = 0
        tm[m, TM_HI] = 0
        mask = 0
        for t in range(nreal):
            k = row[F_KINDS + t]
            i = find_kind(hand, n, k, must, avoid)
            if i < 0:
                raise ValueError("lay: card not in hand")
            tc[m, k // 13] = hand[i]
            mask |= 1 << (k // 13)
            n = remove_at(hand, n, i)
        tm[m, TM_MASK] = mask
        if joker:
            i = find_kind(hand, n, np.int64(JOKER_KIND), must, avoid)
            if i < 0:
                raise ValueError("lay: joker not in hand")
            tm[m, TM_JID] = hand[i]
            n = remove_at(hand, n, i)
    return n


@njit(cache=True)
def set_stands(tm, m):
    """A set's joker stands for the first suit, in suit order, missing among its real cards."""
    mask = tm[m, TM_MASK]
    for s in range(4):
        if not (mask >> s & 1):
            return s * 13 + tm[m, TM_RANK] - 1
    return -1


@njit(cache=True)
def meld_cards(tm, tc, m, out):
    """Table meld m in canonical form: its card ids into ``out`` (a run low to high with the
    joker at its place; a set by suit, the joker last). Returns (count, kind the joker stands
    for or -1)."""
    n = 0
    stands = -1
    if tm[m, TM_RUN]:
        for p in range(tm[m, TM_LO], tm[m, TM_HI] + 1):
            if p == tm[m, TM_JP]:
                out[n] = tm[m, TM_JID]
                stands = pos_kind(tm[m, TM_SUIT], p)
            else:
                out[n] = tc[m, p]
            n += 1
    else:
        for s in range(4):
            if tm[m, TM_MASK] >> s & 1:
                out[n] = tc[m, s]
                n += 1
        if tm[m, TM_JID] >= 0:
            out[n] = tm[m, TM_JID]
            n += 1
            stands = set_stands(tm, m)
    return n, stands


@njit(cache=True)
def add_place(tm, m, card):
    """Where ``card`` can be added to table meld m (T6, M1-M4): a run's place (a joker at the
    high end when it fits there, else the low end; an As that fits at both ends of the run
    2 .. K above the King, where it is worth most, M6), a set's suit (0 for a joker), -1 if it
    cannot."""
    run = tm[m, TM_RUN]
    if card >= JOKER0:
        if tm[m, TM_JID] >= 0:
            return -1
        if run:
            lo = tm[m, TM_LO]
            hi = tm[m, TM_HI]
            if hi - lo >= 12:
                return -1
            if hi < 14:
                return hi + 1
            if lo > 1:
                return lo - 1
            return -1
        if popcount4(tm[m, TM_MASK]) >= 4:
            return -1
        return 0
    k = card % 52
    r = k % 13 + 1
    s = k // 13
    if run:
        if s != tm[m, TM_SUIT]:
            return -1
        lo = tm[m, TM_LO]
        hi = tm[m, TM_HI]
        if hi - lo >= 12:
            return -1
        if r == 1:
            if hi == 13:
                return 14
            if lo == 2:
                return 1
            return -1
        if r == hi + 1 or r == lo - 1:
            return r
        return -1
    if r != tm[m, TM_RANK] or tm[m, TM_MASK] >> s & 1:
        return -1
    size = popcount4(tm[m, TM_MASK]) + (1 if tm[m, TM_JID] >= 0 else 0)
    if size >= 4:
        return -1
    return s


@njit(cache=True)
def apply_add(tm, tc, m, card, place):
    """Add ``card`` at ``place`` (from :func:`add_place`); returns the kind a joker stands for
    at a run's end (the ``Add`` record's ``stands_for``), else -1."""
    if tm[m, TM_RUN]:
        if place < tm[m, TM_LO]:
            tm[m, TM_LO] = place
        if place > tm[m, TM_HI]:
            tm[m, TM_HI] = place
        if card >= JOKER0:
            tm[m, TM_JP] = place
            tm[m, TM_JID] = card
            return pos_kind(tm[m, TM_SUIT], place)
        tc[m, place] = card
        return -1
    if card >= JOKER0:
        tm[m, TM_JID] = card
        return -1
    tc[m, place] = card
    tm[m, TM_MASK] |= 1 << place
    return -1


@njit(cache=True)
def swap_kind(tm, m):
    """J1, J2: the kind that takes the place of meld m's joker, -1 when it cannot be taken (no
    joker, or a set with fewer than three real suits)."""
    if tm[m, TM_JID] < 0:
        return -1
    if tm[m, TM_RUN]:
        return pos_kind(tm[m, TM_SUIT], tm[m, TM_JP])
    if popcount4(tm[m, TM_MASK]) != 3:
        return -1
    return set_stands(tm, m)


@njit(cache=True)
def apply_swap(tm, tc, m, card):
    """J1: ``card`` takes the joker's place in meld m; returns the freed joker's id."""
    j = tm[m, TM_JID]
    if tm[m, TM_RUN]:
        tc[m, tm[m, TM_JP]] = card
        tm[m, TM_JP] = 0
    else:
        s = (card % 52) // 13
        tc[m, s] = card
        tm[m, TM_MASK] |= 1 << s
    tm[m, TM_JID] = -1
    return j


# ---------------------------------------------------------------- policies (Q1-Q4)


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
        return _discard_pick(hand, n, must, cval[h])
    best_k = _discard_kind(cnt, jk, ace_low, sv)
    ckey[h, 0] = a
    ckey[h, 1] = b
    cval[h] = best_k
    return _discard_pick(hand, n, must, best_k)


@njit(cache=True, inline="always")
def _discard_pick(hand, n, must, best_k):
    """The copy of kind ``best_k`` to throw: not ``must`` when another is held (T4)."""
    i = find_kind(hand, n, best_k, np.int64(-1), must)
    if i < 0:
        i = find_kind(hand, n, best_k, np.int64(-1), np.int64(-1))
    return i


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


# ---------------------------------------------------------------- the expert (Q5)
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
        nt = 0
        ok = True
        for s2 in range(4):
            if used >> s2 & 1:
                k = s2 * 13 + rk - 1
                if cnt[k] == 0:
                    ok = False
                    break
                ts[nt] = k
                nt += 1
        if not ok:
            continue
        for j in range(min(jk, 1) + 1):
            if 3 <= 1 + nt + j <= 4:
                r = _xr_put(rows, r, rv * (1 + nt + j), rv * (1 + nt) + 20 * j, j, ts, nt)
    for pi in range(2 if rk == 1 else 1):
        p = 14 if pi == 1 else rk
        for size in range(3, 6):
            for lo in range(max(1, p - size + 1), min(p, 15 - size) + 1):
                hi = lo + size - 1
                value = 0
                miss = 0
                gaps = 0
                for q in range(lo, hi + 1):
                    value += _pos_value(q, ace_low)
                    if q != p and cnt[pos_kind(s, q)] == 0:
                        gaps += 1
                        miss = q
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
            nt = 0
            ok = True
            for s2 in range(4):
                if used >> s2 & 1:
                    k = s2 * 13 + rk - 1
                    if cnt[k] == 0:
                        ok = False
                        break
                    ts[nt] = k
                    nt += 1
            if ok and 2 <= nt <= 3:
                r = _xr_put(rows, r, rv * (nt + 1), rv * nt + 20, 0, ts, nt)
    for s in range(4):
        for size in range(3, 6):
            for lo in range(1, 16 - size):
                hi = lo + size - 1
                value = 0
                miss = 0
                gaps = 0
                for q in range(lo, hi + 1):
                    value += _pos_value(q, ace_low)
                    if cnt[pos_kind(s, q)] == 0:
                        gaps += 1
                        miss = q
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
    tm = view.tm
    tc = view.tc
    nm = view.nm
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
    xs = ps.xs
    cnt = ps.cnt
    rows = ps.xr
    order = ps.xo
    w = sv.melds.w
    opened = view.opened
    x = view.x
    ace_low = view.ace_low
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
    xs = ps.xs
    cnt = ps.cnt
    rows = ps.xr
    order = ps.xo
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
                return _discard_pick(hand, n, must, xs[X_CAND + i])
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
            return _discard_pick(hand, n, must, xs[X_CAND + b])
        # Its prospect, exactly: the dead d's are in already, the live ones are searched.
        xs[X_LIVE + b] = _expert_exact(b, nd, view, sv, ps)
        xs[X_EXACT + b] = 1


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
    ph = ps.ph
    ptm = ps.ptm
    ptc = ps.ptc
    mv = ps.mv
    cnt = ps.cnt
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
        rows = sv.rows
        for r in range(nr):
            n = lay_row(rows[r], n, must, avoid, ps, nm, me)
            nmv = _meld_row(mv, nmv, me, np.int64(MV_LAY), ptm, ptc, nm)
            nm += 1
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
    ph, ptm, ptc, mv, cnt = ps.ph, ps.ptm, ps.ptc, ps.mv, ps.cnt
    tm = view.tm
    tc = view.tc
    nm = view.nm
    me = view.me
    x = view.x
    ace_low = view.ace_low
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
            i = find_kind(ph, n, keep, np.int64(-1), must)
            if i < 0:
                i = find_kind(ph, n, keep, np.int64(-1), np.int64(-1))
            avoid = ph[i]
            rows = sv.rows
            for r in range(nr):
                n = lay_row(rows[r], n, must, avoid, ps, nm, me)
                nmv = _meld_row(mv, nmv, me, np.int64(MV_OPEN), ptm, ptc, nm)
                nm += 1
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
    opened = view.opened
    may_open = view.may_open
    top = view.top
    cut = view.cut
    tm = view.tm
    nm = view.nm
    ace_low = view.ace_low
    h2 = ps.h2
    cnt = ps.cnt2
    kept = ps.kept
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


# ---------------------------------------------------------------- the round


@njit(cache=True)
def new_workspace(n):
    """The arrays a round is played in (module docstring); reused round after round."""
    st = np.zeros(S_SIZE, np.int64)
    hand = np.full((n, HW), -1, np.int64)
    hn = np.zeros(n, np.int64)
    opened = np.zeros(n, np.int64)
    drawn = np.zeros(n, np.int64)
    played = np.zeros(n, np.int64)
    stock = np.zeros(N_CARDS, np.int64)
    pile = np.zeros(N_CARDS, np.int64)
    tm = np.zeros((MAX_MELDS, TM_SIZE), np.int64)
    tc = np.full((MAX_MELDS, TC_SIZE), -1, np.int64)
    return RoundState(st, hand, hn, opened, drawn, played, stock, pile, tm, tc)


@njit(cache=True)
def new_scratch():
    """A policy's scratch: plan hand, plan table, plan moves, kind counts, hand plus a card,
    kind counts, the answer of the plan the draw was chosen by (:func:`choose_draw`), the
    expert's view of the discard pile (``X_*``, Q5) and its meld list (``XR_*``)."""
    ph = np.full(HW, -1, np.int64)
    ptm = np.zeros((MAX_MELDS, TM_SIZE), np.int64)
    ptc = np.full((MAX_MELDS, TC_SIZE), -1, np.int64)
    mv = np.zeros((MAX_PLAN, MW), np.int64)
    cnt = np.zeros(52, np.int64)
    h2 = np.full(HW, -1, np.int64)
    cnt2 = np.zeros(52, np.int64)
    kept = np.zeros(6, np.int64)
    xs = np.zeros(X_SIZE, np.int64)
    xr = np.zeros((XR_ROWS, XR_W), np.int64)
    xo = np.zeros(XR_ROWS, np.int64)
    return Scratch(ph, ptm, ptc, mv, cnt, h2, cnt2, kept, xs, xr, xo)


@njit(cache=True)
def new_round_work(n, log_cap, shuf_cap, shuf_rounds):
    """A :class:`~simcards.romi.kernel_state.RoundWork` for ``n`` players whose record holds
    ``log_cap`` move rows and ``shuf_cap`` reshuffled cards in at most ``shuf_rounds``
    reshuffles (0, 0, 0: a Monte Carlo batch records nothing)."""
    log = RoundLog(np.zeros((log_cap, MW), np.int64), np.zeros(shuf_cap, np.int64),
                   np.zeros(shuf_rounds, np.int64), np.zeros(3, np.int64))
    return RoundWork(new_workspace(n), new_solver(), new_scratch(), np.zeros(4, np.uint64), log)


@njit(cache=True)
def shuffle_deck(rs, deck):
    """D3/D4: ``deck`` becomes a uniform permutation of 0 .. 107 (Fisher-Yates from the top:
    for j = 0 .. 106, swap deck[j] with deck[j + randbelow(108 - j)], starting from 0 .. 107)."""
    for j in range(N_CARDS):
        deck[j] = j
    for j in range(N_CARDS - 1):
        r = j + randbelow(rs, N_CARDS - j)
        x = deck[j]
        deck[j] = deck[r]
        deck[r] = x


@njit(cache=True)
def start_round(deck, dealer, rules, ws):
    """D3, D4: the deal from ``deck`` (top first): 15 cards to the starter (dealer + 1), then
    14 to each next player in play order, the stock the rest but the last card, which is the
    cut card."""
    st, hand, hn, opened, drawn, played, stock = ws[:7]
    n = rules.players
    for j in range(S_SIZE):
        st[j] = 0
    st[S_DEALER] = dealer
    starter = (dealer + 1) % n
    st[S_TURN] = starter
    pos = 0
    for i in range(n):
        p = (starter + i) % n
        size = 15 if i == 0 else 14
        for j in range(HW):
            hand[p, j] = -1
        for j in range(size):
            hand[p, j] = deck[pos + j]
        hn[p] = size
        pos += size
        opened[p] = 0
        drawn[p] = 0
        played[p] = 0
    m = N_CARDS - 1 - pos
    for j in range(m):
        stock[j] = deck[pos + j]
    st[S_POS] = 0
    st[S_END] = m
    st[S_CUT] = deck[N_CARDS - 1]
    st[S_PN] = 0
    st[S_NM] = 0
    st[S_OUT] = -1


@njit(cache=True)
def reshuffle(ws, rs, log):
    """T8: the discard pile but its top card becomes the stock, shuffled by Fisher-Yates over
    the pile read bottom first (for j = 0 .. m-2, swap j with j + randbelow(m - j)); the new
    stock's top is the first card after the shuffle. Records the order in ``log.shuf`` (flat)
    and its length in ``log.shuf_len`` when they have room (``log.info``: cards and reshuffles
    written). Returns False when the pile held one card or none (the round stops)."""
    shuf = log.shuf
    shuf_len = log.shuf_len
    info = log.info
    st, stock, pile = ws.st, ws.stock, ws.pile
    pn = st[S_PN]
    if pn <= 1:
        return False
    m = pn - 1
    for j in range(m):
        stock[j] = pile[j]
    pile[0] = pile[pn - 1]
    st[S_PN] = 1
    for j in range(m - 1):
        r = j + randbelow(rs, m - j)
        x = stock[j]
        stock[j] = stock[r]
        stock[r] = x
    st[S_POS] = 0
    st[S_END] = m
    st[S_SHUF] += 1
    if info[1] < shuf_len.shape[0] and info[0] + m <= shuf.shape[0]:
        for j in range(m):
            shuf[info[0] + j] = stock[j]
        shuf_len[info[1]] = m
        info[0] += m
        info[1] += 1
    return True


@njit(cache=True)
def prepare_seat(rules, kind, param, ws, ps, p):
    """Seat ``p``'s opening threshold ``x`` (Q2: open_min, Q4: X) and ``hold`` (Q3) for its
    turn under the policy ``(kind, param)``, and the expert's view of the discard pile in
    ``ps.xs`` (Q5; ``X_ON`` 0 for the other kinds). Returns (x, hold)."""
    st, hn, pile = ws.st, ws.hn, ws.pile
    n = rules.players
    x = rules.open_min
    if kind == POLICY_THRESHOLD:
        x = param
    hold = False
    if kind == POLICY_RUMMY:
        hold = True
        for q in range(n):
            if q != p and hn[q] <= param:
                hold = False
    xs = ps.xs
    xs[X_ON] = 1 if kind == POLICY_EXPERT else 0
    if xs[X_ON] == 1:
        xs[X_NEXT_OPEN] = ws.opened[(p + 1) % n]
        for k in range(53):
            xs[X_PILE + k] = 0
        for i in range(st[S_PN]):
            xs[X_PILE + kind_of(pile[i])] += 1
    return x, hold


@njit(cache=True)
def turn_view(rules, ws, p, x, hold):
    """Seat ``p``'s :class:`~simcards.romi.kernel_state.View` at the start of its turn (I3),
    with its threshold ``x`` and ``hold`` (:func:`prepare_seat`). D4: the starter's first turn,
    his discard, neither opens nor draws."""
    st = ws.st
    top = ws.pile[st[S_PN] - 1] if st[S_PN] > 0 else -1
    if st[S_TURNS] == 0:
        return View(p, np.bool_(False), np.bool_(False), np.bool_(False), x, np.bool_(False),
                    top, st[S_CUT], rules.ace_low, ws.tm, ws.tc, st[S_NM])
    return View(p, ws.opened[p] == 1, ws.played[p] >= 1, ws.drawn[p] == 0, x, hold, top,
                st[S_CUT], rules.ace_low, ws.tm, ws.tc, st[S_NM])


@njit(cache=True)
def take_draw(ws, work, p, choice):
    """T2-T5: the card of the draw ``choice`` (``MV_DRAW_*``) into seat ``p``'s hand, the stock
    made again from the pile when it is empty (T8, from ``work.rs``). Returns (False when the
    round stops there, the card he must meld this turn (T4) or -1)."""
    st, hand, hn, drawn, stock, pile = ws.st, ws.hand, ws.hn, ws.drawn, ws.stock, ws.pile
    must = np.int64(-1)
    if choice == MV_DRAW_STOCK:
        if st[S_POS] == st[S_END] and not reshuffle(ws, work.rs, work.log):
            return False, must
        c = stock[st[S_POS]]
        st[S_POS] += 1
    elif choice == MV_DRAW_DISCARD:
        c = pile[st[S_PN] - 1]
        st[S_PN] -= 1
        work.ps.xs[X_PILE + kind_of(c)] -= 1
        if drawn[p]:
            must = c
    else:
        c = st[S_CUT]
        st[S_CUT] = -1
    hand[p, hn[p]] = c
    hn[p] += 1
    drawn[p] = 1
    return True, must


@njit(cache=True)
def commit_turn(rules, ws, p, nm, res, ps, log, info, li):
    """Play seat ``p``'s planned melding and discard (``res``, :func:`plan_turn`'s answer,
    its hand, table and moves in ``ps``) on the round: its moves recorded in ``log`` from row
    ``li`` while it has room (``info[2]`` set past them), the hand and the table copied back,
    the discard laid on the pile. ``nm``: the melds on the table before the turn. Returns
    True when he went out (G1, with the -20 of G3 noted)."""
    st, hand, hn, opened, played, pile, tm, tc = (ws.st, ws.hand, ws.hn, ws.opened, ws.played,
                                                   ws.pile, ws.tm, ws.tc)
    cap = log.shape[0]
    nmv, op, nh, nm2, out = res
    ph, ptm, ptc, mv = ps.ph, ps.ptm, ps.ptc, ps.mv
    romi = out and opened[p] == 0
    for i in range(nmv):
        code = mv[i, MV_CODE]
        # G3: a card added to a meld laid by another player (one already on the table) cancels
        # the -20; a swap does too unless the rules read G3 as "his own new melds" only.
        if (code == MV_SWAP and rules.swap_romi == 0) or (
                code == MV_ADD and mv[i, MV_TARGET] < nm
                and tm[mv[i, MV_TARGET], TM_OWNER] != p):
            romi = False
        if li < cap:
            log[li, :] = mv[i]
        li += 1
    info[2] = li
    for j in range(HW):
        hand[p, j] = ph[j] if j < nh else -1
    hn[p] = nh
    for m in range(nm2):
        for j in range(TM_SIZE):
            tm[m, j] = ptm[m, j]
        for j in range(TC_SIZE):
            tc[m, j] = ptc[m, j]
    st[S_NM] = nm2
    opened[p] = 1 if op else 0
    pile[st[S_PN]] = mv[nmv - 1, MV_CARD]
    st[S_PN] += 1
    played[p] += 1
    if out:
        st[S_OUT] = p
        st[S_ROMI] = 1 if romi else 0
    return out


@njit(cache=True)
def play_turn(rules, seats, work):
    """One turn of the player to move (T1-T7), recorded in ``work.log`` from row
    ``log.info[2]`` when it has room. Returns 0 to go on, 1 when he went out (G1), 2 when the
    round stops (T8)."""
    ws = work.ws
    sv = work.sv
    ps = work.ps
    st, hand, hn = ws.st, ws.hand, ws.hn
    log = work.log.moves
    info = work.log.info
    p = st[S_TURN]
    x, hold = prepare_seat(rules, seats.kinds[p], seats.params[p], ws, ps, p)
    nm = st[S_NM]
    li = info[2]
    view = turn_view(rules, ws, p, x, hold)
    if st[S_TURNS] == 0:
        res = plan_turn(hand[p], hn[p], np.int64(-1), view, sv, ps)
    else:
        choice = choose_draw(hand[p], hn[p], view, sv, ps)
        ok, must = take_draw(ws, work, p, choice)
        if not ok:
            return 2
        if li < log.shape[0]:
            _row(log, li, p, choice, -1, -1, -1)
        li += 1
        kept = ps.kept
        if choice != MV_DRAW_STOCK and kept[5] == 1:
            res = (kept[0], kept[1] == 1, kept[2], kept[3], kept[4] == 1)
        else:
            res = plan_turn(hand[p], hn[p], must, view, sv, ps)
    if commit_turn(rules, ws, p, nm, res, ps, log, info, li):
        return 1
    return 0


@njit(cache=True)
def score_round(rules, ws, scores):
    """G2-G5: -10 or -20 for the player out, 100 for a player never opened, else the penalty
    (M7) of the cards in hand."""
    st, hand, hn, opened = ws.st, ws.hand, ws.hn, ws.opened
    for p in range(rules.players):
        if p == st[S_OUT]:
            scores[p] = ROMI if st[S_ROMI] else GO_OUT
        elif not opened[p]:
            scores[p] = NEVER_OPENED
        else:
            s = 0
            for i in range(hn[p]):
                s += kind_pen(kind_of(hand[p, i]))
            scores[p] = s


@njit(cache=True)
def play_round(deck, dealer, rules, seats, work, max_turns):
    """A whole round from ``deck`` and ``dealer`` (or its first ``max_turns`` turns) in
    ``work`` (:class:`~simcards.romi.kernel_state.RoundWork`), the reshuffles drawn from its
    stream ``work.rs``. Ends when a player goes out (G1), at T8's stop or at T9's 1,000 turns
    (stalled)."""
    ws = work.ws
    st = ws.st
    start_round(deck, dealer, rules, ws)
    work.log.info[:] = 0
    while st[S_TURNS] < max_turns and not stall_reached(st):
        if not turn_played(st, play_turn(rules, seats, work), rules.players):
            break


@njit(cache=True, inline="always")
def stall_reached(st):
    """T9: the round has played its 1,000 turns; it is marked stalled and stops."""
    if st[S_TURNS] >= STALL_TURNS:
        st[S_STALLED] = 1
        return True
    return False


@njit(cache=True, inline="always")
def turn_played(st, status, n):
    """After a turn of status ``status`` (:func:`play_turn`'s): a round stopped by T8 is marked
    stalled; else the turn is counted and, unless the player went out, the next player (to the
    left) is to move. Returns True while the round goes on."""
    if status == 2:
        st[S_STALLED] = 1
        return False
    st[S_TURNS] += 1
    if status == 1:
        return False
    st[S_TURN] = (st[S_TURN] + 1) % n
    return True


@njit(cache=True)
def round_chance(state, n, dealer):
    """The chance of one round from the batch stream: its dealer (``randbelow(players)`` when
    ``dealer < 0``) and the seed of the round's own stream (one 64-bit word), in that order."""
    if dealer < 0:
        dealer = randbelow(state, n)
    return dealer, next_u64(state)


@njit(cache=True)
def simulate_rounds(state, n_rounds, rules, seats, dealer):
    """Monte Carlo rounds. Per round, from the batch stream ``state``: the dealer (drawn when
    ``dealer < 0``) and a seed; from the round's own stream (``seed_state(seed)``): the deck
    (:func:`shuffle_deck`), then every T8 reshuffle. Returns per-round arrays: (scores [r, n],
    went_out [r] (-1 none), romi [r], never_opened [r, n], turns [r], stalled [r], dealers
    [r])."""
    n = rules.players
    work = new_round_work(n, np.int64(0), np.int64(0), np.int64(0))
    rs = work.rs
    deck = np.zeros(N_CARDS, np.int64)
    out = new_results(n_rounds, n)
    for r in range(n_rounds):
        d, seed = round_chance(state, n, dealer)
        seed_state(rs, seed)
        shuffle_deck(rs, deck)
        play_round(deck, d, rules, seats, work, STALL_TURNS + 1)
        note_round(out, r, rules, work.ws, d)
    return out


@njit(cache=True)
def new_results(n_rounds, n):
    """:func:`simulate_rounds`' per-round arrays: (scores [r, n], went_out [r] (-1 none),
    romi [r], never_opened [r, n], turns [r], stalled [r], dealers [r])."""
    return (np.zeros((n_rounds, n), np.int64), np.full(n_rounds, -1, np.int64),
            np.zeros(n_rounds, np.int64), np.zeros((n_rounds, n), np.int64),
            np.zeros(n_rounds, np.int64), np.zeros(n_rounds, np.int64),
            np.zeros(n_rounds, np.int64))


@njit(cache=True)
def note_round(out, r, rules, ws, dealer):
    """Round ``r``, played in ``ws`` with ``dealer``, into the per-round arrays ``out``
    (:func:`new_results`), scored by G2-G5."""
    scores, went_out, romi, never, turns, stalled, dealers = out
    st = ws.st
    score_round(rules, ws, scores[r])
    went_out[r] = st[S_OUT]
    romi[r] = st[S_ROMI]
    for p in range(rules.players):
        never[r, p] = 1 - ws.opened[p]
    turns[r] = st[S_TURNS]
    stalled[r] = st[S_STALLED]
    dealers[r] = dealer


@njit(cache=True)
def simulate_games(state, n_games, rules, seats):
    """Monte Carlo games of ``rules.rounds`` rounds (D5, G6). Per game, from ``state``: the
    first dealer (``randbelow(players)``), then one seed per round (each round's own stream,
    as in :func:`simulate_rounds`); the deal moves one seat to the left each round. Returns
    (totals [g, n], winners [g, n]: 1 for every player with the lowest total, shared wins
    included)."""
    n = rules.players
    work = new_round_work(n, np.int64(0), np.int64(0), np.int64(0))
    ws = work.ws
    rs = work.rs
    deck = np.zeros(N_CARDS, np.int64)
    scores = np.zeros(n, np.int64)
    totals = np.zeros((n_games, n), np.int64)
    winners = np.zeros((n_games, n), np.int64)
    for g in range(n_games):
        d0 = randbelow(state, n)
        for r in range(rules.rounds):
            d = (d0 + r) % n
            seed = next_u64(state)
            seed_state(rs, seed)
            shuffle_deck(rs, deck)
            play_round(deck, d, rules, seats, work, STALL_TURNS + 1)
            score_round(rules, ws, scores)
            for p in range(n):
                totals[g, p] += scores[p]
        low = totals[g, 0]
        for p in range(1, n):
            if totals[g, p] < low:
                low = totals[g, p]
        for p in range(n):
            winners[g, p] = 1 if totals[g, p] == low else 0
    return totals, winners
