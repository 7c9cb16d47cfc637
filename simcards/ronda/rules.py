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

from dataclasses import dataclass, fields
from functools import cached_property

import numpy as np

from simcards.core.cli_options import check_choice, check_players, check_range, rule_integer
from simcards.core.errors import UsageError
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
class RondaRules:
    """Every rule switch of Ronda (the options table of ``seeds/ronda.md``).

    Build with :meth:`make`, which validates every value with a one-line
    :class:`UsageError`.
    """

    players: int = 2
    """D2: 2, 3 or 4 players, seated 0 .. n-1; D4 sets the deals (4x5, 4-4-4-1 with a face-up
    card, 4-4-2)."""
    teams: str = "off"
    """D2: ``off`` (every player is a side) or ``on`` (4 players only: partnerships {0, 2} and
    {1, 3}, who score together)."""
    derba_chain: str = "flat"
    """X6/X7: ``flat`` (every hit of a chain scores +1) or ``tiers`` (hits score 1, 5, 10 and
    each hit takes back the previous hit's points from its side)."""
    announce: str = "first_deal"
    """A1: ``first_deal`` (only the first deal of a hand announces) or ``every_deal``."""
    announce_conflict: str = "text"
    """A4/A5: ``text`` (same-value Rondas of two sides cancel; among several sides' Tringlas only
    the lowest scores) or ``highest_takes_all`` (the side of the strongest announcement scores
    them all; a tie between sides scores nothing)."""
    target: int = 21
    """S4: the match is played to this many points, usually 21, 11 or 41, any of 1 ..
    :data:`MAX_TARGET` (match level; a hand ignores it)."""
    target_check: str = "end_of_hand"
    """S4/S5: ``end_of_hand`` (the target is checked after each hand's card count) or
    ``immediate`` (at every check point). Match level; a hand ignores it."""
    mode: str = "points"
    """C1: ``points`` or ``classic`` (play alike, nothing scores; the side with most cards
    wins the hand, C2)."""
    hands_to_win: int = 1
    """C3: hands a side must win to win a classic match (>= 1; only 1 in points mode)."""

    @classmethod
    def make(
        cls,
        players: int | str = 2,
        teams: str = "off",
        derba_chain: str = "flat",
        announce: str = "first_deal",
        announce_conflict: str = "text",
        target: int | str = 21,
        target_check: str = "end_of_hand",
        mode: str = "points",
        hands_to_win: int | str = 1,
    ) -> RondaRules:
        """Validated constructor: a one-line :class:`UsageError` for any bad value."""
        n = check_players(rule_integer("players", players), min(DEAL_SIZES), max(DEAL_SIZES),
                          "D2")
        teams = check_choice("teams", teams, TEAMS_CODE, "D2")
        if teams == "on" and n != 4:
            raise UsageError(f"--teams on needs --players 4 (rule D2), got --players {n}")
        derba_chain = check_choice("derba_chain", derba_chain, CHAIN_CODE, "X6, X7")
        announce = check_choice("announce", announce, ANNOUNCE_CODE, "A1")
        announce_conflict = check_choice("announce_conflict", announce_conflict, CONFLICT_CODE,
                                         "A4, A5")
        mode = check_choice("mode", mode, MODE_CODE, "C1")
        t = check_range("target", rule_integer("target", target), 1, MAX_TARGET, "S4")
        target_check = check_choice("target_check", target_check, TARGET_CHECK_CODE, "S4, S5")
        h = check_range("hands_to_win", rule_integer("hands_to_win", hands_to_win), 1,
                        MAX_HANDS_TO_WIN, "C3")
        if mode == "points" and h != 1:
            raise UsageError(f"--hands-to-win applies only to --mode classic (rule C3), got {h}")
        return cls(players=n, teams=teams, derba_chain=derba_chain, announce=announce,
                   announce_conflict=announce_conflict, target=t, target_check=target_check,
                   mode=mode, hands_to_win=h)

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
    def codes(self) -> dict[str, int]:
        """Every switch as the kernel's integer code (``codes.py``)."""
        return {
            "players": self.players,
            "teams": TEAMS_CODE[self.teams],
            "derba_chain": CHAIN_CODE[self.derba_chain],
            "announce": ANNOUNCE_CODE[self.announce],
            "announce_conflict": CONFLICT_CODE[self.announce_conflict],
            "target": self.target,
            "target_check": TARGET_CHECK_CODE[self.target_check],
            "mode": MODE_CODE[self.mode],
            "hands_to_win": self.hands_to_win,
        }

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

    def summary(self) -> dict[str, object]:
        """The rules as plain data, for manifests and JSON output."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

