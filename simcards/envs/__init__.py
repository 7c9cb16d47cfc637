"""The games as PettingZoo environments, one module each, imported as PettingZoo's own are
(``from simcards.envs import ronda_v0``; ``ronda_v0.env(players=3)``), and one seat of any of
them as a Gymnasium environment (:func:`seat_env`).

| module | unit | OpenSpiel name |
|---|---|---|
| ``ronco_v0`` | one Ronco round | ``simcards_ronco`` |
| ``ronco_game_v0`` | a Ronco game with lives | ``simcards_ronco_game`` |
| ``ronco_duel_v0`` | the two-player round, zero-sum (E3) | ``simcards_ronco_duel`` |
| ``ronda_v0`` | one Ronda hand | ``simcards_ronda`` |
| ``ronda_match_v0`` | a Ronda match | ``simcards_ronda_match`` |
| ``romi_v0`` | one Römi round | ``simcards_romi`` |
| ``romi_game_v0`` | a Römi game | ``simcards_romi_game`` |

Needs the optional dependencies: ``pip install -e '.[rl]'`` from the clone.
"""

from __future__ import annotations

from typing import Any


def seat_env(name: str, seat: int = 0, policies: Any = None, render_mode: str | None = None,
             **options: Any):
    """One learning seat of the environment ``name`` (``ronda_v0``, ...) against the game's
    own policies in the other seats (``policies``: one spec for all of them, or one per seat
    as ``--policies`` takes them), as a Gymnasium environment
    (:class:`simcards.core.envs.SeatEnv`)."""
    from simcards.core.envs import SeatEnv, table_game

    return SeatEnv(table_game(name), seat=seat, policies=policies, render_mode=render_mode,
                   **options)
