"""Ronco and its Poroli variant: rules, kernels, exact solvers, reference engine, CLI, reports.

This module registers the game with the shared machinery and imports nothing heavy. Its Python
API mirrors the commands (see :mod:`simcards.ronco.api`)::

    import simcards.ronco

    simcards.ronco.rounds(players=6, rounds="10M").to_frame()
    simcards.ronco.games(players=4, lives=3, exact=True).to_dict()
    simcards.ronco.best_threshold(players="4-6").to_frame()

``rounds``, ``games``, ``best_threshold`` and ``exact`` are the modules that implement the
commands, made callable (:mod:`simcards.core.apimodule`); they are imported on first use.
"""

from importlib import import_module
from typing import Any

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
    policy_kinds="simcards.ronco.policies:KINDS",
)

API = ("rounds", "games", "best_threshold", "exact", "api")
"""The API's entry points, imported on first access."""


def __getattr__(name: str) -> Any:
    if name in API:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])
