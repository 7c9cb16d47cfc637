"""Rule-by-rule tests of the pure-Python Ronco reference engine.

Every expected value below was worked out by hand from ``seeds/ronco.md``;
each test names the rule id it checks. Cards are ``(value, suit)``.
"""

from __future__ import annotations

import pytest

from simcards.ronco.reference import (
    GameOutcome,
    RefPolicy,
    RoundOutcome,
    deck_cards,
    play_game,
    play_round,
    strength,
)

OROS, C, E, B = "oros", "copas", "espadas", "bastos"

# Spanish decks: top rank 12, so thresholds range 0..13.
KEEP = RefPolicy("threshold", T=0, Td=0)  # S1: 0 always keeps
PASS = RefPolicy("threshold", T=13, Td=13)  # S1: top+1 always passes / cuts


def thr(T: int = 0, Td: int = 0) -> RefPolicy:
    return RefPolicy("threshold", T=T, Td=Td)


def inf(T: int = 0, Td: int = 0) -> RefPolicy:
    return RefPolicy("informed", T=T, Td=Td)


def rnd(p: float) -> RefPolicy:
    return RefPolicy("random", p=p)


def scripted(deals):
    """A next_deal that returns the given (expected_k, dealt, cut, uniforms) in turn."""
    it = iter(deals)
    seen = []

    def next_deal(k):
        expected_k, dealt, cut, uniforms = next(it)
        assert k == expected_k
        seen.append(k)
        return dealt, cut, uniforms

    next_deal.seen = seen
    return next_deal


# ---------------------------------------------------------------- cards


def test_C1_deck_sizes_and_values():
    d40, d48, d52 = deck_cards("spanish40"), deck_cards("spanish48"), deck_cards("french52")
    assert len(d40) == 40 and len(set(d40)) == 40
    assert len(d48) == 48 and len(set(d48)) == 48
    assert len(d52) == 52 and len(set(d52)) == 52
    assert sorted({v for v, _ in d40}) == [1, 2, 3, 4, 5, 6, 7, 10, 11, 12]
    assert sorted({v for v, _ in d48}) == list(range(1, 13))
    assert sorted({v for v, _ in d52}) == list(range(1, 14))
    assert {s for _, s in d40} == {OROS, C, E, B}
    assert {s for _, s in d52} == {"spades", "hearts", "diamonds", "clubs"}


def test_C1_unknown_deck_raises():
    with pytest.raises(ValueError):
        deck_cards("tarot78")


def test_C2_strength_is_value_suits_do_not_rank():
    assert strength((7, OROS), poroli=False) == 7
    assert strength((7, B), poroli=False) == 7
    assert strength((12, C), poroli=False) == 12
    assert strength((13, "hearts"), poroli=False) == 13
    assert strength((1, B), poroli=False) == 1  # no Poroli: an ordinary ace


def test_C4_poroli_card_has_strength_zero():
    assert strength((1, B), poroli=True) == 0
    assert strength((1, "clubs"), poroli=True) == 0
    # the other aces stay at 1
    assert strength((1, OROS), poroli=True) == 1
    assert strength((1, "spades"), poroli=True) == 1
    assert strength((5, B), poroli=True) == 5


def test_C4_poroli_below_the_other_aces_in_a_round():
    out = play_round([(1, OROS), (1, B), (3, E)], (5, C), [KEEP] * 3, poroli=True, cut_king="none")
    assert out.losers == (False, True, False)
    out = play_round([(1, OROS), (1, B), (3, E)], (5, C), [KEEP] * 3, poroli=False, cut_king="none")
    assert out.losers == (True, True, False)  # no Poroli: the two aces tie (R8 all)


# ---------------------------------------------------------------- a round


def test_R1_R2_all_keep_nothing_moves():
    dealt = [(2, OROS), (5, C), (7, E)]
    out = play_round(dealt, (3, B), [KEEP] * 3)
    assert out == RoundOutcome(
        losers=(True, False, False),
        double=(False, False, False),
        absolute_tie=False,
        final_cards=((2, OROS), (5, C), (7, E)),
        dealer_cut=False,
        cut_king_fired=False,
    )


def test_R3_swap_exchanges_cards():
    out = play_round([(2, OROS), (5, C), (7, E)], (3, B), [PASS, KEEP, KEEP])
    assert out.final_cards == ((5, C), (2, OROS), (7, E))
    assert out.losers == (False, True, False)


def test_R3_next_position_acts_with_the_passers_former_card():
    # Position 1 (T=3) would keep his dealt 5, but acts with the 2 he received: passes.
    out = play_round([(2, OROS), (5, C), (7, E)], (3, B), [PASS, thr(T=3), KEEP])
    assert out.final_cards == ((5, C), (7, E), (2, OROS))
    assert out.losers == (False, False, True)


def test_R4_refusal_keeps_passer_card():
    out = play_round([(2, OROS), (12, C), (7, E)], (3, B), [PASS, KEEP, KEEP])
    assert out.final_cards == ((2, OROS), (12, C), (7, E))
    assert out.losers == (True, False, False)


def test_R4_dealer_refuses_with_top_rank():
    out = play_round([(5, OROS), (2, C), (12, E)], (3, B), [KEEP, PASS, KEEP])
    assert out.final_cards == ((5, OROS), (2, C), (12, E))
    assert out.losers == (False, True, False)


def test_R4_refuser_then_acts_with_his_own_card():
    # Position 1 refuses position 0's swap and keeps his Rey; he then acts with it and
    # passes it himself (PASS policy): position 2 (no Rey) accepts the swap.
    out = play_round([(2, OROS), (12, C), (7, E), (5, B)], (3, OROS), [PASS, PASS, KEEP, KEEP])
    assert out.final_cards == ((2, OROS), (7, E), (12, C), (5, B))
    assert out.losers == (True, False, False, False)


def test_R4_refusal_is_not_a_swap_for_S2a():
    # Position 1 refuses position 0; he is an informed player who did NOT swap, so S2a
    # does not apply; he holds the top rank, T=13 makes him pass to the dealer.
    out = play_round([(2, OROS), (12, C), (7, E)], (3, B), [PASS, inf(T=13), KEEP])
    assert out.final_cards == ((2, OROS), (7, E), (12, C))


def test_R5_finality_passer_card_cannot_change_again():
    dealt = [(1, OROS), (3, C), (5, E), (7, B)]
    out = play_round(dealt, (2, B), [KEEP, PASS, PASS, KEEP])
    # pos1 <-> pos2: (1,OROS),(5,E),(3,C),(7,B); pos2 then passes the 3 on to the dealer.
    assert out.final_cards == ((1, OROS), (5, E), (7, B), (3, C))
    assert out.losers == (True, False, False, False)


def test_R6_dealer_cut_takes_cut_card_even_if_worse():
    out = play_round([(5, OROS), (6, C)], (1, E), [KEEP, PASS])
    assert out.dealer_cut is True
    assert out.final_cards == ((5, OROS), (1, E))
    assert out.losers == (False, True)


def test_R6_dealer_keeps_cut_card_unused():
    out = play_round([(5, OROS), (6, C)], (1, E), [KEEP, KEEP])
    assert out.dealer_cut is False
    assert out.final_cards == ((5, OROS), (6, C))
    assert out.losers == (True, False)


def test_R7_cut_king_loses_makes_dealer_sole_loser():
    out = play_round([(1, OROS), (5, C), (7, E)], (12, B), [KEEP, KEEP, PASS], cut_king="loses")
    assert out == RoundOutcome(
        losers=(False, False, True),
        double=(False, False, False),
        absolute_tie=False,
        final_cards=((1, OROS), (5, C), (12, B)),
        dealer_cut=True,
        cut_king_fired=True,
    )


def test_R7_cut_king_loses_no_effect_for_other_cut_cards():
    out = play_round([(1, OROS), (5, C), (7, E)], (11, B), [KEEP, KEEP, PASS], cut_king="loses")
    assert out.losers == (True, False, False)
    assert out.cut_king_fired is False
    assert out.final_cards[2] == (11, B)


def test_R7_cut_king_loses_needs_the_dealer_to_cut():
    out = play_round([(1, OROS), (5, C), (7, E)], (12, B), [KEEP, KEEP, KEEP], cut_king="loses")
    assert out.losers == (True, False, False)
    assert out.cut_king_fired is False and out.dealer_cut is False


def test_R7_cut_king_blocked_dealer_keeps_his_card():
    out = play_round([(1, OROS), (5, C), (7, E)], (12, B), [KEEP, KEEP, PASS], cut_king="blocked")
    assert out.final_cards == ((1, OROS), (5, C), (7, E))
    assert out.losers == (True, False, False)
    assert out.dealer_cut is True
    assert out.cut_king_fired is False


def test_R7_cut_king_blocked_other_cut_cards_taken():
    out = play_round([(5, OROS), (6, C), (7, E)], (1, B), [KEEP, KEEP, PASS], cut_king="blocked")
    assert out.final_cards == ((5, OROS), (6, C), (1, B))
    assert out.losers == (False, False, True)


def test_R7_cut_king_none_dealer_takes_the_king():
    out = play_round([(1, OROS), (5, C), (7, E)], (12, B), [KEEP, KEEP, PASS], cut_king="none")
    assert out.final_cards == ((1, OROS), (5, C), (12, B))
    assert out.losers == (True, False, False)
    assert out.dealer_cut is True
    assert out.cut_king_fired is False


def test_R8_ties_all_every_tied_player_loses():
    out = play_round([(2, OROS), (2, C), (5, E)], (3, B), [KEEP] * 3, ties="all")
    assert out.losers == (True, True, False)
    assert out.absolute_tie is False


def test_R8_ties_first_earliest_position_loses():
    out = play_round([(2, OROS), (2, C), (5, E)], (3, B), [KEEP] * 3, ties="first")
    assert out.losers == (True, False, False)


def test_R8_ties_first_dealer_wins_every_tie():
    out = play_round([(5, OROS), (2, C), (2, E)], (3, B), [KEEP] * 3, ties="first")
    assert out.losers == (False, True, False)
    out = play_round([(5, OROS), (2, C), (2, E)], (3, B), [KEEP] * 3, ties="all")
    assert out.losers == (False, True, True)


def test_R9_absolute_tie_ties_all():
    out = play_round([(4, OROS), (4, C), (4, E)], (3, B), [KEEP] * 3, ties="all")
    assert out.absolute_tie is True
    assert out.losers == (True, True, True)


def test_R9_absolute_tie_ties_first_still_has_its_loser():
    out = play_round([(4, OROS), (4, C), (4, E)], (3, B), [KEEP] * 3, ties="first")
    assert out.absolute_tie is True
    assert out.losers == (True, False, False)


def test_R9_not_absolute_tie_when_R7_loses_applied():
    out = play_round([(12, OROS), (12, C), (5, E)], (12, B), [KEEP, KEEP, PASS], cut_king="loses")
    assert out.final_cards == ((12, OROS), (12, C), (12, B))
    assert out.absolute_tie is False
    assert out.losers == (False, False, True)
    assert out.cut_king_fired is True


def test_R9_absolute_tie_after_cut_under_cut_king_none():
    out = play_round([(12, OROS), (12, C), (5, E)], (12, B), [KEEP, KEEP, PASS], cut_king="none")
    assert out.absolute_tie is True
    assert out.losers == (True, True, True)


def test_R10_poroli_loser_loses_double():
    out = play_round([(1, B), (5, C), (7, E)], (3, OROS), [KEEP] * 3, poroli=True, cut_king="none")
    assert out.losers == (True, False, False)
    assert out.double == (True, False, False)


def test_R10_no_double_without_poroli_variant():
    out = play_round([(1, B), (5, C), (7, E)], (3, OROS), [KEEP] * 3, poroli=False, cut_king="none")
    assert out.losers == (True, False, False)
    assert out.double == (False, False, False)


def test_R10_other_losers_lose_once():
    out = play_round([(2, B), (5, C), (7, E)], (1, B), [KEEP] * 3, poroli=True, cut_king="none")
    assert out.losers == (True, False, False)
    assert out.double == (False, False, False)


def test_R10_dealer_cuts_the_poroli_and_loses_double():
    out = play_round([(2, OROS), (5, C), (7, E)], (1, B), [KEEP, KEEP, PASS], poroli=True,
                     cut_king="none")
    assert out.final_cards[2] == (1, B)
    assert out.losers == (False, False, True)
    assert out.double == (False, False, True)


def test_round_rejects_inconsistent_input():
    dealt = [(2, OROS), (5, C), (7, E)]
    with pytest.raises(ValueError):
        play_round(dealt, (3, B), [KEEP] * 2)  # wrong number of policies
    with pytest.raises(ValueError):
        play_round(dealt, (3, B), [KEEP] * 3, cut_king="sometimes")
    with pytest.raises(ValueError):
        play_round(dealt, (3, B), [KEEP] * 3, ties="random")
    with pytest.raises(ValueError):
        play_round(dealt, (3, B), [KEEP] * 3, deck="tarot78")
    with pytest.raises(ValueError):
        play_round(dealt, (3, B), [KEEP] * 3, uniforms=[0.1, 0.2])  # wrong length
    with pytest.raises(ValueError):
        play_round(dealt, (5, C), [KEEP] * 3)  # cut card already dealt
    with pytest.raises(ValueError):
        play_round([(8, OROS), (5, C)], (3, B), [KEEP] * 2)  # no 8 in spanish40
    with pytest.raises(ValueError):
        play_round([(2, OROS)], (3, B), [KEEP])  # T1: at least 2 players
    with pytest.raises(ValueError):
        play_round(dealt, (3, B), [KEEP, KEEP, RefPolicy("psychic")])
    with pytest.raises(ValueError):
        play_round(dealt, (3, B), [KEEP, KEEP, RefPolicy("random", p=0.5)])  # no uniforms
    with pytest.raises(ValueError):
        play_round(dealt, (3, B), [KEEP, KEEP, thr(T=14)])  # S1: 0..top+1


# ---------------------------------------------------------------- policies


def test_S1_threshold_non_dealer_keeps_at_or_above_T():
    out = play_round([(5, OROS), (7, C)], (1, E), [thr(T=5), KEEP])
    assert out.final_cards == ((5, OROS), (7, C))
    out = play_round([(5, OROS), (7, C)], (1, E), [thr(T=6), KEEP])
    assert out.final_cards == ((7, C), (5, OROS))


def test_S1_threshold_dealer_cuts_below_Td():
    out = play_round([(7, OROS), (4, C)], (6, E), [KEEP, thr(Td=5)])
    assert out.dealer_cut is True
    assert out.final_cards == ((7, OROS), (6, E))
    out = play_round([(7, OROS), (4, C)], (6, E), [KEEP, thr(Td=4)])
    assert out.dealer_cut is False
    assert out.final_cards == ((7, OROS), (4, C))


def test_S1_threshold_extremes_always_keep_and_always_pass():
    out = play_round([(1, OROS), (12, C), (2, E)], (6, B), [thr(T=0), thr(T=13), thr(Td=0)])
    # pos0 keeps the ace even at T=0; pos1 passes the Rey at T=top+1; dealer keeps.
    assert out.final_cards == ((1, OROS), (2, E), (12, C))
    out = play_round([(1, OROS), (3, C)], (2, B), [KEEP, thr(Td=13)])
    assert out.dealer_cut is True  # Td=top+1 always cuts
    assert out.final_cards == ((1, OROS), (2, B))


def test_S1_threshold_uses_poroli_strength():
    # With Poroli the As de bastos has strength 0 < T=1: pass; without, strength 1: keep.
    out = play_round([(1, B), (5, C)], (3, OROS), [thr(T=1), KEEP], poroli=True, cut_king="none")
    assert out.final_cards == ((5, C), (1, B))
    out = play_round([(1, B), (5, C)], (3, OROS), [thr(T=1), KEEP], poroli=False, cut_king="none")
    assert out.final_cards == ((1, B), (5, C))


def test_S2a_informed_keeps_after_receiving_higher_card():
    # pos1 received a 7 for his dealt 3: the 3 is pos0's final card, so he keeps
    # despite T=13; a threshold player with T=13 passes.
    dealt = [(7, OROS), (3, C), (5, E)]
    out = play_round(dealt, (1, B), [PASS, inf(T=13), KEEP])
    assert out.final_cards == ((3, C), (7, OROS), (5, E))
    out = play_round(dealt, (1, B), [PASS, thr(T=13), KEEP])
    assert out.final_cards == ((3, C), (5, E), (7, OROS))


def test_S2a_informed_equal_card_safe_only_under_ties_first():
    dealt = [(5, OROS), (5, C), (4, E)]
    out = play_round(dealt, (1, B), [PASS, inf(T=13), KEEP], ties="first")
    assert out.final_cards == ((5, C), (5, OROS), (4, E))  # kept
    out = play_round(dealt, (1, B), [PASS, inf(T=13), KEEP], ties="all")
    assert out.final_cards == ((5, C), (4, E), (5, OROS))  # S2c: T=13 passes


def test_S2a_informed_dealer_does_not_cut_after_receiving_higher_card():
    out = play_round([(7, OROS), (3, C)], (1, B), [PASS, inf(Td=13)])
    assert out.dealer_cut is False
    assert out.final_cards == ((3, C), (7, OROS))


def test_S2a_informed_dealer_equal_card_safe_only_under_ties_first():
    out = play_round([(5, OROS), (5, C)], (1, B), [PASS, inf(Td=13)], ties="first")
    assert out.dealer_cut is False
    assert out.final_cards == ((5, C), (5, OROS))
    out = play_round([(5, OROS), (5, C)], (1, B), [PASS, inf(Td=13)], ties="all")
    assert out.dealer_cut is True
    assert out.final_cards == ((5, C), (1, B))


def test_S2a_needs_a_swap_not_just_a_higher_card():
    # pos1 was not passed to (pos0 kept): no S2a, T=13 makes him pass.
    out = play_round([(3, OROS), (7, C), (5, E)], (1, B), [KEEP, inf(T=13), KEEP])
    assert out.final_cards == ((3, OROS), (5, E), (7, C))


def test_S2b_ties_all_non_dealer_with_lowest_card_passes():
    # An ace: no unseen card is strictly lower (other aces are equal, ties=all): pass
    # despite T=0. cut_king none, so the loses-exception does not apply.
    out = play_round([(1, OROS), (5, C), (7, E)], (3, B), [inf(T=0), KEEP, KEEP], cut_king="none")
    assert out.final_cards == ((5, C), (1, OROS), (7, E))


def test_S2b_ties_all_non_dealer_blocked_also_proven():
    out = play_round([(1, OROS), (5, C), (7, E)], (3, B), [inf(T=0), KEEP, KEEP],
                     cut_king="blocked")
    assert out.final_cards == ((5, C), (1, OROS), (7, E))


def test_S2b_cut_king_loses_non_dealer_never_proven():
    # A cut Rey would save him: not proven, S2c with T=0 keeps.
    out = play_round([(1, OROS), (5, C), (7, E)], (3, B), [inf(T=0), KEEP, KEEP], cut_king="loses")
    assert out.final_cards == ((1, OROS), (5, C), (7, E))


def test_S2b_not_proven_when_a_lower_card_is_unseen():
    # A 2: aces are unseen and strictly lower; S2c with T=0 keeps.
    out = play_round([(2, OROS), (5, C), (7, E)], (3, B), [inf(T=0), KEEP, KEEP], cut_king="none")
    assert out.final_cards == ((2, OROS), (5, C), (7, E))


def test_S2b_ties_first_position0_proven_despite_equal_unseen():
    # Position 0 with an ace under ties=first: equal aces are unseen, but nobody is
    # earlier, so he would lose any tie: proven, he passes.
    out = play_round([(1, OROS), (5, C), (7, E)], (3, B), [inf(T=0), KEEP, KEEP],
                     cut_king="none", ties="first")
    assert out.final_cards == ((5, C), (1, OROS), (7, E))


def test_S2b_ties_first_position1_swapped_with_position0_proven():
    # pos0 passes the ace to pos1 (dealt 5 > 1, so no S2a); pos0's final card (5) is known:
    # proven, pos1 passes the ace to the dealer, who keeps it and loses.
    out = play_round([(1, OROS), (5, C), (7, E)], (3, B), [PASS, inf(T=0), KEEP],
                     cut_king="none", ties="first")
    assert out.final_cards == ((5, C), (7, E), (1, OROS))
    assert out.losers == (False, False, True)


def test_S2b_ties_first_position1_not_swapped_not_proven():
    # pos0 kept: his final card is unknown and an equal ace is unseen; S2c T=0 keeps.
    out = play_round([(5, C), (1, OROS), (7, E)], (3, B), [KEEP, inf(T=0), KEEP],
                     cut_king="none", ties="first")
    assert out.final_cards == ((5, C), (1, OROS), (7, E))
    assert out.losers == (False, True, False)


def test_S2b_ties_first_later_position_with_equal_unseen_not_proven():
    out = play_round([(5, OROS), (6, C), (1, OROS), (7, E)], (3, B), [KEEP, KEEP, inf(T=0), KEEP],
                     cut_king="none", ties="first")
    assert out.final_cards == ((5, OROS), (6, C), (1, OROS), (7, E))


def test_S2b_ties_first_no_equal_unseen_proven_at_any_position():
    # The Poroli (strength 0) is unique: nothing lower or equal unseen: proven at pos2.
    out = play_round([(5, OROS), (6, C), (1, B), (7, E)], (3, OROS), [KEEP, KEEP, inf(T=0), KEEP],
                     cut_king="none", ties="first", poroli=True)
    assert out.final_cards == ((5, OROS), (6, C), (7, E), (1, B))
    assert out.losers == (False, False, False, True)
    assert out.double == (False, False, False, True)


def test_S2b_dealer_ties_all_cuts_with_lowest_card():
    out = play_round([(5, OROS), (1, C)], (7, E), [KEEP, inf(Td=0)], ties="all", cut_king="none")
    assert out.dealer_cut is True
    assert out.final_cards == ((5, OROS), (7, E))
    assert out.losers == (True, False)


def test_S2b_dealer_cut_king_loses_still_proven():
    # The loses-exception covers only non-dealers: the dealer with an ace cuts.
    out = play_round([(5, OROS), (1, C)], (7, E), [KEEP, inf(Td=0)], ties="all", cut_king="loses")
    assert out.dealer_cut is True
    assert out.final_cards == ((5, OROS), (7, E))
    assert out.losers == (True, False)


def test_S2b_dealer_ties_first_equal_unseen_not_proven():
    # Under ties=first the dealer wins ties; another ace is unseen: not proven, Td=0 keeps.
    out = play_round([(5, OROS), (1, C)], (7, E), [KEEP, inf(Td=0)], ties="first", cut_king="none")
    assert out.dealer_cut is False
    assert out.final_cards == ((5, OROS), (1, C))
    assert out.losers == (False, True)


def test_S2b_dealer_ties_first_no_equal_unseen_proven():
    out = play_round([(5, OROS), (1, B)], (7, E), [KEEP, inf(Td=0)], ties="first", cut_king="none",
                     poroli=True)
    assert out.dealer_cut is True
    assert out.final_cards == ((5, OROS), (7, E))


def test_S2c_informed_falls_back_to_threshold():
    out = play_round([(5, OROS), (7, C), (4, E)], (6, B), [inf(T=6), inf(T=5), inf(Td=5)])
    # pos0: 5 < 6 passes (no S2a/S2b: aces unseen); pos1 receives 5 for his 7 (7 > 5, no
    # S2a); 5 >= 5 keeps; dealer holds 4 < 5 and cuts the 6.
    assert out.final_cards == ((7, C), (5, OROS), (6, B))
    assert out.dealer_cut is True
    assert out.losers == (False, True, False)


def test_S3_random_keeps_when_u_below_p():
    out = play_round([(2, OROS), (5, C)], (3, B), [rnd(0.5), KEEP], uniforms=[0.49, 0.99])
    assert out.final_cards == ((2, OROS), (5, C))
    out = play_round([(2, OROS), (5, C)], (3, B), [rnd(0.5), KEEP], uniforms=[0.5, 0.0])
    assert out.final_cards == ((5, C), (2, OROS))  # u == p: pass


def test_S3_random_dealer_keeps_rather_than_cuts_when_u_below_p():
    out = play_round([(2, OROS), (5, C)], (3, B), [KEEP, rnd(0.3)], uniforms=[0.9, 0.29])
    assert out.dealer_cut is False
    out = play_round([(2, OROS), (5, C)], (3, B), [KEEP, rnd(0.3)], uniforms=[0.0, 0.3])
    assert out.dealer_cut is True
    assert out.final_cards == ((2, OROS), (3, B))


def test_S3_random_uses_its_own_positions_uniform():
    out = play_round([(2, OROS), (5, C), (6, E)], (3, B), [KEEP, rnd(0.5), KEEP],
                     uniforms=[0.9, 0.1, 0.9])
    assert out.final_cards == ((2, OROS), (5, C), (6, E))
    out = play_round([(2, OROS), (5, C), (6, E)], (3, B), [KEEP, rnd(0.5), KEEP],
                     uniforms=[0.1, 0.9, 0.1])
    assert out.final_cards == ((2, OROS), (6, E), (5, C))


# ---------------------------------------------------------------- the game


def test_G1_G2_G7_single_round_elimination_and_winner():
    # first_dealer 0: position 0 is player 1, the dealer player 0.
    nd = scripted([(2, [(1, OROS), (5, C)], (7, E), [0.0, 0.0])])
    out = play_game(2, 1, [KEEP, KEEP], 0, nd)
    assert out == GameOutcome(
        winner=0, void=False, rounds=1, lives_left=(1, 0), eliminated_in_round=(None, 1)
    )


def test_G1_each_lost_round_costs_one_life_and_dealer_alternates():
    # 2 players, lives 2, position 0 always loses. G5: dealer 0, then 1, then 0 ...
    # round 1 order [1,0]: player 1 loses; round 2 order [0,1]: player 0;
    # round 3 order [1,0]: player 1 out.
    deals = [(2, [(1, OROS), (5, C)], (7, E), [0.0, 0.0])] * 3
    out = play_game(2, 2, [KEEP, KEEP], 0, scripted(deals))
    assert out == GameOutcome(
        winner=0, void=False, rounds=3, lives_left=(1, 0), eliminated_in_round=(None, 3)
    )


def test_G2_several_players_eliminated_in_one_round():
    # first_dealer 2: order [0,1,2]; positions 0 and 1 tie at the lowest (R8 all).
    nd = scripted([(3, [(2, OROS), (2, C), (5, E)], (7, B), [0.0] * 3)])
    out = play_game(3, 1, [KEEP] * 3, 2, nd)
    assert out == GameOutcome(
        winner=2, void=False, rounds=1, lives_left=(0, 0, 1), eliminated_in_round=(1, 1, None)
    )


def test_G3_G5_next_dealer_is_position0_of_previous_round():
    # 3 players, lives 2, all keep, first dealer 0.
    # r1 order [1,2,0], lowest at pos1 -> player 2 (1 life). Next dealer player 1.
    # r2 order [2,0,1], lowest at pos1 -> player 0 (1 life). Next dealer player 2.
    # r3 order [0,1,2], lowest at pos0 -> player 0 out. Next dealer: player 0 is out,
    #    so the next surviving after him, player 1.
    # r4 order [2,1], lowest at pos0 -> player 2 out. Player 1 wins.
    deals = [
        (3, [(5, OROS), (1, C), (7, E)], (3, B), [0.0] * 3),
        (3, [(5, OROS), (1, C), (7, E)], (3, B), [0.0] * 3),
        (3, [(1, C), (5, OROS), (7, E)], (3, B), [0.0] * 3),
        (2, [(1, C), (5, OROS)], (3, B), [0.0] * 2),
    ]
    nd = scripted(deals)
    out = play_game(3, 2, [KEEP] * 3, 0, nd)
    assert nd.seen == [3, 3, 3, 2]
    assert out == GameOutcome(
        winner=1, void=False, rounds=4, lives_left=(0, 2, 0), eliminated_in_round=(3, None, 4)
    )


def test_G5_next_dealer_skips_eliminated_player():
    # first dealer 2: r1 order [0,1,2]; player 0 (pos0) loses his only life.
    # G5: player 0 is out, so the next dealer is player 1 and r2's order is [2,1].
    # Player 2 always passes, player 1 keeps: player 2 (pos0) passes his 3 to the
    # dealer player 1, who keeps it and loses. Had the dealer been player 2 (order
    # [1,2]), player 1 would keep the 3 and player 2 would cut the ace and lose.
    policies = [KEEP, KEEP, PASS]
    deals = [
        (3, [(1, OROS), (5, C), (12, E)], (7, B), [0.0] * 3),  # dealer p2 cuts the 7
        (2, [(3, OROS), (6, C)], (1, E), [0.0] * 2),
    ]
    out = play_game(3, 1, policies, 2, scripted(deals), cut_king="none")
    assert out == GameOutcome(
        winner=2, void=False, rounds=2, lives_left=(0, 0, 1), eliminated_in_round=(1, 2, None)
    )


def test_G6_absolute_tie_void_ends_game():
    nd = scripted([(3, [(4, OROS), (4, C), (4, E)], (3, B), [0.0] * 3)])
    out = play_game(3, 2, [KEEP] * 3, 0, nd, absolute_tie="void")
    assert out == GameOutcome(
        winner=None, void=True, rounds=1, lives_left=(2, 2, 2),
        eliminated_in_round=(None, None, None),
    )


def test_G6_absolute_tie_void_after_earlier_losses():
    deals = [
        (2, [(1, OROS), (5, C)], (3, B), [0.0] * 2),  # order [1,0]: player 1 loses
        (2, [(4, OROS), (4, C)], (3, B), [0.0] * 2),  # absolute tie: game void
    ]
    out = play_game(2, 3, [KEEP, KEEP], 0, scripted(deals))
    assert out == GameOutcome(
        winner=None, void=True, rounds=2, lives_left=(3, 2), eliminated_in_round=(None, None)
    )


def test_G6_absolute_tie_replay_same_dealer_no_lives_lost():
    # first dealer 0: order [1,0]. r1 absolute tie -> replayed, dealer still 0, order
    # [1,0]: position 0 (player 1) loses. Had the dealer moved to player 1, player 0 would.
    deals = [
        (2, [(4, OROS), (4, C)], (3, B), [0.0] * 2),
        (2, [(1, OROS), (5, C)], (3, B), [0.0] * 2),
    ]
    out = play_game(2, 1, [KEEP, KEEP], 0, scripted(deals), absolute_tie="replay")
    assert out == GameOutcome(
        winner=0, void=False, rounds=2, lives_left=(1, 0), eliminated_in_round=(None, 2)
    )


def test_G6_replay_forever_hits_max_rounds():
    deals = [(2, [(4, OROS), (4, C)], (3, B), [0.0] * 2)] * 10
    with pytest.raises(ValueError):
        play_game(2, 1, [KEEP, KEEP], 0, scripted(deals), absolute_tie="replay", max_rounds=5)


def test_G7_last_survivor_wins_after_several_rounds():
    # 3 players, lives 1, first dealer 0: r1 order [1,2,0], player 1 (pos0) out.
    # G5: next dealer is the next survivor after player 1 -> player 2; r2 order [0,2]:
    # player 0 (pos0) loses with the ace; player 2 wins.
    deals = [
        (3, [(1, OROS), (5, C), (7, E)], (3, B), [0.0] * 3),
        (2, [(1, C), (5, OROS)], (3, B), [0.0] * 2),
    ]
    out = play_game(3, 1, [KEEP] * 3, 0, scripted(deals))
    assert out == GameOutcome(
        winner=2, void=False, rounds=2, lives_left=(0, 0, 1), eliminated_in_round=(2, 1, None)
    )


def test_R10_G1_poroli_double_loss_in_game_lives_never_below_zero():
    # order [1,0]: player 1 holds the Poroli and loses two lives at once.
    nd = scripted([(2, [(1, B), (5, C)], (3, OROS), [0.0] * 2)])
    out = play_game(2, 2, [KEEP, KEEP], 0, nd, poroli=True, cut_king="none")
    assert out == GameOutcome(
        winner=0, void=False, rounds=1, lives_left=(2, 0), eliminated_in_round=(None, 1)
    )
    nd = scripted([(2, [(1, B), (5, C)], (3, OROS), [0.0] * 2)])
    out = play_game(2, 1, [KEEP, KEEP], 0, nd, poroli=True, cut_king="none")
    assert out.lives_left == (1, 0)


def test_R7_in_game_cut_king_costs_dealer_a_life():
    # first dealer 0 always cuts, cuts the Rey under cut_king=loses: player 0 loses.
    nd = scripted([(2, [(1, OROS), (5, C)], (12, B), [0.0] * 2)])
    out = play_game(2, 1, [PASS, KEEP], 0, nd)
    assert out == GameOutcome(
        winner=1, void=False, rounds=1, lives_left=(0, 1), eliminated_in_round=(1, None)
    )


def test_game_policies_belong_to_players_not_positions():
    # first dealer 1: order [0,1]. Player 0 (pos0) passes his ace to player 1 (dealer),
    # who keeps: player 1 loses. With the policies swapped, player 1 (dealer) would cut.
    nd = scripted([(2, [(1, OROS), (5, C)], (7, B), [0.0] * 2)])
    out = play_game(2, 1, [PASS, KEEP], 1, nd)
    assert out.winner == 0 and out.lives_left == (1, 0)


def test_game_rejects_inconsistent_input():
    nd = scripted([])
    with pytest.raises(ValueError):
        play_game(2, 1, [KEEP], 0, nd)  # one policy for two players
    with pytest.raises(ValueError):
        play_game(2, 1, [KEEP, KEEP], 2, nd)  # first dealer out of range
    with pytest.raises(ValueError):
        play_game(2, 1, [KEEP, KEEP], 0, nd, absolute_tie="sometimes")
    with pytest.raises(ValueError):
        play_game(1, 1, [KEEP], 0, nd)  # T1
    with pytest.raises(ValueError):
        play_game(2, 1, [KEEP, KEEP], 0, scripted([(2, [(1, OROS)], (3, B), [0.0])]))
