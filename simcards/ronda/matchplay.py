"""Ronda matches as Monte Carlo batches: match win rates, match length, first-player advantage.

The match kernel is :func:`simcards.ronda.matches.simulate_matches`; this module cuts a run into
chunks (sized by the policies' cost and the expected length of a match, so that progress stays
live), and summarises the merged statistics (:data:`~simcards.ronda.matches.MATCH_STAT_NAMES`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simcards.core.policyspec import PolicySpec
from simcards.core.runner import Stats, run_batch
from simcards.core.stats import Z95, wilson
from simcards.ronda import codes
from simcards.ronda.hands import HANDS_CHUNK, chunk_size, mean_ci
from simcards.ronda.policies import policy_arrays
from simcards.ronda.rules import RondaRules

QUANTILES = (5, 25, 50, 75, 95)
STREAM = "ronda.matches"
"""The random stream of the matches command."""
DEFAULT_MAX_HANDS = 200
"""A match still undecided after this many hands is stopped and counted as unfinished (the
kernel's own cap; a 2-player match to 41 lasts about 6 hands). Classic matches that need many
hand wins get more room (:func:`max_hands`)."""
POINTS_PER_HAND = 7.0
"""A rough figure of one side's points per hand, to guess a match's length from its target."""


def max_hands(rules: RondaRules) -> int:
    """The cap on a match's length: :data:`DEFAULT_MAX_HANDS`, or more for a classic match
    that needs many hand wins (C3)."""
    if rules.mode == "classic":
        return max(DEFAULT_MAX_HANDS, 8 * rules.hands_to_win * rules.n_sides)
    return DEFAULT_MAX_HANDS


def hands_per_match(rules: RondaRules) -> float:
    """A rough guess of the hands in a match (S4, C3), for sizing chunks only."""
    if rules.mode == "classic":
        return float(rules.hands_to_win * rules.n_sides)
    return max(1.0, rules.target / POINTS_PER_HAND)


def match_chunk_size(rules: RondaRules, specs: Sequence[PolicySpec], plays: int = 1) -> int:
    """Matches (or deal sets of ``plays`` matches) per chunk: about as much work as a chunk of
    :data:`~simcards.ronda.hands.HANDS_CHUNK` greedy hands."""
    return chunk_size(specs, max(1, int(HANDS_CHUNK / (hands_per_match(rules) * plays))))


@dataclass(frozen=True)
class MatchConfig:
    """Everything the match kernel needs, as plain arrays and ints (pickled to workers)."""

    kinds: np.ndarray
    params: np.ndarray
    rl: np.ndarray
    ds: np.ndarray
    dealer: int
    max_hands: int

    @classmethod
    def build(cls, rules: RondaRules, specs: Sequence[PolicySpec],
              dealer: int | None) -> MatchConfig:
        kinds, params = policy_arrays(specs)
        rl, ds = rules.arrays.args()
        return cls(kinds, params, rl, ds, -1 if dealer is None else int(dealer),
                   max_hands(rules))


def matches_chunk(state: np.ndarray, size: int, cfg: MatchConfig) -> dict[str, np.ndarray]:
    """One chunk of Monte Carlo matches (runs in a worker)."""
    from simcards.ronda.matches import named_match_stats, simulate_matches

    return named_match_stats(simulate_matches(state, size, cfg.dealer, cfg.kinds, cfg.params,
                                              cfg.rl, cfg.ds, cfg.max_hands))


def _pair(lo: float, hi: float) -> list[float]:
    return [float(lo), float(hi)]


@dataclass(frozen=True)
class MatchesResult:
    """Merged match statistics (:data:`~simcards.ronda.matches.MATCH_STAT_NAMES`), summarised."""

    matches: int
    max_hands: int
    stats: Stats

    def quantiles(self) -> dict[str, int]:
        """Match length in hands at the 5, 25, 50, 75 and 95% points."""
        cdf = np.cumsum(self.stats["length_hist"]) / self.matches
        return {f"{q}%": int(np.searchsorted(cdf, q / 100 - 1e-12)) for q in QUANTILES}

    def to_dict(self) -> dict[str, object]:
        s = self.stats
        n = self.matches
        ns = s["wins"].shape[0]
        wins = s["wins"]
        wlo, whi = wilson(wins, n)
        unfinished = int(s["unfinished"][0])
        first = int(s["first_side_wins"][0])
        flo, fhi = wilson(first, n)
        # First-player advantage, per match: 1 when the first player's side wins, -1/(ns-1)
        # when another side does (the mean of the other sides' wins), 0 when unfinished.
        others = n - unfinished - first
        z = (first - others / (ns - 1)) / n
        z2 = (first + others / (ns - 1) ** 2) / n
        half = Z95 * math.sqrt(max(z2 - z * z, 0.0) * n / max(n - 1, 1) / n)
        hm, hlo, hhi = mean_ci(float(s["hands"][0]), float(s["hands_sq"][0]), n)
        hands_total = int(s["hands"][0])
        scores = [mean_ci(float(s["score"][t]), float(s["score_sq"][t]), n) for t in range(ns)]
        points = s["points"]
        return {
            "win_rate": (wins / n).tolist(),
            "win_ci": [_pair(a, b) for a, b in zip(wlo, whi, strict=True)],
            "unfinished": unfinished,
            "first_player_win_rate": first / n,
            "first_player_win_ci": _pair(flo, fhi),
            "first_player_advantage": z,
            "first_player_advantage_ci": _pair(z - half, z + half),
            "hands_mean": hm,
            "hands_ci": _pair(hlo, hhi),
            "hands_sd": math.sqrt(max(float(s["hands_sq"][0]) / n - hm * hm, 0.0)),
            "hands_quantiles": self.quantiles(),
            "score_mean": [x[0] for x in scores],
            "score_ci": [_pair(x[1], x[2]) for x in scores],
            "points_per_hand": (points.sum(axis=1) / hands_total).tolist(),
            "points_by_source": {name: (points[:, codes.SOURCES.index(name)] / hands_total)
                                 .tolist() for name in ("ronda", "tringla", "derba", "missa",
                                                        "cards", "last_card")},
            "hands_played": int(s["hand_count"][0]),
            "violations": int(s["violations"][0]),
        }


def simulate(rules: RondaRules, specs: Sequence[PolicySpec], matches: int, *,
             dealer: int | None = None, seed: int = 0, workers: int | None = None,
             progress: bool = False, **batch: object) -> MatchesResult:
    """Monte Carlo matches; bit-identical for a given seed whatever ``workers`` or executor."""
    cfg = MatchConfig.build(rules, specs, dealer)
    stats = run_batch(matches_chunk, cfg, seed=seed, total=matches,
                      chunk_size=match_chunk_size(rules, specs), stream=STREAM, workers=workers,
                      progress=progress, label="Ronda matches", **batch)
    return MatchesResult(matches, cfg.max_hands, stats)
