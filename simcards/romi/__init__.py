"""Römi húngaro: the two-deck rummy with jokers (rules in seeds/romi.md): cards, rules, the
exact meld solver and its command (``simcards romi melds``)."""

from simcards.core.registry import Game

GAME = Game(
    name="romi",
    help="Römi húngaro, the two-deck rummy with jokers.",
    cli="simcards.romi.cli:app",
)
