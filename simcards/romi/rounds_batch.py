"""Römi rounds and games as Monte Carlo batches: the chunks the run machinery merges, and the
summaries of ``simcards romi rounds`` and ``simcards romi games``.

A chunk returns sums only (scores and their squares, counts of going out, of Römi finishes, of
players who never opened, a histogram of round lengths, stalls), so chunks merge by addition
and the same seed gives the same numbers for any number of workers.

Games are played round by round through :func:`simcards.romi.round_kernel.simulate_rounds`, one call
per round with the dealer fixed: the stream is consumed exactly as
:func:`simcards.romi.round_kernel.simulate_games` consumes it (the first dealer, then one seed per
round), so both give the same games, and the games command also reports every per-round rate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simcards.core.stats import json_interval, mean_ci, wilson
from simcards.romi.codes import STALL_TURNS
from simcards.romi.kernel_state import KernelRules, Seats
from simcards.romi.policies import searching

ROUNDS_CHUNK = 512
"""Rounds per chunk: under a second on one core (about 700 four-player greedy rounds/s)."""
GAMES_CHUNK = 64
"""Games per chunk (7 rounds each by default)."""
SEARCH_ROUNDS_CHUNK = 4
"""Rounds per chunk at a table with a seat that needs the search kernel (Q7, Q8: seconds
each)."""
SEARCH_GAMES_CHUNK = 1
"""Games per chunk at a table with a seat that needs the search kernel."""
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
STREAM_ROUNDS = "romi.rounds"
STREAM_GAMES = "romi.games"


@dataclass(frozen=True)
class RoundConfig:
    """What the kernels need, as their named tuples and ints (pickled to workers)."""

    rules: KernelRules
    seats: Seats
    players: int
    rounds_per_game: int
    dealer: int


def _empty(n: int) -> dict[str, np.ndarray]:
    return {
        "rounds": np.zeros(1, np.int64),
        "score": np.zeros(n, np.int64),
        "score_sq": np.zeros(n, np.int64),
        "went_out": np.zeros(n, np.int64),
        "romi": np.zeros(n, np.int64),
        "never_opened": np.zeros(n, np.int64),
        "turns_hist": np.zeros(STALL_TURNS + 1, np.int64),
        "stalled": np.zeros(1, np.int64),
        "games": np.zeros(1, np.int64),
        "total": np.zeros(n, np.int64),
        "total_sq": np.zeros(n, np.int64),
        "win_share": np.zeros(n, np.float64),
        "win_share_sq": np.zeros(n, np.float64),
        "sole_wins": np.zeros(n, np.int64),
    }


def _add_rounds(acc: dict[str, np.ndarray], out: tuple) -> None:
    scores, went_out, romi, never, turns, stalled, _dealers = out
    acc["rounds"][0] += scores.shape[0]
    acc["score"] += scores.sum(axis=0)
    acc["score_sq"] += (scores * scores).sum(axis=0)
    for r in range(scores.shape[0]):
        if went_out[r] >= 0:
            acc["went_out"][went_out[r]] += 1
            if romi[r]:
                acc["romi"][went_out[r]] += 1
    acc["never_opened"] += never.sum(axis=0)
    acc["turns_hist"] += np.bincount(np.minimum(turns, STALL_TURNS),
                                     minlength=STALL_TURNS + 1)
    acc["stalled"][0] += int(stalled.sum())


def simulator(seats: Seats) -> Callable[..., tuple]:
    """The kernel that plays rounds for ``seats``: the round kernel, or the search kernel's
    (same chance, same per-round arrays) when a seat's kind needs it (Q7, Q8,
    :func:`~simcards.romi.policies.searching`)."""
    if searching(seats.kinds):
        from simcards.romi import search_kernel

        return search_kernel.simulate_rounds
    from simcards.romi.round_kernel import simulate_rounds

    return simulate_rounds


def chunk_sizes(seats: Seats) -> tuple[int, int]:
    """Rounds and games per chunk for ``seats``: small where a seat searches (Q7, Q8), so that
    progress moves and an interrupted run keeps most of its work."""
    if searching(seats.kinds):
        return SEARCH_ROUNDS_CHUNK, SEARCH_GAMES_CHUNK
    return ROUNDS_CHUNK, GAMES_CHUNK


def rounds_chunk(state: np.ndarray, size: int, cfg: RoundConfig) -> dict[str, np.ndarray]:
    """One chunk of Monte Carlo rounds (runs in a worker)."""
    simulate_rounds = simulator(cfg.seats)
    acc = _empty(cfg.players)
    _add_rounds(acc, simulate_rounds(state, size, cfg.rules, cfg.seats, cfg.dealer))
    return acc


def games_chunk(state: np.ndarray, size: int, cfg: RoundConfig) -> dict[str, np.ndarray]:
    """One chunk of Monte Carlo games (D5, G6): the first dealer drawn, the deal moving one seat
    left each round, the lowest total winning and equal lowest totals sharing the win."""
    from simcards.core.rng_kernel import randbelow

    simulate_rounds = simulator(cfg.seats)
    n = cfg.players
    acc = _empty(n)
    for _ in range(size):
        d0 = int(randbelow(state, n))
        totals = np.zeros(n, np.int64)
        for r in range(cfg.rounds_per_game):
            out = simulate_rounds(state, 1, cfg.rules, cfg.seats, (d0 + r) % n)
            _add_rounds(acc, out)
            totals += out[0][0]
        add_game(acc, totals)
    return acc


def add_game(acc: dict[str, np.ndarray], totals: np.ndarray) -> None:
    """One game's totals (by seat) into ``acc``: the lowest total wins (G6), equal lowest
    totals share the win. Both engines' games chunks count their games here."""
    won = totals == totals.min()
    share = won / won.sum()
    acc["games"][0] += 1
    acc["total"] += totals
    acc["total_sq"] += totals * totals
    acc["win_share"] += share
    acc["win_share_sq"] += share * share
    if won.sum() == 1:
        acc["sole_wins"] += won


def _mean_ci(total: float, total_sq: float, n: int) -> tuple[float, list[float | None]]:
    """Mean and 95% normal interval (JSON form) of ``n`` values from their sum and sum of
    squares."""
    m, lo, hi = mean_ci(total, total_sq, n)
    return m, json_interval(lo, hi)


def _rates(counts: np.ndarray, n: int) -> tuple[list[float], list[list[float]]]:
    lo, hi = wilson(np.asarray(counts), n)
    return (np.asarray(counts) / n).tolist(), [[float(a), float(b)] for a, b in
                                               zip(np.atleast_1d(lo), np.atleast_1d(hi),
                                                   strict=True)]


def _quantiles(hist: np.ndarray) -> dict[str, int]:
    """Quantiles of round length (turns) from its histogram: the least length whose cumulative
    share reaches q."""
    cum = np.cumsum(hist)
    total = cum[-1]
    return {f"{round(q * 100)}%": int(np.searchsorted(cum, q * total)) for q in QUANTILES}


def summarise_rounds(s: dict[str, np.ndarray]) -> dict[str, object]:
    """The per-round keys of both commands (by player where it applies)."""
    r = int(s["rounds"][0])
    scores = [_mean_ci(float(s["score"][p]), float(s["score_sq"][p]), r)
              for p in range(s["score"].shape[0])]
    out: dict[str, object] = {
        "score_mean": [m for m, _ in scores],
        "score_ci": [ci for _, ci in scores],
    }
    for key, name in (("went_out", "go_out"), ("romi", "rummy"),
                      ("never_opened", "never_opened")):
        rate, ci = _rates(s[key], r)
        out[f"{name}_rate"] = rate
        out[f"{name}_ci"] = ci
    hist = s["turns_hist"]
    lengths = np.arange(hist.shape[0])
    m, ci = _mean_ci(float((hist * lengths).sum()), float((hist * lengths * lengths).sum()), r)
    out["turns_mean"] = m
    out["turns_ci"] = ci
    out["turns_quantiles"] = _quantiles(hist)
    rate, ci = _rates(s["stalled"], r)
    out["stalled_rate"] = rate[0]
    out["stalled_ci"] = ci[0]
    return out


def summarise_games(s: dict[str, np.ndarray]) -> dict[str, object]:
    """The game keys: total score and win rate (shared wins split) by player.

    A win rate's interval is Wilson's, a shared win counting as its share of a success: it
    stays inside [0, 1] and is not empty at 0 wins, where a normal interval gives [0, 0] or
    goes below 0. A share's variance is at most that of a whole win of the same rate, so
    the interval is if anything wide."""
    g = int(s["games"][0])
    n = s["total"].shape[0]
    totals = [_mean_ci(float(s["total"][p]), float(s["total_sq"][p]), g) for p in range(n)]
    rate, ci = _rates(s["win_share"], g)
    return {
        "game_score_mean": [m for m, _ in totals],
        "game_score_ci": [ci for _, ci in totals],
        "win_rate": rate,
        "win_ci": ci,
        "sole_win_rate": (s["sole_wins"] / g).tolist(),
    }
