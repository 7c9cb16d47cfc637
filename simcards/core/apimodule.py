"""Modules that can be called: ``simcards.<game>.rounds(players=6)`` runs the ``rounds`` command.

A game's commands and the modules that implement them share their names (``rounds``,
``games``, ...). Python sets a package's attribute to its submodule whenever the submodule is
imported, so a function of the same name in the package would be replaced by the module at the
first import anywhere. Instead, the module itself becomes callable: :func:`make_callable` gives
it a module class whose ``__call__`` runs the API function named by a ``"module:function"``
reference (resolved on call, so nothing is imported early), and whose ``__signature__`` is that
function's (for ``help`` and notebooks' completion). The module keeps every other attribute.
"""

from __future__ import annotations

import inspect
import sys
import types
from typing import Any

from simcards.core.registry import resolve


class CallableModule(types.ModuleType):
    """A module whose call runs the function named by its ``__api__`` reference."""

    __api__: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return resolve(self.__api__)(*args, **kwargs)

    @property
    def __signature__(self) -> inspect.Signature:
        return inspect.signature(resolve(self.__api__))


def make_callable(module_name: str, api: str) -> None:
    """Make the (already imported) module ``module_name`` run ``api`` when called."""
    module = sys.modules[module_name]
    module.__api__ = api
    module.__class__ = CallableModule
