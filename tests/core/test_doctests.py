"""The examples in the docstrings of every game's ``rules`` and ``reference`` modules run and
show what the code does: each module has at least one, and none fails.

The examples are worked from the rules text (``seeds/<game>.md``): making the rules and a value
derived from them, and a few moves of the reference engine on a fixed deal with the state they
leave. Run here, they cannot drift from the code. The games are those of the registry that live
in the ``simcards`` package (a game from outside it, such as the toy game, keeps its own tests).
"""

from __future__ import annotations

import doctest
from importlib import import_module

import pytest

from simcards.core.registry import game_modules, games


def package_games() -> list[tuple[str, str]]:
    """``(game name, package)`` of every registered game inside the ``simcards`` package."""
    return [(game.name, module) for module, game in zip(game_modules(), games(), strict=True)
            if module.startswith("simcards.")]


def test_every_game_of_the_package_is_covered() -> None:
    """The three games of the package are found, so the parametrised test below is not empty."""
    assert {name for name, _ in package_games()} >= {"ronco", "ronda", "romi"}


@pytest.mark.parametrize("part", ["rules", "reference"])
@pytest.mark.parametrize(("game", "package"), package_games(),
                         ids=[name for name, _ in package_games()])
def test_docstring_examples_of_rules_and_reference_pass(game: str, package: str,
                                                        part: str) -> None:
    """``doctest.testmod`` on ``<package>.<part>``: at least one example tried, none failed."""
    module = import_module(f"{package}.{part}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    assert result.attempted >= 1, f"{module.__name__} has no docstring example"
    assert result.failed == 0, f"{result.failed} example(s) of {module.__name__} failed"
