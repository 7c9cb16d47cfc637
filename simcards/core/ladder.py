"""A ladder of policies: every pair compared in duplicate, then one Bradley-Terry fit per table
size, on the Elo scale. The machinery that ``simcards ronda ladder`` and ``simcards romi
ladder`` share (:func:`simcards.ronda.api.ladder`, :func:`simcards.romi.api.ladder`).

Each pairing is the game's own ``compare A B`` (A listed before B), run through the one Monte
Carlo path with a seed of its own, :func:`pairing_seed`: a function of ``--seed``, the game, the
table size and the two policies, so the pairing's numbers are bit-identical for any
``--workers``, ``compare A B --seed <that seed>`` gives them again, and a ladder that lists one
more policy finds its earlier pairings in the run store.

Both orders with 3 or more seats alone. There ``compare A B`` seats one A among Bs, and "one A
among Bs" and "one B among As" are different questions whose answers need not mirror each
other (the result of a seat depends on the field). A ladder that ran only the listed order
would depend on the order the policies are listed in. So at such a table every pair plays both
runs, ``compare A B`` and ``compare B A``, each with its own seed and half the deal sets
(rounded up: the work of one run of ``--deals``), and each run is one pairing of the fit, as
Luce's model reads both; the ratings, their differences and the runs are then the same
whatever the listing order (only the anchor, the first listed, moves the scale). With two
sides one run answers both ways round and plays the listed order on every deal set.

From a pairing to a probability. ``compare`` gives the paired difference d of per-seat win
rates, A's minus B's, with its normal 95% interval over deal sets. With n sides at the table (2
with two sides; otherwise A in one seat against n - 1 seats of B), and every game won by one
side (shared wins split), A's per-seat rate is a = (1 + (n - 1) d) / n and B's b = (1 - d) / n.
The pairing's Bradley-Terry probability is then

    p = a / (a + b) = (1 + (n - 1) d) / (2 + (n - 2) d)              (:func:`luce_probability`)

which is (1 + d) / 2 with two sides; with more, it is what Luce's choice model, the
Bradley-Terry model of a winner among several, makes of "A's seat rather than one B seat
wins": P(i wins) = g_i / sum of the g's gives a / b = g_A / g_B whatever the field. p is
increasing in d, so its interval is d's mapped through it.

Weights. The fit treats a pairing as n_eff independent games won by A with probability p, where
n_eff = p (1 - p) / se(p)^2 and se(p) = p'(d) se(d), se(d) the standard error behind compare's
paired interval. So a duplicate pairing, whose luck of the deal cancels, weighs as the many
independent games it is worth. Where the data give no spread (one deal set, or the same
difference in every set) n_eff is the number of deal sets; a p of 0 or 1 is moved half a game
inwards (to 0.5 / (n_eff + 1) of the bound) so that every rating stays finite.

The fit. Ratings r with P(i beats j) = 1 / (1 + 10^((r_j - r_i) / 400)), the first listed policy
fixed at 0, fitted by maximum likelihood (the weighted binomial likelihood above, concave:
scipy's ``trust-exact`` on its exact gradient and Hessian, then Newton's steps to the last
digit, so that consistent pairings give their ratings back exactly). The
95% interval of each rating is r +- 1.96 se, se from the inverse Fisher information (the
Hessian at the optimum, the anchor's row and column removed): the uncertainty of r_i - r_anchor.
``fit`` reports the Pearson chi-square of the pairings about the fitted probabilities, on
pairings - (policies - 1) degrees of freedom: a small p-value says the ladder is not
transitive enough for one rating per policy to describe it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simcards.core.cli_options import parse_range
from simcards.core.errors import UsageError
from simcards.core.policyspec import PolicySpec
from simcards.core.progress import Progress
from simcards.core.runner import stream_id
from simcards.core.stats import Z95

ELO = math.log(10.0) / 400.0
"""Logits per Elo point: P = 1 / (1 + 10^(-r / 400)) = expit(ELO * r)."""


# ---------------------------------------------------------------- input


def table_sizes(players: int | str | Sequence[int]) -> list[int]:
    """``--players``: one table size, or several (``"2,4"``, ``"2-4"``; a list of ints), each
    listed once; each game checks its own range."""
    if isinstance(players, bool):
        raise UsageError(f"--players must be an integer or a list such as 2,4, got {players!r}")
    if isinstance(players, int):
        return [players]
    if isinstance(players, str):
        return parse_range(players, "--players")
    return parse_range(",".join(str(int(p)) for p in players), "--players")


def policy_list(policies: str | Sequence[str | PolicySpec] | None,
                parse: Callable[[str | PolicySpec], PolicySpec],
                flag: str = "--policies") -> list[PolicySpec]:
    """The policies to rank: the flag's comma-separated text or a list, each entry read by the
    game's ``parse`` (its one-line errors name ``flag``); at least two, none listed twice (as
    written or in another spelling of the same policy, ``lookahead`` and ``lookahead:1``)."""
    if policies is None:
        raise UsageError(f"{flag} is missing: list the policies to rank, at least two, e.g. "
                         "greedy,random")
    items = _entries(policies, flag) if isinstance(policies, str) else list(policies)
    specs = [parse(item) for item in items]
    if len(specs) < 2:
        raise UsageError(f"{flag} needs at least 2 policies to rank, got {len(specs)}")
    seen: dict[str, int] = {}
    for i, spec in enumerate(specs):
        text = spec.text()
        if text in seen:
            first = str(items[seen[text]]).strip()
            again = str(items[i]).strip()
            same = "" if first == again else f" ({first!r} and {again!r} are the same policy)"
            raise UsageError(f"{flag}: {text} is listed twice{same}")
        seen[text] = i
    return specs


def _entries(text: str, flag: str) -> list[str]:
    """The comma-separated entries of ``text``; an empty one is refused, naming it."""
    items = [item.strip() for item in text.split(",")]
    if not any(items):
        raise UsageError(f"{flag} is empty: list the policies to rank, at least two")
    empty = [str(i + 1) for i, item in enumerate(items) if not item]
    if empty:
        raise UsageError(f"{flag} {text.strip()!r}: entry {', '.join(empty)} of {len(items)} "
                         "is empty (the policies to rank, comma-separated)")
    return items


def pairing_seed(seed: int, game: str, players: int, a: str, b: str) -> int:
    """The seed of the pairing A against B at a table of ``players``: a pure function of the
    ladder's seed, the game, the table size and the two policies' texts, 0 .. 2**63-1."""
    ss = np.random.SeedSequence(entropy=int(seed), spawn_key=(
        stream_id(f"{game}.ladder"), int(players), stream_id(a), stream_id(b)))
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def pairs(k: int) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, i < j, in the order of the list: A is the one listed first."""
    return [(i, j) for i in range(k) for j in range(i + 1, k)]


# ---------------------------------------------------------------- pairings


def luce_probability(d: float, sides: int) -> float:
    """A's Bradley-Terry probability of beating B from the paired win-rate difference ``d``
    at a table of ``sides`` sides (module docstring); ``d`` is clipped to its range,
    -1 / (sides - 1) .. 1."""
    n = sides
    d = min(max(d, -1.0 / (n - 1)), 1.0)
    return (1.0 + (n - 1) * d) / (2.0 + (n - 2) * d)


def luce_slope(d: float, sides: int) -> float:
    """The derivative of :func:`luce_probability` in ``d``: n / (2 + (n - 2) d)^2."""
    n = sides
    d = min(max(d, -1.0 / (n - 1)), 1.0)
    return n / (2.0 + (n - 2) * d) ** 2


def _interval(ci: Sequence[float | None] | None) -> tuple[float, float] | None:
    if ci is None or len(ci) != 2 or ci[0] is None or ci[1] is None:
        return None
    lo, hi = float(ci[0]), float(ci[1])
    return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) else None


def strength(d: float, ci: Sequence[float | None] | None, sides: int,
             deal_sets: int) -> dict[str, Any]:
    """What the fit reads from one pairing: ``p_a`` (A's probability of beating B), its
    interval ``p_a_ci`` (null where compare gives none) and ``n_eff`` (the independent games
    it is worth: p (1 - p) / se(p)^2, or the deal sets where the data give no spread)."""
    p = luce_probability(d, sides)
    bounds = _interval(ci)
    n_eff = float(deal_sets)
    p_ci = None
    if bounds is not None:
        p_ci = [luce_probability(bounds[0], sides), luce_probability(bounds[1], sides)]
        se_p = luce_slope(d, sides) * (bounds[1] - bounds[0]) / (2 * Z95)
        if se_p > 0 and 0 < p < 1:
            n_eff = p * (1 - p) / (se_p * se_p)
    return {"p_a": p, "p_a_ci": p_ci, "n_eff": n_eff}


# ---------------------------------------------------------------- the fit


@dataclass(frozen=True)
class Fit:
    """A Bradley-Terry fit: ``ratings`` and their standard errors ``se`` (Elo points, the
    anchor at 0 with se 0), the fitted probability of every pairing, and the Pearson
    chi-square of the pairings about them."""

    ratings: np.ndarray
    se: np.ndarray
    fitted: list[float]
    chi2: float
    dof: int

    @property
    def p_value(self) -> float | None:
        if self.dof <= 0:
            return None
        from scipy.stats import chi2

        return float(chi2.sf(self.chi2, self.dof))

    def ci95(self, i: int) -> list[float]:
        return [float(self.ratings[i] - Z95 * self.se[i]),
                float(self.ratings[i] + Z95 * self.se[i])]


def bounded(p: float, n_eff: float) -> float:
    """``p`` moved half a game inwards when it lies within half a game of 0 or 1 (module
    docstring), so that the likelihood has a finite maximum."""
    edge = 0.5 / (n_eff + 1.0)
    return min(max(p, edge), 1.0 - edge)


def fit_bradley_terry(k: int, games: Sequence[tuple[int, int, float, float]],
                      anchor: int = 0) -> Fit:
    """Ratings of ``k`` policies from ``games``, each ``(i, j, p, w)``: i beat j with
    probability ``p`` over ``w`` independent games (module docstring); policy ``anchor`` is
    fixed at 0. Every policy must take part in some pairing; the pairings must connect them."""
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    if k < 2 or not games:
        raise ValueError("a Bradley-Terry fit needs at least two policies and one pairing")
    i_idx = np.array([g[0] for g in games], np.int64)
    j_idx = np.array([g[1] for g in games], np.int64)
    p = np.array([bounded(g[2], g[3]) for g in games], np.float64)
    w = np.array([g[3] for g in games], np.float64)
    total = float(w.sum())
    wn = w / total  # the likelihood per game: its size does not depend on the counts
    free = np.array([m for m in range(k) if m != anchor], np.int64)

    def theta(x: np.ndarray) -> np.ndarray:
        t = np.zeros(k)
        t[free] = x
        return t

    def nll(x: np.ndarray) -> float:
        t = theta(x)
        delta = t[i_idx] - t[j_idx]
        return float(-(wn * (p * log_expit(delta) + (1 - p) * log_expit(-delta))).sum())

    def grad(x: np.ndarray) -> np.ndarray:
        t = theta(x)
        r = wn * (p - expit(t[i_idx] - t[j_idx]))
        g = np.zeros(k)
        np.add.at(g, i_idx, -r)
        np.add.at(g, j_idx, r)
        return g[free]

    def info(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
        t = theta(x)
        s = expit(t[i_idx] - t[j_idx])
        h = weights * s * (1 - s)
        m = np.zeros((k, k))
        np.add.at(m, (i_idx, i_idx), h)
        np.add.at(m, (j_idx, j_idx), h)
        np.add.at(m, (i_idx, j_idx), -h)
        np.add.at(m, (j_idx, i_idx), -h)
        return m[np.ix_(free, free)]

    x = minimize(nll, np.zeros(k - 1), jac=grad, hess=lambda x: info(x, wn),
                 method="trust-exact", options={"gtol": 1e-9, "maxiter": 1000}).x
    for _ in range(50):  # Newton's steps on the gradient, exact where the likelihood is flat
        step = np.linalg.solve(info(x, wn), grad(x))
        x = x - step
        if np.abs(step).max() < 1e-14:
            break
    if np.abs(grad(x)).max() > 1e-9:  # pragma: no cover - the problem is concave
        raise RuntimeError("the Bradley-Terry fit did not converge")
    t = theta(x)
    cov = np.linalg.inv(info(x, w))  # logits^2; the Fisher information of every game
    se = np.zeros(k)
    se[free] = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    fitted = expit(t[i_idx] - t[j_idx])
    chi2 = float((w * (p - fitted) ** 2 / (fitted * (1 - fitted))).sum())
    return Fit(t / ELO, se / ELO, [float(f) for f in fitted], chi2, len(games) - (k - 1))


# ---------------------------------------------------------------- the answer


def rate(policies: Sequence[str], pairings: list[dict[str, Any]],
         difference: Callable[[dict[str, Any]], tuple[float | None, Any]]) -> dict[str, Any]:
    """One table's ladder from its pairings (each with ``a``, ``b``, ``p_a``, ``n_eff``; this
    adds ``p_a_fit``): ``ratings`` (``policy``, ``rating``, ``ci95``, ``se``, in the order
    listed), ``order`` (best first), ``fit`` (``chi2``, ``dof``, ``p_value``) and
    ``unseparated`` (the pairs whose paired interval, ``difference(pairing)``'s, includes 0,
    or which have none)."""
    index = {name: i for i, name in enumerate(policies)}
    fit = fit_bradley_terry(len(policies), [(index[q["a"]], index[q["b"]], q["p_a"],
                                             q["n_eff"]) for q in pairings])
    for q, f in zip(pairings, fit.fitted, strict=True):
        q["p_a_fit"] = f
    ratings = [{"policy": name, "rating": float(fit.ratings[i]), "ci95": fit.ci95(i),
                "se": float(fit.se[i])} for i, name in enumerate(policies)]
    order = [policies[i] for i in sorted(range(len(policies)),
                                         key=lambda i: (-fit.ratings[i], i))]
    unseparated = []
    for q in pairings:
        _, ci = difference(q)
        bounds = _interval(ci)
        if bounds is None or bounds[0] <= 0.0 <= bounds[1]:
            unseparated.append([q["a"], q["b"]])
    return {"ratings": ratings, "order": order,
            "fit": {"chi2": fit.chi2, "dof": fit.dof, "p_value": fit.p_value},
            "unseparated": unseparated}


def between(pairings: Sequence[dict[str, Any]], x: str, y: str) -> tuple[dict[str, Any], int]:
    """The pairing of ``x`` and ``y``, and +1 if ``x`` was its A, -1 if its B: its A-minus-B
    figures times that sign are ``x``'s minus ``y``'s. Where both orders were run (3 or more
    seats alone) the one with ``x`` as A, one ``x`` among ``y`` players, whatever the order
    the pairings are listed in."""
    for q in pairings:
        if (q["a"], q["b"]) == (x, y):
            return q, 1
    for q in pairings:
        if (q["a"], q["b"]) == (y, x):
            return q, -1
    raise KeyError((x, y))


def signed(value: float | None, ci: Any, sign: int, more: str, fewer: str,
           digits: int = 3) -> str:
    """``0.042 [0.030, 0.054] more ...`` for a difference turned by ``sign``; a negative one
    reads as the opposite word with the interval turned too."""
    if value is None:
        return f"n/a {more}"
    v = sign * value
    bounds = _interval(ci)
    lo, hi = (None, None) if bounds is None else sorted((sign * bounds[0], sign * bounds[1]))
    word = more
    if v < 0:
        v, word = -v, fewer
        lo, hi = (None, None) if lo is None else (-hi, -lo)
    interval = "[n/a]" if lo is None else f"[{lo:.{digits}f}, {hi:.{digits}f}]"
    return f"{v:.{digits}f} {interval} {word}"


def separation_sentence(unseparated: Sequence[Sequence[str]], n_pairs: int) -> str:
    """One sentence on the pairs whose paired interval includes 0 (``n_pairs`` the pairings,
    each order counted where both were run), each pair named once."""
    if not unseparated:
        return "every pair separates: no paired interval includes 0."
    if len(unseparated) == n_pairs:
        return "no policy separates from another: every paired interval includes 0."
    seen: dict[frozenset[str], tuple[str, str]] = {}
    for a, b in unseparated:
        seen.setdefault(frozenset((a, b)), (a, b))
    names = "; ".join(f"{a} and {b}" for a, b in seen.values())
    return f"not separated (their paired interval includes 0): {names}."


def ladder_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``ladder``, one row per policy and table size, best first: ``players``, ``rank``,
    ``policy``, ``rating`` (Elo, the anchor 0) with ``ci_low``, ``ci_high`` and ``se``."""
    rows = []
    for table in d["tables"]:
        by_name = {r["policy"]: r for r in table["ratings"]}
        for rank, name in enumerate(table["order"], 1):
            r = by_name[name]
            rows.append({"players": table["players"], "rank": rank, "policy": name,
                         "rating": r["rating"], "ci_low": r["ci95"][0],
                         "ci_high": r["ci95"][1], "se": r["se"]})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- running


@dataclass(frozen=True)
class Pairing:
    """One pairing to run: the table size (its index among the sizes), A and B (indices into
    the policies), its seed and its deal sets."""

    table: int
    players: int
    a: int
    b: int
    seed: int
    deals: int


def plan_pairings(game: str, sizes: Sequence[int], alone: Sequence[bool],
                  policies: Sequence[str], deals: int, seed: int) -> list[Pairing]:
    """Every pairing of every table size: each pair of :func:`pairs` once on ``deals`` deal
    sets where the table has two sides, and in both orders on half of them each (rounded up)
    where ``alone`` says it seats 3 or more players alone (module docstring)."""
    half = -(-deals // 2)
    plan = []
    for t, n in enumerate(sizes):
        for i, j in pairs(len(policies)):
            orders = ((i, j), (j, i)) if alone[t] else ((i, j),)
            plan += [Pairing(t, n, a, b, pairing_seed(seed, game, n, policies[a], policies[b]),
                             half if alone[t] else deals) for a, b in orders]
    return plan


def run_pairings(game: str, title: str, sizes: Sequence[int], policies: Sequence[str],
                 deals: int, seed: int, progress: bool,
                 compare: Callable[[Pairing, Progress], Any], *,
                 alone: Sequence[bool]) -> list[list[Any]]:
    """Every pairing of :func:`plan_pairings`, one after another, each a
    ``compare(pairing, bar)`` (the game's compare command with that pairing's seed and deal
    sets, counting into ``bar``: one progress bar for the whole ladder, named after the
    pairing it is playing). Returns each table's compare results in the plan's order."""
    plan = plan_pairings(game, sizes, alone, policies, deals, seed)
    bar = Progress(sum(p.deals for p in plan), f"{title} ladder", progress)
    out: list[list[Any]] = [[] for _ in sizes]
    try:
        for number, pairing in enumerate(plan, 1):
            bar.update(label=f"{title} ladder, {pairing.players} players, "
                       f"{policies[pairing.a]} against {policies[pairing.b]} "
                       f"({number}/{len(plan)})")
            out[pairing.table].append(compare(pairing, bar))
    finally:
        bar.close()
    return out


def keep_result(store: str | None, manifest: dict[str, Any], result: Any,
                summary: dict[str, Any]) -> None:
    """Keep the ladder's own record in the run store (``<game>-ladder-<hash>/``: its manifest
    and ``result.parquet``, one row per policy and table size); its pairings are the compare
    runs beside it, whose chunks a rerun resumes."""
    from simcards.core.store import RunStore, store_root

    root = store_root(store)
    if root is None:
        return
    run = RunStore(root, manifest)
    run.create()
    run.finish(result.to_frame(), summary)


@dataclass(frozen=True)
class LadderGame:
    """What a game gives the one ladder (:func:`run_ladder`): how it makes its rules and reads
    a policy, its ``compare`` command, and how it writes one table size's ranking from that
    table's compare answers. Everything else, the plan, the seeds, the store, is the ladder's.
    """

    name: str
    title: str
    make_rules: Callable[..., Any]
    """``make_rules(players=n, **switches)``: one table size's rules."""
    parse_policy: Callable[[str | PolicySpec, Any], PolicySpec]
    """``parse_policy(item, rules)``: one ``--policies`` entry, checked (under the first
    table's rules)."""
    compare: Callable[..., Any]
    table: Callable[[Any, list[str], list[dict[str, Any]]], dict[str, Any]]
    """``table(rules, names, compared)``: one table size's ranking (its ``tables`` entry)."""
    alone: Callable[[Any], bool]
    """Whether a table seats 3 or more sides (then every pair plays both orders)."""
    max_deals: int
    around: Callable[[Sequence[PolicySpec], Sequence[int]], Any] | None = None
    """A context the pairings run in (a note said once for the whole ladder), if any."""


def run_ladder(game: LadderGame, *, policies: str | Sequence[str | PolicySpec] | None,
               players: int | str | Sequence[int], switches: dict[str, Any],
               deals: int | str, dealer: int | None, seed: int, workers: int | None,
               scheduler: str | None, store: str | None, progress: bool) -> Any:
    """Every listed policy against every other with the game's ``compare``, and their
    Bradley-Terry ratings, for each table size: the ``ladder`` command of every game.

    Each pairing is exactly ``compare`` with the pairing's own seed (:func:`pairing_seed`) and
    the rule switches given, run and stored as compare runs; with 3 or more sides every pair
    also plays B against A, each order on half the deal sets (:func:`plan_pairings`). The
    ladder's own record is kept beside them (:func:`keep_result`)."""
    from contextlib import nullcontext

    from simcards.core.cli_options import check_seat, check_seed, parse_count
    from simcards.core.results import Result
    from simcards.core.runner import check_workers

    sizes = table_sizes(players)
    tables = [game.make_rules(players=n, **switches) for n in sizes]
    specs = policy_list(policies, lambda item: game.parse_policy(item, tables[0]))
    total = parse_count(deals, "--deals", game.max_deals)
    for rules in tables:
        dealer = check_seat(dealer, rules.players)
    check_seed(seed)
    check_workers(workers)
    names = [s.text() for s in specs]

    def run(pairing: Pairing, bar: Progress) -> Any:
        return game.compare(specs[pairing.a], specs[pairing.b], players=pairing.players,
                            **switches, deals=pairing.deals, dealer=dealer, seed=pairing.seed,
                            workers=workers, scheduler=scheduler, store=store, progress=bar)

    with game.around(specs, sizes) if game.around else nullcontext():
        results = run_pairings(game.name, game.title, sizes, names, total, seed, progress, run,
                               alone=[game.alone(r) for r in tables])
    out: dict[str, Any] = {"game": game.name, "command": "ladder", "policies": names,
                           "players": sizes, "anchor": names[0], "dealer": dealer,
                           "seed": seed, "deals": total,
                           "tables": [game.table(rules, names, [r.data for r in res])
                                      for rules, res in zip(tables, results, strict=True)]}
    result = Result(out, results, ladder_frame)
    users = {s.user.text(): s.user.digest for s in specs if s.user is not None}
    keep_result(store, {**{k: out[k] for k in ("game", "command", "policies", "players",
                                               "dealer", "seed", "deals")},
                        "rules": [r.summary() for r in tables],
                        # an edited function is another ladder, as its pairings are other runs
                        **({"user_policies": users} if users else {})},
                result, {"order": [t["order"] for t in out["tables"]]})
    return result


POOR_FIT_P = 0.01
"""Below this p-value of the fit's chi-square the ladder says that its ratings summarise the
pairings poorly: with three or more players alone the result of one A among Bs depends on the
field, which one strength per policy cannot carry."""


def fit_sentence(fit: dict[str, Any], anchor: str) -> str:
    """The line under a ladder's tables: how well one rating per policy fits, and what the
    ratings are."""
    dof = fit["dof"]
    p_value = "" if fit["p_value"] is None else f", p = {fit['p_value']:.3g}"
    poor = ""
    if fit["p_value"] is not None and fit["p_value"] < POOR_FIT_P:
        poor = (". One rating per policy describes these pairings poorly (p below "
                f"{POOR_FIT_P}): where a rating and a paired run disagree, the run is the "
                "measurement")
    return (f"Bradley-Terry fit: chi-square {fit['chi2']:.2f} on {dof} "
            f"degree{'' if dof == 1 else 's'} of freedom{p_value} (ratings on the Elo scale, "
            f"{anchor} at 0; 95% intervals from the inverse Fisher information, each pairing "
            "weighted by the independent games its paired interval is worth)" + poor)


# ---------------------------------------------------------------- report pages


def rate_runs(names: Sequence[str], runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A report's ladder of one table size from duplicate runs it has already played, each
    ``{"a", "b", "d", "ci", "sides", "deal_sets"}`` (``d`` the paired win-rate difference A
    minus B with its 95% interval ``ci``). With 3 or 4 players alone a report runs both orders
    of a pair ("one A among Bs" and "one B among As"); each is one more pairing of the fit, as
    Luce's model reads both. :func:`rate` of them, the first of ``names`` the anchor; each
    pairing of the answer keeps its run's keys."""
    pairings = [{**r, **strength(r["d"], r["ci"], r["sides"], r["deal_sets"])} for r in runs]
    return rate(names, pairings, lambda q: (q["d"], q["ci"]))


def unseparated_sentence(rated: dict[str, Any], listed: Sequence[str]) -> str:
    """A report's sentence on the pairs of a ladder whose paired interval includes 0, each
    pair once and in the order of ``listed`` (a report runs some pairs in both orders)."""
    rank = list(listed).index
    pairs = sorted({tuple(sorted(pair, key=rank)) for pair in rated["unseparated"]},
                   key=lambda pair: (rank(pair[0]), rank(pair[1])))
    if not pairs:
        return "Every pair of policies separates (no paired interval includes 0)."
    names = "; ".join(f"`{a}` and `{b}`" for a, b in pairs)
    return f"Not separated (a paired interval includes 0): {names}."


def rating_lines(rated: dict[str, Any], anchor: str) -> list[str]:
    """A ladder's ratings as a Markdown table, best first, then :func:`fit_sentence`."""
    by_name = {r["policy"]: r for r in rated["ratings"]}
    lines = ["| rank | policy | rating, Elo (95% CI) |", "|---|---|---|"]
    for rank, name in enumerate(rated["order"], 1):
        r = by_name[name]
        ci = "anchor" if name == anchor else f"[{r['ci95'][0]:+.0f}, {r['ci95'][1]:+.0f}]"
        lines.append(f"| {rank} | `{name}` | {r['rating']:+.0f} {ci} |")
    return [*lines, "", fit_sentence(rated["fit"], f"`{anchor}`") + "."]
