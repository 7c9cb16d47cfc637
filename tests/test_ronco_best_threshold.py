"""The best-threshold search: common random numbers, racing, and the answer's statistics."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simcards.core.cli import main
from simcards.core.rng import chunk_state
from simcards.core.runner import run_batches
from simcards.core.stats import Z95
from simcards.ronco import best_threshold as bt
from simcards.ronco.games_exact import exact_game
from simcards.ronco.policies import Policy
from simcards.ronco.rules import RoncoRules


def _race_counts(rules, n, lives, field, cands, games, seed=3):
    cfg = bt._config(rules, n, lives, field, cands)
    return bt.race_chunk(chunk_state(seed, 0), games, cfg)


def test_race_hero_win_rate_agrees_with_exact_game_solver() -> None:
    """The hero is player 0 and meets the field's policies (G1-G7 via the exact chain)."""
    rules = RoncoRules.make()
    field = Policy("threshold", 5, 5)
    cands = [Policy("threshold", 7, 4), Policy("informed", 3, 6), Policy("threshold", 12, 1)]
    games = 200_000
    wins, _beats, total = _race_counts(rules, 3, 2, field, cands, games)
    assert total[0] == games
    for c, w in zip(cands, wins, strict=True):
        ex = exact_game(rules, [c, field, field], 2).win[0]
        assert abs(w / games - ex) < 4 * np.sqrt(ex * (1 - ex) / games), c


def test_race_results_of_a_candidate_do_not_depend_on_the_others() -> None:
    """Common random numbers: each game replays from its own state for every candidate."""
    rules = RoncoRules.make(poroli=True)
    field = Policy("informed", 5, 5)
    a = [Policy("threshold", 6, 6), Policy("threshold", 4, 7)]
    b = [Policy("threshold", 2, 2), Policy("threshold", 4, 7), Policy("informed", 6, 6)]
    wa, _, _ = _race_counts(rules, 5, 3, field, a, 3000)
    wb, _, _ = _race_counts(rules, 5, 3, field, b, 3000)
    assert wa[1] == wb[1]


def test_race_discordant_pairs_are_consistent_with_wins() -> None:
    rules = RoncoRules.make()
    cands = bt.grid(rules, "threshold")[::7]
    wins, beats, _total = _race_counts(rules, 4, 3, Policy(), cands, 5000)
    # wins_i - wins_j == beats_ij - beats_ji for every pair (the concordant games cancel).
    diff = wins[:, None] - wins[None, :]
    assert np.array_equal(diff, beats - beats.T)
    assert np.all(np.diag(beats) == 0)


def _drive(plan):
    return bt.run_lockstep([plan], lambda reqs: run_batches([r.batch for r in reqs],
                                                            workers=1))[0]


def test_race_drops_clear_losers_and_reports_only_indistinguishable_ties() -> None:
    rules = RoncoRules.make()
    cands = [Policy("threshold", 1, 1), Policy("threshold", 12, 12), Policy("threshold", 6, 6),
             Policy("threshold", 6, 7), Policy("threshold", 7, 6)]
    gen = bt.race(rules, 4, 3, Policy(), cands, seed=5, first_stage=4096, max_games=65536,
                  z_drop=3.0)
    res = bt.run_lockstep([_wrap(gen)], lambda reqs: run_batches([r.batch for r in reqs],
                                                                 workers=1))[0]
    assert cands[res.best].T in (6, 7)
    assert 0 not in res.alive and 1 not in res.alive  # keep-everything and pass-everything
    for i in res.alive:
        if i != res.best:
            diff, se = res.paired(res.best, i)
            assert (diff / se < Z95) == (i in res.tied_with())


def _wrap(gen):
    result = yield from gen
    return result


def test_best_threshold_cli_json_is_reproducible_across_workers(capsys) -> None:
    args = ["ronco", "best-threshold", "--players", "3-4", "--lives", "2", "--first-stage",
            "2048", "--max-games", "16k", "--min-games", "4096", "--gain-games", "8192",
            "--max-iterations", "2", "--json", "--store", "none"]
    assert main([*args, "--workers", "1"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*args, "--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert one == two
    assert [r["players"] for r in one["rows"]] == [3, 4]
    for r in one["rows"]:
        for key in ("players", "best_T", "best_Td", "win_rate", "ci_low", "ci_high",
                    "tied_with", "equilibrium_T", "equilibrium_Td", "informed_gain"):
            assert key in r
        assert r["ci_low"] <= r["win_rate"] <= r["ci_high"]


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "1-3"], "players must be between 2 and 20"),
    (["--players", "x"], "--players"),
    (["--field", "5"], "--field must be T:Td"),
    (["--policy", "random"], "unknown policy 'random'"),
    (["--lives", "0"], "lives must be between"),
])
def test_best_threshold_bad_input(capsys, args, message) -> None:
    assert main(["ronco", "best-threshold", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]
