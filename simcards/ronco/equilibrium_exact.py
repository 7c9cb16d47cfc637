"""The exact equilibrium of one two-player Ronco round (rules E1-E4 of ``seeds/ronco.md``).

Two players, one round: position 0 acts first (keep or pass, R2), position 1 is the dealer
(keep or cut, R6). Each position picks a pure strategy from a policy family's grid and the
pair is scored exactly; the resulting matrix game is solved exactly.

**Strategy reduction (E1).** A ``threshold:T:Td`` or ``informed:T:Td`` policy reads ``T`` only
as a non-dealer and ``Td`` only as the dealer (S1, S2), so with two players position 0's pure
strategies are its ``T`` values 0 .. top+1 (its ``Td`` never matters) and the dealer's are its
``Td`` values 0 .. top+1 (its ``T`` never matters). Values that give identical payoffs against
every strategy of the other side (``T`` = 8, 9, 10 in a 40-card deck, where no card has strength
8 or 9) are merged into one strategy, named by its smallest value, with the others listed as
``equivalent``: identical strategies would make the indifference equations singular.

The family of every strategy (position 0: keep/pass per card strength; the dealer: keep/cut per
own card and what he saw) is not a matrix game: the dealer alone has one decision per (own
card, previous card after a swap), per (own card, position 0 kept) and after a refusal, 101
information sets with a 40-card deck and so 2**101 pure strategies. It is ``--family all``
(rule E7), solved over behavioural strategies by an exact linear program in
:mod:`simcards.ronco.behaviour_exact`.

**Payoff matrices in exact fractions.** Deals are enumerated by strength class (the two dealt
cards, then the cut card only where the dealer cuts), each weighted by its exact probability of
being drawn without replacement. The outcome of a deal under each pair of actions comes from
the reference engine (:func:`simcards.ronco.reference.play_round`, written from the rules text),
and each policy's action from the reference's own decision rule, so the matrices share no code
with the numba kernels that :func:`simcards.ronco.rounds_exact.exact_round` runs; the tests check
that both agree on every cell.

**Payoffs (E2).** ``lose``: a position's probability of being a loser of the round (R7, R8; an
absolute tie, R9, still has its losers). ``lives``: its expected lives lost in the round as a
game counts them: one per loss, two for a Poroli double loss (R10), none in an absolute tie
(G6, under both ``void`` and ``replay``). Each position minimises its own.

**Constant-sum or bimatrix (E3).** With payoff ``lose`` and ``ties=first`` exactly one player
loses every round (R7 ``loses`` names the dealer alone, otherwise R8 names the earliest of the
lowest), so the two losses add up to 1 in every cell: a zero-sum game, solved by the linear
program of each side (:func:`scipy.optimize.linprog`, HiGHS) and then made exact: the LP's
supports give the indifference equations, solved in fractions, and the certificate (no pure
strategy of either side does better against the other's mix than the value) is checked exactly.
Poroli's double loss (R10) changes lives, not losers, so with payoff ``lose`` Poroli under
``ties=first`` stays constant-sum; with payoff ``lives`` a double loss, or an absolute tie that
costs nothing, makes the total vary, and the game is a bimatrix game. The kind is not assumed
from the flags: it is decided by checking exactly whether the two matrices add up to one constant.

**Bimatrix games (E4)** (``ties=all``, where both can lose a tie, or payoff ``lives``): after
removing strictly dominated pure strategies (never played in any equilibrium), every pair of
equal-size supports is tried: the indifference equations are solved in floats to screen, then
in fractions, and an equilibrium is kept when its probabilities are positive and no pure
strategy of either side does strictly better (checked exactly). This finds every equilibrium
of a nondegenerate game, and the extreme equilibria with nonsingular equal-size supports of a
degenerate one; ``equilibria_found`` counts them. The equilibrium printed is the one with the
lowest loss for position 0, then the lowest for the dealer, then the earliest supports.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from simcards.core.errors import UsageError
from simcards.ronco import reference as ref
from simcards.ronco.policies import DEFAULT_T, DEFAULT_TD, THRESHOLD_KINDS, Policy
from simcards.ronco.rules import RoncoRules

FAMILIES = THRESHOLD_KINDS
"""Policy families whose grid gives the pure strategies (E1): the fixed rules on (T, Td)
(declared :data:`~simcards.ronco.policies.THRESHOLD_RULE`)."""
PAYOFFS = ("lose", "lives")
"""What each position minimises (E2)."""
MAX_SUPPORT_PAIRS = 2_000_000
"""Support pairs the bimatrix solver may try; more is refused (never reached by the grids)."""

Matrix = list[list[Fraction]]


def check_family(family: str) -> str:
    if family not in FAMILIES:
        raise UsageError(f"unknown family {family!r} for equilibrium "
                         f"(expected {'|'.join(FAMILIES)}; the family of every deterministic "
                         "strategy is too large for a matrix game)")
    return family


def check_payoff(payoff: str) -> str:
    if payoff not in PAYOFFS:
        raise UsageError(f"unknown payoff {payoff!r} (expected {'|'.join(PAYOFFS)})")
    return payoff


def grid(rules: RoncoRules) -> list[int]:
    """S1: the thresholds 0 .. top+1, for position 0's ``T`` and for the dealer's ``Td``."""
    return list(range(rules.top + 2))


def policy_of(family: str, position: int, value: int) -> Policy:
    """The policy of pure strategy ``value`` at ``position`` (E1: the other threshold is left at
    its default, which it never reads)."""
    if position == 0:
        return Policy(family, value, DEFAULT_TD)
    return Policy(family, DEFAULT_T, value)


# ---------------------------------------------------------------------------------------------
# Exact payoffs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CellOutcome:
    """Exact per-position figures of one round for one strategy pair."""

    p_lose: tuple[Fraction, Fraction]
    lives: tuple[Fraction, Fraction]


@dataclass(frozen=True)
class _Deals:
    """The deal classes of a two-player round, with the reference's outcome of each under every
    pair of actions (position 0 keeps?, the dealer keeps?)."""

    cards: tuple[tuple[ref.Card, ref.Card], ...]
    weight: tuple[Fraction, ...]
    outcome: tuple[dict[tuple[bool, bool], tuple[tuple[Fraction, Fraction],
                                                  tuple[Fraction, Fraction]]], ...]


def _options(rules: RoncoRules) -> dict[str, object]:
    return {"deck": rules.deck, "ties": rules.ties, "cut_king": rules.cut_king,
            "poroli": rules.poroli}


@functools.cache
def _deals(rules: RoncoRules) -> _Deals:
    """Every (position 0's card, dealer's card) strength class with its exact probability and,
    for each pair of actions, the exact (P(lose), E[lives lost]) of each position, summed over
    the cut card when the dealer cuts (R6, R7)."""
    opts = _options(rules)
    top = ref.top_rank(rules.deck)
    by_strength: dict[int, list[ref.Card]] = {}
    for card in ref.deck_cards(rules.deck):
        by_strength.setdefault(ref.strength(card, poroli=rules.poroli), []).append(card)
    classes = sorted(by_strength)
    n_cards = sum(len(v) for v in by_strength.values())
    keep0 = {True: ref.RefPolicy("threshold", 0, 0), False: ref.RefPolicy("threshold", top + 1, 0)}
    keep_d = {True: ref.RefPolicy("threshold", 0, 0),
              False: ref.RefPolicy("threshold", 0, top + 1)}
    cards, weights, outcomes = [], [], []
    for sa in classes:
        for sb in classes:
            left_b = len(by_strength[sb]) - (sa == sb)
            if left_b == 0:
                continue
            a = by_strength[sa][0]
            b = by_strength[sb][1 if sa == sb else 0]
            w = Fraction(len(by_strength[sa]), n_cards) * Fraction(left_b, n_cards - 1)
            table = {}
            for k0, kd in itertools.product((True, False), repeat=2):
                pols = [keep0[k0], keep_d[kd]]
                lose = [Fraction(0)] * 2
                lives = [Fraction(0)] * 2
                for sc in classes:
                    used = (sa == sc) + (sb == sc)
                    left_c = len(by_strength[sc]) - used
                    if left_c == 0:
                        continue
                    pc = Fraction(left_c, n_cards - 2)
                    out = ref.play_round([a, b], by_strength[sc][used], pols, **opts)
                    if kd:  # the dealer keeps: the cut card plays no part
                        pc = Fraction(1)
                    for k in range(2):
                        if out.losers[k]:
                            lose[k] += pc
                            if not out.absolute_tie:  # G6: an absolute tie costs no life
                                lives[k] += pc * (2 if out.double[k] else 1)
                    if kd:
                        break
                table[(k0, kd)] = ((lose[0], lose[1]), (lives[0], lives[1]))
            cards.append((a, b))
            weights.append(w)
            outcomes.append(table)
    return _Deals(tuple(cards), tuple(weights), tuple(outcomes))


@functools.cache
def _decides_keep(policy: ref.RefPolicy, view: ref._View, rules: RoncoRules) -> bool:
    return ref._decide_keep(policy, view, None, **_options(rules))


def _actions(rules: RoncoRules, pol0: ref.RefPolicy, pol_d: ref.RefPolicy,
             a: ref.Card, b: ref.Card) -> tuple[bool, bool]:
    """Whether position 0 keeps and whether the dealer keeps, on the deal (a, b), by the
    reference's decision rule (S1, S2) and the view the dealer then has (R2-R4, R11)."""
    k0 = _decides_keep(pol0, ref._View(0, 2, a, a, False), rules)
    if k0 or b[0] == ref.top_rank(rules.deck):  # kept, or refused (R4)
        view = ref._View(1, 2, b, b, False)
    else:  # swapped (R3): the dealer holds a and knows position 0's final card b
        view = ref._View(1, 2, a, b, True)
    return k0, _decides_keep(pol_d, view, rules)


def _ref_policy(p: Policy) -> ref.RefPolicy:
    return ref.RefPolicy(p.kind, int(p.T), int(p.Td), float(p.p))


def cell(rules: RoncoRules, pol0: Policy, pol_d: Policy) -> CellOutcome:
    """Exact P(lose) and E[lives lost] of both positions for deterministic policies of the
    threshold or informed family (position 0 first, the dealer second)."""
    for p in (pol0, pol_d):
        if p.kind not in FAMILIES:
            raise UsageError(f"equilibrium cells need threshold or informed policies, got "
                             f"{p.spec()}")
        p.validate(rules.top)
    deals = _deals(rules)
    r0, rd = _ref_policy(pol0), _ref_policy(pol_d)
    lose = [Fraction(0)] * 2
    lives = [Fraction(0)] * 2
    for (a, b), w, table in zip(deals.cards, deals.weight, deals.outcome, strict=True):
        (l0, l1), (v0, v1) = table[_actions(rules, r0, rd, a, b)]
        lose[0] += w * l0
        lose[1] += w * l1
        lives[0] += w * v0
        lives[1] += w * v1
    return CellOutcome((lose[0], lose[1]), (lives[0], lives[1]))


@dataclass(frozen=True)
class Payoffs:
    """Both positions' exact payoff matrices over the full grids: ``[position][i][j]`` with
    ``i`` position 0's strategy and ``j`` the dealer's."""

    rows: list[int]
    cols: list[int]
    p_lose: tuple[Matrix, Matrix]
    lives: tuple[Matrix, Matrix]

    def of(self, payoff: str) -> tuple[Matrix, Matrix]:
        return self.p_lose if check_payoff(payoff) == "lose" else self.lives


def payoff_matrices(rules: RoncoRules, family: str = "threshold") -> Payoffs:
    """Every cell of the grid (E1) in exact fractions (E2)."""
    check_family(family)
    rows = cols = grid(rules)
    lose: tuple[Matrix, Matrix] = ([], [])
    lives: tuple[Matrix, Matrix] = ([], [])
    for t in rows:
        for m in (*lose, *lives):
            m.append([])
        for td in cols:
            c = cell(rules, policy_of(family, 0, t), policy_of(family, 1, td))
            for k in range(2):
                lose[k][-1].append(c.p_lose[k])
                lives[k][-1].append(c.lives[k])
    return Payoffs(rows, cols, lose, lives)


# ---------------------------------------------------------------------------------------------
# Exact linear algebra
# ---------------------------------------------------------------------------------------------


def solve_exact(m: Sequence[Sequence[Fraction]], rhs: Sequence[Fraction]) -> list[Fraction] | None:
    """The solution of the square system ``m x = rhs`` in fractions, or None when singular."""
    n = len(m)
    a = [[Fraction(v) for v in row] + [Fraction(r)] for row, r in zip(m, rhs, strict=True)]
    for col in range(n):
        piv = next((r for r in range(col, n) if a[r][col] != 0), None)
        if piv is None:
            return None
        a[col], a[piv] = a[piv], a[col]
        inv = 1 / a[col][col]
        a[col] = [v * inv for v in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [v - f * p for v, p in zip(a[r], a[col], strict=True)]
    return [a[r][n] for r in range(n)]


def _indifference(m: Matrix, own: Sequence[int], other: Sequence[int], by_rows: bool
                  ) -> tuple[list[Fraction], Fraction] | None:
    """The mix over ``own`` that makes the opponent indifferent among ``other`` in ``m``
    (the opponent's payoff matrix), and the opponent's payoff then: ``by_rows`` when ``own``
    indexes the rows of ``m``."""
    k = len(own)
    eqs, rhs = [], []
    for o in other:
        coeffs = [m[i][o] if by_rows else m[o][i] for i in own]
        eqs.append([*coeffs, Fraction(-1)])
        rhs.append(Fraction(0))
    eqs.append([Fraction(1)] * k + [Fraction(0)])
    rhs.append(Fraction(1))
    sol = solve_exact(eqs, rhs)
    if sol is None:
        return None
    return sol[:k], sol[k]


def _row_values(m: Matrix, y: Sequence[Fraction]) -> list[Fraction]:
    return [sum((a * b for a, b in zip(row, y, strict=True)), Fraction(0)) for row in m]


def _col_values(m: Matrix, x: Sequence[Fraction]) -> list[Fraction]:
    return [sum((x[i] * m[i][j] for i in range(len(m))), Fraction(0)) for j in range(len(m[0]))]


def _spread(ids: Sequence[int], probs: Sequence[Fraction], size: int) -> list[Fraction]:
    out = [Fraction(0)] * size
    for i, p in zip(ids, probs, strict=True):
        out[i] = p
    return out


# ---------------------------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------------------------


def merge_identical(a: Matrix, b: Matrix) -> tuple[list[list[int]], list[list[int]]]:
    """Groups of pure strategies with identical payoffs for both positions (E1): position 0's
    groups (rows equal in both matrices), then the dealer's (columns equal), each group sorted,
    groups in order of their first member."""
    rows: dict[tuple, list[int]] = {}
    for i in range(len(a)):
        rows.setdefault((tuple(a[i]), tuple(b[i])), []).append(i)
    cols: dict[tuple, list[int]] = {}
    for j in range(len(a[0])):
        key = (tuple(r[j] for r in a), tuple(r[j] for r in b))
        cols.setdefault(key, []).append(j)
    return list(rows.values()), list(cols.values())


def is_constant_sum(a: Matrix, b: Matrix) -> Fraction | None:
    """The constant ``a + b`` when it is the same in every cell, else None (E3)."""
    total = a[0][0] + b[0][0]
    if all(x + y == total for ra, rb in zip(a, b, strict=True)
           for x, y in zip(ra, rb, strict=True)):
        return total
    return None


@dataclass(frozen=True)
class Equilibrium:
    """Mixed strategies over the game's strategies (indices), with each position's loss."""

    x: tuple[Fraction, ...]
    y: tuple[Fraction, ...]
    value: tuple[Fraction, Fraction]


def verify(a: Matrix, b: Matrix, eq: Equilibrium) -> bool:
    """Exact certificate: both mixes are probability vectors, the values are the expected losses,
    and no pure strategy of either side loses strictly less against the other's mix."""
    if any(p < 0 for p in (*eq.x, *eq.y)) or sum(eq.x) != 1 or sum(eq.y) != 1:
        return False
    rv = _row_values(a, eq.y)
    cv = _col_values(b, eq.x)
    v0 = sum((p * r for p, r in zip(eq.x, rv, strict=True)), Fraction(0))
    v1 = sum((p * c for p, c in zip(eq.y, cv, strict=True)), Fraction(0))
    return v0 == eq.value[0] and v1 == eq.value[1] and min(rv) == v0 and min(cv) == v1


def solve_zero_sum(a: Matrix, total: Fraction) -> Equilibrium:
    """Position 0 minimises ``a``; the dealer minimises ``total - a`` (E3). The LP of each side
    (HiGHS) gives the supports; the indifference equations give the exact mixes."""
    from scipy.optimize import linprog

    m, n = len(a), len(a[0])
    af = np.array([[float(v) for v in row] for row in a])
    # Position 0: minimise v subject to (x^T A)_j <= v, sum x = 1, x >= 0.
    r0 = linprog(np.r_[np.zeros(m), 1.0], A_ub=np.c_[af.T, -np.ones(n)], b_ub=np.zeros(n),
                 A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0],
                 bounds=[(0, None)] * m + [(None, None)], method="highs")
    # The dealer: maximise u subject to (A y)_i >= u, sum y = 1, y >= 0.
    r1 = linprog(np.r_[np.zeros(n), -1.0], A_ub=np.c_[-af, np.ones(m)], b_ub=np.zeros(m),
                 A_eq=np.r_[np.ones(n), 0.0][None, :], b_eq=[1.0],
                 bounds=[(0, None)] * n + [(None, None)], method="highs")
    if r0.status != 0 or r1.status != 0:  # pragma: no cover - a finite matrix game is feasible
        raise RuntimeError(f"the linear program failed: {r0.message} / {r1.message}")
    xf, yf, v = r0.x[:m], r1.x[:n], float(r0.x[m])
    tol = 1e-9
    supp0 = [i for i in range(m) if xf[i] > tol]
    supp1 = [j for j in range(n) if yf[j] > tol]
    best0 = [i for i in range(m) if af[i] @ yf <= v + 1e-7]
    best1 = [j for j in range(n) if xf @ af[:, j] >= v - 1e-7]
    # The LP's own supports first; then square subsets of the best responses, smallest first
    # (an extreme optimal pair has square, nonsingular supports among them), generated lazily.
    tries = itertools.chain(
        [(supp0, supp1)] if len(supp0) == len(supp1) else [],
        ((list(r), list(c)) for k in range(1, min(len(best0), len(best1)) + 1)
         for r in itertools.combinations(best0, k) for c in itertools.combinations(best1, k)))
    b = [[total - v_ for v_ in row] for row in a]
    for rows, cols in tries:
        eq = _support_pair(a, b, rows, cols)
        if eq is not None:
            return eq
    raise RuntimeError("no exact equilibrium on the LP's best responses")  # pragma: no cover


def _support_pair(a: Matrix, b: Matrix, rows: Sequence[int], cols: Sequence[int]
                  ) -> Equilibrium | None:
    """The equilibrium with supports ``rows`` and ``cols`` if the indifference equations have a
    nonnegative exact solution passing :func:`verify`, else None."""
    sx = _indifference(b, rows, cols, by_rows=True)  # x makes the dealer indifferent
    sy = _indifference(a, cols, rows, by_rows=False)  # y makes position 0 indifferent
    if sx is None or sy is None:
        return None
    x = _spread(rows, sx[0], len(a))
    y = _spread(cols, sy[0], len(a[0]))
    eq = Equilibrium(tuple(x), tuple(y), (sy[1], sx[1]))
    return eq if verify(a, b, eq) else None


def remove_dominated(a: Matrix, b: Matrix) -> tuple[list[int], list[int]]:
    """Iterated removal of pure strategies strictly dominated by a pure strategy (losses: lower
    is better); such strategies have probability 0 in every equilibrium. The surviving rows and
    columns."""
    rows, cols = list(range(len(a))), list(range(len(a[0])))
    changed = True
    while changed:
        changed = False
        for i in list(rows):
            if any(all(a[k][j] < a[i][j] for j in cols) for k in rows if k != i):
                rows.remove(i)
                changed = True
        for j in list(cols):
            if any(all(b[i][k] < b[i][j] for i in rows) for k in cols if k != j):
                cols.remove(j)
                changed = True
    return rows, cols


def support_enumeration(a: Matrix, b: Matrix) -> list[Equilibrium]:
    """Every equilibrium with nonsingular equal-size supports (E4), exact, in the order found
    (support size, then position 0's support, then the dealer's)."""
    rows, cols = remove_dominated(a, b)
    pairs = sum(math.comb(len(rows), k) * math.comb(len(cols), k)
                for k in range(1, min(len(rows), len(cols)) + 1))
    if pairs > MAX_SUPPORT_PAIRS:
        raise UsageError(f"support enumeration would try {pairs:,} support pairs "
                         f"(more than {MAX_SUPPORT_PAIRS:,})")
    af = np.array([[float(v) for v in r] for r in a])
    bf = np.array([[float(v) for v in r] for r in b])
    found: list[Equilibrium] = []
    for k in range(1, min(len(rows), len(cols)) + 1):
        for r in itertools.combinations(rows, k):
            for c in itertools.combinations(cols, k):
                if not _float_screen(af, bf, r, c, rows, cols):
                    continue
                eq = _support_pair(a, b, r, c)
                if eq is not None and eq not in found:
                    found.append(eq)
    return found


def _float_screen(af: np.ndarray, bf: np.ndarray, r: Sequence[int], c: Sequence[int],
                  rows: Sequence[int], cols: Sequence[int]) -> bool:
    """A cheap float test that supports (r, c) can hold an equilibrium (loose tolerances: the
    exact test decides)."""
    k = len(r)
    tol = 1e-9
    my = np.zeros((k + 1, k + 1))
    my[:k, :k] = af[np.ix_(r, c)]
    my[:k, k] = -1.0
    my[k, :k] = 1.0
    mx = np.zeros((k + 1, k + 1))
    mx[:k, :k] = bf[np.ix_(r, c)].T
    mx[:k, k] = -1.0
    mx[k, :k] = 1.0
    rhs = np.zeros(k + 1)
    rhs[k] = 1.0
    try:
        sy = np.linalg.solve(my, rhs)
        sx = np.linalg.solve(mx, rhs)
    except np.linalg.LinAlgError:
        return True  # let the exact solver decide
    if not (np.all(np.isfinite(sy)) and np.all(np.isfinite(sx))):
        return True
    if np.any(sy[:k] < -tol) or np.any(sx[:k] < -tol):
        return False
    y = np.zeros(af.shape[1])
    y[list(c)] = sy[:k]
    x = np.zeros(af.shape[0])
    x[list(r)] = sx[:k]
    return bool(np.all(af[list(rows)] @ y >= sy[k] - 1e-7)
                and np.all(x @ bf[:, list(cols)] >= sx[k] - 1e-7))


# ---------------------------------------------------------------------------------------------
# The answer
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    """The two-player exact equilibrium of one round."""

    family: str
    payoff: str
    game: str
    """``constant-sum`` or ``bimatrix`` (E3)."""
    value: tuple[Fraction, Fraction]
    """Each position's loss (E2) at the printed equilibrium."""
    mix: tuple[list[tuple[int, Fraction, list[int]]], list[tuple[int, Fraction, list[int]]]]
    """Per position: (strategy, probability, equivalent strategies) over the support."""
    equilibria_found: int
    strategies: tuple[int, int]
    """How many distinct pure strategies each position has after merging identical ones."""

    def to_dict(self) -> dict[str, object]:
        names = ("T", "Td")
        return {
            "family": self.family,
            "payoff": self.payoff,
            "matrix_game": self.game,
            "value": [{"fraction": str(v), "decimal": float(v)} for v in self.value],
            "mix": [[{names[k]: s, "probability": str(p), "decimal": float(p),
                      "equivalent": eq} for s, p, eq in self.mix[k]] for k in range(2)],
            "equilibria_found": self.equilibria_found,
            "strategies": list(self.strategies),
        }


def solve(rules: RoncoRules, family: str = "threshold", payoff: str = "lose") -> Solution:
    """The exact equilibrium of a two-player round (E1-E4)."""
    check_family(family)
    check_payoff(payoff)
    pay = payoff_matrices(rules, family)
    full_a, full_b = pay.of(payoff)
    groups0, groups1 = merge_identical(full_a, full_b)
    a = [[full_a[g0[0]][g1[0]] for g1 in groups1] for g0 in groups0]
    b = [[full_b[g0[0]][g1[0]] for g1 in groups1] for g0 in groups0]
    total = is_constant_sum(a, b)
    if total is not None:
        eq = solve_zero_sum(a, total)
        if not verify(a, b, eq):  # pragma: no cover - solve_zero_sum only returns verified ones
            raise RuntimeError("the exact certificate failed")
        found = len(support_enumeration(a, b))
        game = "constant-sum"
    else:
        eqs = support_enumeration(a, b)
        if not eqs:  # pragma: no cover - a nondegenerate game always has one
            raise RuntimeError("support enumeration found no equilibrium")
        eq = min(eqs, key=lambda e: (e.value[0], e.value[1]))
        found = len(eqs)
        game = "bimatrix"

    def mix(probs: Sequence[Fraction], groups: list[list[int]], names: list[int]
            ) -> list[tuple[int, Fraction, list[int]]]:
        return [(names[g[0]], p, [names[i] for i in g[1:]])
                for p, g in zip(probs, groups, strict=True) if p > 0]

    return Solution(family, payoff, game, eq.value,
                    (mix(eq.x, groups0, pay.rows), mix(eq.y, groups1, pay.cols)), found,
                    (len(groups0), len(groups1)))
