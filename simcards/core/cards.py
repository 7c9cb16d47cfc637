"""Decks as data.

A deck is a fixed tuple of cards; a card is identified by its index in that tuple. Kernels only
ever see integer arrays derived from a deck (values, suits), never Python objects, so the deck
is described once here and every game derives the arrays it needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

SPANISH_SUITS = ("oros", "copas", "espadas", "bastos")
FRENCH_SUITS = ("spades", "hearts", "diamonds", "clubs")
JOKER = "joker"


@dataclass(frozen=True)
class Deck:
    """An ordered deck of cards.

    ``values[i]`` and ``suits[i]`` describe card ``i``. Values are the printed numbers (Spanish
    Sota 10, Caballo 11, Rey 12; French J 11, Q 12, K 13, ace 1; joker 0). Suit names index into
    ``suit_names``.
    """

    name: str
    values: tuple[int, ...]
    suits: tuple[int, ...]
    suit_names: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.values)

    @cached_property
    def value_array(self) -> np.ndarray:
        """Card values as an int64 array, for kernels."""
        return np.asarray(self.values, dtype=np.int64)

    @property
    def top_value(self) -> int:
        """The highest value in the deck (Rey or King): Ronco's blocking card."""
        return max(self.values)

    def card(self, index: int) -> tuple[int, str]:
        """Card ``index`` as a ``(value, suit name)`` pair, the form the reference engines use."""
        return (self.values[index], self.suit_names[self.suits[index]])

    def label(self, index: int) -> str:
        value, suit = self.card(index)
        return f"{value}-{suit}"

    def text(self, index: int) -> str:
        """Card ``index`` as players write it: value and suit letter, e.g. ``7o``, ``12b``
        (:func:`parse_card` reads it back)."""
        value, suit = self.card(index)
        return f"{value}{suit[0]}"

    def find(self, value: int, suit: str) -> int:
        """Index of the first card with this value and suit name."""
        s = self.suit_names.index(suit)
        for i, (v, si) in enumerate(zip(self.values, self.suits, strict=True)):
            if v == value and si == s:
                return i
        raise KeyError(f"no card {value}-{suit} in deck {self.name}")


def _suited(name: str, ranks: tuple[int, ...], suit_names: tuple[str, ...]) -> Deck:
    values: list[int] = []
    suits: list[int] = []
    for s in range(len(suit_names)):
        for v in ranks:
            values.append(v)
            suits.append(s)
    return Deck(name, tuple(values), tuple(suits), suit_names)


def _rummy108() -> Deck:
    single = _suited("french52", tuple(range(1, 14)), FRENCH_SUITS)
    names = (*FRENCH_SUITS, JOKER)
    values = single.values * 2 + (0, 0, 0, 0)
    suits = single.suits * 2 + (4, 4, 4, 4)
    return Deck("rummy108", values, suits, names)


DECKS: dict[str, Deck] = {
    "spanish40": _suited("spanish40", (1, 2, 3, 4, 5, 6, 7, 10, 11, 12), SPANISH_SUITS),
    "spanish48": _suited("spanish48", (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), SPANISH_SUITS),
    "french52": _suited("french52", tuple(range(1, 14)), FRENCH_SUITS),
    "rummy108": _rummy108(),
}


def get_deck(name: str) -> Deck:
    """Look a deck up by name; the error names the decks that exist."""
    try:
        return DECKS[name]
    except KeyError:
        known = ", ".join(DECKS)
        raise ValueError(f"unknown deck {name!r} (known: {known})") from None


def parse_card(deck: Deck, text: str) -> int:
    """The index in ``deck`` of the card ``text`` written as players write it: value and suit
    letter (the suit name's first letter; ``7o``, ``10e``, ``12b`` in a Spanish deck), or the
    value and the suit's name (``7 oros``), in any case. Raises ``ValueError`` with the
    one-line reason for a text that names no card of the deck."""
    t = "".join(text.strip().lower().split())
    digits = len(t) - len(t.lstrip("0123456789"))
    if digits == 0 or digits == len(t):
        raise ValueError(f"cannot read card {text.strip()!r}: write its value and suit letter, "
                         f"e.g. {deck.text(0)}")
    value, suit = int(t[:digits]), t[digits:]
    letters = [s[0] for s in deck.suit_names]
    if suit in deck.suit_names:
        s = deck.suit_names.index(suit)
    elif suit in letters:
        s = letters.index(suit)
    else:
        raise ValueError(f"cannot read card {text.strip()!r}: no suit {suit!r} in the "
                         f"{deck.name} deck (suits {', '.join(letters)})")
    for i, (v, si) in enumerate(zip(deck.values, deck.suits, strict=True)):
        if v == value and si == s:
            return i
    raise ValueError(f"no card {text.strip()!r} in the {deck.name} deck (values "
                     f"{' '.join(str(v) for v in sorted(set(deck.values)))})")
