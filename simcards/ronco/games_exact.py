"""Exact Ronco game values for small tables: a Markov chain over (lives, dealer).

Each round's exact outcome distribution over every set of losers (with Poroli's double losses and
the absolute tie) comes from :func:`simcards.ronco.exact.round_outcomes`; the game is then a chain
on states (lives of every player, dealer) whose total lives strictly fall every counted round, so
a memoised recursion solves it. A replayed round (G6 ``replay``) is a self-loop and is folded in
by conditioning on the round not being an absolute tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from simcards.core.errors import UsageError
from simcards.ronco.exact import Outcome, round_outcomes
from simcards.ronco.games import QUANTILES, check_first_dealer, check_lives
from simcards.ronco.policies import Policy
from simcards.ronco.rules import AbsoluteTie, RoncoRules, check_players

MAX_STATES = 250_000


@dataclass(frozen=True)
class ExactGame:
    """Exact game results: win probability by player, draws, and the game length."""

    win: np.ndarray
    draw: float
    rounds_mean: float
    rounds_dist: np.ndarray
    """P(the game lasts r rounds), r = 0 .. len-1 (truncated for endless replays)."""

    def rounds_quantiles(self) -> dict[str, int]:
        cdf = np.cumsum(self.rounds_dist)
        return {f"{q}%": int(np.searchsorted(cdf, q / 100 - 1e-12)) for q in QUANTILES}

    def to_dict(self) -> dict[str, object]:
        return {
            "win_rate": self.win.tolist(),
            "draw_rate": self.draw,
            "rounds_mean": self.rounds_mean,
            "rounds_quantiles": self.rounds_quantiles(),
        }


def exact_game(rules: RoncoRules, policies: Sequence[Policy], lives: int,
               first_dealer: int | None = None) -> ExactGame:
    """Solve the game for deterministic ``policies`` (by player)."""
    n = check_players(len(policies))
    check_lives(lives)
    check_first_dealer(first_dealer, n)
    states = (lives + 1) ** n * n
    if states > MAX_STATES:
        raise UsageError(f"exact game solver: {n} players with {lives} lives is too large "
                         f"({states:,} states, limit {MAX_STATES:,}); use Monte Carlo instead")
    replay = rules.absolute_tie is AbsoluteTie.REPLAY
    horizon = n * lives + 64

    @cache
    def outcomes(order_policies: tuple[Policy, ...]) -> list[tuple[Outcome, float]]:
        return round_outcomes(rules, order_policies)

    @cache
    def value(state: tuple[int, ...], dealer: int) -> tuple[np.ndarray, float, float,
                                                            np.ndarray]:
        order = [(dealer + 1 + i) % n for i in range(n)]
        order = [pl for pl in order if state[pl] > 0]  # G3: the dealer comes last
        win = np.zeros(n)
        draw = 0.0
        mean = 0.0
        dist = np.zeros(horizon)
        p_tie = 0.0
        for out, pr in outcomes(tuple(policies[pl] for pl in order)):
            if out.all_tie:  # G6
                p_tie += pr
                continue
            nxt = list(state)
            for pos, pl in enumerate(order):
                nxt[pl] = max(nxt[pl] - out.lost[pos], 0)
            alive = [pl for pl in range(n) if nxt[pl] > 0]
            if len(alive) <= 1:  # G7
                if alive:
                    win[alive[0]] += pr
                else:
                    draw += pr
                dist[1] += pr
                mean += pr
                continue
            nd = order[0]  # G5
            while nxt[nd] == 0:
                nd = (nd + 1) % n
            w, d, m, dd = value(tuple(nxt), nd)
            win += pr * w
            draw += pr * d
            mean += pr * (1 + m)
            dist[1:] += pr * dd[:-1]
        if replay:
            keep = 1.0 - p_tie
            win /= keep
            draw /= keep
            mean = (mean + p_tie) / keep
            for r in range(1, horizon):  # D[r] = p_tie * D[r-1] + Y[r]
                dist[r] += p_tie * dist[r - 1]
        else:
            draw += p_tie
            mean += p_tie
            dist[1] += p_tie
        return win, draw, mean, dist

    start = tuple([lives] * n)
    dealers = range(n) if first_dealer is None else [first_dealer]
    parts = [value(start, d) for d in dealers]
    k = len(parts)
    return ExactGame(
        win=sum(p[0] for p in parts) / k,
        draw=sum(p[1] for p in parts) / k,
        rounds_mean=sum(p[2] for p in parts) / k,
        rounds_dist=sum(p[3] for p in parts) / k,
    )
