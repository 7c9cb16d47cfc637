"""Interval statistics used by every report."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson(successes: np.ndarray | int, trials: np.ndarray | int, z: float = Z95):
    """Wilson score interval for a binomial proportion.

    Chosen over the normal approximation because it stays inside [0, 1] and behaves at rates
    near 0 or 1 (a seat that almost never loses). Works elementwise on arrays.
    Returns ``(low, high)``.
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / n, 0.0)
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        low = np.where(n > 0, centre - half, 0.0)
        high = np.where(n > 0, centre + half, 1.0)
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def mean_ci(total: float, total_sq: float, n: int) -> tuple[float, float, float]:
    """Mean, and its 95% normal interval, of ``n`` values from their sum and sum of squares
    (what Monte Carlo chunks add up); one value gives no interval: ``nan`` bounds."""
    m = total / n
    if n < 2:
        return m, math.nan, math.nan
    var = max(total_sq / n - m * m, 0.0) * n / (n - 1)
    half = Z95 * math.sqrt(var / n)
    return m, m - half, m + half


def json_interval(lo: float, hi: float) -> list[float | None]:
    """An interval for JSON: a bound the data cannot give (``nan``) is null."""
    return [None if math.isnan(lo) else float(lo), None if math.isnan(hi) else float(hi)]


def json_ci(lo: float, hi: float) -> list[float] | None:
    """An interval for JSON, or ``null`` when the data cannot give one (a bound is ``nan``:
    fewer than two values, say): one ``null`` rather than ``[null, null]``, so that a reader
    tests one thing."""
    if math.isnan(lo) or math.isnan(hi):
        return None
    return [float(lo), float(hi)]


def bound_interval(mean: float, n: int, low: float, high: float) -> tuple[float, float] | None:
    """The 95% interval of a mean of ``n`` values that each lie in ``[low, high]`` (a deal
    set's paired win-rate difference, say) when the mean sits at a bound, else None.

    At a bound every value is at that bound: the sample variance is 0, and a normal interval
    would have width zero, claiming certainty from a finite sample. There the values are read
    as a proportion, ``(x - low) / (high - low)``, all successes (or all failures) in ``n``
    trials, and the interval is Wilson's mapped back: a rate of 1 on n deal sets has its lower
    bound at ``n / (n + z^2)``, as a binomial proportion observed at 1 does. Wilson's interval
    is the one the project gives proportions everywhere, and a bounded value varies at most as
    much as a two-point one with the same mean, so the mapped interval is if anything wide.
    Fewer than two values give no interval (None), as for :func:`mean_ci`."""
    span = high - low
    if n < 2 or span <= 0 or math.isnan(mean):
        return None
    tol = 1e-12 * max(1.0, abs(low), abs(high))
    at_high, at_low = abs(mean - high) <= tol, abs(mean - low) <= tol
    if not (at_high or at_low):
        return None
    w_lo, w_hi = wilson(n if at_high else 0, n)
    return low + span * float(w_lo), low + span * float(w_hi)
