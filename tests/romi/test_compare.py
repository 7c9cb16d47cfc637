"""``simcards romi compare A B``: two policies on the same deals with the seats rotated (D3, D4,
D5, G6). A policy against itself differs by exactly 0 on every deal set; each set's sums are
those of its games replayed round by round from the documented chance; a known gap (Q3's
``rummy:0`` never opens but to go out, Q5's ``expert`` beats greedy) is found with an interval
that excludes 0; the JSON does not depend on ``--workers`` or on an interruption; bad input is
one line and exit status 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simcards.core.cli import main
from simcards.core.rng import chunk_state
from simcards.core.rng_kernel import next_u64, randbelow, seed_state
from simcards.romi import api
from simcards.romi import compare_batch as RC
from simcards.romi import round_kernel as E
from simcards.romi.rules import RomiRules


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _config(players: int, rounds: int, a: str, b: str) -> RC.CompareConfig:
    rules = RomiRules.make(players=players, rounds=rounds)
    return api.config_for(rules, api.compare_policy(a, "A", rules),
                          api.compare_policy(b, "B", rules), None)


def test_d3_d4_a_policy_against_itself_differs_by_exactly_zero_on_every_set(capsys) -> None:
    """Every rotation is dealt the same decks by the same dealers, so with A = B every rotation
    plays the same games: each set's differences are exactly 0 (their sum of squares too)."""
    stats = RC.compare_chunk(chunk_state(4, 0), 12, _config(3, 2, "rummy:3", "rummy:3"))
    for name in ("score_diff", "score_diff_sq", "win_diff", "win_diff_sq"):
        assert stats[name][0] == 0.0, name
    assert stats["score_a"][0] * 2 == stats["score_b"][0] > 0  # B holds two seats of three
    out = _json(capsys, ["romi", "compare", "greedy", "greedy", "--players", "3", "--rounds",
                         "2", "--deals", "30", "--json", "--workers", "1", "--store", "none"])
    assert out["score_diff"] == {"mean": 0.0, "ci": [0.0, 0.0]}
    assert out["win_rate_diff"] == {"mean": 0.0, "ci": [0.0, 0.0]}
    assert out["win_rate"]["a"]["mean"] == pytest.approx(1 / 3)
    assert out["go_out_rate"]["a"] == out["go_out_rate"]["b"]
    assert out["rounds_played"] == 30 * 3 * 2


def test_d5_g6_each_sets_sums_are_its_games_replayed_from_the_documented_chance() -> None:
    """Per set: the first dealer and a seed from the chunk's stream; every rotation replays
    the rounds from a fresh stream seeded with it, the deal moving one seat left each round
    (D5); A's round scores and B's add up, and the lowest total wins, shared wins split (G6)."""
    n, rounds, sets = 3, 3, 5
    cfg = _config(n, rounds, "threshold:60", "greedy")
    stats = RC.compare_chunk(chunk_state(11, 0), sets, cfg)
    state = chunk_state(11, 0)
    sub = np.zeros(4, np.uint64)
    sa = sb = wa = wb = 0.0
    dealt = 0
    for _ in range(sets):
        d0 = int(randbelow(state, n))
        seed = np.uint64(next_u64(state))
        decks = []
        for r in range(n):
            seed_state(sub, seed)
            totals = np.zeros(n, np.int64)
            for k in range(rounds):
                before = sub.copy()
                out = E.simulate_rounds(sub, 1, cfg.rules, cfg.rotations[r], (d0 + k) % n)
                assert out[6][0] == (d0 + k) % n
                totals += out[0][0]
                decks.append((k, int(before[0])))
            won = totals == totals.min()
            sa += totals[r]
            sb += totals.sum() - totals[r]
            wa += won[r] / won.sum()
            wb += (won.sum() - won[r]) / won.sum()
        assert len(set(decks)) == rounds  # every rotation starts round k from one state
        dealt += n * rounds
    assert stats["rounds"][0] == dealt and stats["sets"][0] == sets
    assert stats["score_a"][0] == sa and stats["score_b"][0] == sb
    assert stats["win_a"][0] == pytest.approx(wa * RC.WIN_UNITS)
    assert stats["win_b"][0] == pytest.approx(wb * RC.WIN_UNITS)
    s = RC.summarise(stats, n, rounds)
    assert s["score_mean"]["a"]["mean"] == pytest.approx(sa / (sets * n * rounds))
    assert s["score_diff"]["mean"] == pytest.approx(
        sa / (sets * n * rounds) - sb / (sets * n * (n - 1) * rounds))
    assert s["win_rate_diff"]["mean"] == pytest.approx(wa / (sets * n)
                                                       - wb / (sets * n * (n - 1)))


def test_q3_rummy_0_concedes_more_points_than_greedy_by_an_interval_that_excludes_zero(
        capsys) -> None:
    """Q3: ``rummy:0`` waits the whole round for a one-turn Römi, so it is usually left with
    100 points (G5): a large positive score difference against greedy, A minus B."""
    out = _json(capsys, ["romi", "compare", "rummy:0", "greedy", "--players", "4", "--rounds",
                         "2", "--deals", "30", "--json", "--workers", "1", "--store", "none"])
    lo, hi = out["score_diff"]["ci"]
    assert 0 < lo < out["score_diff"]["mean"] < hi
    assert out["score_diff"]["mean"] == pytest.approx(
        out["score_mean"]["a"]["mean"] - out["score_mean"]["b"]["mean"])
    assert out["win_rate_diff"]["mean"] < 0
    assert out["never_opened_rate"]["a"] > 0.5 > out["never_opened_rate"]["b"]
    assert out["rummy_rate"]["a"] == out["go_out_rate"]["a"]  # it goes out only for -20
    assert (out["a"], out["b"], out["players"], out["deal_sets"]) == ("rummy:0", "greedy", 4,
                                                                      30)


def test_q5_expert_beats_greedy_in_four_player_games_by_an_interval_that_excludes_zero(
        capsys) -> None:
    """Q5: the expert's discard (unseen copies, prospect, no feeding) opens more often and goes
    out sooner than greedy's at four players: fewer points per round and a higher game win
    rate, each by a paired interval that excludes 0 (7-round games; the report measures the
    same comparison on 300 deal sets)."""
    out = _json(capsys, ["romi", "compare", "expert", "greedy", "--players", "4", "--deals",
                         "40", "--json", "--workers", "1", "--store", "none"])
    lo, hi = out["score_diff"]["ci"]
    assert lo < out["score_diff"]["mean"] < hi < 0
    lo, hi = out["win_rate_diff"]["ci"]
    assert 0 < lo < out["win_rate_diff"]["mean"] < hi
    assert out["never_opened_rate"]["a"] < out["never_opened_rate"]["b"]
    assert out["go_out_rate"]["a"] > out["go_out_rate"]["b"]


def test_the_same_seed_gives_the_same_json_for_any_workers(capsys) -> None:
    args = ["romi", "compare", "rummy:2", "greedy", "--players", "3", "--rounds", "2",
            "--deals", "200", "--seed", "5", "--json", "--store", "none"]
    assert RC.chunk_size(3, 2) < 200  # several chunks
    one = _json(capsys, [*args, "--workers", "1"])
    two = _json(capsys, [*args, "--workers", "2"])
    assert one == two
    other = _json(capsys, [*args[:-5], "--seed", "6", "--json", "--store", "none",
                           "--workers", "1"])
    assert other["score_diff"] != one["score_diff"]


def test_an_interrupted_run_resumes_to_the_uninterrupted_json(tmp_path, capsys,
                                                              interrupt_after_chunks) -> None:
    args = ["romi", "compare", "threshold:70", "greedy", "--players", "2", "--rounds", "4",
            "--deals", "192", "--seed", "8", "--json", "--workers", "1"]
    assert RC.chunk_size(2, 4) == 64  # three chunks
    expected = _json(capsys, [*args, "--store", "none"])
    store = tmp_path / "store"
    interrupt_after_chunks(2)
    assert main([*args, "--store", str(store)]) == 130
    assert "2 finished chunks kept" in capsys.readouterr().err
    interrupt_after_chunks(None)
    assert _json(capsys, [*args, "--store", str(store)]) == expected
    (run,) = list(store.iterdir())
    manifest = json.loads((run / "manifest.json").read_text())
    assert run.name.startswith("romi-compare-")
    assert (manifest["chunks_resumed"], manifest["chunks_computed"]) == (2, 1)


@pytest.mark.parametrize("argv, fragment", [
    (["bogus", "greedy"], "bogus"),
    (["greedy", "rummy:99"], "rummy"),
    (["expert:3", "greedy"], "expert"),
    (["greedy,rummy:4", "greedy"], "one policy"),
    (["greedy", "greedy", "--players", "6"], "players"),
    (["threshold:40", "greedy"], "threshold"),
    (["greedy", "threshold:60", "--open-min", "70"], "threshold"),
    (["greedy", "greedy", "--deals", "0"], "--deals"),
    (["greedy", "greedy", "--rounds", "0"], "rounds"),
    (["greedy", "greedy", "--dealer", "4"], "--dealer"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, fragment) -> None:
    assert main(["romi", "compare", *argv, "--store", "none"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert fragment in err
