"""The legal moves of a Römi position for the table engine (:mod:`simcards.romi.table`): the
reference's :meth:`~simcards.romi.reference.RoundState.legal_actions`, the same moves in the
same order, found with less work. The reference itself stays the oracle, untouched.

Where the reference spends its time. It decides T4 (the top discard after a first draw), T5 (the
cut card) and every melding move under an obligation (T4, T5, J3) by a depth-first search over
the turn's melding moves, run afresh at every step, and enumerates the hand's melds and
openings again for every state of that search. Here:

* The search is compiled (:func:`can_finish`, :mod:`simcards.romi.table_legal_kernel`): the
  same moves on the hand's kinds and the table melds' shapes, every state explored once. A
  search answers whether a finished state can be reached, so the answers are the reference's
  (the kernel's module text says why); ``tests/romi/test_table_search.py`` holds it to the
  reference's ``_Search`` on searches drawn from play.
* The whole list of moves is built here, as the reference builds it, with the hand's melds
  enumerated by compiled code (:func:`_hand_melds`, taken from a larger hand of the turn when
  they can be), openings grown on bit masks (:func:`_openings`), and a card tried on a table
  meld only when its kind could join it (:func:`_addable`). The table engine asks for it only
  where every move is wanted at once: after the draw, its paths come from compiled code and
  a path's move is made when it is played (:mod:`simcards.romi.table_paths`).
* A player who has not opened and may not open yet (O2) has no melding move: no search at all.

``tests/romi/test_table_trajectories.py`` holds the table engine to the engine that asked the
reference at every step, on recorded random rounds, step by step.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

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
from simcards.romi.table_legal_kernel import can_finish as _can_finish_kernel
from simcards.romi.table_legal_kernel import hand_meld_cards as _hand_meld_cards

_PARENTS = 8
_parents: list[tuple[frozenset[int], dict[int, int], list[int], tuple[Meld, ...]]] = []
"""The last hands whose melds were enumerated: their cards, a bit per card, each meld's cards
as bits, the melds."""


def _melds_of(hand: tuple[int, ...]) -> tuple[Meld, ...]:
    """The reference's ``_hand_melds`` of the hand, enumerated by compiled code
    (:func:`~simcards.romi.table_legal_kernel.hand_meld_cards`) and sorted here by card tuple."""
    cards, stands = _hand_meld_cards(np.array(hand, np.int64), 1)
    out = []
    for row, st in zip(cards.tolist(), stands.tolist(), strict=True):
        out.append(Meld(tuple(row[:row.index(-1)] if row[-1] < 0 else row), st))
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
    melds = _melds_of(hand)
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


_values: dict[tuple[Meld, int], int] = {}
"""Per meld and ``ace_low_value``: the reference's ``meld_value`` (M6)."""


def _value(meld: Meld, ace_low_value: int) -> int:
    """``ref.meld_value`` of a meld of the hand (valid and canonical, so not checked again):
    a set its size times its rank's value, a run its places' values (M6)."""
    key = (meld, ace_low_value)
    got = _values.get(key)
    if got is None:
        if len(_values) > 100_000:
            _values.clear()
        if ref._is_set(meld):
            real = next(c for c in meld.cards if c < C.JOKER0)
            got = len(meld.cards) * ref._rank_value(real % 13 + 1)
        else:
            start = ref._run_start(meld)
            got = sum(ref._pos_value(q, ace_low_value)
                      for q in range(start, start + len(meld.cards)))
        _values[key] = got
    return got


def _openings(hand: tuple[int, ...], rules: RomiRules) -> list[tuple[Meld, ...]]:
    """The reference's ``_openings`` (O1: disjoint melds of the hand worth ``open_min`` or more
    that leave a card for the discard, T6), in its order, with the cards used as a bit mask."""
    melds = _hand_melds(hand)
    if not melds:
        return []
    bit = {c: 1 << i for i, c in enumerate(hand)}
    masks = _masks(melds, bit)
    sizes = [len(m.cards) for m in melds]
    values = [_value(m, rules.ace_low_value) for m in melds]
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
            grow(i + 1, used | masks[i], n_used + sizes[i], t)
            chosen.pop()

    grow(0, 0, 0, 0)
    return out


_fits: dict[int, int] = {}
"""Per table meld code: :func:`_addable`'s answer."""


def _addable(code: int) -> int:
    """The kinds (bit 52: a joker) a card must have to be added to the table meld of ``code``
    (T6, M1-M4): a set of fewer than four cards takes a suit it lacks, or a joker if it has
    none; a run of fewer than 13 cards takes the card of the place below or above it, or a
    joker if it has none. A necessary condition, so that the reference's ``_add_results`` is
    asked only where an answer may exist."""
    got = _fits.get(code)
    if got is None:
        if code & 1:
            r, mask, jf = code >> 1 & 15, code >> 5 & 15, code >> 9 & 1
            got = 0
            if bin(mask).count("1") + jf < 4:
                got = 0 if jf else 1 << C.JOKER_KIND
                for s in range(4):
                    if not mask >> s & 1:
                        got |= 1 << (s * 13 + r)
        else:
            s, lo, hi, jp = code >> 1 & 3, code >> 3 & 15, code >> 7 & 15, code >> 11 & 15
            got = 0
            if hi - lo + 1 < 13:
                got = 0 if jp else 1 << C.JOKER_KIND
                if lo > 1:
                    got |= 1 << (s * 13 + (lo - 2) % 13)
                if hi < 14:
                    got |= 1 << (s * 13 + hi % 13)
        _fits[code] = got
    return got


def _melding_moves(hand: tuple[int, ...], table: tuple[Meld, ...], opened: bool,
                   may_open: bool, rules: RomiRules):
    """The reference's ``_melding_moves``: every melding move with its effect (action, hand
    after, table after, opened after, jokers freed), obligations not checked."""
    if not opened:
        if may_open:
            for melds in _openings(hand, rules):
                used = {c for m in melds for c in m.cards}
                rest = tuple(c for c in hand if c not in used)
                yield Open(melds), rest, table + melds, True, frozenset()
        return
    for m in _hand_melds(hand):
        if len(m.cards) < len(hand):
            rest = tuple(c for c in hand if c not in m.cards)
            yield Lay(m), rest, (*table, m), True, frozenset()
    distinct = sorted(set(hand))
    kinds = [C.JOKER_KIND if c >= C.JOKER0 else c % 52 for c in distinct]
    if len(hand) >= 2:
        for t, meld in enumerate(table):
            fits = _addable(_code(meld))
            if not fits:
                continue
            for c, k in zip(distinct, kinds, strict=True):
                if not fits >> k & 1:
                    continue
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


_codes: dict[int, tuple[Meld, int]] = {}
"""Per table meld, by its object's id (the meld kept beside its code, so that the id is not
reused while it is here): its code for the compiled search (``table_legal_kernel.run_code``,
``set_code``). The table's melds are the same objects from step to step."""


def _code(meld: Meld) -> int:
    got = _codes.get(id(meld))
    if got is not None and got[0] is meld:
        return got[1]
    real = [c for c in meld.cards if c < C.JOKER0]
    joker = len(real) < len(meld.cards)
    if len({c % 13 for c in real}) == 1:
        mask = 0
        for c in real:
            mask |= 1 << ((c % 52) // 13)
        code = 1 | (real[0] % 13) << 1 | mask << 5 | joker << 9
    else:
        first = meld.cards[0]
        lo = meld.stands_for % 13 + 1 if first >= C.JOKER0 else first % 13 + 1
        jp = 0
        if joker:
            jp = lo + next(i for i, c in enumerate(meld.cards) if c >= C.JOKER0)
        code = ((real[0] % 52) // 13) << 1 | lo << 3 | (lo + len(meld.cards) - 1) << 7 | jp << 11
    if len(_codes) > 100_000:
        _codes.clear()
    _codes[id(meld)] = (meld, code)
    return code


def table_codes(r: ref.RoundState) -> np.ndarray:
    """The codes of the round's table melds (:func:`_code`), kept on the round with the melds
    they were made from until the table changes (a meld is never changed in place: an added
    card or a swap puts a new one there, so equal lists are the same table)."""
    got = getattr(r, "_table_codes", None)
    if got is not None and got[0] == r.table:
        return got[1]
    codes = np.array([_code(m) for m in r.table], np.int64)
    r._table_codes = (list(r.table), codes)  # type: ignore[attr-defined]
    return codes


def _plus(have1: int, have2: int, kind: int) -> tuple[int, int]:
    """The kinds held once and twice (bits) with one more card of ``kind``."""
    b = 1 << kind
    return (have1, have2 | b) if have1 & b else (have1 | b, have2)


def hand_position(hand: Sequence[int], must: int | None,
                  freed: set[int] | frozenset[int]) -> tuple[int, int, int, int, int, int]:
    """A hand as the compiled search reads it: the kinds held (``have1``) and held twice
    (``have2``) as bits, the jokers and how many of them are owed (freed by a swap, J3, or the
    card taken under T4, ``must``), and the T4 card's kind with the count of it the hand may
    keep (-1, -1 when it is a joker or not held: a joker is owed instead)."""
    have1 = have2 = jokers = owed = 0
    for c in hand:
        if c >= C.JOKER0:
            jokers += 1
            if c in freed or c == must:
                owed += 1
        else:
            have1, have2 = _plus(have1, have2, c % 52)
    must_kind = must_max = -1
    if must is not None and must < C.JOKER0 and must in hand:
        must_kind = must % 52
        must_max = have2 >> must_kind & 1
    return have1, have2, jokers, owed, must_kind, must_max


def can_finish(rules: RomiRules, may_open: bool, must: int | None, go_out: bool,
               hand: Sequence[int], table: Sequence[Meld], opened: bool,
               freed: frozenset[int], codes: np.ndarray | None = None) -> bool:
    """The reference's ``_Search(rules, may_open, must, go_out).can_finish(hand, table, opened,
    freed)``, answered by the compiled search (:mod:`simcards.romi.table_legal_kernel`) on the
    hand's kinds and the table's codes (``codes`` where the caller has them)."""
    have1, have2, jokers, owed, must_kind, must_max = hand_position(hand, must, freed)
    if codes is None:
        codes = np.array([_code(m) for m in table], np.int64)
    return bool(_can_finish_kernel(have1, have2, jokers, owed, opened, may_open, must_kind,
                                   must_max, go_out, codes, rules.open_min, rules.ace_low_value))


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
    r._cache["T4"] = _with_card(r, top, True)
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
    r._cache["T5"] = _with_card(r, r.cut, False)
    return bool(r._cache["T5"])


def _with_card(r: ref.RoundState, card: int, t4: bool) -> bool:
    """The draw's question of T4 (``t4``: can ``card``, the top discard, be melded this
    turn?) or T5 (can the player go out with ``card``, the cut card?): :func:`can_finish` on
    the hand with ``card``, the hand read once for both (in the round's cache of answers)."""
    base = r._cache.get("hand")
    if base is None:  # a new turn: nothing freed, nothing taken under T4 yet
        base = r._cache["hand"] = hand_position(r.hands[r.player], None, frozenset())
    have1, have2, jokers, owed = base[:4]
    must_kind = must_max = -1
    if card >= C.JOKER0:
        jokers += 1
        owed += t4  # a joker taken under T4 must be laid again
    else:
        have1, have2 = _plus(have1, have2, card % 52)
        if t4:
            must_kind = card % 52
            must_max = have2 >> must_kind & 1
    rules = r.rules
    return bool(_can_finish_kernel(have1, have2, jokers, owed, r.opened[r.player], r._may_open(),
                                   must_kind, must_max, not t4, table_codes(r), rules.open_min,
                                   rules.ace_low_value))


class _CompiledSearch(ref._Search):
    """The reference's ``_Search`` answered by :func:`can_finish`. Put in the round's own
    searches of the turn (``RoundState._searches``), it answers the reference's
    ``_finishable``: the filter of the moves here, and the reference's check of the move
    played (``apply``), which then does not search again in Python."""

    def can_finish(self, hand: tuple[int, ...], table: tuple[Meld, ...], opened: bool,
                   freed: frozenset[int]) -> bool:
        return can_finish(self.rules, self.may_open, self.must_place, self.go_out, hand, table,
                          opened, freed)


def _compile_searches(r: ref.RoundState) -> None:
    """Give the round's turn the compiled searches its ``_finishable`` asks (T4's card in hand
    or placed, T5 or not)."""
    for must in {r.must_place, None}:
        key = (must, r.must_go_out)
        if not isinstance(r._searches.get(key), _CompiledSearch):
            r._searches[key] = _CompiledSearch(r.rules, r._may_open(), must, r.must_go_out)


def _meld_phase(r: ref.RoundState) -> list[Action]:
    """The reference's moves after the draw (or on the starter's first turn, D4): openings,
    lays, adds and swaps that keep the turn finishable (each kind sorted), then discards."""
    p = r.player
    out: list[Action] = []
    if r.phase == ref.MELD:
        freed = frozenset(r.freed)
        _compile_searches(r)
        moves = [a for a, h, t, o, f in _melding_moves(tuple(sorted(r.hands[p])), tuple(r.table),
                                                        r.opened[p], r._may_open(), r.rules)
                 if r._finishable(h, t, o, f | freed)]
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
    out: list[Action] = [_STOCK]
    if r.discards and _may_take_discard(r):
        out.append(_DISCARD)
    if r.cut is not None and _may_take_cut(r):
        out.append(_CUT)
    return out


_STOCK, _DISCARD, _CUT = DrawStock(), DrawDiscard(), DrawCut()
"""The draws (frozen, so one of each serves every state)."""


__all__ = ["legal_actions"]
