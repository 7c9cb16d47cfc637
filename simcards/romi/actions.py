"""The moves of a Römi round (T1-T7, O1, J1 of ``seeds/romi.md``), as one vocabulary shared by
the numba engine's turn records and the pure-Python reference engine.

A turn is a short sequence of these actions: one draw (``DrawStock``, ``DrawDiscard`` or
``DrawCut``; the starter's first turn has none, D4), then any melding actions (``Open`` once, then
``Lay``, ``Add`` and ``Swap`` in any order, T6), and one ``Discard``, which ends the turn and,
when it empties the hand, the round (G1). Keeping the moves this small lets a game state offer
them one at a time (``legal_actions``), lets an engine record a whole round as a flat list, and
lets the two engines be compared move by move.

Cards are the ids of :mod:`simcards.romi.cards`; a *kind* is a real card's ``id % 52``.
Table melds are numbered in the order they were laid, from 0, for the whole round (M5: melds
are never removed, so numbers never change).
"""

from __future__ import annotations

from dataclasses import dataclass

from simcards.romi import cards as C

NO_JOKER = -1
"""``stands_for`` of a meld without a joker."""


@dataclass(frozen=True)
class Meld:
    """A meld as laid (M1-M4). ``cards`` are ids in meld order: a run from its low end to its
    high end with the joker at its place; a set by suit (spades, hearts, diamonds, clubs) with
    the joker last. ``stands_for`` is the kind the joker stands for (``NO_JOKER`` without one).

    A set's joker stands for the first suit, in suit order, that none of its real cards has:
    with three real cards that is the fourth suit (M4); with two, M4 leaves the choice open and
    this fixed choice makes every record canonical *(project decision; J2 makes it matter
    nowhere)*. It is recomputed whenever a real card is added to the set."""

    cards: tuple[int, ...]
    stands_for: int = NO_JOKER

    def text(self) -> str:
        parts = []
        for c in self.cards:
            if C.is_joker(c) and self.stands_for != NO_JOKER:
                parts.append("X=" + C.kind_text(self.stands_for))
            else:
                parts.append(C.card_text(c))
        return " ".join(parts)


@dataclass(frozen=True)
class DrawStock:
    """T2: the top card of the stock (after T8's reshuffle if the stock is empty)."""


@dataclass(frozen=True)
class DrawDiscard:
    """T2-T4: the top card of the discard pile."""


@dataclass(frozen=True)
class DrawCut:
    """T5: the cut card, offered only when the player can go out with it this turn."""


@dataclass(frozen=True)
class Open:
    """O1: the opening lay-down, new melds from the hand worth ``open_min`` or more together."""

    melds: tuple[Meld, ...]


@dataclass(frozen=True)
class Lay:
    """T6: one new meld from the hand, once opened."""

    meld: Meld


@dataclass(frozen=True)
class Add:
    """T6: one card of the hand added to table meld ``target`` (at either end of a run, or a
    missing suit of a set). For a joker added at an end of a run, ``stands_for`` names the
    card (so the end) it takes; otherwise it is ``NO_JOKER`` and the meld's rules decide."""

    target: int
    card: int
    stands_for: int = NO_JOKER


@dataclass(frozen=True)
class Swap:
    """J1, J2: the real card ``card`` of the hand takes the place of the joker of table meld
    ``target``; the joker goes to the hand and must be laid again this turn (J3)."""

    target: int
    card: int


@dataclass(frozen=True)
class Discard:
    """T7: the turn's last move; the card goes face up on the discard pile. When it was the
    last card in hand the player has gone out (G1) and the round ends."""

    card: int


Action = DrawStock | DrawDiscard | DrawCut | Open | Lay | Add | Swap | Discard
