"""Ronco's rule switches, as one frozen dataclass (rule ids from ``seeds/ronco.md``).

The Poroli preset (P1) turns the cut-king rule off and puts the As de bastos below every other
card, at strength 0 (C4); the Rey stays the blocking card of the Spanish deck (C3):

>>> rules = RoncoRules.make(poroli=True)
>>> rules.cut_king.value
'none'
>>> int(rules.top)
12
>>> int(rules.strength_counts[0])
1
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum
from functools import cached_property

import numpy as np

from simcards.core.cards import Deck, get_deck
from simcards.core.cli_options import check_players as players_in_range
from simcards.core.errors import UsageError
from simcards.ronco import codes
from simcards.ronco.kernel_state import Classes, KernelRules

MIN_PLAYERS = 2
MAX_PLAYERS = 20
RONCO_DECKS = ("spanish40", "spanish48", "french52")
"""C1: the decks Ronco is played with (``rummy108``, also known to the package, is not one)."""


class CutKing(StrEnum):
    """R7: what a top-rank cut card does to the dealer."""

    LOSES = "loses"
    BLOCKED = "blocked"
    NONE = "none"


class Ties(StrEnum):
    """R8: who loses when several players share the lowest card."""

    ALL = "all"
    FIRST = "first"


class AbsoluteTie(StrEnum):
    """G6: what an absolute tie (R9) does to the game."""

    VOID = "void"
    REPLAY = "replay"


# The kernels' integer code of each switch value (declared in codes.py).
CUT_KING_CODE = {CutKing.LOSES: codes.CUT_KING_LOSES, CutKing.BLOCKED: codes.CUT_KING_BLOCKED,
                 CutKing.NONE: codes.CUT_KING_NONE}
TIES_CODE = {Ties.ALL: codes.TIES_ALL, Ties.FIRST: codes.TIES_FIRST}
ABSOLUTE_TIE_CODE = {AbsoluteTie.VOID: codes.ABSOLUTE_TIE_VOID,
                     AbsoluteTie.REPLAY: codes.ABSOLUTE_TIE_REPLAY}


def _parse_enum(enum_type: type[Enum], value: str | Enum, what: str) -> Enum:
    if isinstance(value, enum_type):
        return value
    try:
        return enum_type(value)
    except ValueError:
        known = "|".join(m.value for m in enum_type)
        raise UsageError(f"unknown {what} {value!r} (expected {known})") from None


@dataclass(frozen=True)
class RoncoRules:
    """Every rule switch of Ronco and Poroli.

    Build with :meth:`make`, which validates names and applies the Poroli preset (P1).
    """

    deck: str = "spanish40"
    """C1: ``spanish40`` (default), ``spanish48`` (adds 8 and 9) or ``french52``."""
    cut_king: CutKing = CutKing.LOSES
    """R7: ``loses`` (Ronco: a cut top card makes the dealer sole loser), ``blocked`` (the cut
    top card is not taken) or ``none`` (no effect; the Poroli preset)."""
    ties: Ties = Ties.ALL
    """R8: ``all`` (every player tied at the lowest loses) or ``first`` (only the earliest)."""
    poroli: bool = False
    """C4/R10: the As de bastos ranks below everything and its holder loses twice."""
    absolute_tie: AbsoluteTie = AbsoluteTie.VOID
    """G6: ``void`` (the game ends with no winner) or ``replay`` (the round is dealt again)."""

    @classmethod
    def make(
        cls,
        deck: str = "spanish40",
        cut_king: str | CutKing | None = None,
        ties: str | Ties = "all",
        poroli: bool = False,
        absolute_tie: str | AbsoluteTie = "void",
    ) -> RoncoRules:
        """Validated constructor; ``cut_king=None`` means the default of the variant (P1)."""
        if deck not in RONCO_DECKS:
            raise UsageError(f"unknown deck {deck!r} (expected {'|'.join(RONCO_DECKS)})")
        if cut_king is None:
            cut_king = CutKing.NONE if poroli else CutKing.LOSES
        return cls(
            deck=deck,
            cut_king=_parse_enum(CutKing, cut_king, "cut-king rule"),
            ties=_parse_enum(Ties, ties, "ties rule"),
            poroli=bool(poroli),
            absolute_tie=_parse_enum(AbsoluteTie, absolute_tie, "absolute-tie rule"),
        )

    @property
    def deck_obj(self) -> Deck:
        return get_deck(self.deck)

    @property
    def top(self) -> int:
        """C3: strength of the blocking card."""
        return self.deck_obj.top_value

    @cached_property
    def strengths(self) -> np.ndarray:
        """C2/C4: strength of every card of the deck, by card index."""
        deck = self.deck_obj
        s = deck.value_array.copy()
        if self.poroli:
            s[deck.find(1, deck.suit_names[3])] = 0  # bastos, or clubs in french52
        return s

    @cached_property
    def strength_counts(self) -> np.ndarray:
        """How many cards of the deck have each strength 0 .. top (for S2b and exact)."""
        return np.bincount(self.strengths, minlength=self.top + 1).astype(np.int64)

    @cached_property
    def strength_below(self) -> np.ndarray:
        """How many cards of the deck are strictly weaker than each strength 0 .. top (S2b)."""
        c = self.strength_counts
        return np.concatenate(([0], np.cumsum(c)[:-1])).astype(np.int64)

    @cached_property
    def kernel(self) -> KernelRules:
        """The rules in the form the kernels take
        (:class:`~simcards.ronco.kernel_state.KernelRules`)."""
        return KernelRules(self.strengths, self.top, TIES_CODE[self.ties],
                           CUT_KING_CODE[self.cut_king], self.strength_below,
                           self.strength_counts, ABSOLUTE_TIE_CODE[self.absolute_tie])

    @cached_property
    def classes(self) -> Classes:
        """The deck as strength classes, for the exact solvers
        (:class:`~simcards.ronco.kernel_state.Classes`)."""
        counts = self.strength_counts
        strength = np.flatnonzero(counts).astype(np.int64)
        n_cls = len(strength)
        return Classes(strength, counts[strength].astype(np.int64), int(self.strengths.shape[0]),
                       n_cls - 1, np.array([5**j for j in range(n_cls)], np.int64),
                       np.where(strength == 0, 2.0, 1.0))

    def summary(self) -> dict[str, object]:
        """The rules as plain data, for manifests and JSON output."""
        return {
            "deck": self.deck,
            "cut_king": self.cut_king.value,
            "ties": self.ties.value,
            "poroli": self.poroli,
            "absolute_tie": self.absolute_tie.value,
        }


def check_players(n: int) -> int:
    """T1: 2 to 20 players."""
    return players_in_range(n, MIN_PLAYERS, MAX_PLAYERS, "T1")
