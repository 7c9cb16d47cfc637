"""Cluster warm-ups: each compiles (or loads from cache) one Ronco kernel on a tiny batch.

Named in the game's registration, so a dask worker runs them once when it joins, before any
chunk, and no chunk pays for compilation.
"""

from __future__ import annotations


def warm_ronco_rounds() -> None:
    """Compile or load the Ronco round kernel: four players, default rules, a few rounds."""
    from simcards.core.rng import chunk_state
    from simcards.ronco.policies import Policy
    from simcards.ronco.rounds_batch import KernelConfig, rounds_chunk
    from simcards.ronco.rules import RoncoRules

    cfg = KernelConfig.build(RoncoRules.make(), [Policy("threshold", 5, 5)] * 4)
    rounds_chunk(chunk_state(0, 0), 64, cfg)


def warm_ronco_games() -> None:
    """Compile or load the Ronco game kernel: a few short games."""
    from simcards.core.rng import chunk_state
    from simcards.ronco.games_batch import GameConfig, games_chunk
    from simcards.ronco.policies import Policy
    from simcards.ronco.rules import RoncoRules

    cfg = GameConfig.build(RoncoRules.make(), [Policy("threshold", 5, 5)] * 3, 1, None)
    games_chunk(chunk_state(0, 0), 8, cfg)


def warm_ronco_race() -> None:
    """Compile or load the Ronco race kernel (the best-threshold search)."""
    from simcards.core.rng import chunk_state
    from simcards.ronco import best_threshold_batch as bt
    from simcards.ronco.policies import Policy
    from simcards.ronco.rules import RoncoRules

    cfg = bt._config(RoncoRules.make(), 3, 1, Policy(), [Policy(), Policy("informed", 5, 5)])
    bt.race_chunk(chunk_state(0, 0), 4, cfg)


def warm_ronco_exact() -> None:
    """Compile or load the exact round enumerator and the ``bayes`` table builder (S4): one
    three-player round with a bayes seat."""
    from simcards.ronco.policies import Policy
    from simcards.ronco.rounds_exact import exact_round
    from simcards.ronco.rules import RoncoRules

    exact_round(RoncoRules.make(), [Policy(), Policy("bayes"), Policy()])


def warm_ronco_mixed() -> None:
    """Compile or load the mixed-field kernel (the equilibrium search, E5)."""
    from simcards.core.rng import chunk_state
    from simcards.ronco import equilibrium_batch
    from simcards.ronco.policies import Policy
    from simcards.ronco.rules import RoncoRules

    pols = [Policy("threshold", 5, 5), Policy("threshold", 6, 6)]
    cfg = equilibrium_batch.mixed_config(RoncoRules.make(), 3, 1, pols, [0.5, 0.5], pols,
                                         tabulate=True)
    equilibrium_batch.mixed_chunk(chunk_state(0, 0), 4, cfg)
