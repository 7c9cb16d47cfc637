"""Ronda matches as Monte Carlo batches: match win rates, match length, first-player advantage.

The match kernel is :func:`simcards.ronda.match_kernel.simulate_matches`; this module names its
statistics (:data:`MATCH_STAT_NAMES`), cuts a run into chunks (sized by the policies' cost and
the expected length of a match, so that progress stays live), and lays out the merged statistics
as the command's JSON, with the estimates of :mod:`simcards.ronda.summaries`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from simcards.core.engines import COMPILED, PYTHON
from simcards.core.errors import UsageError
from simcards.core.policyspec import PolicySpec
from simcards.core.runner import Stats, run_batch
from simcards.core.stats import json_ci
from simcards.core.userpolicy import UserPolicy
from simcards.ronda import codes, summaries
from simcards.ronda.hand_kernel import S_SCORE
from simcards.ronda.hands_batch import HANDS_CHUNK, SOURCES, HandConfig, chunk_size
from simcards.ronda.ismcts_kernel import tree_capacity
from simcards.ronda.kernel_state import HandDraw, PlayWork
from simcards.ronda.match_kernel import simulate_matches
from simcards.ronda.play_kernel import new_play_work, play_hand
from simcards.ronda.rules import RondaRules
from simcards.ronda.summaries import Estimate
from simcards.ronda.users import check_errors, user_seats

QUANTILES = (5, 25, 50, 75, 95)
STREAM = "ronda.matches"
"""The random stream of the matches command."""
POINTS_PER_HAND = 7.0
"""A rough figure of one side's points per hand, to guess a match's length from its target."""

DEFAULT_MAX_HANDS = 200
"""A cap on a match's length far beyond any real match, so that none can run forever: matches
to 41 last about 5 to 7 hands on average, and the longest of 2,000,000 measured (2, 3 and 4
players, teams, classic to 3 hands; random and greedy seats) lasted 16 hands."""


def check_max_hands(value: object) -> int:
    """``max_hands`` as the match kernels take it: an integer >= 1, else a one-line UsageError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, str)) or (
            isinstance(value, str) and not value.strip().isdigit()):
        raise UsageError(f"max_hands={value!r} must be an integer >= 1")
    n = int(value)
    if n < 1:
        raise UsageError(f"max_hands={n} must be an integer >= 1")
    return n


MATCH_STAT_NAMES = (
    "matches",  # [1] matches played (unfinished ones included)
    "wins",  # [side] matches won
    "first_side_wins",  # [1] matches won by the side of the first hand's first player (D3)
    "hands",  # [1] match lengths in hands, summed (a hand the S5 check cut short counts)
    "hands_sq",  # [1] sum of squared match lengths
    "length_hist",  # [max_hands + 1] matches by length in hands (unfinished: at max_hands)
    "unfinished",  # [1] matches stopped undecided after max_hands hands
    "score",  # [side] final match scores (S2), summed
    "score_sq",  # [side] sum of squared final scores
    "points",  # [side, source] points of every hand of every match (codes.SOURCES order)
    "cards",  # [side] captured cards of every hand (a hand cut short: so far), summed
    "hand_count",  # [1] hands played to their end (X5c, U1, S1 done)
    "hand_wins",  # [side] hands won by strictly most captured cards (C2), in any mode
    "violations",  # [1] hands played to their end that fail engine.hand_violations
)
"""The statistics :func:`~simcards.ronda.match_kernel.simulate_matches` returns, in its tuple
order (int64 arrays)."""


def named_match_stats(stats: tuple) -> dict[str, np.ndarray]:
    """:func:`~simcards.ronda.match_kernel.simulate_matches`'s tuple as ``{name: array}``
    (:data:`MATCH_STAT_NAMES`)."""
    return dict(zip(MATCH_STAT_NAMES, stats, strict=True))


def max_hands(rules: RondaRules) -> int:
    """The cap on a match's length, after which a match is stopped and counted as unfinished:
    :data:`DEFAULT_MAX_HANDS`, or more for a classic match
    that needs many hand wins (C3) or a target far above the usual ones (S4: four times the
    hands a match to it is guessed to last, so that a stopped match stays rare)."""
    if rules.mode == "classic":
        return max(DEFAULT_MAX_HANDS, 8 * rules.hands_to_win * rules.n_sides)
    return max(DEFAULT_MAX_HANDS, math.ceil(4 * hands_per_match(rules)))


def hands_per_match(rules: RondaRules) -> float:
    """A rough guess of the hands in a match (S4, C3), for sizing chunks only."""
    if rules.mode == "classic":
        return float(rules.hands_to_win * rules.n_sides)
    return max(1.0, rules.target / POINTS_PER_HAND)


def match_chunk_size(rules: RondaRules, specs: Sequence[PolicySpec], plays: int = 1) -> int:
    """Matches (or deal sets of ``plays`` matches) per chunk: about as much work as a chunk of
    :data:`~simcards.ronda.hands_batch.HANDS_CHUNK` greedy hands."""
    return chunk_size(specs, max(1, int(HANDS_CHUNK / (hands_per_match(rules) * plays))))


@dataclass(frozen=True)
class MatchConfig(HandConfig):
    """Everything the match kernel needs: the hand kernel's, the hands a match may last, and
    the seats' own functions (Q11, by seat, None for a built-in; their text travels to the
    workers, which compile them themselves)."""

    max_hands: int
    users: tuple[UserPolicy | None, ...] = ()
    table: tuple[RondaRules, tuple[PolicySpec, ...]] | None = None
    """For the Python engine (:mod:`simcards.ronda.table_matches`): the rules and the seats'
    specs; None on the compiled engine."""

    @classmethod
    def build(cls, rules: RondaRules, specs: Sequence[PolicySpec],
              dealer: int | None, engine: str = COMPILED) -> MatchConfig:
        hand = HandConfig.build(rules, specs, dealer)
        users = tuple(s.user for s in specs)
        return cls(hand.seats, hand.rules, hand.dealer, max_hands(rules),
                   users if any(users) else (),
                   (rules, tuple(specs)) if engine == PYTHON else None)


def matches_chunk(state: np.ndarray, size: int, cfg: MatchConfig) -> dict[str, np.ndarray]:
    """One chunk of Monte Carlo matches (runs in a worker); with players' own functions
    (Q11) compiled into the match kernel, and refused whole when one played a card it did not
    hold (:func:`~simcards.ronda.users.check_errors`)."""
    if not cfg.users:
        return named_match_stats(simulate_matches(state, size, cfg.dealer, cfg.seats,
                                                  cfg.rules, cfg.max_hands))
    seats = user_seats(cfg.users, cfg.rules)
    with warnings.catch_warnings():  # numba calls first-class functions experimental
        warnings.filterwarnings("ignore", message="First-class function type")
        out = simulate_matches(state, size, cfg.dealer, cfg.seats, cfg.rules, cfg.max_hands,
                               seats)
    check_errors(seats, cfg.users)
    return named_match_stats(out)


def python_matches_chunk(state: np.ndarray, size: int, cfg: MatchConfig
                         ) -> dict[str, np.ndarray]:
    """One chunk of matches on the Python engine: the compiled chunk's very matches
    (:func:`simcards.ronda.table_matches.python_matches`)."""
    from simcards.ronda.table_matches import python_matches

    assert cfg.table is not None
    return python_matches(state, size, cfg.dealer, *cfg.table, cfg.max_hands)


def match_chunk_fn(engine: str) -> Callable[..., dict[str, np.ndarray]]:
    """The chunk function of a matches run on ``engine`` (both engines' chunks are the same
    matches)."""
    return python_matches_chunk if engine == PYTHON else matches_chunk


def json_number(x: float) -> float | None:
    """A float for JSON: a bound the data cannot give (``nan``) is null."""
    return None if math.isnan(x) else float(x)


def ci_pair(e: Estimate) -> list[float] | None:
    """An estimate's interval for JSON: ``[low, high]``, or null when the data cannot give it
    (one match, one deal set)."""
    return json_ci(e.low, e.high)


@dataclass(frozen=True)
class MatchesResult:
    """Merged match statistics (:data:`MATCH_STAT_NAMES`), summarised by
    :mod:`simcards.ronda.summaries`."""

    matches: int
    max_hands: int
    stats: Stats

    def to_dict(self) -> dict[str, object]:
        s = self.stats
        wins = summaries.win_rates(s)
        first = summaries.proportion(int(s["first_side_wins"][0]), self.matches)
        advantage = summaries.first_player_advantage(s)
        length = summaries.match_length(s, [q / 100 for q in QUANTILES])
        scores = summaries.mean_scores(s)
        per_hand = summaries.points_per_hand(s)
        return {
            "win_rate": [w.value for w in wins],
            "win_ci": [ci_pair(w) for w in wins],
            "unfinished": length["unfinished"],
            "first_player_win_rate": first.value,
            "first_player_win_ci": ci_pair(first),
            "first_player_advantage": advantage.value,
            "first_player_advantage_ci": ci_pair(advantage),
            "hands_mean": length["mean"].value,
            "hands_ci": ci_pair(length["mean"]),
            "hands_sd": json_number(length["sd"]),
            "hands_quantiles": {f"{q}%": length["quantiles"][q / 100] for q in QUANTILES},
            "score_mean": [e.value for e in scores],
            "score_ci": [ci_pair(e) for e in scores],
            "points_per_hand": per_hand.sum(axis=1).tolist(),
            "points_by_source": {name: per_hand[:, codes.SOURCES.index(name)].tolist()
                                 for name in SOURCES},
            "cards_per_hand": summaries.cards_per_hand(s).tolist(),
            "hand_wins_per_match": summaries.hand_wins_per_match(s).tolist(),
            "hands_played": int(s["hand_count"][0]),
            "violations": int(s["violations"][0]),
        }


def simulate(rules: RondaRules, specs: Sequence[PolicySpec], matches: int, *,
             dealer: int | None = None, engine: str = COMPILED, seed: int = 0,
             workers: int | None = None, progress: bool = False,
             **batch: object) -> MatchesResult:
    """Monte Carlo matches; bit-identical for a given seed whatever ``workers`` or executor.
    ``engine`` plays them in the match kernel or on the Python engine; both play the same
    matches."""
    cfg = MatchConfig.build(rules, specs, dealer, engine)
    stats = run_batch(match_chunk_fn(engine), cfg, seed=seed, total=matches,
                      chunk_size=match_chunk_size(rules, specs), stream=STREAM, workers=workers,
                      progress=progress, label="Ronda matches", **batch)
    return MatchesResult(matches, cfg.max_hands, stats)


def hand_of_match(deck, dealer, seats, us, seeds, rules, scores, check):
    """One hand of a match from the carried ``scores`` (S2), as the match kernel plays it
    (:mod:`simcards.ronda.match_kernel`), for tests of given positions: returns ``(winner,
    plays, totals)``, the side a check point (S5, when ``check``) found winning, or -1 after
    the whole hand, the plays made, and the match totals at that moment. The end-of-hand check
    is left to the caller."""
    ns = rules.sides
    w0 = new_play_work(rules, np.int64(0), tree_capacity(seats, seats))
    work = PlayWork(w0.hand, w0.search, w0.streams, HandDraw(deck, us, seeds), w0.log)
    tot = np.zeros(ns, np.int64)
    events = np.zeros((ns, 3), np.int64)
    w, k, _, _ = play_hand(dealer, seats, rules, work, events, scores, tot, np.bool_(check),
                          None)
    st = work.hand.st
    totals = np.zeros(ns, np.int64)
    for t in range(ns):
        totals[t] = scores[t] + st[S_SCORE + t]
    return w, k, totals
