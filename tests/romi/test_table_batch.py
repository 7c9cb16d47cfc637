"""Römi's batch commands on the table engine (:mod:`simcards.romi.table_batch`): a run with a
``random`` seat (Q6) is played move by move on the environments' engine, with the compiled
commands' statistics, seeds, notice and JSON key; the table engine's built-in seats play the
compiled engine's rounds, which a statistical cross-check confirms."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from simcards.core.cli import main
from simcards.core.rng import chunk_state
from simcards.romi import api
from simcards.romi import rounds_batch as R
from simcards.romi import table_batch as TB
from simcards.romi.policies import KINDS, policy_arrays
from simcards.romi.rules import RomiRules
from tests import sizes

Z_STRICT = 3.48
"""A two-sided z at the 0.1% level with four comparisons (Bonferroni: 0.025% each)."""


def _json(capsys, argv: list[str]) -> tuple[dict, str]:
    assert main(argv) == 0, capsys.readouterr().err
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def _specs(rules: RomiRules, text: str) -> list:
    return api.seat_policies(rules, text)


@pytest.mark.parametrize("argv", [
    ["romi", "rounds", "--players", "2", "--policies", "random,greedy", "--rounds", "10"],
    ["romi", "compare", "random", "greedy", "--players", "2", "--rounds", "1", "--deals", "6"],
], ids=["rounds", "compare"])
def test_the_same_seed_gives_the_same_json_for_one_or_two_workers(capsys, monkeypatch,
                                                                  argv) -> None:
    """Each chunk draws from its own stream (seed, chunk index): the chunks made small here, so
    that the run has several, two workers give byte for byte the one worker's JSON."""
    monkeypatch.setattr(TB, "CHUNK_ROUNDS", dict.fromkeys(range(2, 6), 2))
    one, _ = _json(capsys, [*argv, "--json", "--workers", "1", "--seed", "7"])
    two, _ = _json(capsys, [*argv, "--json", "--workers", "2", "--seed", "7"])
    assert json.dumps(one) == json.dumps(two)
    assert one["engine"] == "table"


def _mean_se(total: float, total_sq: float, n: int) -> tuple[float, float]:
    m = total / n
    var = (total_sq / n - m * m) * n / (n - 1)
    return m, math.sqrt(var / n)


def test_the_table_engines_greedy_rounds_agree_with_the_compiled_engines_at_two_players() -> None:
    """Built-in seats on the table engine are the compiled policies played one move at a time
    (``KernelPolicy``): 250 table rounds (2,500 with ``--full``) and 8,000 compiled rounds of
    two greedy players, the dealer drawn, give the same mean score and going-out rate for each
    seat (z-tests at a strict level: the difference over its standard error, from the sums and
    sums of squares of both runs)."""
    rules = RomiRules.make(players=2)
    specs = _specs(rules, "greedy")
    fn, cfg, _ = TB.batch("rounds", rules, specs, None)
    table = fn(chunk_state(11, 0), 2_500 if sizes.FULL else 250, cfg)
    compiled = R.rounds_chunk(chunk_state(11, 1), 8_000,
                              R.RoundConfig(rules.kernel, policy_arrays(specs, rules), 2, 7, -1))
    nt, nc = int(table["rounds"][0]), int(compiled["rounds"][0])
    for p in range(2):
        mt, st = _mean_se(float(table["score"][p]), float(table["score_sq"][p]), nt)
        mc, sc = _mean_se(float(compiled["score"][p]), float(compiled["score_sq"][p]), nc)
        z = (mt - mc) / math.hypot(st, sc)
        assert abs(z) < Z_STRICT, (p, mt, mc, z)
        pt, pc = table["went_out"][p] / nt, compiled["went_out"][p] / nc
        pooled = (table["went_out"][p] + compiled["went_out"][p]) / (nt + nc)
        z = (pt - pc) / math.sqrt(pooled * (1 - pooled) * (1 / nt + 1 / nc))
        assert abs(z) < Z_STRICT, (p, pt, pc, z)


def test_random_concedes_far_more_points_than_greedy() -> None:
    """Q6 against Q2 at two players: random's mean score per round lies far above greedy's,
    the two 95% intervals some 20 points apart or more."""
    out = api.rounds(players=2, policies="random,greedy", rounds=160, workers=1, seed=5)
    d = out.to_dict()
    assert d["engine"] == "table"
    (r_low, _), (_, g_high) = d["score_ci"]
    assert r_low - g_high > 20, d["score_ci"]
    assert d["go_out_rate"][1] > d["go_out_rate"][0]


def test_compare_and_ladder_rank_greedy_above_random(capsys) -> None:
    """``compare random greedy`` concedes more points and wins fewer games (intervals clear of
    0); ``ladder`` rates greedy above random."""
    out, _ = _json(capsys, ["romi", "compare", "random", "greedy", "--players", "2", "--rounds",
                            "1", "--deals", "30", "--workers", "1", "--json"])
    assert out["engine"] == "table"
    assert out["score_diff"]["ci"][0] > 0 and out["win_rate_diff"]["ci"][1] < 0
    out, _ = _json(capsys, ["romi", "ladder", "--policies", "greedy,random", "--players", "2",
                            "--rounds", "1", "--deals", "30", "--workers", "1", "--json"])
    (table,) = out["tables"]
    assert table["order"] == ["greedy", "random"]
    assert [p["engine"] for p in table["pairings"]] == ["table"]


def test_a_table_run_says_so_once_on_stderr_and_in_its_json_and_its_run_key(capsys,
                                                                             tmp_path) -> None:
    """One notice line before the run, ``"engine": "table"`` in the JSON and the stored
    manifest; a compiled run has neither. A ladder says it once for all its pairings, and
    marks only the pairings played on the table engine."""
    out, err = _json(capsys, ["romi", "rounds", "--players", "2", "--policies", "greedy,random",
                              "--rounds", "3", "--workers", "1", "--store", str(tmp_path),
                              "--json"])
    assert out["engine"] == "table"
    assert err.count("random plays on the table engine") == 1
    manifests = [json.loads(f.read_text()) for f in tmp_path.rglob("manifest.json")]
    assert [m.get("engine") for m in manifests] == ["table"]
    out, err = _json(capsys, ["romi", "rounds", "--players", "2", "--rounds", "3", "--workers",
                              "1", "--json"])
    assert "engine" not in out and "table engine" not in err
    out, err = _json(capsys, ["romi", "ladder", "--policies", "greedy,random,expert", "--players",
                              "2", "--rounds", "1", "--deals", "2", "--workers", "1", "--json"])
    assert err.count("random plays on the table engine") == 1
    engines = {(p["a"], p["b"]): p.get("engine") for p in out["tables"][0]["pairings"]}
    assert engines == {("greedy", "random"): "table", ("greedy", "expert"): None,
                       ("random", "expert"): "table"}


@pytest.mark.parametrize("argv", [
    ["romi", "rounds", "--players", "2", "--policies", "random,search:2", "--rounds", "2"],
    ["romi", "compare", "random", "seeing:2", "--players", "2", "--deals", "2"],
], ids=["rounds", "compare"])
def test_random_takes_no_searching_seat_in_one_line(capsys, argv) -> None:
    """The table engine has no search seat (Q7, Q8): refused before anything runs."""
    from tests.cli_checks import assert_one_line_error

    assert_one_line_error(capsys, argv, "random plays on the table engine, which has no "
                                        "search seat")


def test_the_compiled_engine_never_receives_a_random_seat() -> None:
    """``random`` has no kernel code: its engine form is refused rather than misread."""
    from simcards.core.errors import UsageError

    rules = RomiRules.make(players=2)
    with pytest.raises(UsageError, match="table engine"):
        policy_arrays([KINDS.parse("random"), KINDS.parse("greedy")], rules)
    assert np.array_equal(policy_arrays(["greedy", "expert"], rules).kinds, [0, 3])
