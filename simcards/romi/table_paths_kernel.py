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

from simcards.core.bits_kernel import lowest_bit, popcount
from simcards.romi.table_legal_kernel import (
    MAX_OPEN_DEPTH,
    W_PICK,
    W_U1,
    W_U2,
    W_UJ,
    _held,
    _less,
    add_move,
    can_finish,
    hand_melds,
    meld_arrays,
    next_opening,
    opened_hand,
    swap_move,
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
def meld_paths(have1, have2, jokers, owed, opened, may_open, must_kind, must_max, go_out,
               table, open_min, ace_low, shape_of, codes, discards, paths, lens):
    """The melding paths of the position (module text) written to ``paths`` (a row per path,
    ``lens`` its codes), then, with ``discards``, a discard of each kind held; returns their
    number, or -1 when ``paths`` has too few rows.

    The position is :func:`~simcards.romi.table_legal_kernel.can_finish`'s: the hand's kinds
    (``have1``, ``have2``), its ``jokers`` of which ``owed`` must be laid, the table's codes in
    table order, the T4 kind and T5's ``go_out``. ``shape_of`` maps a meld code to its shape
    number; ``codes`` holds ``table_codes``' offsets: ``DISCARD0``, ``OPEN_DONE``, ``SHAPE0``,
    ``ADD0``, ``ADD_VARIANTS``, ``SWAP0``."""
    discard0, open_done, shape0, add0, add_variants, swap0 = (
        codes[0], codes[1], codes[2], codes[3], codes[4], codes[5])
    cap = paths.shape[0]
    n = 0
    if discards:
        rest = have1
        while rest:
            if n >= cap:
                return -1
            paths[n, 0] = discard0 + lowest_bit(rest)
            lens[n] = 1
            n += 1
            rest &= rest - 1
        if jokers > 0:
            if n >= cap:
                return -1
            paths[n, 0] = discard0 + 52
            lens[n] = 1
            n += 1
    nt = table.shape[0]
    size = popcount(have1) + popcount(have2) + jokers
    mcode, mkinds, mjoker, mvalue, msize = meld_arrays()
    nm = hand_melds(have1, jokers, ace_low, mcode, mkinds, mjoker, mvalue, msize)
    if not opened:
        if not may_open:
            return n
        # O1: every opening, grown on past open_min (the reference's non-minimal openings).
        walk = np.zeros((6, MAX_OPEN_DEPTH + 1), np.int64)
        at = np.zeros(2, np.int64)
        laid = np.empty(MAX_OPEN_DEPTH, np.int64)
        shapes = np.empty(MAX_OPEN_DEPTH, np.int64)
        while True:
            k = next_opening(walk, at, have2, jokers, size, nm, mkinds, mjoker, msize, mvalue,
                             open_min, True)
            if k == 0:
                break
            h1, h2 = opened_hand(have1, have2, walk[W_U1, k], walk[W_U2, k])
            for d in range(k):
                laid[d] = mcode[walk[W_PICK, d]]
            used = walk[W_UJ, k]
            if can_finish(h1, h2, jokers - used, max(owed - used, 0), True, may_open,
                          must_kind, must_max, go_out, _with(table, laid, k), open_min,
                          ace_low):
                if n >= cap:
                    return -1
                for d in range(k):
                    shapes[d] = shape0 + shape_of[laid[d]]
                shapes[:k].sort()
                for d in range(k):
                    paths[n, d] = shapes[d]
                paths[n, k] = open_done
                lens[n] = k + 1
                n += 1
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
                k, new, variant = add_move(table[t], v, have1, jokers)
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
        k, new = swap_move(table[t])
        if k < 0:
            continue
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
