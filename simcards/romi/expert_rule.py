"""The ``expert`` policy's discard (Q5 of ``seeds/romi.md``), in plain Python, as a test oracle.

The numba engine plays ``expert`` as greedy (Q2) except for its discard (T7), which Q5 fixes
exactly: unseen copies of every card, a *prospect* for each card it could throw, a *feeding*
test, and a tie order. This module writes that discard again from the rules page alone, sharing
no code with the engine (only the exact meld solver of :mod:`simcards.romi.melds_exact`, itself
checked against brute force), so that replayed engine rounds can be held to it discard by discard.

Clarity beats speed: for every candidate card c and every card d still unseen, the hand
H - c + d is solved (V1, V2) by the meld solver, with one batch call and a memo per position;
"can be added to a table meld" (T6) and "lies in some valid meld" (M1-M4) are small functions
written here from the meld rules. The answer is a card *kind* (0 .. 51, 52 for the joker):
two copies of one card are interchangeable (D1), and which copy is thrown is Q1's business.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi.melds_kernel import MAX_HAND, solve_batch
from simcards.romi.rules import RomiRules

JOKER = C.JOKER_KIND
"""Kind number of the joker (52)."""
N_KINDS_ALL = C.N_KINDS + 1
"""The 52 real cards and the joker: the cards d of Q5's sums."""
JOKER_PENALTY = 20
"""M7: a joker left in hand."""


def penalty_value(k: int) -> int:
    """M7 of one card kind: numbers at face value, J, Q, K and the As 10, the joker 20."""
    if k == JOKER:
        return JOKER_PENALTY
    r = k % 13 + 1
    return 10 if r == 1 or r > 10 else r


def card_order(k: int) -> tuple[int, int]:
    """Q1's card order: by rank As, 2 .. K, then suit s, h, d, c; the joker last."""
    if k == JOKER:
        return (14, 4)
    return (k % 13 + 1, k // 13)


def _kinds(cards: Sequence[int]) -> list[int]:
    return [C.kind(int(c)) for c in cards]


def unseen_copies(hand: Sequence[int], table: Sequence[Sequence[int]],
                  discards: Sequence[int]) -> list[int]:
    """Q5 *unseen copies*: for each kind d (0 .. 52), 2 (4 for the joker) less the copies of d
    in the hand, in the discard pile and in the table melds (a joker on the table counts as a
    joker, whatever it stands for)."""
    u = [2] * C.N_KINDS + [C.N_JOKERS]
    seen = [*hand, *discards, *(c for m in table for c in m)]
    for k in _kinds(seen):
        u[k] -= 1
    if min(u) < 0:
        raise UsageError("more copies of a card in hand, pile and table than the deck holds (D1)")
    return u


# ---------------------------------------------------------------- table melds (T6, M1-M4)


@dataclass(frozen=True)
class _TableMeld:
    """A table meld read from its canonical card list: a set (``rank``, real ``suits``,
    ``size``) or a run (``suit``, places ``lo`` .. ``hi``, 1 = As below the 2, 14 = As above
    the King)."""

    is_run: bool
    rank: int
    suits: frozenset[int]
    size: int
    suit: int
    lo: int
    hi: int


def _read_table_meld(cards: Sequence[int]) -> _TableMeld:
    """A table meld from its cards in canonical order (a run from its low end with the joker at
    its place; a set by suit, joker last)."""
    ids = [int(c) for c in cards]
    real = [c for c in ids if not C.is_joker(c)]
    if len(ids) < 3 or len(real) < 2 or len(ids) - len(real) > 1:
        raise UsageError(f"table meld {C.format_hand(ids)!r} is no meld (M1-M4)")
    ranks = {C.rank(c) for c in real}
    if len(ranks) == 1:
        suits = frozenset(C.suit(c) for c in real)
        if len(suits) != len(real) or len(ids) > 4:
            raise UsageError(f"table meld {C.format_hand(ids)!r} is no set (M1)")
        return _TableMeld(False, real[0] % 13 + 1, suits, len(ids), -1, 0, 0)
    suits_run = {C.suit(c) for c in real}
    if len(suits_run) != 1:
        raise UsageError(f"table meld {C.format_hand(ids)!r} is no run (M2)")
    # The place of list index i is lo + i; a real card other than the As fixes lo.
    i, c = next((i, c) for i, c in enumerate(ids) if not C.is_joker(c) and C.rank(c) != 1)
    lo = C.rank(c) - i
    hi = lo + len(ids) - 1
    for i, c in enumerate(ids):
        if C.is_joker(c):
            continue
        p = lo + i
        if not (C.rank(c) == p or (C.rank(c) == 1 and p in (1, 14))):
            raise UsageError(f"table meld {C.format_hand(ids)!r} is no run in order (M2)")
    if lo < 1 or hi > 14 or hi - lo + 1 > 13:
        raise UsageError(f"table meld {C.format_hand(ids)!r} is no run (M2)")
    return _TableMeld(True, 0, frozenset(), len(ids), next(iter(suits_run)), lo, hi)


def _places(k: int) -> tuple[int, ...]:
    """The run places of a real kind: 1 and 14 for the As, its rank otherwise."""
    r = k % 13 + 1
    return (1, 14) if r == 1 else (r,)


def can_add(k: int, meld: Sequence[int]) -> bool:
    """T6: whether a real card of kind ``k`` can be added to the table meld ``meld`` so that
    it stays valid (M1-M4): a set takes a suit none of its real cards has while it holds fewer
    than 4 cards (its joker's suit is recomputed); a run grows by one place at either end, never
    beyond the As at either end and never to 14 places (two Ases, M2). A joker is never asked
    here: Q5 treats it on its own."""
    if k == JOKER:
        raise UsageError("can_add answers for real cards only")
    m = _read_table_meld(meld)
    if not m.is_run:
        return k % 13 + 1 == m.rank and k // 13 not in m.suits and m.size < 4
    if k // 13 != m.suit:
        return False
    for p in _places(k):
        lo, hi = min(m.lo, p), max(m.hi, p)
        if p in (m.lo - 1, m.hi + 1) and not (lo == 1 and hi == 14):
            return True
    return False


def fits_table(k: int, table: Sequence[Sequence[int]]) -> bool:
    """T6: whether a real card of kind ``k`` can be added to some meld of ``table``."""
    return any(can_add(k, m) for m in table)


def in_some_meld(k: int, kinds: Sequence[int]) -> bool:
    """Whether a real card of kind ``k`` lies in some valid meld (M1-M4) made of the cards
    ``kinds`` (a multiset of kinds, 52 for a joker, holding ``k``). A set: at least two real
    suits of k's rank including k's, and three cards with at most one joker. A run: any valid
    run holding k holds three consecutive places holding k with at most one joker and two real
    cards, so it is enough to try every window of three places (1 .. 14) around k's place."""
    if k == JOKER:
        raise UsageError("in_some_meld answers for real cards only")
    have = set(kinds)
    if k not in have:
        raise UsageError(f"{C.kind_text(k)} is not among the cards")
    jokers = 1 if JOKER in have else 0
    r, s = k % 13 + 1, k // 13
    suits = {x // 13 for x in have if x != JOKER and x % 13 + 1 == r}
    if len(suits) >= 2 and len(suits) + jokers >= 3:
        return True
    for p in _places(k):
        for a in range(max(1, p - 2), min(p, 12) + 1):
            missing = sum(1 for q in range(a, a + 3) if s * 13 + (q - 1) % 13 not in have)
            if missing == 0 or (missing == 1 and jokers):
                return True
    return False


# ---------------------------------------------------------------- the solver, memoised


class _Solver:
    """V1 and V2 of hands given as kind multisets, answered by the exact solver in batches
    and kept in a memo keyed by the sorted kinds."""

    def __init__(self, ace_low: int) -> None:
        self.ace_low = ace_low
        self.memo: dict[tuple[int, ...], tuple[int, int]] = {}

    def ask(self, hands: Sequence[Sequence[int]]) -> None:
        keys = {tuple(sorted(h)) for h in hands} - self.memo.keys()
        if not keys:
            return
        order = sorted(keys)
        width = max(1, max(len(k) for k in order))
        if width > MAX_HAND:
            raise UsageError(f"a hand of {width} cards: the meld solver takes at most {MAX_HAND}")
        rows = np.full((len(order), width), -1, np.int64)
        for i, key in enumerate(order):
            copies: dict[int, int] = {}
            for j, k in enumerate(key):
                n = copies.get(k, 0)
                copies[k] = n + 1
                rows[i, j] = C.JOKER0 + n if k == JOKER else n * C.N_KINDS + k
        out = solve_batch(rows, self.ace_low)
        for i, key in enumerate(order):
            self.memo[key] = (int(out[i, 0]), int(out[i, 1]))

    def best_value(self, hand: Sequence[int]) -> int:
        return self.memo[tuple(sorted(hand))][0]

    def min_penalty(self, hand: Sequence[int]) -> int:
        return self.memo[tuple(sorted(hand))][1]


# ---------------------------------------------------------------- Q5


@dataclass(frozen=True)
class Candidate:
    """Q5's terms for throwing one copy of the card ``kind``: whether it ``feeds``, its
    ``prospect``, its penalty value (M7) and ``rest_penalty``, ``min_penalty`` of the other
    cards. ``key`` orders candidates: the smallest is thrown."""

    kind: int
    feeds: bool
    prospect: int
    penalty: int
    rest_penalty: int
    key: tuple

    def text(self) -> str:
        return (f"{C.kind_text(self.kind)}: feeds={self.feeds} prospect={self.prospect} "
                f"penalty={self.penalty} rest_min_penalty={self.rest_penalty}")


def _remove_one(kinds: list[int], k: int) -> list[int]:
    out = list(kinds)
    out.remove(k)
    return out


def expert_candidates(hand: Sequence[int], table: Sequence[Sequence[int]],
                      discards: Sequence[int], next_opened: bool, opened: bool,
                      rules: RomiRules) -> list[Candidate]:
    """Q5's terms for every distinct card of ``hand``, best first (the first is thrown).

    ``hand``: the card ids held when the discard is chosen (two or more); ``table``: the table
    melds as card id lists in canonical order (jokers as joker ids) after this turn's melding;
    ``discards``: the discard pile as it stands; ``next_opened``: whether the next player in
    play order has opened; ``opened``: whether this player has (after this turn's melding)."""
    if not isinstance(rules, RomiRules):
        raise UsageError("rules must be a RomiRules (RomiRules.make(...))")
    ids = C.check_ids([int(c) for c in hand])
    if len(ids) < 2:
        raise UsageError(f"the expert discard needs two cards or more in hand, got {len(ids)}")
    h = _kinds(ids)
    u = unseen_copies(ids, table, discards)
    solver = _Solver(rules.ace_low_value)
    cands = sorted(set(h))
    rests = {c: _remove_one(h, c) for c in cands}
    wanted: list[list[int]] = []
    for c in cands:
        wanted.append(rests[c])
        wanted.extend([*rests[c], d] for d in range(N_KINDS_ALL) if u[d] > 0)
    solver.ask(wanted)
    out: list[Candidate] = []
    for c in cands:
        rest = rests[c]
        rest_pen = solver.min_penalty(rest)
        if not opened:
            # Before opening: how near one more card brings the rest to an opening (O1).
            prospect = sum(u[d] * min(solver.best_value([*rest, d]), rules.open_min)
                           for d in range(N_KINDS_ALL) if u[d] > 0)
        else:
            total = 0
            for d in range(N_KINDS_ALL):
                if u[d] == 0:
                    continue
                plus = [*rest, d]
                if d == JOKER or in_some_meld(d, plus):
                    m = solver.min_penalty(plus)
                elif fits_table(d, table):
                    m = rest_pen
                else:
                    m = rest_pen + penalty_value(d)
                total += u[d] * m
            prospect = -total
        feeds = bool(next_opened) and (c == JOKER or fits_table(c, table))
        pen = penalty_value(c)
        key = (feeds, -prospect, 0 if opened else pen, rest_pen, -pen, card_order(c))
        out.append(Candidate(c, feeds, prospect, pen, rest_pen, key))
    out.sort(key=lambda cand: cand.key)
    return out


def expert_discard(hand: Sequence[int], table: Sequence[Sequence[int]],
                   discards: Sequence[int], next_opened: bool, opened: bool,
                   rules: RomiRules) -> int:
    """Q5: the kind (0 .. 51, 52 for the joker) of the card the ``expert`` throws (T7).

    A card that does not feed before one that feeds; then the higher prospect; then, before
    opening, the lower penalty value (M7); then the lower ``min_penalty`` of the other cards;
    then the higher penalty value; then card order (Q1). Arguments as in
    :func:`expert_candidates`."""
    return expert_candidates(hand, table, discards, next_opened, opened, rules)[0].kind
