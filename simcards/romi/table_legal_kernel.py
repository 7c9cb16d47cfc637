"""The table engine's turn search in numba: can the player in turn still finish his turn with
every obligation met (T4, T5, J3, T6)? The reference asks it with ``_Search.can_finish`` of
:mod:`simcards.romi.reference`, a depth-first search over its melding moves; this module answers
the same yes or no on a compact encoding of the position.

Why the answer is the reference's. Every melding move puts a real card on the table or takes a
joker from the hand, so the moves of a turn form no cycle, and the reference's answer is whether
some sequence of melding moves from the position reaches a *finished* state: a card left for the
discard (T6), the card taken under T4 (``must``) out of the hand, no joker freed by a swap in
the hand (J3) and, after the cut card (T5), exactly one card left. Its pruning (``hopeless``)
drops only states from which no such state can be reached. So any exhaustive search over the
same moves, with any pruning that drops only dead states, gives the same answer. This one:

* A hand is its kinds: ``have1`` (a bit per kind held, 52 bits) and ``have2`` (a bit per kind
  held twice), and its jokers. The two copies of a card play alike (D1), so a state reached by
  moving one copy is reached with the other by the same moves; the T4 card is a kind held some
  number of times, and it is melded once a copy of that kind has left the hand. The jokers are
  a count and how many of them are *owed* (freed this turn, or the T4 card itself): a joker laid
  is an owed one while any is owed (the state reached is then at least as good).
* A table meld is one integer (:func:`run_code`, :func:`set_code`): a run's suit, first and last
  places (1 .. 14, the As at 1 below the 2 or 14 above the King) and its joker's place; a set's
  rank, real suits and joker. That is all a later move or the pruning reads: a set's joker
  stands for a suit it lacks, and can be freed only with three real suits (J2), when that suit
  is the fourth.
* The moves are the reference's (``_melding_moves`` with minimal openings): before opening, the
  openings (O1, the hand's melds disjoint, worth ``open_min`` or more, stopped as soon as they
  reach it, one card kept); after it, every meld of the hand laid (one card kept), every card
  added to a table meld (two cards held at least; a run grows at one end and its joker keeps its
  place, a set takes a missing suit or a joker), every table joker freed by its real card (J1,
  J2). The As added to the run 2 .. K takes the place above the King, as the reference puts it.
* A state is a row of int64: the hand, the jokers, the opened flag and the table codes sorted
  (the table is a multiset: its order changes no move). The search keeps every state it has seen
  in a hash table of whole rows (so two states are the same only when equal) and explores each
  once; the first finished state ends it.
* Pruning: the test of ``table_legal``'s former search (the reference's ``_could_ever_place``
  made stronger where no table joker can be freed): a real card that joins no table meld and is
  in no meld of the hand cannot be placed; the T4 card must be placeable, and when going out all
  cards but one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcards.core.bits_kernel import lowest_bit, popcount
from simcards.romi.cards import JOKER0, JOKER_KIND

H1, H2, JW, NT, TAB = 0, 1, 2, 3, 4
"""A state row: the kinds held (``H1``, ``H2``), the jokers word (``JW``: jokers, owed << 4,
opened << 8), the number of table melds (``NT``), then the table codes, sorted (``TAB``)."""
MAX_MELDS = 4096
"""Hand melds of one state at most: a 16-card hand holds far fewer."""
MAX_OPEN_DEPTH = 16
"""Melds in one opening at most (each holds two real cards)."""


@njit(cache=True, inline="always")
def run_code(s, lo, hi, jp):
    """A run of suit s over places lo .. hi, its joker at place jp (0: none)."""
    return (s << 1) | (lo << 3) | (hi << 7) | (jp << 11)


@njit(cache=True, inline="always")
def set_code(r, mask, jf):
    """A set of rank r (0 = As .. 12 = K), real suits ``mask``, a joker when jf is 1."""
    return 1 | (r << 1) | (mask << 5) | (jf << 9)


@njit(cache=True, inline="always")
def _pos_kind(s, p):
    return s * 13 + (p - 1) % 13


@njit(cache=True, inline="always")
def _pos_value(p, ace_low):
    if p == 1:
        return ace_low
    if p >= 10:
        return 10
    return p


@njit(cache=True, inline="always")
def _held(have1, k):
    return (have1 >> k) & 1


@njit(cache=True, inline="always")
def _less(have1, have2, mask):
    """The hand without one copy of each kind of ``mask``: (have1, have2)."""
    return have1 & ~(mask & ~have2), have2 & ~mask


@njit(cache=True)
def meld_arrays():
    """Room for :func:`hand_melds`' answer: its code, kinds, joker, value and size arrays."""
    return (np.empty(MAX_MELDS, np.int64), np.empty(MAX_MELDS, np.int64),
            np.empty(MAX_MELDS, np.int64), np.empty(MAX_MELDS, np.int64),
            np.empty(MAX_MELDS, np.int64))


@njit(cache=True)
def hand_melds(have1, jokers, ace_low, code, kinds, joker, value, size):
    """Every meld of the hand (the reference's ``_hand_melds``, copies merged): sets of 3 or 4
    suits, or of 2 or 3 suits and a joker (M1, M4); runs of 3 .. 13 places (M2) with no place
    missing, or one missing and a joker there, or none missing and a joker at any place (it may
    stand for a card the hand holds). Returns how many, written to the arrays."""
    n = 0
    for r in range(13):
        sm = 0
        for s in range(4):
            if _held(have1, s * 13 + r):
                sm |= 1 << s
        if popcount(sm) < 2:
            continue
        rv = 10 if r == 0 or r >= 9 else r + 1
        for sub in range(3, 16):
            if sub & ~sm:
                continue
            d = popcount(sub)
            if d < 2:
                continue
            km = np.int64(0)
            for s in range(4):
                if (sub >> s) & 1:
                    km |= np.int64(1) << (s * 13 + r)
            if d >= 3:
                code[n] = set_code(r, sub, 0)
                kinds[n] = km
                joker[n] = 0
                value[n] = d * rv
                size[n] = d
                n += 1
            if d <= 3 and jokers > 0:
                code[n] = set_code(r, sub, 1)
                kinds[n] = km
                joker[n] = 1
                value[n] = (d + 1) * rv
                size[n] = d + 1
                n += 1
    allowed = 1 if jokers > 0 else 0
    for s in range(4):
        if popcount((have1 >> (s * 13)) & 0x1FFF) < 2:
            continue
        for lo in range(1, 13):
            missing = 0
            gap = 0
            val = 0
            km = np.int64(0)
            top = min(lo + 12, 14)
            for hi in range(lo, top + 1):
                k = _pos_kind(s, hi)
                val += _pos_value(hi, ace_low)
                if _held(have1, k):
                    km |= np.int64(1) << k
                else:
                    missing += 1
                    gap = hi
                    if missing > allowed:
                        break
                length = hi - lo + 1
                if length < 3:
                    continue
                if n + length + 2 > MAX_MELDS:
                    raise ValueError("turn search: too many hand melds")
                if missing == 0:
                    code[n] = run_code(s, lo, hi, 0)
                    kinds[n] = km
                    joker[n] = 0
                    value[n] = val
                    size[n] = length
                    n += 1
                    if jokers > 0:
                        for jp in range(lo, hi + 1):
                            code[n] = run_code(s, lo, hi, jp)
                            kinds[n] = km & ~(np.int64(1) << _pos_kind(s, jp))
                            joker[n] = 1
                            value[n] = val
                            size[n] = length
                            n += 1
                else:
                    code[n] = run_code(s, lo, hi, gap)
                    kinds[n] = km
                    joker[n] = 1
                    value[n] = val
                    size[n] = length
                    n += 1
    return n


# ---------------------------------------------------------------- pruning


@njit(cache=True)
def _on_table(k, have1, row):
    """A real card of kind k could join a table meld: a set of its rank lacking its suit, or a
    run of its suit not holding it whose place for it is inside (the joker's) or outside with
    one place at most between them that the hand does not hold (M1, M2, M4, J1)."""
    r = k % 13
    s = k // 13
    for t in range(row[NT]):
        c = row[TAB + t]
        if c & 1:
            if ((c >> 1) & 15) == r and not (c >> (5 + s)) & 1:
                return True
            continue
        if ((c >> 1) & 3) != s:
            continue
        lo = (c >> 3) & 15
        hi = (c >> 7) & 15
        jp = (c >> 11) & 15
        p0 = 1 if r == 0 else r + 1
        p1 = 14 if r == 0 else r + 1
        if (lo <= p0 <= hi and p0 != jp) or (lo <= p1 <= hi and p1 != jp):
            continue
        for p in (p0, p1):
            if lo <= p <= hi:
                return True
            a, b = (p + 1, lo - 1) if p < lo else (hi + 1, p - 1)
            missing = 0
            for q in range(a, b + 1):
                if not _held(have1, _pos_kind(s, q)):
                    missing += 1
            if missing <= 1 and max(hi, p) - min(lo, p) + 1 <= 13:
                return True
    return False


@njit(cache=True)
def _in_meld(k, have1, jokers):
    """A real card of kind k is in some meld of the hand (M1, M2, M4): a set of its rank, or a
    run of three places holding it with one missing place at most, filled by a joker."""
    r = k % 13
    s = k // 13
    d = 0
    for s2 in range(4):
        d += _held(have1, s2 * 13 + r)
    if d >= 3 or (d >= 2 and jokers > 0):
        return True
    allowed = 1 if jokers > 0 else 0
    p0 = 1 if r == 0 else r + 1
    p1 = 14 if r == 0 else r + 1
    for p in (p0, p1):
        for a in range(p - 2, p + 1):
            if a < 1 or a + 2 > 14:
                continue
            missing = 0
            for q in range(a, a + 3):
                if not _held(have1, _pos_kind(s, q)):
                    missing += 1
            if missing <= allowed:
                return True
    return False


@njit(cache=True)
def _near(k, have1):
    """The reference's test: another kind of the hand has k's rank, or its suit within two
    places (a new meld holds each real card's neighbour at most one joker away)."""
    r = k % 13
    s = k // 13
    p0 = 1 if r == 0 else r + 1
    p1 = 14 if r == 0 else r + 1
    rest = have1 & ~(np.int64(1) << k)
    while rest:
        k2 = lowest_bit(rest)
        rest &= rest - 1
        if k2 % 13 == r:
            return True
        if k2 // 13 != s:
            continue
        r2 = k2 % 13
        q0 = 1 if r2 == 0 else r2 + 1
        q1 = 14 if r2 == 0 else r2 + 1
        for p in (p0, p1):
            for q in (q0, q1):
                if abs(p - q) <= 2:
                    return True
    return False


@njit(cache=True)
def _may_free_joker(have1, row):
    """The hand could free a table joker (J1): a run's, with the card it stands for; a set's,
    with a card of its rank of a suit the set lacks."""
    for t in range(row[NT]):
        c = row[TAB + t]
        if c & 1:
            if not (c >> 9) & 1:
                continue
            r = (c >> 1) & 15
            mask = (c >> 5) & 15
            for s in range(4):
                if not (mask >> s) & 1 and _held(have1, s * 13 + r):
                    return True
        else:
            jp = (c >> 11) & 15
            if jp and _held(have1, _pos_kind((c >> 1) & 3, jp)):
                return True
    return False


@njit(cache=True)
def _dead(k, have1, jokers, row, strict):
    """A real card of kind k cannot be placed this turn (strict: no table joker can be freed,
    so a card in no meld of the hand cannot reach a new meld)."""
    if _on_table(k, have1, row):
        return False
    if strict:
        return not _in_meld(k, have1, jokers)
    return not _near(k, have1)


@njit(cache=True)
def _hopeless(row, must_kind, must_max, go_out):
    """No finished state can be reached: the T4 card, still held, cannot be placed; or, going
    out, more than one real card cannot."""
    have1 = row[H1]
    have2 = row[H2]
    jokers = row[JW] & 15
    must_held = must_kind >= 0 and _held(have1, must_kind) + _held(have2, must_kind) > must_max
    if not must_held and not go_out:
        return False
    strict = not _may_free_joker(have1, row)
    if must_held and _dead(must_kind, have1, jokers, row, strict):
        return True
    if go_out:
        dead = 0
        rest = have1
        while rest:
            k = lowest_bit(rest)
            rest &= rest - 1
            if _dead(k, have1, jokers, row, strict):
                dead += 1 + _held(have2, k)
                if dead > 1:
                    return True
    return False


# ---------------------------------------------------------------- openings


W_PICK, W_U1, W_U2, W_UJ, W_UN, W_UV = 0, 1, 2, 3, 4, 5
"""Rows of an opening walk (:func:`next_opening`), one column per depth: the meld picked there
(an index of :func:`hand_melds`' arrays), and before it the kinds used once (``W_U1``) and
twice (``W_U2``), the jokers, the cards and the value of the melds picked."""


@njit(cache=True)
def next_opening(walk, at, have2, jokers, size, nm, mkinds, mjoker, msize, mvalue, open_min,
                 grow):
    """The next opening of a hand (O1): disjoint melds of the hand's melds (``hand_melds``,
    ``nm`` of them; a meld twice where the hand holds its kinds twice) worth ``open_min`` or
    more, one card kept (``size`` cards held). Returns its number of melds k (their indices in
    ``walk[W_PICK, :k]``, the kinds and jokers they use in column k), 0 when there are no more.

    The walk is resumable: ``walk[:, 0]`` and ``at`` (the depth, and 1 after an opening was
    returned) zero before the first call. With ``grow`` an opening found is grown further, as
    the reference's openings are; without it, not (the search's minimal openings: the rest can
    be laid after opening, T6)."""
    depth = at[0]
    if at[1]:
        at[1] = 0
        if grow and depth + 1 < MAX_OPEN_DEPTH:
            depth += 1
            walk[W_PICK, depth] = walk[W_PICK, depth - 1]
        else:
            walk[W_PICK, depth] += 1
    while depth >= 0:
        i = walk[W_PICK, depth]
        if i >= nm:
            depth -= 1
            if depth >= 0:
                walk[W_PICK, depth] += 1
            continue
        m = mkinds[i]
        a1 = walk[W_U1, depth]
        a2 = walk[W_U2, depth]
        if (m & a2) or (m & a1 & ~have2) or walk[W_UJ, depth] + mjoker[i] > jokers \
                or walk[W_UN, depth] + msize[i] >= size:
            walk[W_PICK, depth] += 1
            continue
        walk[W_U1, depth + 1] = a1 ^ m
        walk[W_U2, depth + 1] = a2 | (a1 & m)
        walk[W_UJ, depth + 1] = walk[W_UJ, depth] + mjoker[i]
        walk[W_UN, depth + 1] = walk[W_UN, depth] + msize[i]
        walk[W_UV, depth + 1] = walk[W_UV, depth] + mvalue[i]
        if walk[W_UV, depth + 1] >= open_min:
            at[0] = depth
            at[1] = 1
            return depth + 1
        if depth + 1 < MAX_OPEN_DEPTH:
            depth += 1
            walk[W_PICK, depth] = i
        else:
            walk[W_PICK, depth] += 1
    at[0] = depth
    return 0


@njit(cache=True, inline="always")
def opened_hand(have1, have2, used1, used2):
    """The hand (``have1``, ``have2``) less the kinds an opening used once (``used1``) and
    twice (``used2``)."""
    return have1 & ~(used2 | (used1 & ~have2)), have2 & ~(used1 | used2)


# ---------------------------------------------------------------- table moves


@njit(cache=True)
def add_move(c, v, have1, jokers):
    """Variant ``v`` of adding a card of the hand (``have1``, ``jokers``) to the table meld of
    code ``c`` (T6, M1-M4): 0-3 a real card (a set: of suit v; a run: 0 at its low end, 1 at its
    high end), 4 a joker at the low end (a set: the joker), 5 a joker at the high end. A set of
    fewer than four takes a suit it lacks, or a joker if it has none; a run of fewer than 13
    grows at one end (its joker keeps its place), the As joining 2 .. K above the King. Returns
    (the kind added, -1 for a joker; the meld's new code, -1 where the variant is no move; the
    variant's number in ``table_codes``: the kind, or 52, 53, 54 for a joker at a run's low
    end, its high end, in a set)."""
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
        if v == 4 and jf == 0 and jokers > 0:
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
    if jp != 0 or jokers == 0:
        return -1, np.int64(-1), -1
    return -1, run_code(s, p if low else lo, hi if low else p, p), 52 if low else 53


@njit(cache=True)
def swap_move(c):
    """The joker swap of the table meld of code ``c`` (J1, J2): (the kind that takes the
    joker's place, the meld's new code), or (-1, -1) where none can: no joker, or a set of
    fewer than three real suits."""
    if c & 1:
        r = (c >> 1) & 15
        mask = (c >> 5) & 15
        if not (c >> 9) & 1 or popcount(mask) != 3:
            return -1, np.int64(-1)  # J2
        return lowest_bit(~mask & 15) * 13 + r, set_code(r, 15, 0)
    jp = (c >> 11) & 15
    if jp == 0:
        return -1, np.int64(-1)
    return _pos_kind((c >> 1) & 3, jp), c & ~(np.int64(15) << 11)


# ---------------------------------------------------------------- states


@njit(cache=True)
def _finished(row, must_kind, must_max, go_out):
    """The turn can end here (T6, T4, J3, T5)."""
    have1 = row[H1]
    have2 = row[H2]
    jw = row[JW]
    n = popcount(have1) + popcount(have2) + (jw & 15)
    if n == 0 or (jw >> 4) & 15:
        return False
    if must_kind >= 0 and _held(have1, must_kind) + _held(have2, must_kind) > must_max:
        return False
    return not go_out or n == 1


@njit(cache=True)
def _sort_table(row):
    """Insertion sort of the table codes (nearly sorted: one changed or a few appended)."""
    n = row[NT]
    for i in range(TAB + 1, TAB + n):
        v = row[i]
        j = i - 1
        while j >= TAB and row[j] > v:
            row[j + 1] = row[j]
            j -= 1
        row[j + 1] = v


@njit(cache=True)
def _hash(row):
    h = np.uint64(1469598103934665603)
    for i in range(TAB + row[NT]):
        h ^= np.uint64(row[i])
        h *= np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    return np.int64(h >> np.uint64(1)) | 1


@njit(cache=True)
def _same(a, b):
    for i in range(TAB + a[NT]):  # noqa: SIM110 - numba compiles loops, not generators
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def _insert(keys, hashes, row, h):
    """Put ``row`` (hash ``h``) in the open-addressing table; False when it was there."""
    cap = hashes.shape[0]
    i = h & (cap - 1)
    while hashes[i] != 0:
        if hashes[i] == h and _same(keys[i], row):
            return False
        i = (i + 1) & (cap - 1)
    hashes[i] = h
    keys[i, :] = row
    return True


@njit(cache=True)
def _offer(stack, sp, keys, hashes, seen, must_kind, must_max, go_out):
    """The child written at ``stack[sp]``: 2 when it is finished, 1 when it is new and not
    hopeless (kept on the stack), 0 otherwise, 3 when the seen-states table is full (``seen[0]``
    counts its states)."""
    row = stack[sp]
    if _finished(row, must_kind, must_max, go_out):
        return 2
    _sort_table(row)
    if not _insert(keys, hashes, row, _hash(row)):
        return 0
    seen[0] += 1
    if 2 * seen[0] >= hashes.shape[0]:
        return 3
    if _hopeless(row, must_kind, must_max, go_out):
        return 0
    return 1


@njit(cache=True)
def _child(stack, sp, cur, have1, have2, jw):
    """Start a child at ``stack[sp]``: the table of ``cur``, the hand and jokers given."""
    stack[sp, :] = cur
    stack[sp, H1] = have1
    stack[sp, H2] = have2
    stack[sp, JW] = jw


@njit(cache=True, inline="always")
def _lay_jokers(jw, n):
    """The jokers word after laying n jokers (owed ones first)."""
    owed = max(((jw >> 4) & 15) - n, 0)
    return ((jw & 15) - n) | (owed << 4) | (jw & 0x100)


@njit(cache=True)
def _search(have1, have2, jokers, owed, opened, may_open, must_kind, must_max, go_out, table,
            open_min, ace_low, cap):
    """:func:`can_finish` with room for ``cap // 2`` states: 1 (yes), 0 (no) or -1 (no room)."""
    width = TAB + table.shape[0] + (popcount(have1) + popcount(have2)) // 2 + 1
    start = np.zeros(width, np.int64)
    start[H1] = have1
    start[H2] = have2
    start[JW] = jokers | (owed << 4) | (np.int64(1 if opened else 0) << 8)
    start[NT] = table.shape[0]
    for i in range(table.shape[0]):
        start[TAB + i] = table[i]
    if _finished(start, must_kind, must_max, go_out):
        return 1
    if _hopeless(start, must_kind, must_max, go_out):
        return 0
    if not opened and not may_open:
        return 0
    _sort_table(start)
    keys = np.empty((cap, width), np.int64)
    hashes = np.zeros(cap, np.int64)
    _insert(keys, hashes, start, _hash(start))
    seen = np.ones(1, np.int64)
    stack = np.empty((cap // 2, width), np.int64)
    stack[0, :] = start
    sp = 1
    cur = np.empty(width, np.int64)
    mcode, mkinds, mjoker, mvalue, msize = meld_arrays()
    walk = np.empty((6, MAX_OPEN_DEPTH + 1), np.int64)
    at = np.empty(2, np.int64)
    while sp > 0:
        sp -= 1
        cur[:] = stack[sp]
        have1 = cur[H1]
        have2 = cur[H2]
        jw = cur[JW]
        nj = jw & 15
        ntab = cur[NT]
        size = popcount(have1) + popcount(have2) + nj
        nm = hand_melds(have1, nj, ace_low, mcode, mkinds, mjoker, mvalue, msize)
        if not (jw >> 8) & 1:
            # O1: the openings, minimal (no meld added once open_min is reached).
            walk[:, 0] = 0
            at[:] = 0
            while True:
                k = next_opening(walk, at, have2, nj, size, nm, mkinds, mjoker, msize, mvalue,
                                 open_min, False)
                if k == 0:
                    break
                h1, h2 = opened_hand(have1, have2, walk[W_U1, k], walk[W_U2, k])
                _child(stack, sp, cur, h1, h2, _lay_jokers(jw, walk[W_UJ, k]) | 0x100)
                for d in range(k):
                    stack[sp, TAB + ntab + d] = mcode[walk[W_PICK, d]]
                stack[sp, NT] = ntab + k
                got = _offer(stack, sp, keys, hashes, seen, must_kind, must_max, go_out)
                if got >= 2:
                    return 1 if got == 2 else -1
                sp += got
            continue
        # T6: lay a meld of the hand, one card kept.
        for i in range(nm):
            if msize[i] >= size:
                continue
            h1, h2 = _less(have1, have2, mkinds[i])
            _child(stack, sp, cur, h1, h2, _lay_jokers(jw, mjoker[i]))
            stack[sp, TAB + ntab] = mcode[i]
            stack[sp, NT] = ntab + 1
            got = _offer(stack, sp, keys, hashes, seen, must_kind, must_max, go_out)
            if got >= 2:
                return 1 if got == 2 else -1
            sp += got
        # T6: add a card to a table meld, two cards held at least.
        for t in range(ntab if size >= 2 else 0):
            c = cur[TAB + t]
            if t > 0 and c == cur[TAB + t - 1]:
                continue
            for v in range(6):
                k, new, _ = add_move(c, v, have1, nj)
                if new < 0:
                    continue
                if k >= 0:
                    h1, h2 = _less(have1, have2, np.int64(1) << k)
                    _child(stack, sp, cur, h1, h2, jw)
                else:
                    _child(stack, sp, cur, have1, have2, _lay_jokers(jw, 1))
                stack[sp, TAB + t] = new
                got = _offer(stack, sp, keys, hashes, seen, must_kind, must_max, go_out)
                if got >= 2:
                    return 1 if got == 2 else -1
                sp += got
        # J1, J2: free a table joker with the card it stands for.
        for t in range(ntab):
            c = cur[TAB + t]
            if t > 0 and c == cur[TAB + t - 1]:
                continue
            k, new = swap_move(c)
            if k < 0:
                continue
            if not _held(have1, k):
                continue
            h1, h2 = _less(have1, have2, np.int64(1) << k)
            owed = ((jw >> 4) & 15) + 1
            _child(stack, sp, cur, h1, h2, ((jw & 15) + 1) | (owed << 4) | (jw & 0x100))
            stack[sp, TAB + t] = new
            got = _offer(stack, sp, keys, hashes, seen, must_kind, must_max, go_out)
            if got >= 2:
                return 1 if got == 2 else -1
            sp += got
    return 0


@njit(cache=True)
def can_finish(have1, have2, jokers, owed, opened, may_open, must_kind, must_max, go_out,
               table, open_min, ace_low):
    """Whether the turn can be finished from this position (the module text): the hand
    (``have1``, ``have2``, ``jokers``, of which ``owed`` must be laid), the table codes, the T4
    kind (-1: none) whose count must fall to ``must_max``, and T5's ``go_out``. The search is
    run with room for 128 states, and again with four times the room while it runs out."""
    cap = 256
    while True:
        got = _search(have1, have2, jokers, owed, opened, may_open, must_kind, must_max, go_out,
                      table, open_min, ace_low, cap)
        if got >= 0:
            return got == 1
        cap *= 4


# ---------------------------------------------------------------- the hand's melds as cards


@njit(cache=True)
def hand_meld_cards(hand, ace_low):
    """The reference's ``_hand_melds`` of a hand of card ids: every canonical meld of its cards
    (:func:`hand_melds`, each copy of a card and each joker giving its own meld), as rows of card
    ids in meld order (a run low to high with the joker at its place, a set by suit with the
    joker last; -1 after the last card) and the kind each joker stands for (-1: no joker; a
    set's joker the first suit it lacks, M4). Unsorted."""
    ids = np.full((52, 2), -1, np.int64)
    nid = np.zeros(52, np.int64)
    jids = np.empty(hand.shape[0], np.int64)
    nj = 0
    have1 = np.int64(0)
    for c in hand:
        if c >= JOKER0:
            jids[nj] = c
            nj += 1
        else:
            k = c % 52
            ids[k, nid[k]] = c
            nid[k] += 1
            have1 |= np.int64(1) << k
    mcode, mkinds, mjoker, mvalue, msize = meld_arrays()
    nm = hand_melds(have1, nj, ace_low, mcode, mkinds, mjoker, mvalue, msize)
    total = 0
    for i in range(nm):
        v = nj if mjoker[i] else 1
        rest = mkinds[i]
        while rest:
            v *= nid[lowest_bit(rest)]
            rest &= rest - 1
        total += v
    cards = np.full((total, 13), -1, np.int64)
    stands = np.full(total, -1, np.int64)
    slot = np.empty(13, np.int64)
    pick = np.zeros(13, np.int64)
    row = 0
    for i in range(nm):
        c = mcode[i]
        n = 0
        if c & 1:
            r = (c >> 1) & 15
            mask = (c >> 5) & 15
            for s in range(4):
                if (mask >> s) & 1:
                    slot[n] = s * 13 + r
                    n += 1
            if (c >> 9) & 1:
                slot[n] = JOKER_KIND
                n += 1
                stand = lowest_bit(~mask & 15) * 13 + r
            else:
                stand = -1
        else:
            s = (c >> 1) & 3
            jp = (c >> 11) & 15
            for p in range((c >> 3) & 15, ((c >> 7) & 15) + 1):
                slot[n] = JOKER_KIND if p == jp else _pos_kind(s, p)
                n += 1
            stand = _pos_kind(s, jp) if jp else -1
        for j in range(n):
            pick[j] = 0
        while True:
            for j in range(n):
                k = slot[j]
                cards[row, j] = jids[pick[j]] if k == JOKER_KIND else ids[k, pick[j]]
            stands[row] = stand
            row += 1
            j = n - 1
            while j >= 0:
                pick[j] += 1
                if pick[j] < (nj if slot[j] == JOKER_KIND else nid[slot[j]]):
                    break
                pick[j] = 0
                j -= 1
            if j < 0:
                break
    return cards, stands
