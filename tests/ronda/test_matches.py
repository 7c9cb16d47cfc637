"""Whole Ronda matches in numba (S2, S4, S5, C1-C3, D3 of ``seeds/ronda.md``) against the
reference engine's :class:`MatchState`, and the duplicate comparison of two policies.

The kernel's matches are recorded (:func:`record_matches`: the decks, dealers and uniforms each
hand drew, and what the match gave) and the reference plays the same matches on the same decks
with the same decisions; both must agree on the winner, the number of hands, the plays made in
the last hand (S5 can stop a hand), the scores after every hand and the final scores. The
recording and the Monte Carlo share one loop, and the tests check that they return the same
statistics from the same stream.

Statistical checks use tolerances of 4 standard errors (a false alarm about once in 16,000
runs), and every stream is seeded, so a run is reproducible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from simcards.core.errors import UsageError
from simcards.core.rng import chunk_state
from simcards.core.rng_kernel import next_u64, randbelow, seed_state, uniform
from simcards.ronda import codes
from simcards.ronda import reference as ref
from simcards.ronda.compare_batch import DUPLICATE_STAT_NAMES, named_duplicate_stats
from simcards.ronda.kernel_state import Seats
from simcards.ronda.match_kernel import (
    duplicate_plays,
    record_duplicate,
    record_matches,
    simulate_duplicate,
    simulate_matches,
    target_leader,
)
from simcards.ronda.matches_batch import (
    MATCH_STAT_NAMES,
    check_max_hands,
    hand_of_match,
    named_match_stats,
)
from simcards.ronda.play_kernel import replay
from simcards.ronda.policies import policy_arrays
from simcards.ronda.rules import RondaRules
from simcards.ronda.summaries import (
    cards_per_hand_difference,
    duplicate_summary,
    duplicate_win_rates,
    first_player_advantage,
    match_length,
    match_summary,
    mean_interval,
    points_per_hand_difference,
    ratio_interval,
    win_rate_difference,
    win_rates,
)

MAX_HANDS = 60
"""Enough for every configuration below: no recorded match comes near it (asserted)."""

G = "greedy"
R = "random"


@dataclass(frozen=True)
class Config:
    name: str
    options: dict
    policies: tuple[str, ...]
    matches: int

    @property
    def rules(self) -> RondaRules:
        return RondaRules.make(**self.options)


CONFIGS = [
    Config("2p-t11-immediate-gr", {"players": 2, "target": 11, "target_check": "immediate"},
           (G, R), 300),
    Config("2p-t21-end-tiers-rg", {"players": 2, "derba_chain": "tiers"}, (R, G), 250),
    Config("2p-t41-immediate-every-hta-gg",
           {"players": 2, "target": 41, "target_check": "immediate", "announce": "every_deal",
            "announce_conflict": "highest_takes_all"}, (G, G), 100),
    Config("3p-t21-immediate-every-grg",
           {"players": 3, "target_check": "immediate", "announce": "every_deal"}, (G, R, G),
           200),
    Config("3p-t11-end-tiers-rrg", {"players": 3, "target": 11, "derba_chain": "tiers"},
           (R, R, G), 250),
    Config("4p-t21-immediate-grgr", {"players": 4, "target_check": "immediate"},
           (G, R, G, R), 120),
    Config("4p-t11-end-hta-gggg", {"players": 4, "target": 11,
                                   "announce_conflict": "highest_takes_all"}, (G, G, G, G), 200),
    Config("4t-t21-immediate-tiers-ggrg",
           {"players": 4, "teams": "on", "target_check": "immediate", "derba_chain": "tiers"},
           (G, G, R, G), 200),
    Config("4t-t41-end-every-rggr", {"players": 4, "teams": "on", "target": 41,
                                     "announce": "every_deal"}, (R, G, G, R), 80),
    Config("2p-classic-h1-rg", {"players": 2, "mode": "classic"}, (R, G), 300),
    Config("2p-classic-h3-gr", {"players": 2, "mode": "classic", "hands_to_win": 3}, (G, R),
           120),
    Config("3p-classic-h3-grr", {"players": 3, "mode": "classic", "hands_to_win": 3},
           (G, R, R), 80),
    Config("4t-classic-h3-gggr", {"players": 4, "teams": "on", "mode": "classic",
                                  "hands_to_win": 3}, (G, G, G, R), 80),
]


def _options(rules: RondaRules) -> ref.RondaOptions:
    return ref.RondaOptions(**rules.summary())


def _decide(policy: str, obs: dict, u: float) -> int:
    return ref.random_policy(obs, u) if policy == R else ref.greedy_policy(obs)


def _reference_match(options, policies, first_dealer, decks, us, n_hands):
    """The reference's match on the kernel's decks, deciding as the kernel's seats did: a
    random seat's play k of hand h takes the uniform ``us[h, k]``."""
    m = ref.MatchState(options, int(first_dealer),
                       [[int(c) for c in decks[h]] for h in range(n_hands)])
    while not m.is_terminal():
        p = m.current_player()
        m.apply(_decide(policies[p], m.observation(p), float(us[m.hand_index,
                                                                len(m.hand.plays)])))
    return m


def _compare(options, policies, rec, i) -> str | None:
    """None when the reference plays match i of the record exactly as the kernel did."""
    _, first, results, scores, decks, dealers, us, _, hand_scores = rec
    winner, n_hands, _, bad, last_plays, first_side = results[i].tolist()
    if winner < 0:
        return f"unfinished after {n_hands} hands"
    if bad:
        return f"{bad} hands break an invariant"
    for h in range(n_hands):  # D3: the deal moves on one seat per hand
        if dealers[i, h] != (first[i] + h) % options.players:
            return f"hand {h}: dealer {dealers[i, h]}"
    m = _reference_match(options, policies, first[i], decks[i], us[i], n_hands)
    got = (m.winner, m.hand_index + 1, len(m.hand.plays), list(m.scores()))
    want = (winner, n_hands, last_plays, scores[i].tolist())
    if got != want:
        return f"(winner, hands, last plays, scores) {got} vs kernel {want}"
    for h, hand in enumerate(m.finished_hands):
        if list(hand.scores()) != hand_scores[i, h].tolist():
            return f"hand {h}: scores {hand.scores()} vs kernel {hand_scores[i, h].tolist()}"
    if first_side != options.side_of((int(first[i]) + 1) % options.players):
        return f"first side {first_side}"
    return None


def _equal_stats(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("index", range(len(CONFIGS)), ids=[c.name for c in CONFIGS])
def test_S2_S4_S5_C2_C3_D3_kernel_matches_agree_with_reference_match_state(index: int) -> None:
    cfg = CONFIGS[index]
    rules = cfg.rules
    options = _options(rules)
    kr = rules.kernel
    kinds, params, explore = policy_arrays(cfg.policies)
    seats = Seats(kinds, params, explore)
    state = chunk_state(23, index, stream=5)
    rec = record_matches(state.copy(), cfg.matches, -1, seats, kr, MAX_HANDS)
    # The recording plays exactly the Monte Carlo's matches.
    sim = named_match_stats(simulate_matches(state.copy(), cfg.matches, -1, seats, kr, MAX_HANDS))
    assert _equal_stats(named_match_stats(rec[0]), sim)
    results = rec[2]
    assert sim["unfinished"][0] == 0 and results[:, 1].max() < MAX_HANDS
    mismatches = []
    for i in range(cfg.matches):
        why = _compare(options, cfg.policies, rec, i)
        if why is not None:
            mismatches.append((i, why))
    assert mismatches == [], f"{len(mismatches)} matches differ; first: {mismatches[:3]}"
    # The statistics are the record's results, tallied.
    winners = results[:, 0]
    assert sim["wins"].tolist() == np.bincount(winners, minlength=rules.n_sides).tolist()
    assert sim["hands"][0] == results[:, 1].sum()
    assert sim["hands_sq"][0] == (results[:, 1] ** 2).sum()
    assert sim["length_hist"].tolist() == np.bincount(results[:, 1],
                                                      minlength=MAX_HANDS + 1).tolist()
    assert sim["first_side_wins"][0] == (winners == results[:, 5]).sum()
    assert sim["score"].tolist() == rec[3].sum(axis=0).tolist()
    assert sim["violations"][0] == 0
    # The configurations exercise what they are meant to.
    plays = rules.plays
    if rules.mode == "classic":
        assert sim["points"].sum() == 0 and sim["score"].sum() == 0  # C1
        wins_needed = rules.hands_to_win
        assert (results[:, 1] >= wins_needed).all()  # C3: at least hands_to_win hands
        if wins_needed > 1:
            assert (results[:, 1] > wins_needed).any()
    elif rules.target_check == "immediate":
        assert (results[:, 4] < plays).any(), "no match stopped inside a hand (S5)"
    else:
        assert (results[:, 4] == plays).all()  # S4: only at the end of a hand
    assert (results[:, 1] > 1).any()  # S2: scores carried over at least once


@pytest.mark.parametrize("policies", [
    (G, R, G),
    ("lookahead:1", R, "rollout:4"),
], ids=["greedy-random", "searching"])
def test_S2_every_hand_of_a_match_is_the_hand_kernels_hand(policies) -> None:
    """A match's hands, replayed one by one by ``play_kernel.replay`` from the recorded draws
    (decks, dealers, uniforms, searching seats' seeds), give exactly the match's scores hand
    after hand (S2): the match plays each hand as the hand kernel does, whatever the seats'
    policies."""
    rules = RondaRules.make(players=3, target=21)
    kr = rules.kernel
    kinds, params, explore = policy_arrays(policies)
    seats = Seats(kinds, params, explore)
    n = 6 if policies[0] != G else 60
    rec = record_matches(chunk_state(79, 0, stream=5), n, -1, seats, kr, MAX_HANDS)
    _, _, results, scores, decks, dealers, us, seeds, hand_scores = rec
    for i in range(n):
        nh = results[i, 1]
        out = replay(decks[i, :nh], dealers[i, :nh], us[i, :nh], seeds[i, :nh], seats,
                     kr)
        points = out[3]  # [hand, side, source]
        assert np.array_equal(np.cumsum(points.sum(axis=2), axis=0), hand_scores[i, :nh])
        assert np.array_equal(hand_scores[i, nh - 1], scores[i])


def _tie_at_the_top(hand_scores, n_hands, target) -> bool:
    """Whether a hand before the last ended with the top total tied at or above the target."""
    for h in range(n_hands - 1):
        s = hand_scores[h]
        top = s.max()
        if top >= target and (s == top).sum() > 1:
            return True
    return False


@pytest.mark.parametrize("options,policies", [
    ({"players": 2, "target": 11}, (R, R)),
    ({"players": 3, "target": 11, "target_check": "immediate"}, (R, G, R)),
], ids=["2p-end_of_hand", "3p-immediate"])
def test_S4_S5_tie_at_the_top_plays_on_as_in_reference(options, policies) -> None:
    """S4/S5: a tie at the top at or above the target is no win; the match goes on. Matches
    where that happened are picked from many kernel matches and replayed by the reference."""
    rules = RondaRules.make(**options)
    kr = rules.kernel
    kinds, params, explore = policy_arrays(policies)
    seats = Seats(kinds, params, explore)
    n = 4000
    rec = record_matches(chunk_state(29, 0, stream=5), n, -1, seats, kr, 20)
    results, hand_scores = rec[2], rec[8]
    assert (results[:, 0] >= 0).all()  # none stopped at 20 hands
    tied = [i for i in range(n) if _tie_at_the_top(hand_scores[i], results[i, 1], rules.target)]
    assert len(tied) >= 5, f"only {len(tied)} matches with a tie at the top"
    options_ref = _options(rules)
    for i in tied[:20]:
        assert _compare(options_ref, policies, rec, i) is None


# ---------------------------------------------------------------- given positions (E8)


@pytest.mark.parametrize("totals,target,winner", [
    ((10, 20), 21, -1),
    ((21, 20), 21, 0),
    ((11, 11), 11, -1),  # E8, end_of_hand: S1 makes 11-11, another hand is played
    ((11, 11, 5), 11, -1),  # E8, immediate: A and B tied at the top, play goes on
    ((13, 11, 5), 11, 0),  # E8: after S1, A 13 wins
    ((22, 22, 3), 21, -1),
    ((25, 22, 30), 21, 2),
    ((40, 41, 41, 2), 41, -1),
])
def test_S4_S5_E8_target_reached_and_a_single_side_on_top(totals, target, winner) -> None:
    arr = np.array(totals, np.int64)
    assert target_leader(arr, len(totals), target) == winner
    assert ref.target_winner(totals, target) == (None if winner < 0 else winner)


def _deck(players: int, dealer: int, holdings: list[str]) -> list[int]:
    """A deck whose first deal gives each seat the named cards (D5: one at a time, first
    player first); the other cards follow in card order."""
    hands = [ref.parse_cards(h) for h in holdings]
    order = [(dealer + 1 + i) % players for i in range(players)]
    top = [hands[p][j] for j in range(4) for p in order]
    return top + [c for c in range(40) if c not in top]


@pytest.mark.parametrize("check,start,holdings,policies", [
    # S5: A's Ronda of 5 brings him to 21 at the first check point, before any play.
    ("immediate", (20, 0), ["5o 5c 1o 2o", "3o 4o 6o 7o"], (G, G)),
    # end_of_hand: the same announcement waits for the end of the hand (S4).
    ("end_of_hand", (20, 0), ["5o 5c 1o 2o", "3o 4o 6o 7o"], (G, G)),
    # S5: both announce, 21-21 at the top: play goes on until a check point breaks the tie.
    ("immediate", (20, 20), ["5o 5c 1o 2o", "6o 6c 3o 4o"], (G, G)),
    ("immediate", (20, 20), ["5o 5c 1o 2o", "6o 6c 3o 4o"], (R, G)),
    # S5 with a Tringla: 16 + 5 reaches 21 at once.
    ("immediate", (16, 19), ["7o 7c 7e 2o", "3o 4o 6o 10o"], (G, G)),
])
def test_S5_E8_check_points_of_a_given_hand_agree_with_reference(check, start, holdings,
                                                                  policies) -> None:
    rules = RondaRules.make(players=2, target=21, target_check=check)
    kr = rules.kernel
    kinds, params, explore = policy_arrays(policies)
    seats = Seats(kinds, params, explore)
    deck = _deck(2, 1, holdings)
    us = np.linspace(0.05, 0.95, 40)
    seeds = np.zeros(2, np.uint64)
    w, k, totals = hand_of_match(np.array(deck, np.int64), 1, seats, us, seeds, kr,
                                 np.array(start, np.int64), check == "immediate")
    m = ref.MatchState(_options(rules), 1, [deck, list(range(40))], start_scores=start)
    while not m.is_terminal() and m.hand_index == 0:
        p = m.current_player()
        m.apply(_decide(policies[p], m.observation(p), float(us[len(m.hand.plays)])))
    if w >= 0:  # a check point inside the hand ended the match
        assert m.is_terminal() and m.hand_index == 0
        assert (m.winner, len(m.hand.plays), list(m.scores())) == (w, k, totals.tolist())
    else:  # the hand was played to its end; the end-of-hand check is the match's
        assert k == 40
        assert list(m.finished_hands[0].scores()) == totals.tolist()
    if start == (20, 0):
        assert (w, k) == ((0, 0) if check == "immediate" else (-1, 40))


# ---------------------------------------------------------------- stream layout


def test_D3_stream_layout_of_simulate_matches_is_the_documented_one() -> None:
    """Module docstring: per match, the first dealer (when drawn), then per hand the shuffle of
    the kept deck array, one uniform per random seat's play, one seed per searching seat."""
    rules = RondaRules.make(players=3, target=11)
    kr = rules.kernel
    policies = (R, G, R)
    kinds, params, explore = policy_arrays(policies)
    seats = Seats(kinds, params, explore)
    state = chunk_state(31, 0, stream=5)
    rec = record_matches(state.copy(), 30, -1, seats, kr, MAX_HANDS)
    _, first, results, _, decks, dealers, us, _, _ = rec
    s = state.copy()
    deck = np.arange(40)
    for i in range(30):
        d = randbelow(s, 3)
        assert first[i] == d
        for h in range(results[i, 1]):
            for j in range(39):
                r = j + randbelow(s, 40 - j)
                deck[j], deck[r] = deck[r], deck[j]
            assert decks[i, h].tolist() == deck.tolist() and dealers[i, h] == d
            for k in range(rules.plays):
                if policies[(d + 1 + k) % 3] == R:
                    assert us[i, h, k] == uniform(s)
            d = (d + 1) % 3


def test_duplicate_stream_layout_and_shared_decks() -> None:
    """Duplicate: per set the first dealer, the deck seed and one seed per role; every play of
    a set deals hand i from the same deck with the same dealer; a random seat's uniforms come
    from its role's stream (its offset from A's first seat)."""
    rules = RondaRules.make(players=3, target=11)
    kr = rules.kernel
    ka, pa, ea = policy_arrays([R])
    sa = Seats(ka, pa, ea)
    kb, pb, eb = policy_arrays([G])
    sb = Seats(kb, pb, eb)
    n_plays, _ = duplicate_plays(kr)
    assert n_plays == 3
    state = chunk_state(37, 0, stream=5)
    rec = record_duplicate(state.copy(), 20, -1, sa, sb, kr, MAX_HANDS)
    _, first, results, _, _, decks, dealers, us, _, _ = rec
    s = state.copy()
    for i in range(20):
        d0 = randbelow(s, 3)
        deck_seed = np.uint64(next_u64(s))
        role_seeds = [np.uint64(next_u64(s)) for _ in range(3)]
        for r in range(n_plays):
            k = i * n_plays + r
            assert first[k] == d0
            dst = np.zeros(4, np.uint64)
            seed_state(dst, deck_seed)
            a_stream = np.zeros(4, np.uint64)
            seed_state(a_stream, role_seeds[0])  # role 0: A, in seat r
            deck = np.arange(40)
            for h in range(results[k, 1]):
                for j in range(39):
                    x = j + randbelow(dst, 40 - j)
                    deck[j], deck[x] = deck[x], deck[j]
                d = (d0 + h) % 3
                assert decks[k, h].tolist() == deck.tolist() and dealers[k, h] == d
                for q in range(rules.plays):
                    if (d + 1 + q) % 3 == r:
                        assert us[k, h, q] == uniform(a_stream)
                    else:
                        assert us[k, h, q] == 0.0
        # Hand h of every play of the set: the same deck.
        base = i * n_plays
        for r in range(1, n_plays):
            common = min(results[base, 1], results[base + r, 1])
            assert np.array_equal(decks[base, :common], decks[base + r, :common])


# ---------------------------------------------------------------- Monte Carlo checks


def test_S4_D3_random_against_random_is_fair_and_first_player_advantage_is_measured() -> None:
    """Two random seats with the first dealer drawn (D3): each side wins half the matches
    within 4 standard errors. The first player's advantage is estimated with its interval; with
    a fixed dealer it is the share won by the seat after the dealer."""
    rules = RondaRules.make(players=2)
    kr = rules.kernel
    kinds, params, explore = policy_arrays((R, R))
    seats = Seats(kinds, params, explore)
    n = 40_000
    stats = named_match_stats(simulate_matches(chunk_state(41, 0, stream=5), n, -1, seats,
                                                kr, 200))
    assert stats["matches"][0] == n and stats["unfinished"][0] == 0
    rates = win_rates(stats)
    se = math.sqrt(0.25 / n)
    assert abs(rates[0].value - 0.5) < 4 * se
    assert rates[0].low < rates[0].value < rates[0].high
    adv = first_player_advantage(stats)
    assert adv.value == pytest.approx(stats["first_side_wins"][0] / n - 0.5)
    assert adv.high - adv.low == pytest.approx(2 * 1.96 * math.sqrt(0.25 / n), rel=0.05)
    fixed = named_match_stats(simulate_matches(chunk_state(41, 1, stream=5), 2000, 1, seats,
                                                kr, 200))
    assert fixed["first_side_wins"][0] == fixed["wins"][0]  # dealer 1: seat 0 plays first
    summary = match_summary(stats)
    assert summary["violations"] == 0
    assert summary["length"]["quantiles"]["0.5"] >= 1


def test_S4_three_random_players_share_the_matches() -> None:
    rules = RondaRules.make(players=3, target=11, target_check="immediate")
    kr = rules.kernel
    kinds, params, explore = policy_arrays((R, R, R))
    seats = Seats(kinds, params, explore)
    n = 30_000
    stats = named_match_stats(simulate_matches(chunk_state(43, 0, stream=5), n, -1, seats,
                                                kr, 200))
    se = math.sqrt((1 / 3) * (2 / 3) / n)
    for rate in win_rates(stats):
        assert abs(rate.value - 1 / 3) < 4 * se


def test_C3_classic_match_lengths() -> None:
    """C2/C3: a classic match to one hand lasts exactly as many hands as it takes one side to
    win a hand; to three hands, at least three and, with two sides, at most five plus the hands
    without a winner (ties at 20-20)."""
    kr = RondaRules.make(players=2, mode="classic", hands_to_win=3).kernel
    kinds, params, explore = policy_arrays((R, G))
    seats = Seats(kinds, params, explore)
    stats = named_match_stats(simulate_matches(chunk_state(47, 0, stream=5), 5000, -1, seats,
                                                kr, 200))
    hist = stats["length_hist"]
    assert hist[:3].sum() == 0 and hist[3:].sum() == 5000
    # The winner has won 3 hands and the loser at most 2 (C3).
    assert 3 * 5000 <= stats["hand_wins"].sum() <= 5 * 5000
    assert stats["hand_count"][0] == stats["hands"][0]  # classic never cuts a hand short
    assert stats["points"].sum() == 0  # C1
    length = match_length(stats)
    assert 3 <= length["quantiles"][0.05] <= length["quantiles"][0.5] <= length["quantiles"][0.95]


def test_max_hands_stops_a_match_and_counts_it_unfinished() -> None:
    kr = RondaRules.make(players=2, target=41).kernel
    kinds, params, explore = policy_arrays((G, G))
    seats = Seats(kinds, params, explore)
    stats = named_match_stats(simulate_matches(chunk_state(53, 0, stream=5), 500, -1, seats,
                                                kr, 2))
    # Almost no match to 41 ends within two hands; the others stop there, undecided.
    assert stats["length_hist"][0] == 0 and stats["length_hist"][1:].sum() == 500
    assert stats["unfinished"][0] > 450
    assert stats["unfinished"][0] + stats["wins"].sum() == 500
    assert stats["length_hist"][2] >= stats["unfinished"][0]
    assert stats["hand_count"][0] == stats["hands"][0]  # end_of_hand: every hand is finished


UNUSUAL_TARGETS = [
    Config("2p-t1-end-gr", {"players": 2, "target": 1}, (G, R), 150),
    Config("2p-t15-immediate-gr", {"players": 2, "target": 15, "target_check": "immediate"},
           (G, R), 150),
    Config("3p-t30-end-tiers-grg", {"players": 3, "target": 30, "derba_chain": "tiers"},
           (G, R, G), 80),
    Config("4t-t60-immediate-ggrg", {"players": 4, "teams": "on", "target": 60,
                                     "target_check": "immediate"}, (G, G, R, G), 40),
]


@pytest.mark.parametrize("cfg", UNUSUAL_TARGETS, ids=[c.name for c in UNUSUAL_TARGETS])
def test_S4_any_target_plays_its_matches_exactly_as_the_reference(cfg: Config) -> None:
    """S4: a match is generally played to 11, 21 or 41, but any target is a match by the same
    rules: the kernel and the reference agree on every match to 1, 15, 30 or 60."""
    rules = cfg.rules
    assert rules.target not in (11, 21, 41)
    options = _options(rules)
    kinds, params, explore = policy_arrays(cfg.policies)
    rec = record_matches(chunk_state(29, rules.target, stream=5), cfg.matches, -1,
                         Seats(kinds, params, explore), rules.kernel, MAX_HANDS)
    assert rec[2][:, 1].max() < MAX_HANDS
    mismatches = [(i, why) for i in range(cfg.matches)
                  if (why := _compare(options, cfg.policies, rec, i)) is not None]
    assert mismatches == [], f"{len(mismatches)} matches differ; first: {mismatches[:3]}"
    if rules.target == 1:  # the first hand with a single side on top ends the match
        assert (rec[2][:, 1] == 1).mean() > 0.9


def test_S4_a_match_to_the_highest_target_ends_within_its_max_hands() -> None:
    """S4: the hand cap grows with the target, so a match to 1000 (about 150 hands among four
    players) is finished, not stopped; the usual targets keep the cap they always had."""
    from simcards.ronda.matches_batch import max_hands
    from simcards.ronda.rules import MAX_TARGET

    assert ref.MAX_TARGET == MAX_TARGET  # the reference engine takes the same targets
    for target in (11, 21, 41):
        assert max_hands(RondaRules.make(players=4, target=target)) == 200
    rules = RondaRules.make(players=4, target=MAX_TARGET)
    cap = max_hands(rules)
    kinds, params, explore = policy_arrays((G, G, G, G))
    stats = named_match_stats(simulate_matches(chunk_state(31, 0, stream=5), 10, -1,
                                                Seats(kinds, params, explore), rules.kernel,
                                                cap))
    assert stats["unfinished"][0] == 0 and stats["wins"].sum() == 10
    assert 100 < stats["hands"][0] / 10 < cap / 2


@pytest.mark.parametrize("bad", [0, -3, "x", "2.5", 1.5, True, None])
def test_max_hands_must_be_a_positive_integer(bad) -> None:
    with pytest.raises(UsageError, match="max_hands"):
        check_max_hands(bad)
    assert check_max_hands(7) == 7 and check_max_hands("200") == 200


def test_stat_names_and_shapes() -> None:
    kr = RondaRules.make(players=4, teams="on").kernel
    kinds, params, explore = policy_arrays((G, R, G, R))
    seats = Seats(kinds, params, explore)
    stats = simulate_matches(chunk_state(59, 0, stream=5), 10, -1, seats, kr, 50)
    named = named_match_stats(stats)
    assert tuple(named) == MATCH_STAT_NAMES
    assert named["wins"].shape == (2,) and named["points"].shape == (2, codes.N_SOURCES)
    assert named["length_hist"].shape == (51,)
    assert all(a.dtype == np.int64 for a in named.values())
    ka, pa, ea = policy_arrays([G])
    sa = Seats(ka, pa, ea)
    dup = named_duplicate_stats(simulate_duplicate(chunk_state(59, 1, stream=5), 5, -1, sa,
                                                   sa, kr, 50))
    assert tuple(dup) == DUPLICATE_STAT_NAMES
    assert all(a.dtype == np.int64 and a.shape == (1,) for a in dup.values())


# ---------------------------------------------------------------- duplicate


DUPLICATE_RULES = [
    {"players": 2},
    {"players": 2, "mode": "classic", "hands_to_win": 3},
    {"players": 3, "target_check": "immediate"},
    {"players": 4},
    {"players": 4, "teams": "on", "derba_chain": "tiers"},
]
DUP_IDS = ["2p", "2p-classic-h3", "3p-immediate", "4p", "4t-tiers"]


@pytest.mark.parametrize("options", DUPLICATE_RULES, ids=DUP_IDS)
def test_duplicate_greedy_against_itself_differs_by_exactly_zero(options) -> None:
    """The same policy on both sides of every deal set: the plays of a set are the same match
    with the seats relabelled, so every paired difference is exactly 0."""
    kr = RondaRules.make(**options).kernel
    ka, pa, ea = policy_arrays([G])
    sa = Seats(ka, pa, ea)
    stats = named_duplicate_stats(simulate_duplicate(chunk_state(61, 0, stream=5), 500, -1, sa,
                                                      sa, kr, 200))
    for name in ("win_diff", "win_diff_sq", "points_diff", "points_diff_sq", "cards_diff",
                 "cards_diff_sq"):
        assert stats[name][0] == 0, name
    d = win_rate_difference(stats)
    assert (d.value, d.low, d.high) == (0.0, 0.0, 0.0)
    p = points_per_hand_difference(stats)
    assert (p.value, p.low, p.high) == (0.0, 0.0, 0.0)
    assert stats["violations"][0] == 0 and stats["unfinished"][0] == 0


@pytest.mark.parametrize("options", DUPLICATE_RULES, ids=DUP_IDS)
def test_duplicate_greedy_beats_random(options) -> None:
    rules = RondaRules.make(**options)
    kr = rules.kernel
    ka, pa, ea = policy_arrays([G])
    sa = Seats(ka, pa, ea)
    kb, pb, eb = policy_arrays([R])
    sb = Seats(kb, pb, eb)
    stats = named_duplicate_stats(simulate_duplicate(chunk_state(67, 0, stream=5), 400, -1, sa,
                                                      sb, kr, 200))
    d = win_rate_difference(stats)
    assert d.value > 0 and d.excludes(0.0), d
    c = cards_per_hand_difference(stats)
    assert c.value > 0 and c.excludes(0.0), c
    if rules.mode == "points":
        p = points_per_hand_difference(stats)
        assert p.value > 0 and p.excludes(0.0), p
    a, b = duplicate_win_rates(stats)
    assert a.value - b.value == pytest.approx(d.value)
    summary = duplicate_summary(stats)
    assert summary["win_rate_difference"]["value"] == pytest.approx(d.value)


def test_duplicate_random_against_random_is_fair() -> None:
    """Random against random: the paired difference of win rates has mean 0; checked within 4
    of its standard errors (estimated from the deal sets themselves)."""
    kr = RondaRules.make(players=3).kernel
    ka, pa, ea = policy_arrays([R])
    sa = Seats(ka, pa, ea)
    stats = named_duplicate_stats(simulate_duplicate(chunk_state(71, 0, stream=5), 6000, -1, sa,
                                                      sa, kr, 200))
    d = win_rate_difference(stats)
    se = (d.high - d.low) / (2 * 1.959963984540054)
    assert se > 0 and abs(d.value) < 4 * se


@pytest.mark.parametrize("options,a,b", [
    ({"players": 2, "target": 11, "target_check": "immediate"}, R, G),
    ({"players": 3, "target": 11}, G, R),
    ({"players": 4, "teams": "on", "mode": "classic", "hands_to_win": 2}, R, G),
], ids=["2p", "3p", "4t-classic"])
def test_duplicate_plays_agree_with_reference_and_stats_are_their_tally(options, a, b) -> None:
    """Every play of a duplicate set is a match the reference plays alike on the recorded
    decks, with A's policy on A's seats; the statistics are the per-set tallies of D, X, H."""
    rules = RondaRules.make(**options)
    kr = rules.kernel
    ka, pa, ea = policy_arrays([a])
    sa = Seats(ka, pa, ea)
    kb, pb, eb = policy_arrays([b])
    sb = Seats(kb, pb, eb)
    n_sets = 40
    state = chunk_state(73, 0, stream=5)
    rec = record_duplicate(state.copy(), n_sets, -1, sa, sb, kr, MAX_HANDS)
    stats = named_duplicate_stats(rec[0])
    sim = named_duplicate_stats(simulate_duplicate(state.copy(), n_sets, -1, sa, sb, kr, MAX_HANDS))
    assert _equal_stats(stats, sim)
    _, first, results, scores, _, decks, dealers, us, seeds, hand_scores = rec
    n = rules.players
    n_plays, m = duplicate_plays(kr)
    options_ref = _options(rules)
    two_sides = rules.n_sides == 2
    sums = dict.fromkeys(("d", "d2", "x", "x2", "h", "h2", "xh"), 0)
    for i in range(n_sets):
        wa = wb = pa_ = pb_ = hh = 0
        for r in range(n_plays):
            k = i * n_plays + r
            roles = [(p - r) % n for p in range(n)]
            policies = tuple(a if (q % 2 == 0 if two_sides else q == 0) else b for q in roles)
            play = (None, first, results, scores, decks, dealers, us, seeds, hand_scores)
            assert _compare(options_ref, policies, play, k) is None, (i, r)
            a_side = rules.side_of(r)
            w = results[k, 0]
            wa += w == a_side
            wb += w != a_side
            pa_ += scores[k, a_side]
            pb_ += scores[k].sum() - scores[k, a_side]
            hh += results[k, 1]
        d, x, h = m * wa - wb, m * pa_ - pb_, m * hh
        for key, v in (("d", d), ("d2", d * d), ("x", x), ("x2", x * x), ("h", h),
                       ("h2", h * h), ("xh", x * h)):
            sums[key] += v
    assert stats["win_diff"][0] == sums["d"] and stats["win_diff_sq"][0] == sums["d2"]
    assert stats["points_diff"][0] == sums["x"] and stats["points_diff_sq"][0] == sums["x2"]
    assert stats["set_hands"][0] == sums["h"] and stats["set_hands_sq"][0] == sums["h2"]
    assert stats["points_diff_hands"][0] == sums["xh"]
    assert stats["b_seats"][0] == n_sets * n_plays * m


# ---------------------------------------------------------------- summaries


def test_summaries_mean_and_ratio_intervals_match_direct_formulas() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(-30, 60, 500)
    h = rng.integers(2, 12, 500)
    e = mean_interval(x.sum(), (x * x).sum(), 500, scale=4.0)
    half = 1.959963984540054 * x.std(ddof=1) / math.sqrt(500)
    assert e.value == pytest.approx(x.mean() / 4)
    assert (e.low, e.high) == pytest.approx(((x.mean() - half) / 4, (x.mean() + half) / 4))
    r = ratio_interval(x.sum(), (x * x).sum(), h.sum(), (h * h).sum(), (x * h).sum(), 500)
    ratio = x.sum() / h.sum()
    resid = x - ratio * h
    half = 1.959963984540054 * resid.std(ddof=1) / math.sqrt(500) / h.mean()
    assert r.value == pytest.approx(ratio)
    assert (r.low, r.high) == pytest.approx((ratio - half, ratio + half))


def test_summaries_match_length_quantiles_from_the_histogram() -> None:
    lengths = np.array([1] * 10 + [2] * 40 + [3] * 30 + [4] * 15 + [7] * 5)
    hist = np.bincount(lengths, minlength=11)
    stats = {"matches": np.array([100]), "hands": np.array([lengths.sum()]),
             "hands_sq": np.array([(lengths ** 2).sum()]), "length_hist": hist,
             "unfinished": np.array([0])}
    out = match_length(stats)
    assert out["quantiles"] == {0.05: 1, 0.25: 2, 0.5: 2, 0.75: 3, 0.95: 4}
    assert out["mean"].value == pytest.approx(lengths.mean())
    assert out["sd"] == pytest.approx(lengths.std(ddof=1))  # the sample standard deviation
    assert out["max_hands"] == 10
