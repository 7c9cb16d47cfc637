"""The best-threshold search: common random numbers, racing, and the answer's statistics."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simcards.core.cli import main
from simcards.core.plans import run_plans
from simcards.core.rng import chunk_state
from simcards.ronco import best_threshold_batch as bt
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
    return run_plans([plan])[0]


def test_race_drops_clear_losers_and_reports_only_indistinguishable_ties() -> None:
    rules = RoncoRules.make()
    cands = [Policy("threshold", 1, 1), Policy("threshold", 12, 12), Policy("threshold", 6, 6),
             Policy("threshold", 6, 7), Policy("threshold", 7, 6)]
    gen = bt.race(rules, 4, 3, Policy(), cands, seed=5, first_stage=4096, max_games=65536,
                  z_drop=3.0)
    res = run_plans([_wrap(gen)])[0]
    assert cands[res.best].T in (6, 7)
    assert 0 not in res.alive and 1 not in res.alive  # keep-everything and pass-everything
    assert set(res.tied_with()) <= set(res.alive) - {res.best}


def _games(won: list[tuple[int, int]], total: int) -> np.ndarray:
    """Which of ``total`` common games a candidate won: the union of [start, stop) ranges."""
    out = np.zeros(total, bool)
    for start, stop in won:
        out[start:stop] = True
    return out


def test_race_tied_with_is_the_paired_z_test_on_known_game_outcomes() -> None:
    """A race fed one stage of constructed results on 10,000 common games. Against candidate 0
    (5,000 wins), candidate 1 wins 4,960 (300 games lost where 0 won, 260 won where 0 lost:
    paired z = 1.69, tied), candidate 2 wins 4,750 (z = 8.1, not tied) and candidate 3 wins
    4,950 (z = 2.13, just not tied). Unpaired intervals would call all three tied."""
    total = 10_000
    won = np.array([
        _games([(0, 5000)], total),
        _games([(300, 5000), (5000, 5260)], total),
        _games([(600, 5000), (5000, 5350)], total),
        _games([(300, 5000), (5000, 5250)], total),
    ])
    k = len(won)
    wins = won.sum(axis=1)
    beats = np.array([[int((won[i] & ~won[j]).sum()) for j in range(k)] for i in range(k)])
    cands = [Policy("threshold", t, t) for t in (5, 6, 7, 8)]
    gen = bt.race(RoncoRules.make(), 4, 3, Policy(), cands, seed=1, first_stage=total,
                  max_games=total, z_drop=100.0)
    next(gen)
    with pytest.raises(StopIteration) as stop:
        gen.send({"wins": wins, "beats": beats, "games": np.full(k, total)})
    res = stop.value.value
    assert res.best == 0 and res.alive == [0, 1, 2, 3]

    # The paired z of each against the best, from the game-by-game differences.
    z = {}
    for i in (1, 2, 3):
        d = won[0].astype(float) - won[i]
        z[i] = d.mean() / (d.std() / np.sqrt(total))
    assert z[1] == pytest.approx(1.69, abs=0.01) and z[3] == pytest.approx(2.13, abs=0.01)
    assert z[2] > 8
    for i in (1, 2, 3):
        diff, se = res.paired(0, i)
        assert diff == pytest.approx((wins[0] - wins[i]) / total, abs=1e-15)
        assert diff / se == pytest.approx(z[i], rel=1e-9)
    assert res.tied_with() == [1]
    assert res.summary()["tied_with"] == [cands[1]]
    assert res.answers(cands[1]) and not res.answers(cands[3])


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
    (["--players", "1-3"], "--players must be between 2 and 20 (rule T1)"),
    (["--players", "x"], "--players"),
    (["--field", "5"], "--field must be T:Td"),
    (["--policy", "random"], "unknown policy 'random'"),
    (["--lives", "0"], "--lives must be between 1 and 1000 (rule G1), got 0"),
])
def test_best_threshold_bad_input(capsys, args, message) -> None:
    assert main(["ronco", "best-threshold", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def _unsettled_rows() -> list[dict]:
    base = {"best_T": 6, "best_Td": 6, "win_rate": 0.16, "ci_low": 0.158, "ci_high": 0.161,
            "tied_with": [], "equilibrium_T": None, "equilibrium_Td": None,
            "equilibrium_converged": False, "equilibrium_iterations": 3}
    cycling = {**base, "players": 5, "equilibrium_cycle": [[6, 6], [5, 4], [5, 6]],
               "best_response_path": [[5, 5], [6, 6], [5, 4], [5, 6], [6, 6]]}
    mixed = {**cycling, "players": 8, "equilibrium_mixed": {
        "support": [{"T": 5, "Td": 4, "probability": 0.40}, {"T": 5, "Td": 5, "probability": 0.42},
                    {"T": 4, "Td": 4, "probability": 0.18}],
        "exploitability": 0.0013, "exploitability_ci": [0.0, 0.0019], "certified": True}}
    walking = {**base, "players": 9, "equilibrium_cycle": [],
               "best_response_path": [[5, 5], [4, 4], [4, 5]]}
    settled = {**base, "players": 3, "equilibrium_converged": True, "equilibrium_T": 6,
               "equilibrium_Td": 6, "equilibrium_cycle": [],
               "best_response_path": [[5, 5], [6, 6], [6, 6]]}
    return [settled, cycling, mixed, walking]


def test_the_table_prints_the_cycle_and_the_mixed_equilibrium_where_there_is_no_pure_one(
        capsys, monkeypatch) -> None:
    """Where best responses do not settle the table used to say only "not converged", while
    the JSON and the report's page give the cycle and the mixed equilibrium."""
    from rich.console import Console

    from simcards.ronco import cli

    monkeypatch.setattr(cli, "_console", lambda: Console(width=400, markup=False, emoji=False))
    cli._print_best({"policy": "threshold", "lives": 7, "field": "threshold:5:5",
                     "rows": _unsettled_rows()})
    out = capsys.readouterr().out
    assert "not converged" not in out.replace("not converged in 3 iterations", "")
    lines = {line.split("│")[1].strip(): line for line in out.splitlines()
             if line.startswith("│") and line.split("│")[1].strip().isdigit()}
    assert lines["3"].split("│")[5].strip() == "6:6"  # a pure equilibrium as before
    assert "none: best responses cycle 6:6 → 5:4 → 5:6 → 6:6" in lines["5"]
    assert ("none: best responses cycle 6:6 → 5:4 → 5:6 → 6:6; mixed 5:5 42%, 5:4 40%, 4:4 18%,"
            " exploitability 0.0013 [≤ 0.0019]") in lines["8"]
    assert "not converged in 3 iterations (best responses 5:5 → 4:4 → 4:5)" in lines["9"]
    assert "--mixed searches the mixed one next to them" in out


def test_mixed_adds_the_mixed_equilibrium_that_equilibrium_finds_next_to_the_race(
        capsys) -> None:
    args = ["ronco", "best-threshold", "--players", "3", "--lives", "2", "--first-stage",
            "1024", "--max-games", "2048", "--min-games", "1024", "--max-iterations", "0",
            "--gain-games", "0", "--workers", "1", "--store", "none", "--json"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main([*args, "--mixed"]) == 0
    out = json.loads(capsys.readouterr().out)
    (row,) = out["rows"]
    assert not row["equilibrium_converged"]
    found = row.pop("equilibrium_mixed")
    assert out == plain  # --mixed only adds
    assert sum(m["probability"] for m in found["support"]) == pytest.approx(1.0)
    assert main(["ronco", "equilibrium", "--players", "3", "--lives", "2", "--start",
                 found["start"], "--workers", "1", "--store", "none", "--json"]) == 0
    (same,) = json.loads(capsys.readouterr().out)["rows"]
    assert {**same, "start": found["start"]} == found
