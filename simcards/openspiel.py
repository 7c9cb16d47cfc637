"""The games as OpenSpiel Python games: importing this module registers every registered
game's tables (:mod:`simcards.core.openspiel_game`), so that

    import pyspiel
    import simcards.openspiel  # noqa: F401
    game = pyspiel.load_game("simcards_ronda", {"players": 3})

works for ``simcards_ronco``, ``simcards_ronco_game``, ``simcards_ronco_duel``,
``simcards_ronda``, ``simcards_ronda_match``, ``simcards_romi`` and ``simcards_romi_game``.
Needs the optional dependencies (``pip install -e '.[rl]'`` from the clone).
"""

from __future__ import annotations

from simcards.core.envs import table_refs
from simcards.core.openspiel_game import register
from simcards.core.registry import resolve

NAMES: dict[str, str] = {}
"""OpenSpiel name -> environment name, for every table registered."""

for _name, _ref in table_refs().items():
    _table = resolve(_ref)
    register(_table)
    NAMES[_table.openspiel_name] = _name
