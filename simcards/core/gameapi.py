"""A game package's Python API: ``simcards.<game>.<command>(...)`` runs the command.

Every game names its commands' functions in its ``api`` module (``simcards.ronda.api.hands``)
and lists them in its ``__init__.py``; :func:`command_functions` gives the package the module
``__getattr__`` and ``__dir__`` that make each one an attribute of the package, imported on
first use, so that ``import simcards.ronda`` stays light. No module of a game is named after a
command (the game layout in :mod:`simcards.core.registry` names them ``<command>_batch.py``),
so no submodule import can ever replace a command's function on the package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any


def command_functions(package: str, commands: Sequence[str]
                      ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the game package ``package``: each name of
    ``commands`` is the function of that name in ``<package>.api``, and ``api`` the module."""
    names = tuple(commands)

    def __getattr__(name: str) -> Any:
        if name in names:
            return getattr(import_module(f"{package}.api"), name)
        if name == "api":
            return import_module(f"{package}.api")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        import sys

        return sorted({*vars(sys.modules[package]), *names, "api"})

    return __getattr__, __dir__
