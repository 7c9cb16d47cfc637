"""Rules of ``seeds/ronco.md`` checked on their own, each test named after its id: the deck's top
rank (C3), the table (T1-T3), public information (R11), the Poroli preset (P1) and the random
first dealer (G4). Each compares the fast code (kernel, exact solver, Monte Carlo) with values
worked out here or with the reference engine given its own arguments."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from simcards.core.cli import main
from simcards.core.errors import UsageError
from simcards.core.rng import chunk_state
from simcards.ronco import games_batch, rounds_batch
from simcards.ronco import reference as ref
from simcards.ronco.games_exact import exact_game
from simcards.ronco.policies import Policy
from simcards.ronco.round_kernel import CUT, record_deals, replay_rounds
from simcards.ronco.rounds_batch import KernelConfig
from simcards.ronco.rules import RoncoRules, check_players

OROS, C, E, B = "oros", "copas", "espadas", "bastos"


def _kernel_round(rules: RoncoRules, policies: list[Policy], cards: list[tuple[int, str]],
                  cut: tuple[int, str]) -> tuple[list[int], list[int], int]:
    """One hand-dealt round through the kernel: lives lost and final strengths by position,
    and the flags."""
    deck = rules.deck_obj
    idx = np.array([[deck.find(v, s) for v, s in [*cards, cut]]], np.int64)
    kc = KernelConfig.build(rules, policies)
    lost, flags, finals = replay_rounds(idx, np.zeros((1, kc.n)), *kc.args())
    return [int(x) for x in lost[0]], [int(x) for x in finals[0]], int(flags[0])


def _ref_round(policies: list[Policy], cards, cut, **options) -> ref.RoundOutcome:
    pols = [ref.RefPolicy(p.kind, p.T, p.Td) for p in policies]
    return ref.play_round(cards, cut, pols, **options)


# ---------------------------------------------------------------- C3


@pytest.mark.parametrize(("deck", "top"), [("spanish40", 12), ("spanish48", 12),
                                           ("french52", 13)])
def test_C3_top_rank_is_the_highest_value_of_the_deck(deck: str, top: int) -> None:
    rules = RoncoRules.make(deck=deck)
    assert rules.top == top == ref.top_rank(deck)
    assert rules.kernel.top == top
    assert max(rules.deck_obj.values) == top


def test_C3_only_the_top_rank_blocks_a_swap_in_french52() -> None:
    """In french52 the Q (12, Rey's value in Spanish decks) does not refuse; the K (13) does."""
    rules = RoncoRules.make(deck="french52", cut_king="none")
    pols = [Policy("threshold", 14, 14), Policy("threshold", 0, 0)]  # pass, then keep
    for holder, swapped in ((12, True), (13, False)):
        cards = [(1, "spades"), (holder, "hearts")]
        cut = (5, "clubs")
        lost, finals, _ = _kernel_round(rules, pols, cards, cut)
        out = _ref_round(pols, cards, cut, deck="french52", cut_king="none")
        expected = [holder, 1] if swapped else [1, holder]
        assert finals == expected == [c[0] for c in out.final_cards]
        assert lost == [int(x) for x in out.losers] == ([0, 1] if swapped else [1, 0])


# ---------------------------------------------------------------- T1


def test_T1_two_to_twenty_players() -> None:
    assert check_players(2) == 2 and check_players(20) == 20
    for bad in (1, 21):
        with pytest.raises(UsageError, match="between 2 and 20"):
            check_players(bad)
        with pytest.raises(ValueError, match="T1"):
            ref.play_round([(1, OROS)] * bad, (2, OROS), [ref.RefPolicy("threshold")] * bad)
    assert main(["ronco", "rounds", "--players", "21"]) == 2
    assert main(["ronco", "rounds", "--players", "1"]) == 2


def test_T1_twenty_keepers_lose_as_the_closed_form_says() -> None:
    """20 players keep their cards: position i loses when his card is the lowest of 20 drawn
    from 40 (ties included); 21 cards are dealt (the cut card), so the deck suffices."""
    values = list(RoncoRules.make().deck_obj.values)
    p = Fraction(0)
    for v in sorted(set(values)):  # P(my card is v) * P(the 19 others are all >= v)
        at_least = sum(1 for x in values if x >= v)
        ways, total = Fraction(1), Fraction(1)
        for k in range(19):
            ways *= at_least - 1 - k
            total *= 39 - k
        p += Fraction(values.count(v), 40) * ways / total
    rules = RoncoRules.make()
    keep = [Policy("threshold", 0, 0)] * 20
    n = 200_000
    mc = rounds_batch.simulate(rules, keep, n, seed=5, workers=1)
    se = np.sqrt(float(p) * (1 - float(p)) / n)
    assert np.all(np.abs(mc.p_lose - float(p)) < 4 * se), (mc.p_lose, float(p))
    assert mc.cut == 0


# ---------------------------------------------------------------- T2, T3


def test_T2_position_0_acts_first_and_passes_to_position_1_the_dealer_acts_last() -> None:
    """Three positions; 0 passes to 1 (not to the dealer); 1 passes the card he got on to the
    dealer, who then cuts because he now holds the ace."""
    rules = RoncoRules.make(cut_king="none")
    pols = [Policy("threshold", 13, 13), Policy("threshold", 13, 13),
            Policy("threshold", 0, 2)]
    cards = [(1, OROS), (5, C), (7, E)]
    cut = (3, B)
    lost, finals, flags = _kernel_round(rules, pols, cards, cut)
    out = _ref_round(pols, cards, cut, cut_king="none")
    # 0 <-> 1: [5, 1, 7]; 1 <-> dealer: [5, 7, 1]; the dealer cuts the 3: [5, 7, 3].
    assert finals == [5, 7, 3] == [c[0] for c in out.final_cards]
    assert lost == [0, 0, 1] == [int(x) for x in out.losers]
    assert flags & CUT and out.dealer_cut


def test_T3_positions_get_the_first_n_cards_and_the_next_is_the_cut_card() -> None:
    """The kernel's deals: n + 1 distinct cards per round, every card equally likely at every
    place (positions and cut card alike), and the (n+1)-th is the one a cutting dealer takes."""
    rules = RoncoRules.make(cut_king="none")
    n, deals = 3, 40_000
    kc = KernelConfig.build(rules, [Policy("threshold", 0, 13)] * n)  # the dealer always cuts
    cards, us = record_deals(chunk_state(4, 0), deals, n, kc.policies.kind, kc.rules.n_cards)
    assert all(len(set(row)) == n + 1 for row in cards[:2000].tolist())
    expected = deals / 40
    for place in range(n + 1):
        counts = np.bincount(cards[:, place], minlength=40)
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        assert chi2 < 39 + 4 * np.sqrt(2 * 39), (place, chi2)  # 39 degrees of freedom
    _, _, finals = replay_rounds(cards[:1000], us[:1000], *kc.args())
    strengths = rules.strengths
    np.testing.assert_array_equal(finals[:, :n - 1], strengths[cards[:1000, :n - 1]])
    np.testing.assert_array_equal(finals[:, n - 1], strengths[cards[:1000, n]])


# ---------------------------------------------------------------- R11


def test_R11_only_the_two_players_of_a_swap_learn_its_cards() -> None:
    """Four informed players (T = Td = 13: by threshold alone everybody passes or cuts).
    Position 0 passes his 5 and takes the ace; position 1, now holding the 5, saw the swap and
    knows the ace is below him: he keeps (S2a). Position 2 holds a 7, also above that ace, but
    did not see the swap: he knows nothing better than his threshold and passes."""
    rules = RoncoRules.make(cut_king="none")
    pols = [Policy("threshold", 6, 6), Policy("informed", 13, 13), Policy("informed", 13, 13),
            Policy("informed", 13, 13)]
    cards = [(5, OROS), (1, C), (7, E), (10, B)]
    cut = (3, OROS)
    lost, finals, _ = _kernel_round(rules, pols, cards, cut)
    out = _ref_round(pols, cards, cut, cut_king="none")
    # 0 <-> 1: [1, 5, 7, 10]; 1 keeps; 2 <-> dealer: [1, 5, 10, 7]; the dealer, who did not
    # receive a lower card, cuts the 3.
    assert finals == [1, 5, 10, 3] == [c[0] for c in out.final_cards]
    assert lost == [1, 0, 0, 0] == [int(x) for x in out.losers]


# ---------------------------------------------------------------- P1


def _poroli_by_hand(cut_king: str = "none") -> RoncoRules:
    """C4 + R10 with no cut-king rule, built field by field (not through ``make``)."""
    return RoncoRules(deck="spanish40", cut_king=cut_king, ties="all", poroli=True,
                      absolute_tie="void")


def test_P1_preset_is_poroli_card_double_loss_and_no_cut_king_rule() -> None:
    assert RoncoRules.make(poroli=True) == _poroli_by_hand()
    assert RoncoRules.make(poroli=True, cut_king="loses") == _poroli_by_hand("loses")
    assert RoncoRules.make().cut_king == "loses" and not RoncoRules.make().poroli
    poroli = _poroli_by_hand().strengths
    assert poroli[RoncoRules.make().deck_obj.find(1, B)] == 0  # C4: the As de bastos
    assert sorted(poroli.tolist()) == [0, 1, 1, 1, *sorted([2, 3, 4, 5, 6, 7, 10, 11, 12] * 4)]


def test_P1_two_keepers_exact_probabilities_match_a_hand_count_and_the_reference(
        capsys) -> None:
    """Both keep. Strengths: the Poroli 0 (1 card), the other aces 1 (3), then 4 of each value.
    Position 0 loses when his strength is at most the other's; he loses double exactly when
    he holds the Poroli (1/40); an absolute tie needs equal strengths: (3*2 + 9*4*3) / (40*39),
    not 3/39 as without Poroli."""
    counts = {0: 1, 1: 3, **{v: 4 for v in (2, 3, 4, 5, 6, 7, 10, 11, 12)}}
    p_lose = sum(Fraction(c, 40) * Fraction(sum(k for w, k in counts.items() if w >= v) - 1, 39)
                 for v, c in counts.items())
    p_tie = Fraction(sum(c * (c - 1) for c in counts.values()), 40 * 39)
    assert p_tie == Fraction(114, 1560)

    keep = [Policy("threshold", 0, 0)] * 2
    ex = rounds_batch.exact(_poroli_by_hand(), keep)
    np.testing.assert_allclose(ex.p_lose, [float(p_lose)] * 2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ex.p_double, [1 / 40] * 2, rtol=0, atol=1e-12)
    assert ex.p_all_tie == pytest.approx(float(p_tie), abs=1e-12)

    # The reference engine, told the Poroli rules by its own arguments, on every ordered pair.
    cards = ref.deck_cards("spanish40")
    lose = double = tie = 0
    for a in cards:
        for b in cards:
            if a == b:
                continue
            cut = next(c for c in cards if c not in (a, b))
            out = ref.play_round([a, b], cut, [ref.RefPolicy("threshold")] * 2,
                                 deck="spanish40", cut_king="none", ties="all", poroli=True)
            lose += out.losers[0]
            double += out.double[0]
            tie += out.absolute_tie
    assert (Fraction(lose, 1560), Fraction(double, 1560), Fraction(tie, 1560)) == \
        (p_lose, Fraction(1, 40), p_tie)

    # The command line's --poroli gives the same numbers, and honours an explicit --cut-king.
    capsys.readouterr()
    base = ["ronco", "exact", "--players", "2", "--policy", "threshold", "--threshold", "0",
            "--dealer-threshold", "0", "--json", "--poroli"]
    assert main(base) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules"]["cut_king"] == "none" and out["rules"]["poroli"] is True
    assert out["p_double"][0] == pytest.approx(1 / 40, abs=1e-12)
    assert main([*base, "--cut-king", "loses"]) == 0
    assert json.loads(capsys.readouterr().out)["rules"]["cut_king"] == "loses"


def test_P1_a_cut_rey_is_an_ordinary_card_and_the_poroli_holder_loses_twice() -> None:
    """Position 0 keeps the As de bastos; the dealer cuts a Rey. Under Poroli (no cut-king
    rule) the Rey is just a high card: position 0 loses two lives. Under plain Ronco the
    dealer would be the sole loser."""
    pols = [Policy("threshold", 0, 0), Policy("threshold", 0, 13)]
    cards, cut = [(1, B), (3, C)], (12, OROS)
    lost, finals, _ = _kernel_round(_poroli_by_hand(), pols, cards, cut)
    out = _ref_round(pols, cards, cut, cut_king="none", poroli=True)
    assert finals == [0, 12] == [ref.strength(c, poroli=True) for c in out.final_cards]
    assert lost == [2, 0] and out.losers == (True, False) and out.double == (True, False)
    plain, _, _ = _kernel_round(RoncoRules.make(), pols, cards, cut)
    assert plain == [0, 1]


# ---------------------------------------------------------------- G4


def test_G4_first_dealer_is_drawn_uniformly() -> None:
    """Three players with the same policy and one life: the first dealer decides a lot (player
    0 wins 0.285, 0.457 or 0.258 with dealer 0, 1 or 2, from the exact chain), so each
    player's Monte Carlo win rate is 1/3 only if the first dealer is uniform. Tolerance: 4
    binomial standard errors."""
    rules = RoncoRules.make(absolute_tie="replay")
    pols = [Policy("threshold", 6, 0)] * 3
    by_dealer = np.array([exact_game(rules, pols, 1, first_dealer=d).win for d in range(3)])
    assert np.ptp(by_dealer[:, 0]) > 0.15
    np.testing.assert_allclose(by_dealer.mean(axis=0), [1 / 3] * 3, rtol=0, atol=1e-12)
    n = 200_000
    mc = games_batch.simulate(rules, pols, 1, n, seed=17, workers=1)
    se = np.sqrt(by_dealer.mean(axis=0) * (1 - by_dealer.mean(axis=0)) / n)
    assert np.all(np.abs(mc.win_rate - 1 / 3) < 4 * se), mc.win_rate
    fixed = games_batch.simulate(rules, pols, 1, n, first_dealer=1, seed=17, workers=1)
    se1 = np.sqrt(by_dealer[1] * (1 - by_dealer[1]) / n)
    assert np.all(np.abs(fixed.win_rate - by_dealer[1]) < 4 * se1), fixed.win_rate
