"""Ronda's Python API: the commands as functions, with the CLI's defaults, JSON keys and checks."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pandas as pd
import pytest

import simcards.ronda
from simcards.core.cli import main
from simcards.core.cli_options import DEFAULT_SEED
from simcards.core.errors import UsageError
from simcards.core.registry import games, resolve
from simcards.ronda import api, codes
from simcards.ronda import hands_batch as ronda_hands
from simcards.ronda.policies import KINDS


def _cli_json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_ronda_is_registered_with_its_cli_warmups_and_policy_kinds() -> None:
    (game,) = [g for g in games() if g.name == "ronda"]
    assert game.app() is resolve("simcards.ronda.cli:app")
    assert resolve(game.policy_kinds) is KINDS
    for ref in game.warmups:
        resolve(ref)()  # each compiles (or loads) its kernel on a tiny batch


def test_hands_to_dict_is_the_cli_json_and_to_frame_has_a_row_per_side(capsys) -> None:
    res = simcards.ronda.hands(players=4, teams="on", policies=["greedy", "random"] * 2,
                               hands="20k", seed=4, workers=1)
    cli = _cli_json(capsys, ["ronda", "hands", "--players", "4", "--teams", "on",
                             "--policies", "greedy,random,greedy,random", "--hands", "20k",
                             "--seed", "4", "--workers", "1", "--json"])
    assert res.to_dict() == cli
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 2
    assert list(frame["seats"]) == ["0,2", "1,3"]
    assert list(frame["policies"]) == ["greedy,greedy", "random,random"]
    assert list(frame["points_mean"]) == cli["points_mean"]
    assert list(frame["hand_win_rate"]) == cli["hand_win_rate"]
    assert {"points_ci_low", "points_ci_high", "points_derba", "points_last_card",
            "cards_mean", "hand_win_ci_low"} <= set(frame.columns)
    assert res["hands"] == 20_000 and res.to_dict() is not res.data


def test_api_and_cli_share_the_default_seed_and_counts(capsys) -> None:
    assert inspect.signature(api.hands).parameters["seed"].default == DEFAULT_SEED
    assert inspect.signature(simcards.ronda.hands).parameters["seed"].default == DEFAULT_SEED
    assert inspect.signature(api.hands).parameters["hands"].default == "100k"
    res = simcards.ronda.hands(hands=3000, workers=1)
    assert res["seed"] == DEFAULT_SEED and res["policies"] == ["greedy", "greedy"]
    assert res.to_dict() == _cli_json(capsys, ["ronda", "hands", "--hands", "3000",
                                               "--workers", "1", "--json"])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"seed": -1}, "--seed must be between 0"),
    ({"hands": "1e11"}, "--hands must be at most 1e10"),
    ({"hands": 0}, "--hands must be positive"),
    ({"players": 5}, "--players must be between 2 and 4 (rule D2)"),
    ({"players": 3, "teams": "on"}, "--teams on needs --players 4"),
    ({"mode": "both"}, "--mode must be one of points|classic"),
    ({"policies": "greedy,nobody"}, "--policies: unknown ronda policy 'nobody'"),
    ({"policies": ["greedy"] * 3}, "--policies needs 1 or 2 entries"),
    ({"policies": "rollout:0"}, "--policies: policy rollout: K must be between 1"),
    ({"dealer": 2}, "--dealer must be a seat 0..1"),
])
def test_api_refuses_bad_arguments_before_computing(kwargs, message, monkeypatch) -> None:
    def computing(*args, **kw):
        raise AssertionError("the run started computing")

    monkeypatch.setattr(ronda_hands, "simulate", computing)
    with pytest.raises(UsageError) as err:
        simcards.ronda.hands(**kwargs)
    assert message in str(err.value)
    assert isinstance(err.value, ValueError)


def test_every_policy_kind_that_parses_is_one_the_kernels_play() -> None:
    """Q2-Q5, Q8-Q11: the kinds declared are exactly the kernels' eight codes, and a run with
    each of them computes; so a parsed policy needs no further "not in the kernel" check (Q11,
    a player's own function: tests/ronda/test_user_policies.py)."""
    assert {k.code for k in KINDS.kinds.values()} == {
        codes.POLICY_RANDOM, codes.POLICY_GREEDY, codes.POLICY_LOOKAHEAD, codes.POLICY_ROLLOUT,
        codes.POLICY_ISMCTS, codes.POLICY_SEEING, codes.POLICY_ISMCTS_MATCH, codes.POLICY_USER}
    specs = api.seat_policies(4, "random,greedy,lookahead:1,rollout:2")
    assert [s.text() for s in specs] == ["random", "greedy", "lookahead:1", "rollout:2"]
    res = simcards.ronda.hands(players=4, policies=specs, hands=40, workers=1, store="none")
    assert res["policies"] == ["random", "greedy", "lookahead:1", "rollout:2"]
    assert res["hands"] == 40
    specs = api.seat_policies(2, "ismcts:20:1.5,greedy")
    assert [s.text() for s in specs] == ["ismcts:20:1.5", "greedy"]
    res = simcards.ronda.hands(players=2, policies=specs, hands=10, workers=1, store="none")
    assert res["policies"] == ["ismcts:20:1.5", "greedy"] and res["hands"] == 10
    res = simcards.ronda.hands(players=2, policies="seeing:20,greedy", hands=10, workers=1,
                               store="none")
    assert res["policies"] == ["seeing:20:0.5", "greedy"] and res["hands"] == 10


def test_chunks_shrink_with_the_cost_of_the_policies() -> None:
    """Searching policies cost hundreds (lookahead) to thousands (rollout) of greedy plays per
    play: their chunks are that much smaller, so progress and interruption stay prompt."""
    def size(text: str, players: int = 2) -> int:
        return ronda_hands.chunk_size(api.seat_policies(players, text))

    assert size("greedy") == size("random") == ronda_hands.HANDS_CHUNK
    assert size("greedy,lookahead:1") == 256  # 32768 / 125.5
    assert size("lookahead:2") == 64  # 32768 / 500
    assert size("greedy,rollout:32") == 32  # 32768 / 512.5
    assert size("rollout:8,greedy,greedy,greedy", 4) == 128  # 32768 / ((3 + 768) / 4)
    assert size("rollout:100000") == 1
    assert size("greedy,ismcts:1000") == 64  # 32768 / 400.5
    assert size("greedy,seeing:1000") == 64  # 32768 / 275.5


def test_importing_the_game_package_imports_nothing_heavy() -> None:
    code = ("import sys, simcards.ronda; heavy = [m for m in ('numba', 'pandas', 'typer', "
            "'matplotlib') if m in sys.modules]; assert not heavy, heavy")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_the_run_store_keeps_the_run_and_a_second_call_resumes_it(tmp_path) -> None:
    store = tmp_path / "store"
    first = simcards.ronda.hands(hands="40k", seed=2, workers=1, store=str(store))
    (run,) = list(store.iterdir())
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["chunk_size"] == 32768
    assert manifest["chunks_computed"] == 2 and (run / "result.parquet").exists()
    again = simcards.ronda.hands(hands="40k", seed=2, workers=1, store=str(store))
    assert again.to_dict() == first.to_dict()
    manifest = json.loads((run / "manifest.json").read_text())
    assert (manifest["chunks_resumed"], manifest["chunks_computed"]) == (2, 0)


def test_matches_to_dict_is_the_cli_json_and_to_frame_has_a_row_per_side(capsys) -> None:
    res = simcards.ronda.matches(players=3, policies="greedy,random,greedy", target=11,
                                 matches="6000", seed=3, workers=1)
    cli = _cli_json(capsys, ["ronda", "matches", "--players", "3", "--policies",
                             "greedy,random,greedy", "--target", "11", "--matches", "6000",
                             "--seed", "3", "--workers", "1", "--json"])
    assert res.to_dict() == cli
    frame = res.to_frame()
    assert len(frame) == 3 and list(frame["win_rate"]) == cli["win_rate"]
    assert list(frame["policies"]) == ["greedy", "random", "greedy"]
    assert {"win_ci_low", "win_ci_high", "seats"} <= set(frame.columns)


def test_compare_to_dict_is_the_cli_json_and_to_frame_has_a_row_per_policy(capsys) -> None:
    res = simcards.ronda.compare("greedy", "random", players=4, teams="on", deals=1500,
                                 seed=5, workers=1)
    cli = _cli_json(capsys, ["ronda", "compare", "greedy", "random", "--players", "4",
                             "--teams", "on", "--deals", "1500", "--seed", "5", "--workers",
                             "1", "--json"])
    assert res.to_dict() == cli
    frame = res.to_frame()
    assert list(frame["policy"]) == ["greedy", "random"]
    assert list(frame["win_rate"]) == [cli["win_rate_a"], cli["win_rate_b"]]
    assert list(frame["win_rate_diff"]) == [cli["win_rate_diff"], -cli["win_rate_diff"]]


@pytest.mark.parametrize(("fn", "kwargs", "message"), [
    (api.matches, {"target": 0}, "--target must be between 1 and 1000"),
    (api.matches, {"matches": "0"}, "--matches must be positive"),
    (api.matches, {"mode": "classic", "hands_to_win": 1001}, "--hands-to-win must be between"),
    (api.matches, {"hands_to_win": 3}, "--hands-to-win applies only to --mode classic"),
    (api.compare, {"a": "lookahead:x", "b": "greedy"}, "policy A: lookahead: D must"),
    (api.compare, {"a": "greedy", "b": "greedy", "deals": 0}, "--deals must be positive"),
])
def test_matches_and_compare_refuse_bad_arguments(fn, kwargs, message) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        fn(**kwargs)
