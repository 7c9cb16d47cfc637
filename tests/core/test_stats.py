"""Intervals at a bound: a paired difference whose every deal set sits at the end of its range
(the all-seeing bound winning every match) has a sample variance of 0, and a normal interval
of width zero would claim certainty from a finite sample. The shared helper
(:func:`simcards.core.stats.bound_interval`) gives Wilson's interval on the sets there, and
both games' compare figures use it; every other interval is the normal one, unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from simcards.core.stats import Z95, mean_ci, wilson


def test_a_mean_at_its_upper_bound_gets_wilsons_interval_on_the_sets() -> None:
    from simcards.core.stats import bound_interval

    n = 100
    lo, hi = bound_interval(1.0, n, -1.0, 1.0)
    assert hi == 1.0
    assert lo == pytest.approx(-1.0 + 2.0 * n / (n + Z95 * Z95))
    assert lo < 1.0
    p_lo, _ = wilson(n, n)
    assert (lo + 1.0) / 2.0 == pytest.approx(float(p_lo))


def test_a_mean_at_its_lower_bound_gets_the_mirror_interval() -> None:
    from simcards.core.stats import bound_interval

    lo, hi = bound_interval(-1 / 3, 400, -1 / 3, 1.0)
    assert lo == pytest.approx(-1 / 3)
    _, p_hi = wilson(0, 400)
    assert hi == pytest.approx(-1 / 3 + (4 / 3) * float(p_hi)) and hi > -1 / 3


def test_a_mean_inside_its_range_keeps_the_normal_interval() -> None:
    from simcards.core.stats import bound_interval

    assert bound_interval(0.0, 100, -1.0, 1.0) is None  # a policy against itself: exactly 0
    assert bound_interval(0.96, 100, -1.0, 1.0) is None
    assert bound_interval(1.0, 1, -1.0, 1.0) is None  # one set gives no interval at all
    m, lo, hi = mean_ci(0.0, 0.0, 50)
    assert (m, lo, hi) == (0.0, 0.0, 0.0)


def test_ronda_win_rate_difference_at_its_bound_is_not_of_width_zero() -> None:
    """Teams, 100 deal sets, A's side wins both matches of every set (the all-seeing bound's
    run in teams): +1.000 with an interval below 1, not [+1.000, +1.000]."""
    from simcards.ronda import summaries

    n, plays, m = 100, 2, 1
    per_set = m * plays  # D = m * A's wins - B's wins
    stats = {"deal_sets": np.array([n]), "b_seats": np.array([n * plays * m]),
             "plays": np.array([n * plays]), "win_diff": np.array([n * per_set]),
             "win_diff_sq": np.array([n * per_set * per_set])}
    d = summaries.win_rate_difference(stats)
    assert d.value == 1.0 and d.high == 1.0
    assert d.low == pytest.approx(-1.0 + 2.0 * n / (n + Z95 * Z95))
    assert f"{d.low:+.3f}" == "+0.926"


def test_ronda_win_rate_difference_inside_its_range_is_unchanged() -> None:
    from simcards.ronda import summaries

    stats = {"deal_sets": np.array([4]), "b_seats": np.array([8]), "plays": np.array([8]),
             "win_diff": np.array([4]), "win_diff_sq": np.array([8])}  # D = 2, 0, 2, 0
    d = summaries.win_rate_difference(stats)
    expect = summaries.mean_interval(4, 8, 4, 2.0)
    assert d == expect


def test_romi_win_rate_difference_at_its_lower_bound_is_not_of_width_zero() -> None:
    """Four players, 120 deal sets, A wins no game in any seating (threshold:120 among greedy
    players): -1/3 per seat with an interval above -1/3."""
    from simcards.romi import compare_batch as RC

    n, sets, rounds = 4, 120, 7
    s = RC._empty()
    per_set = -n * RC.WIN_UNITS  # (n - 1) * A's shares - B's shares, A winning nothing
    s["sets"][0] = sets
    s["win_diff"][0] = sets * per_set
    s["win_diff_sq"][0] = sets * per_set * per_set
    s["win_b"][0] = sets * n * RC.WIN_UNITS
    s["rounds"][0] = sets * n * rounds
    d = RC.summarise(s, n, rounds)["win_rate_diff"]
    assert d["mean"] == pytest.approx(-1 / 3)
    lo, hi = d["ci"]
    assert lo == pytest.approx(-1 / 3) and hi > -1 / 3 + 0.005
    assert f"{hi:+.3f}" == "-0.292"
