"""The table engine's legal moves after the draw, keyed by action path, found by compiled code
(:mod:`simcards.romi.table_paths_kernel`) and made into moves only when asked.

:meth:`simcards.romi.table.RomiTable.moves` offers one move per path: of the reference's legal
moves (:func:`~simcards.romi.table_legal.legal_actions`) with that path, the one with the most
cards known to the others, then the lowest card ids. An environment asks for the
paths at every step, but plays one move: so the paths come from the kernel, on the hand's
kinds, and a path's move is chosen from the reference's moves with that path, when it is
looked up (:class:`LazyMoves`). The result is the mapping the whole list gave, entry for
entry and in the same order (``tests/romi/test_table_paths.py`` holds it to that list).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from itertools import product

import numpy as np

from simcards.romi import cards as C
from simcards.romi import reference as ref
from simcards.romi import table_codes as T
from simcards.romi.actions import NO_JOKER, Action, Add, Discard, Lay, Meld, Open, Swap
from simcards.romi.table_legal import _compile_searches, hand_position, table_codes
from simcards.romi.table_legal_kernel import run_code, set_code
from simcards.romi.table_paths_kernel import PATH_WIDTH, meld_paths

Path = tuple[int, ...]


class LazyMoves(Mapping[Path, Action]):
    """Paths in order, each path's move made by ``make`` the first time it is looked up; a
    look at every move (``values``, ``items``) takes them from ``make_all`` at once."""

    __slots__ = ("_make", "_make_all", "_moves")

    def __init__(self, paths: list[Path], make: Callable[[Path], Action],
                 make_all: Callable[[], Mapping[Path, Action]]) -> None:
        self._moves: dict[Path, Action | None] = dict.fromkeys(paths)
        self._make = make
        self._make_all = make_all

    def _whole(self) -> dict[Path, Action]:
        if any(m is None for m in self._moves.values()):
            self._moves = dict(self._make_all())
        return self._moves  # type: ignore[return-value]

    def values(self):  # type: ignore[override]
        return self._whole().values()

    def items(self):  # type: ignore[override]
        return self._whole().items()

    def __getitem__(self, path: Path) -> Action:
        move = self._moves[path]
        if move is None:
            move = self._moves[path] = self._make(path)
        return move

    def __contains__(self, path: object) -> bool:
        return path in self._moves

    def __iter__(self) -> Iterator[Path]:
        return iter(self._moves)

    def __len__(self) -> int:
        return len(self._moves)


@lru_cache(maxsize=1)
def shape_of() -> np.ndarray:
    """Each meld code of the turn search (``run_code``, ``set_code``) to its shape number in
    ``table_codes``, -1 for no shape."""
    out = np.full(1 << 15, -1, np.int64)
    for i, s in enumerate(T.SHAPES):
        if s.run:
            code = run_code(s.suit, s.lo, s.lo + s.length - 1, s.joker)
        else:
            code = set_code(s.rank - 1, s.suits, s.joker)
        out[code] = i
    return out


_rows = np.empty((256, PATH_WIDTH), np.int64)
_lens = np.empty(256, np.int64)


CODES = np.array([T.DISCARD0, T.OPEN_DONE, T.SHAPE0, T.ADD0, T.ADD_VARIANTS, T.SWAP0],
                 np.int64)
"""The offsets of ``table_codes`` the kernel writes paths with."""


def _kernel_paths(r: ref.RoundState, discards: bool) -> list[Path]:
    """The melding paths of the player in turn (the kernel's module text), then with
    ``discards`` his discards, unsorted."""
    global _rows, _lens
    p = r.player
    hand = r.hands[p]
    must = r.must_place if r.must_place in hand else None
    have1, have2, jokers, owed, must_kind, must_max = hand_position(hand, must, r.freed)
    table = table_codes(r)
    rules = r.rules
    while True:
        n = meld_paths(have1, have2, jokers, owed, r.opened[p], r._may_open(), must_kind,
                       must_max, r.must_go_out, table, rules.open_min, rules.ace_low_value,
                       shape_of(), CODES, discards, _rows, _lens)
        if n >= 0:
            break
        _rows = np.empty((2 * _rows.shape[0], PATH_WIDTH), np.int64)
        _lens = np.empty(_rows.shape[0], np.int64)
    rows = _rows[:n].tolist()
    return [tuple(row[:k]) for row, k in zip(rows, _lens[:n].tolist(), strict=True)]


def after_draw_moves(r: ref.RoundState, known: set[int],
                     make_all: Callable[[], Mapping[Path, Action]]) -> LazyMoves:
    """The moves of the player in turn after the draw (or on the starter's first turn, D4),
    by path, in path order: the melding paths the turn can still be finished after, then the
    discards the obligations allow (T4, T5, J3)."""
    hand = r.hands[r.player]
    discards = (not r.freed.intersection(hand)
                and not (r.must_place is not None and r.must_place in hand)
                and not (r.must_go_out and len(hand) != 1))
    if r.phase == ref.MELD:
        paths = _kernel_paths(r, discards)
    else:  # the starter's first turn: only a discard (D4)
        joker = T.DISCARD0 + C.JOKER_KIND
        paths = [(k,) for k in {joker if c >= C.JOKER0 else T.DISCARD0 + c % C.N_KINDS
                                for c in hand}]
    paths.sort()
    return LazyMoves(paths, lambda path: _move(r, known, path), make_all)


def _move(r: ref.RoundState, known: set[int], path: Path) -> Action:
    """The move of ``path`` (module text): of the reference's legal moves with this path, in
    the reference's order, the first with the most cards known to the others, then the
    lowest ids."""
    if path[0] < T.OPEN_DONE:  # a discard: of the copies held, a known one, then the lowest
        kind = path[0] - T.DISCARD0
        return Discard(min((c for c in r.hands[r.player]
                            if (C.JOKER_KIND if c >= C.JOKER0 else c % C.N_KINDS) == kind),
                           key=lambda c: (c not in known, c)))

    return min(_moves_of(r, path), key=lambda a: copy_key(a, known))


def cards_of(move: Action) -> tuple[int, ...]:
    """The hand's cards a move puts on the table or the pile."""
    if isinstance(move, Open):
        return tuple(c for m in move.melds for c in m.cards)
    if isinstance(move, Lay):
        return move.meld.cards
    if isinstance(move, Add | Swap | Discard):
        return (move.card,)
    return ()


def copy_key(move: Action, known: set[int]) -> tuple[int, tuple[int, ...]]:
    """Of the moves with one path, the one kept has the least key: most cards whose place the
    others know, then the lowest ids (:mod:`simcards.romi.table`'s module text)."""
    cards = cards_of(move)
    return -sum(1 for c in cards if c in known), tuple(sorted(cards))


def _moves_of(r: ref.RoundState, path: Path) -> list[Action]:
    """The reference's legal moves with ``path``, in its order (``legal_actions``)."""
    p = r.player
    code = path[0]
    hand = tuple(sorted(r.hands[p]))
    if code < T.OPEN_DONE:
        kind = code - T.DISCARD0
        return [Discard(c) for c in hand if C.kind(c) == kind]
    table = tuple(r.table)
    freed = frozenset(r.freed)
    _compile_searches(r)
    out: list[tuple[Action, tuple[int, ...], tuple, frozenset[int]]] = []
    if code < T.ADD0:
        shapes = [c - T.SHAPE0 for c in path if c != T.OPEN_DONE]
        if r.opened[p]:
            for m in _melds_shaped(hand, shapes[0]):
                if len(m.cards) < len(hand):
                    rest = tuple(c for c in hand if c not in m.cards)
                    out.append((Lay(m), rest, (*table, m), frozenset()))
            out.sort(key=lambda e: e[0].meld.cards)
        else:
            for melds in _openings_with(hand, shapes):
                used = {c for m in melds for c in m.cards}
                rest = tuple(c for c in hand if c not in used)
                out.append((Open(melds), rest, table + melds, frozenset()))
            out.sort(key=lambda e: tuple(m.cards for m in e[0].melds))
    elif code < T.SWAP0:
        t, v = divmod(code - T.ADD0, T.ADD_VARIANTS)
        meld = table[t]
        if not (r.must_place in hand or r.must_go_out or freed.intersection(hand)):
            # No obligation: every copy of the kind (every joker) makes the move, and the
            # turn can be finished after it (two cards were held, T6).
            copies = [c for c in hand if (c >= C.JOKER0 if v >= C.N_KINDS else c % 52 == v
                                          and c < C.JOKER0)]
            stands = NO_JOKER
            if v >= C.N_KINDS:  # the joker's card: the variant's end of the run
                stands = next(st for st, _ in ref._add_results(meld, copies[0])
                              if T.add_variant(meld, Add(t, copies[0], st)) == v)
            return [Add(t, c, stands) for c in copies]
        for c in sorted(set(hand)):
            if (c >= C.JOKER0) != (v >= C.N_KINDS) or (c < C.JOKER0 and c % 52 != v):
                continue
            for stands, new in ref._add_results(meld, c):
                a = Add(t, c, stands)
                if T.add_variant(meld, a) == v:
                    rest = tuple(x for x in hand if x != c)
                    out.append((a, rest, (*table[:t], new, *table[t + 1:]), frozenset()))
    else:
        t = code - T.SWAP0
        meld = table[t]
        for c in sorted(set(hand)):
            new = ref._swap_result(meld, c)
            if new is not None:
                j = ref._joker_of(meld)
                h2 = tuple(sorted([x for x in hand if x != c] + [j]))
                out.append((Swap(t, c), h2, (*table[:t], new, *table[t + 1:]),
                            frozenset((j,))))
    return [a for a, h, tab, f in out if r._finishable(h, tab, True, f | freed)]


def _melds_shaped(hand: tuple[int, ...], shape: int) -> list[Meld]:
    """The melds of ``hand`` of shape ``shape``, in the order of the reference's
    ``_hand_melds`` (by card tuple): each copy of each of its kinds (D1), each joker, in its
    place. The shape's kinds are a valid meld wherever the hand holds them (M1-M4)."""
    s = T.SHAPES[shape]
    stands = T.shape_stands_for(s)
    slots = [[c for c in hand if (C.JOKER_KIND if c >= C.JOKER0 else c % C.N_KINDS) == k]
             for k in T.shape_kinds(s)]
    return [Meld(cards, stands) for cards in product(*slots)]


def _openings_with(hand: tuple[int, ...], shapes: list[int]) -> list[tuple[Meld, ...]]:
    """The openings of ``hand`` whose melds have the shapes ``shapes`` (increasing): disjoint
    melds of the hand, sorted by card tuple (the reference's ``_openings``, O1)."""
    choices = [_melds_shaped(hand, s) for s in shapes]
    out = set()
    for combo in product(*choices):
        cards = [c for m in combo for c in m.cards]
        if len(set(cards)) == len(cards):
            out.add(tuple(sorted(combo, key=lambda m: m.cards)))
    return list(out)


__all__ = ["LazyMoves", "after_draw_moves", "cards_of", "copy_key"]
