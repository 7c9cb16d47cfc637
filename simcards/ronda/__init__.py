"""Ronda, the Spanish-deck capture game (rules in ``seeds/ronda.md``): rules, hand and match
kernels, the reference engine, the CLI.

This module registers the game with the shared machinery and imports nothing heavy. Its Python
API mirrors the commands (see :mod:`simcards.ronda.api`)::

    import simcards.ronda

    simcards.ronda.hands(players=2, policies="greedy,random", hands="1M").to_frame()
    simcards.ronda.matches(players=4, teams="on", target=41, matches="100k").to_dict()
    simcards.ronda.compare("lookahead:1", "greedy", deals="20k").to_dict()
    simcards.ronda.ladder(policies="greedy,lookahead:1,random", deals="5k").to_frame()
    simcards.ronda.advise(hand="1o 7c 12e", table="3o 5c", captured="2o 2c 4e 4o; 6b 6o 10c 11c",
                          dealer=1).to_frame()

Each command is a function of :mod:`simcards.ronda.api`, an attribute of this package
imported on first use (:mod:`simcards.core.gameapi`).
"""

from simcards.core.gameapi import command_functions
from simcards.core.registry import Game

GAME = Game(
    name="ronda",
    help="Ronda, the Spanish-deck capture game.",
    cli="simcards.ronda.cli:app",
    studies={
        "ronda-policies": "simcards.ronda.reports.policies:build",
        "ronda-game": "simcards.ronda.reports.game:build",
    },
    long_studies={"ronda-search": "simcards.ronda.reports.search:build"},
    warmups=(
        "simcards.ronda.warmups:warm_ronda_hands",
        "simcards.ronda.warmups:warm_ronda_matches",
        "simcards.ronda.warmups:warm_ronda_duplicate",
    ),
    tables={"ronda_v0": "simcards.ronda.table:HAND",
            "ronda_match_v0": "simcards.ronda.table:MATCH"},
    policy_kinds="simcards.ronda.policies:KINDS",
    example=("hands", "--players", "3", "--hands", "100k"),
    example_long=("hands", "--players", "3", "--hands", "1G"),
)

COMMANDS = ("hands", "matches", "compare", "ladder", "advise")
"""The commands, each a function of ``simcards.ronda.api`` (``simcards.ronda.hands(...)``)."""

__getattr__, __dir__ = command_functions(__name__, COMMANDS)
