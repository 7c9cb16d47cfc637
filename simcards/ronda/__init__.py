"""Ronda, the Spanish-deck capture game (rules in ``seeds/ronda.md``): rules, hand and match
kernels, the reference engine, the CLI.

This module registers the game with the shared machinery and imports nothing heavy. Its Python
API mirrors the commands (see :mod:`simcards.ronda.api`)::

    import simcards.ronda

    simcards.ronda.hands(players=2, policies="greedy,random", hands="1M").to_frame()

``hands`` is the module that implements the command, made callable
(:mod:`simcards.core.apimodule`); it is imported on first use.
"""

from importlib import import_module
from typing import Any

from simcards.core.registry import Game

GAME = Game(
    name="ronda",
    help="Ronda, the Spanish-deck capture game.",
    cli="simcards.ronda.cli:app",
    studies={},
    warmups=(
        "simcards.ronda.warmups:warm_ronda_hands",
    ),
    policy_kinds="simcards.ronda.policies:KINDS",
)

API = ("hands", "api")
"""The API's entry points, imported on first access."""


def __getattr__(name: str) -> Any:
    if name in API:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])
