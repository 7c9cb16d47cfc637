"""Mixed symmetric equilibria of whole Ronco games over a policy family's grid (rules E5, E6).

The payoff of a pure grid strategy s against a field sigma is u(s; sigma) = P(the hero wins |
the other n-1 players each draw their strategy from sigma, independently, for the whole game).
sigma is a symmetric equilibrium when no s does better than sigma itself; u is a polynomial of
degree n-1 in sigma, so there is no payoff matrix to solve, and the search works as follows.

* **Candidates.** Given where the best-threshold races put the answer (``near``: their
  converged pair, their best-response cycle, or the end of their path), the candidates C are
  those starting pairs and their grid neighbours (one deck value away in T, Td or both).
  Otherwise every grid strategy plays ``screen_games`` common games against the starting field
  (an even mixture over ``start``, by default 5:5) and the ``keep`` best are C.
* **Double oracle on composition tables.** The field's support S starts as the starting
  pairs. Each iteration plays one batch of common games in which the field draws from a
  mixture q over S (the current sigma, with weight :data:`COVERAGE` spread evenly so that
  every composition is seen) and every candidate of C is the hero. The kernel tabulates each
  candidate's wins by the field's composition m (how many players drew each member of S); the
  field being exchangeable given m, u(c; sigma) = sum_m Multinomial(m; n-1, sigma) *
  wins(c, m) / games(m) for *every* sigma over S, from one batch. On that polynomial the
  restricted equilibrium is found by minimising the largest gain of any candidate over sigma
  (a coarse simplex lattice, then finer and finer lattice steps, sigma always a multiple of
  :data:`LATTICE`'s unit), within the region the batch covers well
  (:data:`TRUST`): this solves the support's indifference conditions on the estimates. If a
  candidate outside S gains more than ``add_gain``, it joins S (at most
  :data:`~simcards.ronco.mixed_kernel.MAX_TABULATED`), members left with almost no weight
  leave, and the next batch is played; if the solution moved more than :data:`MOVED` from
  the batch's centre, the next batch is drawn around it; otherwise (or after
  ``max_iterations`` batches) one last, larger batch (``final_games``) around the solution
  gives the sigma that is certified (none is needed when the support is a single pair).
* **Certificate (E6)**, on fresh streams that the search never saw: for every grid strategy
  s, the paired per-game difference d_s = x_s - sum_s' sigma(s') x_s' on common games (x: the
  hero won), its mean and standard error; exploitability = max(0, max_s mean d_s). Stage 0
  plays all grid strategies; a strategy whose upper bound is below zero is cleared there, the
  rest are played again on a fresh, larger stage, and so on while the largest upper bound is
  not below ``target`` and stages remain. Each stage's intervals are two-sided normal
  intervals, Bonferroni-corrected over the strategies it tests, at a level from
  :data:`CERT_ALPHAS` that sums to 5% over the stages, so every strategy's last interval holds
  at once with probability at least 95%; the exploitability's interval is [max(0, max of
  lower bounds), max(0, max of upper bounds)].

**Reproducibility.** The search compares and re-centres on its own estimates, so a difference
in the last bit of one sum (another CPU's vector unit, another BLAS kernel or thread count,
another ``exp``) would grow into other batches and other numbers. So everything the search
decides on is computed without BLAS, ``exp`` or ``log`` (powers by multiplication, numpy's
own sums, the certificate's by :func:`math.fsum`), and every probability is a binary
fraction on :data:`LATTICE`: the same seed gives the same bits on any machine, for any worker
count.

All plans of all table sizes and families run side by side on one pool
(:func:`~simcards.core.plans.run_plans`), each batch stored with a
:class:`~simcards.core.store.RunStore` when a store is given, so a killed run resumes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Generator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from scipy.stats import norm

from simcards.core.plans import StageRequest, run_searches
from simcards.core.runner import Batch, Stats
from simcards.core.stats import Z95
from simcards.ronco.best_threshold_batch import grid
from simcards.ronco.games_batch import MAX_ROUNDS
from simcards.ronco.kernel_state import GameSpec, KernelRules, Seats
from simcards.ronco.mixed_kernel import MAX_TABULATED, mixed_games
from simcards.ronco.policies import Policy
from simcards.ronco.rules import RoncoRules, check_players

MIXED_CHUNK = 2048
"""Games per chunk (each played by every candidate)."""
TARGET = 0.002
"""The exploitability (win rate) the certificate must bound from above (E6)."""
CERT_ALPHAS = (0.02, 0.01, 0.01, 0.01)
"""Error levels of the certificate's stages (Bonferroni within a stage); they sum to 0.05."""
COVERAGE = 0.3
"""Weight of the even spread in the mixture a search batch draws its fields from."""
MIN_WEIGHT = 1e-3
"""Support members with less probability than this leave the support."""
MOVED = 0.05
"""A solution further than this from the mixture its batch was drawn around (or at the edge
of the region that batch can be trusted in) is searched again from a batch drawn near it."""


@dataclass(frozen=True)
class MixedConfig:
    """One batch of the mixed kernel, as its named tuples (pickled to workers)."""

    n: int
    lives: int
    cum: np.ndarray
    support: Seats
    candidates: Seats
    rules: KernelRules
    bins: int


class MixedStats(NamedTuple):
    """A chunk's statistics (see :func:`~simcards.ronco.mixed_kernel.mixed_games`)."""

    wins: np.ndarray
    beats: np.ndarray
    games: np.ndarray
    comp_wins: np.ndarray
    comp_games: np.ndarray


def mixed_chunk(state: np.ndarray, size: int, cfg: MixedConfig) -> MixedStats:
    return MixedStats(*mixed_games(state, size, cfg.cum, cfg.support, cfg.candidates, cfg.rules,
                                   GameSpec(cfg.n, cfg.lives, -1, MAX_ROUNDS), cfg.bins))


def cumulative(probs: Sequence[float]) -> np.ndarray:
    """Cumulative probabilities for the kernel's inverse CDF, the last exactly 1."""
    p = np.asarray(probs, np.float64)
    if p.size == 0 or (p < 0).any() or not math.isclose(p.sum(), 1.0, abs_tol=1e-9):
        raise ValueError(f"not a probability vector: {p}")
    cum = np.cumsum(p / p.sum())
    cum[-1] = 1.0
    return cum


def composition_bins(n: int, k: int) -> int:
    """How many composition bins :func:`~simcards.ronco.mixed_kernel.mixed_games` fills for
    ``n`` players and a support of ``k`` strategies: the counts of the first ``k - 1``
    strategies among the ``n - 1`` others, as digits base ``n``; one bin (nothing tabulated)
    above :data:`~simcards.ronco.mixed_kernel.MAX_TABULATED`."""
    return n ** (k - 1) if k <= MAX_TABULATED else 1


def mixed_config(rules: RoncoRules, n: int, lives: int, support: Sequence[Policy],
                 probs: Sequence[float], candidates: Sequence[Policy],
                 tabulate: bool = False) -> MixedConfig:
    """The kernel's configuration: the field draws from ``support`` with ``probs``."""
    bins = composition_bins(n, len(support)) if tabulate else 1
    return MixedConfig(n, lives, cumulative(probs), Seats.from_policies(support),
                       Seats.from_policies(candidates), rules.kernel, bins)


# --- statistics -----------------------------------------------------------------------------


def cowins(stats: Stats) -> np.ndarray:
    """``W[i, j]``: games that candidates i and j both won (``W[i, i]``: i's wins)."""
    wins = np.asarray(stats["wins"], np.float64)
    return wins[:, None] - np.asarray(stats["beats"], np.float64)


def _exact_dot(a: np.ndarray, b: np.ndarray) -> float:
    """sum_i a_i b_i with every product rounded once and the sum exactly rounded
    (:func:`math.fsum`): the same bits in any order, with any BLAS, on any machine."""
    return math.fsum((np.asarray(a, np.float64) * np.asarray(b, np.float64)).tolist())


def _exact_matvec(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``m @ v`` row by row through :func:`_exact_dot` (BLAS sums in an order of its own, which
    changes with the CPU, the library build and its thread count)."""
    return np.array([_exact_dot(row, v) for row in np.asarray(m, np.float64)])


def mixture_differences(stats: Stats, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate s, the mean of d_s = x_s - sum_j w_j x_j over the batch's games and its
    standard error (E6), from the co-win matrix alone (``weights`` by candidate, summing to
    1). Sums are exactly rounded, so the certificate's numbers do not depend on the
    machine."""
    g = float(stats["games"][0])
    w = np.asarray(weights, np.float64)
    cw = cowins(stats)
    wins = np.diag(cw).copy()
    mix = _exact_dot(w, wins)
    cross = _exact_matvec(cw, w)
    mean = (wins - mix) / g
    second = (wins - 2.0 * cross + _exact_dot(w, cross)) / g
    var = np.maximum(second - mean * mean, 0.0)
    return mean, np.sqrt(var / g)


def mixture_rate(stats: Stats, weights: np.ndarray) -> tuple[float, float]:
    """The mixture's own win rate u(sigma; sigma) = mean of sum_j w_j x_j, and its standard
    error (exactly rounded sums, as in :func:`mixture_differences`)."""
    g = float(stats["games"][0])
    w = np.asarray(weights, np.float64)
    cw = cowins(stats)
    mean = _exact_dot(w, np.diag(cw)) / g
    var = max(_exact_dot(w, _exact_matvec(cw, w)) / g - mean * mean, 0.0)
    return mean, math.sqrt(var / g)


def bonferroni_z(alpha: float, tests: int) -> float:
    """The two-sided normal quantile that holds ``tests`` intervals at once at level
    ``alpha`` (Bonferroni)."""
    return float(norm.ppf(1.0 - alpha / (2.0 * max(tests, 1))))


# --- the restricted game on composition tables ---------------------------------------------


def compositions(n_others: int, k: int) -> np.ndarray:
    """Every way of splitting ``n_others`` players over ``k`` strategies (rows of counts)."""
    rows = [c for c in itertools.product(range(n_others + 1), repeat=k)
            if sum(c) == n_others]
    return np.array(rows, np.int64).reshape(len(rows), k)


class CompositionTable:
    """u(c; sigma) for every candidate c and every sigma over a support, from one batch's wins
    by composition (the field is exchangeable given its composition).

    A composition the batch rarely drew is estimated from few games, so the table is trusted
    only for mixtures sigma whose compositions the batch covered: :meth:`spread` (the factor
    by which the estimate's variance exceeds that of sigma's own sample of the same size) must
    stay below :data:`TRUST`."""

    def __init__(self, n: int, k: int, comp_wins: np.ndarray, comp_games: np.ndarray) -> None:
        self.k = k
        comps = compositions(n - 1, k)
        codes = (comps[:, :-1] * n ** np.arange(k - 1)).sum(axis=1) if k > 1 else \
            np.zeros(len(comps), np.int64)
        games = np.asarray(comp_games, np.float64)[codes]
        seen = games > 0
        self.comps = comps[seen]
        self.share = games[seen] / math.fsum(games[seen].tolist())
        self.rates = np.asarray(comp_wins, np.float64)[:, codes[seen]] / games[seen]
        self.coef = np.array([math.factorial(n - 1) / math.prod(math.factorial(int(c))
                                                                for c in row)
                              for row in self.comps], np.float64)

    def weights(self, sigma: np.ndarray) -> np.ndarray:
        """P(composition | sigma) over the compositions seen (renormalised): coefficient times
        powers by repeated multiplication, then exactly rounded sums, so that every machine
        computes the same bits (``exp``, ``log`` and ``pow`` differ between libraries and
        vector units in their last bit, and the search amplifies a last bit); sums are
        numpy's, whose order does not depend on the machine."""
        s = np.clip(np.asarray(sigma, np.float64), 0.0, 1.0)
        prob = self.coef.copy()
        for j in range(self.k):
            power = np.ones(len(self.comps))
            for e in range(1, int(self.comps[:, j].max(initial=0)) + 1):
                power = np.where(self.comps[:, j] >= e, power * s[j], power)
            prob = prob * power
        total = float(prob.sum())
        return prob / total if total > 0 else np.full(prob.size, np.nan)

    def payoffs(self, sigma: np.ndarray) -> np.ndarray:
        """u(c; sigma) for every candidate c: numpy's own sums along each row, in an order
        fixed by numpy (not BLAS's, which depends on the CPU and the thread count)."""
        return (self.rates * self.weights(sigma)).sum(axis=1)

    def spread(self, sigma: np.ndarray) -> float:
        """sum_m P(m | sigma)**2 / share(m): 1 when the batch drew its fields from sigma."""
        w = self.weights(sigma)
        return float((w * w / self.share).sum())


TRUST = 2.0
"""The most :meth:`CompositionTable.spread` a solution may have: beyond it the next batch,
drawn nearer the solution, is needed."""


LATTICE = 2 ** 20
"""Every probability the search works with is a multiple of 1/LATTICE (a binary fraction, exact
in floating point; about 1e-6, far finer than any interval the games can give)."""
COARSE = {2: 256, 3: 64, 4: 32}
"""The first lattice the solver scans whole, by support size (each divides :data:`LATTICE`)."""


def _moves(k: int) -> list[np.ndarray]:
    """The steps the solver tries from a lattice point, in a fixed order, shortest first: every
    move of up to three units (two for four members) between the support's members that keeps
    the total (many more directions than the plain transfers, so that a search along the
    ridges of a largest gain, or along the edge of the trusted region, does not stall)."""
    reach = 3 if k <= 3 else 2
    out = [np.array(d, np.int64) for d in itertools.product(range(-reach, reach + 1), repeat=k)
           if sum(d) == 0 and any(d)]
    return sorted(out, key=lambda d: (int(np.abs(d).sum()), tuple(-d)))


def solve_restricted(table: CompositionTable, support_idx: Sequence[int]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The sigma over the support that minimises the largest gain of any candidate
    (u(c; sigma) - u(sigma; sigma)) within the region the table is trusted in; returns sigma
    (multiples of 1/:data:`LATTICE`) and every candidate's gain at it.

    A search on nested lattices: the best point of a coarse lattice, then moves of a halving
    step from the best point found, down to one unit of :data:`LATTICE`. Every step compares
    points at least one unit apart, whose scores differ by far more than a last bit, and its
    arithmetic is exactly rounded: so the answer is the same on every machine and library
    build. (A continuous optimiser compares points ever closer together and ends up deciding
    on rounding noise: a relative change of 1e-15 in the tables moved its answer by 1e-7, and
    the batches drawn around the answer with it.)"""
    idx = np.asarray(support_idx)
    k = idx.size

    def gains(sigma: np.ndarray) -> np.ndarray:
        u = table.payoffs(sigma)
        return u - float((sigma * u[idx]).sum())

    def score(num: np.ndarray) -> float:
        sigma = num / LATTICE
        value = float(gains(sigma).max()) + max(0.0, table.spread(sigma) - TRUST)
        return value if math.isfinite(value) else math.inf

    if k == 1:
        sigma = np.ones(1)
        return sigma, gains(sigma)
    coarse = COARSE[k]
    pts = compositions(coarse, k) * (LATTICE // coarse)
    scores = [score(p) for p in pts]
    best_i = int(np.argmin(scores))
    best, best_score = pts[best_i], scores[best_i]
    moves = _moves(k)
    step = LATTICE // coarse // 2
    while step >= 1:
        improved = True
        while improved:
            improved = False
            for d in moves:
                cand = best + step * d
                if (cand < 0).any():
                    continue
                value = score(cand)
                if value < best_score:
                    best, best_score, improved = cand, value, True
                    break
        step //= 2
    sigma = best / LATTICE
    return sigma, gains(sigma)


def on_lattice(weights: np.ndarray) -> np.ndarray:
    """``weights`` scaled to sum to one, as multiples of 1/:data:`LATTICE` (largest remainders
    get the units left over, ties to the first): integer arithmetic, so exact everywhere."""
    w = np.asarray(weights, np.float64)
    num = np.floor(w / w.sum() * LATTICE).astype(np.int64)
    rest = w / w.sum() * LATTICE - num
    for j in sorted(range(len(w)), key=lambda j: (-rest[j], j))[:LATTICE - int(num.sum())]:
        num[j] += 1
    return num / LATTICE


# --- the plan for one table size ------------------------------------------------------------


@dataclass(frozen=True)
class Budget:
    """Games per candidate in each phase (see the module docstring)."""

    screen_games: int = 4096
    keep: int = 8
    solve_games: int = 16_384
    final_games: int = 65_536
    max_iterations: int = 3
    add_gain: float = 0.002
    cert_games: tuple[int, ...] = (4096, 65_536, 262_144, 1_048_576)
    target: float = TARGET


@dataclass
class CertStage:
    """One certificate stage: the strategies it tested and their intervals."""

    games: int
    tested: list[int]
    mean: np.ndarray
    se: np.ndarray
    z: float


@dataclass
class MixedRow:
    """The answer for one table size and family."""

    players: int
    kind: str
    support: list[Policy]
    probabilities: np.ndarray
    win_rate: float
    win_rate_se: float
    exploitability: float
    exploitability_ci: tuple[float, float]
    certified: bool
    most_gain: Policy
    most_gain_mean: float
    most_gain_upper: float
    best_other: Policy | None
    best_other_mean: float
    best_other_upper: float
    search_games: int
    cert_games: int
    iterations: int
    start: list[Policy]
    stages: list[CertStage] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "family": self.kind,
            "support": [{"T": p.T, "Td": p.Td, "probability": float(q)}
                        for p, q in zip(self.support, self.probabilities, strict=True)],
            "pure": len(self.support) == 1,
            "win_rate": self.win_rate,
            "win_rate_ci": [self.win_rate - Z95 * self.win_rate_se,
                            self.win_rate + Z95 * self.win_rate_se],
            "fair_share": 1.0 / self.players,
            "exploitability": self.exploitability,
            "exploitability_ci": list(self.exploitability_ci),
            "certified": self.certified,
            "target": TARGET,
            "most_gain": {"T": self.most_gain.T, "Td": self.most_gain.Td,
                          "gain": self.most_gain_mean, "upper": self.most_gain_upper},
            "best_deviation": None if self.best_other is None else {
                "T": self.best_other.T, "Td": self.best_other.Td,
                "gain": self.best_other_mean, "upper": self.best_other_upper},
            "start": [[p.T, p.Td] for p in self.start],
            "iterations": self.iterations,
            "search_games": self.search_games,
            "certificate_games": self.cert_games,
            "certificate_stages": [{"games": s.games, "strategies": len(s.tested),
                                    "z": s.z} for s in self.stages],
        }


def _request(rules: RoncoRules, n: int, lives: int, support: Sequence[Policy],
             probs: Sequence[float], cands: Sequence[Policy], games: int, seed: int,
             stream: str, tabulate: bool) -> StageRequest:
    cfg = mixed_config(rules, n, lives, support, probs, cands, tabulate)
    manifest = {"game": "ronco", "command": "equilibrium-stage", "rules": rules.summary(),
                "players": n, "lives": lives, "support": [p.spec() for p in support],
                "probabilities": [float(x) for x in cfg.cum], "candidates":
                [p.spec() for p in cands], "seed": seed, "stream": stream, "games": games,
                "chunk_size": MIXED_CHUNK, "tabulate": tabulate}
    return StageRequest(Batch(mixed_chunk, cfg, seed, games, MIXED_CHUNK, stream), manifest)


def neighbourhood(rules: RoncoRules, start: Sequence[Policy]) -> list[Policy]:
    """The starting policies and every grid pair one deck value away from one of them in T,
    Td or both (the candidates of a search that starts from what the races found)."""
    values = sorted({int(v) for v in rules.deck_obj.values})
    out = list(start)
    for p in start:
        i, j = values.index(p.T), values.index(p.Td)
        for a in range(max(i - 1, 0), min(i + 2, len(values))):
            for b in range(max(j - 1, 0), min(j + 2, len(values))):
                q = Policy(p.kind, values[a], values[b])
                if q not in out:
                    out.append(q)
    return out


def start_from_race(kind: str, row: dict[str, Any]) -> list[Policy]:
    """Where a best-threshold row (:func:`~simcards.ronco.best_threshold_batch.row_dict`) says the
    equilibrium lies: its pure equilibrium when the best-response iteration converged, else the
    cycle the best responses ran round, else the last best responses of the path (at most
    :data:`~simcards.ronco.mixed_kernel.MAX_TABULATED`)."""
    if row["equilibrium_converged"]:
        pairs = [[row["equilibrium_T"], row["equilibrium_Td"]]]
    elif row["equilibrium_cycle"]:
        pairs = row["equilibrium_cycle"]
    else:
        pairs = row["best_response_path"][-3:]
    out: list[Policy] = []
    for t, td in pairs:
        p = Policy(kind, int(t), int(td))
        if p not in out:
            out.append(p)
    return out[:MAX_TABULATED]


def plan(rules: RoncoRules, n: int, lives: int, kind: str, start: Sequence[Policy], *,
         seed: int, budget: Budget = Budget(), near: bool = False,
         strategies: Sequence[Policy] | None = None,
         ) -> Generator[StageRequest, Stats, MixedRow]:
    """Search and certify the mixed symmetric equilibrium for one table size (E5, E6), as a
    generator: it yields each batch and is sent back its statistics. With ``near`` the
    candidates are the neighbourhood of ``start`` (no screen). ``strategies`` replaces the
    family's grid (a smaller game, for checks against exact values)."""
    check_players(n)
    full = list(strategies) if strategies is not None else grid(rules, kind)
    start = [Policy(kind, p.T, p.Td) for p in start] or [Policy(kind, 5, 5)]
    base = f"ronco.mixed.{kind}.{n}"
    played = 0
    if near:  # the races already know where the answer lies: search next to it
        cands = [p for p in neighbourhood(rules, start) if p in full or p in start]
    else:  # screen every grid strategy against the starting field
        even = [1.0 / len(start)] * len(start)
        stats = yield _request(rules, n, lives, start, even, full, budget.screen_games, seed,
                               f"{base}.screen", False)
        played += budget.screen_games * len(full)
        order = np.argsort(-np.asarray(stats["wins"]), kind="stable")
        cands = [full[i] for i in order[:budget.keep]]
        for p in start:
            if p not in cands:
                cands.append(p)
    support = [cands.index(p) for p in start][:MAX_TABULATED]
    sigma = on_lattice(np.ones(len(support)))
    iterations = 0
    final = False
    while True:
        q = (1.0 - COVERAGE) * sigma + COVERAGE / len(support)
        games = budget.final_games if final else budget.solve_games
        stats = yield _request(rules, n, lives, [cands[i] for i in support], q, cands, games,
                               seed, f"{base}.solve-{iterations}", True)
        played += games * len(cands)
        iterations += 1
        table = CompositionTable(n, len(support), stats["comp_wins"], stats["comp_games"])
        found, gain = solve_restricted(table, support)
        moved = (float(np.abs(found - sigma).max()) > MOVED
                 or table.spread(found) > TRUST - 0.1)
        sigma = found
        if final:
            break
        outside = [i for i in range(len(cands)) if i not in support]
        best = max(outside, key=lambda i: gain[i]) if outside else -1
        keep = [j for j, s in enumerate(sigma) if s >= MIN_WEIGHT]
        support = [support[j] for j in keep]
        sigma = on_lattice(sigma[keep])
        room = iterations < budget.max_iterations
        if room and best >= 0 and gain[best] > budget.add_gain and len(support) < MAX_TABULATED:
            support.append(best)  # the double oracle's step: the best reply joins
            sigma = on_lattice(np.append(sigma * 0.8, 0.2))
        elif len(support) == 1:
            break  # a point mass: no probabilities left to refine
        elif not (room and moved):
            final = True
    keep = [j for j, s in enumerate(sigma) if s >= MIN_WEIGHT]
    sup_pol = [cands[support[j]] for j in keep]
    probs = on_lattice(sigma[keep])
    row = yield from certify(rules, n, lives, kind, sup_pol, probs, seed=seed, budget=budget,
                             stream=f"{base}.certificate", strategies=full)
    row.search_games = played
    row.iterations = iterations
    row.start = list(start)
    return row


def certify(rules: RoncoRules, n: int, lives: int, kind: str, support: Sequence[Policy],
            probs: np.ndarray, *, seed: int, budget: Budget = Budget(),
            stream: str = "ronco.mixed.certificate",
            strategies: Sequence[Policy] | None = None,
            ) -> Generator[StageRequest, Stats, MixedRow]:
    """E6: bound the exploitability of ``support`` with ``probs`` against every strategy of
    ``strategies`` (default: the family's whole grid), in stages on fresh streams."""
    full = list(strategies) if strategies is not None else grid(rules, kind)
    support = list(support)
    probs = np.asarray(probs, np.float64)
    for p in support:
        if p not in full:
            full.append(p)
    final_mean = np.full(len(full), -np.inf)
    final_lo = np.full(len(full), -np.inf)
    final_hi = np.full(len(full), -np.inf)
    tested = list(range(len(full)))
    stages: list[CertStage] = []
    played = 0
    rate = (0.0, 0.0)
    for s, (games, alpha) in enumerate(zip(budget.cert_games, CERT_ALPHAS, strict=False)):
        cands = sorted(set(tested) | {full.index(p) for p in support})
        pols = [full[i] for i in cands]
        stats = yield _request(rules, n, lives, support, probs, pols, games, seed,
                               f"{stream}.stage-{s}", False)
        played += games * len(pols)
        weights = np.zeros(len(pols))
        for p, q in zip(support, probs, strict=True):
            weights[pols.index(p)] += q
        mean, se = mixture_differences(stats, weights)
        rate = mixture_rate(stats, weights)
        z = bonferroni_z(alpha, len(tested))
        local = {c: j for j, c in enumerate(cands)}
        for i in tested:
            j = local[i]
            final_mean[i], final_lo[i], final_hi[i] = mean[j], mean[j] - z * se[j], \
                mean[j] + z * se[j]
        stages.append(CertStage(games, list(tested), mean, se, z))
        tested = [i for i in tested if final_hi[i] >= 0.0]
        if final_hi.max() < budget.target or not tested:
            break
    top = int(np.argmax(final_mean))
    upper = max(0.0, float(final_hi.max()))
    others = [i for i, p in enumerate(full) if p not in support]
    other = max(others, key=lambda i: final_mean[i]) if others else -1
    return MixedRow(
        players=n, kind=kind, support=support, probabilities=probs, win_rate=rate[0],
        win_rate_se=rate[1], exploitability=max(0.0, float(final_mean.max())),
        exploitability_ci=(max(0.0, float(final_lo.max())), upper),
        certified=upper < budget.target, most_gain=full[top],
        most_gain_mean=float(final_mean[top]), most_gain_upper=float(final_hi[top]),
        best_other=full[other] if other >= 0 else None,
        best_other_mean=float(final_mean[other]) if other >= 0 else 0.0,
        best_other_upper=float(final_hi[other]) if other >= 0 else 0.0,
        search_games=0, cert_games=played, iterations=0, start=[], stages=stages)


def search(rules: RoncoRules, jobs: Sequence[tuple[int, str, Sequence[Policy]]], lives: int,
           *, seed: int, budget: Budget = Budget(), near: bool = False, workers: int,
           root: Path | None,
           progress: bool, executor: Executor | None = None,
           ) -> tuple[list[MixedRow], int, int]:
    """Run :func:`plan` for every (players, family, start) of ``jobs`` side by side on one pool
    of workers, each batch stored under ``root`` (if given). Returns the rows (in the order of
    ``jobs``) and how many chunks were resumed and computed."""
    plans = [plan(rules, n, lives, kind, start, seed=seed, budget=budget, near=near)
             for n, kind, start in jobs]
    return run_searches(plans, label=lambda: f"equilibrium, {len(jobs)} searches (games)",
                        progress=progress, root=root, executor=executor, workers=workers)
