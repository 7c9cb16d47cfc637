"""The environments' and OpenSpiel's parameters advertise only what the rules accept: every
word a parameter's help lists (``flat | tiers``) makes a game, and a word it does not list is
refused, in every table game of every game package."""

from __future__ import annotations

import re

import pytest

from simcards.core.errors import UsageError
from simcards.core.table import TableGame
from simcards.romi import table as romi_table
from simcards.ronco import table as ronco_table
from simcards.ronda import table as ronda_table

GAMES = [g for module in (ronco_table, ronda_table, romi_table)
         for g in vars(module).values() if isinstance(g, TableGame)]
CHOICES = re.compile(r"^([\w.]+(?: \| [\w.]+)+)")
"""The help of a parameter with a fixed set of words starts with them: ``a | b | c``."""

LISTED = [(g, p.name, word) for g in GAMES for p in g.params
          if (m := CHOICES.match(p.help)) for word in m.group(1).split(" | ")]


def test_every_game_has_parameters_with_listed_words() -> None:
    assert {g.name for g, _, _ in LISTED} >= {"ronda_v0", "ronda_match_v0"}


@pytest.mark.parametrize(("game", "name", "word"), LISTED,
                         ids=[f"{g.name}-{n}-{w}" for g, n, w in LISTED])
def test_every_listed_word_of_a_parameter_makes_a_game(game: TableGame, name: str,
                                                       word: str) -> None:
    game.setup({name: word})


SWITCHES = list({(g.name, n): (g, n) for g, n, _ in LISTED}.values())
"""Each (game, parameter) with listed words, once."""


@pytest.mark.parametrize(("game", "name"), SWITCHES, ids=[f"{g.name}-{n}" for g, n in SWITCHES])
def test_a_word_no_parameter_lists_is_refused(game: TableGame, name: str) -> None:
    with pytest.raises(UsageError):
        game.setup({name: "no_such_word"})
