"""Whole Ronco games: Monte Carlo win rates, game lengths and elimination order.

The command's Python function is :func:`simcards.ronco.api.games`
(``simcards.ronco.games(...)``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simcards.core.cli_options import check_range, check_seat
from simcards.core.engines import COMPILED, PYTHON
from simcards.core.runner import Stats, run_batch
from simcards.core.stats import wilson
from simcards.core.userpolicy import UserPolicy
from simcards.ronco.bayes_exact import policy_table
from simcards.ronco.game_kernel import ALL_OUT, STALLED, VOID, simulate_games
from simcards.ronco.kernel_state import GameSpec, KernelRules, Seats
from simcards.ronco.policies import KINDS, Policy
from simcards.ronco.rules import RoncoRules, check_players
from simcards.ronco.users import check_errors, python_games, user_seats

GAMES_CHUNK = 1 << 15
"""Games per chunk: a fraction of a second for a big table, so progress and resume are smooth."""
MAX_ROUNDS = 100_000
MAX_LIVES = 1000
QUANTILES = (5, 25, 50, 75, 95)


@dataclass(frozen=True)
class GameConfig:
    """Everything the game kernel needs, as its named tuples and ints (pickled to workers)."""

    n: int
    lives: int
    policies: Seats
    rules: KernelRules
    first_dealer: int
    users: tuple[UserPolicy | None, ...] = ()
    """S5: each player's function (None: a built-in policy); the text travels to the workers,
    which compile it themselves. Empty when nobody plays one."""
    engine: str = COMPILED
    """Where the games are played: the game kernel, or the Python table engine
    (:func:`simcards.ronco.users.python_games`)."""
    table: tuple[RoncoRules, tuple[Policy, ...]] | None = None
    """For the Python engine: the rules and the players' policies."""

    @property
    def hist_len(self) -> int:
        """Room for every game length without replays (at most n*lives - 1 rounds), and then
        some for replayed rounds; longer games land in the last bin."""
        return self.n * self.lives + 64

    @classmethod
    def build(cls, rules: RoncoRules, policies: Sequence[Policy], lives: int,
              first_dealer: int | None, engine: str = COMPILED) -> GameConfig:
        users = tuple(p.user for p in policies)
        python = engine == PYTHON
        return cls(len(policies), lives, policy_table(rules, policies, game=True), rules.kernel,
                   -1 if first_dealer is None else first_dealer, users if any(users) else (),
                   engine, (rules, tuple(policies)) if python else None)

    def args(self, max_rounds: int = MAX_ROUNDS) -> tuple:
        """The game kernels' arguments after ``(state, games)``: the players' policies, the
        rules and the game's set-up, its rounds capped at ``max_rounds``."""
        return (self.policies, self.rules,
                GameSpec(self.n, self.lives, self.first_dealer, max_rounds))


class GameStats(NamedTuple):
    """One chunk's (or a whole batch's) game counts."""

    wins: np.ndarray
    """Games won, by player."""
    endings: np.ndarray
    """Games by ending: won, void (G6), all out at once (G7), stalled."""
    hist: np.ndarray
    """Games by length in rounds (the last bin collects longer ones)."""
    places: np.ndarray
    """``places[player, k]``: games the player finished k-th."""
    rounds_sums: np.ndarray
    """``[sum of game lengths, sum of their squares]``."""


STREAM = "ronco.games"
"""The random stream of the games command."""


def games_chunk(state: np.ndarray, size: int, cfg: GameConfig) -> GameStats:
    """One chunk of Monte Carlo games (runs in a worker). A player's own function (S5) is
    compiled here and asked at every one of his decisions with his ``ronco_game_v0``
    observation; an action that is not legal refuses the chunk in one line."""
    if not cfg.users:
        return GameStats(*simulate_games(state, size, *cfg.args(), cfg.hist_len, None))
    seats = user_seats(cfg.users, cfg.rules, cfg.n, cfg.lives)
    with warnings.catch_warnings():  # numba calls first-class functions experimental
        warnings.filterwarnings("ignore", message="First-class function type")
        out = GameStats(*simulate_games(state, size, *cfg.args(), cfg.hist_len, seats))
    check_errors(seats, cfg.users)
    return out


def python_chunk(state: np.ndarray, size: int, cfg: GameConfig) -> GameStats:
    """One chunk of games on the Python engine: the compiled chunk's very games, all of them
    (a game's draws depend on how it is played, so a later game of a chunk is found only by
    playing those before it; the Python engine's chunks are therefore the compiled ones)."""
    assert cfg.table is not None
    return GameStats(*python_games(state, size, cfg.n, cfg.lives, cfg.first_dealer,
                                   *cfg.table, cfg.hist_len))


def chunk_plan(engine: str) -> tuple[Callable[..., GameStats], int]:
    """The chunk function and the games per chunk of a run on ``engine``."""
    return (python_chunk if engine == PYTHON else games_chunk), GAMES_CHUNK


def check_lives(lives: int) -> int:
    """G1: every player's lives (or chips) at the start."""
    return check_range("--lives", lives, 1, MAX_LIVES, "G1")


def check_first_dealer(first_dealer: int | None, players: int) -> int | None:
    """G4: the player who deals first, or None (drawn)."""
    return check_seat(first_dealer, players, "--first-dealer")


def player_policies(players: int, spec: str | None, default: Policy) -> list[Policy]:
    """``--policies``: one entry per player, or one entry for the whole table."""
    check_players(players)
    if spec is None:
        return [default] * players
    defaults = {"T": default.T, "Td": default.Td, "p": default.p}
    specs = KINDS.parse_list(spec, players, None, defaults)
    return [Policy.from_spec(s, default) for s in specs]


@dataclass(frozen=True)
class GamesResult:
    """Merged Monte Carlo game statistics."""

    games: int
    wins: np.ndarray
    endings: np.ndarray
    hist: np.ndarray
    places: np.ndarray
    rounds_sums: np.ndarray

    @classmethod
    def from_stats(cls, games: int, stats: Stats) -> GamesResult:
        return cls(games, *GameStats(**stats))

    @property
    def win_rate(self) -> np.ndarray:
        return self.wins / self.games

    @property
    def draws(self) -> int:
        """Games without a winner: void (G6), everyone out at once (G7), or stalled."""
        return int(self.endings[VOID] + self.endings[ALL_OUT] + self.endings[STALLED])

    @property
    def rounds_mean(self) -> float:
        return float(self.rounds_sums[0]) / self.games

    @property
    def rounds_sd(self) -> float:
        m = self.rounds_mean
        return float(np.sqrt(max(float(self.rounds_sums[1]) / self.games - m * m, 0.0)))

    def rounds_quantiles(self) -> dict[str, int]:
        cdf = np.cumsum(self.hist) / self.games
        return {f"{q}%": int(np.searchsorted(cdf, q / 100 - 1e-12)) for q in QUANTILES}

    def to_dict(self) -> dict[str, object]:
        lo, hi = wilson(self.wins, self.games)
        dlo, dhi = wilson(self.draws, self.games)
        n = self.places.shape[0]
        flo, fhi = wilson(self.places[:, n - 1], self.games)
        return {
            "games": self.games,
            "win_rate": self.win_rate.tolist(),
            "win_ci_low": lo.tolist(),
            "win_ci_high": hi.tolist(),
            "draw_rate": self.draws / self.games,
            "draw_ci": [float(dlo), float(dhi)],
            "void_rate": float(self.endings[VOID]) / self.games,
            "rounds_mean": self.rounds_mean,
            "rounds_mean_se": self.rounds_sd / np.sqrt(self.games),
            "rounds_sd": self.rounds_sd,
            "rounds_quantiles": self.rounds_quantiles(),
            "place_distribution": (self.places / self.games).tolist(),
            "elimination_order": {
                "description": "place_distribution[player][k]: probability that the player "
                "finishes k-th (0 = winner or last survivor); players eliminated in the same "
                "round share the better place",
            },
            "first_out_ci": [[float(a), float(b)] for a, b in zip(flo, fhi, strict=True)],
            "stalled": int(self.endings[STALLED]),
        }


def simulate(rules: RoncoRules, policies: Sequence[Policy], lives: int, games: int, *,
             first_dealer: int | None = None, engine: str = COMPILED, seed: int = 0,
             workers: int | None = None, progress: bool = False,
             **batch: object) -> GamesResult:
    """Monte Carlo games; bit-identical for a given seed whatever ``workers``. ``engine``
    plays them in the game kernel or on the Python table engine; both play the same games."""
    n = check_players(len(policies))
    check_lives(lives)
    check_first_dealer(first_dealer, n)
    for pol in policies:
        pol.validate(rules.top)
    cfg = GameConfig.build(rules, policies, lives, first_dealer, engine)
    fn, size = chunk_plan(engine)
    stats = run_batch(fn, cfg, seed=seed, total=games, chunk_size=size,
                      stream=STREAM, workers=workers, progress=progress, label="Ronco games",
                      **batch)
    return GamesResult.from_stats(games, stats)


