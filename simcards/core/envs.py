"""Any game's :class:`~simcards.core.table.TableGame` as a PettingZoo AEC environment and as a
one-seat Gymnasium environment.

The environments follow PettingZoo's classic card games: agents ``player_0`` .. ``player_<n-1>``
are the seats; ``observe(agent)`` is a dict of ``observation`` (the game's float32 vector, only
what that seat may see) and ``action_mask`` (int8, 1 for each code that continues a legal move,
all zeros for an agent not to act); ``step(code)`` picks one code of the move of the agent to
act (most moves are one code; see :mod:`simcards.core.table` for Römi's composite moves).
Rewards come only at the end (the game's ``reward`` says what they are); then every agent is
terminated and its ``infos`` hold the game's end-of-game figures. ``env()`` wraps ``raw_env``
in PettingZoo's own wrappers, as its classic environments are (an illegal code ends the game
with -1 to the agent that played it, an out-of-range code or a step after the end is an
error), made to read the per-step fields from the raw environment directly.

``reset(seed=...)`` draws every chance outcome from a :class:`random.Random` seeded with it,
so that the same seed deals the same cards; a reset without a seed continues the last stream.

PettingZoo and Gymnasium are optional (the ``rl`` extra: ``pip install -e '.[rl]'`` from the
clone): this module imports them, nothing else in the package does.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from simcards.core.errors import UsageError
from simcards.core.table import Cursor, TableGame, TableState

ILLEGAL_REWARD = -1.0
"""The reward of a code outside the action mask, which ends the game (PettingZoo's classic
environments do the same)."""
OBS_BOUND = 1.0e6
"""Observation vectors are finite; their boxes are declared [-1e6, 1e6]."""


def _spaces(game: TableGame, setup: Any) -> tuple[spaces.Dict, spaces.Discrete]:
    size = game.observation_size(setup)
    obs = spaces.Dict({
        "observation": spaces.Box(low=-OBS_BOUND, high=OBS_BOUND, shape=(size,),
                                  dtype=np.float32),
        "action_mask": spaces.Box(low=0, high=1, shape=(game.n_actions,), dtype=np.int8),
    })
    return obs, _Codes(game.n_actions)


class _Codes(spaces.Discrete):
    """The action codes 0 .. n-1: ``Discrete``, with its membership test answered in plain
    Python for a Python int (the wrappers ask it at every step, and numpy scalars make it cost
    a microsecond); anything else is ``Discrete``'s own answer."""

    def contains(self, x: Any) -> bool:
        if type(x) is int:
            return int(self.start) <= x < int(self.start) + int(self.n)
        return super().contains(x)


class TableEnv(AECEnv):
    """A PettingZoo AEC environment over a :class:`TableGame` (see the module text)."""

    def __init__(self, game: TableGame, render_mode: str | None = None, **options: Any) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise UsageError(f"render_mode={render_mode!r}: only 'ansi' is offered")
        self.game = game
        self.options = dict(options)
        self.setup = game.setup(options)
        self.render_mode = render_mode
        self.metadata = {"render_modes": ["ansi"], "name": game.name,
                         "is_parallelizable": False}
        n = game.n_players(self.setup)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        obs_space, act_space = _spaces(game, self.setup)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self._rng = random.Random()
        self.cursor: Cursor | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- the AEC cycle

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.cursor = Cursor(self.game.new_state(self.setup))
        self.cursor.deal(self._rng)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        p = self.cursor.state.current_player()
        if p >= 0:
            self.agent_selection = self.possible_agents[p]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        p = self.possible_agents.index(agent)
        state = self.cursor.state
        mine = state.current_player() == p and agent == self.agent_selection
        pending = self.cursor.pending if mine else ()
        mask = np.zeros(self.game.n_actions, dtype=np.int8)
        if mine and not self.terminations[agent]:
            mask.put(self.cursor.legal_codes(), 1)
        return {"observation": state.observation(p, pending), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.cursor.step(int(action))
        if self.cursor.state.current_player() < 0 and not self.cursor.state.is_terminal():
            self.cursor.deal(self._rng)
        state = self.cursor.state
        if state.is_terminal():
            returns = state.returns()
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = float(returns[i])
                self.terminations[a] = True
                self.infos[a] = state.infos(i)
        else:
            self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode; use render_mode='ansi'")
            return None
        return self.cursor.state.render()

    def close(self) -> None:
        pass


_FIELDS = ("agent_selection", "agents", "num_agents", "terminations", "truncations", "rewards",
           "infos", "_cumulative_rewards")
"""The per-step fields that :meth:`AECEnv.last`, ``agent_iter`` and the wrappers read."""


def _direct(cls: type, check_reset: bool) -> type:
    """``cls`` (a PettingZoo wrapper) reading :data:`_FIELDS` straight from the raw environment.

    PettingZoo's wrappers find such a field by ``__getattr__`` through every wrapper in turn,
    which cost more than our whole step; reading it from the raw environment gives the same
    value (wrappers never keep their own copy). ``OrderEnforcingWrapper``'s check that the
    environment was reset first is kept."""

    def getter(name: str) -> property:
        get = operator.attrgetter("_raw." + name)  # read in C: a step reads these some 18 times
        if not check_reset:
            return property(get)

        def read(self: Any) -> Any:
            if not self._has_reset:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return get(self)
        return property(read)

    def __init__(self: Any, env: AECEnv, *args: Any, **kwargs: Any) -> None:
        self._raw = env.unwrapped
        cls.__init__(self, env, *args, **kwargs)

    body: dict[str, Any] = {n: getter(n) for n in _FIELDS}
    body["__init__"] = __init__
    return type(cls.__name__, (cls,), body)


_TerminateIllegal = _direct(wrappers.TerminateIllegalWrapper, check_reset=False)
_AssertOutOfBounds = _direct(wrappers.AssertOutOfBoundsWrapper, check_reset=False)
_OrderEnforcing = _direct(wrappers.OrderEnforcingWrapper, check_reset=True)


def env_functions(game: TableGame) -> tuple[Callable[..., AECEnv], Callable[..., TableEnv]]:
    """``(env, raw_env)`` of a PettingZoo environment module for ``game``."""

    def raw_env(render_mode: str | None = None, **options: Any) -> TableEnv:
        return TableEnv(game, render_mode=render_mode, **options)

    def env(render_mode: str | None = None, **options: Any) -> AECEnv:
        e: AECEnv = raw_env(render_mode=render_mode, **options)
        e = _TerminateIllegal(e, illegal_reward=ILLEGAL_REWARD)
        e = _AssertOutOfBounds(e)
        return _OrderEnforcing(e)

    doc = (f"{game.long_name} as a PettingZoo AEC environment.\n\nOptions (named as the "
           "commands' flags, with their defaults):\n\n"
           + "\n".join(f"* ``{p.name}`` = {p.default!r}: {p.help}" for p in game.params)
           + f"\n\nRewards: {game.reward}\n\nObservation:\n\n{game.observation_fields}")
    raw_env.__doc__ = doc
    env.__doc__ = doc
    return env, raw_env


class SeatEnv(gymnasium.Env):
    """One learning seat of a :class:`TableGame` against fixed policies in the other seats.

    ``policies`` names the other seats' policies as the commands' ``--policies`` does, in the
    game's own names (Ronda ``greedy``, Ronco ``threshold:5:5``, Römi ``expert``): one spec
    for every other seat, or one per seat (a list, or the ``--policies`` text with commas; the
    learning seat's entry is ignored). Each episode is one game unit (a hand, a round, a match,
    a game); the other seats play until the learning seat is to act, and the reward at the end
    is the learning seat's return. Observations are the AEC environment's dict. As in PettingZoo's
    classic environments, a code outside the mask ends the episode with reward -1."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(self, game: TableGame, seat: int = 0,
                 policies: str | Sequence[str] | None = None,
                 render_mode: str | None = None, **options: Any) -> None:
        if render_mode not in (None, "ansi"):
            raise UsageError(f"render_mode={render_mode!r}: only 'ansi' is offered")
        if game.seat_policy is None:
            raise UsageError(f"{game.name} has no fixed-seat policies")
        self.game = game
        self.setup = game.setup(options)
        self.render_mode = render_mode
        n = game.n_players(self.setup)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise UsageError(f"seat={seat!r} must be a seat 0 .. {n - 1}")
        self.seat = seat
        if policies is None:
            policies = game.default_opponent
        if isinstance(policies, str):
            specs = policies.split(",") if "," in policies else [policies] * n
        else:
            specs = list(policies)
        if len(specs) != n:
            raise UsageError(f"--policies: {len(specs)} policies for {n} seats")
        self.specs = specs
        self.choosers: list[Callable[[TableState, random.Random], Any] | None] = [
            None if i == seat else game.seat_policy(self.setup, specs[i]) for i in range(n)]
        self.observation_space, self.action_space = _spaces(game, self.setup)
        self._rng = random.Random()
        self._bots = random.Random()
        self.cursor: Cursor | None = None
        self._over = True

    def _others(self) -> None:
        state = self.cursor.state
        while not state.is_terminal():
            p = state.current_player()
            if p < 0:
                self.cursor.deal(self._rng)
            elif p == self.seat:
                return
            else:
                self.cursor.play_move(self.choosers[p](state, self._bots))

    def _obs(self) -> dict[str, np.ndarray]:
        mask = np.zeros(self.game.n_actions, dtype=np.int8)
        if not self._over:
            mask.put(self.cursor.legal_codes(), 1)
        return {"observation": self.cursor.state.observation(self.seat, self.cursor.pending),
                "action_mask": mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
            self._bots = random.Random(f"{seed}:seats")
        self.cursor = Cursor(self.game.new_state(self.setup))
        self.cursor.deal(self._rng)
        self._others()
        self._over = self.cursor.state.is_terminal()
        return self._obs(), {}

    def step(self, action: int):
        if self._over:
            raise UsageError("step() after the end of the episode: call reset()")
        if int(action) not in self.cursor.legal_codes():
            # As PettingZoo's classic environments: an illegal code ends the episode, -1.
            self._over = True
            return self._obs(), ILLEGAL_REWARD, True, False, {"illegal_action": int(action)}
        self.cursor.step(int(action))
        self._others()
        state = self.cursor.state
        done = self._over = state.is_terminal()
        reward = float(state.returns()[self.seat]) if done else 0.0
        info = state.infos(self.seat) if done else {}
        return self._obs(), reward, done, False, info

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return self.cursor.state.render()


def table_refs() -> Mapping[str, str]:
    """Every registered game's tables: environment name (``ronda_v0``) -> ``"module:attr"``."""
    from simcards.core.registry import games

    return {name: ref for g in games() for name, ref in g.tables.items()}


def table_game(name: str) -> TableGame:
    """The registered table called ``name``; a one-line ``UsageError`` for an unknown one."""
    from simcards.core.registry import resolve

    refs = table_refs()
    if name not in refs:
        raise UsageError(f"unknown environment {name!r}; expected one of "
                         f"{', '.join(sorted(refs))}")
    return resolve(refs[name])
