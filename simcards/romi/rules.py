"""Römi's rule switches, as one frozen dataclass (rule ids from ``seeds/romi.md``).

With three players and seat 0 dealing, the starter is seat 1, on the dealer's left, who gets 15
cards; the others get 14 (D4). An opening must be worth 51 by default, and no opening can be
worth more than 140 (O1):

>>> rules = RomiRules.make(players=3)
>>> rules.hand_sizes(dealer=0)
(14, 15, 14)
>>> rules.open_min, MAX_OPENING
(51, 140)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from simcards.core.cli_options import check_players, check_range, check_seat, rule_integer
from simcards.core.errors import UsageError
from simcards.romi.kernel_state import KernelRules

PLAYERS = (2, 3, 4, 5)
"""D2: the player counts Römi is played with."""
HAND_SIZE = 14
"""D4: cards dealt to every player but the starter."""
STARTER_SIZE = 15
"""D4: cards dealt to the starter (the player on the dealer's left)."""
JOKERS_PER_MELD = 1
"""M4: at most one joker in a meld."""
MAX_ROUNDS_PER_GAME = 100
"""D5: the most rounds a game may have (a game is 7 by default; a game of 100 four-player
rounds takes a core about a second, and a run's progress moves by whole chunks of games)."""
MAX_OPENING = (STARTER_SIZE - 1) * 10
"""O1: the greatest value an opening can have, 140, the most ``open_min`` may ask. A player's
hand holds at most 15 cards during his turn (14 dealt and one drawn; the starter's 15 minus his
first discard plus one), one of which he keeps to discard (T6, G1), and no card is worth more
than 10 (M6: a joker counts as the card it stands for). 14 cards of tens and figures in sets
reach it."""


@dataclass(frozen=True)
class RomiRules:
    """Every rule switch of Römi (the options table of ``seeds/romi.md``).

    Build with :meth:`make`, which validates every value with a one-line :class:`UsageError`;
    the defaults are the rulings' defaults.
    """

    players: int = 4
    """D2: 2 to 5 players."""
    rounds: int = 7
    """D5, G6: rounds in a game (>= 1)."""
    open_min: int = 51
    """O1: the least value (M6) of an opening lay-down (>= 1)."""
    ace_low_value: int = 1
    """M6: what an As below the 2 in a run is worth for opening and ``best_value`` (1 .. 10;
    an As anywhere else is worth 10)."""
    swap_keeps_romi: bool = False
    """G3: whether a joker swap (J1) in the turn of a one-turn opening and going out keeps the
    -20. False (the default) reads the swap as putting a card into another player's meld, so it
    cancels the -20; True reads "con tus propias combinaciones" as the melds the player laid,
    so a swap whose freed joker goes into his own new melds keeps it (a card or the freed joker
    added to another player's meld still cancels it)."""

    @classmethod
    def make(
        cls,
        players: int | str = 4,
        rounds: int | str = 7,
        open_min: int | str = 51,
        ace_low_value: int | str = 1,
        swap_keeps_romi: bool = False,
    ) -> RomiRules:
        """Validated constructor: a one-line :class:`UsageError` for any bad value."""
        n = check_players(rule_integer("players", players), min(PLAYERS), max(PLAYERS), "D2")
        r = check_range("rounds", rule_integer("rounds", rounds), 1, MAX_ROUNDS_PER_GAME, "D5")
        # O1: no opening is worth more than MAX_OPENING.
        o = check_range("open_min", rule_integer("open_min", open_min), 1, MAX_OPENING, "O1")
        a = check_range("ace_low_value", rule_integer("ace_low_value", ace_low_value), 1, 10,
                        "M6")
        if not isinstance(swap_keeps_romi, bool):
            raise UsageError(f"--swap-keeps-romi must be true or false (rule G3), got "
                             f"{swap_keeps_romi!r}")
        return cls(players=n, rounds=r, open_min=o, ace_low_value=a,
                   swap_keeps_romi=swap_keeps_romi)

    @cached_property
    def kernel(self) -> KernelRules:
        """The rules as the kernels take them (:class:`~simcards.romi.kernel_state.KernelRules`),
        built once."""
        return KernelRules(players=int(self.players), rounds=int(self.rounds),
                           open_min=int(self.open_min), ace_low=int(self.ace_low_value),
                           swap_romi=int(self.swap_keeps_romi))

    def hand_sizes(self, dealer: int) -> tuple[int, ...]:
        """D4: cards dealt to each seat when ``dealer`` deals (15 to the seat on his left)."""
        check_seat(dealer, self.players)
        starter = (dealer + 1) % self.players
        return tuple(STARTER_SIZE if p == starter else HAND_SIZE for p in range(self.players))
