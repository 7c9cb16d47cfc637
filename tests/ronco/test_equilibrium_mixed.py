"""Mixed symmetric equilibria of whole Ronco games (rules E5, E6 of ``seeds/ronco.md``).

The Monte Carlo kernel, the composition tables, the exploitability statistic and the solver are
each checked against something computed another way: the race kernel on the same games, the
exact game solver (a Markov chain over lives and dealer, :mod:`simcards.ronco.games_exact`),
per-game differences computed directly, or a two-strategy game whose equilibrium is the root of
a quadratic built from exact game values.
"""

from __future__ import annotations

import copy
import functools
import importlib
import itertools
import json

import numpy as np
import pytest

from simcards.core.cli import main
from simcards.core.errors import UsageError
from simcards.core.plans import run_plans
from simcards.core.rng import chunk_state
from simcards.ronco import api, equilibrium_batch
from simcards.ronco.equilibrium_batch import composition_bins
from simcards.ronco.games_batch import MAX_ROUNDS
from simcards.ronco.games_exact import exact_game
from simcards.ronco.kernel_state import GameSpec, Seats
from simcards.ronco.mixed_kernel import mixed_games
from simcards.ronco.policies import Policy
from simcards.ronco.race_kernel import race_games
from simcards.ronco.rules import RoncoRules
from tests.cli_checks import assert_one_line_error

RULES = RoncoRules.make()
LIVES = 2


@functools.cache
def _exact_win(hero: Policy, a: Policy, b: Policy) -> float:
    """P(player 0 wins) of a 3-player game with 2 lives, exactly (first dealer drawn, G4)."""
    return float(exact_game(RULES, [hero, a, b], LIVES).win[0])


def _exact_payoff(hero: Policy, support: list[Policy], probs: list[float]) -> float:
    """E5: u(hero; sigma) with two others drawing from sigma independently: the
    mixture-weighted sum of exact game values over the ordered field profiles."""
    return sum(pa * pb * _exact_win(hero, a, b)
               for (a, pa), (b, pb) in itertools.product(zip(support, probs, strict=True),
                                                         repeat=2))


def _kernel(n: int, support: list[Policy], probs: list[float], cands: list[Policy],
            games: int, bins: int = 1, seed: int = 7) -> tuple[np.ndarray, ...]:
    cfg = equilibrium_batch.mixed_config(RULES, n, LIVES, support, probs, cands)
    return mixed_games(chunk_state(seed, 0), games, cfg.cum, cfg.support, cfg.candidates,
                       cfg.rules, GameSpec(n, LIVES, -1, MAX_ROUNDS), bins)


@pytest.mark.parametrize("kind", ["threshold", "informed"])
@pytest.mark.parametrize("n", [3, 6])
def test_e5_a_point_mass_field_plays_exactly_the_race_kernels_games(kind: str, n: int) -> None:
    """A point mass (and a mixture whose other members have probability 0) draws the field
    from a stream apart from the deals, so it plays the very games of ``race_games``."""
    cands = [Policy(kind, t, d) for t, d in ((4, 4), (5, 5), (6, 5), (7, 3))]
    field = Policy(kind, 5, 4)
    ref = race_games(chunk_state(11, 0), 3000, Seats.from_policies([field] * n),
                     Seats.from_policies(cands), RULES.kernel, GameSpec(n, LIVES, -1, MAX_ROUNDS),
                     None)
    for support, probs in (([field], [1.0]), ([field, Policy(kind, 3, 3)], [1.0, 0.0])):
        wins, beats, games, _cw, _cg = _kernel(n, support, probs, cands, 3000, seed=11)
        assert games[0] == 3000
        np.testing.assert_array_equal(wins, ref[0])
        np.testing.assert_array_equal(beats, ref[1])


def test_e5_nearby_mixtures_share_almost_all_their_fields() -> None:
    """Moving 1% of probability changes the drawn strategy of about 1% of the players: the
    other games, and so most of every candidate's wins, stay the same (smooth common random
    numbers)."""
    sup = [Policy("threshold", 5, 5), Policy("threshold", 4, 4)]
    cands = [Policy("threshold", 5, 4)]
    n, games = 6, 20_000
    bins = composition_bins(n, 2)
    a = _kernel(n, sup, [0.50, 0.50], cands, games, bins)
    b = _kernel(n, sup, [0.51, 0.49], cands, games, bins)
    # Counts of the first member among the 5 others, per game, are not returned, but the
    # composition histograms differ only by the few players whose uniform fell in [0.50, 0.51).
    moved = np.abs(a[4] - b[4]).sum() / 2
    assert 0 < moved < 0.1 * games  # about 1 - 0.99**5 ~ 5% of games change composition
    assert abs(int(a[0][0]) - int(b[0][0])) < 0.01 * games


@pytest.mark.parametrize(("kind", "support", "probs"), [
    ("threshold", [(5, 5), (7, 7)], [0.3, 0.7]),
    ("threshold", [(4, 6), (6, 4), (5, 5)], [0.2, 0.5, 0.3]),
    ("informed", [(5, 5), (6, 7)], [0.6, 0.4]),
    ("informed", [(4, 4), (6, 6), (7, 5)], [0.25, 0.25, 0.5]),
])
def test_e5_kernel_win_rates_agree_with_exact_games(kind: str, support: list, probs: list
                                                    ) -> None:
    """Every hero candidate's Monte Carlo win rate against the mixture is within 4 standard
    errors of the exact payoff (3 players, 2 lives)."""
    sup = [Policy(kind, t, d) for t, d in support]
    cands = [Policy(kind, t, d) for t, d in ((5, 5), (6, 4), (4, 7))]
    games = 60_000
    wins, *_ = _kernel(3, sup, probs, cands, games)
    for c, w in zip(cands, wins, strict=True):
        exact = _exact_payoff(c, sup, probs)
        se = np.sqrt(exact * (1 - exact) / games)
        assert abs(w / games - exact) < 4 * se, (c, w / games, exact)


def test_e5_composition_tables_give_the_payoff_of_other_mixtures() -> None:
    """One batch drawn from q, split by the field's composition, estimates u(c; sigma) for a
    different sigma over the same support: the exact payoff is within 4 standard errors."""
    sup = [Policy("threshold", 5, 5), Policy("threshold", 7, 7)]
    cands = [Policy("threshold", 5, 5), Policy("threshold", 7, 7), Policy("threshold", 6, 4)]
    games = 80_000
    _w, _b, _g, comp_wins, comp_games = _kernel(3, sup, [0.5, 0.5], cands, games,
                                                composition_bins(3, 2))
    assert comp_games.sum() == games
    table = equilibrium_batch.CompositionTable(3, 2, comp_wins, comp_games)
    sigma = np.array([0.2, 0.8])
    # sum over compositions of P(m | sigma)**2 / P(m | q): (2, 0), (1, 1), (0, 2)
    spread = 0.04 ** 2 / 0.25 + 0.32 ** 2 / 0.5 + 0.64 ** 2 / 0.25
    assert table.spread(sigma) == pytest.approx(spread, abs=0.02)
    est = table.payoffs(sigma)
    for c, e in zip(cands, est, strict=True):
        exact = _exact_payoff(c, sup, list(sigma))
        se = np.sqrt(exact * (1 - exact) / games * table.spread(sigma))
        assert abs(e - exact) < 4 * se, (c, e, exact)


def test_e6_paired_differences_from_cowins_match_the_per_game_computation() -> None:
    """The mean and standard error of d_s = x_s - sum w x from wins and discordant pairs equal
    those computed from the per-game outcomes themselves."""
    rng = np.random.default_rng(5)
    g, k = 5000, 4
    base = rng.random(g) < 0.3
    x = np.array([base ^ (rng.random(g) < p) for p in (0.0, 0.05, 0.1, 0.2)])
    wins = x.sum(axis=1).astype(np.int64)
    beats = np.array([[np.sum(x[i] & ~x[j]) for j in range(k)] for i in range(k)], np.int64)
    stats = {"wins": wins, "beats": beats, "games": np.array([g])}
    w = np.array([0.5, 0.3, 0.2, 0.0])
    mean, se = equilibrium_batch.mixture_differences(stats, w)
    d = x.astype(float) - w @ x.astype(float)
    np.testing.assert_allclose(mean, d.mean(axis=1), atol=1e-12)
    np.testing.assert_allclose(se, d.std(axis=1) / np.sqrt(g), atol=1e-12)
    rate, rate_se = equilibrium_batch.mixture_rate(stats, w)
    mix = w @ x.astype(float)
    assert rate == pytest.approx(mix.mean()) and rate_se == pytest.approx(mix.std() / np.sqrt(g))


def test_e6_bonferroni_quantile_holds_all_intervals_at_once() -> None:
    assert equilibrium_batch.bonferroni_z(0.05, 1) == pytest.approx(1.959964, abs=1e-6)
    assert equilibrium_batch.bonferroni_z(0.02, 100) == pytest.approx(3.719016, abs=1e-6)
    assert sum(equilibrium_batch.CERT_ALPHAS) == pytest.approx(0.05)


def _run(gen):
    """Run one plan's batches in order (one worker)."""
    return run_plans([gen])[0]


def test_e6_exploitability_of_a_pure_field_is_the_exact_gain_of_the_best_deviation() -> None:
    """A pure field 5:5 among {5:5, 7:7} at 3 players, 2 lives: d for 5:5 is 0 in every game,
    and 7:7 gains exactly u(7:7; 5:5) - u(5:5; 5:5) > 0.002, which is then the exploitability:
    its estimate is inside the certificate's interval and the field is not certified."""
    a, b = Policy("threshold", 5, 5), Policy("threshold", 7, 7)
    budget = equilibrium_batch.Budget(cert_games=(4096, 65_536))
    row = _run(equilibrium_batch.certify(RULES, 3, LIVES, "threshold", [a], np.array([1.0]), seed=3,
                             budget=budget, strategies=[a, b]))
    gain = _exact_win(b, a, a) - _exact_win(a, a, a)
    assert gain > 0.005
    assert row.most_gain == b and row.best_other == b
    assert row.exploitability_ci[0] <= gain <= row.exploitability_ci[1]
    assert abs(row.exploitability - gain) < 0.003
    assert not row.certified
    stage = row.stages[-1]
    assert stage.games == 65_536 and sorted(stage.tested) == [0, 1]
    assert stage.se[0] == 0.0 and stage.mean[0] == 0.0  # 5:5 against itself
    z = equilibrium_batch.bonferroni_z(equilibrium_batch.CERT_ALPHAS[1], 2)
    assert stage.z == pytest.approx(z)


def test_e5_e6_solver_finds_the_mixed_equilibrium_of_a_two_strategy_game() -> None:
    """{5:5, 7:7} at 3 players and 2 lives: each beats the other where the other is common
    (exact values), so the symmetric equilibrium is mixed, at the root p* of
    u(5:5; sigma_p) - u(7:7; sigma_p), a quadratic in p. The solver lands near p*, its exact
    exploitability is below the target, and the certificate's interval covers it."""
    a, b = Policy("threshold", 5, 5), Policy("threshold", 7, 7)

    def f(p: float) -> float:
        return _exact_payoff(a, [a, b], [p, 1 - p]) - _exact_payoff(b, [a, b], [p, 1 - p])

    assert f(1.0) < 0 < f(0.0)
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
    p_star = (lo + hi) / 2
    assert 0.3 < p_star < 0.4
    budget = equilibrium_batch.Budget(solve_games=32_768, final_games=131_072)
    row = _run(equilibrium_batch.plan(RULES, 3, LIVES, "threshold", [a, b], seed=1, budget=budget,
                          near=True, strategies=[a, b]))
    assert set(row.support) == {a, b}
    p = float(row.probabilities[row.support.index(a)])
    # The payoff difference moves by about 0.012 from p = 0 to p = 1 and its estimate from
    # 131k games is within about 0.001: p lands within about 0.1 of p*.
    assert abs(p - p_star) < 0.2
    u = [_exact_payoff(s, [a, b], [p, 1 - p]) for s in (a, b)]
    exploit = max(u) - (p * u[0] + (1 - p) * u[1])
    assert exploit < equilibrium_batch.TARGET
    assert row.exploitability_ci[0] <= exploit <= row.exploitability_ci[1]
    assert row.certified


def test_e5_start_from_race_reads_converged_cycle_and_path() -> None:
    conv = {"equilibrium_converged": True, "equilibrium_T": 6, "equilibrium_Td": 5,
            "equilibrium_cycle": [], "best_response_path": [[5, 5], [6, 5]]}
    cyc = {"equilibrium_converged": False, "equilibrium_T": None, "equilibrium_Td": None,
           "equilibrium_cycle": [[5, 5], [5, 4], [4, 4]], "best_response_path": []}
    path = {"equilibrium_converged": False, "equilibrium_T": None, "equilibrium_Td": None,
            "equilibrium_cycle": [], "best_response_path": [[5, 5], [6, 6], [6, 4], [5, 4],
                                                            [5, 6]]}
    assert equilibrium_batch.start_from_race("threshold", conv) == [Policy("threshold", 6, 5)]
    assert [(p.T, p.Td) for p in equilibrium_batch.start_from_race("informed", cyc)] == \
        [(5, 5), (5, 4), (4, 4)]
    assert [(p.T, p.Td) for p in equilibrium_batch.start_from_race("threshold", path)] == \
        [(6, 4), (5, 4), (5, 6)]


def test_cli_mixed_equilibrium_json_keys(capsys) -> None:
    args = ["ronco", "equilibrium", "--players", "3", "--lives", "2", "--start", "6:6",
            "--json", "--store", "none", "--workers", "1", "--seed", "4"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["command"] == "equilibrium" and out["players"] == [3] and out["lives"] == 2
    (row,) = out["rows"]
    for key in ("players", "support", "win_rate", "win_rate_ci", "exploitability",
                "exploitability_ci", "certified", "most_gain", "best_deviation",
                "search_games", "certificate_games"):
        assert key in row
    assert sum(m["probability"] for m in row["support"]) == pytest.approx(1.0)
    assert set(row["support"][0]) == {"T", "Td", "probability"}
    lo, hi = row["exploitability_ci"]
    assert 0.0 <= lo <= row["exploitability"] <= hi
    assert row["certified"] == (hi < 0.002)
    doc = importlib.import_module("simcards.ronco.api").__doc__ or ""  # the keys' home
    missing = sorted(k for k in _nested_keys(out) if f"``{k}``" not in doc)
    assert not missing, missing


def _nested_keys(d: dict) -> set[str]:
    keys: set[str] = set()
    for k, v in d.items():
        if k != "cluster":
            keys.add(k)
            for item in (v if isinstance(v, list) else [v]):
                if isinstance(item, dict):
                    keys |= _nested_keys(item)
    return keys


@pytest.mark.parametrize(("args", "part"), [
    (["--players", "2"], "the two-player solution is --exact"),
    (["--players", "2-4"], "the two-player solution is --exact"),
    (["--players", "3-10", "--exact"], "--exact solves two players only"),
    (["--players", "4", "--payoff", "lives"], "--payoff applies to the two-player"),
    (["--players", "4", "--start", "5"], "--start takes T:Td pairs"),
    (["--players", "4", "--start", "5:99"], "Td"),
    (["--players", "4", "--family", "random"], "unknown family 'random'"),
    (["--players", "4", "--lives", "0"], "lives"),
    (["--players", "2", "--exact", "--lives", "3"], "--lives cannot be used with --exact"),
    (["--players", "21"], "--players must be between 2 and 20 (rule T1)"),
])
def test_cli_bad_flags_are_one_line_errors_with_exit_2(capsys, args, part) -> None:
    assert_one_line_error(capsys, ["ronco", "equilibrium", *args], part)


def test_api_refuses_a_two_player_mixed_search_before_computing() -> None:
    with pytest.raises(UsageError, match="--exact"):
        api.equilibrium(players="2-5")


def _perturbed(table: equilibrium_batch.CompositionTable, rel: float
               ) -> equilibrium_batch.CompositionTable:
    """A copy of ``table`` whose rates differ in their last bits, as another CPU's vector
    unit, another BLAS kernel or another library build would compute them."""
    out = copy.copy(table)
    wobble = np.cos(np.arange(table.rates.size)).reshape(table.rates.shape)
    out.rates = table.rates * (1.0 + rel * wobble)
    return out


def test_e5_solver_answer_does_not_move_with_the_last_bit_of_its_tables() -> None:
    """The search re-centres its batches on the solver's answer, so an answer that moved with
    rounding noise would move every later number of the run (the 5-player equilibrium's win
    rate in the report changed in its 7th digit between two runs of the same seed). The answer
    is a point of the lattice and the same for tables that differ by 1e-15 relative."""
    sup = [Policy("threshold", 5, 5), Policy("threshold", 7, 7), Policy("threshold", 6, 4)]
    cands = [*sup, Policy("threshold", 4, 4), Policy("threshold", 6, 6)]
    _w, _b, _g, comp_wins, comp_games = _kernel(3, sup, [0.4, 0.3, 0.3], cands, 20_000,
                                                composition_bins(3, 3))
    table = equilibrium_batch.CompositionTable(3, 3, comp_wins, comp_games)
    sigma, gain = equilibrium_batch.solve_restricted(table, [0, 1, 2])
    assert sigma.sum() == 1.0
    lattice = equilibrium_batch.LATTICE
    np.testing.assert_array_equal(sigma * lattice, np.round(sigma * lattice))
    for rel in (1e-15, -3e-15, 1e-13):
        again, again_gain = equilibrium_batch.solve_restricted(_perturbed(table, rel), [0, 1, 2])
        np.testing.assert_array_equal(again, sigma)
        np.testing.assert_allclose(again_gain, gain, rtol=0, atol=1e-12)
    # the exactly rounded certificate sums give the same bits in any order
    stats = {"wins": np.array([7000, 6500, 7100]), "games": np.array([20_000]),
             "beats": np.array([[0, 900, 300], [400, 0, 350], [400, 950, 0]])}
    order = [2, 0, 1]
    shuffled = {"wins": stats["wins"][order], "games": stats["games"],
                "beats": stats["beats"][np.ix_(order, order)]}
    mean, se = equilibrium_batch.mixture_differences(stats, sigma)
    mean2, se2 = equilibrium_batch.mixture_differences(shuffled, sigma[order])
    np.testing.assert_array_equal(mean[order], mean2)
    np.testing.assert_array_equal(se[order], se2)
    rate = equilibrium_batch.mixture_rate
    assert rate(stats, sigma) == rate(shuffled, sigma[order])


def test_e5_e6_mixed_search_is_bit_identical_for_one_and_two_workers() -> None:
    """The whole search and certificate (a mixed support, the double oracle adding a member,
    composition tables, stages), as the report runs it, gives every value bit for bit the
    same with one worker and with two."""
    start = [Policy("threshold", 5, 5), Policy("threshold", 7, 7)]
    budget = equilibrium_batch.Budget(solve_games=4096, final_games=8192, max_iterations=2,
                          cert_games=(2048, 8192))
    strategies = [*start, Policy("threshold", 6, 4), Policy("threshold", 6, 6)]
    rows = []
    for workers in (1, 2):
        plans = [equilibrium_batch.plan(RULES, 3, LIVES, "threshold", start, seed=9, budget=budget,
                            near=True, strategies=strategies)]
        rows.append(run_plans(plans, workers=workers)[0].to_dict())
    assert not rows[0]["pure"]
    assert json.dumps(rows[0]) == json.dumps(rows[1])
