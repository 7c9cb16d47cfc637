"""The legal moves of a Römi position for the table engine (:mod:`simcards.romi.table`): the
reference's :meth:`~simcards.romi.reference.RoundState.legal_actions`, the same moves in the
same order, found with less work. The reference itself stays the oracle, untouched.

Where the reference spends its time. It decides T4 (the top discard after a first draw), T5 (the
cut card) and every melding move under an obligation (T4, T5, J3) by a depth-first search over
the turn's melding moves, run afresh at every step, and enumerates the hand's melds and
openings again for every state of that search. Here:

* The search (:class:`_Search`) is the reference's, on the reference's moves, but with a
  stronger necessary test than its ``hopeless`` (:func:`_dead`): a card in no meld of the hand
  that joins no table meld cannot be placed, unless the hand could free a table joker. A search
  answers whether a finished state can be reached, and every state this test drops cannot
  reach one, so the answers are the reference's. A player who has not opened and may not open
  yet (O2) has no melding move: no search at all.
* A hand's melds (:func:`_hand_melds`) are those of a larger hand of the turn that use only its
  cards, or else the melds of each rank's and each suit's cards with the jokers, small hands
  whose answers recur from step to step; openings (:func:`_openings`) are grown on bit masks.

``tests/romi/test_table_trajectories.py`` holds the table engine to the engine that asked the
reference at every step, on recorded random rounds, step by step.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

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


def _on_table(k: int, kinds: set[int],
              shapes: Sequence[tuple[int, int, int, int, frozenset[int]]]) -> bool:
    """The table half of the reference's ``_could_ever_place`` for a real card of kind ``k`` in
    a hand holding the real ``kinds``: a table set of its rank lacks its suit, or a table run
    of its suit has its place free inside (the joker's) or outside with every place between
    held by the hand but one at most (M1, M2, M4, J1)."""
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
    return False


def _near(k: int, kinds: set[int]) -> bool:
    """The hand half of the reference's ``_could_ever_place``: another kind of the hand of the
    same rank, or of the same suit within two places (a new meld holds each real card's
    neighbour at most one joker away)."""
    r, s = k % 13, k // 13
    pos = _positions(k)
    for k2 in kinds:
        if k2 == k:
            continue
        if k2 % 13 == r:
            return True
        if k2 // 13 == s and min(abs(a - b) for a in _positions(k2) for b in pos) <= 2:
            return True
    return False


@lru_cache(maxsize=100_000)
def _group_kinds(cards: tuple[int, ...]) -> frozenset[int]:
    """The real kinds in some meld of ``cards`` (the reference's ``_hand_melds``)."""
    return frozenset(c % 52 for m in ref._hand_melds(cards) for c in m.cards if c < C.JOKER0)


def _in_meld(k: int, kinds: set[int], jokers: int) -> bool:
    """Whether a real card of kind ``k`` is in a meld of a hand of the real ``kinds`` and
    ``jokers`` jokers: a set of its rank or a run of its suit (M1, M2), with one joker at most
    (M4), so the rank's and the suit's kinds and one joker decide it."""
    joker = (C.JOKER0,) if jokers else ()
    r, s = k % 13, k // 13
    if k in _group_kinds((*sorted(x for x in kinds if x % 13 == r), *joker)):
        return True
    return k in _group_kinds((*sorted(x for x in kinds if x // 13 == s), *joker))


def _may_free_joker(kinds: set[int], table: Sequence[Meld]) -> bool:
    """Whether the hand could free a table joker by a swap (J1): a run's joker keeps its card
    (M5), which the hand must hold; a set's joker stands for a suit the set lacks, and adds
    only change which, so the hand must hold a card of the set's rank and a suit it lacks. The
    hand only loses real cards during the turn, so a joker it cannot free now it cannot free
    later."""
    for m in table:
        if m.stands_for == NO_JOKER:
            continue
        kind, _, _, _, held = _shape(m)
        if kind == _RUN:
            if m.stands_for in kinds:
                return True
        elif any(k % 13 == m.stands_for % 13 and k not in held for k in kinds):
            return True
    return False


def _dead(hand: tuple[int, ...], table: Sequence[Meld], cards: Sequence[int]) -> int:
    """How many of ``cards`` (real cards of ``hand``) cannot be placed this turn.

    The reference's ``_could_ever_place`` says a card is placeable when it could join a table
    meld (:func:`_on_table`) or another card of the hand is near it (:func:`_near`). Unless the
    hand could free a table joker (:func:`_may_free_joker`), the second half is replaced by a
    stronger one: the card is in a meld of the hand's cards (:func:`_in_meld`). A card that
    joins no table meld reaches the table only in a meld laid from the hand, perhaps grown by
    adds or by a swap for one of the hand's own jokers, and that meld is a meld of the hand's
    cards; only a joker freed from the table could make another. So a state the reference's
    test rejects is rejected here too, and so is every state from which the turn cannot be
    finished that this test finds: the search's answer, whether a finished state can be
    reached, is the same."""
    kinds = {c % 52 for c in hand if c < C.JOKER0}
    shapes = [_shape(m) for m in table]
    strict: bool | None = None
    jokers = sum(1 for c in hand if c >= C.JOKER0)
    verdict: dict[int, bool] = {}
    dead = 0
    for c in cards:
        k = c % 52
        ok = verdict.get(k)
        if ok is None:
            ok = _on_table(k, kinds, shapes)
            if not ok:
                if strict is None:
                    strict = not _may_free_joker(kinds, table)
                ok = _in_meld(k, kinds, jokers) if strict else _near(k, kinds)
            verdict[k] = ok
        if not ok:
            dead += 1
    return dead


def _hopeless_must(card: int, hand: tuple[int, ...], table: Sequence[Meld]) -> bool:
    """The reference's ``hopeless`` for a T4 search: the card taken cannot be placed."""
    return card < C.JOKER0 and _dead(hand, table, (card,)) > 0


def _hopeless_out(hand: tuple[int, ...], table: Sequence[Meld]) -> bool:
    """The reference's ``hopeless`` for a T5 search: more than one card cannot be placed."""
    return _dead(hand, table, [c for c in hand if c < C.JOKER0]) > 1


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
    masks = _masks(melds, bit)
    _parents.insert(0, (cards, bit, masks, melds))
    del _parents[_PARENTS:]
    return melds


def _masks(melds: Sequence[Meld], bit: dict[int, int]) -> list[int]:
    """Each meld's cards as a bit mask over the hand (``bit``: a card's bit)."""
    masks = []
    for m in melds:
        b = 0
        for c in m.cards:
            b |= bit[c]
        masks.append(b)
    return masks


def _openings(hand: tuple[int, ...], rules: RomiRules,
              minimal: bool) -> list[tuple[Meld, ...]]:
    """The reference's ``_openings`` (O1: disjoint melds of the hand worth ``open_min`` or more
    that leave a card for the discard, T6), in its order, with the cards used as a bit mask."""
    melds = _hand_melds(hand)
    if not melds:
        return []
    bit = {c: 1 << i for i, c in enumerate(hand)}
    masks = _masks(melds, bit)
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


class _Search(ref._Search):
    """The reference's ``_Search`` (can the turn still be finished with every obligation met?)
    with :func:`_placeable` for its ``hopeless`` test. The melding moves are the reference's
    own (``_melding_moves``); every move puts a real card on the table or takes a card from the
    hand, so the moves of a turn form no cycle and the answer is whether a finished state can
    be reached, whatever order the moves are tried in."""

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
    """T3, T4: the reference's ``_can_take_discard``. The answer is left in the round's cache
    of answers under the reference's own key, so that the reference's check of the draw, when
    it is played, does not search again."""
    p = r.player
    if not r.has_drawn[p]:
        return True
    if "T4" in r._cache:
        return bool(r._cache["T4"])
    top = r.discards[-1]
    if not r.opened[p] and not r._may_open():
        return False
    hand = tuple(sorted([*r.hands[p], top]))
    r._cache["T4"] = _Search(r.rules, r._may_open(), top, False).can_finish(
        hand, tuple(r.table), r.opened[p], frozenset())
    return bool(r._cache["T4"])


def _may_take_cut(r: ref.RoundState) -> bool:
    """T5: the reference's ``_can_take_cut`` (the hand with the cut card holds two cards at
    least, so going out needs a melding move), left in the round's cache as T4's is."""
    if "T5" in r._cache:
        return bool(r._cache["T5"])
    p = r.player
    if not r.opened[p] and not r._may_open():
        return False
    assert r.cut is not None
    hand = tuple(sorted([*r.hands[p], r.cut]))
    r._cache["T5"] = _Search(r.rules, r._may_open(), None, True).can_finish(
        hand, tuple(r.table), r.opened[p], frozenset())
    return bool(r._cache["T5"])


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
