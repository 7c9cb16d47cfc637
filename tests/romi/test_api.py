"""Römi's Python API: every command as a function whose ``to_dict()`` is the command's
``--json`` on the same arguments, whose ``to_frame()`` is a tidy table, and whose bad arguments
raise :class:`~simcards.core.errors.UsageError` naming the flag."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import simcards.romi
from simcards.core.cli import main
from simcards.core.errors import UsageError
from simcards.core.results import Result
from simcards.romi import api

COMMON = {"workers": 1, "store": "none"}
COMMON_FLAGS = ["--workers", "1", "--store", "none", "--json"]


def _cli_json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_every_command_is_a_package_function_returning_a_core_result() -> None:
    assert simcards.romi.COMMANDS == ("melds", "advise", "rounds", "games", "compare", "ladder")
    for name in simcards.romi.COMMANDS:
        assert getattr(simcards.romi, name) is getattr(api, name)
    assert isinstance(simcards.romi.melds(hand="Ah 2h 3h"), Result)


def test_melds_to_dict_is_the_cli_json_and_to_frame_has_a_row_per_hand(tmp_path,
                                                                         capsys) -> None:
    hands = tmp_path / "hands.txt"
    hands.write_text("Ah 2h 3h 7c 7d 7s X\n# a comment\nQh Kh Ah 5s 5d X 9c 9c\n")
    res = simcards.romi.melds(file=str(hands), ace_low_value=10)
    cli = _cli_json(capsys, ["romi", "melds", "--file", str(hands), "--ace-low-value", "10",
                             "--json"])
    assert res.to_dict() == cli
    assert res["rules"] == {"ace_low_value": 10}
    frame = res.to_frame()
    assert list(frame.columns) == ["hand", "best_value", "min_penalty", "can_go_out", "melds"]
    assert list(frame["hand"]) == ["Ah 2h 3h 7c 7d 7s X", "Qh Kh Ah 5s 5d X 9c 9c"]
    assert list(frame["best_value"]) == [h["best_value"] for h in cli["hands"]]
    assert list(frame["can_go_out"]) == [True, False]
    assert frame["melds"][0] == " | ".join(cli["hands"][0]["melds"])


def test_melds_with_a_table_counts_additions_and_swaps_in_its_frame(capsys) -> None:
    table = "5h X 7h; 7c 7d 7s X; Qh Kh X=Ah"
    res = simcards.romi.melds(hand="8h 7c", table=table)
    cli = _cli_json(capsys, ["romi", "melds", "--hand", "8h 7c", "--table", table, "--json"])
    assert res.to_dict() == cli
    assert res["table"] == ["5h X=6h 7h", "7s 7d 7c X=7h", "Qh Kh X=Ah"]
    frame = res.to_frame()
    assert list(frame.columns) == ["hand", "best_value", "min_penalty", "can_go_out", "melds",
                                   "additions", "swaps"]
    (row,) = frame.to_dict("records")
    hand = cli["hands"][0]
    assert row["best_value"] == 8 and row["min_penalty"] == 7 and row["can_go_out"]
    assert row["additions"] == len(hand["additions"]) and row["swaps"] == len(hand["swaps"])
    assert row["melds"].startswith("add 8h to 0")


def test_rounds_to_dict_is_the_cli_json_and_to_frame_has_a_row_per_player(capsys) -> None:
    res = simcards.romi.rounds(players=3, policies="greedy,rummy:4,threshold:70", rounds=300,
                               dealer=1, seed=5, **COMMON)
    cli = _cli_json(capsys, ["romi", "rounds", "--players", "3", "--policies",
                             "greedy,rummy:4,threshold:70", "--rounds", "300", "--dealer", "1",
                             "--seed", "5", *COMMON_FLAGS])
    assert res.to_dict() == cli
    assert res.to_dict() is not res.data and res["rounds"] == 300
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 3
    assert list(frame["player"]) == [0, 1, 2]
    assert list(frame["policy"]) == ["greedy", "rummy:4", "threshold:70"]
    assert list(frame["score_mean"]) == cli["score_mean"]
    assert list(frame["score_ci_low"]) == [ci[0] for ci in cli["score_ci"]]
    assert list(frame["score_ci_high"]) == [ci[1] for ci in cli["score_ci"]]
    assert {"go_out_rate", "go_out_ci_low", "rummy_rate", "rummy_ci_high",
            "never_opened_rate", "never_opened_ci_low"} <= set(frame.columns)


def test_games_to_dict_is_the_cli_json_and_to_frame_has_win_and_game_score(capsys) -> None:
    res = simcards.romi.games(players=2, policies="expert,greedy", rounds=2, games=20,
                              **COMMON)
    cli = _cli_json(capsys, ["romi", "games", "--players", "2", "--policies",
                             "expert,greedy", "--rounds", "2", "--games", "20",
                             *COMMON_FLAGS])
    assert res.to_dict() == cli
    frame = res.to_frame()
    assert len(frame) == 2 and list(frame["policy"]) == ["expert", "greedy"]
    assert list(frame["win_rate"]) == cli["win_rate"]
    assert list(frame["win_ci_low"]) == [ci[0] for ci in cli["win_ci"]]
    assert list(frame["game_score_mean"]) == cli["game_score_mean"]
    assert list(frame["sole_win_rate"]) == cli["sole_win_rate"]


def test_compare_to_dict_is_the_cli_json_and_to_frame_has_a_row_per_policy(capsys) -> None:
    res = simcards.romi.compare("rummy:4", "greedy", players=2, rounds=2, deals=20, **COMMON)
    cli = _cli_json(capsys, ["romi", "compare", "rummy:4", "greedy", "--players", "2",
                             "--rounds", "2", "--deals", "20", *COMMON_FLAGS])
    assert res.to_dict() == cli
    frame = res.to_frame()
    assert list(frame["policy"]) == ["rummy:4", "greedy"]
    assert list(frame["score_mean"]) == [cli["score_mean"]["a"]["mean"],
                                         cli["score_mean"]["b"]["mean"]]
    assert list(frame["score_diff"]) == [cli["score_diff"]["mean"],
                                         -cli["score_diff"]["mean"]]
    assert list(frame["win_rate_diff"]) == [cli["win_rate_diff"]["mean"],
                                            -cli["win_rate_diff"]["mean"]]


@pytest.mark.parametrize(("call", "fragment"), [
    (lambda: api.melds(), "give exactly one of --hand and --file"),
    (lambda: api.melds(hand="Ah", file="hands.txt"), "give exactly one of --hand and --file"),
    (lambda: api.melds(hand="Ah 2h", table=""), "--table is empty"),
    (lambda: api.melds(hand="Ah 2h", table="5h X 7h;"), "--table meld 2 is empty"),
    (lambda: api.melds(file="/no/such/hands.txt"), "--file /no/such/hands.txt: no such file"),
    (lambda: api.melds(hand="Ah 2h", ace_low_value=11),
     "--ace-low-value must be between 1 and 10 (rule M6), got 11"),
    (lambda: api.rounds(rounds="many"), "--rounds must be a count"),
    (lambda: api.rounds(dealer=4), "--dealer must be a seat 0..3, got 4"),
    (lambda: api.rounds(policies="greedy,,greedy"), "--policies 'greedy,,greedy'"),
    (lambda: api.rounds(policies="threshold:40"), "--policies: policy threshold: X"),
    (lambda: api.rounds(players=7), "--players must be between 2 and 5 (rule D2), got 7"),
    (lambda: api.rounds(seed=-1), "--seed"),
    (lambda: api.games(workers=0), "--workers must be at least 1"),
    (lambda: api.games(games="1e9"), "--games must be at most 1e8"),
    (lambda: api.compare("greedy,rummy", "greedy"), "policy A must be one policy"),
    (lambda: api.compare("greedy", "bogus"), "policy B: unknown romi policy 'bogus'"),
    (lambda: api.compare("greedy", "greedy", deals="1e9"), "--deals must be at most 1e8"),
])
def test_bad_arguments_raise_a_usage_error_naming_the_flag(call, fragment) -> None:
    with pytest.raises(UsageError) as info:
        call()
    assert fragment in str(info.value)
