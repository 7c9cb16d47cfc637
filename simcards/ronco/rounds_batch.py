"""Ronco rounds: Monte Carlo per-position loss rates, and the exact answer beside them.

The command's Python function is :func:`simcards.ronco.api.rounds`
(``simcards.ronco.rounds(...)``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from simcards.core.engines import COMPILED, PYTHON
from simcards.core.runner import run_batch
from simcards.core.stats import wilson
from simcards.core.userpolicy import UserPolicy
from simcards.ronco.bayes_exact import policy_table
from simcards.ronco.kernel_state import KernelRules, Seats
from simcards.ronco.policies import Policy
from simcards.ronco.round_kernel import simulate_rounds
from simcards.ronco.rounds_exact import ExactRound, exact_round
from simcards.ronco.rules import RoncoRules, check_players
from simcards.ronco.users import check_errors, python_rounds, user_seats

ROUNDS_CHUNK = 1 << 21
"""Rounds per chunk: about 0.2 s of work, small enough for smooth progress and resume."""
PYTHON_CHUNK = ROUNDS_CHUNK >> 6
"""Rounds per chunk on the Python engine (a few seconds of work there): each plays a
64th of a compiled chunk's deals (:func:`python_chunk`)."""


@dataclass(frozen=True)
class KernelConfig:
    """Everything the round kernel needs, as its named tuples and ints (pickled to workers).

    A seat that plays a user's function (S5) is in ``users`` (the function's text travels to
    the workers, which compile it themselves), and ``engine`` says where the rounds are played:
    the compiled kernel, or the Python table engine (:mod:`simcards.ronco.users`)."""

    n: int
    policies: Seats
    rules: KernelRules
    users: tuple[UserPolicy | None, ...] = ()
    engine: str = COMPILED
    table: tuple[RoncoRules, tuple[Policy, ...]] | None = None
    """For the Python engine: the rules and the positions' policies."""

    @classmethod
    def build(cls, rules: RoncoRules, policies: Sequence[Policy],
              engine: str = COMPILED) -> KernelConfig:
        users = tuple(p.user for p in policies)
        if not any(users) and engine == COMPILED:
            return cls(len(policies), policy_table(rules, policies), rules.kernel)
        return cls(len(policies), policy_table(rules, policies), rules.kernel, users, engine,
                   (rules, tuple(policies)) if engine == PYTHON else None)

    def args(self) -> tuple:
        """The round kernels' arguments after their own leading ones."""
        return (self.n, self.policies, self.rules)


class RoundStats(NamedTuple):
    """One chunk's (or a whole batch's) round counts."""

    lost: np.ndarray
    """Rounds lost, by position."""
    double: np.ndarray
    """Poroli double losses (R10), by position."""
    tallies: np.ndarray
    """``[absolute ties, dealer cuts, cut-king firings]``."""


STREAM = "ronco.rounds"
"""The random stream of the rounds command (and of the report's round study)."""


def rounds_chunk(state: np.ndarray, size: int, cfg: KernelConfig) -> RoundStats:
    """One chunk of Monte Carlo rounds on the compiled engine (runs in a worker)."""
    if not any(cfg.users):
        return RoundStats(*simulate_rounds(state, size, *cfg.args(), None))
    seats = user_seats(cfg.users, cfg.rules, cfg.n)
    with warnings.catch_warnings():  # numba calls first-class functions experimental
        warnings.filterwarnings("ignore", message="First-class function type")
        out = RoundStats(*simulate_rounds(state, size, *cfg.args(), seats))
    check_errors(seats, cfg.users)
    return out


def python_chunk(state: np.ndarray, size: int, cfg: KernelConfig,
                 origin: tuple[int, int, int]) -> RoundStats:
    """One chunk of rounds on the Python engine: :data:`PYTHON_CHUNK` rounds, the deals of
    their place in the compiled chunk that holds them (``origin`` is this chunk's seed, index
    and stream; the compiled chunk's deals before them are drawn and not played), so both
    engines play the same deals whatever the chunk sizes, and a slow engine still shows its
    progress and keeps its finished chunks every few seconds."""
    from simcards.core.rng import chunk_state

    assert cfg.table is not None
    seed, index, stream = origin
    compiled, offset = divmod(index * PYTHON_CHUNK, ROUNDS_CHUNK)
    return RoundStats(*python_rounds(chunk_state(seed, compiled, stream), size, cfg.n,
                                     cfg.policies.kind, *cfg.table, skip=offset))


python_chunk.wants_origin = True  # type: ignore[attr-defined]


def chunk_plan(engine: str) -> tuple[Callable[..., RoundStats], int]:
    """The chunk function and chunk size of an engine."""
    return (python_chunk, PYTHON_CHUNK) if engine == PYTHON else (rounds_chunk, ROUNDS_CHUNK)


@dataclass(frozen=True)
class RoundsResult:
    """Monte Carlo round statistics (counts), with rates and 95% Wilson intervals."""

    rounds: int
    lost: np.ndarray
    double: np.ndarray
    all_tie: int
    cut: int
    cut_king: int

    @property
    def p_lose(self) -> np.ndarray:
        return self.lost / self.rounds

    def to_dict(self) -> dict[str, object]:
        lo, hi = wilson(self.lost, self.rounds)
        tlo, thi = wilson(self.all_tie, self.rounds)
        clo, chi = wilson(self.cut, self.rounds)
        klo, khi = wilson(self.cut_king, self.rounds)
        return {
            "rounds": int(self.rounds),
            "p_lose": self.p_lose.tolist(),
            "ci_low": lo.tolist(),
            "ci_high": hi.tolist(),
            "p_double": (self.double / self.rounds).tolist(),
            "p_all_tie": self.all_tie / self.rounds,
            "p_all_tie_ci": [float(tlo), float(thi)],
            "p_cut": self.cut / self.rounds,
            "p_cut_ci": [float(clo), float(chi)],
            "p_cut_king": self.cut_king / self.rounds,
            "p_cut_king_ci": [float(klo), float(khi)],
        }


def simulate(
    rules: RoncoRules,
    policies: Sequence[Policy],
    rounds: int,
    *,
    engine: str = COMPILED,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = False,
    **batch: object,
) -> RoundsResult:
    """Monte Carlo rounds; bit-identical for a given seed whatever ``workers``."""
    check_players(len(policies))
    for pol in policies:
        pol.validate(rules.top)
    cfg = KernelConfig.build(rules, policies, engine)
    fn, chunk_size = chunk_plan(engine)
    lost, double, tallies = RoundStats(**run_batch(
        fn, cfg, seed=seed, total=rounds, chunk_size=chunk_size, stream=STREAM,
        workers=workers, progress=progress, label="Ronco rounds", **batch,
    ))
    return RoundsResult(rounds, lost, double, int(tallies[0]), int(tallies[1]),
                        int(tallies[2]))


def exact(rules: RoncoRules, policies: Sequence[Policy], *, progress: bool = False) -> ExactRound:
    """Exact round probabilities (see :mod:`simcards.ronco.rounds_exact`)."""
    return exact_round(rules, policies, progress=progress)


