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

from simcards.core.cli_options import Count, check_seat
from simcards.core.switches import HAND, MATCH, Rules, RuleSet, switch
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
class RomiRules(Rules):
    """Every rule switch of Römi (the options table of ``seeds/romi.md``), each declared once
    with :func:`~simcards.core.switches.switch` (the command line's options, the API's
    keywords, the table parameters and the kernels' codes all come from here).

    Build with :meth:`make`, which validates every value with a one-line :class:`UsageError`;
    the defaults are the rulings' defaults.
    """

    players: int = switch(4, rules="D2", low=min(PLAYERS), high=max(PLAYERS),
                          help="Players at the table")
    open_min: int = switch(51, rules="O1", low=1, high=MAX_OPENING,
                           help="Least value (M6) of an opening lay-down: no opening is worth "
                           "more than 140")
    ace_low_value: int = switch(1, rules="M6", low=1, high=10,
                                help="What an As below the 2 in a run is worth for opening "
                                "and best_value (an As anywhere else is worth 10)")
    swap_keeps_romi: bool = switch(
        False, rules="G3",
        help="Read G3 the other way: a joker swap (J1) whose freed joker goes into the "
        "player's own new melds keeps the -20 of a one-turn opening and going out (by default "
        "any swap puts a card into another player's meld and cancels it)")
    rounds: int = switch(7, rules="D5, G6", low=1, high=MAX_ROUNDS_PER_GAME, level=MATCH,
                         help="Rounds in a game")

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


ROUND_SWITCHES = RuleSet.of(RomiRules, HAND)
"""The switches a single round reads (``rounds``)."""
GAME_SWITCHES = RuleSet.of(RomiRules)
"""Every switch: the commands that play whole games (``games``, ``compare``)."""
LADDER_SWITCHES = RuleSet.of(RomiRules, exclude=("players",), as_values=True)
"""``ladder``'s: every switch but ``players``, which lists table sizes there."""
MELDS_SWITCHES = RuleSet.of(RomiRules, only=("ace_low_value",))
"""``melds``': the one switch the meld solver reads (M6)."""
ADVISE_SWITCHES = RuleSet.of(RomiRules, only=("open_min", "ace_low_value", "swap_keeps_romi"))
"""``advise``'s: what a position's answers read (O1, M6, G3: ``swap_keeps_romi`` decides whether
going out after a joker swap scores -20, :func:`simcards.romi.api.advise`)."""

# The counts of the Monte Carlo commands, here beside the switches they take (both read by the
# command line without importing the engine).
ROUNDS = Count("--rounds", "10k", 10**9, "Rounds to simulate")
"""How many rounds one ``rounds`` run simulates."""
GAMES = Count("--games", "2k", 10**8, "Games to simulate")
"""How many games one ``games`` run simulates."""
DEALS = Count("--deals", "1k", 10**8, "Deal sets, each one game per seat rotation of A (A in "
              "one seat, B in the others), all on the same decks")
"""How many deal sets one ``compare`` run plays (each is one game per seat rotation), and a
ladder per pairing."""
