"""Ronco and its Poroli variant: rules, kernels, exact solvers, reference engine, CLI, reports.

This module only registers the game with the shared machinery; it imports nothing heavy.
"""

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
    ),
    policy_kinds="simcards.ronco.policies:KINDS",
)
