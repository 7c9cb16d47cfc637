"""``simcards romi rounds`` and ``simcards romi games``: the JSON against facts that hold exactly
(every round ends with one player going out or a stall, T9, G1; win shares add up to 1, G6),
games played round by round equal the engine's own games (D5), the same numbers for any
``--workers``, and one line with exit status 2 for every kind of bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simcards.core.cli import main
from simcards.core.rng import chunk_state
from simcards.romi import engine as E
from simcards.romi import rounds as R
from simcards.romi.kernel import engine_args
from simcards.romi.rules import RomiRules


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def four_mixed() -> dict:
    from simcards.romi import api

    return api.rounds(players=4, policies="greedy,rummy:4,threshold:70,greedy", rounds=600,
                      seed=3, workers=1, store="none")


def test_g1_t9_every_round_ends_by_going_out_or_a_stall(four_mixed) -> None:
    out = four_mixed
    n = out["rounds"]
    went_out = round(sum(out["go_out_rate"]) * n)
    assert went_out + round(out["stalled_rate"] * n) == n
    for p in range(4):
        assert out["rummy_rate"][p] <= out["go_out_rate"][p]
        lo, hi = out["score_ci"][p]
        assert lo < out["score_mean"][p] < hi
    q = out["turns_quantiles"]
    assert list(q) == ["5%", "25%", "50%", "75%", "95%"]
    assert q["5%"] <= q["25%"] <= q["50%"] <= q["75%"] <= q["95%"]
    assert q["5%"] <= out["turns_mean"] <= q["95%"]


def test_q4_threshold_seat_opens_later_than_greedy(four_mixed) -> None:
    """Q4: threshold:70 never opens below 70, so it is left unopened more often than the two
    greedy seats (a difference of several standard errors on 600 rounds)."""
    never = four_mixed["never_opened_rate"]
    assert never[2] > max(never[0], never[3])


def test_d5_games_round_by_round_equal_the_engines_games() -> None:
    rules = RomiRules.make(players=3, rounds=3)
    rl, kinds, params = engine_args(rules, ["greedy", "rummy:3", "greedy"])
    cfg = R.RoundConfig(rl, kinds, params, 3, 3, -1)
    stats = R.games_chunk(chunk_state(9, 0), 12, cfg)
    totals, winners = E.simulate_games(chunk_state(9, 0), 12, rl, kinds, params)
    assert stats["games"][0] == 12 and stats["rounds"][0] == 36
    np.testing.assert_array_equal(stats["total"], totals.sum(axis=0))
    np.testing.assert_array_equal(stats["total_sq"], (totals * totals).sum(axis=0))
    shares = winners / winners.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(stats["win_share"], shares.sum(axis=0))


def test_g6_games_win_shares_add_up_to_one_and_workers_do_not_change_the_numbers(
        capsys) -> None:
    argv = ["romi", "games", "--players", "2", "--rounds", "2", "--games", "40", "--json",
            "--store", "none", "--seed", "5"]
    one = _json(capsys, [*argv, "--workers", "1"])
    two = _json(capsys, [*argv, "--workers", "2"])
    assert one == two
    assert sum(one["win_rate"]) == pytest.approx(1.0)
    assert one["rounds_played"] == 80
    assert one["rules"] == {"players": 2, "open_min": 51, "ace_low_value": 1, "rounds": 2}


@pytest.mark.parametrize("argv, fragment", [
    (["rounds", "--players", "6"], "players"),
    (["rounds", "--policies", "bogus"], "bogus"),
    (["rounds", "--policies", "threshold:40"], "threshold"),
    (["rounds", "--policies", "greedy,greedy"], "1 or 4 entries"),
    (["rounds", "--rounds", "0"], "--rounds"),
    (["rounds", "--dealer", "9"], "--dealer"),
    (["rounds", "--open-min", "0"], "open_min"),
    (["games", "--rounds", "0"], "rounds"),
    (["games", "--games", "x"], "--games"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, fragment) -> None:
    assert main(["romi", *argv, "--store", "none"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert fragment in err


@pytest.mark.parametrize("command, size, total", [
    ("rounds", R.ROUNDS_CHUNK, "--rounds"), ("games", R.GAMES_CHUNK, "--games")])
def test_an_interrupted_run_resumes_to_the_uninterrupted_json(tmp_path, capsys,
                                                              interrupt_after_chunks,
                                                              command, size, total) -> None:
    """Ctrl-C after two finished chunks keeps them (exit 130); the same command resumes from
    them and prints exactly the JSON of a run never interrupted."""
    args = ["romi", command, "--players", "2", total, str(3 * size), "--seed", "4", "--json",
            "--workers", "1"]
    if command == "games":
        args += ["--rounds", "2"]
    assert main([*args, "--store", "none"]) == 0
    expected = json.loads(capsys.readouterr().out)
    store = tmp_path / "store"
    interrupt_after_chunks(2)
    assert main([*args, "--store", str(store)]) == 130
    assert "2 finished chunks kept" in capsys.readouterr().err
    interrupt_after_chunks(None)
    assert main([*args, "--store", str(store)]) == 0
    assert json.loads(capsys.readouterr().out) == expected
    (run,) = list(store.iterdir())
    manifest = json.loads((run / "manifest.json").read_text())
    assert (manifest["chunks_resumed"], manifest["chunks_computed"]) == (2, 1)
