"""The Python API: the commands as functions, with the CLI's defaults, JSON keys and checks."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

import simcards.ronco
from simcards.core.cli import main
from simcards.core.cli_options import DEFAULT_SEED
from simcards.core.errors import UsageError
from simcards.ronco import api


def _cli_json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_rounds_to_dict_is_the_cli_json_and_to_frame_has_a_row_per_position(capsys) -> None:
    res = simcards.ronco.rounds(players=5, policy="informed", threshold=6, rounds="50k",
                                workers=1)
    cli = _cli_json(capsys, ["ronco", "rounds", "--players", "5", "--policy", "informed",
                             "--threshold", "6", "--rounds", "50k", "--workers", "1", "--json"])
    assert res.to_dict() == cli
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 5
    assert list(frame["p_lose"]) == cli["p_lose"]
    assert list(frame["role"]) == ["first", "", "", "", "dealer"]
    assert {"ci_low", "ci_high", "p_double", "policy"} <= set(frame.columns)


def test_games_to_dict_is_the_cli_json_monte_carlo_and_exact(capsys) -> None:
    res = simcards.ronco.games(players=3, lives=2, games=5000, workers=1,
                               policies="threshold:5:4,random:0.3,informed")
    cli = _cli_json(capsys, ["ronco", "games", "--players", "3", "--lives", "2", "--games",
                             "5000", "--workers", "1", "--json", "--policies",
                             "threshold:5:4,random:0.3,informed"])
    assert res.to_dict() == cli
    for key in ("draw_ci", "void_rate", "rounds_mean_se", "rounds_sd", "elimination_order",
                "stalled", "place_distribution"):
        assert key in cli
    frame = res.to_frame()
    assert list(frame["win_rate"]) == cli["win_rate"]
    assert [c for c in frame.columns if c.startswith("place_")] == ["place_0", "place_1",
                                                                    "place_2"]
    exact = simcards.ronco.games(players=3, lives=2, exact=True)
    assert exact.to_dict() == _cli_json(capsys, ["ronco", "games", "--players", "3", "--lives",
                                                 "2", "--exact", "--json"])
    assert len(exact.to_frame()) == 3


def test_best_threshold_to_dict_is_the_cli_json(capsys) -> None:
    kw = {"players": "3", "lives": 1, "first_stage": 2048, "max_games": 2048,
          "max_iterations": 0, "gain_games": 0, "workers": 1}
    res = simcards.ronco.best_threshold(**kw)
    cli = _cli_json(capsys, ["ronco", "best-threshold", "--players", "3", "--lives", "1",
                             "--first-stage", "2048", "--max-games", "2048",
                             "--max-iterations", "0", "--gain-games", "0", "--workers", "1",
                             "--json"])
    assert res.to_dict() == cli
    frame = res.to_frame()
    assert list(frame["players"]) == [3] and "best_T" in frame.columns


def test_api_and_cli_share_the_default_seed(capsys) -> None:
    for fn in (api.rounds, api.games, api.best_threshold, api.exact):
        assert inspect.signature(fn).parameters["seed"].default == DEFAULT_SEED
    assert inspect.signature(simcards.ronco.rounds).parameters["seed"].default == DEFAULT_SEED
    res = simcards.ronco.rounds(rounds=1000, workers=1)
    assert res["seed"] == DEFAULT_SEED
    assert res.to_dict() == _cli_json(capsys, ["ronco", "rounds", "--rounds", "1000",
                                               "--workers", "1", "--json"])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"seed": -1}, "--seed must be between 0"),
    ({"rounds": "1e13"}, "--rounds must be at most 1e12"),
    ({"keep_prob": 0.4}, "--keep-prob cannot be used with --policy threshold"),
    ({"policy": "random", "keep_prob": float("nan")}, "--keep-prob must be a finite number"),
    ({"deck": "rummy108"}, "--deck must be one of spanish40|spanish48|french52"),
])
def test_api_refuses_bad_arguments_before_computing(kwargs, message) -> None:
    with pytest.raises(UsageError) as err:
        simcards.ronco.rounds(**kwargs)
    assert message in str(err.value)
    assert isinstance(err.value, ValueError)


def test_importing_the_game_package_imports_nothing_heavy() -> None:
    code = ("import sys, simcards.ronco; heavy = [m for m in ('numba', 'pandas', 'typer', "
            "'matplotlib') if m in sys.modules]; assert not heavy, heavy")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_unguarded_script_with_two_workers_gives_the_numbers_of_one_worker(tmp_path) -> None:
    """No ``if __name__ == "__main__":`` guard: spawned workers must not rerun the script."""
    script = tmp_path / "notebook_like.py"
    script.write_text(textwrap.dedent("""
        import json, sys
        import simcards.ronco

        res = simcards.ronco.games(players=4, lives=3, games="100k", seed=7,
                                   workers=int(sys.argv[1]), store="none")
        print(json.dumps(res.to_dict()["win_rate"]))
    """))
    outs = []
    for workers in ("1", "2"):
        proc = subprocess.run([sys.executable, str(script), workers], capture_output=True,
                              text=True, timeout=600, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-2000:]
        outs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert outs[0] == outs[1]


def test_on_a_cluster_workers_is_a_cap_only_when_given(monkeypatch) -> None:
    """Without --workers the cluster path must not cap the chunks in flight at the client's
    core count: a laptop with 2 cores would throttle a cluster of 100 workers."""
    from contextlib import contextmanager

    from simcards.core import cluster

    seen: list = []

    @contextmanager
    def fake_open_executor(address, workers, **kwargs):
        seen.append(workers)
        yield None  # run locally: only the argument matters here

    monkeypatch.setattr(cluster, "open_executor", fake_open_executor)
    for given in (None, 7):
        simcards.ronco.rounds(players=3, rounds=1000, workers=given, store="none",
                              scheduler="tcp://127.0.0.1:1")
    assert seen == [None, 7]
