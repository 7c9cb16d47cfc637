"""The exact two-player equilibrium of one Ronco round (rules E1-E4 of ``seeds/ronco.md``).

The payoff matrices are built in fractions from the reference engine; every check here compares
them, or the equilibrium drawn from them, with something computed another way: the numba
enumerator's floats, scipy's LP on those floats, fictitious play, or a hand-solvable game.
"""

from __future__ import annotations

import functools
import json
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linprog

from simcards.core.cli import main
from simcards.core.errors import UsageError
from simcards.ronco import api
from simcards.ronco import equilibrium_exact as eqm
from simcards.ronco.policies import Policy
from simcards.ronco.rounds_exact import exact_round, round_outcomes
from simcards.ronco.rules import RoncoRules
from tests.cli_checks import assert_one_line_error

DEFAULT = RoncoRules.make()
TIES_FIRST = RoncoRules.make(ties="first")
FRENCH_FIRST = RoncoRules.make(deck="french52", ties="first")
POROLI_FIRST = RoncoRules.make(poroli=True, ties="first")


@functools.cache
def _kernel_matrices(rules: RoncoRules, family: str) -> tuple[np.ndarray, np.ndarray,
                                                               np.ndarray, np.ndarray]:
    """P(lose) and E[lives lost] of both positions over the grid, from the numba enumerator
    (``exact_round`` / ``round_outcomes``): an engine independent of the reference."""
    g = eqm.grid(rules)
    lose = np.zeros((2, len(g), len(g)))
    lives = np.zeros((2, len(g), len(g)))
    for i, t in enumerate(g):
        for j, td in enumerate(g):
            pols = [eqm.policy_of(family, 0, t), eqm.policy_of(family, 1, td)]
            lose[:, i, j] = exact_round(rules, pols).p_lose
            for out, pr in round_outcomes(rules, pols):
                if not out.all_tie:  # G6: an absolute tie costs no life
                    lives[:, i, j] += pr * np.array(out.lost)
    return lose[0], lose[1], lives[0], lives[1]


def _floats(m: eqm.Matrix) -> np.ndarray:
    return np.array([[float(v) for v in row] for row in m])


@pytest.mark.parametrize(("rules", "family"), [
    (DEFAULT, "threshold"), (DEFAULT, "informed"), (POROLI_FIRST, "threshold"),
    (RoncoRules.make(deck="french52", cut_king="blocked"), "informed"),
])
def test_e2_fraction_payoffs_equal_the_kernel_enumerator_in_every_cell(rules, family) -> None:
    """E2 (R7, R8, R9, R10, G6): P(lose) and E[lives lost] of both positions, every cell."""
    pay = eqm.payoff_matrices(rules, family)
    lose0, lose1, lives0, lives1 = _kernel_matrices(rules, family)
    for exact, kernel in ((pay.p_lose[0], lose0), (pay.p_lose[1], lose1),
                          (pay.lives[0], lives0), (pay.lives[1], lives1)):
        assert np.max(np.abs(_floats(exact) - kernel)) < 1e-12
    assert all(isinstance(v, Fraction) for row in pay.p_lose[0] for v in row)


@pytest.mark.parametrize("family", ["threshold", "informed"])
@pytest.mark.parametrize("rules", [DEFAULT, POROLI_FIRST])
def test_e1_the_unread_threshold_of_each_position_changes_nothing(rules, family) -> None:
    """E1 (S1, S2): with two players position 0 never reads Td and the dealer never reads T."""
    for t, td in ((3, 6), (6, 7), (13, 0)):
        base = exact_round(rules, [Policy(family, t, 5), Policy(family, 5, td)])
        for other in (0, 4, 9, 13):
            alt = exact_round(rules, [Policy(family, t, other), Policy(family, other, td)])
            assert np.array_equal(alt.p_lose, base.p_lose)
            assert np.array_equal(alt.p_double, base.p_double)
            assert alt.p_cut == base.p_cut and alt.p_all_tie == base.p_all_tie


def test_e1_identical_thresholds_are_merged_and_listed_as_equivalent() -> None:
    """E1, C1: a 40-card deck has no strength 8 or 9, so T = 8, 9, 10 are one strategy, and
    with no strength 0 (no Poroli) T = 0 and T = 1 both keep everything. T = 12 (pass all but
    the Rey) is the same game too: against a threshold dealer, who ignores what he saw, a swap
    only exchanges two exchangeable cards (R3), and a Rey is refused (R4) or kept."""
    pay = eqm.payoff_matrices(TIES_FIRST)
    rows, cols = eqm.merge_identical(*pay.p_lose)
    assert [0, 1, 12] in rows and [8, 9, 10] in rows
    assert [0, 1] in cols and [8, 9, 10] in cols
    assert len(rows) == 10 and len(cols) == 11
    informed = eqm.payoff_matrices(TIES_FIRST, "informed")
    rows, _ = eqm.merge_identical(*informed.p_lose)
    assert [12] in rows


def _lp_value(a: np.ndarray) -> tuple[float, float]:
    """The value of the zero-sum game where the row player minimises ``a``, by scipy's LP from
    each side (dual simplex), on an independently computed matrix."""
    m, n = a.shape
    r0 = linprog(np.r_[np.zeros(m), 1.0], A_ub=np.c_[a.T, -np.ones(n)], b_ub=np.zeros(n),
                 A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0],
                 bounds=[(0, None)] * m + [(None, None)], method="highs-ds")
    r1 = linprog(np.r_[np.zeros(n), -1.0], A_ub=np.c_[-a, np.ones(m)], b_ub=np.zeros(m),
                 A_eq=np.r_[np.ones(n), 0.0][None, :], b_eq=[1.0],
                 bounds=[(0, None)] * n + [(None, None)], method="highs-ds")
    return float(r0.fun), float(-r1.fun)


def _fictitious_play_bounds(a: np.ndarray, steps: int = 20_000) -> tuple[float, float]:
    """Brown's fictitious play on ``a`` (row minimises): the best lower and upper bounds on the
    value seen along the way (any mix y gives min_i (A y)_i <= v <= max_j (x A)_j)."""
    m, n = a.shape
    cx, cy = np.zeros(m), np.zeros(n)
    cx[0] = cy[0] = 1.0
    lo, hi = -np.inf, np.inf
    for t in range(1, steps + 1):
        row_loss = a @ cy / t
        col_loss = cx @ a / t
        lo, hi = max(lo, row_loss.min()), min(hi, col_loss.max())
        cx[int(np.argmin(row_loss))] += 1.0
        cy[int(np.argmax(col_loss))] += 1.0
    return lo, hi


def _mix_vector(mix: list[dict], key: str, grid: list[int]) -> np.ndarray:
    v = np.zeros(len(grid))
    for m in mix:
        v[grid.index(m[key])] = float(Fraction(m["probability"]))
    return v


CONSTANT_SUM = [
    # (rules, family, value of position 0 (its P(lose)), position 0's mix, the dealer's mix)
    (TIES_FIRST, "threshold", Fraction(7367, 16055),
     {6: Fraction(12, 13), 7: Fraction(1, 13)}, {6: Fraction(38, 39), 7: Fraction(1, 39)}),
    (FRENCH_FIRST, "threshold", Fraction(10889, 24225),
     {8: Fraction(16, 19), 9: Fraction(3, 19)}, {8: Fraction(59, 76), 9: Fraction(17, 76)}),
    (FRENCH_FIRST, "informed", Fraction(18833, 38675),
     {7: Fraction(3, 7), 8: Fraction(4, 7)}, {8: Fraction(4, 7), 9: Fraction(3, 7)}),
    (POROLI_FIRST, "threshold", Fraction(5237, 9880), {7: Fraction(1)}, {8: Fraction(1)}),
]


@pytest.mark.parametrize(("rules", "family", "value", "mix0", "mix1"), CONSTANT_SUM,
                         ids=["spanish40", "french52", "french52-informed", "poroli"])
def test_e3_ties_first_is_constant_sum_and_its_exact_value_matches_independent_solvers(
        rules, family, value, mix0, mix1) -> None:
    """E3 (R8 ties=first, R10): one loser per round, so the round is a zero-sum game; its exact
    value and mixes, checked by scipy's LP and fictitious play on the kernel's floats and by
    the exact certificate."""
    out = api.equilibrium(players=2, exact=True, family=family, deck=rules.deck,
                          cut_king=rules.cut_king, ties=rules.ties,
                          poroli=rules.poroli).to_dict()
    assert out["matrix_game"] == "constant-sum"
    assert out["value"][0] == {"fraction": str(value), "decimal": float(value)}
    assert Fraction(out["value"][1]["fraction"]) == 1 - value
    assert {m["T"]: Fraction(m["probability"]) for m in out["mix"][0]} == mix0
    assert {m["Td"]: Fraction(m["probability"]) for m in out["mix"][1]} == mix1
    # Independent: the kernel's floats, solved by scipy's dual simplex from each side.
    lose0, lose1, _, _ = _kernel_matrices(rules, family)
    assert np.max(np.abs(lose0 + lose1 - 1.0)) < 1e-12
    lp0, lp1 = _lp_value(lose0)
    assert abs(lp0 - float(value)) < 1e-9 and abs(lp1 - float(value)) < 1e-9
    # Independent: fictitious play's bounds sandwich the value.
    lo, hi = _fictitious_play_bounds(lose0)
    assert lo - 1e-12 <= float(value) <= hi + 1e-12 and hi - lo < 0.02
    # The printed mixes against the kernel's floats: no pure strategy does better.
    g = eqm.grid(rules)
    x, y = _mix_vector(out["mix"][0], "T", g), _mix_vector(out["mix"][1], "Td", g)
    assert np.max(x @ lose0) <= float(value) + 1e-12
    assert np.min(lose0 @ y) >= float(value) - 1e-12
    # The exact certificate, in fractions, over the full grid.
    a = eqm.payoff_matrices(rules, family).p_lose[0]
    xf = [mix0.get(t, Fraction(0)) for t in g]
    yf = [mix1.get(t, Fraction(0)) for t in g]
    assert max(sum((xf[i] * a[i][j] for i in range(len(g))), Fraction(0))
               for j in range(len(g))) == value
    assert min(sum((a[i][j] * yf[j] for j in range(len(g))), Fraction(0))
               for i in range(len(g))) == value


def test_e4_ties_all_is_a_bimatrix_game_and_its_equilibrium_has_no_profitable_deviation(
        ) -> None:
    """E4 (R8 ties=all: both lose a tie): the printed equilibrium, checked exactly on the full
    grid and in floats on the kernel's matrices."""
    sol = eqm.solve(DEFAULT, "threshold", "lose")
    assert sol.game == "bimatrix" and sol.equilibria_found >= 1
    assert sol.value == (Fraction(7367, 16055), Fraction(6989, 11115))
    g = eqm.grid(DEFAULT)
    x = [Fraction(0)] * len(g)
    y = [Fraction(0)] * len(g)
    for t, p, _ in sol.mix[0]:
        x[g.index(t)] = p
    for td, p, _ in sol.mix[1]:
        y[g.index(td)] = p
    a, b = eqm.payoff_matrices(DEFAULT).p_lose
    eq = eqm.Equilibrium(tuple(x), tuple(y), sol.value)
    assert eqm.verify(a, b, eq)
    lose0, lose1, _, _ = _kernel_matrices(DEFAULT, "threshold")
    xf, yf = np.array([float(p) for p in x]), np.array([float(p) for p in y])
    assert abs(xf @ lose0 @ yf - float(sol.value[0])) < 1e-12
    assert abs(xf @ lose1 @ yf - float(sol.value[1])) < 1e-12
    assert np.min(lose0 @ yf) >= float(sol.value[0]) - 1e-12
    assert np.min(xf @ lose1) >= float(sol.value[1]) - 1e-12
    # Both lose a tie, so the losses add up to more than one.
    assert sol.value[0] + sol.value[1] > 1


def test_e3_poroli_lives_are_not_constant_sum_and_the_equilibrium_is_verified() -> None:
    """E3, R10: a double loss costs two lives, so with payoff ``lives`` Poroli under ties=first
    is a bimatrix game even though one player loses every round."""
    sol = eqm.solve(POROLI_FIRST, "threshold", "lives")
    assert sol.game == "bimatrix"
    a, b = eqm.payoff_matrices(POROLI_FIRST).lives
    assert eqm.is_constant_sum(a, b) is None
    g = eqm.grid(POROLI_FIRST)
    x = [Fraction(0)] * len(g)
    y = [Fraction(0)] * len(g)
    for t, p, _ in sol.mix[0]:
        x[g.index(t)] = p
    for td, p, _ in sol.mix[1]:
        y[g.index(td)] = p
    assert eqm.verify(a, b, eqm.Equilibrium(tuple(x), tuple(y), sol.value))


def test_r9_with_two_players_lives_do_not_depend_on_the_ties_rule() -> None:
    """R8, R9, G6: with two players a tie at the lowest card is an absolute tie, which costs no
    life, so payoff ``lives`` is the same game under ties=all and ties=first."""
    assert eqm.payoff_matrices(DEFAULT).lives == eqm.payoff_matrices(TIES_FIRST).lives
    assert eqm.solve(DEFAULT, "threshold", "lives") == eqm.solve(TIES_FIRST, "threshold",
                                                                  "lives")


def test_support_enumeration_finds_the_three_equilibria_of_a_coordination_game() -> None:
    """E4 on a textbook game (losses): two pure coordination equilibria and one mixed one,
    x = (1/3, 2/3), y = (2/3, 1/3)."""
    f = Fraction
    a = [[f(-2), f(0)], [f(0), f(-1)]]
    b = [[f(-1), f(0)], [f(0), f(-2)]]
    eqs = eqm.support_enumeration(a, b)
    assert len(eqs) == 3
    mixes = {(e.x, e.y) for e in eqs}
    assert ((f(1), f(0)), (f(1), f(0))) in mixes and ((f(0), f(1)), (f(0), f(1))) in mixes
    assert ((f(2, 3), f(1, 3)), (f(1, 3), f(2, 3))) in mixes


def test_zero_sum_solver_gives_rock_paper_scissors_its_uniform_mix() -> None:
    """E3 on a textbook game: the shifted rock-paper-scissors has value 1 and uniform mixes."""
    f = Fraction
    rps = [[f(1), f(2), f(0)], [f(0), f(1), f(2)], [f(2), f(0), f(1)]]
    eq = eqm.solve_zero_sum(rps, f(2))
    assert eq.x == (f(1, 3),) * 3 and eq.y == (f(1, 3),) * 3 and eq.value == (f(1), f(1))


def test_zero_sum_solver_finds_square_supports_in_a_degenerate_game() -> None:
    """E3: a duplicated dealer strategy and a constant game still end in a verified answer."""
    f = Fraction
    a = [[f(1), f(0), f(1)], [f(0), f(1), f(0)]]
    eq = eqm.solve_zero_sum(a, f(1))
    assert eq.value == (f(1, 2), f(1, 2)) and eq.x == (f(1, 2), f(1, 2))
    assert eqm.verify(a, [[1 - v for v in row] for row in a], eq)
    flat = [[f(1, 2)] * 5 for _ in range(4)]
    assert eqm.solve_zero_sum(flat, f(1)).value == (f(1, 2), f(1, 2))


def test_strictly_dominated_strategies_are_removed_iteratively() -> None:
    """Row 1 is dominated by row 0; once it is gone column 1 is dominated by column 0."""
    f = Fraction
    a = [[f(0), f(0)], [f(1), f(1)]]
    b = [[f(0), f(1)], [f(2), f(0)]]
    assert eqm.remove_dominated(a, b) == ([0], [0])


def test_cli_json_is_the_api_answer(capsys) -> None:
    """The command's JSON keys: game kind, value and mix per position, equilibria_found."""
    assert main(["ronco", "equilibrium", "--players", "2", "--exact", "--ties", "first",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == api.equilibrium(players=2, exact=True, ties="first").to_dict()
    assert out["matrix_game"] == "constant-sum" and out["command"] == "equilibrium"
    assert out["value"][0]["fraction"] == "7367/16055"
    assert out["mix"][0][0] == {"T": 6, "probability": "12/13", "decimal": 12 / 13,
                                "equivalent": []}
    assert out["equilibria_found"] == 1
    assert out["rules"]["ties"] == "first"


def test_cli_table_prints_the_fractions(capsys) -> None:
    assert main(["ronco", "equilibrium", "--exact", "--poroli"]) == 0
    text = capsys.readouterr().out
    assert "bimatrix game" in text and "5237/9880" in text and "Td=8" in text


@pytest.mark.parametrize(("args", "part"), [
    (["--players", "3", "--exact"], "--exact solves two players only"),
    (["--players", "2"], "the two-player solution is --exact"),
    (["--players", "1", "--exact"], "--players must be between 2 and 20 (rule T1)"),
    (["--exact", "--family", "pure"], "unknown family 'pure'"),
    (["--exact", "--family", "random"], "unknown family 'random'"),
    (["--exact", "--payoff", "chips"], "unknown payoff 'chips'"),
    (["--exact", "--deck", "rummy108"], "--deck must be one of spanish40|spanish48|french52"),
    (["--exact", "--ties", "some"], "--ties must be one of all|first (rule R8), got 'some'"),
    (["--exact", "--cut-king", "maybe"], "--cut-king must be one of loses|blocked|none (rule R7)"),
    (["--exact", "--seed", "-1"], "--seed must be between 0"),
])
def test_cli_bad_flags_are_one_line_errors_with_exit_2(capsys, args, part) -> None:
    assert_one_line_error(capsys, ["ronco", "equilibrium", *args], part)


def test_api_refuses_other_table_sizes_before_computing() -> None:
    with pytest.raises(UsageError, match="3-10 players"):
        api.equilibrium(players=4, exact=True)
