"""The numbers users see from Ronda's match and duplicate statistics.

Pure functions of the merged statistics dicts of
:func:`simcards.ronda.match_kernel.simulate_matches`
(:data:`~simcards.ronda.matches_batch.MATCH_STAT_NAMES`) and
:func:`simcards.ronda.match_kernel.simulate_duplicate`
(:data:`~simcards.ronda.compare_batch.DUPLICATE_STAT_NAMES`): the kernels return only sums, so
chunks merge by addition, and every rate, mean and interval is formed here, once, from the
totals.

Intervals are at 95%: Wilson's for proportions (they stay inside [0, 1], also near 0 or 1), the
normal approximation for means of many independent matches or deal sets, and the delta method
for ratios of sums (points per hand). A bound that the data cannot give (fewer than two deal
sets, say) is ``nan``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from simcards.core.stats import Z95, bound_interval, wilson

Stats = Mapping[str, np.ndarray]

LENGTH_QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
"""The match-length quantiles reported."""


@dataclass(frozen=True)
class Estimate:
    """A value with its 95% interval."""

    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    def excludes(self, x: float) -> bool:
        """Whether ``x`` lies outside the interval (a difference that is not zero, say)."""
        return x < self.low or x > self.high


def _scalar(stats: Stats, name: str) -> int:
    return int(np.asarray(stats[name]).reshape(-1)[0])


def proportion(successes: int, trials: int) -> Estimate:
    """``successes / trials`` with Wilson's interval (0 and [0, 1] for no trials)."""
    lo, hi = wilson(successes, trials)
    value = successes / trials if trials > 0 else 0.0
    return Estimate(float(value), float(lo), float(hi))


def mean_interval(total: float, total_sq: float, n: int, scale: float = 1.0) -> Estimate:
    """Mean of ``n`` independent values, given their sum and sum of squares, divided by
    ``scale`` (the kernels keep integers: a paired difference D / scale is summed as D), with
    the normal 95% interval from the sample variance."""
    if n <= 0:
        return Estimate(math.nan, math.nan, math.nan)
    mean = total / n
    if n < 2:
        return Estimate(mean / scale, math.nan, math.nan)
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    half = Z95 * math.sqrt(var / n)
    return Estimate(mean / scale, (mean - half) / scale, (mean + half) / scale)


def ratio_interval(x: float, x_sq: float, h: float, h_sq: float, xh: float, n: int) -> Estimate:
    """The ratio of sums R = sum X / sum H over ``n`` independent units (deal sets), with the
    delta method's 95% interval: Var(R) ~ sum (X - R H)^2 / ((n - 1) n mean(H)^2).

    Used for points per hand: a set's plays last different numbers of hands, and the ratio
    weighs every hand alike where a mean of per-set ratios would not.
    """
    if n <= 0 or h == 0:
        return Estimate(math.nan, math.nan, math.nan)
    r = x / h
    if n < 2:
        return Estimate(r, math.nan, math.nan)
    resid = max(0.0, x_sq - 2.0 * r * xh + r * r * h_sq)  # sum of (X - R H)^2
    mean_h = h / n
    half = Z95 * math.sqrt(resid / (n - 1) / n) / mean_h
    return Estimate(r, r - half, r + half)


# ---------------------------------------------------------------- matches


def win_rates(stats: Stats) -> list[Estimate]:
    """Each side's share of matches won (unfinished matches count as won by nobody)."""
    n = _scalar(stats, "matches")
    return [proportion(int(w), n) for w in np.asarray(stats["wins"])]


def first_player_advantage(stats: Stats) -> Estimate:
    """D3: the share of matches won by the side of the first hand's first player, minus the
    1 / sides a fair start would give, with Wilson's interval shifted alike. Meaningful when the
    first dealer is drawn (``dealer < 0``) or when the sides are otherwise alike."""
    sides = len(np.asarray(stats["wins"]))
    p = proportion(_scalar(stats, "first_side_wins"), _scalar(stats, "matches"))
    fair = 1.0 / sides
    return Estimate(p.value - fair, p.low - fair, p.high - fair)


def match_length(stats: Stats, quantiles: Sequence[float] = LENGTH_QUANTILES) -> dict:
    """Match length in hands: ``mean`` (with its interval), ``sd`` (the sample standard
    deviation, ``nan`` for fewer than two matches), and ``quantiles`` {q:
    hands}, the smallest length L with at least a share q of the matches lasting L hands or
    fewer, read from ``length_hist`` (an unfinished match counts at ``max_hands``);
    ``max_hands`` and ``unfinished`` are reported with them."""
    n = _scalar(stats, "matches")
    total = _scalar(stats, "hands")
    total_sq = _scalar(stats, "hands_sq")
    hist = np.asarray(stats["length_hist"], np.int64)
    mean = mean_interval(total, total_sq, n)
    # The sample standard deviation: one match gives none (nan, null in JSON), not 0.
    sd = (math.sqrt(max(0.0, (total_sq - total * total / n) / (n - 1))) if n > 1
          else math.nan)
    cum = np.cumsum(hist)
    qs = {}
    for q in quantiles:
        qs[q] = int(np.searchsorted(cum, q * n, side="left")) if n > 0 else None
    return {"mean": mean, "sd": sd, "quantiles": qs, "max_hands": len(hist) - 1,
            "unfinished": _scalar(stats, "unfinished")}


def mean_scores(stats: Stats) -> list[Estimate]:
    """Each side's mean final match score (S2) with its interval."""
    n = _scalar(stats, "matches")
    return [mean_interval(float(s), float(s2), n)
            for s, s2 in zip(np.asarray(stats["score"]), np.asarray(stats["score_sq"]),
                             strict=True)]


def points_per_hand(stats: Stats) -> np.ndarray:
    """Points per hand by side and source (``codes.SOURCES`` order), over every hand started
    (a hand the S5 check cut short counts with the points it had made)."""
    hands = _scalar(stats, "hands")
    pts = np.asarray(stats["points"], np.float64)
    return pts / hands if hands > 0 else np.full_like(pts, math.nan)


def cards_per_hand(stats: Stats) -> np.ndarray:
    """Captured cards per hand by side, over every hand started (what classic mode plays for,
    C2; a hand the S5 check cut short counts with the cards it had captured)."""
    hands = _scalar(stats, "hands")
    cards = np.asarray(stats["cards"], np.float64)
    return cards / hands if hands > 0 else np.full_like(cards, math.nan)


def hand_wins_per_match(stats: Stats) -> np.ndarray:
    """Hands won by strictly most captured cards (C2) per match, by side: a classic match's
    score (C3), counted in points mode too."""
    n = _scalar(stats, "matches")
    wins = np.asarray(stats["hand_wins"], np.float64)
    return wins / n if n > 0 else np.full_like(wins, math.nan)


def match_summary(stats: Stats) -> dict:
    """Everything above as plain data (floats, ints, lists, dicts) for reports and JSON."""
    length = match_length(stats)
    return {
        "matches": _scalar(stats, "matches"),
        "unfinished": _scalar(stats, "unfinished"),
        "win_rate": [e.as_dict() for e in win_rates(stats)],
        "first_player_advantage": first_player_advantage(stats).as_dict(),
        "length": {"mean": length["mean"].as_dict(), "sd": length["sd"],
                   "quantiles": {str(q): v for q, v in length["quantiles"].items()},
                   "max_hands": length["max_hands"]},
        "mean_score": [e.as_dict() for e in mean_scores(stats)],
        "points_per_hand": points_per_hand(stats).tolist(),
        "hands_played": _scalar(stats, "hand_count"),
        "violations": _scalar(stats, "violations"),
    }


# ---------------------------------------------------------------- duplicate


def b_sides_per_play(stats: Stats) -> int:
    """m: B's sides per play (1 with two sides, players - 1 otherwise)."""
    plays = _scalar(stats, "plays")
    return _scalar(stats, "b_seats") // plays if plays > 0 else 1


def win_rate_difference(stats: Stats) -> Estimate:
    """The paired difference of match win rates, A's minus B's (B's the mean over its sides),
    per deal set, with the normal interval over deal sets. A set's difference lies between
    -1/m (B's sides win every match) and 1 (A wins every match), m being B's sides per play;
    where every set sits at one of these bounds the normal interval has width zero, and the
    interval is Wilson's on the sets instead (:func:`simcards.core.stats.bound_interval`)."""
    n = _scalar(stats, "deal_sets")
    scale = _scalar(stats, "b_seats") / n if n > 0 else 1.0  # P m per set
    est = mean_interval(_scalar(stats, "win_diff"), _scalar(stats, "win_diff_sq"), n, scale)
    at_bound = bound_interval(est.value, n, -1.0 / b_sides_per_play(stats), 1.0)
    return est if at_bound is None else Estimate(est.value, *at_bound)


def _per_hand_difference(stats: Stats, stem: str) -> Estimate:
    return ratio_interval(_scalar(stats, f"{stem}_diff"), _scalar(stats, f"{stem}_diff_sq"),
                          _scalar(stats, "set_hands"), _scalar(stats, "set_hands_sq"),
                          _scalar(stats, f"{stem}_diff_hands"), _scalar(stats, "deal_sets"))


def points_per_hand_difference(stats: Stats) -> Estimate:
    """Points per hand of A's side minus those of B's (the mean over B's sides), pooled over
    the plays of every set; the interval treats deal sets as the independent units."""
    return _per_hand_difference(stats, "points")


def cards_per_hand_difference(stats: Stats) -> Estimate:
    """As :func:`points_per_hand_difference`, for captured cards (what classic mode plays for,
    C2)."""
    return _per_hand_difference(stats, "cards")


def duplicate_win_rates(stats: Stats) -> tuple[Estimate, Estimate]:
    """A's and B's match win rates (B's per side), each with Wilson's interval. Plays of one
    set are not independent, so the paired difference is the sharper comparison."""
    a = proportion(_scalar(stats, "a_wins"), _scalar(stats, "plays"))
    b = proportion(_scalar(stats, "b_wins"), _scalar(stats, "b_seats"))
    return a, b


def duplicate_summary(stats: Stats) -> dict:
    """The duplicate comparison as plain data for reports and JSON."""
    a, b = duplicate_win_rates(stats)
    hands = _scalar(stats, "hands")
    m = b_sides_per_play(stats)
    return {
        "deal_sets": _scalar(stats, "deal_sets"),
        "plays": _scalar(stats, "plays"),
        "unfinished": _scalar(stats, "unfinished"),
        "a_win_rate": a.as_dict(),
        "b_win_rate": b.as_dict(),
        "win_rate_difference": win_rate_difference(stats).as_dict(),
        "a_points_per_hand": _scalar(stats, "a_points") / hands if hands else math.nan,
        "b_points_per_hand": _scalar(stats, "b_points") / (m * hands) if hands else math.nan,
        "points_per_hand_difference": points_per_hand_difference(stats).as_dict(),
        "cards_per_hand_difference": cards_per_hand_difference(stats).as_dict(),
        "mean_hands": hands / _scalar(stats, "plays") if _scalar(stats, "plays") else math.nan,
        "hands_played": _scalar(stats, "hand_count"),
        "violations": _scalar(stats, "violations"),
    }
