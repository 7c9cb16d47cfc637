"""A game as the game-AI libraries see it: a state with explicit chance, integer actions and a
fixed-size observation per player.

PettingZoo and Gymnasium environments (:mod:`simcards.core.envs`) and OpenSpiel games
(:mod:`simcards.core.openspiel_game`) are built from one description per game, a
:class:`TableGame`, and one state class, a :class:`TableState`; neither adapter knows any
game. A game package supplies them in its ``table.py``: the moves of its reference engine with
their *action codes*, the observation encoding (documented field by field), the rewards and the
information a player has (so that a search can resample what he cannot see).

Why action *paths*. A Ronda or Ronco move is one number (a card, keep or pass). A Römi opening
lays several melds at once, and the number of possible openings is far too large for one
number each. So every legal move has a *path*: a short tuple of codes from one fixed numbering
(``TableGame.n_actions``); a player picks one code at a time, and the move is made when the
codes picked so far are a whole path. :class:`Cursor` keeps the codes picked so far (the
*pending* codes) and offers, as legal, exactly the codes that continue some legal move's path.
No path of a state may be the beginning of another (a game ends composite moves with a code of
their own), so a whole path always names one move. The pending codes are part of what the
player knows: games put them in the observation and the information state.

Chance is explicit. A state whose ``current_player()`` is :data:`CHANCE` lists its outcomes and
their probabilities (a shuffle is one card at a time); :meth:`TableState.deal` resolves every
chance node in a row with a seeded generator, by default one outcome at a time, faster where a
game shuffles a whole deck at once (the same seed always gives the same deal).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

CHANCE = -1
"""``current_player()`` of a chance node (OpenSpiel's ``PlayerId.CHANCE``)."""
TERMINAL = -4
"""``current_player()`` once the game is over (OpenSpiel's ``PlayerId.TERMINAL``)."""

Path = tuple[int, ...]


class TableState(ABC):
    """One game in progress, as both adapters drive it. Subclasses wrap a reference engine."""

    n_players: int

    # -- chance

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` at a chance node, in increasing outcome order."""

    @abstractmethod
    def apply_chance(self, outcome: int) -> None:
        """Resolve the chance node with ``outcome``."""

    def deal(self, rng: random.Random) -> None:
        """Resolve every chance node from here until a player is to act or the game is over."""
        while self.current_player() == CHANCE:
            outcomes = self.chance_outcomes()
            u = rng.random()
            acc = 0.0
            pick = outcomes[-1][0]
            for outcome, p in outcomes:
                acc += p
                if u < acc:
                    pick = outcome
                    break
            self.apply_chance(pick)

    # -- decisions

    @abstractmethod
    def current_player(self) -> int:
        """The seat to act, :data:`CHANCE` or :data:`TERMINAL`."""

    @abstractmethod
    def moves(self) -> Mapping[Path, Any]:
        """Every legal move of the player to act, keyed by its action path."""

    @abstractmethod
    def play(self, move: Any) -> None:
        """Make a legal move (a value of :meth:`moves`)."""

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    @abstractmethod
    def returns(self) -> list[float]:
        """Each seat's total reward so far: zeros until the end (only the end pays in these
        games, and OpenSpiel checks that the rewards add up to the returns at every step)."""

    # -- what a player sees

    @abstractmethod
    def observation(self, player: int, pending: Path = ()) -> np.ndarray:
        """The observation vector of ``player`` (``TableGame.observation_size`` floats, never
        anything he may not see), with ``pending`` the codes he has picked of a move so far."""

    @abstractmethod
    def observation_text(self, player: int, pending: Path = ()) -> str:
        """What ``player`` sees now, as text."""

    @abstractmethod
    def information_text(self, player: int, pending: Path = ()) -> str:
        """Everything ``player`` has seen since the game began (perfect recall), as text: two
        states with the same text are indistinguishable to him."""

    @abstractmethod
    def resample(self, player: int, rng: random.Random) -> TableState:
        """A state drawn from those ``player`` cannot tell from this one (same information text)
        with the hidden cards dealt at random consistently with what he has seen."""

    def infos(self, player: int) -> dict[str, Any]:
        """What an environment reports in ``infos`` for ``player`` (at the end: his side's
        points by source, or the game's equivalent)."""
        return {}

    @abstractmethod
    def render(self) -> str:
        """The table as text (what the game's ``play`` command shows)."""

    @abstractmethod
    def clone(self) -> TableState:
        """An independent copy."""

    def history_text(self) -> str:
        """Every chance outcome and move so far, for debugging."""
        return repr(self)


@dataclass(frozen=True)
class Param:
    """One option of a game as environments and OpenSpiel take it: named as the command's flag
    (``--cut-king`` is ``cut_king``), with the command's default."""

    name: str
    default: Any
    help: str
    none: Any = -1
    """What stands for a ``None`` default where None cannot be written (an OpenSpiel
    parameter): -1 for a seat, ``""`` for a word."""


@dataclass(frozen=True)
class TableGame:
    """A game (or a game's unit: a hand, a match) as an environment and an OpenSpiel game."""

    name: str
    """The environment's name, PettingZoo style (``ronda_v0``)."""
    openspiel_name: str
    """The OpenSpiel short name (``simcards_ronda``)."""
    long_name: str
    params: tuple[Param, ...]
    """The options, with the commands' defaults."""
    make: Callable[[dict[str, Any]], Any]
    """Checks the options (a one-line ``UsageError`` naming the flag) and returns the game's
    setup object, which :attr:`new_state` and the sizes below read."""
    new_state: Callable[[Any], TableState]
    """A new game at its first chance node."""
    n_players: Callable[[Any], int]
    n_actions: int
    """The size of the action numbering; every code of every path is below it."""
    action_text: Callable[[int], str]
    observation_size: Callable[[Any], int]
    observation_fields: str
    """The observation, field by field (shown in the environment's docs)."""
    reward: str
    """How the game pays, in one sentence."""
    utility: Callable[[Any], tuple[float, float]]
    """``(min, max)`` of one seat's returns."""
    zero_sum: Callable[[Any], bool]
    max_chance_outcomes: int
    max_game_length: Callable[[Any], int]
    """An upper bound on the number of decisions (codes) in one game."""
    seat_policy: Callable[[Any, str], Callable[[TableState, random.Random], Any]] | None = None
    """``seat_policy(setup, spec)``: a move chooser for a fixed seat (``greedy``, ...), for the
    one-seat Gymnasium environment; ``UsageError`` for a spec the game does not know."""
    default_opponent: str = "random"
    utility_sum: float | None = None
    """The constant sum of the seats' returns when the game is constant-sum (0: zero-sum), so
    that OpenSpiel's zero-sum solvers accept it; None for a general-sum game."""
    players_range: tuple[int, int] = (2, 4)
    """The fewest and most players the game takes (OpenSpiel's game type states them)."""
    extras: Mapping[str, Any] = field(default_factory=dict)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def setup(self, options: Mapping[str, Any]) -> Any:
        """The game's setup for ``options`` (unknown names refused with one line)."""
        from simcards.core.errors import UsageError

        known = {p.name for p in self.params}
        unknown = sorted(set(options) - known)
        if unknown:
            raise UsageError(f"{self.name}: unknown option {unknown[0]!r} (options: "
                             f"{', '.join(sorted(known))})")
        return self.make({**self.defaults(), **options})


class Cursor:
    """A state plus the codes a player has picked of his move so far (see the module text)."""

    __slots__ = ("_codes", "_moves", "pending", "state")

    def __init__(self, state: TableState) -> None:
        self.state = state
        self.pending: Path = ()
        self._moves: Mapping[Path, Any] | None = None
        self._codes: list[int] | None = None

    def _legal_moves(self) -> Mapping[Path, Any]:
        if self._moves is None:
            self._moves = self.state.moves()
        return self._moves

    def legal_codes(self) -> list[int]:
        """The codes that continue a legal move's path, sorted; empty unless a player acts."""
        if self._codes is None:
            if self.state.current_player() < 0:
                self._codes = []
            else:
                k = len(self.pending)
                moves = self._legal_moves()
                if k == 0:
                    self._codes = sorted({p[0] for p in moves})
                else:
                    self._codes = sorted({p[k] for p in moves
                                          if len(p) > k and p[:k] == self.pending})
        return self._codes

    def step(self, code: int) -> Any:
        """Pick ``code``; returns the move once its path is whole, else None."""
        if code not in self.legal_codes():
            raise ValueError(f"action {code} is not legal now (legal: {self.legal_codes()})")
        path = (*self.pending, code)
        moves = self._legal_moves()
        self._codes = None
        if path in moves:
            move = moves[path]
            self.pending = ()
            self._moves = None
            self.state.play(move)
            return move
        self.pending = path
        return None

    def play_move(self, move: Any) -> None:
        """Make a whole move at once (a fixed seat's policy chooses moves, not codes)."""
        if self.pending:
            raise ValueError(f"codes {self.pending} of another move are pending")
        self.state.play(move)
        self._moves = None
        self._codes = None

    def chance(self, outcome: int) -> None:
        self.state.apply_chance(outcome)
        self._moves = None
        self._codes = None

    def deal(self, rng: random.Random) -> None:
        self.state.deal(rng)
        self._moves = None
        self._codes = None

    def clone(self) -> Cursor:
        other = Cursor(self.state.clone())
        other.pending = self.pending
        return other

    def __deepcopy__(self, memo: dict[int, Any]) -> Cursor:
        """:meth:`clone`: OpenSpiel copies a Python game's state (every child of a tree walk)
        by ``copy.deepcopy`` of its attributes, which would otherwise copy the rules, the deck
        and every finished round with it (nine tenths of the time of Ronco's sequence-form
        solve); ``clone`` copies only what play can still change."""
        return self.clone()


def one_hot(out: np.ndarray, at: int, index: int | None) -> None:
    """Set ``out[at + index]`` when ``index`` is not None (a helper for encoders)."""
    if index is not None:
        out[at + index] = 1.0


def mark(out: np.ndarray, at: int, indices: Sequence[int]) -> None:
    """Set ``out[at + i]`` for every ``i`` of ``indices``."""
    for i in indices:
        out[at + i] = 1.0
