"""``simcards ronda ladder``: the Bradley-Terry fit on constructed pairings (exact), each pairing
equal to ``compare`` with its seed, the JSON and its keys in the API's docstring, one line with exit
status 2 for bad input, the same numbers for any ``--workers`` and after a resume, and a small
ladder end to end."""

from __future__ import annotations

import importlib
import json
import math

import pytest

import simcards.ronda
from simcards.core import ladder as lad
from simcards.core.cli import main
from simcards.core.stats import Z95
from tests.cli_checks import assert_one_line_error

API_DOC = importlib.import_module("simcards.ronda.api").__doc__ or ""
"""Where the keys of ``ladder``'s answer are explained (the README points there)."""
COMMON = {"workers": 1, "store": "none"}
LADDER = ["ronda", "ladder", "--workers", "1", "--store", "none"]


def _elo_p(ri: float, rj: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((rj - ri) / 400.0))


@pytest.fixture(scope="module")
def three() -> dict:
    """A small two-player ladder of three cheap policies (300 deal sets per pairing)."""
    return simcards.ronda.ladder(policies="greedy,random,lookahead:1", deals=300, seed=7,
                                 **COMMON).to_dict()


# ---------------------------------------------------------------- the fit


def test_the_fit_recovers_known_ratings_from_consistent_pairings_exactly() -> None:
    truth = [0.0, 120.0, -80.0, 310.0]
    weights = [500.0, 2000.0, 50.0, 1e5, 3.0, 700.0]
    games = [(i, j, _elo_p(truth[i], truth[j]), w)
             for (i, j), w in zip(lad.pairs(4), weights, strict=True)]
    fit = lad.fit_bradley_terry(4, games)
    assert fit.ratings == pytest.approx(truth, abs=1e-7)
    assert fit.chi2 == pytest.approx(0.0, abs=1e-12) and fit.dof == 3
    assert fit.fitted == pytest.approx([g[2] for g in games], abs=1e-12)
    assert fit.se[0] == 0.0 and all(s > 0 for s in fit.se[1:])


def test_the_fit_of_three_consistent_policies_and_its_fisher_intervals() -> None:
    """Three policies whose win rates agree with ratings 0, 200 and -100: the fit gives those
    ratings, and with two policies the interval is the binomial one mapped to the Elo scale."""
    truth = [0.0, 200.0, -100.0]
    games = [(i, j, _elo_p(truth[i], truth[j]), 1000.0) for i, j in lad.pairs(3)]
    fit = lad.fit_bradley_terry(3, games)
    assert fit.ratings == pytest.approx(truth, abs=1e-7)
    p, w = 0.75, 400.0
    two = lad.fit_bradley_terry(2, [(0, 1, p, w)])
    assert two.ratings[1] == pytest.approx(-400 * math.log10(p / (1 - p)), abs=1e-9)
    se = 1 / math.sqrt(w * p * (1 - p)) / lad.ELO
    assert two.se[1] == pytest.approx(se, rel=1e-9)
    assert two.ci95(1) == pytest.approx([two.ratings[1] - Z95 * se, two.ratings[1] + Z95 * se])
    assert two.dof == 0 and two.p_value is None


def test_a_pairing_won_every_time_still_gives_finite_ratings() -> None:
    fit = lad.fit_bradley_terry(3, [(0, 1, 1.0, 10.0), (0, 2, 0.5, 100.0), (1, 2, 0.0, 10.0)])
    assert all(math.isfinite(r) and math.isfinite(s) for r, s in zip(fit.ratings, fit.se,
                                                                      strict=True))
    assert fit.ratings[1] < -300


@pytest.mark.parametrize(("a", "b", "sides"), [(0.7, 0.3, 2), (0.5, 0.25, 3), (0.1, 0.3, 4),
                                               (0.4, 0.2, 4)])
def test_the_luce_probability_is_a_over_a_plus_b_from_the_paired_difference(a, b, sides):
    """With every play won by one side (a + (n - 1) b = 1 up to the given rates' rounding),
    p(d) = a / (a + b)."""
    b = (1 - a) / (sides - 1)
    assert lad.luce_probability(a - b, sides) == pytest.approx(a / (a + b), abs=1e-12)
    h = 1e-6
    slope = (lad.luce_probability(a - b + h, sides) - lad.luce_probability(a - b - h, sides))
    assert lad.luce_slope(a - b, sides) == pytest.approx(slope / (2 * h), rel=1e-6)


def test_the_weight_of_a_pairing_is_the_games_its_paired_interval_is_worth() -> None:
    s = lad.strength(0.0, [-Z95 * 0.1, Z95 * 0.1], 2, 50)
    assert s["p_a"] == 0.5 and s["p_a_ci"] == pytest.approx([0.5 - Z95 * 0.05,
                                                             0.5 + Z95 * 0.05])
    assert s["n_eff"] == pytest.approx(100.0)  # p (1 - p) / se(p)^2 = 0.25 / 0.05^2
    none = lad.strength(0.2, None, 2, 1)
    assert none["p_a"] == pytest.approx(0.6) and none["p_a_ci"] is None
    assert none["n_eff"] == 1.0


# ---------------------------------------------------------------- pairings are compare's


def test_each_pairing_is_compare_with_its_seed(three) -> None:
    q = three["tables"][0]["pairings"][0]
    assert (q["a"], q["b"]) == ("greedy", "random")
    assert q["seed"] == lad.pairing_seed(7, "ronda", 2, "greedy", "random")
    cmp = simcards.ronda.compare("greedy", "random", deals=300, seed=q["seed"],
                                 **COMMON).to_dict()
    for key in simcards.ronda.api.LADDER_PAIRING_KEYS:
        assert q[key] == cmp[key], key
    assert q["p_a"] == pytest.approx((1 + cmp["win_rate_diff"]) / 2)


def test_with_three_players_the_fit_reads_a_seat_against_a_field() -> None:
    out = simcards.ronda.ladder(policies="greedy,random", players=3, deals=100,
                                **COMMON).to_dict()
    pairings = out["tables"][0]["pairings"]
    assert [(q["a"], q["b"], q["plays"]) for q in pairings] == [("greedy", "random", 150),
                                                                 ("random", "greedy", 150)]
    for q in pairings:
        assert q["unfinished"] == 0
        assert q["p_a"] == pytest.approx(q["win_rate_a"] / (q["win_rate_a"] + q["win_rate_b"]))
    assert "more matches per seat than random" in out["tables"][0]["summary"]


@pytest.mark.parametrize("players", [3, 4])
def test_a_ladder_with_seats_alone_is_the_same_whatever_the_listing_order(players) -> None:
    """With 3 or 4 players alone every pair plays both orders (one A among Bs and one B among
    As, each on half the deal sets, its own seed): the runs are the same whatever the order
    the policies are listed in, and so are the ratings relative to each other and the
    answer; only the anchor, the first listed, moves the scale."""
    def table(policies: str) -> dict:
        return simcards.ronda.ladder(policies=policies, players=players, deals=60, seed=11,
                                     **COMMON).to_dict()["tables"][0]

    first, second = table("greedy,random,lookahead:1"), table("lookahead:1,greedy,random")
    runs = [{(q["a"], q["b"]): (q["seed"], q["plays"], q["win_rate_diff"],
                                q["win_rate_diff_ci"]) for q in t["pairings"]}
            for t in (first, second)]
    assert runs[0] == runs[1] and len(runs[0]) == 6
    assert {plays for _, plays, _, _ in runs[0].values()} == {30 * players}
    rating = [{r["policy"]: r["rating"] for r in t["ratings"]} for t in (first, second)]
    for name in ("random", "lookahead:1"):
        assert rating[0][name] - rating[0]["greedy"] == pytest.approx(
            rating[1][name] - rating[1]["greedy"], abs=1e-6)
    assert first["order"] == second["order"] and first["summary"] == second["summary"]


# ---------------------------------------------------------------- the answer


def _all_keys(x: object) -> set[str]:
    if isinstance(x, dict):
        return set(x) | set().union(*(_all_keys(v) for v in x.values()))
    if isinstance(x, list):
        return set().union(*(_all_keys(v) for v in x)) if x else set()
    return set()


def test_the_json_is_the_api_answer_and_the_api_docstring_names_every_key(capsys, three) -> None:
    assert main([*LADDER, "--policies", "greedy,random,lookahead:1", "--deals", "300",
                 "--seed", "7", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli == three
    assert list(cli) == ["game", "command", "policies", "players", "anchor", "dealer", "seed",
                         "deals", "tables"]
    (table,) = cli["tables"]
    assert list(table) == ["players", "rules", "sides", "ratings", "order", "fit",
                           "unseparated", "pairings", "summary", "separation"]
    assert [r["policy"] for r in table["ratings"]] == cli["policies"] == ["greedy", "random",
                                                                          "lookahead:1"]
    assert table["ratings"][0] == {"policy": "greedy", "rating": 0.0, "ci95": [0.0, 0.0],
                                   "se": 0.0}
    assert [(q["a"], q["b"]) for q in table["pairings"]] == [
        ("greedy", "random"), ("greedy", "lookahead:1"), ("random", "lookahead:1")]
    missing = sorted(k for k in _all_keys(cli) if f"``{k}``" not in API_DOC)
    assert not missing, missing
    assert "``ladder``" in API_DOC


def test_a_small_ladder_ranks_lookahead_over_greedy_over_random(three) -> None:
    (table,) = three["tables"]
    assert table["order"] == ["lookahead:1", "greedy", "random"]
    rating = {r["policy"]: r for r in table["ratings"]}
    assert rating["random"]["ci95"][1] < 0 < rating["lookahead:1"]["ci95"][0]
    assert table["unseparated"] == []
    assert table["summary"].startswith("with 2 players play lookahead:1: it wins 0.")
    assert table["summary"].endswith("more matches than greedy, the next best.")
    assert table["separation"] == "every pair separates: no paired interval includes 0."
    for q in table["pairings"]:
        assert q["p_a_ci"][0] <= q["p_a"] <= q["p_a_ci"][1] and q["n_eff"] > 0
        assert abs(q["p_a_fit"] - q["p_a"]) < 0.1
    frame = simcards.ronda.ladder(policies="greedy,random,lookahead:1", deals=300, seed=7,
                                  **COMMON).to_frame()
    assert list(frame.columns) == ["players", "rank", "policy", "rating", "ci_low", "ci_high",
                                   "se"]
    assert list(frame["policy"]) == table["order"] and list(frame["rank"]) == [1, 2, 3]


def test_the_table_prints_the_ratings_and_the_two_sentences(capsys) -> None:
    assert main([*LADDER, "--policies", "random,greedy", "--deals", "30", "--players", "2,4",
                 "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "Ronda ladder: 2 players" in out and "Ronda ladder: 4 players" in out
    assert "0 (anchor)" in out
    assert "With 2 players play greedy: it wins" in out
    assert "Bradley-Terry fit" in out


def test_one_deal_set_gives_no_interval_and_no_policy_separates(capsys) -> None:
    out = simcards.ronda.ladder(policies="greedy,random", deals=1, **COMMON).to_dict()
    (table,) = out["tables"]
    (q,) = table["pairings"]
    assert q["win_rate_diff_ci"] is None and q["p_a_ci"] is None and q["n_eff"] == 1.0
    assert table["unseparated"] == [["greedy", "random"]]
    assert table["separation"] == ("no policy separates from another: every paired interval "
                                   "includes 0.")
    assert all(math.isfinite(r["rating"]) for r in table["ratings"])
    assert lad.separation_sentence([["a", "b"]], 3) == (
        "not separated (their paired interval includes 0): a and b.")
    assert main([*LADDER, "--policies", "greedy,random", "--deals", "1"]) == 0
    assert "No policy separates from another" in capsys.readouterr().out


# ---------------------------------------------------------------- runs


def test_same_numbers_for_any_workers_and_after_a_resume(tmp_path, capsys) -> None:
    store = tmp_path / "runs"
    argv = ["ronda", "ladder", "--policies", "lookahead:1,greedy", "--deals", "400",
            "--store", str(store), "--json"]
    assert main([*argv, "--workers", "1"]) == 0
    first = json.loads(capsys.readouterr().out)
    (run,) = store.glob("ronda-compare-*")
    chunks = sorted((run / "chunks").glob("*.parquet"))
    assert len(chunks) > 2
    for chunk in chunks[1:]:
        chunk.unlink()
    assert main([*argv, "--workers", "2"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == first
    assert "resumed 1 finished chunk" in captured.err
    (kept,) = store.glob("ronda-ladder-*")
    manifest = json.loads((kept / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["command"] == "ladder"
    assert (kept / "result.parquet").is_file()


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(("args", "message"), [
    ([], "--policies is missing"),
    (["--policies", "greedy"], "--policies needs at least 2 policies to rank, got 1"),
    (["--policies", "greedy,clever"], "--policies: unknown ronda policy 'clever'"),
    (["--policies", "greedy,rollout:0"], "--policies: policy rollout: K must be between 1"),
    (["--policies", "greedy,random,greedy"], "--policies: greedy is listed twice"),
    (["--policies", "lookahead,lookahead:1"], "--policies: lookahead:1 is listed twice"),
    (["--policies", "greedy,,random"], "entry 2 of 3 is empty"),
    (["--policies", "greedy,random", "--players", "5"],
     "--players must be between 2 and 4 (rule D2), got 5"),
    (["--policies", "greedy,random", "--players", "2,2"], "--players: 2 is listed twice"),
    (["--policies", "greedy,random", "--players", "two"], "--players: 'two' is not an integer"),
    (["--policies", "greedy,random", "--teams", "on"], "--teams on needs --players 4"),
    (["--policies", "greedy,random", "--deals", "0"], "--deals must be positive"),
    (["--policies", "greedy,random", "--seed", "-1"], "--seed must be between 0"),
    (["--policies", "greedy,random", "--workers", "0"], "--workers must be at least 1"),
    (["--policies", "greedy,random", "--players", "2,3", "--dealer", "2"],
     "--dealer must be a seat 0..1"),
])
def test_bad_ladder_input_is_one_line_and_exit_2(capsys, args, message) -> None:
    assert_one_line_error(capsys, [*LADDER, *args], message)
