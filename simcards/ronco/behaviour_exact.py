"""The exact two-player Ronco round over every behavioural strategy (rule E7 of
``seeds/ronco.md``): ``simcards ronco equilibrium --players 2 --exact --family all``.

The threshold and informed families (E1) give each side a dozen pure strategies; here each side
may do anything its information allows (R11), one keep probability per information set:

- **Position 0** acts once, knowing only its card: one information set per strength class (C2,
  C4), keep or pass (R2).
- **The dealer** acts once, keep or cut (R6), knowing his card and what happened: after *position
  0 kept*, one set per own class; after a *swap* (R3) he holds position 0's card and knows the
  card he gave, so one set per (own class, class given); after a *refusal* (R4) he holds the top
  rank, one set. With a 40-card deck that is 10 + 90 + 1 = 101 sets, so 2**101 pure strategies:
  no matrix game, but a small linear program.

Classes, not cards: cards of one strength differ only by suit, which no rule reads within a
class (the Poroli card is a class of its own), so by symmetry conditioning on the suit cannot
help either side of a zero-sum game, and the value over class strategies is the value.

**Why the program is small.** Write P0's loss as a multilinear polynomial in the keep
probabilities ``p_s`` (position 0, class ``s``) and ``q_I`` (dealer, set ``I``); every term has
at most one ``p`` and one ``q`` because each player acts once per round. At a dealer set ``I``
the dealer's best action depends on the sign of the coefficient ``G_I(p)`` of ``q_I``, which is
linear in ``p``. After a swap that sign cannot depend on ``p``: the dealer knows both cards,
so ``p`` only scales how often he gets there; after a refusal he holds the top rank, and with
``ties=first`` keeping cannot lose whatever position 0 holds. So his best action there is fixed
before any solving: those sets are *decoupled*. This is decided from
the coefficients (a set whose ``G_I`` keeps one sign over the whole box ``[0,1]^S``), not
assumed from its kind; the sets left (after "position 0 kept", about one per class) are the
*coupled* ones, and only they enter the program.

**The exact solve.** Position 0 minimises ``max_q L0(p, q)``, which is ``c0 + c.p +
sum_I max(0, G_I(p))``: a linear program in ``p`` and one epigraph variable per coupled set
(the sequence-form program, since here sequences and behaviour coincide). The dealer's program
is the mirror image: maximise ``min_p L0(p, q)`` with one epigraph variable per class of
position 0. Both are solved by a dense two-phase simplex in :class:`fractions.Fraction` with
Bland's rule (no floating point anywhere, no cycling); the two optima must coincide exactly
(strong duality), which is the first certificate. The second is computed afresh from the deal
table, not from the program's coefficients: position 0's best pure reply to the dealer's
optimal strategy, and the dealer's best pure reply (minimising his own loss, over all his
information sets) to position 0's, must both give position 0 exactly the value.

**Constant-sum rounds only.** The program is that of a zero-sum game: the two losses (E2) must
add up to one constant for every pair of behavioural strategies. This is checked exactly: the
polynomial of the sum must have no term but its constant (payoff ``lose`` with ``ties=first``:
one loser per round, R7, R8, Poroli included; with ``ties=all`` or payoff ``lives`` it fails,
and the command refuses with one line).

**The families.** The threshold and informed families' exact values (E1-E3, from
:mod:`simcards.ronco.equilibrium_exact`) are compared with the value; each family's optimal
mixes, read as behavioural strategies, are also scored against every reply of the other side
(what each guarantees when the other side may play anything).

Deals come from :func:`simcards.ronco.equilibrium_exact._deals` (classes with exact weights and
the reference engine's outcome of every action pair), so the payoffs here are the E1 ones.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from simcards.core.errors import UsageError
from simcards.ronco import equilibrium_exact as eqm
from simcards.ronco import reference as ref
from simcards.ronco.rules import RoncoRules

FAMILY = "all"
"""The family of every behavioural strategy (E7)."""
FAMILIES = (*eqm.FAMILIES, FAMILY)
"""Every ``--family`` the equilibrium command takes."""

DealerSet = tuple[str, int] | tuple[str, int, int]
"""A dealer's information set: ``("kept", own)``, ``("swap", own, gave)`` or
``("refused", own)``, classes by strength."""
Var = tuple[str, Hashable]
"""A keep probability: ``("p", class)`` for position 0, ``("q", DealerSet)`` for the dealer."""
Mono = frozenset[Var]
Poly = dict[Mono, Fraction]
"""A multilinear polynomial in the keep probabilities: monomial -> coefficient."""

_ONE: Mono = frozenset()
_AFTER_ORDER = {"kept": 0, "swap": 1, "refused": 2}


def check_family(family: str) -> str:
    """``--family``: threshold, informed (E1) or all (E7)."""
    if family not in FAMILIES:
        raise UsageError(f"unknown family {family!r} for equilibrium "
                         f"(expected {'|'.join(FAMILIES)})")
    return family


# ---------------------------------------------------------------------------------------------
# The game
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deal:
    """One class of deals (position 0's class, the dealer's class) with its exact weight, the
    information sets it reaches and each position's exact loss under every action pair
    ``(position 0 keeps?, the dealer keeps?)``, summed over the cut card."""

    weight: Fraction
    own: int
    """Position 0's strength class (its information set)."""
    after_keep: DealerSet
    after_pass: DealerSet
    loss: dict[tuple[bool, bool], tuple[Fraction, Fraction]]


@dataclass(frozen=True)
class Game:
    """The two-player round as behaviour strategies see it."""

    deals: tuple[Deal, ...]
    classes: tuple[int, ...]
    """Position 0's information sets (strength classes, ascending)."""
    dealer_sets: tuple[DealerSet, ...]
    """The dealer's information sets that some deal reaches, in print order."""


def _set_order(s: DealerSet) -> tuple[int, tuple[int, ...]]:
    return _AFTER_ORDER[s[0]], s[1:]


def build_game(rules: RoncoRules, payoff: str = "lose") -> Game:
    """The deal classes of E1 (:func:`~simcards.ronco.equilibrium_exact._deals`, outcomes from
    the reference engine) with the information sets each reaches (R2-R4, R11) and the loss of
    ``payoff`` (E2)."""
    eqm.check_payoff(payoff)
    pick = 0 if payoff == "lose" else 1
    src = eqm._deals(rules)
    top = ref.top_rank(rules.deck)
    deals = []
    for (a, b), w, table in zip(src.cards, src.weight, src.outcome, strict=True):
        sa = ref.strength(a, poroli=rules.poroli)
        sb = ref.strength(b, poroli=rules.poroli)
        # R4: the top rank refuses the swap; R3: otherwise the dealer now holds a, gave b.
        passed: DealerSet = ("refused", sb) if b[0] == top else ("swap", sa, sb)
        deals.append(Deal(w, sa, ("kept", sb), passed,
                          {k: table[k][pick] for k in table}))
    classes = tuple(sorted({d.own for d in deals}))
    sets = sorted({s for d in deals for s in (d.after_keep, d.after_pass)}, key=_set_order)
    return Game(tuple(deals), classes, tuple(sets))


def _poly_mul(x: Poly, y: Poly) -> Poly:
    out: Poly = {}
    for mx, cx in x.items():
        for my, cy in y.items():
            m = mx | my
            out[m] = out.get(m, Fraction(0)) + cx * cy
    return out


def _poly_add(into: Poly, x: Poly, scale: Fraction = Fraction(1)) -> None:
    for m, c in x.items():
        into[m] = into.get(m, Fraction(0)) + scale * c


def _choice(var: Var) -> tuple[Poly, Poly]:
    """The keep probability ``var`` and its complement, as polynomials."""
    return {frozenset([var]): Fraction(1)}, {_ONE: Fraction(1), frozenset([var]): Fraction(-1)}


def loss_polynomial(game: Game, position: int) -> Poly:
    """``position``'s expected loss as a multilinear polynomial in every keep probability: the
    exact object both the constant-sum check and the linear programs read."""
    out: Poly = {}
    for d in game.deals:
        keep0, pass0 = _choice(("p", d.own))
        for k0, reach, dset in ((True, keep0, d.after_keep), (False, pass0, d.after_pass)):
            keep_d, cut_d = _choice(("q", dset))
            branch: Poly = {}
            _poly_add(branch, keep_d, d.loss[(k0, True)][position])
            _poly_add(branch, cut_d, d.loss[(k0, False)][position])
            _poly_add(out, _poly_mul(reach, branch), d.weight)
    return {m: c for m, c in out.items() if c != 0}


def _coef(poly: Poly, *var: Var) -> Fraction:
    return poly.get(frozenset(var), Fraction(0))


# ---------------------------------------------------------------------------------------------
# Scoring and best replies, straight from the deal table
# ---------------------------------------------------------------------------------------------


def expected_loss(game: Game, p: dict[int, Fraction], q: dict[DealerSet, Fraction],
                  position: int) -> Fraction:
    """``position``'s exact expected loss when position 0 keeps class ``s`` with probability
    ``p[s]`` and the dealer keeps at set ``I`` with probability ``q[I]``."""
    total = Fraction(0)
    for d in game.deals:
        ps = p[d.own]
        for k0, reach, dset in ((True, ps, d.after_keep), (False, 1 - ps, d.after_pass)):
            if reach == 0:
                continue
            qi = q[dset]
            total += d.weight * reach * (qi * d.loss[(k0, True)][position]
                                         + (1 - qi) * d.loss[(k0, False)][position])
    return total


def best_reply_position0(game: Game, q: dict[DealerSet, Fraction]) -> dict[int, Fraction]:
    """Position 0's pure best reply to the dealer's behaviour ``q``: per class, the action with
    the smaller expected loss (a tie keeps)."""
    keep = dict.fromkeys(game.classes, Fraction(0))
    pas = dict.fromkeys(game.classes, Fraction(0))
    for d in game.deals:
        for k0, acc, dset in ((True, keep, d.after_keep), (False, pas, d.after_pass)):
            qi = q[dset]
            acc[d.own] += d.weight * (qi * d.loss[(k0, True)][0]
                                      + (1 - qi) * d.loss[(k0, False)][0])
    return {s: Fraction(int(keep[s] <= pas[s])) for s in game.classes}


def best_reply_dealer(game: Game, p: dict[int, Fraction]) -> dict[DealerSet, Fraction]:
    """The dealer's pure best reply to position 0's behaviour ``p``, over every one of his
    information sets: the action with the smaller expected loss *for him* (a tie keeps)."""
    keep = dict.fromkeys(game.dealer_sets, Fraction(0))
    cut = dict.fromkeys(game.dealer_sets, Fraction(0))
    for d in game.deals:
        ps = p[d.own]
        for k0, reach, dset in ((True, ps, d.after_keep), (False, 1 - ps, d.after_pass)):
            keep[dset] += d.weight * reach * d.loss[(k0, True)][1]
            cut[dset] += d.weight * reach * d.loss[(k0, False)][1]
    return {s: Fraction(int(keep[s] <= cut[s])) for s in game.dealer_sets}


# ---------------------------------------------------------------------------------------------
# An exact simplex
# ---------------------------------------------------------------------------------------------


def simplex_min(c: Sequence[Fraction], a_ub: Sequence[Sequence[Fraction]],
                b_ub: Sequence[Fraction]) -> tuple[list[Fraction], Fraction]:
    """Minimise ``c.x`` subject to ``a_ub x <= b_ub`` and ``x >= 0``, exactly.

    Dense two-phase tableau simplex in fractions with Bland's rule (smallest index enters,
    ties in the ratio test leave by smallest basic index), which cannot cycle, so it always
    ends. Returns an optimal basic solution and its objective. Raises RuntimeError when the
    program is infeasible or unbounded (the programs built here are neither).
    """
    n, m = len(c), len(a_ub)
    # Columns: x (n), one slack per row (m), one artificial per row whose right side is < 0.
    neg = [i for i in range(m) if b_ub[i] < 0]
    n_cols = n + m + len(neg)
    rows: list[list[Fraction]] = []
    basis: list[int] = []
    for i in range(m):
        row = [Fraction(v) for v in a_ub[i]] + [Fraction(0)] * (m + len(neg)) + [Fraction(
            b_ub[i])]
        row[n + i] = Fraction(1)
        if b_ub[i] < 0:
            row = [-v for v in row]
            art = n + m + neg.index(i)
            row[art] = Fraction(1)
            basis.append(art)
        else:
            basis.append(n + i)
        rows.append(row)
    artificial = set(range(n + m, n_cols))
    if neg:
        phase1 = [Fraction(int(j in artificial)) for j in range(n_cols)]
        value = _run_simplex(rows, basis, phase1, n_cols)
        if value != 0:
            raise RuntimeError("the linear program is infeasible")
        # Drive artificials left in the basis (at zero) out, or drop their redundant rows.
        for r in range(len(rows) - 1, -1, -1):
            if basis[r] in artificial:
                col = next((j for j in range(n + m) if rows[r][j] != 0), None)
                if col is None:
                    del rows[r], basis[r]
                else:
                    _pivot(rows, basis, r, col)
        rows = [[*row[:n + m], row[-1]] for row in rows]
    cost = [Fraction(v) for v in c] + [Fraction(0)] * m
    value = _run_simplex(rows, basis, cost, n + m)
    x = [Fraction(0)] * (n + m)
    for r, j in enumerate(basis):
        x[j] = rows[r][-1]
    return x[:n], value


def _pivot(rows: list[list[Fraction]], basis: list[int], r: int, col: int) -> None:
    piv = rows[r][col]
    rows[r] = [v / piv for v in rows[r]]
    prow = rows[r]
    for i, row in enumerate(rows):
        f = row[col]
        if i != r and f != 0:
            rows[i] = [v - f * pv for v, pv in zip(row, prow, strict=True)]
    basis[r] = col


def _run_simplex(rows: list[list[Fraction]], basis: list[int], cost: Sequence[Fraction],
                 n_cols: int) -> Fraction:
    """Bland's-rule iterations from the feasible basis ``basis``; the optimal objective."""
    while True:
        # Reduced costs: c_j - c_B B^-1 a_j (the tableau holds B^-1 a_j).
        enter = None
        for j in range(n_cols):
            red = cost[j] - sum((cost[basis[i]] * rows[i][j] for i in range(len(rows))
                                 if rows[i][j] != 0), Fraction(0))
            if red < 0:
                enter = j
                break
        if enter is None:
            return sum((cost[basis[i]] * rows[i][-1] for i in range(len(rows))), Fraction(0))
        best: tuple[Fraction, int, int] | None = None
        for i, row in enumerate(rows):
            if row[enter] > 0:
                key = (row[-1] / row[enter], basis[i], i)
                if best is None or key[:2] < best[:2]:
                    best = key
        if best is None:
            raise RuntimeError("the linear program is unbounded")
        _pivot(rows, basis, best[2], enter)


# ---------------------------------------------------------------------------------------------
# The solve
# ---------------------------------------------------------------------------------------------


def constant_sum(game: Game) -> Fraction | None:
    """The constant the two losses add up to for every pair of behavioural strategies, or None
    when the sum varies (E3, E7): exact, from the polynomial of the sum (a multilinear
    polynomial is constant on the strategy box exactly when it has no other term)."""
    total = loss_polynomial(game, 0)
    _poly_add(total, loss_polynomial(game, 1))
    if any(c != 0 for m, c in total.items() if m):
        return None
    return total.get(_ONE, Fraction(0))


def _refuse_not_constant_sum(game: Game, rules: RoncoRules, payoff: str) -> UsageError:
    sums = {d.loss[k][0] + d.loss[k][1] for d in game.deals for k in d.loss}
    return UsageError(
        "--family all needs a constant-sum round (--payoff lose --ties first): with payoff "
        f"{payoff} and ties={rules.ties} the two positions' losses add up to anything "
        f"from {min(sums)} to {max(sums)} depending on the deal, so the round is not zero-sum")


@dataclass(frozen=True)
class FamilyCheck:
    """How a threshold family (E1) compares with every behavioural strategy."""

    value: Fraction
    """The family's exact value (position 0's loss, E3)."""
    reaches: bool
    """Whether the family's value is the all-strategies value."""
    position0_guarantee: Fraction
    """Position 0's loss when it plays the family's optimal mix and the dealer replies with
    any strategy at all (his best reply): at least the value."""
    dealer_guarantee: Fraction
    """Position 0's loss when the dealer plays the family's optimal mix and position 0 replies
    with any strategy: at most the value."""


@dataclass(frozen=True)
class Solution:
    """The exact solution of the two-player round over every behavioural strategy (E7)."""

    payoff: str
    total: Fraction
    """What the two losses add up to (E3)."""
    value: Fraction
    """Position 0's loss (E2) under optimal play; the dealer's is ``total - value``."""
    position0: dict[int, Fraction]
    """Position 0's optimal keep probability by strength class."""
    dealer: dict[DealerSet, Fraction]
    """The dealer's optimal keep (rather than cut) probability by information set."""
    coupled: tuple[DealerSet, ...]
    """The dealer's sets whose best action depends on position 0's strategy."""
    position0_best_reply: Fraction
    """Position 0's loss from its best pure reply to ``dealer`` (equals ``value``)."""
    dealer_best_reply: Fraction
    """Position 0's loss when the dealer best-replies to ``position0`` (equals ``value``)."""
    families: dict[str, FamilyCheck]

    @property
    def verdict(self) -> str:
        """The sentence the command prints about the threshold families."""
        reach = [f for f, c in self.families.items() if c.reaches]
        if reach:
            if len(reach) == 1:
                return f"the {reach[0]} family reaches the value"
            return f"the {' and '.join(reach)} families reach the value"
        fam, chk = min(self.families.items(), key=lambda kv: abs(kv[1].value - self.value))
        return (f"no threshold family reaches it: best is {fam} at {chk.value} = "
                f"{float(chk.value):.6f} against {self.value} = {float(self.value):.6f} with "
                "every strategy")

    def to_dict(self) -> dict[str, object]:
        def frac(v: Fraction) -> dict[str, object]:
            return {"fraction": str(v), "decimal": float(v)}

        return {
            "family": FAMILY,
            "payoff": self.payoff,
            "round": "constant-sum",
            "value": [frac(self.value), frac(self.total - self.value)],
            "position0": [{"card": s, "keep": str(p), "decimal": float(p)}
                          for s, p in self.position0.items()],
            "dealer": [{**set_label(s), "keep": str(p), "decimal": float(p)}
                       for s, p in self.dealer.items()],
            "information_sets": {"position0": len(self.position0),
                                 "dealer": len(self.dealer), "coupled": len(self.coupled)},
            "certificate": {"position0_best_reply": frac(self.position0_best_reply),
                            "dealer_best_reply": frac(self.dealer_best_reply),
                            "holds": self.position0_best_reply == self.value
                            == self.dealer_best_reply},
            "families": {f: {"value": str(c.value), "decimal": float(c.value),
                             "reaches": c.reaches,
                             "position0_guarantee": frac(c.position0_guarantee),
                             "dealer_guarantee": frac(c.dealer_guarantee)}
                         for f, c in self.families.items()},
            "verdict": self.verdict,
        }


def set_label(s: DealerSet) -> dict[str, object]:
    """A dealer information set as JSON: ``{"after": "kept", "card": 5}``,
    ``{"after": "swap", "card": 3, "gave": 7}`` or ``{"after": "refused", "card": 12}``."""
    out: dict[str, object] = {"after": s[0], "card": s[1]}
    if s[0] == "swap":
        out["gave"] = s[-1]
    return out


def _split_dealer_sets(game: Game, poly: Poly
                       ) -> tuple[dict[DealerSet, Fraction], list[DealerSet]]:
    """The dealer's decoupled sets with their fixed best action (1 keeps, 0 cuts), and the
    coupled ones. At set ``I`` the dealer (maximising position 0's loss: constant sum) keeps
    when ``G_I(p) = c_I + sum_s c_sI p_s`` is positive; when ``G_I`` keeps one sign over the
    whole box of ``p`` that choice does not depend on position 0 (a zero keeps)."""
    fixed: dict[DealerSet, Fraction] = {}
    coupled = []
    for dset in game.dealer_sets:
        ci = _coef(poly, ("q", dset))
        cs = [_coef(poly, ("p", s), ("q", dset)) for s in game.classes]
        low = ci + sum(min(Fraction(0), v) for v in cs)
        high = ci + sum(max(Fraction(0), v) for v in cs)
        if low >= 0:
            fixed[dset] = Fraction(1)
        elif high <= 0:
            fixed[dset] = Fraction(0)
        else:
            coupled.append(dset)
    return fixed, coupled


def _solve_programs(game: Game, poly: Poly
                    ) -> tuple[Fraction, dict[int, Fraction], dict[DealerSet, Fraction],
                               list[DealerSet]]:
    """Both sides' linear programs, exact; the common value, both optimal behaviours and the
    coupled sets."""
    fixed, coupled = _split_dealer_sets(game, poly)
    classes = list(game.classes)
    nc, nk = len(classes), len(coupled)
    zero = Fraction(0)
    # Fold the decoupled sets' fixed actions into the constant and position 0's coefficients.
    c0 = _coef(poly) + sum((_coef(poly, ("q", i)) * v for i, v in fixed.items()), zero)
    cp = [_coef(poly, ("p", s)) + sum((_coef(poly, ("p", s), ("q", i)) * v
                                       for i, v in fixed.items()), zero) for s in classes]
    cq = [_coef(poly, ("q", i)) for i in coupled]
    cpq = [[_coef(poly, ("p", s), ("q", i)) for i in coupled] for s in classes]

    # Position 0: min c0 + cp.p + sum v_I, v_I >= cq_I + sum_s cpq_sI p_s, v >= 0, p <= 1.
    a: list[list[Fraction]] = []
    b: list[Fraction] = []
    for s in range(nc):
        a.append([Fraction(int(t == s)) for t in range(nc)] + [zero] * nk)
        b.append(Fraction(1))
    for k in range(nk):
        a.append([cpq[s][k] for s in range(nc)] + [Fraction(-int(t == k)) for t in range(nk)])
        b.append(-cq[k])
    x, v0 = simplex_min([*cp, *[Fraction(1)] * nk], a, b)
    v0 += c0
    p = {s: x[t] for t, s in enumerate(classes)}

    # The dealer: max c0 + cq.q - sum w_s, w_s >= -(cp_s + sum_I cpq_sI q_I), w >= 0, q <= 1.
    a, b = [], []
    for k in range(nk):
        a.append([Fraction(int(t == k)) for t in range(nk)] + [zero] * nc)
        b.append(Fraction(1))
    for s in range(nc):
        a.append([-cpq[s][k] for k in range(nk)] + [Fraction(-int(t == s)) for t in range(nc)])
        b.append(cp[s])
    y, neg_v1 = simplex_min([*[-v for v in cq], *[Fraction(1)] * nc], a, b)
    v1 = c0 - neg_v1
    if v0 != v1:  # pragma: no cover - strong duality of a feasible bounded program
        raise RuntimeError(f"the two programs disagree: {v0} against {v1}")
    q = dict(fixed)
    q.update({i: y[k] for k, i in enumerate(coupled)})
    return v0, p, {s: q[s] for s in game.dealer_sets}, coupled


def _family_behaviour(rules: RoncoRules, game: Game, family: str, sol: eqm.Solution
                      ) -> tuple[dict[int, Fraction], dict[DealerSet, Fraction]]:
    """A family's optimal mixes (E1) as behaviour: the probability that the mixed policy keeps
    at each information set, from the reference's decisions (S1, S2) on each deal class."""
    top = ref.top_rank(rules.deck)
    always = {True: ref.RefPolicy("threshold", 0, 0),
              False: ref.RefPolicy("threshold", top + 1, 0)}
    src = eqm._deals(rules)
    p = dict.fromkeys(game.classes, Fraction(0))
    q = dict.fromkeys(game.dealer_sets, Fraction(0))
    seen0: set[int] = set()
    seen_d: set[DealerSet] = set()
    for (a, b), d in zip(src.cards, game.deals, strict=True):
        if d.own not in seen0:
            seen0.add(d.own)
            for t, prob, _ in sol.mix[0]:
                pol0 = eqm._ref_policy(eqm.policy_of(family, 0, t))
                p[d.own] += prob * eqm._actions(rules, pol0, always[True], a, b)[0]
        for k0, dset in ((True, d.after_keep), (False, d.after_pass)):
            if dset in seen_d:
                continue
            seen_d.add(dset)
            for td, prob, _ in sol.mix[1]:
                pol_d = eqm._ref_policy(eqm.policy_of(family, 1, td))
                q[dset] += prob * eqm._actions(rules, always[k0], pol_d, a, b)[1]
    return p, q


def _check_families(rules: RoncoRules, game: Game, payoff: str, value: Fraction,
                    families: Iterable[str]) -> dict[str, FamilyCheck]:
    out = {}
    for fam in families:
        sol = eqm.solve(rules, fam, payoff)
        p, q = _family_behaviour(rules, game, fam, sol)
        g0 = expected_loss(game, p, best_reply_dealer(game, p), 0)
        g1 = expected_loss(game, best_reply_position0(game, q), q, 0)
        out[fam] = FamilyCheck(sol.value[0], sol.value[0] == value, g0, g1)
    return out


def solve(rules: RoncoRules, payoff: str = "lose",
          families: Iterable[str] = eqm.FAMILIES) -> Solution:
    """The exact value and optimal behavioural strategies of a constant-sum two-player round
    (E7), with the exact certificate and the comparison with ``families`` (E1). A rule set
    whose two losses do not add up to one constant is refused with a one-line UsageError."""
    eqm.check_payoff(payoff)
    game = build_game(rules, payoff)
    total = constant_sum(game)
    if total is None:
        raise _refuse_not_constant_sum(game, rules, payoff)
    poly = loss_polynomial(game, 0)
    value, p, q, coupled = _solve_programs(game, poly)
    br0 = expected_loss(game, best_reply_position0(game, q), q, 0)
    br_d = expected_loss(game, p, best_reply_dealer(game, p), 0)
    if not br0 == value == br_d:  # pragma: no cover - the programs' optima are equilibria
        raise RuntimeError(f"the exact certificate failed: {br0}, {value}, {br_d}")
    checks = _check_families(rules, game, payoff, value, families)
    return Solution(payoff, total, value, p, q, tuple(coupled), br0, br_d, checks)
