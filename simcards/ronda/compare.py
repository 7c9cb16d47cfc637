"""Two Ronda policies compared in duplicate: the same deals, the seats swapped.

Calling the module, ``simcards.ronda.compare(...)``, runs :func:`simcards.ronda.api.compare`.

Each deal set is one match played on the same sequence of decks and dealers with A and B in
every seating (:func:`simcards.ronda.matches.simulate_duplicate`): with two sides A takes one
side and then the other; with 3 or 4 players alone A takes each seat in turn against B
everywhere else. Luck of the deal falls alike on both policies and cancels from the paired
differences, whose intervals come from the spread of the per-set differences
(:data:`~simcards.ronda.matches.DUPLICATE_STAT_NAMES`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simcards.core.apimodule import make_callable
from simcards.core.policyspec import PolicySpec
from simcards.core.runner import Stats, run_batch
from simcards.core.stats import Z95, wilson
from simcards.ronda.matchplay import match_chunk_size, max_hands
from simcards.ronda.policies import policy_arrays
from simcards.ronda.rules import RondaRules

STREAM = "ronda.compare"
"""The random stream of the compare command."""


def plays_per_set(rules: RondaRules) -> tuple[int, int]:
    """``(P, m)``: matches per deal set and B's sides per match (see
    :func:`simcards.ronda.matches.duplicate_plays`)."""
    if rules.n_sides == 2:
        return 2, 1
    return rules.players, rules.players - 1


def seating(rules: RondaRules, a: PolicySpec, b: PolicySpec) -> list[PolicySpec]:
    """The seats' policies in the first match of a set: A on side 0's seats, B elsewhere."""
    return [a if rules.side_of(p) == 0 else b for p in range(rules.players)]


@dataclass(frozen=True)
class DuplicateConfig:
    """Everything the duplicate kernel needs, as plain arrays and ints (pickled to workers)."""

    kinds_a: np.ndarray
    params_a: np.ndarray
    kinds_b: np.ndarray
    params_b: np.ndarray
    rl: np.ndarray
    ds: np.ndarray
    dealer: int
    max_hands: int

    @classmethod
    def build(cls, rules: RondaRules, a: PolicySpec, b: PolicySpec,
              dealer: int | None) -> DuplicateConfig:
        ka, pa = policy_arrays([a])
        kb, pb = policy_arrays([b])
        rl, ds = rules.arrays.args()
        return cls(ka, pa, kb, pb, rl, ds, -1 if dealer is None else int(dealer),
                   max_hands(rules))


def duplicate_chunk(state: np.ndarray, size: int, cfg: DuplicateConfig) -> dict[str, np.ndarray]:
    """One chunk of deal sets (runs in a worker)."""
    from simcards.ronda.matches import named_duplicate_stats, simulate_duplicate

    return named_duplicate_stats(simulate_duplicate(
        state, size, cfg.dealer, cfg.kinds_a, cfg.params_a, cfg.kinds_b, cfg.params_b, cfg.rl,
        cfg.ds, cfg.max_hands))


def chunk_for(rules: RondaRules, a: PolicySpec, b: PolicySpec) -> int:
    """Deal sets per chunk, by the policies' cost and the matches in a set."""
    return match_chunk_size(rules, seating(rules, a, b), plays_per_set(rules)[0])


def _pair(lo: float, hi: float) -> list[float]:
    return [float(lo), float(hi)]


def _ratio_ci(x: float, x2: float, h: float, h2: float, xh: float,
              n: int) -> tuple[float, float, float]:
    """sum X / sum H over ``n`` sets, with the delta method's 95% interval."""
    r = x / h
    mx, mh = x / n, h / n
    d = max(n - 1, 1)
    vx = (x2 - n * mx * mx) / d
    vh = (h2 - n * mh * mh) / d
    cxh = (xh - n * mx * mh) / d
    var = max(vx - 2 * r * cxh + r * r * vh, 0.0) / (n * mh * mh)
    half = Z95 * math.sqrt(var)
    return r, r - half, r + half


@dataclass(frozen=True)
class CompareResult:
    """Merged duplicate statistics, summarised."""

    deals: int
    stats: Stats

    def to_dict(self) -> dict[str, object]:
        s = {k: float(v[0]) for k, v in self.stats.items()}
        n = self.deals
        plays = int(s["plays"])
        b_seats = int(s["b_seats"])
        pm = b_seats / n  # P * m: the weight of one set's D
        a_wins, b_wins = int(s["a_wins"]), int(s["b_wins"])
        alo, ahi = wilson(a_wins, plays)
        blo, bhi = wilson(b_wins, b_seats)
        d_mean = s["win_diff"] / n
        d_var = max(s["win_diff_sq"] / n - d_mean * d_mean, 0.0) * n / max(n - 1, 1)
        diff = d_mean / pm
        half = Z95 * math.sqrt(d_var / n) / pm
        pts = _ratio_ci(s["points_diff"], s["points_diff_sq"], s["set_hands"],
                        s["set_hands_sq"], s["points_diff_hands"], n)
        cards = _ratio_ci(s["cards_diff"], s["cards_diff_sq"], s["set_hands"],
                          s["set_hands_sq"], s["cards_diff_hands"], n)
        return {
            "deals": n,
            "plays": plays,
            "win_rate_a": a_wins / plays,
            "win_ci_a": _pair(float(alo), float(ahi)),
            "win_rate_b": b_wins / b_seats,
            "win_ci_b": _pair(float(blo), float(bhi)),
            "win_rate_diff": diff,
            "win_rate_diff_ci": _pair(diff - half, diff + half),
            "points_diff": pts[0],
            "points_diff_ci": _pair(pts[1], pts[2]),
            "cards_diff": cards[0],
            "cards_diff_ci": _pair(cards[1], cards[2]),
            "unfinished": int(s["unfinished"]),
            "hands_mean": s["hands"] / plays,
            "hands_played": int(s["hand_count"]),
            "violations": int(s["violations"]),
        }


def simulate(rules: RondaRules, a: PolicySpec, b: PolicySpec, deals: int, *,
             dealer: int | None = None, seed: int = 0, workers: int | None = None,
             progress: bool = False, **batch: object) -> CompareResult:
    """Duplicate deal sets; bit-identical for a given seed whatever ``workers`` or executor."""
    cfg = DuplicateConfig.build(rules, a, b, dealer)
    stats = run_batch(duplicate_chunk, cfg, seed=seed, total=deals,
                      chunk_size=chunk_for(rules, a, b), stream=STREAM, workers=workers,
                      progress=progress, label="Ronda deal sets", **batch)
    return CompareResult(deals, stats)


make_callable(__name__, "simcards.ronda.api:compare")
