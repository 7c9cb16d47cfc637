"""A game is one package plus one registration: the toy high-card game in ``tests/toygame``
gets a CLI group, a run store with resume, cluster runs and a report study from the shared
machinery, which never names it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from simcards.core import registry
from simcards.core.runner import run_batch

TESTS = Path(__file__).resolve().parents[1]
CORE = TESTS.parent / "simcards" / "core"


@pytest.fixture
def toy_env(tmp_path, monkeypatch) -> dict[str, str]:
    """The environment a user sets to load a game that lives outside the package."""
    monkeypatch.setenv("SIMCARDS_GAMES", "toygame")
    monkeypatch.syspath_prepend(str(TESTS))
    path = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "SIMCARDS_GAMES": "toygame", "PYTHONPATH": path,
            "SIMCARDS_STORE": str(tmp_path / "runs")}


def _simcards(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simcards", *args], capture_output=True,
                          text=True, env=env, timeout=300)


def test_shared_modules_import_no_game() -> None:
    for path in CORE.rglob("*.py"):
        text = path.read_text()
        for game in ("ronco", "toygame"):
            assert f"simcards.{game}" not in text and f"import {game}" not in text, (
                f"{path.relative_to(CORE)} names the game {game}")


def test_the_toy_game_gets_a_cli_group_whose_answer_matches_the_exact_win_rate(
        toy_env) -> None:
    from toygame.deal_kernel import exact_win

    assert "toy" in _simcards(toy_env, "--help").stdout
    proc = _simcards(toy_env, "toy", "deals", "--players", "3", "--deals", "400k", "--json",
                     "--workers", "2", "--store", "none")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    p = exact_win(3)
    se = (p * (1 - p) / 400_000) ** 0.5
    assert all(abs(w - p) < 4 * se for w in out["win_rate"]), (out["win_rate"], p)
    # the draw rate is the complement of the three equal win chances
    assert abs(out["draw_rate"] - (1 - 3 * p)) < 4 * ((1 - 3 * p) * 3 * p / 400_000) ** 0.5


def test_the_toy_game_exact_win_rate_equals_a_full_enumeration() -> None:
    sys.path.insert(0, str(TESTS))
    from itertools import permutations

    from toygame.deal_kernel import RANKS, SUITS, exact_win

    ranks = [c // SUITS for c in range(RANKS * SUITS)]
    wins = total = 0
    for a, b in permutations(range(len(ranks)), 2):
        total += 1
        wins += ranks[a] > ranks[b]
    assert exact_win(2) == pytest.approx(wins / total, abs=1e-12)


def test_the_toy_game_runs_are_stored_and_resume(toy_env, tmp_path) -> None:
    args = ["toy", "deals", "--deals", "300k", "--json", "--workers", "1"]
    first = _simcards(toy_env, *args)
    assert first.returncode == 0, first.stderr
    (run,) = list((tmp_path / "runs").iterdir())
    assert run.name.startswith("toy-deals-")
    chunks = sorted((run / "chunks").glob("*.parquet"))
    assert len(chunks) == 6
    chunks[-1].unlink()
    chunks[-2].unlink()  # as if interrupted after four chunks
    again = _simcards(toy_env, *args)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert (manifest["chunks_resumed"], manifest["chunks_computed"]) == (4, 2)


def test_the_toy_game_has_a_report_study(toy_env, tmp_path) -> None:
    out = tmp_path / "reports"
    proc = _simcards(toy_env, "report", "--only", "toy-highcard", "--quick", "--out", str(out),
                     "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert "High card" in (out / "toy" / "highcard.md").read_text()


def test_the_toy_game_runs_on_a_cluster_bit_for_bit(toy_env) -> None:
    distributed = pytest.importorskip("distributed")
    import logging

    from toygame.deal_kernel import chunk

    from simcards.core.cluster import open_executor

    assert "toygame.deal_kernel:warm" in registry.all_warmups()
    local = run_batch(chunk, 4, seed=5, total=210_000, chunk_size=20_000, stream="toy.t",
                      workers=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  silence_logs=logging.CRITICAL) as lc, \
            open_executor(lc.scheduler_address, None) as ex:
        assert "toygame.deal_kernel:warm" in ex.info.warmups
        remote = run_batch(chunk, 4, seed=5, total=210_000, chunk_size=20_000,
                           stream="toy.t", executor=ex)
    assert list(local) == list(remote) == ["wins", "draws"]
    for name, a in local.items():
        np.testing.assert_array_equal(a, remote[name])
