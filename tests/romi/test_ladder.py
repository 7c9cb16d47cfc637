"""``simcards romi ladder``: the Bradley-Terry fit on constructed pairings (exact), each pairing
equal to ``compare`` with its seed, the JSON and its keys in the API's docstring, one line with exit
status 2 for bad input, the same numbers for any ``--workers`` and after a resume, and a small
ladder end to end (one-round games: seconds)."""

from __future__ import annotations

import importlib
import json
import math

import pytest

import simcards.romi
from simcards.core import ladder as lad
from simcards.core.cli import main
from tests.cli_checks import assert_one_line_error

API_DOC = importlib.import_module("simcards.romi.api").__doc__ or ""
"""Where the keys of ``ladder``'s answer are explained (the README points there)."""
SMALL = {"players": 2, "rounds": 1, "workers": 1, "store": "none"}
LADDER = ["romi", "ladder", "--players", "2", "--rounds", "1", "--workers", "1", "--store",
          "none"]


@pytest.fixture(scope="module")
def pair() -> dict:
    """greedy against threshold:70, two players, 40 one-round deal sets."""
    return simcards.romi.ladder(policies="greedy,threshold:70", deals=40, seed=9,
                                **SMALL).to_dict()


def _all_keys(x: object) -> set[str]:
    if isinstance(x, dict):
        return set(x) | set().union(*(_all_keys(v) for v in x.values()))
    if isinstance(x, list):
        return set().union(*(_all_keys(v) for v in x)) if x else set()
    return set()


def test_the_fit_recovers_three_consistent_players_exactly() -> None:
    """Three policies whose pairwise probabilities agree with ratings 0, 150 and -60 (the
    seat-against-a-field probabilities of a 4-player Römi table mapped by Luce's model): the
    fit gives those ratings and a chi-square of 0."""
    truth = [0.0, 150.0, -60.0]
    gamma = [10 ** (r / 400) for r in truth]
    games = []
    for i, j in lad.pairs(3):
        a = gamma[i] / (gamma[i] + 3 * gamma[j])  # A's seat against three B seats
        b = gamma[j] / (gamma[i] + 3 * gamma[j])
        p = lad.luce_probability(a - b, 4)
        assert p == pytest.approx(gamma[i] / (gamma[i] + gamma[j]), abs=1e-12)
        games.append((i, j, p, 250.0 * (i + j + 1)))
    fit = lad.fit_bradley_terry(3, games)
    assert fit.ratings == pytest.approx(truth, abs=1e-7)
    assert fit.chi2 == pytest.approx(0.0, abs=1e-12) and fit.dof == 1
    assert fit.p_value == pytest.approx(1.0)


def test_each_pairing_is_compare_with_its_seed(pair) -> None:
    (table,) = pair["tables"]
    (q,) = table["pairings"]
    assert (q["a"], q["b"]) == ("greedy", "threshold:70")
    assert q["seed"] == lad.pairing_seed(9, "romi", 2, "greedy", "threshold:70")
    cmp = simcards.romi.compare("greedy", "threshold:70", deals=40, seed=q["seed"],
                                **SMALL).to_dict()
    for key in simcards.romi.api.LADDER_PAIRING_KEYS:
        assert q[key] == cmp[key], key
    d = cmp["win_rate_diff"]["mean"]
    assert q["p_a"] == pytest.approx((1 + d) / 2)
    win = cmp["win_rate"]
    assert q["p_a"] == pytest.approx(win["a"]["mean"] / (win["a"]["mean"] + win["b"]["mean"]))


def test_the_json_is_the_api_answer_and_the_api_docstring_names_every_key(capsys, pair) -> None:
    assert main([*LADDER, "--policies", "greedy,threshold:70", "--deals", "40", "--seed", "9",
                 "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli == pair
    assert list(cli) == ["game", "command", "policies", "players", "anchor", "dealer", "seed",
                         "deals", "tables"]
    (table,) = cli["tables"]
    assert list(table) == ["players", "rules", "ratings", "order", "fit", "unseparated",
                           "pairings", "summary", "separation"]
    assert table["rules"] == {"players": 2, "open_min": 51, "ace_low_value": 1, "rounds": 1,
                              "swap_keeps_romi": False}
    missing = sorted(k for k in _all_keys(cli) if f"``{k}``" not in API_DOC)
    assert not missing, missing
    assert "``ladder``" in API_DOC


def test_a_small_ladder_end_to_end_in_two_table_sizes(capsys) -> None:
    res = simcards.romi.ladder(policies="threshold:70,greedy", deals=30, seed=4,
                               **{**SMALL, "players": "2,3"})
    out = res.to_dict()
    assert [t["players"] for t in out["tables"]] == [2, 3]
    two_players, three_players = out["tables"]
    assert two_players["order"] == ["greedy", "threshold:70"]  # Q4: waiting for 70 costs
    (two,) = two_players["pairings"]
    assert two["win_rate_diff"]["mean"] < 0 and two["score_diff"]["mean"] > 0
    greedy = two_players["ratings"][1]
    assert greedy["rating"] > 0 and greedy["ci95"][0] < greedy["rating"] < greedy["ci95"][1]
    assert two["p_a_fit"] == pytest.approx(two["p_a"], abs=1e-9)  # one pairing: a perfect fit
    # three players alone: both orders on half the deal sets each; in points (15 one-round
    # deal sets an order say little in games) threshold:70 concedes more either way
    one, other = three_players["pairings"]
    assert [(q["a"], q["b"], q["deal_sets"]) for q in (one, other)] == [
        ("threshold:70", "greedy", 15), ("greedy", "threshold:70", 15)]
    assert one["score_diff"]["mean"] > 0 > other["score_diff"]["mean"]
    assert out["tables"][0]["summary"].startswith("with 2 players play greedy: it wins 0.")
    assert "more games than threshold:70, the next best, and concedes" in \
        out["tables"][0]["summary"]
    assert " more games per seat than " in out["tables"][1]["summary"]
    frame = res.to_frame()
    assert list(frame["players"]) == [2, 2, 3, 3]
    assert list(frame["policy"]) == [*two_players["order"], *three_players["order"]]
    assert main([*LADDER[:2], "--players", "2", "--rounds", "1", "--workers", "1", "--store",
                 "none", "--policies", "threshold:70,greedy", "--deals", "30", "--seed",
                 "4"]) == 0
    printed = capsys.readouterr().out
    assert "Römi ladder: 2 players" in printed and "0 (anchor)" in printed
    assert "With 2 players play greedy" in printed and "Bradley-Terry fit" in printed


def _swapped(policies: str) -> dict:
    """A four-player ladder of greedy and expert, one-round games, 40 deal sets."""
    return simcards.romi.ladder(policies=policies, deals=40, seed=5,
                                **{**SMALL, "players": 4}).to_dict()["tables"][0]


def test_a_four_player_ladder_is_the_same_whatever_the_listing_order() -> None:
    """With seats alone a pairing plays both orders (one A among Bs, one B among As), each on
    half the deal sets: listing expert first or greedy first gives the same runs, the same
    rating difference and the same answer, only the anchor moves."""
    first, second = _swapped("greedy,expert"), _swapped("expert,greedy")
    runs = [{(q["a"], q["b"]): (q["seed"], q["deal_sets"], q["win_rate_diff"])
             for q in t["pairings"]} for t in (first, second)]
    assert runs[0] == runs[1]
    assert set(runs[0]) == {("greedy", "expert"), ("expert", "greedy")}
    assert all(sets == 20 for _, sets, _ in runs[0].values())
    rating = [{r["policy"]: r["rating"] for r in t["ratings"]} for t in (first, second)]
    gap = [r["expert"] - r["greedy"] for r in rating]
    assert gap[0] == pytest.approx(gap[1], abs=1e-6)
    assert first["order"] == second["order"]
    assert first["summary"] == second["summary"]
    assert first["fit"]["chi2"] == pytest.approx(second["fit"]["chi2"], abs=1e-9)


def test_same_numbers_for_any_workers_and_after_a_resume(tmp_path, capsys) -> None:
    store = tmp_path / "runs"
    argv = ["romi", "ladder", "--policies", "greedy,threshold:70", "--players", "2",
            "--rounds", "2", "--deals", "400", "--store", str(store), "--json"]
    assert main([*argv, "--workers", "1"]) == 0
    first = json.loads(capsys.readouterr().out)
    (run,) = store.glob("romi-compare-*")
    chunks = sorted((run / "chunks").glob("*.parquet"))
    assert len(chunks) > 2
    for chunk in chunks[1:]:
        chunk.unlink()
    assert main([*argv, "--workers", "2"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == first
    assert "resumed 1 finished chunk" in captured.err
    assert all(math.isfinite(r["rating"]) for r in first["tables"][0]["ratings"])
    (kept,) = store.glob("romi-ladder-*")
    assert json.loads((kept / "manifest.json").read_text())["status"] == "complete"


@pytest.mark.parametrize(("args", "message"), [
    ([], "--policies is missing"),
    (["--policies", "expert"], "--policies needs at least 2 policies to rank, got 1"),
    (["--policies", "greedy,clever"], "--policies: unknown romi policy 'clever'"),
    (["--policies", "greedy,threshold:40"], "--policies: policy threshold: X must be between"),
    (["--policies", "greedy,threshold,threshold:70"], "--policies: threshold:70 is listed "
     "twice ('threshold' and 'threshold:70' are the same policy)"),
    (["--policies", "greedy,expert,greedy"], "--policies: greedy is listed twice"),
    (["--policies", "greedy,expert", "--players", "6"],
     "--players must be between 2 and 5 (rule D2), got 6"),
    (["--policies", "greedy,expert", "--players", "2,4,2"], "--players: 2 is listed twice"),
    (["--policies", "greedy,expert", "--deals", "2e8"], "--deals must be at most 1e8"),
    (["--policies", "greedy,expert", "--rounds", "0"], "--rounds must be between 1 and 100"),
])
def test_bad_ladder_input_is_one_line_and_exit_2(capsys, args, message) -> None:
    argv = ["romi", "ladder", "--store", "none",
            *(["--rounds", "1"] if "--rounds" not in args else []), *args]
    assert_one_line_error(capsys, argv, message)
