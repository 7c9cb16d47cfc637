"""The exact meld solver (V1-V4 of ``seeds/romi.md``).

For a hand of up to 16 cards (duplicates and up to four jokers allowed) it answers, exactly:

- ``best_value`` (V1): the greatest value (M6) of any collection of disjoint valid melds;
- ``min_penalty`` (V2): the smallest penalty (M7) of the cards left over any such collection;
- ``can_go_out`` (V3): whether all cards but one can be laid down;
- ``melds`` (V4): one lay-down reaching ``best_value``.

How: :mod:`simcards.romi.melds_kernel`, the exact search in numba; this module asks it
about hands given as text or card ids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi.melds_kernel import (
    F_JKIND,
    F_JOKER,
    F_KINDS,
    F_LO,
    F_NREAL,
    F_RUN,
    F_VALUE,
    MAX_HAND,
    best_laydown,
    solve_batch,
)
from simcards.romi.rules import RomiRules


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
    rows = best_laydown(counts.astype(np.int64), jk, _ace_low(rules))
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
