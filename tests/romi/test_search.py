"""Römi's searching seats (Q7 ``search:N``, Q8 ``seeing:N``, ``search_kernel``).

- The search kernel's driver plays a table without searching seats exactly as the round kernel
  does (same chance, same per-round arrays), so a table with one gets the same decks.
- I3: exchanging the hidden cards leaves every decision of ``search`` unchanged (the same
  samples, because a sample is made from which cards are unseen, not where they lie); ``seeing``
  is caught by the same check (it reads the hidden cards, Q8).
- Q7: a searching seat that finds no better candidate plays ``expert``'s turn: with one
  play-out per candidate on a position where every candidate scores the same (the player goes
  out in that turn), its moves are ``expert``'s.
- Q7's dropping: the margin test itself, and a search that drops clearly worse candidates plays
  the turns of one that weighs every candidate on every sample.
- Reproducible: the same seed gives the same rounds, whatever the chunking of the run.
- The commands take ``search`` and ``seeing``; the table environments refuse them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from simcards.core.errors import UsageError
from simcards.core.rng import chunk_state
from simcards.romi import codes
from simcards.romi import round_kernel as E
from simcards.romi import search_kernel as S
from simcards.romi.kernel_state import Seats
from simcards.romi.records import engine_args, play_one_search_turn, play_one_turn, play_prefix
from simcards.romi.rules import RomiRules

from .test_engine import hidden_exchange


def test_Q7_driver_plays_an_engine_only_table_as_the_round_kernel() -> None:
    rules = RomiRules.make(players=3)
    rl, kinds, params = engine_args(rules, ["expert", "greedy", "rummy:2"])
    seats = Seats(kinds, params)
    a = E.simulate_rounds(chunk_state(5, 0), 6, rl, seats, -1)
    b = S.simulate_rounds(chunk_state(5, 0), 6, rl, seats, -1)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)


def _positions(n: int):
    """Positions of rounds between expert seats, the player to move about to draw."""
    rules = RomiRules.make(players=n)
    rl, kinds, params = engine_args(rules, ["expert"] * n)
    for seed in range(6):
        for turns in (4, 11, 19):
            ws = play_prefix(seed, seed % n, rl, kinds, params, turns)
            if ws[0][codes.S_OUT] < 0:
                yield rl, ws


def _searching(n: int, me: int, kind: int, samples: int) -> tuple[np.ndarray, np.ndarray]:
    kinds = np.full(n, codes.POLICY_EXPERT, np.int64)
    params = np.zeros(n, np.int64)
    kinds[me] = kind
    params[me] = samples
    return kinds, params


@pytest.mark.parametrize("n", [2, 4])
def test_I3_search_decisions_ignore_where_the_hidden_cards_lie(n: int) -> None:
    rng = np.random.default_rng(11)
    checked = 0
    for rl, ws in _positions(n):
        me = int(ws[0][codes.S_TURN])
        kinds, params = _searching(n, me, codes.POLICY_SEARCH, 2)
        base = play_one_search_turn(tuple(a.copy() for a in ws), rl, kinds, params, 1, 9)
        other = play_one_search_turn(hidden_exchange(ws, me, rng, True), rl, kinds, params, 1, 9)
        assert other[1] == base[1]
        drawn = play_one_search_turn(hidden_exchange(ws, me, rng, False), rl, kinds, params, 1,
                                     9)
        assert drawn[1][:1] == base[1][:1]
        checked += 1
    assert checked >= 10


def test_I3_check_catches_seeing_which_reads_the_hidden_cards() -> None:
    """Q8 breaks I3 on purpose: the same check finds decisions that move with the hidden
    cards."""
    rng = np.random.default_rng(11)
    moved = 0
    for rl, ws in _positions(2):
        me = int(ws[0][codes.S_TURN])
        kinds, params = _searching(2, me, codes.POLICY_SEEING, 1)
        base = play_one_search_turn(tuple(a.copy() for a in ws), rl, kinds, params, 1, 9)
        for _ in range(2):
            other = play_one_search_turn(hidden_exchange(ws, me, rng, True), rl, kinds, params,
                                         1, 9)
            moved += other[1] != base[1]
    assert moved > 0


def test_Q7_search_plays_expert_where_no_candidate_is_better() -> None:
    """A seat that goes out by expert's plan has no other candidate: search plays that turn
    move for move as expert does."""
    rules = RomiRules.make(players=2)
    rl, kinds, params = engine_args(rules, ["expert", "expert"])
    found = 0
    for seed in range(40):
        ws = play_prefix(seed, 0, rl, kinds, params, 200)
        turns = int(ws[0][codes.S_TURNS])
        if ws[0][codes.S_OUT] < 0 or turns < 2:
            continue
        before = play_prefix(seed, 0, rl, kinds, params, turns - 1)
        me = int(before[0][codes.S_TURN])
        sk, sp = _searching(2, me, codes.POLICY_SEARCH, 1)
        expert = play_one_turn(tuple(a.copy() for a in before), rl, kinds, params, 1)
        search = play_one_search_turn(tuple(a.copy() for a in before), rl, sk, sp, 1, 3)
        assert expert[0] == 1
        assert search[0] == 1 and search[1] == expert[1]
        found += 1
    assert found >= 10


def test_Q7_dropping_margin_is_a_mean_z_standard_errors_below_zero() -> None:
    # gains -1 and -3: mean -2, standard error 1
    assert S.below(-4.0, 10.0, 2, 1.0)
    assert S.below(-4.0, 10.0, 2, 1.99)
    assert not S.below(-4.0, 10.0, 2, 2.0)  # exactly 0 is not below it
    assert not S.below(-4.0, 10.0, 2, math.inf)
    assert S.below(-10.0, 50.0, 2, 3.0)  # -5 twice: no spread, below 0 at any finite margin
    assert not S.below(0.0, 2.0, 2, 0.0)  # +1 and -1: mean 0


@pytest.mark.parametrize("n", [2, 4])
def test_Q7_dropping_plays_the_turns_of_the_full_search(n: int) -> None:
    """Dropping changed one decision in 1,232 measured (``search_kernel.DROP_Z``): on these
    positions the turn is the same with it and without it."""
    positions = same = 0
    for rl, ws in _positions(n):
        me = int(ws[0][codes.S_TURN])
        kinds, params = _searching(n, me, codes.POLICY_SEARCH, 8)
        dropping = play_one_search_turn(tuple(a.copy() for a in ws), rl, kinds, params, 1, 5)
        full = play_one_search_turn(tuple(a.copy() for a in ws), rl, kinds, params, 1, 5,
                                    math.inf)
        positions += 1
        same += dropping[1] == full[1]
    assert positions >= 10
    assert same >= positions - 1


def test_Q7_same_seed_same_rounds_whatever_the_workers() -> None:
    from simcards.romi import api

    a = api.rounds(players=2, policies="search:1,expert", rounds=4, seed=3, workers=1)
    b = api.rounds(players=2, policies="search:1,expert", rounds=4, seed=3, workers=2)
    assert a.data == b.data


def test_Q8_table_environments_and_records_refuse_the_searching_seats() -> None:
    from simcards.romi.policies import KINDS, check_table_seat

    for text, word in (("seeing:4", "sees hidden cards"), ("search:4", "rounds, games")):
        with pytest.raises(UsageError, match=word):
            check_table_seat(KINDS.parse(text, {"open_min": 51}))
        with pytest.raises(UsageError, match="search and seeing play in rounds"):
            engine_args(RomiRules.make(players=2), [text, "expert"])
