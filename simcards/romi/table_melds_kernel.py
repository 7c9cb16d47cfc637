"""The melds on the table as the round's kernels keep them, in numba: rows ``tm`` and ``tc`` of
the workspace (:mod:`simcards.romi.round_kernel`), or of a plan's copies.

A solver meld laid from a hand as a table meld (M5), a table meld's cards in canonical form,
the place a card would take in a table meld (T6) and the card added there, and the real card
that frees a table meld's joker (J1, J2) and the swap itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.romi.cards import JOKER0, JOKER_KIND
from simcards.romi.codes import (
    TC_SIZE,
    TM_HI,
    TM_JID,
    TM_JP,
    TM_LO,
    TM_MASK,
    TM_OWNER,
    TM_RANK,
    TM_RUN,
    TM_SUIT,
)
from simcards.romi.melds_kernel import (
    F_JOKER,
    F_KINDS,
    F_LO,
    F_NREAL,
    F_RUN,
    find_kind,
    popcount4,
    pos_kind,
    remove_at,
)


@njit(cache=True)
def lay_row(row, n, must, avoid, ps, m, owner):
    """Lay the solver meld ``row`` from the plan's hand ``ps.ph`` (its first ``n`` cards) as
    meld m of the plan's table (M5): its cards leave the hand (``must`` first where it fits,
    never ``avoid``). Returns the hand's new count."""
    hand, tm, tc = ps.ph, ps.ptm, ps.ptc
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
