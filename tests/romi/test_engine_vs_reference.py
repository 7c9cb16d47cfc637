"""Römi: the numba engine and the independent reference engine agree move by move.

Rounds recorded by the engine (``kernel.record_rounds``: deck, dealer, every T8 reshuffle and
the flat list of moves) are replayed through the reference's ``RoundState``: every move must be
legal there (``is_legal``, and on a sample of decisions also a member of ``legal_actions()``),
and the round must end as the engine says: who went out, Römi (G3), never opened (G5), the
stall (T9), the turn count, every score, and the final hands, table, discard pile and stock.
The configurations cover 2 to 5 players, every policy kind and non-default ``open_min`` and
``ace_low_value``. ``pytest --full`` (``make test-full``) replays 10 times as many rounds.
"""

from __future__ import annotations

import pytest

from simcards.core.rng import chunk_state
from simcards.romi import records as K
from simcards.romi import reference as ref
from simcards.romi.rules import RomiRules
from tests import sizes

FULL = sizes.FULL

CONFIGS = [
    ("2p-greedy", {"players": 2}, ["greedy", "greedy"], 40),
    ("3p-greedy-threshold-rummy", {"players": 3}, ["greedy", "threshold:70", "rummy:3"], 30),
    ("4p-mixed", {"players": 4}, ["greedy", "rummy:5", "threshold:60", "greedy"], 30),
    ("5p-greedy", {"players": 5}, ["greedy"] * 5, 20),
    ("4p-open30-acelow10", {"players": 4, "open_min": 30, "ace_low_value": 10},
     ["greedy", "threshold:40", "greedy", "rummy:2"], 20),
    ("4p-expert", {"players": 4}, ["expert", "greedy", "expert", "rummy:4"], 30),
    ("3p-expert-open30", {"players": 3, "open_min": 30}, ["expert", "threshold:40", "greedy"],
     20),
]


def _replay(rules: RomiRules, rec: K.RoundRecord, check_all: bool) -> ref.RoundState:
    state = ref.RoundState(rules, rec.dealer, list(rec.deck),
                           shuffler=ref.ReplayShuffler(rec.stock_orders))
    for k, move in enumerate(rec.moves):
        assert not state.is_over(), (k, move)
        assert state.is_legal(move), (k, move, state.current_player())
        if check_all:
            assert move in state.legal_actions(), (k, move)
        state.apply(move)
    assert state.is_over()
    return state


@pytest.mark.parametrize("name,options,policies,rounds", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_engine_rounds_replay_move_by_move_in_the_reference(name, options, policies,
                                                            rounds) -> None:
    rules = RomiRules.make(**options)
    rl, kinds, params = K.engine_args(rules, policies)
    n_rounds = rounds * (10 if FULL else 1)
    records = K.record_rounds(chunk_state(2026, 0, hash(name) % 1000), n_rounds, rl, kinds,
                              params)
    for i, rec in enumerate(records):
        state = _replay(rules, rec, check_all=i < 2)
        assert tuple(state.scores()) == rec.scores, i
        assert state.went_out == rec.went_out
        assert state.romi == rec.romi
        assert state.stalled == rec.stalled
        assert state.turn == rec.turns
        for p in range(rules.players):
            assert sorted(state.hands[p]) == sorted(rec.hands[p]), (i, p)
        assert list(zip(state.owners, state.table, strict=True)) == list(rec.table), i
        assert state.discards == list(rec.pile) and state.stock == list(rec.stock), i
        assert (-1 if state.cut is None else state.cut) == rec.cut
    assert any(r.went_out >= 0 for r in records)
