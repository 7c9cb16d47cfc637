"""Two-player hands with a player's own function (Q11) are played on card values with the cards
kept by id (:mod:`simcards.ronda.user_hands_kernel`); they must be the hand workspace's hands
(:func:`simcards.ronda.play_kernel.play_hand`, whose observation the Python engine checks entry
by entry in ``test_user_policies.py``), bit for bit: the same cards for the built-in seats
(Q2's rank, Q3's lowest card of its value), the same observation for each user seat (the
checksum function plays another card otherwise) and every statistic equal, under the switches
that change what a seat sees (announcements, chains, classic mode, the dealer)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from simcards.core.policyspec import PolicySpec
from simcards.core.rng import chunk_state
from simcards.core.userpolicy import load
from simcards.ronda.hands_batch import (
    named_stats,
    simulate_hands_on_workspace,
    simulate_user_hands,
)
from simcards.ronda.policies import policy_arrays
from simcards.ronda.rules import RondaRules
from simcards.ronda.users import user_seats
from tests.ronda.user_functions import CHECKSUM, write

CASES = [
    ("user,greedy", {}, -1),
    ("random,user", {"announce": "every_deal"}, 1),
    ("user,user", {"mode": "classic"}, -1),
    ("greedy,user", {"derba_chain": "tiers", "announce_conflict": "highest_takes_all"}, 0),
    ("user,random", {"announce": "every_deal", "derba_chain": "tiers"}, -1),
]
HANDS = 300


@pytest.mark.parametrize(("table", "options", "dealer"), CASES,
                         ids=[f"{t}-{'-'.join(o.values()) or 'default'}" for t, o, _ in CASES])
def test_Q11_two_player_hands_on_values_are_the_workspaces_hands(tmp_path, table, options,
                                                                    dealer) -> None:
    checksum = load(write(tmp_path, "checksum.py", CHECKSUM) + ":checksum")
    specs = [PolicySpec("user", (), checksum) if name == "user" else PolicySpec(name, ())
             for name in table.split(",")]
    kr = RondaRules.make(players=2, **options).kernel
    seats = policy_arrays(specs)
    users = [s.user for s in specs]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="First-class function type")
        on_values = named_stats(simulate_user_hands(chunk_state(5, 3), HANDS, dealer, seats, kr,
                                                    user_seats(users, kr)))
        workspace = named_stats(simulate_hands_on_workspace(chunk_state(5, 3), HANDS, dealer,
                                                            seats, kr, user_seats(users, kr)))
    for name, array in workspace.items():
        assert np.array_equal(on_values[name], array), name
    assert on_values["hands"][0] == HANDS
    assert on_values["violations"][0] == 0
