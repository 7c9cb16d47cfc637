"""Cluster warm-ups: compile (or load from cache) Römi's round kernel on a tiny batch, once per
dask worker before any chunk, so that no chunk pays for compilation."""

from __future__ import annotations

import random


def warm_romi_rounds() -> None:
    """Compile or load the Römi round kernel: four greedy players, default rules, two rounds."""
    from simcards.core.rng import chunk_state
    from simcards.romi.policies import policy_arrays
    from simcards.romi.rounds_batch import RoundConfig, rounds_chunk
    from simcards.romi.rules import RomiRules

    rules = RomiRules.make()
    seats = policy_arrays(["greedy"] * rules.players, rules)
    rounds_chunk(chunk_state(0, 0), 2, RoundConfig(rules.kernel, seats, rules.players,
                                                    rules.rounds, -1))


def warm_romi_compare() -> None:
    """Compile or load the Römi compare kernel (paired deal sets) with an ``expert`` seat,
    which brings in the meld search of its discard."""
    from simcards.core.rng import chunk_state
    from simcards.romi import api
    from simcards.romi import compare_batch as RC
    from simcards.romi.policies import KINDS
    from simcards.romi.rules import RomiRules

    rules = RomiRules.make(players=2)
    a = KINDS.parse("expert", {"open_min": rules.open_min})
    b = KINDS.parse("greedy", {"open_min": rules.open_min})
    RC.compare_chunk(chunk_state(0, 0), 1, api.config_for(rules, a, b, None))


def warm_romi_games() -> None:
    """Compile or load the Römi game kernel (whole games of rounds)."""
    from simcards.core.rng import chunk_state
    from simcards.romi.policies import policy_arrays
    from simcards.romi.rounds_batch import RoundConfig, games_chunk
    from simcards.romi.rules import RomiRules

    rules = RomiRules.make(players=2)
    seats = policy_arrays(["greedy"] * rules.players, rules)
    games_chunk(chunk_state(0, 0), 1, RoundConfig(rules.kernel, seats, rules.players,
                                                  rules.rounds, -1))


def warm_romi_questions() -> None:
    """Compile or load the kernel of the ``romi-questions`` study (rounds with per-round
    records and the joker exchange), so that the report does not compile it mid-study."""
    from simcards.core.rng import chunk_state
    from simcards.romi.policies import policy_arrays
    from simcards.romi.question_kernel import question_rounds
    from simcards.romi.rules import RomiRules

    rules = RomiRules.make()
    question_rounds(chunk_state(0, 0), 2, rules.kernel,
                    policy_arrays(["greedy"] * rules.players, rules), 0)


def warm_romi_table() -> None:
    """Compile or load the table engine's legal-move kernels (:mod:`simcards.romi.table_legal`),
    on which the environments, the ``random`` seats and the user policies play: a turn search,
    the melds of a hand and the legal paths after a draw (:mod:`simcards.romi.table_paths`);
    and its observation kernel, on a two-player round's layout."""
    from simcards.romi import reference as ref
    from simcards.romi import table_legal, table_paths
    from simcards.romi.actions import Discard, DrawStock, Meld
    from simcards.romi.rules import RomiRules
    from simcards.romi.table import ROUND

    state = ROUND.new_state(ROUND.setup({"players": 2}))
    state.deal(random.Random(0))
    state.observation(0)

    rules = RomiRules.make()
    table = (Meld((0, 1, 2)),)
    table_legal.can_finish(rules, True, None, True, (3, 16, 29, 42), table, True, frozenset())
    table_legal._melds_of((3, 16, 29, 104))
    r = ref.RoundState(rules, 0, range(108))
    r.apply(Discard(r.hands[r.player][0]))
    r.apply(DrawStock())
    table_paths._kernel_paths(r, True)
