"""Ronda hands: Monte Carlo points, cards, hand wins and announcements per hand, by side.

The command's Python function is :func:`simcards.ronda.api.hands`
(``simcards.ronda.hands(...)``).

A batch of hands is cut into chunks whose size depends on how costly the seats' policies are
(:func:`chunk_size`, by the cost each kind declares in :data:`simcards.ronda.policies.KINDS`):
searching policies are tens to hundreds of times slower per hand than ``greedy``, so their
chunks are smaller and progress stays live. The chunk size is a pure function of the policies,
so it is part of the run's identity and the same seed still gives the same numbers for any
number of workers.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from simcards.core.engines import COMPILED, PYTHON
from simcards.core.policyspec import PolicySpec
from simcards.core.runner import Stats, run_batch
from simcards.core.stats import json_ci, mean_ci, wilson
from simcards.core.userpolicy import UserPolicy
from simcards.ronda import codes
from simcards.ronda.ismcts_kernel import tree_capacity
from simcards.ronda.kernel_state import KernelRules, Seats
from simcards.ronda.play_kernel import new_play_work, workspace_hands
from simcards.ronda.policies import KINDS, policy_arrays
from simcards.ronda.rules import RondaRules
from simcards.ronda.user_hands_kernel import MEMORY, N_CARDS, user_hands
from simcards.ronda.users import check_errors, python_hands, user_seats
from simcards.ronda.value_kernel import new_value_work, value_hands

HANDS_CHUNK = 1 << 15
"""Hands per chunk when every seat plays ``greedy`` or ``random``: about a third of a second on
one core (about 100,000 greedy hands per second)."""
SOURCES = ("ronda", "tringla", "derba", "missa", "cards", "last_card")
"""The sources of points (S2) in the order the JSON lists them."""
STREAM = "ronda.hands"
"""The random stream of the hands command."""


def seat_cost(spec: PolicySpec, players: int = 2) -> float:
    """The cost of one play of a seat, relative to a ``greedy`` play: the cost its kind
    declares (:mod:`simcards.ronda.policies`)."""
    return KINDS.cost(spec, players)


def hand_cost(specs: Sequence[PolicySpec]) -> float:
    """The cost of a hand relative to an all-``greedy`` hand: the seats' mean play cost (every
    seat makes the same share of the plays, D4)."""
    return sum(seat_cost(s, len(specs)) for s in specs) / len(specs)


def chunk_size(specs: Sequence[PolicySpec], base: int = HANDS_CHUNK) -> int:
    """Units (hands, matches, deal sets) per chunk: ``base`` divided by the policies' cost,
    rounded down to a power of two, at least 1."""
    units = base / hand_cost(specs)
    return 1 if units < 2 else 1 << math.floor(math.log2(units))


@dataclass(frozen=True)
class HandConfig:
    """Everything the hand kernel needs, as its named tuples and ints (pickled to workers)."""

    seats: Seats
    rules: KernelRules
    dealer: int

    @classmethod
    def build(cls, rules: RondaRules, specs: Sequence[PolicySpec], dealer: int | None,
              engine: str = COMPILED) -> HandConfig:
        """The built-in kernels' configuration, or a :class:`UserHandConfig` when a seat
        plays a player's own function (Q11) or the Python engine is asked for."""
        seats = policy_arrays(specs)
        d = -1 if dealer is None else int(dealer)
        users = tuple(s.user for s in specs)
        if not any(users) and engine == COMPILED:
            return cls(seats, rules.kernel, d)
        return UserHandConfig(seats, rules.kernel, d, users, engine,
                              (rules, tuple(specs)) if engine == PYTHON else None,
                              chunk_size(specs))


@dataclass(frozen=True)
class UserHandConfig(HandConfig):
    """A hand run that seats players' own functions (Q11), in ``users`` (the function's text
    travels to the workers, which compile it themselves), or plays on the Python engine:
    ``engine`` says where the hands are played, the compiled kernel or the Python table
    engine (:mod:`simcards.ronda.users`), which also needs the rules and the seats' specs
    (``table``)."""

    users: tuple[UserPolicy | None, ...] = ()
    engine: str = COMPILED
    table: tuple[RondaRules, tuple[PolicySpec, ...]] | None = None
    compiled_chunk: int = HANDS_CHUNK
    """The compiled engine's hands per chunk, which the Python engine's chunks divide
    (:func:`python_chunk`)."""


STAT_NAMES = (
    "hands",  # [1] hands played
    "points",  # [side, source] points summed over hands (codes.SOURCES order)
    "points_sq",  # [side, source] sum over hands of (points of the source in the hand)^2
    "score",  # [side] all points of the hand, summed
    "score_sq",  # [side] sum of squares of the hand's points
    "cards",  # [side] captured cards (Ultima included), summed
    "cards_sq",  # [side]
    "hands_won",  # [side] points: strictly most points in the hand; classic: C2
    "derbas",  # [side] Derbas made (X1)
    "rehits",  # [side] re-hits made (X4)
    "missas",  # [side] Missas made (M1, counted in classic mode too)
    "holdings",  # [1] 4-card holdings dealt
    "rondas",  # [1] Rondas held in 4-card holdings (A2, scoring or not)
    "rondas_sq",  # [1] sum over hands of (Rondas held in the hand)^2
    "tringlas",  # [1] Tringlas held in 4-card holdings
    "tringlas_sq",  # [1] sum over hands of (Tringlas held in the hand)^2
    "violations",  # [1] hands breaking an invariant (hand_violations)
)
"""The statistics :func:`simulate_hands` returns, in its tuple order (int64 arrays)."""


def new_stats(sides: int) -> dict[str, np.ndarray]:
    """Zeroed statistics of :data:`STAT_NAMES` for ``sides`` sides, as the kernel returns
    them (the Python engine adds its hands into these, :mod:`simcards.ronda.users`)."""
    by_side = ("score", "score_sq", "cards", "cards_sq", "hands_won", "derbas", "rehits",
               "missas")
    out = {}
    for name in STAT_NAMES:
        if name in ("points", "points_sq"):
            out[name] = np.zeros((sides, codes.N_SOURCES), np.int64)
        else:
            out[name] = np.zeros(sides if name in by_side else 1, np.int64)
    return out


def named_stats(stats: tuple) -> dict[str, np.ndarray]:
    """:func:`simulate_hands`'s tuple as ``{name: array}`` (names of :data:`STAT_NAMES`)."""
    return dict(zip(STAT_NAMES, stats, strict=True))


def simulate_hands(state, hands, dealer, seats, rules):
    """Monte Carlo: ``hands`` independent hands from the stream ``state`` (the layout in
    :mod:`simcards.ronda.play_kernel`'s docstring); ``dealer`` a seat, or -1 to draw it for
    every hand. Returns the statistics of :data:`STAT_NAMES`, in that order. Without a searching
    seat the hands are played on card values (:mod:`simcards.ronda.value_kernel`), with the
    same statistics."""
    return _simulate(state, hands, dealer, seats, rules, False, None)


def simulate_hands_on_workspace(state, hands, dealer, seats, rules, users=None):
    """:func:`simulate_hands` always on the hand's workspace, as searching seats play: what
    the loop on card values must equal (tests) and the benchmarks' before. ``users`` seats
    players' own functions (Q11, a :class:`~simcards.ronda.kernel_state.UserSeats`)."""
    return _simulate(state, hands, dealer, seats, rules, True, users)


def simulate_user_hands(state, hands, dealer, seats, rules, users):
    """:func:`simulate_hands` with players' own functions in the seats ``users`` (Q11, a
    :class:`~simcards.ronda.kernel_state.UserSeats`): with two players and no searching seat
    on card values with the cards kept by id
    (:func:`~simcards.ronda.user_hands_kernel.user_hands`), else on the workspace; the same
    statistics either way."""
    return _simulate(state, hands, dealer, seats, rules, False, users)


def _simulate(state, hands, dealer, seats, rules, workspace, users):
    """The statistics' arrays, then the loop that fills them: on the workspace
    (:func:`~simcards.ronda.play_kernel.workspace_hands`) when a seat searches (or
    ``workspace``), else, with players' own functions (``users``), on card values with the
    cards by id for two players (:func:`~simcards.ronda.user_hands_kernel.user_hands`) and on
    the workspace for more, else on card values
    (:func:`~simcards.ronda.value_kernel.value_hands`).

    Plain Python, not compiled: numba compiles a kernel together with every kernel it calls,
    so each compiled layer above the loops would optimise all of their code once more (about
    ten seconds each on a cold cache) to save one call per chunk."""
    ns = rules.sides
    n_hands = np.zeros(1, np.int64)
    points = np.zeros((ns, codes.N_SOURCES), np.int64)
    points_sq = np.zeros((ns, codes.N_SOURCES), np.int64)
    score = np.zeros(ns, np.int64)
    score_sq = np.zeros(ns, np.int64)
    cards = np.zeros(ns, np.int64)
    cards_sq = np.zeros(ns, np.int64)
    won = np.zeros(ns, np.int64)
    events = np.zeros((ns, 3), np.int64)  # Derbas, re-hits, Missas by side
    holdings = np.zeros(1, np.int64)
    rondas = np.zeros(1, np.int64)
    rondas_sq = np.zeros(1, np.int64)
    tringlas = np.zeros(1, np.int64)
    tringlas_sq = np.zeros(1, np.int64)
    violations = np.zeros(1, np.int64)
    totals = np.zeros(ns, np.int64)
    stats = (n_hands, points, points_sq, score, score_sq, cards, cards_sq, won, events, holdings,
             rondas, rondas_sq, tringlas, tringlas_sq, violations, totals)
    searching = bool((seats.kinds[:rules.players] >= codes.POLICY_LOOKAHEAD).any())
    if users is not None and rules.players == 2 and not (searching or workspace):
        user_hands(state, hands, dealer, seats, rules, new_value_work(rules), stats, users,
                   np.arange(N_CARDS), np.zeros((2, MEMORY), np.int64))
    elif searching or workspace or users is not None:
        workspace_hands(state, hands, dealer, seats, rules,
                        new_play_work(rules, np.int64(0), tree_capacity(seats, seats)), stats,
                        users)
    else:
        value_hands(state, hands, dealer, seats, rules, new_value_work(rules), stats)
    return (n_hands, points, points_sq, score, score_sq, cards, cards_sq, won,
            events[:, 0].copy(), events[:, 1].copy(), events[:, 2].copy(), holdings, rondas,
            rondas_sq, tringlas, tringlas_sq, violations)


def hands_chunk(state: np.ndarray, size: int, cfg: HandConfig) -> dict[str, np.ndarray]:
    """One chunk of Monte Carlo hands (runs in a worker): on the Python table engine, or with
    the seats' own functions compiled into the kernel (Q11), or the built-in kernels."""
    if not isinstance(cfg, UserHandConfig):
        return named_stats(simulate_hands(state, size, cfg.dealer, cfg.seats, cfg.rules))
    if any(cfg.users):
        seats = user_seats(cfg.users, cfg.rules)
        with warnings.catch_warnings():  # numba calls first-class functions experimental
            warnings.filterwarnings("ignore", message="First-class function type")
            out = simulate_user_hands(state, size, cfg.dealer, cfg.seats, cfg.rules, seats)
        check_errors(seats, cfg.users)
        return named_stats(out)
    return named_stats(simulate_hands(state, size, cfg.dealer, cfg.seats, cfg.rules))


def python_chunk(state: np.ndarray, size: int, cfg: UserHandConfig,
                 origin: tuple[int, int, int]) -> dict[str, np.ndarray]:
    """One chunk of hands on the Python table engine: a :data:`PYTHON_SHARE`-th of the
    compiled engine's chunk, the hands of its place in the compiled chunk that holds it
    (``origin`` is this chunk's seed, index and stream; the compiled chunk's hands before it
    are drawn and not played), so both engines play the same hands whatever their chunk
    sizes, and the slow engine still shows its progress and keeps its finished chunks every
    second or so."""
    from simcards.core.rng import chunk_state

    assert cfg.table is not None
    seed, index, stream = origin
    whole = cfg.compiled_chunk
    compiled, offset = divmod(index * python_size(whole), whole)
    return python_hands(chunk_state(seed, compiled, stream), size, cfg.dealer, *cfg.table,
                        skip=offset)


python_chunk.wants_origin = True  # type: ignore[attr-defined]

PYTHON_SHARE = 64
"""The Python engine's chunks are this many times smaller than the compiled engine's (it plays
some 600 greedy hands a second against the kernel's 100,000 or more)."""


def python_size(compiled_size: int) -> int:
    """Hands per chunk on the Python engine, for a compiled chunk of ``compiled_size``: a
    divisor of it (both are powers of two), so a Python chunk never straddles two compiled
    ones."""
    return max(1, compiled_size // PYTHON_SHARE)


def chunk_plan(specs: Sequence[PolicySpec], engine: str = COMPILED
               ) -> tuple[Callable[..., dict[str, np.ndarray]], int]:
    """The chunk function and the hands per chunk of a run on ``engine``."""
    size = chunk_size(specs)
    return (python_chunk, python_size(size)) if engine == PYTHON else (hands_chunk, size)


@dataclass(frozen=True)
class HandsResult:
    """Merged hand statistics (:data:`STAT_NAMES`), summarised."""

    hands: int
    stats: Stats

    def to_dict(self) -> dict[str, object]:
        s = self.stats
        n = self.hands
        ns = s["score"].shape[0]
        points = [mean_ci(float(s["score"][t]), float(s["score_sq"][t]), n) for t in range(ns)]
        cards = [mean_ci(float(s["cards"][t]), float(s["cards_sq"][t]), n) for t in range(ns)]
        by_source: dict[str, list[float]] = {}
        by_source_ci: dict[str, list[list[float] | None]] = {}
        for name in SOURCES:
            src = codes.SOURCES.index(name)
            rows = [mean_ci(float(s["points"][t, src]), float(s["points_sq"][t, src]), n)
                    for t in range(ns)]
            by_source[name] = [r[0] for r in rows]
            by_source_ci[name] = [json_ci(r[1], r[2]) for r in rows]
        won = s["hands_won"]
        wlo, whi = wilson(won, n)
        ties = n - int(won.sum())
        tlo, thi = wilson(ties, n)
        holdings = int(s["holdings"][0])
        out: dict[str, object] = {
            "points_mean": [p[0] for p in points],
            "points_ci": [json_ci(p[1], p[2]) for p in points],
            "points_by_source": by_source,
            "points_by_source_ci": by_source_ci,
            "cards_mean": [c[0] for c in cards],
            "cards_ci": [json_ci(c[1], c[2]) for c in cards],
            "hand_win_rate": (won / n).tolist(),
            "hand_win_ci": [json_ci(a, b) for a, b in zip(wlo, whi, strict=True)],
            "hand_tie_rate": ties / n,
            "hand_tie_ci": json_ci(tlo, thi),
            "derbas_mean": (s["derbas"] / n).tolist(),
            "rehits_mean": (s["rehits"] / n).tolist(),
            "missas_mean": (s["missas"] / n).tolist(),
            "holdings": holdings,
        }
        for name in ("ronda", "tringla"):
            total, sq = float(s[f"{name}s"][0]), float(s[f"{name}s_sq"][0])
            per_hand = holdings / n  # D4: the same number of 4-card holdings in every hand
            m, lo, hi = mean_ci(total, sq, n)
            out[f"{name}_rate"] = m / per_hand if per_hand else 0.0
            out[f"{name}_ci"] = json_ci(lo / per_hand, hi / per_hand) if per_hand else None
        out["violations"] = int(s["violations"][0])
        return out


def simulate(rules: RondaRules, specs: Sequence[PolicySpec], hands: int, *,
             dealer: int | None = None, engine: str = COMPILED, seed: int = 0,
             workers: int | None = None, progress: bool = False,
             **batch: object) -> HandsResult:
    """Monte Carlo hands; bit-identical for a given seed whatever ``workers`` or executor.
    ``engine`` plays them in the kernels or on the Python table engine (players' own
    functions, Q11: :mod:`simcards.ronda.users`); both play the same hands."""
    cfg = HandConfig.build(rules, specs, dealer, engine)
    fn, size = chunk_plan(specs, engine)
    stats = run_batch(fn, cfg, seed=seed, total=hands, chunk_size=size,
                      stream=STREAM, workers=workers, progress=progress, label="Ronda hands",
                      **batch)
    return HandsResult(hands, stats)

