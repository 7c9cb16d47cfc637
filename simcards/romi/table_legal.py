"""The legal moves of a Römi position for the table engine (:mod:`simcards.romi.table`): the
reference's :meth:`~simcards.romi.reference.RoundState.legal_actions`, the same moves in the same
order, without its searches where a cheaper test already settles the answer.

The reference decides T4 (the top discard after a first draw) and T5 (the cut card) by a
depth-first search over the turn's melding moves, run afresh at every draw, and that search
opens with a necessary condition, ``hopeless``: the T4 card, and when going out every card but
one, must each be *placeable* (``_could_ever_place``: a table meld or another card of the hand
it could meet). Most draws fail that condition, so this module asks it first, once per kind of
the hand instead of once per card and meld, and calls the reference's search only when it
passes. The answers are the reference's own whenever the search runs; when it does not, the
search would have stopped at the same condition and answered no. A player who has not opened
and may not open yet (O2) has no melding move at all, so he can neither meld the T4 card nor
go out: no search either.

The melding phase is the reference's (its moves keep every obligation by the same search, but
the move generation dominates there and is shared with the search itself).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from simcards.romi import cards as C
from simcards.romi import reference as ref
from simcards.romi.actions import (
    NO_JOKER,
    Action,
    Add,
    Discard,
    DrawCut,
    DrawDiscard,
    DrawStock,
    Lay,
    Meld,
    Open,
    Swap,
)
from simcards.romi.rules import RomiRules

_RUN, _SET = 0, 1
_shapes: dict[Meld, tuple[int, int, int, int, frozenset[int]]] = {}
"""Per table meld: (set or run, its rank (a set) or suit (a run), the run's first and last
positions 1 .. 14, the kinds of its real cards)."""


def _shape(meld: Meld) -> tuple[int, int, int, int, frozenset[int]]:
    got = _shapes.get(meld)
    if got is None:
        real = [c for c in meld.cards if c < C.JOKER0]
        held = frozenset(c % 52 for c in real)
        if len({c % 13 for c in real}) == 1:
            got = (_SET, real[0] % 13 + 1, 0, 0, held)
        else:
            first = meld.cards[0]
            lo = meld.stands_for % 13 + 1 if first >= C.JOKER0 else first % 13 + 1
            got = (_RUN, (real[0] % 52) // 13, lo, lo + len(meld.cards) - 1, held)
        if len(_shapes) > 100_000:
            _shapes.clear()
        _shapes[meld] = got
    return got


def _positions(k: int) -> tuple[int, ...]:
    r = k % 13 + 1
    return (1, 14) if r == 1 else (r,)


def _pos_kind(s: int, pos: int) -> int:
    return s * 13 + (0 if pos == 14 else pos - 1)


def _placeable(k: int, kinds: frozenset[int] | set[int],
               shapes: Sequence[tuple[int, int, int, int, frozenset[int]]],
               in_melds: set[int] | None) -> bool:
    """The reference's ``_could_ever_place`` for a real card of kind ``k`` in a hand holding the
    real ``kinds``, against table melds of ``shapes``: a table meld it could join, or another
    kind of the hand within reach (M1, M2, M4).

    ``in_melds``, when given, are the kinds of the hand's own melds (``_hand_melds``), and
    replace the hand's kinds within reach: without a joker on the table (the caller's case) a
    card that joins no table meld reaches the table only in a meld of the hand's cards (laid,
    then perhaps grown by adds or by a swap for one of the hand's jokers, which are melds of the
    hand's cards too), so a card in none of them cannot be placed. A stronger necessary
    condition than the reference's: a state it rejects cannot finish the turn either, and the
    search's answer, whether a finished state can be reached, is the same."""
    r, s = k % 13, k // 13
    pos = _positions(k)
    for kind, what, lo, hi, held in shapes:
        if k in held:
            continue
        if kind == _SET:
            if what == r + 1:
                return True
            continue
        if what != s:
            continue
        for p in pos:
            if lo <= p <= hi:
                return True
            gap = range(p + 1, lo) if p < lo else range(hi + 1, p)
            missing = 0
            for q in gap:
                if _pos_kind(s, q) not in kinds:
                    missing += 1
            if missing <= 1 and max(hi, p) - min(lo, p) + 1 <= 13:
                return True
    if in_melds is not None:
        return k in in_melds
    for k2 in kinds:
        if k2 == k:
            continue
        if k2 % 13 == r:
            return True
        if k2 // 13 == s and min(abs(a - b) for a in _positions(k2) for b in pos) <= 2:
            return True
    return False


def _meld_kinds(hand: tuple[int, ...], table: Sequence[Meld]) -> set[int] | None:
    """The real kinds of the hand's melds, or None when a table meld holds a joker (a swap can
    free it for a meld of the hand's cards and a joker from the table: see :func:`_placeable`)."""
    if any(m.stands_for != NO_JOKER for m in table):
        return None
    return {c % 52 for m in _hand_melds(hand) for c in m.cards if c < C.JOKER0}


def _hopeless_must(card: int, hand: tuple[int, ...], table: Sequence[Meld]) -> bool:
    """The reference's ``hopeless`` for a T4 search (the card taken cannot be placed), with
    the stronger test of :func:`_placeable`."""
    if card >= C.JOKER0:
        return False
    kinds = {c % 52 for c in hand if c < C.JOKER0}
    return not _placeable(card % 52, kinds, [_shape(m) for m in table], _meld_kinds(hand, table))


def _hopeless_out(hand: tuple[int, ...], table: Sequence[Meld]) -> bool:
    """The reference's ``hopeless`` for a T5 search (more than one card cannot be placed),
    with the stronger test of :func:`_placeable`."""
    kinds = {c % 52 for c in hand if c < C.JOKER0}
    shapes = [_shape(m) for m in table]
    in_melds = _meld_kinds(hand, table)
    dead = 0
    verdict: dict[int, bool] = {}
    for c in hand:
        if c >= C.JOKER0:
            continue
        k = c % 52
        ok = verdict.get(k)
        if ok is None:
            ok = verdict[k] = _placeable(k, kinds, shapes, in_melds)
        if not ok:
            dead += 1
            if dead > 1:
                return True
    return False


_PARENTS = 8
_parents: list[tuple[frozenset[int], dict[int, int], list[int], tuple[Meld, ...]]] = []
"""The last hands whose melds were enumerated: their cards, a bit per card, each meld's cards
as bits, the melds."""


def _melds_by_group(hand: tuple[int, ...]) -> tuple[Meld, ...]:
    """The reference's ``_hand_melds`` of the hand, asked of its parts: a set holds one rank
    and a run one suit (M1, M2), each with the hand's jokers (M4), so the melds of the hand are
    those of each rank's cards with the jokers and of each suit's cards with the jokers, and
    these small hands recur from step to step (the reference keeps their answers)."""
    jokers = tuple(c for c in hand if c >= C.JOKER0)
    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, list[int]] = {}
    for c in hand:
        if c < C.JOKER0:
            by_rank.setdefault(c % 13, []).append(c)
            by_suit.setdefault((c % 52) // 13, []).append(c)
    out: list[Meld] = []
    for group in (*by_rank.values(), *by_suit.values()):
        if len({c % 52 for c in group}) >= 2:
            out += ref._hand_melds(tuple(sorted((*group, *jokers))))
    out.sort(key=lambda m: m.cards)
    return tuple(out)


def _hand_melds(hand: tuple[int, ...]) -> tuple[Meld, ...]:
    """The reference's ``_hand_melds`` (every valid canonical meld of the hand's cards, sorted
    by card tuple). The melds of a hand are those of any larger hand that use only its cards,
    in the same order, and the hands of a turn and of its searches are mostly a hand of the
    turn less some cards: they are taken from the last hands enumerated when they can be."""
    cards = frozenset(hand)
    for held, bit, masks, melds in _parents:
        if cards <= held:
            mine = 0
            for c in hand:
                mine |= bit[c]
            return tuple(m for m, b in zip(melds, masks, strict=True) if not b & ~mine)
    melds = _melds_by_group(hand)
    bit = {c: 1 << i for i, c in enumerate(hand)}
    masks = []
    for m in melds:
        b = 0
        for c in m.cards:
            b |= bit[c]
        masks.append(b)
    _parents.insert(0, (cards, bit, masks, melds))
    del _parents[_PARENTS:]
    return melds


def _openings(hand: tuple[int, ...], rules: RomiRules,
              minimal: bool) -> list[tuple[Meld, ...]]:
    """The reference's ``_openings`` (O1: disjoint melds of the hand worth ``open_min`` or more
    that leave a card for the discard, T6), in its order, with the cards used as a bit mask."""
    melds = _hand_melds(hand)
    if not melds:
        return []
    bit = {c: 1 << i for i, c in enumerate(hand)}
    masks = []
    for m in melds:
        b = 0
        for c in m.cards:
            b |= bit[c]
        masks.append(b)
    sizes = [len(m.cards) for m in melds]
    values = [ref.meld_value(m, rules.ace_low_value) for m in melds]
    need = rules.open_min
    room = len(hand)
    out: list[tuple[Meld, ...]] = []
    chosen: list[int] = []
    count = len(melds)

    def grow(start: int, used: int, n_used: int, total: int) -> None:
        for i in range(start, count):
            if used & masks[i] or n_used + sizes[i] >= room:
                continue
            t = total + values[i]
            chosen.append(i)
            if t >= need:
                out.append(tuple(melds[k] for k in chosen))
                if not minimal:
                    grow(i + 1, used | masks[i], n_used + sizes[i], t)
            else:
                grow(i + 1, used | masks[i], n_used + sizes[i], t)
            chosen.pop()

    grow(0, 0, 0, 0)
    return out


def _melding_moves(hand: tuple[int, ...], table: tuple[Meld, ...], opened: bool,
                   may_open: bool, rules: RomiRules, minimal: bool = False):
    """The reference's ``_melding_moves``: every melding move with its effect (action, hand
    after, table after, opened after, jokers freed), obligations not checked."""
    if not opened:
        if may_open:
            for melds in _openings(hand, rules, minimal):
                used = {c for m in melds for c in m.cards}
                rest = tuple(c for c in hand if c not in used)
                yield Open(melds), rest, table + melds, True, frozenset()
        return
    for m in _hand_melds(hand):
        if len(m.cards) < len(hand):
            rest = tuple(c for c in hand if c not in m.cards)
            yield Lay(m), rest, (*table, m), True, frozenset()
    distinct = sorted(set(hand))
    if len(hand) >= 2:
        for t, meld in enumerate(table):
            for c in distinct:
                for stands, new in ref._add_results(meld, c):
                    rest = tuple(x for x in hand if x != c)
                    yield (Add(t, c, stands), rest, (*table[:t], new, *table[t + 1:]), True,
                           frozenset())
    for t, meld in enumerate(table):
        if meld.stands_for == NO_JOKER:
            continue
        for c in distinct:
            new = ref._swap_result(meld, c)
            if new is not None:
                j = ref._joker_of(meld)
                h2 = tuple(sorted([x for x in hand if x != c] + [j]))
                yield Swap(t, c), h2, (*table[:t], new, *table[t + 1:]), True, frozenset((j,))


class _Search:
    """The reference's ``_Search`` (can the turn still be finished with every obligation met?)
    with :func:`_placeable` for its ``hopeless`` test. The melding moves are the reference's
    own (``_melding_moves``); every move puts a real card on the table or takes a card from the
    hand, so the moves of a turn form no cycle and the answer is whether a finished state can
    be reached, whatever order the moves are tried in."""

    def __init__(self, rules: RomiRules, may_open: bool, must_place: int | None,
                 go_out: bool) -> None:
        self.rules = rules
        self.may_open = may_open
        self.must_place = must_place
        self.go_out = go_out
        self.memo: dict[tuple, bool] = {}

    def done(self, hand: tuple[int, ...], freed: frozenset[int]) -> bool:
        if not hand or freed.intersection(hand):
            return False
        if self.must_place is not None and self.must_place in hand:
            return False
        return not self.go_out or len(hand) == 1

    def hopeless(self, hand: tuple[int, ...], table: Sequence[Meld]) -> bool:
        must = self.must_place
        if must is not None and must in hand and _hopeless_must(must, hand, table):
            return True
        return self.go_out and _hopeless_out(hand, table)

    def can_finish(self, hand: tuple[int, ...], table: tuple[Meld, ...], opened: bool,
                   freed: frozenset[int]) -> bool:
        freed = freed.intersection(hand)
        if self.done(hand, freed):
            return True
        key = (hand, frozenset(Counter(table).items()), opened, freed)
        got = self.memo.get(key)
        if got is not None:
            return got
        self.memo[key] = False
        result = False
        if not self.hopeless(hand, table):
            for _, h2, t2, o2, f2 in _melding_moves(hand, table, opened, self.may_open, self.rules,
                                                    minimal=True):
                if self.can_finish(h2, t2, o2, freed | f2):
                    result = True
                    break
        self.memo[key] = result
        return result


def _may_take_discard(r: ref.RoundState) -> bool:
    """T3, T4: the reference's ``_can_take_discard``."""
    p = r.player
    if not r.has_drawn[p]:
        return True
    if "T4" in r._cache:
        return bool(r._cache["T4"])
    top = r.discards[-1]
    if not r.opened[p] and not r._may_open():
        return False
    hand = tuple(sorted([*r.hands[p], top]))
    return _Search(r.rules, r._may_open(), top, False).can_finish(
        hand, tuple(r.table), r.opened[p], frozenset())


def _may_take_cut(r: ref.RoundState) -> bool:
    """T5: the reference's ``_can_take_cut`` (the hand with the cut card holds two cards at
    least, so going out needs a melding move)."""
    if "T5" in r._cache:
        return bool(r._cache["T5"])
    p = r.player
    if not r.opened[p] and not r._may_open():
        return False
    assert r.cut is not None
    hand = tuple(sorted([*r.hands[p], r.cut]))
    return _Search(r.rules, r._may_open(), None, True).can_finish(
        hand, tuple(r.table), r.opened[p], frozenset())


def _finishable(r: ref.RoundState, searches: dict, hand: tuple[int, ...],
                table: tuple[Meld, ...], opened: bool, freed: frozenset[int]) -> bool:
    """The reference's ``_finishable``: the turn can still be finished after a move."""
    must = r.must_place if r.must_place in hand else None
    if must is None and not r.must_go_out and not freed.intersection(hand):
        return len(hand) >= 1
    key = (must, r.must_go_out)
    if key not in searches:
        searches[key] = _Search(r.rules, r._may_open(), must, r.must_go_out)
    return searches[key].can_finish(hand, table, opened, freed)


def _meld_phase(r: ref.RoundState) -> list[Action]:
    """The reference's moves after the draw (or on the starter's first turn, D4): openings,
    lays, adds and swaps that keep the turn finishable (each kind sorted), then discards."""
    p = r.player
    out: list[Action] = []
    if r.phase == ref.MELD:
        freed = frozenset(r.freed)
        searches: dict = {}
        moves = [a for a, h, t, o, f in _melding_moves(tuple(sorted(r.hands[p])), tuple(r.table),
                                                        r.opened[p], r._may_open(), r.rules)
                 if _finishable(r, searches, h, t, o, f | freed)]
        opens = sorted((a for a in moves if isinstance(a, Open)),
                       key=lambda a: tuple(m.cards for m in a.melds))
        lays = sorted((a for a in moves if isinstance(a, Lay)), key=lambda a: a.meld.cards)
        adds = sorted((a for a in moves if isinstance(a, Add)),
                      key=lambda a: (a.target, a.card, a.stands_for))
        swaps = sorted((a for a in moves if isinstance(a, Swap)), key=lambda a: (a.target, a.card))
        out += opens + lays + adds + swaps
    hand = r.hands[p]
    if (not r.freed.intersection(hand)
            and not (r.must_place is not None and r.must_place in hand)
            and not (r.must_go_out and len(hand) != 1)):
        out += [Discard(c) for c in sorted(hand)]
    return out


def legal_actions(r: ref.RoundState) -> list[Action]:
    """``r.legal_actions()``: the same moves in the same order."""
    if r.is_over():
        return []
    if r.phase != ref.DRAW:
        return _meld_phase(r)
    out: list[Action] = [DrawStock()]
    if r.discards and _may_take_discard(r):
        out.append(DrawDiscard())
    if r.cut is not None and _may_take_cut(r):
        out.append(DrawCut())
    return out


__all__ = ["legal_actions"]
