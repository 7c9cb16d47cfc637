"""Ronda's rule switches, as one frozen dataclass (rule ids from ``seeds/ronda.md``).

Four players in two partnerships (D2) are two sides, seats 0 and 2 against 1 and 3, each
entitled to 20 of the 40 cards (S1), dealt 4, 4 and 2 cards a player (D4); with three
players one card lies face up, so 39 are played:

>>> rules = RondaRules.make(players=4, teams="on")
>>> rules.n_sides, rules.share, rules.deal_sizes
(2, 20, (4, 4, 2))
>>> rules.side_of(2)
0
>>> RondaRules.make(players=3).plays
39
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from simcards.core.errors import UsageError
from simcards.core.switches import MATCH, Rules, switch
from simcards.ronda import codes
from simcards.ronda.kernel_state import KernelRules

N_CARDS = 40
DEAL_SIZES: dict[int, tuple[int, ...]] = {2: (4, 4, 4, 4, 4), 3: (4, 4, 4, 1), 4: (4, 4, 2)}
"""D4: cards per player at each deal, by number of players."""

TEAMS_CODE = {"off": codes.TEAMS_OFF, "on": codes.TEAMS_ON}
CHAIN_CODE = {"flat": codes.CHAIN_FLAT, "tiers": codes.CHAIN_TIERS}
ANNOUNCE_CODE = {"first_deal": codes.ANNOUNCE_FIRST_DEAL, "every_deal": codes.ANNOUNCE_EVERY_DEAL}
CONFLICT_CODE = {"text": codes.CONFLICT_TEXT,
                 "highest_takes_all": codes.CONFLICT_HIGHEST_TAKES_ALL}
TARGET_CHECK_CODE = {"end_of_hand": codes.TARGET_CHECK_END_OF_HAND,
                     "immediate": codes.TARGET_CHECK_IMMEDIATE}
MODE_CODE = {"points": codes.MODE_POINTS, "classic": codes.MODE_CLASSIC}
TARGETS = (21, 11, 41)
"""S4: the usual match targets (the default first); any target from 1 to :data:`MAX_TARGET`
is accepted."""
MAX_TARGET = 1000
"""S4: the highest match target. Scores are 64-bit in the kernels, so the bound is not theirs:
it keeps a match within :func:`~simcards.ronda.matches_batch.max_hands` hands and its records
small (a match to 1000 lasts about 150 hands)."""
MAX_HANDS_TO_WIN = 1000
"""C3: the most hands a classic match may ask a side to win (``--hands-to-win``)."""


@dataclass(frozen=True)
class RondaRules(Rules):
    """Every rule switch of Ronda (the options table of ``seeds/ronda.md``), each declared
    once with :func:`~simcards.core.switches.switch`: the command line's options, the API's
    keywords, the table parameters and the kernels' codes all come from here.

    Build with :meth:`make`, which validates every value with a one-line
    :class:`UsageError`.
    """

    players: int = switch(2, rules="D2", low=min(DEAL_SIZES), high=max(DEAL_SIZES),
                          help="Players at the table, seated 0 .. n-1 (D4 sets the deals: 4x5, "
                          "4-4-4-1 with a face-up card, 4-4-2)")
    teams: str = switch("off", rules="D2", words=TEAMS_CODE, implied="on",
                        help="Two partnerships {0, 2} and {1, 3}, who score together (4 "
                        "players only); --teams alone means on; off: every player is a side")
    derba_chain: str = switch("flat", rules="X6, X7", words=CHAIN_CODE,
                              help="A Derba chain: flat (every hit scores +1) or tiers (hits "
                              "score 1, 5, 10 and each takes back the previous hit's points)")
    announce: str = switch("first_deal", rules="A1", words=ANNOUNCE_CODE,
                           help="Which deals of a hand announce Rondas and Tringlas")
    announce_conflict: str = switch(
        "text", rules="A4, A5", words=CONFLICT_CODE,
        help="Announcements of several sides: text (same-value Rondas cancel; only the lowest "
        "Tringla scores) or highest_takes_all (the strongest side scores them all; a tie "
        "scores nothing)")
    target: int = switch(TARGETS[0], rules="S4", low=1, high=MAX_TARGET, level=MATCH,
                         help="Points to win a match, usually 11, 21 or 41 (a hand ignores it)")
    target_check: str = switch("end_of_hand", rules="S4, S5", words=TARGET_CHECK_CODE,
                               level=MATCH, help="When the target is checked: after each "
                               "hand's card count, or at every check point")
    mode: str = switch("points", rules="C1", words=MODE_CODE,
                       help="points, or classic (play alike, nothing scores; the side with "
                       "most cards wins the hand, C2)")
    hands_to_win: int = switch(1, rules="C3", low=1, high=MAX_HANDS_TO_WIN, level=MATCH,
                               help="Hands a side must win to win a classic match (only 1 in "
                               "points mode)")

    @classmethod
    def check_together(cls, values: Mapping[str, Any]) -> None:
        """D2: partnerships need four players; C3: hands to win only in classic mode."""
        if values["teams"] == "on" and values["players"] != 4:
            raise UsageError(f"--teams on needs --players 4 (rule D2), got --players "
                             f"{values['players']}")
        if values["mode"] == "points" and values["hands_to_win"] != 1:
            raise UsageError(f"--hands-to-win applies only to --mode classic (rule C3), got "
                             f"{values['hands_to_win']}")

    @property
    def n_sides(self) -> int:
        """D2: each player alone, or two partnerships with ``teams=on``."""
        return 2 if self.teams == "on" else self.players

    @property
    def share(self) -> int:
        """S1: 40 // number of sides (20, 13 or 10)."""
        return N_CARDS // self.n_sides

    @property
    def deal_sizes(self) -> tuple[int, ...]:
        """D4."""
        return DEAL_SIZES[self.players]

    @property
    def plays(self) -> int:
        """Plays in a hand: 40, or 39 with 3 players (D4: one card face up)."""
        return N_CARDS - (1 if self.players == 3 else 0)

    def side_of(self, player: int) -> int:
        """D2: the side of a seat; with teams {0, 2} is side 0 and {1, 3} side 1."""
        return player % 2 if self.teams == "on" else player

    @cached_property
    def kernel(self) -> KernelRules:
        """The rules as the kernels take them: one
        :class:`~simcards.ronda.kernel_state.KernelRules`, built once."""
        c = self.codes
        sizes = np.zeros(codes.MAX_DEALS + 1, np.int64)  # one spare 0 after the last deal
        sizes[: len(self.deal_sizes)] = self.deal_sizes
        return KernelRules(
            players=self.players, teams=c["teams"], chain=c["derba_chain"],
            announce=c["announce"], conflict=c["announce_conflict"], mode=c["mode"],
            sides=self.n_sides, share=self.share, deals=len(self.deal_sizes), plays=self.plays,
            face_up=1 if self.players == 3 else 0, target=self.target,
            target_check=c["target_check"], hands_to_win=self.hands_to_win, deal_sizes=sizes)
