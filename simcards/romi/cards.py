"""Römi's 108 cards as integer ids, and hands as text (D1 of ``seeds/romi.md``).

The ids are those of the shared ``rummy108`` deck (:mod:`simcards.core.cards`), so every game of
the toolkit that deals this deck agrees on them: id = copy * 52 + suit * 13 + (rank - 1) for the
two copies of the 52 French cards (rank 1 the As .. 13 the King; suits spades, hearts, diamonds,
clubs), and 104 .. 107 for the four jokers. Kernels never see the copy: they work on the *kind*
``id % 52`` (0 .. 51) and a count of jokers, because the two copies of a card are
interchangeable (D1).

Text: a card is a rank (``A 2 .. 9 T J Q K``; ``10`` also accepted) followed by a suit
(``s h d c``), either case; a joker is ``X``. Cards are separated by blanks or commas. A hand is
a multiset: at most two of one card (D1) and at most four jokers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from simcards.core.cards import get_deck
from simcards.core.errors import UsageError

DECK = get_deck("rummy108")
N_CARDS = 108
N_KINDS = 52
"""Distinct real cards (rank and suit)."""
N_JOKERS = 4
JOKER0 = 104
"""Id of the first joker; 104 .. 107 are jokers."""
JOKER_KIND = 52
"""The kind number used for a joker where one array covers all kinds (52 real + jokers)."""

SUIT_CHARS = "shdc"
"""Suit letters in id order (the shared deck's order: spades, hearts, diamonds, clubs)."""
RANK_CHARS = "A23456789TJQK"
"""Rank letters, rank 1 (As) .. 13 (King)."""

_CARD_RE = re.compile(r"^(10|[2-9TJQKA])([SHDC])$")
_SPLIT_RE = re.compile(r"[\s,]+")


def card_id(rank: int, suit: int, copy: int = 0) -> int:
    """The id of copy ``copy`` (0 or 1) of the card of ``rank`` (1 .. 13) and ``suit`` (0 .. 3)."""
    return copy * N_KINDS + suit * 13 + (rank - 1)


def is_joker(card: int) -> bool:
    return card >= JOKER0


def kind(card: int) -> int:
    """The card's kind, 0 .. 51 (rank and suit, copy forgotten), or ``JOKER_KIND``."""
    return JOKER_KIND if card >= JOKER0 else card % N_KINDS


def rank(card: int) -> int:
    """1 (As) .. 13 (King); 0 for a joker."""
    return 0 if card >= JOKER0 else card % 13 + 1


def suit(card: int) -> int:
    """0 .. 3 (spades, hearts, diamonds, clubs); 4 for a joker."""
    return 4 if card >= JOKER0 else (card % N_KINDS) // 13


def kind_text(k: int) -> str:
    """Text of a kind (0 .. 51, or ``JOKER_KIND``)."""
    if k == JOKER_KIND:
        return "X"
    return RANK_CHARS[k % 13] + SUIT_CHARS[k // 13]


def card_text(card: int) -> str:
    """``Ah``, ``Tc``, ``X``: the form :func:`parse_hand` reads back."""
    if not 0 <= card < N_CARDS:
        raise UsageError(f"card id {card} is outside 0 .. {N_CARDS - 1}")
    return kind_text(kind(card))


def format_hand(cards: Iterable[int]) -> str:
    """Cards as text, space separated, in the order given."""
    return " ".join(card_text(int(c)) for c in cards)


def _parse_token(token: str) -> int:
    """Kind of one card token, or ``JOKER_KIND``; ``UsageError`` if it is no card."""
    t = token.upper()
    if t == "X":
        return JOKER_KIND
    m = _CARD_RE.match(t)
    if m is None:
        raise UsageError(f"malformed card {token!r}: expected a rank (A 2-9 T/10 J Q K) and a "
                         "suit (c d h s), or X for a joker")
    r = 10 if m.group(1) in ("10", "T") else RANK_CHARS.index(m.group(1)) + 1
    return SUIT_CHARS.index(m.group(2).lower()) * 13 + (r - 1)


def parse_hand(text: str) -> list[int]:
    """Card ids of a hand written as text, in the order written.

    The first copy of a card gets copy 0, the second copy 1; jokers take 104, 105, ... . A
    malformed card, a third copy of a card or a fifth joker is a one-line ``UsageError``.
    """
    if not isinstance(text, str):
        raise UsageError(f"a hand is text such as 'Ah 2h 3h X', got {type(text).__name__}")
    tokens = [t for t in _SPLIT_RE.split(text.strip()) if t]
    seen = [0] * (N_KINDS + 1)
    ids: list[int] = []
    for token in tokens:
        k = _parse_token(token)
        n = seen[k]
        if k == JOKER_KIND:
            if n >= N_JOKERS:
                raise UsageError(f"more than {N_JOKERS} jokers in hand {text.strip()!r}")
            ids.append(JOKER0 + n)
        else:
            if n >= 2:
                raise UsageError(f"more than two of {kind_text(k)} in hand {text.strip()!r} "
                                 "(the deck has two of every card)")
            ids.append(n * N_KINDS + k)
        seen[k] = n + 1
    return ids


def check_ids(cards: Sequence[int]) -> list[int]:
    """Card ids checked as one hand: each id in 0 .. 107 and used once (``UsageError``)."""
    out: list[int] = []
    seen: set[int] = set()
    for c in cards:
        if isinstance(c, bool) or not isinstance(c, int | np.integer):
            raise UsageError(f"card id {c!r} is not an integer")
        c = int(c)
        if not 0 <= c < N_CARDS:
            raise UsageError(f"card id {c} is outside 0 .. {N_CARDS - 1}")
        if c in seen:
            raise UsageError(f"card id {c} ({card_text(c)}) appears twice in one hand")
        seen.add(c)
        out.append(c)
    return out


def as_ids(hand: str | Sequence[int]) -> list[int]:
    """A hand given as text or as card ids, as checked ids."""
    return parse_hand(hand) if isinstance(hand, str) else check_ids(hand)


def kind_counts(cards: Iterable[int]) -> tuple[np.ndarray, int]:
    """The multiset of a hand: copies of each kind (int8[52]) and the number of jokers."""
    counts = np.zeros(N_KINDS, np.int8)
    jokers = 0
    for c in cards:
        if c >= JOKER0:
            jokers += 1
        else:
            counts[c % N_KINDS] += 1
    return counts, jokers
