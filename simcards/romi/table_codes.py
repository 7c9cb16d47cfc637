"""Römi's action numbering for the game-AI adapters (:mod:`simcards.romi.table`), rule ids
from ``seeds/romi.md``.

A Römi move names cards, but an agent should not have to tell the two copies of a card apart
(D1: they are interchangeable) nor learn one output per opening (there are far too many). So
moves are numbered by card *kinds* (``cards.kind``: 0 .. 51, 52 the joker) and melds by their
*shape*: which kinds they hold and, for a joker, which card it stands for. An opening (O1) is a
*path*: its melds' shape codes in increasing order, then ``OPEN_DONE``. Every other move is one
code.

======================  =========  ==========================================================
codes                   count      move
======================  =========  ==========================================================
0                       1          DrawStock (T2; T8's reshuffle first if the stock is empty)
1                       1          DrawDiscard (T2-T4)
2                       1          DrawCut (T5)
3 + k                   53         Discard a card of kind k (T7; 55 = a joker)
56                      1          OPEN_DONE: the opening's melds are all named (O1)
57 + s                  2,527      meld shape s: Lay it (T6) once opened; before opening, the
                                   next meld of the opening being composed (O1)
2584 + 55 t + v         36 x 55    Add to table meld t (T6): v = kind 0 .. 51 of a real
                                   card; 52 a joker at the run's low end, 53 at its high end,
                                   54 a joker into a set
4564 + t                36         Swap: take the joker of table meld t with the real card
                                   it stands for (J1, J2)
======================  =========  ==========================================================

``N_ACTIONS`` = 4600. Table melds are numbered in the order they were laid (M5: none is ever
removed), and there are never more than ``MAX_MELDS`` = 36 of them (108 cards, three a meld at
least, M1, M2).

Meld shapes (2,527). Runs first (2,332): for each suit (s h d c), low end ``lo`` (run place
1 .. 12, where place 1 is the As below the 2 and 14 the As above the King, M2, M6), length
3 .. 13 (``lo + length - 1 <= 14``), and the joker: none, or its place in the run (any place,
an end included: the place says which card it stands for, M4). Then sets (195): for each rank
As .. K, the real suits as a set of 3 or 4 suits without a joker, or of 2 or 3 suits with one
(the joker stands for the first missing suit, ``actions.Meld``; J2 makes the choice matter
nowhere). A meld of the table or of the hand has exactly one shape; its cards are one of up to
2^k choices of copies, which the adapter settles (see :mod:`simcards.romi.table`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from simcards.romi import cards as C
from simcards.romi.actions import NO_JOKER, Add, Discard, DrawCut, DrawDiscard, DrawStock, Meld

MAX_MELDS = C.N_CARDS // 3
"""M1, M2: at most 36 melds on the table (108 cards, three a meld at least)."""
N_KINDS = C.N_KINDS + 1
"""52 real kinds and the joker (``cards.JOKER_KIND``)."""

DRAW_STOCK = 0
DRAW_DISCARD = 1
DRAW_CUT = 2
DISCARD0 = 3
OPEN_DONE = DISCARD0 + N_KINDS
SHAPE0 = OPEN_DONE + 1

ADD_VARIANTS = C.N_KINDS + 3
"""Per table meld: a real kind 0 .. 51, or a joker at a run's low end, high end, or in a set."""
JOKER_LOW = C.N_KINDS
JOKER_HIGH = C.N_KINDS + 1
JOKER_SET = C.N_KINDS + 2


class Shape(NamedTuple):
    """A meld shape (module text). Runs: ``suit``, ``lo`` (place 1 .. 12), ``length`` and
    ``joker`` (the joker's place, 0 for none); ``rank`` and ``suits`` are 0. Sets: ``rank``
    (1 .. 13), ``suits`` (bit mask of the real suits) and ``joker`` (1 with a joker, else 0);
    ``suit`` is -1, ``lo`` 0 and ``length`` the card count."""

    run: bool
    suit: int
    lo: int
    length: int
    joker: int
    rank: int
    suits: int


def place_kind(suit: int, place: int) -> int:
    """The kind at run place ``place`` (1 .. 14, M2) of ``suit``: places 1 and 14 are the As."""
    return suit * 13 + (0 if place == 14 else place - 1)


def _all_shapes() -> tuple[Shape, ...]:
    out: list[Shape] = []
    for suit in range(4):
        for lo in range(1, 13):
            for length in range(3, min(13, 15 - lo) + 1):
                out.append(Shape(True, suit, lo, length, 0, 0, 0))
                for jp in range(lo, lo + length):
                    out.append(Shape(True, suit, lo, length, jp, 0, 0))
    for rank in range(1, 14):
        for joker in (0, 1):
            for mask in range(1, 16):
                real = bin(mask).count("1")
                if (real >= 3) if not joker else (2 <= real <= 3):
                    out.append(Shape(False, -1, 0, real + joker, joker, rank, mask))
    return tuple(out)


SHAPES = _all_shapes()
N_SHAPES = len(SHAPES)
SHAPE_INDEX = {s: i for i, s in enumerate(SHAPES)}
ADD0 = SHAPE0 + N_SHAPES
SWAP0 = ADD0 + MAX_MELDS * ADD_VARIANTS
N_ACTIONS = SWAP0 + MAX_MELDS


def shape_kinds(shape: Shape) -> tuple[int, ...]:
    """The kinds of a shape's cards in meld order (``actions.Meld``: a run low to high with the
    joker at its place, a set by suit with the joker last), the joker as ``JOKER_KIND``."""
    if shape.run:
        return tuple(C.JOKER_KIND if p == shape.joker else place_kind(shape.suit, p)
                     for p in range(shape.lo, shape.lo + shape.length))
    kinds = [s * 13 + shape.rank - 1 for s in range(4) if shape.suits >> s & 1]
    return (*kinds, C.JOKER_KIND) if shape.joker else tuple(kinds)


def shape_stands_for(shape: Shape) -> int:
    """The kind the shape's joker stands for (M4), ``NO_JOKER`` without one: in a run the card
    of its place, in a set the first missing suit (``actions.Meld``)."""
    if not shape.joker:
        return NO_JOKER
    if shape.run:
        return place_kind(shape.suit, shape.joker)
    missing = next(s for s in range(4) if not shape.suits >> s & 1)
    return missing * 13 + shape.rank - 1


@lru_cache(maxsize=100_000)
def meld_shape(meld: Meld) -> int:
    """The shape number of a canonical meld (M1-M4; ``actions.Meld``). Three or more real
    cards of one rank are a set (M3); otherwise a run, whose first card fixes its low end (an
    As first sits below the 2, M2; a joker first stands for the card below the second)."""
    cards = meld.cards
    real = [c for c in cards if c < C.JOKER0]
    ranks = {C.rank(c) for c in real}
    jokers = len(cards) - len(real)
    if len(ranks) == 1:
        mask = 0
        for c in real:
            mask |= 1 << C.suit(c)
        return SHAPE_INDEX[Shape(False, -1, 0, len(cards), jokers, real[0] % 13 + 1, mask)]
    first = cards[0]
    # An As first (real, or the joker standing for it) is at place 1.
    lo = meld.stands_for % 13 + 1 if first >= C.JOKER0 else C.rank(first)
    jp = 0
    for i, c in enumerate(cards):
        if c >= C.JOKER0:
            jp = lo + i
    return SHAPE_INDEX[Shape(True, C.suit(real[0]), lo, len(cards), jp, 0, 0)]


def add_variant(table_meld: Meld, add: Add) -> int:
    """The ``v`` of an Add's code (module text). A joker added to a run goes to the end whose
    card it stands for; on the run 2 .. K both ends stand for the As, and the reference puts
    it above the King (T6), which is the high end here too."""
    if add.card < C.JOKER0:
        return add.card % C.N_KINDS
    shape = SHAPES[meld_shape(table_meld)]
    if not shape.run:
        return JOKER_SET
    hi = shape.lo + shape.length - 1
    if hi < 14 and add.stands_for == place_kind(shape.suit, hi + 1):
        return JOKER_HIGH
    return JOKER_LOW


def discard_code(move: Discard) -> int:
    return DISCARD0 + C.kind(move.card)


DRAW_CODES = {DrawStock(): DRAW_STOCK, DrawDiscard(): DRAW_DISCARD, DrawCut(): DRAW_CUT}


def shape_text(s: int) -> str:
    """``5h 6h X=7h``: the shape's kinds, a joker with the card it stands for."""
    shape = SHAPES[s]
    stands = shape_stands_for(shape)
    return " ".join("X=" + C.kind_text(stands) if k == C.JOKER_KIND else C.kind_text(k)
                    for k in shape_kinds(shape))


def action_text(code: int) -> str:
    """One code as text (OpenSpiel's ``action_to_string``)."""
    if not 0 <= code < N_ACTIONS:
        raise ValueError(f"action {code} is outside 0 .. {N_ACTIONS - 1}")
    if code == DRAW_STOCK:
        return "draw from the stock"
    if code == DRAW_DISCARD:
        return "draw the top discard"
    if code == DRAW_CUT:
        return "take the cut card"
    if code < OPEN_DONE:
        return f"discard {C.kind_text(code - DISCARD0)}"
    if code == OPEN_DONE:
        return "opening complete"
    if code < ADD0:
        return f"meld {shape_text(code - SHAPE0)}"
    if code < SWAP0:
        t, v = divmod(code - ADD0, ADD_VARIANTS)
        if v < C.N_KINDS:
            return f"add {C.kind_text(v)} to meld {t}"
        where = {JOKER_LOW: "at the low end of", JOKER_HIGH: "at the high end of",
                 JOKER_SET: "to"}[v]
        return f"add X {where} meld {t}"
    return f"swap the joker of meld {code - SWAP0}"
