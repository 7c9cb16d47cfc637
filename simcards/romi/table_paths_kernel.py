"""The legal action paths of a Römi position after the draw, found by compiled code for the
table engine (:mod:`simcards.romi.table_paths`).

An environment's action codes name cards by *kind* and melds by *shape* (``table_codes``), so
the moves it offers are paths of codes, not card ids: which copy of a card a move takes is
settled afterwards, and only for the move played. A path is offered when some move with that
path keeps the turn finishable (T4, T5, J3, T6). Which moves exist, and whether the turn can be
finished after one, depend on the hand's kinds alone, with one exception the turn search
already handles: the jokers a player owes (freed this turn, J3, or taken under T4) are laid
first, which is the best of the copies. So the paths are found here on the compact position of
:mod:`simcards.romi.table_legal_kernel`: every melding move of the reference's
``_melding_moves`` (openings grown past ``open_min`` too, lays, adds, swaps), each kept when
the turn search answers yes from the position it leads to.

A path is written as its codes (``table_codes``): an opening the shapes of its melds in
increasing order then ``OPEN_DONE``; a lay its shape; an addition its table meld and variant;
a swap its table meld. The caller sorts them and adds the discards.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.bits_kernel import popcount
from simcards.romi.table_legal_kernel import (
    MAX_MELDS,
    MAX_OPEN_DEPTH,
    _held,
    _less,
    _pos_kind,
    can_finish,
    hand_melds,
    run_code,
    set_code,
)

PATH_WIDTH = 8
"""Codes of one path at most: an opening holds five melds at most (15 cards, three a meld),
then ``OPEN_DONE``."""


@njit(cache=True)
def _with(table, extra, n_extra):
    """The table codes with ``extra[:n_extra]`` laid after them."""
    nt = table.shape[0]
    out = np.empty(nt + n_extra, np.int64)
    out[:nt] = table
    for i in range(n_extra):
        out[nt + i] = extra[i]
    return out


@njit(cache=True)
def _replaced(table, t, code):
    """The table codes with meld ``t`` now ``code``."""
    out = table.copy()
    out[t] = code
    return out


@njit(cache=True)
def _add(c, v, have1, nj):
    """Variant ``v`` (0 .. 5) of adding a card to the table meld of code ``c``, as the turn
    search numbers them: ``(kind added or -1 for a joker, the meld's new code, the
    variant's number in ``table_codes``)``; the new code is -1 where the variant is no move."""
    if c & 1:
        r = (c >> 1) & 15
        mask = (c >> 5) & 15
        jf = (c >> 9) & 1
        if popcount(mask) + jf >= 4:
            return -1, np.int64(-1), -1
        if v < 4:
            if (mask >> v) & 1 or not _held(have1, v * 13 + r):
                return -1, np.int64(-1), -1
            k = v * 13 + r
            return k, set_code(r, mask | (1 << v), jf), k
        if v == 4 and jf == 0 and nj > 0:
            return -1, set_code(r, mask, 1), 54
        return -1, np.int64(-1), -1
    s = (c >> 1) & 3
    lo = (c >> 3) & 15
    hi = (c >> 7) & 15
    jp = (c >> 11) & 15
    if hi - lo + 1 >= 13 or v == 2 or v == 3:
        return -1, np.int64(-1), -1
    low = v == 0 or v == 4
    if low and (lo == 1 or (lo == 2 and hi == 13)):
        return -1, np.int64(-1), -1  # the As joins 2 .. K above the King
    if not low and hi == 14:
        return -1, np.int64(-1), -1
    p = lo - 1 if low else hi + 1
    if v < 2:
        k = _pos_kind(s, p)
        if not _held(have1, k):
            return -1, np.int64(-1), -1
        return k, run_code(s, p if low else lo, hi if low else p, jp), k
    if jp != 0 or nj == 0:
        return -1, np.int64(-1), -1
    return -1, run_code(s, p if low else lo, hi if low else p, p), 52 if low else 53


@njit(cache=True)
def meld_paths(have1, have2, jokers, owed, opened, may_open, must_kind, must_max, go_out,
               table, open_min, ace_low, shape_of, shape0, open_done, add0, add_variants,
               swap0, paths, lens):
    """The melding paths of the position (module text) written to ``paths`` (a row per path,
    ``lens`` its codes); returns their number, or -1 when ``paths`` has too few rows.

    The position is :func:`~simcards.romi.table_legal_kernel.can_finish`'s: the hand's kinds
    (``have1``, ``have2``), its ``jokers`` of which ``owed`` must be laid, the table's codes in
    table order, the T4 kind and T5's ``go_out``. ``shape_of`` maps a meld code to its shape
    number; the other numbers are ``table_codes``' offsets."""
    cap = paths.shape[0]
    nt = table.shape[0]
    size = popcount(have1) + popcount(have2) + jokers
    mcode = np.empty(MAX_MELDS, np.int64)
    mkinds = np.empty(MAX_MELDS, np.int64)
    mjoker = np.empty(MAX_MELDS, np.int64)
    mvalue = np.empty(MAX_MELDS, np.int64)
    msize = np.empty(MAX_MELDS, np.int64)
    nm = hand_melds(have1, jokers, ace_low, mcode, mkinds, mjoker, mvalue, msize)
    n = 0
    if not opened:
        if not may_open:
            return 0
        # O1: every opening, grown on past open_min (the reference's non-minimal openings).
        pick = np.empty(MAX_OPEN_DEPTH, np.int64)
        u1 = np.zeros(MAX_OPEN_DEPTH + 1, np.int64)
        u2 = np.zeros(MAX_OPEN_DEPTH + 1, np.int64)
        uj = np.zeros(MAX_OPEN_DEPTH + 1, np.int64)
        un = np.zeros(MAX_OPEN_DEPTH + 1, np.int64)
        uv = np.zeros(MAX_OPEN_DEPTH + 1, np.int64)
        laid = np.empty(MAX_OPEN_DEPTH, np.int64)
        shapes = np.empty(MAX_OPEN_DEPTH, np.int64)
        depth = 0
        pick[0] = 0
        while depth >= 0:
            i = pick[depth]
            if i >= nm:
                depth -= 1
                if depth >= 0:
                    pick[depth] += 1
                continue
            m = mkinds[i]
            a1 = u1[depth]
            a2 = u2[depth]
            if (m & a2) or (m & a1 & ~have2) or uj[depth] + mjoker[i] > jokers \
                    or un[depth] + msize[i] >= size:
                pick[depth] += 1
                continue
            u1[depth + 1] = a1 ^ m
            u2[depth + 1] = a2 | (a1 & m)
            uj[depth + 1] = uj[depth] + mjoker[i]
            un[depth + 1] = un[depth] + msize[i]
            uv[depth + 1] = uv[depth] + mvalue[i]
            if uv[depth + 1] >= open_min:
                b1 = u1[depth + 1]
                b2 = u2[depth + 1]
                h1 = have1 & ~(b2 | (b1 & ~have2))
                h2 = have2 & ~(b1 | b2)
                for d in range(depth + 1):
                    laid[d] = mcode[pick[d]]
                used = uj[depth + 1]
                if can_finish(h1, h2, jokers - used, max(owed - used, 0), True, may_open,
                              must_kind, must_max, go_out, _with(table, laid, depth + 1),
                              open_min, ace_low):
                    if n >= cap:
                        return -1
                    for d in range(depth + 1):
                        shapes[d] = shape0 + shape_of[laid[d]]
                    shapes[:depth + 1].sort()
                    for d in range(depth + 1):
                        paths[n, d] = shapes[d]
                    paths[n, depth + 1] = open_done
                    lens[n] = depth + 2
                    n += 1
            if depth + 1 < MAX_OPEN_DEPTH:
                depth += 1
                pick[depth] = i
            else:
                pick[depth] += 1
        return n
    one = np.empty(1, np.int64)
    # T6: lay a meld of the hand, one card kept.
    for i in range(nm):
        if msize[i] >= size:
            continue
        h1, h2 = _less(have1, have2, mkinds[i])
        one[0] = mcode[i]
        used = mjoker[i]
        if can_finish(h1, h2, jokers - used, max(owed - used, 0), True, may_open, must_kind,
                      must_max, go_out, _with(table, one, 1), open_min, ace_low):
            if n >= cap:
                return -1
            paths[n, 0] = shape0 + shape_of[mcode[i]]
            lens[n] = 1
            n += 1
    # T6: add a card to a table meld, two cards held at least.
    if size >= 2:
        for t in range(nt):
            for v in range(6):
                k, new, variant = _add(table[t], v, have1, jokers)
                if new < 0:
                    continue
                if k >= 0:
                    h1, h2 = _less(have1, have2, np.int64(1) << k)
                    ok = can_finish(h1, h2, jokers, owed, True, may_open, must_kind, must_max,
                                    go_out, _replaced(table, t, new), open_min, ace_low)
                else:
                    ok = can_finish(have1, have2, jokers - 1, max(owed - 1, 0), True, may_open,
                                    must_kind, must_max, go_out, _replaced(table, t, new),
                                    open_min, ace_low)
                if ok:
                    if n >= cap:
                        return -1
                    paths[n, 0] = add0 + t * add_variants + variant
                    lens[n] = 1
                    n += 1
    # J1, J2: free a table joker with the card it stands for.
    for t in range(nt):
        c = table[t]
        if c & 1:
            r = (c >> 1) & 15
            mask = (c >> 5) & 15
            if not (c >> 9) & 1 or popcount(mask) != 3:
                continue
            s = 0
            while (mask >> s) & 1:
                s += 1
            k = s * 13 + r
            new = set_code(r, 15, 0)
        else:
            jp = (c >> 11) & 15
            if jp == 0:
                continue
            k = _pos_kind((c >> 1) & 3, jp)
            new = c & ~(np.int64(15) << 11)
        if not _held(have1, k):
            continue
        h1, h2 = _less(have1, have2, np.int64(1) << k)
        if can_finish(h1, h2, jokers + 1, owed + 1, True, may_open, must_kind, must_max, go_out,
                      _replaced(table, t, new), open_min, ace_low):
            if n >= cap:
                return -1
            paths[n, 0] = swap0 + t
            lens[n] = 1
            n += 1
    return n
