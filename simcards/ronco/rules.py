"""Ronco's rule switches, as one frozen dataclass (rule ids from ``seeds/ronco.md``).

The Poroli preset (P1) turns the cut-king rule off and puts the As de bastos below every other
card, at strength 0 (C4); the Rey stays the blocking card of the Spanish deck (C3):

>>> rules = RoncoRules.make(poroli=True)
>>> rules.cut_king
'none'
>>> int(rules.top)
12
>>> int(rules.strength_counts[0])
1
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from simcards.core.cards import Deck, get_deck
from simcards.core.cli_options import check_players as players_in_range
from simcards.core.switches import MATCH, Rules, switch
from simcards.ronco import codes
from simcards.ronco.kernel_state import Classes, KernelRules

MIN_PLAYERS = 2
MAX_PLAYERS = 20
RONCO_DECKS = ("spanish40", "spanish48", "french52")
"""C1: the decks Ronco is played with (``rummy108``, also known to the package, is not one)."""


# The kernels' integer code of each switch's words (declared in codes.py).
CUT_KING_CODE = {"loses": codes.CUT_KING_LOSES, "blocked": codes.CUT_KING_BLOCKED,
                 "none": codes.CUT_KING_NONE}
"""R7: what a top-rank cut card does to the dealer."""
TIES_CODE = {"all": codes.TIES_ALL, "first": codes.TIES_FIRST}
"""R8: who loses when several players share the lowest card."""
ABSOLUTE_TIE_CODE = {"void": codes.ABSOLUTE_TIE_VOID, "replay": codes.ABSOLUTE_TIE_REPLAY}
"""G6: what an absolute tie (R9) does to the game."""
DECK_CODE = {name: i for i, name in enumerate(RONCO_DECKS)}
"""C1: the decks by index (the kernels read the deck's strengths, not this code)."""


@dataclass(frozen=True)
class RoncoRules(Rules):
    """Every rule switch of Ronco and Poroli, each declared once with
    :func:`~simcards.core.switches.switch` (the command line's options, the API's keywords,
    the table parameters and the kernels' codes all come from here).

    Build with :meth:`make`, which validates every value with a one-line :class:`UsageError`
    and applies the Poroli preset (P1). The number of players is no rule here: a Ronco study
    sweeps table sizes under one set of rules (T1, :func:`check_players`).
    """

    deck: str = switch("spanish40", rules="C1", words=DECK_CODE,
                       help="The deck: spanish40, spanish48 (adds 8 and 9) or french52")
    cut_king: str = switch(
        "loses", rules="R7", words=CUT_KING_CODE, preset=lambda v: "none" if v["poroli"]
        else "loses", preset_help="default loses, none with --poroli",
        help="A top-rank cut card: loses (the dealer is sole loser), blocked (it is not "
        "taken) or none (no effect)")
    ties: str = switch("all", rules="R8", words=TIES_CODE,
                       help="A tie for the lowest card: all tied players lose, or only the "
                       "first")
    poroli: bool = switch(False, rules="P1, C4, R10",
                          help="The Poroli variant: the As de bastos ranks below everything, "
                          "its holder loses twice, and cut_king defaults to none")
    absolute_tie: str = switch("void", rules="G6", words=ABSOLUTE_TIE_CODE, level=MATCH,
                               help="An absolute tie (R9): void (the game ends with no "
                               "winner) or replay (the round is dealt again)")

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
        c = self.codes
        return KernelRules(self.strengths, self.top, c["ties"], c["cut_king"],
                           self.strength_below, self.strength_counts, c["absolute_tie"])

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


def check_players(n: int) -> int:
    """T1: 2 to 20 players."""
    return players_in_range(n, MIN_PLAYERS, MAX_PLAYERS, "T1")
