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
from simcards.romi import round_kernel as E
from simcards.romi import rounds_batch as R
from simcards.romi.kernel_state import Seats
from simcards.romi.records import engine_args
from simcards.romi.rules import RomiRules
from tests.cli_checks import assert_one_line_error


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
    cfg = R.RoundConfig(rl, Seats(kinds, params), 3, 3, -1)
    stats = R.games_chunk(chunk_state(9, 0), 12, cfg)
    totals, winners = E.simulate_games(chunk_state(9, 0), 12, rl, Seats(kinds, params))
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
    assert one["rules"] == {"players": 2, "open_min": 51, "ace_low_value": 1, "rounds": 2,
                            "swap_keeps_romi": False}


@pytest.mark.parametrize("argv, fragment", [
    (["rounds", "--players", "6"], "players"),
    (["rounds", "--policies", "bogus"], "bogus"),
    (["rounds", "--policies", "threshold:40"], "threshold"),
    (["rounds", "--policies", "greedy,greedy"], "1 or 4 entries"),
    (["rounds", "--rounds", "0"], "--rounds"),
    (["rounds", "--dealer", "9"], "--dealer"),
    (["rounds", "--open-min", "0"], "--open-min must be between 1 and 140 (rule O1), got 0"),
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


def test_a_completed_run_says_on_stderr_that_it_is_read_from_the_store(tmp_path,
                                                                       capsys) -> None:
    """Run twice, the second answer comes from the store: with --json too, stderr says that
    the run was already complete (one chunk: in the singular) and where it is kept."""
    store = tmp_path / "store"
    args = ["romi", "rounds", "--players", "2", "--rounds", "300", "--json", "--workers", "1",
            "--store", str(store)]
    assert main(args) == 0
    first = capsys.readouterr()
    assert first.err == ""
    assert main(args) == 0
    second = capsys.readouterr()
    assert json.loads(second.out) == json.loads(first.out)
    (run,) = list(store.iterdir())
    assert second.err == ("the run was already complete: its result is read from the run store "
                          f"(1 finished chunk in {run})\n")


def test_a_resumed_run_and_an_interrupted_one_count_one_chunk_in_the_singular(
        tmp_path, capsys, interrupt_after_chunks) -> None:
    store = tmp_path / "store"
    args = ["romi", "rounds", "--players", "2", "--rounds", str(2 * R.ROUNDS_CHUNK), "--json",
            "--workers", "1", "--store", str(store)]
    interrupt_after_chunks(1)
    assert main(args) == 130
    (run,) = list(store.iterdir())
    assert f"interrupted; 1 finished chunk kept in {run}, run the same" in capsys.readouterr().err
    interrupt_after_chunks(None)
    assert main(args) == 0
    assert capsys.readouterr().err == f"resumed 1 finished chunk from {run}\n"


HUGE = "99999999999999999999"
"""Past any 64-bit integer: a count or rule that reached numpy unchecked would overflow."""


@pytest.mark.parametrize("argv, fragment", [
    (["games", "--rounds", HUGE, "--games", "1"], "--rounds must be between 1 and 100"),
    (["compare", "greedy", "greedy", "--rounds", HUGE], "--rounds must be between 1 and 100"),
    (["games", "--rounds", "101", "--games", "1"], "between 1 and 100 (rule D5, G6), got 101"),
    (["rounds", "--open-min", "1000000"], "--open-min"),
    (["rounds", "--open-min", "141"], "between 1 and 140 (rule O1), got 141"),
    (["compare", "greedy", "threshold:1000", "--open-min", "1001"], "between 1 and 140"),
    (["rounds", "--open-min", HUGE], "--open-min"),
    (["rounds", "--dealer", HUGE], "--dealer"),
    (["rounds", "--players", HUGE], "players"),
    (["rounds", "--ace-low-value", HUGE], "--ace-low-value"),
    (["rounds", "--rounds", HUGE], "--rounds"),
    (["games", "--games", HUGE], "--games"),
    (["compare", "greedy", "greedy", "--deals", HUGE], "--deals"),
    (["compare", "greedy", "greedy", "--dealer", HUGE], "--dealer"),
    (["rounds", "--seed", HUGE], "--seed"),
    (["rounds", "--policies", "threshold:" + HUGE], "X must be between 51 and 1000"),
    (["rounds", "--policies", "rummy:" + HUGE], "K must be between 0 and 14"),
    (["compare", "rummy:" + HUGE, "greedy"], "K must be between 0 and 14"),
    (["rounds", "--policies", "greedy,"], "empty entry"),
    (["rounds", "--policies", "greedy,,greedy,greedy"], "empty entry"),
])
def test_huge_out_of_range_or_empty_values_are_one_line_and_exit_2(capsys, argv,
                                                                   fragment) -> None:
    """Every count and rule of every Römi command has a maximum: a huge value is one line,
    never an OverflowError, and a game of 10**11 rounds is refused rather than run without
    ever showing progress; an --open-min no opening can reach (O1: at most 140) is refused
    rather than stalling every round."""
    assert_one_line_error(capsys, ["romi", *argv, "--store", "none"], fragment)


def test_win_rates_get_wilson_intervals(capsys) -> None:
    """A policy that can hardly ever open (threshold:140) wins (almost) no game: its interval
    is Wilson's, inside [0, 1] and not empty, where the normal one was [0, 0] or below 0."""
    from simcards.core.stats import wilson

    out = _json(capsys, ["romi", "games", "--players", "2", "--policies", "threshold:140,greedy",
                         "--rounds", "1", "--games", "64", "--json", "--workers", "1",
                         "--store", "none"])
    for rate, ci in zip(out["win_rate"], out["win_ci"], strict=True):
        lo, hi = wilson(rate * 64, 64)
        assert ci == pytest.approx([lo, hi], abs=1e-12)
        assert 0 <= ci[0] <= rate <= ci[1] <= 1
    assert out["win_rate"][0] < 0.05 and out["win_ci"][0][1] > out["win_rate"][0]


def test_compare_win_rates_get_wilson_intervals_b_the_complement_per_seat(capsys) -> None:
    from simcards.core.stats import wilson

    out = _json(capsys, ["romi", "compare", "threshold:140", "greedy", "--players", "3",
                         "--rounds", "1", "--deals", "30", "--json", "--workers", "1",
                         "--store", "none"])
    games = out["deal_sets"] * 3
    a, b = out["win_rate"]["a"], out["win_rate"]["b"]
    lo, hi = wilson(a["mean"] * games, games)
    assert a["ci"] == pytest.approx([lo, hi], abs=1e-12)
    assert b["mean"] == pytest.approx((1 - a["mean"]) / 2)
    assert b["ci"] == pytest.approx([(1 - hi) / 2, (1 - lo) / 2], abs=1e-12)
    assert 0 <= a["ci"][0] <= a["mean"] <= a["ci"][1] <= 1
