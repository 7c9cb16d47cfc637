"""Cluster warm-ups: each compiles (or loads from cache) one Ronda kernel on a tiny batch.

Named in the game's registration, so a dask worker runs them once when it joins, before any
chunk, and no chunk pays for compilation.
"""

from __future__ import annotations

import warnings


def warm_ronda_hands() -> None:
    """Compile or load the Ronda hand kernels: two players, default rules, a few hands on card
    values (random and greedy seats), a few on the workspace (the loop every searching seat
    plays in, and its form with players' own functions, which three and four players take)
    and a few on card values with the cards by id (two players with players' own
    functions)."""
    from simcards.core.rng import chunk_state
    from simcards.ronda.hands_batch import (
        HandConfig,
        hands_chunk,
        simulate_hands_on_workspace,
        simulate_user_hands,
    )
    from simcards.ronda.policies import KINDS
    from simcards.ronda.rules import RondaRules
    from simcards.ronda.users import user_seats

    cfg = HandConfig.build(RondaRules.make(), [KINDS.parse("greedy")] * 2, None)
    hands_chunk(chunk_state(0, 0), 8, cfg)
    simulate_hands_on_workspace(chunk_state(0, 0), 2, cfg.dealer, cfg.seats, cfg.rules)
    # The loop that seats players' own functions (Q11), with spare slots: compiled once for
    # every function, so a new one costs only its own compilation.
    with warnings.catch_warnings():  # numba calls first-class functions experimental
        warnings.filterwarnings("ignore", message="First-class function type")
        simulate_hands_on_workspace(chunk_state(0, 0), 2, cfg.dealer, cfg.seats, cfg.rules,
                                    user_seats([None, None], cfg.rules))
        simulate_user_hands(chunk_state(0, 0), 2, cfg.dealer, cfg.seats, cfg.rules,
                            user_seats([None, None], cfg.rules))


def warm_ronda_matches() -> None:
    """Compile or load the Ronda match kernel: two players, default rules, a few matches."""
    from simcards.core.rng import chunk_state
    from simcards.ronda.matches_batch import MatchConfig, matches_chunk
    from simcards.ronda.policies import KINDS
    from simcards.ronda.rules import RondaRules

    cfg = MatchConfig.build(RondaRules.make(), [KINDS.parse("greedy")] * 2, None)
    matches_chunk(chunk_state(0, 0), 4, cfg)


def warm_ronda_duplicate() -> None:
    """Compile or load the Ronda duplicate kernel (the compare command): a few deal sets."""
    from simcards.core.rng import chunk_state
    from simcards.ronda.compare_batch import DuplicateConfig, duplicate_chunk
    from simcards.ronda.policies import KINDS
    from simcards.ronda.rules import RondaRules

    greedy = KINDS.parse("greedy")
    cfg = DuplicateConfig.build(RondaRules.make(), greedy, greedy, None)
    duplicate_chunk(chunk_state(0, 0), 2, cfg)
