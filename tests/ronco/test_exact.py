"""The exact round solver against closed forms, against a brute-force enumeration of every
ordered deal by the reference engine, and the Monte Carlo kernel against the exact solver."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from simcards.ronco import reference as ref
from simcards.ronco import rounds_batch
from simcards.ronco.policies import Policy
from simcards.ronco.rules import RoncoRules
from tests.ronco.configs import CONFIGS, Config

MC_ROUNDS = 2_000_000


def _keep_all_closed_form(deck_values: list[int], n: int) -> list[float]:
    """R8 with ties=all when nobody passes or cuts: position i loses when his card is the
    lowest (ties included) of n cards drawn without replacement. Every position alike."""
    total = len(deck_values)
    p = Fraction(0)
    for v in sorted(set(deck_values)):
        here = deck_values.count(v)
        at_least = sum(1 for x in deck_values if x >= v)
        p += Fraction(here, total) * Fraction(comb(at_least - 1, n - 1), comb(total - 1, n - 1))
    return [float(p)] * n


@pytest.mark.parametrize("deck", ["spanish40", "spanish48", "french52"])
@pytest.mark.parametrize("n", [2, 4, 6])
def test_R8_exact_matches_closed_form_when_everybody_keeps(deck: str, n: int) -> None:
    rules = RoncoRules.make(deck=deck)
    res = rounds_batch.exact(rules, [Policy("threshold", 0, 0)] * n)
    expected = _keep_all_closed_form(list(rules.deck_obj.values), n)
    np.testing.assert_allclose(res.p_lose, expected, rtol=0, atol=1e-12)
    assert res.p_cut == 0.0


def test_R9_absolute_tie_closed_form_two_players() -> None:
    """Two keepers tie when both cards share a value: 4 copies of each of 10 values."""
    res = rounds_batch.exact(RoncoRules.make(), [Policy("threshold", 0, 0)] * 2)
    assert res.p_all_tie == pytest.approx(3 / 39, abs=1e-14)


def _brute_force(cfg: Config) -> tuple[np.ndarray, float, np.ndarray]:
    """Every ordered (card, card, cut card) triple for two players, played by the reference."""
    rules = cfg.rules
    cards = ref.deck_cards(rules.deck)
    pols = [ref.RefPolicy(p.kind, p.T, p.Td, p.p) for p in cfg.policies]
    lose = np.zeros(2)
    double = np.zeros(2)
    tie = 0.0
    count = 0
    for a, b, c in itertools.permutations(cards, 3):
        out = ref.play_round([a, b], c, pols, deck=rules.deck, cut_king=rules.cut_king,
                             ties=rules.ties, poroli=rules.poroli)
        lose += out.losers
        double += out.double
        tie += out.absolute_tie
        count += 1
    return lose / count, tie / count, double / count


TWO_PLAYER = [c for c in CONFIGS if len(c.policies) == 2] + [
    Config("poroli-2p-threshold", RoncoRules.make(poroli=True),
           (Policy("threshold", 4, 6), Policy("threshold", 4, 6))),
    Config("french52-2p-blocked-first", RoncoRules.make(deck="french52", cut_king="blocked",
                                                        ties="first"),
           (Policy("informed", 8, 8), Policy("informed", 8, 8))),
]


@pytest.mark.parametrize("cfg", TWO_PLAYER, ids=lambda c: c.name)
def test_exact_matches_reference_enumeration_of_every_ordered_deal(cfg: Config) -> None:
    p_lose, p_tie, p_double = _brute_force(cfg)
    res = rounds_batch.exact(cfg.rules, cfg.policies)
    np.testing.assert_allclose(res.p_lose, p_lose, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.p_double, p_double, rtol=0, atol=1e-12)
    assert res.p_all_tie == pytest.approx(p_tie, abs=1e-12)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.name)
def test_monte_carlo_agrees_with_exact_within_4_standard_errors(cfg: Config) -> None:
    exact = rounds_batch.exact(cfg.rules, cfg.policies)
    mc = rounds_batch.simulate(cfg.rules, cfg.policies, MC_ROUNDS, seed=11, workers=1)
    se = np.sqrt(exact.p_lose * (1 - exact.p_lose) / MC_ROUNDS)
    z = (mc.p_lose - exact.p_lose) / se
    assert np.all(np.abs(z) < 4), f"z-scores {z}"
    for k, p in ((mc.all_tie, exact.p_all_tie), (mc.cut, exact.p_cut)):
        se1 = max(np.sqrt(max(p * (1 - p), 0.0) / MC_ROUNDS), 1 / MC_ROUNDS)
        assert abs(k / MC_ROUNDS - p) < 4 * se1
    if cfg.rules.poroli:
        se2 = np.sqrt(exact.p_double * (1 - exact.p_double) / MC_ROUNDS)
        assert np.all(np.abs(mc.double / MC_ROUNDS - exact.p_double) < 4 * se2 + 1e-12)


def test_exact_refuses_random_policies() -> None:
    from simcards.core.errors import UsageError

    with pytest.raises(UsageError, match="deterministic"):
        rounds_batch.exact(RoncoRules.make(), [Policy("random", p=0.5)] * 3)


@pytest.mark.parametrize("deck", ["spanish40", "french52"])
def test_R6_exact_six_players_dealer_always_cutting_matches_closed_form(deck: str) -> None:
    """Six players on the biggest deck (13 strength classes) and the cut path: everybody keeps
    and the dealer always cuts (Td = top + 1) with no cut-king rule, so his final card is the
    cut card, one more card drawn without replacement, and every position loses with the
    probability of the keep-everything closed form."""
    rules = RoncoRules.make(deck=deck, cut_king="none")
    top = rules.top
    policies = [Policy("threshold", 0, 0)] * 5 + [Policy("threshold", 0, top + 1)]
    res = rounds_batch.exact(rules, policies)
    expected = _keep_all_closed_form(list(rules.deck_obj.values), 6)
    np.testing.assert_allclose(res.p_lose, expected, rtol=0, atol=1e-10)  # sums of 13**7 terms
    assert res.p_cut == pytest.approx(1.0, abs=1e-10)
    assert res.p_cut_king == 0.0
