"""Cluster warm-ups: compile (or load from cache) Römi's round kernel on a tiny batch, once per
dask worker before any chunk, so that no chunk pays for compilation."""

from __future__ import annotations


def warm_romi_rounds() -> None:
    """Compile or load the Römi round kernel: four greedy players, default rules, two rounds."""
    from simcards.core.rng import chunk_state
    from simcards.romi.kernel import engine_args
    from simcards.romi.rounds import RoundConfig, rounds_chunk
    from simcards.romi.rules import RomiRules

    rules = RomiRules.make()
    rl, kinds, params = engine_args(rules, ["greedy"] * rules.players)
    rounds_chunk(chunk_state(0, 0), 2, RoundConfig(rl, kinds, params, rules.players,
                                                    rules.rounds, -1))
