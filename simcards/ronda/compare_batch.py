"""Two Ronda policies compared in duplicate: the same deals, the seats swapped.

The command's Python function is :func:`simcards.ronda.api.compare`
(``simcards.ronda.compare(...)``).

Each deal set is one match played on the same sequence of decks and dealers with A and B in
every seating (:func:`simcards.ronda.match_kernel.simulate_duplicate`): with two sides A takes one
side and then the other; with 3 or 4 players alone A takes each seat in turn against B
everywhere else. Luck of the deal falls alike on both policies and cancels from the paired
differences, whose intervals come from the spread of the per-set differences
(:data:`DUPLICATE_STAT_NAMES`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simcards.core.engines import COMPILED, PYTHON
from simcards.core.policyspec import PolicySpec
from simcards.core.runner import Stats, run_batch
from simcards.core.userpolicy import UserPolicy
from simcards.ronda import summaries
from simcards.ronda.kernel_state import KernelRules, Seats
from simcards.ronda.match_kernel import simulate_duplicate
from simcards.ronda.matches_batch import ci_pair, json_number, match_chunk_size, max_hands
from simcards.ronda.policies import policy_arrays
from simcards.ronda.rules import RondaRules
from simcards.ronda.users import check_duplicate_errors, duplicate_seats

STREAM = "ronda.compare"
"""The random stream of the compare command."""

DUPLICATE_STAT_NAMES = (
    "deal_sets",  # [1] deal sets played
    "plays",  # [1] matches played (2 per set with two sides, else one per seat)
    "b_seats",  # [1] B's sides summed over plays (1 per play with two sides, else players-1)
    "unfinished",  # [1] plays stopped undecided after max_hands hands
    "a_wins",  # [1] plays won by A's side
    "b_wins",  # [1] plays won by one of B's sides
    "win_diff",  # [1] sum over sets of D = m * (A's wins) - (B's wins), m = B's sides per play
    "win_diff_sq",  # [1] sum over sets of D^2
    "hands",  # [1] hands started, summed over plays (a hand the S5 check cut short counts)
    "set_hands",  # [1] sum over sets of H = m * (hands of the set's plays)
    "set_hands_sq",  # [1] sum over sets of H^2
    "a_points",  # [1] final scores of A's side, summed over plays
    "b_points",  # [1] final scores of B's sides, summed over plays and sides
    "points_diff",  # [1] sum over sets of X = m * (A's points) - (B's points)
    "points_diff_sq",  # [1] sum over sets of X^2
    "points_diff_hands",  # [1] sum over sets of X * H
    "a_cards",  # [1] cards captured by A's side, summed over hands and plays
    "b_cards",  # [1] cards captured by B's sides
    "cards_diff",  # [1] sum over sets of Y = m * (A's cards) - (B's cards)
    "cards_diff_sq",  # [1] sum over sets of Y^2
    "cards_diff_hands",  # [1] sum over sets of Y * H
    "hand_count",  # [1] hands played to their end
    "violations",  # [1] hands played to their end that fail engine.hand_violations
)
"""The statistics :func:`~simcards.ronda.match_kernel.simulate_duplicate` returns, in its tuple
order (int64 arrays).

Per deal set with P plays and m of B's sides per play (P = 2, m = 1 with two sides; P = m + 1
= players otherwise), the paired difference of win rates is D / (P m): A's win rate over the
set's plays minus B's, B's being the mean over its sides. The difference in points per hand is
the ratio sum X / sum H over the sets (A's side's points per hand minus the mean of B's sides'),
with the delta method's variance from the sums of X^2, H^2 and X H; likewise cards with Y.
``b_seats / plays`` is m and ``b_seats / deal_sets`` is P m."""


def named_duplicate_stats(stats: tuple) -> dict[str, np.ndarray]:
    """:func:`~simcards.ronda.match_kernel.simulate_duplicate`'s tuple as ``{name: array}``
    (:data:`DUPLICATE_STAT_NAMES`)."""
    return dict(zip(DUPLICATE_STAT_NAMES, stats, strict=True))


def plays_per_set(rules: RondaRules) -> tuple[int, int]:
    """``(P, m)``: matches per deal set and B's sides per match (see
    :func:`simcards.ronda.match_kernel.duplicate_plays`)."""
    if rules.n_sides == 2:
        return 2, 1
    return rules.players, rules.players - 1


def seating(rules: RondaRules, a: PolicySpec, b: PolicySpec) -> list[PolicySpec]:
    """The seats' policies in the first match of a set: A on side 0's seats, B elsewhere."""
    return [a if rules.side_of(p) == 0 else b for p in range(rules.players)]


@dataclass(frozen=True)
class DuplicateConfig:
    """Everything the duplicate kernel needs, as its named tuples and ints (pickled to workers):
    A's and B's policies as one-seat :class:`~simcards.ronda.kernel_state.Seats`, and their
    own functions (Q11: A's and B's, None for a built-in; empty when neither is one)."""

    seats_a: Seats
    seats_b: Seats
    rules: KernelRules
    dealer: int
    max_hands: int
    users: tuple[UserPolicy | None, ...] = ()
    table: tuple[RondaRules, PolicySpec, PolicySpec] | None = None
    """For the Python engine (:mod:`simcards.ronda.table_matches`): the rules, A's and B's
    specs; None on the compiled engine."""

    @classmethod
    def build(cls, rules: RondaRules, a: PolicySpec, b: PolicySpec,
              dealer: int | None, engine: str = COMPILED) -> DuplicateConfig:
        users = (a.user, b.user)
        return cls(policy_arrays([a]), policy_arrays([b]), rules.kernel,
                   -1 if dealer is None else int(dealer), max_hands(rules),
                   users if any(users) else (), (rules, a, b) if engine == PYTHON else None)


def duplicate_chunk(state: np.ndarray, size: int, cfg: DuplicateConfig) -> dict[str, np.ndarray]:
    """One chunk of deal sets (runs in a worker); with players' own functions (Q11) compiled
    into the match kernel, each play seating A's and B's as it seats their kinds, and refused
    whole when one played a card it did not hold."""
    if not cfg.users:
        return named_duplicate_stats(simulate_duplicate(
            state, size, cfg.dealer, cfg.seats_a, cfg.seats_b, cfg.rules, cfg.max_hands))
    a, b = cfg.users
    seats, user_ab = duplicate_seats(a, b, cfg.rules)
    with warnings.catch_warnings():  # numba calls first-class functions experimental
        warnings.filterwarnings("ignore", message="First-class function type")
        out = simulate_duplicate(state, size, cfg.dealer, cfg.seats_a, cfg.seats_b, cfg.rules,
                                 cfg.max_hands, seats, user_ab)
    check_duplicate_errors(seats, a, b, user_ab)
    return named_duplicate_stats(out)


def python_duplicate_chunk(state: np.ndarray, size: int, cfg: DuplicateConfig
                           ) -> dict[str, np.ndarray]:
    """One chunk of deal sets on the Python engine: the compiled chunk's very sets
    (:func:`simcards.ronda.table_matches.python_duplicate`)."""
    from simcards.ronda.table_matches import python_duplicate

    assert cfg.table is not None
    return python_duplicate(state, size, cfg.dealer, *cfg.table, cfg.max_hands)


def duplicate_chunk_fn(engine: str) -> Callable[..., dict[str, np.ndarray]]:
    """The chunk function of a compare run on ``engine`` (both engines' chunks are the same
    deal sets)."""
    return python_duplicate_chunk if engine == PYTHON else duplicate_chunk


def chunk_for(rules: RondaRules, a: PolicySpec, b: PolicySpec) -> int:
    """Deal sets per chunk, by the policies' cost and the matches in a set."""
    return match_chunk_size(rules, seating(rules, a, b), plays_per_set(rules)[0])


@dataclass(frozen=True)
class CompareResult:
    """Merged duplicate statistics (:data:`DUPLICATE_STAT_NAMES`),
    summarised by :mod:`simcards.ronda.summaries`."""

    deals: int
    stats: Stats

    def to_dict(self) -> dict[str, object]:
        s = self.stats
        a, b = summaries.duplicate_win_rates(s)
        diff = summaries.win_rate_difference(s)
        points = summaries.points_per_hand_difference(s)
        cards = summaries.cards_per_hand_difference(s)
        plays = int(s["plays"][0])
        return {
            "deals": self.deals,
            "plays": plays,
            "win_rate_a": a.value,
            "win_ci_a": ci_pair(a),
            "win_rate_b": b.value,
            "win_ci_b": ci_pair(b),
            "win_rate_diff": diff.value,
            "win_rate_diff_ci": ci_pair(diff),
            "points_diff": json_number(points.value),
            "points_diff_ci": ci_pair(points),
            "cards_diff": json_number(cards.value),
            "cards_diff_ci": ci_pair(cards),
            "unfinished": int(s["unfinished"][0]),
            "hands_mean": int(s["hands"][0]) / plays,
            "hands_played": int(s["hand_count"][0]),
            "violations": int(s["violations"][0]),
        }


def simulate(rules: RondaRules, a: PolicySpec, b: PolicySpec, deals: int, *,
             dealer: int | None = None, engine: str = COMPILED, seed: int = 0,
             workers: int | None = None, progress: bool = False,
             **batch: object) -> CompareResult:
    """Duplicate deal sets; bit-identical for a given seed whatever ``workers`` or executor.
    ``engine`` plays them in the match kernel or on the Python engine; both play the same
    sets."""
    cfg = DuplicateConfig.build(rules, a, b, dealer, engine)
    stats = run_batch(duplicate_chunk_fn(engine), cfg, seed=seed, total=deals,
                      chunk_size=chunk_for(rules, a, b), stream=STREAM, workers=workers,
                      progress=progress, label="Ronda deal sets", **batch)
    return CompareResult(deals, stats)

