"""Ronda, the Spanish-deck capture game (rules in ``seeds/ronda.md``): rules, hand and match
kernels, the reference engine, the CLI.

This module registers the game with the shared machinery and imports nothing heavy. Its Python
API mirrors the commands (see :mod:`simcards.ronda.api`)::

    import simcards.ronda

    simcards.ronda.hands(players=2, policies="greedy,random", hands="1M").to_frame()
    simcards.ronda.matches(players=4, teams="on", target=41, matches="100k").to_dict()
    simcards.ronda.compare("lookahead:1", "greedy", deals="20k").to_dict()

``hands``, ``matches`` and ``compare`` are modules (the hands batch, the match kernels, the
duplicate batch) made callable (:mod:`simcards.core.apimodule`); they are imported on first use.
The package makes each of them callable as it becomes the package's attribute (which Python
does on every import of the submodule, whoever imports it), so the modules themselves need not
know about the API.
"""

import sys
import types
from importlib import import_module
from typing import Any

from simcards.core.apimodule import make_callable
from simcards.core.registry import Game

GAME = Game(
    name="ronda",
    help="Ronda, the Spanish-deck capture game.",
    cli="simcards.ronda.cli:app",
    studies={
        "ronda-policies": "simcards.ronda.reports.policies:build",
        "ronda-game": "simcards.ronda.reports.game:build",
    },
    warmups=(
        "simcards.ronda.warmups:warm_ronda_hands",
        "simcards.ronda.warmups:warm_ronda_matches",
        "simcards.ronda.warmups:warm_ronda_duplicate",
    ),
    policy_kinds="simcards.ronda.policies:KINDS",
)

API = ("hands", "matches", "compare", "api")
"""The API's entry points, imported on first access."""
COMMANDS = ("hands", "matches", "compare")
"""The submodules that run the command of the same name when called."""


class _Package(types.ModuleType):
    """This package's module class: a command's submodule, set as the package's attribute by
    the import system, is made callable on the way in."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in COMMANDS and isinstance(value, types.ModuleType):
            make_callable(value.__name__, f"simcards.ronda.api:{name}")
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name in API:
        return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *API])
