"""Römi húngaro: the two-deck rummy with jokers (rules in seeds/romi.md): cards, rules, the
exact meld solver, the numba engine and its policies, the reference engine, the commands
``simcards romi melds``, ``advise``, ``rounds``, ``games``, ``compare`` and ``ladder``, and the
report studies.

Each command is a function of :mod:`simcards.romi.api` and an attribute of this package
(``simcards.romi.melds(hand="Ah 2h 3h X")``), imported on first use."""

from simcards.core.gameapi import command_functions
from simcards.core.registry import Game

GAME = Game(
    name="romi",
    help="Römi húngaro, the two-deck rummy with jokers.",
    cli="simcards.romi.cli:app",
    studies={
        "romi-policies": "simcards.romi.reports.policies:build",
        "romi-rounds": "simcards.romi.reports.rounds:build",
        "romi-questions": "simcards.romi.reports.questions:build",
    },
    long_studies={"romi-search": "simcards.romi.reports.search:build"},
    warmups=("simcards.romi.warmups:warm_romi_rounds", "simcards.romi.warmups:warm_romi_compare",
             "simcards.romi.warmups:warm_romi_games",
             "simcards.romi.warmups:warm_romi_questions",
             "simcards.romi.warmups:warm_romi_table"),
    tables={"romi_v0": "simcards.romi.table:ROUND", "romi_game_v0": "simcards.romi.table:GAME"},
    policy_kinds="simcards.romi.policies:KINDS",
    example=("rounds", "--players", "3", "--rounds", "1500"),
    example_long=("rounds", "--players", "3", "--rounds", "10M"),
)

COMMANDS = ("melds", "advise", "rounds", "games", "compare", "ladder")
"""The commands, each a function of ``simcards.romi.api`` (``simcards.romi.rounds(...)``)."""

__getattr__, __dir__ = command_functions(__name__, COMMANDS)
