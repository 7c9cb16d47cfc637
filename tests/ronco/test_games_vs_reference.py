"""The numba game kernel and the independent reference engine, game by game (rules G1-G7).

The reference engine draws its deals from the same stream, in the order the kernel documents
(first dealer, then per round the cards and, with random policies, the uniforms), so both play
exactly the same games and must agree on every winner, ending, game length, lives left and
elimination round.
"""

from __future__ import annotations

import numpy as np
import pytest

from simcards.core.rng import chunk_state
from simcards.core.rng_kernel import randbelow, uniform
from simcards.ronco import reference as ref
from simcards.ronco.game_kernel import ALL_OUT, VOID, WON, detail_games
from simcards.ronco.games_batch import GameConfig
from simcards.ronco.policies import Policy
from simcards.ronco.round_kernel import deal
from simcards.ronco.rules import RoncoRules

GAME_CONFIGS = [
    ("default-4p-3lives", RoncoRules.make(), [Policy()] * 4, 3, None, 600),
    ("replay-3p-2lives-first-dealer", RoncoRules.make(absolute_tie="replay"),
     [Policy("threshold", 6, 6)] * 3, 2, 1, 600),
    ("poroli-5p-informed", RoncoRules.make(poroli=True),
     [Policy("informed", 5, 5)] * 5, 3, None, 300),
    ("mixed-6p-ties-first-blocked", RoncoRules.make(ties="first", cut_king="blocked"),
     [Policy("threshold", 4, 6), Policy("informed", 5, 5), Policy("random", p=0.6),
      Policy("threshold", 7, 3), Policy("informed", 3, 7), Policy("threshold", 5, 5)],
     2, None, 300),
    ("french52-8p-7lives", RoncoRules.make(deck="french52"), [Policy("informed", 6, 6)] * 8,
     7, 3, 100),
    ("2p-1life-random-replay", RoncoRules.make(absolute_tie="replay"),
     [Policy("random", p=0.5), Policy("threshold", 5, 5)], 1, None, 1000),
]


@pytest.mark.parametrize("case", GAME_CONFIGS, ids=lambda c: c[0])
def test_game_kernel_matches_reference_game_by_game(case) -> None:
    _, rules, policies, lives, first_dealer, games = case
    cfg = GameConfig.build(rules, policies, lives, first_dealer)
    out, lives_left, elim = detail_games(chunk_state(5, 0, stream=77), games, *cfg.args())

    state = chunk_state(5, 0, stream=77)
    perm = np.arange(cfg.rules.n_cards)
    deck = rules.deck_obj
    any_random = any(p.kind == "random" for p in policies)

    def next_deal(k: int):
        deal(state, perm, k + 1)
        us = [float(uniform(state)) for _ in range(k)] if any_random else [0.0] * k
        return [deck.card(int(c)) for c in perm[:k]], deck.card(int(perm[k])), us

    ref_pols = [ref.RefPolicy(p.kind, p.T, p.Td, p.p) for p in policies]
    endings = set()
    for g in range(games):
        d0 = first_dealer if first_dealer is not None else int(randbelow(state, cfg.n))
        res = ref.play_game(cfg.n, lives, ref_pols, d0, next_deal, deck=rules.deck,
                            cut_king=rules.cut_king, ties=rules.ties,
                            poroli=rules.poroli, absolute_tie=rules.absolute_tie)
        ending = VOID if res.void else (WON if res.winner is not None else ALL_OUT)
        endings.add(ending)
        expected = (ending, -1 if res.winner is None else res.winner, res.rounds, d0)
        assert tuple(int(x) for x in out[g]) == expected, f"game {g}"
        assert tuple(int(x) for x in lives_left[g]) == res.lives_left, f"game {g}"
        k_elim = tuple(int(x) or None for x in elim[g])
        assert k_elim == res.eliminated_in_round, f"game {g}"
    assert WON in endings
