"""The exact game solver (Markov chain over lives and dealer) against the Monte Carlo game
kernel, on small tables spanning both absolute-tie options (G6), Poroli (R10), tie rules and
fixed or random first dealers (G4)."""

from __future__ import annotations

import numpy as np
import pytest

from simcards.ronco import games_batch
from simcards.ronco.games_exact import exact_game
from simcards.ronco.policies import Policy
from simcards.ronco.rules import RoncoRules

GAMES = 400_000

TABLES = [
    ("2p-1life-void", RoncoRules.make(), [Policy()] * 2, 1, None),
    ("2p-3lives-replay-first-dealer-0", RoncoRules.make(absolute_tie="replay"),
     [Policy("threshold", 4, 6), Policy("informed", 6, 5)], 3, 0),
    ("3p-2lives-replay", RoncoRules.make(absolute_tie="replay"),
     [Policy("threshold", 6, 6)] * 3, 2, None),
    ("3p-3lives-poroli-mixed", RoncoRules.make(poroli=True),
     [Policy("informed", 5, 5), Policy("threshold", 4, 6), Policy("threshold", 7, 7)], 3, None),
    ("4p-3lives-default", RoncoRules.make(), [Policy()] * 4, 3, None),
    ("4p-2lives-ties-first-informed-fd2", RoncoRules.make(ties="first"),
     [Policy("informed", 5, 5)] * 4, 2, 2),
    ("4p-1life-poroli-replay", RoncoRules.make(poroli=True, absolute_tie="replay"),
     [Policy("threshold", 5, 6)] * 4, 1, None),
]


def _z(mc: float, exact: float, n: int) -> float:
    se = np.sqrt(max(exact * (1 - exact), 1e-300) / n)
    return (mc - exact) / se if exact * (1 - exact) > 0 else (0.0 if mc == exact else np.inf)


@pytest.mark.parametrize("case", TABLES, ids=lambda c: c[0])
def test_G1_G7_monte_carlo_games_agree_with_exact_chain(case) -> None:
    _, rules, policies, lives, first_dealer = case
    ex = exact_game(rules, policies, lives, first_dealer)
    assert ex.win.sum() + ex.draw == pytest.approx(1.0, abs=1e-12)
    mc = games_batch.simulate(rules, policies, lives, GAMES, first_dealer=first_dealer, seed=2024,
                        workers=1)
    for p_mc, p_ex in zip(mc.win_rate, ex.win, strict=True):
        assert abs(_z(p_mc, p_ex, GAMES)) < 4
    assert abs(_z(mc.draws / GAMES, ex.draw, GAMES)) < 4
    assert abs(mc.rounds_mean - ex.rounds_mean) < 4 * mc.rounds_sd / np.sqrt(GAMES) + 1e-12
    # The whole length distribution, bin by bin.
    hist = mc.hist[: len(ex.rounds_dist)] / GAMES
    for r in range(min(len(hist), len(ex.rounds_dist))):
        assert abs(_z(hist[r], ex.rounds_dist[r], GAMES)) < 4.5, f"rounds={r}"


def test_G6_replay_never_draws_and_void_draws_with_two_players() -> None:
    """Two players tie absolutely with probability 3/39 per round when both keep (R9)."""
    keep = [Policy("threshold", 0, 0)] * 2
    void = exact_game(RoncoRules.make(), keep, 1)
    assert void.draw == pytest.approx(3 / 39, abs=1e-12)
    replay = exact_game(RoncoRules.make(absolute_tie="replay"), keep, 1)
    assert replay.draw == 0.0
    assert replay.rounds_mean == pytest.approx(1 / (1 - 3 / 39), abs=1e-9)


def test_exact_game_refuses_tables_too_large() -> None:
    from simcards.core.errors import UsageError

    with pytest.raises(UsageError, match="too large"):
        exact_game(RoncoRules.make(), [Policy()] * 8, 7)


def _two_player_chain(rules: RoncoRules, policies: list[Policy], lives: int,
                      ) -> tuple[np.ndarray, float]:
    """P(player 0 wins) and the mean length by a direct two-player recursion over lives, for
    ``absolute_tie="replay"`` without Poroli: every counted round costs exactly one player one
    life (a two-player tie at the lowest is an absolute tie, replayed), and the dealer alternates
    (G5). Arrays indexed [lives of player 0, lives of player 1, dealer]; filled bottom up."""
    from simcards.ronco import rounds_batch

    q = []  # by dealer: P(the position-0 player loses | the round counts), P(absolute tie)
    for dealer in (0, 1):
        ex = rounds_batch.exact(rules, [policies[1 - dealer], policies[dealer]])
        assert ex.p_lose.sum() == pytest.approx(1 + ex.p_all_tie, abs=1e-12)
        q.append(((ex.p_lose[0] - ex.p_all_tie) / (1 - ex.p_all_tie), ex.p_all_tie))
    win = np.zeros((lives + 1, lives + 1, 2))
    mean = np.zeros((lives + 1, lives + 1, 2))
    win[1:, 0, :] = 1.0
    for a in range(1, lives + 1):
        for b in range(1, lives + 1):
            for d in (0, 1):
                p0, tie = q[d]
                first = 1 - d  # position 0, and the next dealer
                hit_first = (a - 1, b) if first == 0 else (a, b - 1)
                hit_dealer = (a, b - 1) if first == 0 else (a - 1, b)
                win[a, b, d] = p0 * win[(*hit_first, first)] + (1 - p0) * win[
                    (*hit_dealer, first)]
                mean[a, b, d] = (1 / (1 - tie) + p0 * mean[(*hit_first, first)]
                                 + (1 - p0) * mean[(*hit_dealer, first)])
    return win[lives, lives], float(mean[lives, lives].mean())


def test_G5_G7_two_players_250_lives_are_solved_and_match_a_direct_recursion() -> None:
    """2 x 250 lives (125,000 states, chains 500 rounds deep) is within MAX_STATES, so it is
    solved; the answer matches a direct two-player recursion over lives."""
    rules = RoncoRules.make(absolute_tie="replay")
    policies = [Policy("threshold", 4, 6), Policy("informed", 6, 5)]
    ex = exact_game(rules, policies, 250)
    assert ex.win.sum() + ex.draw == pytest.approx(1.0, abs=1e-12)
    assert ex.draw == 0.0
    win0_by_dealer, mean = _two_player_chain(rules, policies, 250)
    assert ex.win[0] == pytest.approx(win0_by_dealer.mean(), abs=1e-12)
    assert 0.05 < ex.win[0] < 0.95
    assert ex.rounds_mean == pytest.approx(mean, rel=1e-12)
    # A game lasts at least 250 rounds (one player loses every life).
    assert ex.rounds_dist[:250].sum() == 0.0 and ex.rounds_dist[250] > 0
    fixed = exact_game(rules, policies, 250, first_dealer=1)
    assert fixed.win[0] == pytest.approx(win0_by_dealer[1], abs=1e-12)


def test_G4_two_players_250_lives_with_one_policy_are_symmetric() -> None:
    """Same policy, first dealer drawn at random (G4): the two seats win equally often."""
    ex = exact_game(RoncoRules.make(absolute_tie="replay"), [Policy("informed", 5, 5)] * 2, 250)
    assert ex.win == pytest.approx([0.5, 0.5], abs=1e-12)


def _reference_round(rules: RoncoRules, policies: list[Policy]) -> dict[tuple, float]:
    """Two-player round outcomes from the reference engine: {(lives lost by position, absolute
    tie): probability}. Suits do not rank (C2), so the ordered (card, card, cut card) deals are
    enumerated by class (value, and whether it is the Poroli card) with their exact weights."""
    import itertools

    from simcards.ronco import reference as ref

    cards = ref.deck_cards(rules.deck)
    classes: dict[tuple[int, bool], list] = {}
    for card in cards:
        classes.setdefault((card[0], ref.is_poroli_card(card)), []).append(card)
    groups = list(classes.values())
    pols = [ref.RefPolicy(p.kind, p.T, p.Td) for p in policies]
    probs: dict[tuple, float] = {}
    for pick in itertools.product(range(len(groups)), repeat=3):
        used = [0] * len(groups)
        weight = 1.0
        deal = []
        for t, g in enumerate(pick):
            if used[g] == len(groups[g]):
                break
            weight *= (len(groups[g]) - used[g]) / (len(cards) - t)
            deal.append(groups[g][used[g]])
            used[g] += 1
        else:
            out = ref.play_round(deal[:2], deal[2], pols, deck=rules.deck,
                                 cut_king=rules.cut_king, ties=rules.ties,
                                 poroli=rules.poroli)
            key = (tuple(int(lo) + int(d) for lo, d in zip(out.losers, out.double,
                                                             strict=True)), out.absolute_tie)
            probs[key] = probs.get(key, 0.0) + weight
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-12)
    return probs


def test_G1_G7_R10_small_poroli_game_matches_every_path_played_by_the_reference() -> None:
    """Two players, 2 lives, Poroli (double losses), void absolute ties: every path of the game
    enumerated by hand, with round probabilities from the reference engine."""
    rules = RoncoRules.make(poroli=True)
    policies = [Policy("threshold", 4, 6), Policy("informed", 6, 5)]
    rounds_by_dealer = [_reference_round(rules, [policies[1 - d], policies[d]]) for d in (0, 1)]
    win = np.zeros(2)
    draw = 0.0
    length = np.zeros(8)

    def walk(lives: tuple[int, int], dealer: int, p: float, played: int) -> None:
        nonlocal draw
        first = 1 - dealer  # position 0; the dealer is position 1
        for (lost, tie), q in rounds_by_dealer[dealer].items():
            if tie:  # G6 void
                draw += p * q
                length[played + 1] += p * q
                continue
            left = list(lives)
            left[first] = max(left[first] - lost[0], 0)
            left[dealer] = max(left[dealer] - lost[1], 0)
            if min(left) == 0:
                if max(left) == 0:
                    draw += p * q
                else:
                    win[int(np.argmax(left))] += p * q
                length[played + 1] += p * q
            else:
                walk((left[0], left[1]), first, p * q, played + 1)  # G5

    for dealer in (0, 1):  # G4: either dealer, each with probability 1/2
        walk((2, 2), dealer, 0.5, 0)
    ex = exact_game(rules, policies, 2)
    np.testing.assert_allclose(ex.win, win, rtol=0, atol=1e-12)
    assert ex.draw == pytest.approx(draw, abs=1e-12)
    np.testing.assert_allclose(ex.rounds_dist[:8], length, rtol=0, atol=1e-12)
    assert ex.rounds_dist[8:].sum() == 0.0
    assert ex.rounds_mean == pytest.approx(float(length @ np.arange(8)), abs=1e-12)
