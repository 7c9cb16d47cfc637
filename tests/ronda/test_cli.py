"""``simcards ronda``: the JSON of each command against facts known exactly (rule ids of
``seeds/ronda.md``), the same numbers for any ``--workers``, on a dask cluster and after a
resume, and one line with exit status 2 for every kind of bad input."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from math import comb, sqrt

import pytest

from simcards.core.cli import main

HANDS = ["ronda", "hands", "--json", "--store", "none"]

RONDA_PER_HOLDING = 10 * comb(4, 2) * comb(36, 2) / comb(40, 4)
"""A2: mean number of values held exactly twice in 4 cards dealt from the 40 (10 values of 4)."""
TRINGLA_PER_HOLDING = 10 * (comb(4, 3) * comb(36, 1) + comb(4, 4)) / comb(40, 4)
"""A2: mean number of values held three or four times in 4 cards from the 40."""


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _se_of_mean(ci: list[float]) -> float:
    """The standard error behind a 95% normal interval."""
    return (ci[1] - ci[0]) / (2 * 1.959963984540054)


@pytest.fixture(scope="module")
def random_pair() -> dict:
    """200k two-player hands, random against random, dealer drawn for every hand."""
    import simcards.ronda

    return simcards.ronda.hands(players=2, policies="random", hands="200k", seed=11,
                                workers=1, store="none").to_dict()


def test_a2_rondas_and_tringlas_per_holding_match_the_hypergeometric_within_4_se(
        random_pair) -> None:
    out = random_pair
    assert out["holdings"] == 10 * out["hands"]  # D4: five deals of 4 cards to two players
    for key, exact in (("ronda", RONDA_PER_HOLDING), ("tringla", TRINGLA_PER_HOLDING)):
        se = _se_of_mean(out[f"{key}_ci"])
        assert out[f"{key}_ci"][0] < out[f"{key}_rate"] < out[f"{key}_ci"][1]
        assert 0 < se < 0.01
        assert abs(out[f"{key}_rate"] - exact) < 4 * se, (key, out[f"{key}_rate"], exact, se)


def test_d2_every_hand_has_one_winner_or_none_and_deals_all_40_cards(random_pair) -> None:
    out = random_pair
    assert sum(out["hand_win_rate"]) + out["hand_tie_rate"] == pytest.approx(1.0, abs=1e-12)
    assert sum(out["cards_mean"]) == pytest.approx(40.0, abs=1e-9)  # U1: Ultima takes the rest
    assert out["violations"] == 0
    for t in range(2):
        lo, hi = out["hand_win_ci"][t]
        assert lo < out["hand_win_rate"][t] < hi


def test_s2_points_are_the_sum_of_their_sources(random_pair) -> None:
    out = random_pair
    assert set(out["points_by_source"]) == {"ronda", "tringla", "derba", "missa", "cards",
                                            "last_card"}
    for t in range(2):
        total = sum(v[t] for v in out["points_by_source"].values())
        assert total == pytest.approx(out["points_mean"][t], rel=1e-12)


def test_random_against_random_with_a_drawn_dealer_is_symmetric_within_4_se(random_pair) -> None:
    out = random_pair
    n = out["hands"]
    for key, ci_key in (("points_mean", "points_ci"), ("cards_mean", "cards_ci")):
        a, b = out[key]
        bound = 4 * (_se_of_mean(out[ci_key][0]) + _se_of_mean(out[ci_key][1]))
        assert abs(a - b) < bound, (key, a, b, bound)
    w = out["hand_win_rate"]
    se = sqrt(w[0] * (1 - w[0]) / n) + sqrt(w[1] * (1 - w[1]) / n)
    assert abs(w[0] - w[1]) < 4 * se


def test_l1_l3_random_dealer_last_card_scores_10_for_one_rey_or_as_in_five(capsys) -> None:
    """With random play the dealer's last card is uniform over the 40, so (two players) it is
    an As or a Rey with probability 8/40, and exactly then 10 points go to one side (L1-L3)."""
    out = _json(capsys, [*HANDS, "--policies", "random,random", "--dealer", "1", "--hands",
                         "100k", "--seed", "3", "--workers", "1"])
    assert out["dealer"] == 1
    total = sum(out["points_by_source"]["last_card"])
    se = 10 * sqrt(0.2 * 0.8 / out["hands"])
    assert abs(total - 2.0) < 4 * se, (total, se)
    # L3: an As always scores for the other side, so the non-dealer's share is at least 10/10
    assert out["points_by_source"]["last_card"][0] > 1.0 - 4 * se


def test_c1_classic_mode_scores_nothing_and_c2_wins_the_hand_by_cards(capsys) -> None:
    out = _json(capsys, [*HANDS, "--mode", "classic", "--players", "4", "--teams", "on",
                         "--hands", "20k", "--workers", "1"])
    assert out["sides"] == [[0, 2], [1, 3]] and out["rules"]["mode"] == "classic"
    assert out["points_mean"] == [0.0, 0.0]
    assert all(v == [0.0, 0.0] for v in out["points_by_source"].values())
    assert sum(out["cards_mean"]) == pytest.approx(40.0)
    assert sum(out["hand_win_rate"]) + out["hand_tie_rate"] == pytest.approx(1.0, abs=1e-12)
    assert out["hand_tie_rate"] > 0  # C2: 20 cards each is a hand without a winner
    assert out["holdings"] == 8 * out["hands"]  # D4: 4, 4, 2 to four players


def test_the_json_names_rules_policies_sides_and_counts(capsys) -> None:
    out = _json(capsys, [*HANDS, "--players", "3", "--policies", "greedy,random,greedy",
                         "--derba-chain", "tiers", "--announce", "every_deal",
                         "--announce-conflict", "highest_takes_all", "--hands", "5000",
                         "--seed", "9", "--workers", "1"])
    assert (out["game"], out["command"], out["players"]) == ("ronda", "hands", 3)
    assert out["rules"] == {"players": 3, "teams": "off", "derba_chain": "tiers",
                            "announce": "every_deal", "announce_conflict": "highest_takes_all",
                            "mode": "points"}
    assert out["policies"] == ["greedy", "random", "greedy"]
    assert out["sides"] == [[0], [1], [2]]
    assert (out["seed"], out["hands"], out["dealer"]) == (9, 5000, None)
    assert out["holdings"] == 9 * 5000  # D4: three deals of 4 cards (the fourth gives 1)
    assert len(out["points_mean"]) == len(out["hand_win_rate"]) == 3


def test_the_same_seed_gives_the_same_json_for_any_workers(capsys) -> None:
    args = [*HANDS, "--players", "3", "--policies", "greedy,random,greedy", "--hands", "70k",
            "--seed", "5"]
    one = _json(capsys, [*args, "--workers", "1"])
    two = _json(capsys, [*args, "--workers", "2"])
    assert one == two
    other = _json(capsys, [*HANDS, "--players", "3", "--policies", "greedy,random,greedy",
                           "--hands", "70k", "--seed", "6", "--workers", "1"])
    assert other["points_mean"] != one["points_mean"]


def test_an_interrupted_run_resumes_to_the_uninterrupted_json(tmp_path, capsys,
                                                              interrupt_after_chunks) -> None:
    args = ["ronda", "hands", "--hands", "100k", "--seed", "8", "--json", "--workers", "1"]
    expected = _json(capsys, [*args, "--store", "none"])
    store = tmp_path / "store"
    interrupt_after_chunks(2)
    assert main([*args, "--store", str(store)]) == 130
    assert "2 finished chunks kept" in capsys.readouterr().err
    interrupt_after_chunks(None)
    assert _json(capsys, [*args, "--store", str(store)]) == expected
    (run,) = list(store.iterdir())
    manifest = json.loads((run / "manifest.json").read_text())
    assert run.name.startswith("ronda-hands-")
    assert (manifest["chunks_resumed"], manifest["chunks_computed"]) == (2, 2)  # 4 x 32768


def test_the_table_output_names_each_side(capsys) -> None:
    assert main(["ronda", "hands", "--players", "4", "--teams", "on", "--hands", "2000",
                 "--workers", "1", "--store", "none"]) == 0
    out = capsys.readouterr().out
    assert "Ronda hands: 4 players, 2,000 hands" in out
    assert "0+2" in out and "1+3" in out and "Rondas per 4-card holding" in out


# ---------------------------------------------------------------- matches

MATCHES = ["ronda", "matches", "--json", "--store", "none"]


@pytest.fixture(scope="module")
def random_matches() -> dict:
    """40k two-player matches to 21, random against random, first dealer drawn."""
    import simcards.ronda

    return simcards.ronda.matches(players=2, policies="random", matches="40k", seed=12,
                                  workers=1, store="none").to_dict()


def test_s4_every_match_is_won_by_one_side_or_unfinished(random_matches) -> None:
    out = random_matches
    assert out["unfinished"] == 0 and out["violations"] == 0
    assert sum(out["win_rate"]) + out["unfinished"] / out["matches"] == pytest.approx(1.0)
    assert out["hands_played"] <= out["hands_mean"] * out["matches"]
    q = list(out["hands_quantiles"].values())
    assert list(out["hands_quantiles"]) == ["5%", "25%", "50%", "75%", "95%"]
    assert q == sorted(q) and q[0] >= 1
    lo, hi = out["hands_ci"]
    assert lo < out["hands_mean"] < hi


def test_random_matches_with_a_drawn_first_dealer_are_symmetric_within_4_se(
        random_matches) -> None:
    out = random_matches
    n = out["matches"]
    w = out["win_rate"]
    se = sqrt(w[0] * (1 - w[0]) / n) + sqrt(w[1] * (1 - w[1]) / n)
    assert abs(w[0] - w[1]) < 4 * se
    a, b = out["score_mean"]
    assert abs(a - b) < 4 * (_se_of_mean(out["score_ci"][0]) + _se_of_mean(out["score_ci"][1]))


def test_d3_with_the_first_dealer_fixed_the_first_players_side_is_seat_0(capsys) -> None:
    out = _json(capsys, [*MATCHES, "--dealer", "1", "--matches", "10k", "--seed", "2",
                         "--workers", "1"])
    assert out["dealer"] == 1
    assert out["first_player_win_rate"] == out["win_rate"][0]
    # D3: the first player's side's win rate minus the fair 1/2
    assert out["first_player_advantage"] == pytest.approx(out["win_rate"][0] - 0.5, abs=1e-12)
    lo, hi = out["first_player_advantage_ci"]
    assert lo < out["first_player_advantage"] < hi


def test_c3_a_classic_match_to_one_hand_lasts_until_a_hand_has_a_winner(capsys) -> None:
    """C2, C3: match length is geometric in the chance that a hand has no winner (20-20
    cards), which the hands command measures on its own stream."""
    hands = _json(capsys, [*HANDS, "--mode", "classic", "--policies", "random", "--hands",
                           "100k", "--seed", "31", "--workers", "1"])
    tie = hands["hand_tie_rate"]
    tie_se = sqrt(tie * (1 - tie) / hands["hands"])
    out = _json(capsys, [*MATCHES, "--mode", "classic", "--policies", "random", "--matches",
                         "40k", "--seed", "32", "--workers", "1"])
    assert out["score_mean"] == [0.0, 0.0] and out["points_per_hand"] == [0.0, 0.0]  # C1
    expected = 1 / (1 - tie)
    se = sqrt(_se_of_mean(out["hands_ci"]) ** 2 + (tie_se / (1 - tie) ** 2) ** 2)
    assert abs(out["hands_mean"] - expected) < 4 * se, (out["hands_mean"], expected, se)
    assert out["hands_quantiles"]["50%"] == 1


def test_c3_a_classic_match_to_three_hand_wins_lasts_three_hands_or_more(capsys) -> None:
    out = _json(capsys, [*MATCHES, "--mode", "classic", "--hands-to-win", "3", "--matches",
                         "5000", "--workers", "1"])
    assert out["rules"]["hands_to_win"] == 3
    assert out["hands_quantiles"]["5%"] >= 3 and out["hands_mean"] >= 3
    assert out["hands_played"] >= 3 * out["matches"]


def test_s4_a_higher_target_makes_longer_matches(capsys) -> None:
    means = []
    for target in ("11", "21", "41"):
        out = _json(capsys, [*MATCHES, "--target", target, "--matches", "5000", "--workers",
                             "1"])
        assert out["rules"]["target"] == int(target)
        means.append(out["hands_ci"])
    assert means[0][1] < means[1][0] and means[1][1] < means[2][0]


def test_s4_a_match_target_other_than_11_21_41_is_played(capsys) -> None:
    """S4 says matches are *generally* to 11, 21 or 41: any target from 1 to 1000 plays."""
    lengths = []
    for target in ("15", "100"):
        out = _json(capsys, [*MATCHES, "--target", target, "--matches", "300", "--workers",
                             "1"])
        assert out["rules"]["target"] == int(target) and out["unfinished"] == 0
        lengths.append(out["hands_mean"])
    assert lengths[0] < lengths[1]
    assert main([*MATCHES, "--target", "1001"]) == 2
    assert "between 1 and 1000 (rule S4)" in capsys.readouterr().err


def test_matches_give_the_same_json_for_any_workers(capsys) -> None:
    args = [*MATCHES, "--players", "4", "--teams", "on", "--target", "11", "--target-check",
            "immediate", "--matches", "40k", "--seed", "5"]
    one = _json(capsys, [*args, "--workers", "1"])
    assert one["sides"] == [[0, 2], [1, 3]] and one["rules"]["target_check"] == "immediate"
    assert _json(capsys, [*args, "--workers", "2"]) == one


# ---------------------------------------------------------------- compare

COMPARE = ["ronda", "compare", "--json", "--store", "none", "--workers", "1"]


@pytest.mark.parametrize("players", ["2", "3"])
def test_a_deterministic_policy_against_itself_differs_by_exactly_zero(capsys,
                                                                        players) -> None:
    """Duplicate: with greedy everywhere every seating plays the same match, so each deal set's
    paired difference is exactly 0."""
    out = _json(capsys, [*COMPARE, "greedy", "greedy", "--players", players, "--deals", "2000"])
    assert out["plays"] == int(players) * 2000 if players == "3" else 2 * 2000
    assert out["win_rate_diff"] == 0.0 and out["win_rate_diff_ci"] == [0.0, 0.0]
    assert out["points_diff"] == 0.0 and out["points_diff_ci"] == [0.0, 0.0]
    assert out["cards_diff"] == 0.0
    assert out["win_rate_a"] == pytest.approx(out["win_rate_b"], abs=1e-12)


def test_random_against_random_differs_by_zero_within_4_se(capsys) -> None:
    out = _json(capsys, [*COMPARE, "random", "random", "--deals", "20k", "--seed", "4"])
    for key in ("win_rate_diff", "points_diff", "cards_diff"):
        lo, hi = out[f"{key}_ci"]
        assert abs(out[key]) < 4 * _se_of_mean([lo, hi]), (key, out[key], lo, hi)


def test_q3_greedy_beats_random_and_the_paired_difference_is_the_rates_difference(
        capsys) -> None:
    out = _json(capsys, [*COMPARE, "greedy", "random", "--deals", "5000", "--seed", "6"])
    assert (out["policy_a"], out["policy_b"], out["deals"], out["plays"]) == \
        ("greedy", "random", 5000, 10_000)
    assert out["win_rate_diff"] == pytest.approx(out["win_rate_a"] - out["win_rate_b"],
                                                 abs=1e-12)
    assert out["win_rate_diff_ci"][0] > 0.5 and out["points_diff_ci"][0] > 2
    assert out["win_ci_a"][0] < out["win_rate_a"] < out["win_ci_a"][1]
    assert out["unfinished"] == 0 and out["violations"] == 0


# ---------------------------------------------------------------- counts of one


def test_one_hand_one_match_one_deal_set_give_null_intervals_in_json(capsys) -> None:
    """A mean over one value has no interval: one ``null`` (not ``[null, null]``); Wilson's
    intervals of rates still exist; one match's length has no standard deviation."""
    hands = _json(capsys, [*HANDS, "--hands", "1"])
    assert hands["points_ci"] == [None, None] and hands["cards_ci"] == [None, None]
    assert all(ci == [None, None] for ci in hands["points_by_source_ci"].values())
    assert hands["ronda_ci"] is None and hands["tringla_ci"] is None
    assert sum(hands["cards_mean"]) == 40.0  # D2/U1: one hand deals out all 40 cards
    assert all(lo < hi for lo, hi in hands["hand_win_ci"])
    matches = _json(capsys, [*MATCHES, "--matches", "1"])
    assert matches["hands_ci"] is None and matches["hands_sd"] is None
    assert matches["score_ci"] == [None, None]
    assert matches["hands_mean"] == matches["hands_quantiles"]["50%"] >= 1
    compare = _json(capsys, [*COMPARE, "greedy", "random", "--deals", "1"])
    assert compare["plays"] == 2
    for key in ("win_rate_diff_ci", "points_diff_ci", "cards_diff_ci"):
        assert compare[key] is None, key


@pytest.mark.parametrize("argv", [
    ["ronda", "hands", "--hands", "1", "--store", "none"],
    ["ronda", "matches", "--matches", "1", "--store", "none"],
    ["ronda", "compare", "greedy", "random", "--deals", "1", "--store", "none"],
])
def test_a_count_of_one_prints_na_for_the_intervals_it_cannot_give(capsys, argv) -> None:
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "[n/a]" in out and "None" not in out
    assert "n/a: one" in out  # the footnote says why


def test_sd_of_match_lengths_is_the_sample_one(capsys) -> None:
    """``hands_sd`` with n - 1: from two matches it is |L1 - L2| / sqrt(2)."""
    out = _json(capsys, [*MATCHES, "--matches", "2", "--seed", "5"])
    shorter, longer = out["hands_quantiles"]["5%"], out["hands_quantiles"]["95%"]
    assert shorter + longer == out["hands_mean"] * 2
    assert out["hands_sd"] == pytest.approx((longer - shorter) / sqrt(2), abs=1e-12)


# ---------------------------------------------------------------- flags without effect


@pytest.mark.parametrize(("argv", "message"), [
    (["matches", "--mode", "classic", "--target", "41", "--derba-chain", "tiers",
      "--target-check", "immediate"],
     "--derba-chain tiers, --target 41 and --target-check immediate: no effect in --mode "
     "classic"),
    (["hands", "--mode", "classic", "--announce", "every_deal"],
     "--announce every_deal: no effect in --mode classic"),
    (["hands", "--mode", "classic", "--announce-conflict", "highest_takes_all"],
     "--announce-conflict highest_takes_all: no effect in --mode classic"),
    (["hands", "--mode", "classic", "--derba-chain", "tiers"],
     "--derba-chain tiers: no effect in --mode classic"),
    (["compare", "greedy", "random", "--mode", "classic", "--target", "11"],
     "--target 11: no effect in --mode classic"),
    (["play", "--mode", "classic", "--announce", "every_deal", "--match"],
     "--announce every_deal: no effect in --mode classic"),
    (["play", "--target", "41"], "--target 41: only a whole match reads it"),
    (["play", "--target-check", "immediate"], "--target-check immediate: only a whole match"),
    (["play", "--mode", "classic", "--hands-to-win", "2"],
     "--hands-to-win 2: only a whole match reads it (rules S4, S5, C3): add --match"),
    (["play", "--target", "11", "--target-check", "immediate"],
     "--target 11 and --target-check immediate: only a whole match reads them"),
])
def test_flags_the_command_would_ignore_are_refused_in_one_line(capsys, argv, message) -> None:
    """C3: classic mode ignores the scoring and target switches; one hand (``play`` without
    ``--match``) ignores the match-level ones (S4, S5, C3)."""
    _one_line_error(capsys, ["ronda", *argv], message)


def test_flags_at_their_defaults_or_that_take_effect_are_accepted(capsys) -> None:
    out = _json(capsys, [*MATCHES, "--mode", "classic", "--target", "21", "--derba-chain",
                         "flat", "--hands-to-win", "2", "--matches", "50"])
    assert out["rules"]["mode"] == "classic" and out["rules"]["hands_to_win"] == 2
    out = _json(capsys, [*MATCHES, "--target", "41", "--derba-chain", "tiers",
                         "--target-check", "immediate", "--matches", "50"])
    assert (out["rules"]["target"], out["rules"]["derba_chain"]) == (41, "tiers")


# ---------------------------------------------------------------- classic mode tables


def test_classic_tables_show_cards_and_hand_wins_instead_of_zero_points(capsys) -> None:
    """C1/C2: nothing scores in classic mode, so no points column is printed; cards and hand
    wins are."""
    assert main(["ronda", "hands", "--mode", "classic", "--hands", "200", "--store",
                 "none"]) == 0
    out = capsys.readouterr().out
    assert "points [95% CI]" not in out and "by source" not in out
    assert "cards [95% CI]" in out and "most cards" in out and "Derbas" in out
    assert "derba_chain=" not in out and "mode=classic" in out
    assert main(["ronda", "matches", "--mode", "classic", "--matches", "200", "--store",
                 "none"]) == 0
    out = capsys.readouterr().out
    assert "final score" not in out and "points per hand" not in out
    assert "hands won per match" in out and "cards per hand" in out
    assert main(["ronda", "compare", "greedy", "random", "--mode", "classic", "--deals", "50",
                 "--store", "none"]) == 0
    out = capsys.readouterr().out
    assert "points per hand" not in out and "cards per hand" in out


def test_classic_match_json_counts_hand_wins_and_cards_per_hand(capsys) -> None:
    """C3 to one hand: every finished match has exactly one won hand, and every hand deals
    out all 40 cards (U1), so the sides' figures add up exactly."""
    out = _json(capsys, [*MATCHES, "--mode", "classic", "--matches", "500"])
    assert out["unfinished"] == 0
    assert sum(out["hand_wins_per_match"]) == pytest.approx(1.0, abs=1e-12)
    assert sum(out["cards_per_hand"]) == pytest.approx(40.0, abs=1e-9)
    assert out["hand_wins_per_match"] == pytest.approx(out["win_rate"], abs=1e-12)


# ---------------------------------------------------------------- --teams as a flag


@pytest.mark.parametrize("teams", [["--teams"], ["--teams", "on"], ["--teams=on"]])
def test_teams_alone_means_teams_on_in_every_command(capsys, teams) -> None:
    hands = _json(capsys, [*HANDS, "--players", "4", *teams, "--hands", "100"])
    assert hands["rules"]["teams"] == "on" and hands["sides"] == [[0, 2], [1, 3]]
    matches = _json(capsys, [*MATCHES, *teams, "--players", "4", "--matches", "20"])
    assert matches["sides"] == [[0, 2], [1, 3]]
    compare = _json(capsys, [*COMPARE, "greedy", "random", *teams, "--players", "4",
                             "--deals", "5"])
    assert compare["rules"]["teams"] == "on"
    _one_line_error(capsys, ["ronda", "play", *teams], "--teams on needs --players 4")


def test_teams_off_is_still_read(capsys) -> None:
    out = _json(capsys, [*HANDS, "--players", "4", "--teams", "off", "--hands", "100"])
    assert out["rules"]["teams"] == "off" and len(out["sides"]) == 4


# ---------------------------------------------------------------- play


def test_play_passes_the_checked_rules_policies_and_options_to_run_play(capsys,
                                                                        monkeypatch) -> None:
    import sys
    import types

    calls: list = []
    fake = types.ModuleType("simcards.ronda.terminal")
    fake.run_play = lambda rules, policies, **kw: calls.append((rules, policies, kw))
    monkeypatch.setitem(sys.modules, "simcards.ronda.terminal", fake)
    assert main(["ronda", "play", "--players", "3", "--policies", "greedy,random,lookahead:2",
                 "--seat", "2", "--seed", "7", "--dealer", "0", "--match", "--target", "11",
                 "--derba-chain", "tiers"]) == 0
    ((rules, policies, kw),) = calls
    assert (rules.players, rules.target, rules.derba_chain) == (3, 11, "tiers")
    assert [p.text() for p in policies] == ["greedy", "random", "lookahead:2"]
    assert kw == {"seat": 2, "seed": 7, "dealer": 0, "match": True}
    calls.clear()
    assert main(["ronda", "play", "--policies", "rollout:8,human", "--seat", "1"]) == 0
    assert calls[0][1][0].text() == "rollout:8" and calls[0][2]["seat"] == 1
    calls.clear()
    assert main(["ronda", "play"]) == 0
    ((rules, policies, kw),) = calls
    assert kw["seat"] == 0 and kw["dealer"] is None and kw["match"] is False
    assert 0 <= kw["seed"] < 2**63 and f"seed {kw['seed']}" in capsys.readouterr().err


# ---------------------------------------------------------------- bad input


def _one_line_error(capsys, argv: list[str], message: str) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("simcards: error: ") and message in lines[0], lines[0]


@pytest.mark.parametrize(("args", "message"), [
    (["--mode", "both"], "--mode must be one of points|classic"),
    (["--teams", "maybe"], "--teams must be one of off|on"),
    (["--derba-chain", "steep"], "--derba-chain must be one of flat|tiers"),
    (["--announce", "never"], "--announce must be one of first_deal|every_deal"),
    (["--announce-conflict", "x"], "--announce-conflict must be one of text|highest_takes_all"),
    (["--players", "5"], "--players must be between 2 and 4 (rule D2)"),
    (["--players", "1"], "--players must be between 2 and 4 (rule D2)"),
    (["--players", "x"], "Invalid value for '--players'"),
    (["--players", "3", "--teams", "on"], "--teams on needs --players 4"),
    (["--policies", "clever"], "--policies: unknown ronda policy 'clever'"),
    (["--policies", "lookahead:x"], "--policies: policy lookahead: D must be an integer"),
    (["--policies", "rollout:0"], "--policies: policy rollout: K must be between 1"),
    (["--policies", "lookahead:99"], "--policies: policy lookahead: D must be between 1"),
    (["--policies", "greedy:3"], "greedy takes at most 0 parameter(s)"),
    (["--players", "3", "--policies", "greedy,random"], "--policies needs 1 or 3 entries"),
    (["--policies", "greedy,greedy,greedy"], "--policies needs 1 or 2 entries"),
    (["--policies", ","], "--policies is empty"),
    (["--hands", "0"], "--hands must be positive"),
    (["--hands", "1e11"], "--hands must be at most 1e10"),
    (["--hands", "many"], "--hands must be a count"),
    (["--dealer", "2"], "--dealer must be a seat 0..1"),
    (["--seed", "-1"], "--seed must be between 0 and 2**63-1"),
    (["--workers", "0"], "--workers must be at least 1, got 0"),
    (["--target", "21"], "No such option: --target"),
    (["--policies", "greedy,"], "--policies 'greedy,': entry 2 of 2 is empty"),
    (["--players", "3", "--policies", "greedy,,random"], "entry 2 of 3 is empty"),
    (["--hands", "1m"], "--hands: unknown suffix 'm' in '1m'"),
])
def test_bad_hands_input_is_one_line_and_exit_2(capsys, args, message) -> None:
    _one_line_error(capsys, ["ronda", "hands", *args], message)


@pytest.mark.parametrize(("args", "message"), [
    (["--target", "0"], "--target must be between 1 and 1000 (rule S4), got 0"),
    (["--target", "1001"], "--target must be between 1 and 1000 (rule S4), got 1001"),
    (["--target-check", "sometimes"], "--target-check must be one of end_of_hand|immediate"),
    (["--hands-to-win", "2"], "--hands-to-win applies only to --mode classic"),
    (["--mode", "classic", "--hands-to-win", "0"], "--hands-to-win must be between 1 and"),
    (["--matches", "0"], "--matches must be positive"),
    (["--matches", "2e9"], "--matches must be at most 1e9"),
    (["--players", "4", "--policies", "greedy,random"], "--policies needs 1 or 4 entries"),
    (["--policies", "rollout:0"], "--policies: policy rollout: K must be between 1"),
    (["--dealer", "-1"], "--dealer must be a seat 0..1"),
])
def test_bad_matches_input_is_one_line_and_exit_2(capsys, args, message) -> None:
    _one_line_error(capsys, ["ronda", "matches", *args], message)


@pytest.mark.parametrize(("args", "message"), [
    (["clever", "greedy"], "policy A: unknown ronda policy 'clever'"),
    (["greedy", "lookahead:x"], "policy B: lookahead: D must be an integer"),
    (["rollout:0", "greedy"], "policy A: rollout: K must be between 1"),
    (["greedy"], "Missing argument 'B'"),
    (["greedy", "random", "--deals", "0"], "--deals must be positive"),
    (["greedy", "random", "--target", "0"], "--target must be between 1 and 1000"),
    (["greedy", "random", "--players", "5"], "--players must be between 2 and 4 (rule D2)"),
    (["greedy", "random", "--players", "3", "--teams", "on"], "--teams on needs --players 4"),
])
def test_bad_compare_input_is_one_line_and_exit_2(capsys, args, message) -> None:
    _one_line_error(capsys, ["ronda", "compare", *args], message)


@pytest.mark.parametrize(("args", "message"), [
    (["--seat", "2"], "--seat must be a seat 0..1"),
    (["--policies", "human,greedy", "--seat", "1"], "--policies: unknown ronda policy 'human'"),
    (["--players", "5"], "--players must be between 2 and 4 (rule D2)"),
    (["--policies", "lookahead:x"], "--policies: policy lookahead: D must be an integer"),
    (["--policies", "greedy,greedy,greedy"], "--policies needs 1 or 2 entries"),
    (["--target", "0"], "--target must be between 1 and 1000 (rule S4), got 0"),
    (["--seed", "-3"], "--seed must be between 0 and 2**63-1"),
])
def test_bad_play_input_is_one_line_and_exit_2(capsys, args, message) -> None:
    _one_line_error(capsys, ["ronda", "play", *args], message)


def test_help_lists_the_commands_and_every_policy_kind(capsys) -> None:
    assert main(["ronda", "--help"]) == 0
    out = capsys.readouterr().out
    for command in ("hands", "matches", "compare", "play"):
        assert command in out
    assert main(["ronda", "hands", "--help"]) == 0
    out = capsys.readouterr().out
    for text in ("--policies", "lookahead", "rollout", "--derba-chain", "--dealer", "<bool>"):
        assert (text in out) == (text != "<bool>"), text


# ---------------------------------------------------------------- dask cluster


@contextmanager
def _loopback_cluster() -> Iterator[object]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.CRITICAL) as lc:
        with distributed.Client(lc.scheduler_address, set_as_default=False, timeout=30) as c:
            c.wait_for_workers(2, timeout=120)
        yield lc


@pytest.fixture(scope="module")
def cluster() -> Iterator[object]:
    with _loopback_cluster() as lc:
        yield lc


def test_the_cluster_path_gives_the_same_json_as_the_local_one_for_hands(cluster,
                                                                          capsys) -> None:
    args = [*HANDS, "--players", "4", "--teams", "on", "--policies",
            "greedy,random,random,greedy", "--hands", "100k", "--seed", "21"]
    local = _json(capsys, [*args, "--workers", "1"])
    remote = _json(capsys, [*args, "--scheduler", cluster.scheduler_address])
    timing = remote.pop("cluster")
    assert remote == local
    assert timing["workers"] == 2 and timing["simulation_seconds"] > 0
    assert "simcards.ronda.warmups:warm_ronda_hands" in timing["warmups"]



def test_the_cluster_path_gives_the_same_json_as_the_local_one_for_matches_and_compare(
        cluster, capsys) -> None:
    for args in ([*MATCHES, "--players", "3", "--policies", "greedy,random,greedy",
                  "--target", "41", "--matches", "20k", "--seed", "22"],
                 ["ronda", "compare", "greedy", "random", "--json", "--store", "none",
                  "--players", "3", "--deals", "3000", "--seed", "23"]):
        local = _json(capsys, [*args, "--workers", "1"])
        remote = _json(capsys, [*args, "--scheduler", cluster.scheduler_address])
        assert remote.pop("cluster")["workers"] == 2
        assert remote == local
