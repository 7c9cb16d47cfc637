"""The learning example (``scripts/learn_ronco.py``): tabular learning of one seat's keep
decision through the Gymnasium environment ``ronco_v0`` agrees with the exact best reply
(``bayes``, rule S4) on at least 99% of the information states, weighted by probability."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("gymnasium")

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "learn_ronco.py"


def _script():
    spec = importlib.util.spec_from_file_location("learn_ronco", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_S4_learned_keep_rule_matches_bayes_on_99_percent_of_states():
    """150,000 episodes: at seed 1 the rule agrees on 0.994 of the weight (0.971 after 50,000,
    0.996 after 300,000)."""
    rows = _script().learn(150_000, checkpoints=1, seed=1)
    last = rows[-1]
    assert last["states_met"] == last["states"]
    assert last["same_as_bayes"] >= 0.99
