"""Ronco and its Poroli variant: rules, kernels, exact solvers, reference engine, CLI, reports.

This module registers the game with the shared machinery and imports nothing heavy. Its Python
API mirrors the commands (see :mod:`simcards.ronco.api`)::

    import simcards.ronco

    simcards.ronco.rounds(players=6, rounds="10M").to_frame()
    simcards.ronco.games(players=4, lives=3, exact=True).to_dict()
    simcards.ronco.best_threshold(players="4-6").to_frame()

Each command is a function of :mod:`simcards.ronco.api`, an attribute of this package
imported on first use (:mod:`simcards.core.gameapi`).
"""

from simcards.core.gameapi import command_functions
from simcards.core.registry import Game

GAME = Game(
    name="ronco",
    help="Ronco and its Poroli variant.",
    cli="simcards.ronco.cli:app",
    studies={
        "ronco-rounds": "simcards.ronco.reports.rounds:build",
        "ronco-games": "simcards.ronco.reports.games:build",
        "ronco-best": "simcards.ronco.reports.best_threshold:build",
    },
    warmups=(
        "simcards.ronco.warmups:warm_ronco_rounds",
        "simcards.ronco.warmups:warm_ronco_games",
        "simcards.ronco.warmups:warm_ronco_race",
        "simcards.ronco.warmups:warm_ronco_exact",
        "simcards.ronco.warmups:warm_ronco_mixed",
    ),
    tables={"ronco_v0": "simcards.ronco.table:ROUND", "ronco_game_v0": "simcards.ronco.table:GAME",
            "ronco_duel_v0": "simcards.ronco.table:DUEL"},
    policy_kinds="simcards.ronco.policies:KINDS",
    example=("rounds", "--players", "4", "--rounds", "6M"),
    example_long=("rounds", "--players", "4", "--rounds", "100G"),
)

COMMANDS = ("rounds", "exact", "chart", "advise", "games", "best_threshold", "equilibrium")
"""The commands, each a function of ``simcards.ronco.api`` (``simcards.ronco.rounds(...)``)."""

__getattr__, __dir__ = command_functions(__name__, COMMANDS)
