"""The numba round kernel and the independent pure-Python reference engine, deal by deal.

Both play the very same 10,000 deals (cards, cut card and, for random policies, the uniforms)
per configuration and must agree on every loser, every double loss (R10), every absolute tie
(R9), every cut and every final card.
"""

from __future__ import annotations

import numpy as np
import pytest

from simcards.core.rng import chunk_state
from simcards.ronco import reference as ref
from simcards.ronco.round_kernel import ALL_TIE, CUT, CUT_KING_FIRED, record_deals, replay_rounds
from simcards.ronco.rounds_batch import KernelConfig
from tests.ronco.configs import CONFIGS, RANDOM_CONFIGS, Config

DEALS = 10_000


def _ref_policy(p):
    return ref.RefPolicy(kind=p.kind, T=p.T, Td=p.Td, p=p.p)


@pytest.mark.parametrize("cfg", CONFIGS + RANDOM_CONFIGS, ids=lambda c: c.name)
def test_kernel_matches_reference_on_every_deal(cfg: Config) -> None:
    rules = cfg.rules
    kc = KernelConfig.build(rules, cfg.policies)
    n = kc.n
    cards, us = record_deals(chunk_state(7, 0, stream=99), DEALS, n, kc.policies.kind,
                             kc.rules.n_cards)
    lost, flags, finals = replay_rounds(cards, us, *kc.args())
    deck = rules.deck_obj
    policies = [_ref_policy(p) for p in cfg.policies]
    mismatches = []
    for r in range(DEALS):
        out = ref.play_round(
            [deck.card(int(c)) for c in cards[r, :n]], deck.card(int(cards[r, n])), policies,
            deck=rules.deck, cut_king=rules.cut_king, ties=rules.ties,
            poroli=rules.poroli, uniforms=[float(x) for x in us[r]],
        )
        k_losers = tuple(bool(x) for x in lost[r] > 0)
        k_double = tuple(bool(x) for x in lost[r] == 2)
        k_final = tuple(int(x) for x in finals[r])
        r_final = tuple(ref.strength(c, poroli=rules.poroli) for c in out.final_cards)
        same = (
            k_losers == out.losers
            and k_double == out.double
            and bool(flags[r] & ALL_TIE) == out.absolute_tie
            and bool(flags[r] & CUT) == out.dealer_cut
            and bool(flags[r] & CUT_KING_FIRED) == out.cut_king_fired
            and k_final == r_final
        )
        if not same:
            mismatches.append(r)
    assert mismatches == [], f"{len(mismatches)} deals differ, first {mismatches[:5]}"
    # The deals must exercise the rules, not just agree on trivia.
    assert np.any(flags & CUT)
    assert np.all(lost.sum(axis=1) >= 1)  # every round has a loser


@pytest.mark.parametrize("cfg", CONFIGS + RANDOM_CONFIGS, ids=lambda c: c.name)
def test_monte_carlo_loop_plays_exactly_the_recorded_deals(cfg: Config) -> None:
    """``simulate_rounds`` (with its fused all-threshold path) and ``record_deals`` +
    ``replay_rounds`` (the path checked against the reference above) read the same stream the
    same way: their tallies over the same 10,000 deals are identical."""
    from simcards.ronco.round_kernel import simulate_rounds

    kc = KernelConfig.build(cfg.rules, cfg.policies)
    n = kc.n
    lost_mc, double_mc, tallies = simulate_rounds(chunk_state(7, 0, stream=99), DEALS,
                                                  *kc.args(), None)
    cards, us = record_deals(chunk_state(7, 0, stream=99), DEALS, n, kc.policies.kind,
                             kc.rules.n_cards)
    lost, flags, _ = replay_rounds(cards, us, *kc.args())
    np.testing.assert_array_equal(lost_mc, (lost > 0).sum(axis=0))
    np.testing.assert_array_equal(double_mc, (lost == 2).sum(axis=0))
    assert tallies.tolist() == [int(np.sum((flags & ALL_TIE) != 0)),
                                int(np.sum((flags & CUT) != 0)),
                                int(np.sum((flags & CUT_KING_FIRED) != 0))]
