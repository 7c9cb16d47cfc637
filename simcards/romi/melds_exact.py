"""The exact meld solver (V1-V4 of ``seeds/romi.md``).

For a hand of up to 16 cards (duplicates and up to four jokers allowed) it answers, exactly:

- ``best_value`` (V1): the greatest value (M6) of any collection of disjoint valid melds;
- ``min_penalty`` (V2): the smallest penalty (M7) of the cards left over any such collection;
- ``can_go_out`` (V3): whether all cards but one can be laid down;
- ``melds`` (V4): one lay-down reaching ``best_value``.

How. The hand is a multiset: copies of each of the 52 kinds (``cards.kind``) and a number of
jokers. Cards in no meld of the whole hand are taken out first (they are left in every
lay-down). The search then looks at the *pivot*, the first kind still held in the order
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
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi.kernel_state import MeldWork
from simcards.romi.rules import RomiRules

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
def _pos_kind(s: int, p: int) -> int:
    """The kind at place p (1 .. 14) of a run of suit s; 1 and 14 are both the As."""
    return s * 13 + (p - 1) % 13


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
        k = _pos_kind(s, p)
        row[F_KINDS + nreal] = k
        nreal += 1
        pen += _rank_value(k % 13 + 1)
    row[F_NREAL] = nreal
    row[F_JOKER] = 1 if jpos > 0 else 0
    row[F_JKIND] = _pos_kind(s, jpos) if jpos > 0 else -1
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
    while b <= top and counts[_pos_kind(s, b)] > 0:
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
            while b <= top and counts[_pos_kind(s, b)] > 0:
                if b - p0 >= 2:
                    n = _emit_run(buf, depth, n, s, p0, b, q, ace_low)
                b += 1
            if counts[_pos_kind(s, q)] == 0:
                break
            q += 1
        # joker just below the pivot (for an As below a 2 too)
        if r >= 2:
            lo = r - 1
            top2 = min(14, lo + 12)
            b = r + 1
            while b <= top2 and counts[_pos_kind(s, b)] > 0:
                n = _emit_run(buf, depth, n, s, lo, b, lo, ace_low)
                b += 1
    # Runs that end with the pivot As above the King (place 14), reaching down at most to 2.
    if r == 1:
        a = np.int64(13)
        while a >= 2 and counts[_pos_kind(s, a)] > 0:
            if 14 - a >= 2:
                n = _emit_run(buf, depth, n, s, a, np.int64(14), np.int64(0), ace_low)
            a -= 1
        if jk > 0:
            q = np.int64(13)
            while q >= 2:
                if 14 - q >= 2:
                    n = _emit_run(buf, depth, n, s, q, np.int64(14), q, ace_low)
                a = q - 1
                while a >= 2 and counts[_pos_kind(s, a)] > 0:
                    if 14 - a >= 2:
                        n = _emit_run(buf, depth, n, s, a, np.int64(14), q, ace_low)
                    a -= 1
                if counts[_pos_kind(s, q)] == 0:
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
    w = mw.w
    stamp = mw.stamp
    memo = mw.memo
    buf = mw.buf
    fr = mw.fr
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
                if counts[_pos_kind(s, q)] > 0:
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
def _best_laydown(counts, jk, ace_low):
    """One lay-down reaching best_value (V4): rows as in ``_options`` (int64[melds, ROW])."""
    chosen = np.zeros((MAX_HAND, ROW), np.int64)
    n = lay_down(counts, jk, ace_low, _workspace(), np.int64(1), chosen, np.bool_(False))
    return chosen[:n].copy()


# ---------------------------------------------------------------- Python API


@dataclass(frozen=True)
class MeldAnswer:
    """V1-V3 of one hand."""

    best_value: int
    min_penalty: int
    can_go_out: bool


@dataclass(frozen=True)
class Meld:
    """One meld of a lay-down (V4): the hand's card ids in meld order (a run from its lowest
    place; the joker at its place), the kind the joker stands for (``None`` without a joker)
    and the meld's value (M6)."""

    is_run: bool
    cards: tuple[int, ...]
    joker_as: int | None
    value: int

    def text(self) -> str:
        """E.g. ``5h X 7h (X=6h)``."""
        body = C.format_hand(self.cards)
        if self.joker_as is None:
            return body
        return f"{body} (X={C.kind_text(self.joker_as)})"


def _ace_low(rules: RomiRules | None) -> int:
    return 1 if rules is None else rules.ace_low_value


def _hand_ids(hand: str | list[int] | tuple[int, ...] | np.ndarray) -> list[int]:
    ids = C.as_ids(hand if isinstance(hand, str) else [int(c) for c in hand])
    if len(ids) > MAX_HAND:
        raise UsageError(f"a hand of {len(ids)} cards: the meld solver takes at most {MAX_HAND}")
    return ids


def solve(hand: str | list[int] | tuple[int, ...] | np.ndarray,
          rules: RomiRules | None = None) -> MeldAnswer:
    """V1-V3 of one hand, given as text (``"Ah 2h 3h X"``) or card ids."""
    ids = _hand_ids(hand)
    row = np.full((1, max(1, len(ids))), -1, np.int64)
    row[0, :len(ids)] = ids
    v, p, g = solve_batch(row, _ace_low(rules))[0]
    return MeldAnswer(int(v), int(p), bool(g))


def best_value(hand: str | list[int] | tuple[int, ...] | np.ndarray,
               rules: RomiRules | None = None) -> int:
    """V1: the greatest value (M6) of a lay-down of the hand."""
    return solve(hand, rules).best_value


def min_penalty(hand: str | list[int] | tuple[int, ...] | np.ndarray,
                rules: RomiRules | None = None) -> int:
    """V2: the smallest penalty (M7) the hand can be left with."""
    return solve(hand, rules).min_penalty


def can_go_out(hand: str | list[int] | tuple[int, ...] | np.ndarray,
               rules: RomiRules | None = None) -> bool:
    """V3: whether all cards but one (the discard) can be laid down."""
    return solve(hand, rules).can_go_out


def melds(hand: str | list[int] | tuple[int, ...] | np.ndarray,
          rules: RomiRules | None = None) -> list[Meld]:
    """V4: one lay-down reaching ``best_value``, as melds of the hand's own card ids."""
    ids = _hand_ids(hand)
    counts, jk = C.kind_counts(ids)
    rows = _best_laydown(counts.astype(np.int64), jk, _ace_low(rules))
    pool: dict[int, list[int]] = {}
    for c in ids:
        pool.setdefault(C.kind(c), []).append(c)
    out: list[Meld] = []
    for row in rows:
        nreal = int(row[F_NREAL])
        kinds = [int(x) for x in row[F_KINDS:F_KINDS + nreal]]
        jkind = int(row[F_JKIND]) if row[F_JOKER] else None
        is_run = bool(row[F_RUN])
        if is_run:
            kinds_in_order = _run_order(kinds, jkind, int(row[F_LO]))
        else:
            kinds_in_order = [*kinds, C.JOKER_KIND] if jkind is not None else kinds
        cards = tuple(pool[kk].pop(0) for kk in kinds_in_order)
        out.append(Meld(is_run, cards, jkind, int(row[F_VALUE])))
    return out


def _run_order(kinds: list[int], jkind: int | None, lo: int) -> list[int]:
    """The kinds of a run from its lowest place ``lo`` up, the joker (``JOKER_KIND``) at its
    place (an As is place 1 when the run starts with it, else 14)."""
    def place(k: int) -> int:
        r = k % 13 + 1
        return 1 if r == 1 and lo == 1 else (14 if r == 1 else r)

    places = [(place(k), k) for k in kinds]
    if jkind is not None:
        places.append((place(jkind), C.JOKER_KIND))
    return [k for _, k in sorted(places)]
