"""Any game's :class:`~simcards.core.table.TableGame` as an OpenSpiel Python game.

:func:`register` registers one table under its ``openspiel_name``; then
``pyspiel.load_game("simcards_ronda", {"players": 3})`` builds it with the options given (named
as the commands' flags; an option whose command default is "none" is -1 here for a number and
``""`` for a word, OpenSpiel parameters having no None). The game is sequential with explicit
chance (the shuffle, one card at a time), imperfect information, terminal rewards; it offers
information-state and observation strings (perfect recall: everything the player has seen),
the observation tensor (the environments' vector) and ``resample_from_infostate``, which
OpenSpiel's Python ``ismcts.ISMCTSBot`` calls to draw a world the player cannot tell from the
true one.

OpenSpiel is optional (``pip install -e '.[rl]'`` from the clone); only this module and
:mod:`simcards.openspiel` import it.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from simcards.core.table import CHANCE, TERMINAL, Cursor, Param, TableGame


def _spiel_default(p: Param) -> Any:
    """OpenSpiel parameters have no None: the option's stand-in (``Param.none``)."""
    return p.none if p.default is None else p.default


def _options(game: TableGame, params: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for p in game.params:
        v = params.get(p.name, _spiel_default(p))
        out[p.name] = None if (p.default is None and v == p.none) else v
    return out


def register(game: TableGame) -> None:
    """Register ``game`` with OpenSpiel (once; later calls do nothing)."""
    if game.openspiel_name in pyspiel.registered_names():
        return
    game_type = pyspiel.GameType(
        short_name=game.openspiel_name,
        long_name=game.long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.GENERAL_SUM if game.utility_sum is None
                 else pyspiel.GameType.Utility.ZERO_SUM if game.utility_sum == 0
                 else pyspiel.GameType.Utility.CONSTANT_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.players_range[1],
        min_num_players=game.players_range[0],
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={p.name: _spiel_default(p) for p in game.params},
    )

    class Game(pyspiel.Game):
        def __init__(self, params: dict[str, Any] | None = None) -> None:
            self.table = game
            self.setup = game.setup(_options(game, dict(params or {})))
            lo, hi = game.utility(self.setup)
            n = game.n_players(self.setup)
            info = pyspiel.GameInfo(
                num_distinct_actions=game.n_actions,
                max_chance_outcomes=game.max_chance_outcomes,
                num_players=n,
                min_utility=float(lo),
                max_utility=float(hi),
                utility_sum=game.utility_sum,
                max_game_length=game.max_game_length(self.setup))
            super().__init__(game_type, info, dict(params or {}))

        def new_initial_state(self) -> State:
            return State(self, Cursor(game.new_state(self.setup)))

        def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
            perfect = iig_obs_type is None or iig_obs_type.perfect_recall
            return Observer(game.observation_size(self.setup), perfect)

    Game.__name__ = Game.__qualname__ = f"{game.openspiel_name}_game"
    pyspiel.register_game(game_type, Game)


class State(pyspiel.State):
    """A :class:`~simcards.core.table.Cursor` as an OpenSpiel state."""

    def __init__(self, game: pyspiel.Game, cursor: Cursor) -> None:
        super().__init__(game)
        self.cursor = cursor
        self._resamples = 0

    def current_player(self) -> int:
        p = self.cursor.state.current_player()
        if p == CHANCE:
            return pyspiel.PlayerId.CHANCE
        if p == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        return p

    def _legal_actions(self, player: int) -> list[int]:
        return self.cursor.legal_codes()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.cursor.state.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self.cursor.state.current_player() == CHANCE:
            self.cursor.chance(int(action))
        else:
            self.cursor.step(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance {action}"
        return self.get_game().table.action_text(action)

    def is_terminal(self) -> bool:
        return self.cursor.state.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self.cursor.state.returns()]

    def rewards(self) -> list[float]:
        """Only the end pays (terminal reward model): the returns, at the end."""
        if self.cursor.state.is_terminal():
            return self.returns()
        return [0.0] * self.get_game().num_players()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> State:
        """A state ``player_id`` cannot tell from this one, its hidden cards drawn at random
        (the game's ``resample``); the sampler's number and a count of the draws made from
        this state seed the draw."""
        self._resamples += 1
        seed = f"{probability_sampler()!r}:{self._resamples}"
        other = self.cursor.clone()
        other.state = self.cursor.state.resample(player_id, random.Random(seed))
        return State(self.get_game(), other)

    def __str__(self) -> str:
        return self.cursor.state.history_text()


class Observer:
    """OpenSpiel's observer: the observation vector, and the information text (perfect
    recall) or the observation text."""

    def __init__(self, size: int, perfect_recall: bool) -> None:
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}
        self.perfect_recall = perfect_recall

    def set_from(self, state: State, player: int) -> None:
        c = state.cursor
        pending = c.pending if c.state.current_player() == player else ()
        self.tensor[:] = c.state.observation(player, pending)

    def string_from(self, state: State, player: int) -> str:
        c = state.cursor
        pending = c.pending if c.state.current_player() == player else ()
        if self.perfect_recall:
            return c.state.information_text(player, pending)
        return c.state.observation_text(player, pending)
