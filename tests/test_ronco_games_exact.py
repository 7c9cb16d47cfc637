"""The exact game solver (Markov chain over lives and dealer) against the Monte Carlo game
kernel, on small tables spanning both absolute-tie options (G6), Poroli (R10), tie rules and
fixed or random first dealers (G4)."""

from __future__ import annotations

import numpy as np
import pytest

from simcards.ronco import games
from simcards.ronco.games_exact import exact_game
from simcards.ronco.policies import Policy
from simcards.ronco.rules import RoncoRules

GAMES = 400_000

TABLES = [
    ("2p-1life-void", RoncoRules.make(), [Policy()] * 2, 1, None),
    ("2p-3lives-replay-first-dealer-0", RoncoRules.make(absolute_tie="replay"),
     [Policy("threshold", 4, 6), Policy("informed", 6, 5)], 3, 0),
    ("3p-2lives-replay", RoncoRules.make(absolute_tie="replay"),
     [Policy("threshold", 6, 6)] * 3, 2, None),
    ("3p-3lives-poroli-mixed", RoncoRules.make(poroli=True),
     [Policy("informed", 5, 5), Policy("threshold", 4, 6), Policy("threshold", 7, 7)], 3, None),
    ("4p-3lives-default", RoncoRules.make(), [Policy()] * 4, 3, None),
    ("4p-2lives-ties-first-informed-fd2", RoncoRules.make(ties="first"),
     [Policy("informed", 5, 5)] * 4, 2, 2),
    ("4p-1life-poroli-replay", RoncoRules.make(poroli=True, absolute_tie="replay"),
     [Policy("threshold", 5, 6)] * 4, 1, None),
]


def _z(mc: float, exact: float, n: int) -> float:
    se = np.sqrt(max(exact * (1 - exact), 1e-300) / n)
    return (mc - exact) / se if exact * (1 - exact) > 0 else (0.0 if mc == exact else np.inf)


@pytest.mark.parametrize("case", TABLES, ids=lambda c: c[0])
def test_G1_G7_monte_carlo_games_agree_with_exact_chain(case) -> None:
    _, rules, policies, lives, first_dealer = case
    ex = exact_game(rules, policies, lives, first_dealer)
    assert ex.win.sum() + ex.draw == pytest.approx(1.0, abs=1e-12)
    mc = games.simulate(rules, policies, lives, GAMES, first_dealer=first_dealer, seed=2024,
                        workers=1)
    for p_mc, p_ex in zip(mc.win_rate, ex.win, strict=True):
        assert abs(_z(p_mc, p_ex, GAMES)) < 4
    assert abs(_z(mc.draws / GAMES, ex.draw, GAMES)) < 4
    assert abs(mc.rounds_mean - ex.rounds_mean) < 4 * mc.rounds_sd / np.sqrt(GAMES) + 1e-12
    # The whole length distribution, bin by bin.
    hist = mc.hist[: len(ex.rounds_dist)] / GAMES
    for r in range(min(len(hist), len(ex.rounds_dist))):
        assert abs(_z(hist[r], ex.rounds_dist[r], GAMES)) < 4.5, f"rounds={r}"


def test_G6_replay_never_draws_and_void_draws_with_two_players() -> None:
    """Two players tie absolutely with probability 3/39 per round when both keep (R9)."""
    keep = [Policy("threshold", 0, 0)] * 2
    void = exact_game(RoncoRules.make(), keep, 1)
    assert void.draw == pytest.approx(3 / 39, abs=1e-12)
    replay = exact_game(RoncoRules.make(absolute_tie="replay"), keep, 1)
    assert replay.draw == 0.0
    assert replay.rounds_mean == pytest.approx(1 / (1 - 3 / 39), abs=1e-9)


def test_exact_game_refuses_tables_too_large() -> None:
    from simcards.core.errors import UsageError

    with pytest.raises(UsageError, match="too large"):
        exact_game(RoncoRules.make(), [Policy()] * 8, 7)
