"""Kernels that tests compile and no game's warm-up does (:func:`conftest.pytest_configure`
compiles them beside the games' warm-ups, in a process of their own).

A game's warm-ups are what its commands and cluster workers need before the first chunk; the
kernels here serve commands that few runs use (a searching Römi seat), so the games do not
warm them. In a parallel test run on a cold numba cache, the test that first used one would
compile it on its worker while the other worker ran on alone; compiled here, it is ready
before any test starts, during the minutes in which Ronda's warm-ups keep one core and the
other has finished the smaller games.
"""

from __future__ import annotations


def warm_romi_search() -> None:
    """Compile or load the Römi search kernel (a ``search`` seat, Q7), one round."""
    from simcards.core.rng import chunk_state
    from simcards.romi.policies import policy_arrays
    from simcards.romi.rounds_batch import RoundConfig, rounds_chunk
    from simcards.romi.rules import RomiRules

    rules = RomiRules.make(players=2)
    seats = policy_arrays(["search:1", "greedy"], rules)
    rounds_chunk(chunk_state(0, 0), 1, RoundConfig(rules.kernel, seats, rules.players,
                                                    rules.rounds, -1))


def warm_romi_records() -> None:
    """Compile or load the Römi kernels the engine tests drive turn by turn: a recorded round
    (``record_round``), one turn (``one_turn``) and one searching turn (``one_search_turn``),
    all of :mod:`simcards.romi.records_kernel`."""
    from simcards.romi import codes
    from simcards.romi.records import (
        engine_args,
        play_one_search_turn,
        play_one_turn,
        play_prefix,
    )
    from simcards.romi.rules import RomiRules

    rules = RomiRules.make(players=2)
    rl, kinds, params = engine_args(rules, ["expert", "expert"])
    ws = play_prefix(0, 0, rl, kinds, params, 4)
    play_one_turn(tuple(a.copy() for a in ws), rl, kinds, params, 1)
    me = int(ws[0][codes.S_TURN])
    kinds[me] = codes.POLICY_SEARCH
    params[me] = 1
    play_one_search_turn(ws, rl, kinds, params, 1, 9)


def warm_romi_advise() -> None:
    """Compile or load ``romi advise``'s play-outs (Q10, :mod:`simcards.romi.advise_kernel`):
    one position's plans and one sample of its moves."""
    from simcards.romi import api

    api.advise(hand="7h 8h Qs Qd 2c", table="9h Th Jh; 5s 5d 5c", discard="Qc", opened=True,
               others="14,8", others_opened="no,yes", turn=7, samples=1)


def warm_ronco_race_users() -> None:
    """Compile or load the Ronco race kernel with a field of the user's function (S5, the
    best-threshold tests), and with it the game kernel's user seats: a few short games."""
    from simcards.core.rng import chunk_state
    from simcards.core.userpolicy import UserPolicy
    from simcards.ronco import best_threshold_batch as bt
    from simcards.ronco.policies import Policy
    from simcards.ronco.rules import RoncoRules

    field = Policy("user", user=UserPolicy("warm.py", "keep", "def keep(obs, legal):\n"
                                           "    return 0\n"))
    cfg = bt._config(RoncoRules.make(), 3, 1, field, [Policy(), Policy("informed", 5, 5)])
    bt.race_chunk(chunk_state(0, 0), 4, cfg)
