"""Ronco's Python API: the ``simcards ronco`` commands as functions.

::

    import simcards.ronco

    res = simcards.ronco.rounds(players=6, policy="informed", threshold=5, rounds="10M")
    res.to_dict()    # the same keys as `simcards ronco rounds --json`
    res.to_frame()   # one row per position

Each function takes keyword arguments named after the command's flags (``--dealer-threshold``
is ``dealer_threshold``), with the same defaults, the same checks and the same seed
(:data:`~simcards.core.cli_options.DEFAULT_SEED`), and returns a
:class:`~simcards.core.results.Result` (every game's) with ``.to_dict()`` and ``.to_frame()``.
Counts may be ints or the command line's text (``"1M"``, ``"1e6"``);
``policies`` may be the ``--policies`` text or a list of entries, ``thresholds`` its text or a
list of ints. Every argument takes the types of :mod:`simcards.core.apiargs` (an integer option
an ``int``, never its text or a ``float``; a switch a ``bool``). Bad arguments, of a wrong type
or value, raise :class:`~simcards.core.errors.UsageError` (a ``ValueError``) naming the flag,
before anything is computed. Runs are kept in the run store as the commands keep them (``store``
as ``--store``). The functions work from a script without an ``if __name__ == "__main__":``
guard (see :mod:`simcards.core.spawnsafe`).

The command line (:mod:`simcards.ronco.cli`) is a thin layer over these functions.

The keys of each answer
-----------------------
``.to_dict()`` is the command's ``--json`` object; its keys, in order. Intervals are 95%
(Wilson's for rates), each ``[low, high]``; every Monte Carlo answer run on a dask cluster
also has ``cluster`` (its scheduler and workers, the warm-up time apart from the simulation's).

``rounds``: ``game`` (``"ronco"``), ``command``, ``players``, ``rules`` (``deck``,
``cut_king``, ``ties``, ``poroli``, ``absolute_tie``), ``policies`` (one spec per position;
position 0 acts first, the last is the dealer), ``seed``, ``rounds``, ``p_lose``, ``ci_low``,
``ci_high`` (by position), ``p_double`` (Poroli double losses, by position), ``p_all_tie``
(absolute ties, rule R9) and ``p_all_tie_ci``, ``p_cut`` (the dealer cuts) and ``p_cut_ci``,
``p_cut_king`` (rule R7 fires) and ``p_cut_king_ci``.

``exact``: ``game``, ``command``, ``players``, ``rules``, ``policies``, ``p_lose``,
``p_double``, ``p_all_tie``, ``p_cut`` and ``p_cut_king``, exactly, without intervals.
Deterministic policies only; up to 6 players in seconds, larger tables while the enumeration
stays under :data:`simcards.ronco.rounds_exact.MAX_LEAVES` (3e9) deal classes.

``games``: ``game``, ``command``, ``players``, ``rules``, ``policies`` (by player, numbered in
play order), ``lives``, ``first_dealer`` (null: drawn at random), ``exact`` (false), ``seed``,
``games``, ``win_rate``, ``win_ci_low``, ``win_ci_high`` (by player), ``draw_rate`` (games
without a winner: void by G6, everyone out at once by G7, or stalled) and ``draw_ci``,
``void_rate`` (games voided by an absolute tie, G6), ``rounds_mean`` (game length in rounds)
with ``rounds_mean_se`` (its standard error) and ``rounds_sd`` (the spread of game lengths),
``rounds_quantiles`` (5, 25, 50, 75, 95%), ``place_distribution`` (``[player][k]``: the
probability that the player finishes k-th, 0 = winner or last survivor: the elimination
order), ``elimination_order`` (a ``description`` of ``place_distribution``),
``first_out_ci`` (``[player]``: the interval of the chance to be first out, the last column of
``place_distribution``), ``stalled`` (games cut at 100,000 rounds; 0 in practice).
``exact=True`` (``--exact``, a Markov chain over lives and dealer, up to 250,000 states: 4
players with 7 lives, 6 with 3, 2 with 250) gives ``game``, ``command``, ``players``,
``rules``, ``policies``, ``lives``, ``first_dealer``, ``exact`` (true), ``win_rate``,
``draw_rate``, ``rounds_mean``, ``rounds_quantiles``.

A ``bayes`` player (rule S4) is computed from a decision table built once per rules, table
size and other players' policies (:mod:`simcards.ronco.bayes_exact`; up to 10 players, which
take a few GB while the table is built): at most one player may play it, and the others must
play threshold or informed policies (in games, all the same one).

``chart`` (a keep chart, rule S6, written to ``out`` with its picture): ``game``, ``command``,
``players``, ``rules``, ``policies``, ``policy`` (the policy charted), ``field`` (the others'
policy), ``chart`` (the CSV's path), ``picture`` (the PNG's), ``situations`` (the chart's rows),
``positions``; each position: ``position``, ``role``, ``p_keep`` (how often the policy keeps
there, the dealer: does not cut, when the others play the field; exact), ``situations``. A
``rounds`` answer whose policies include ``chart:FILE.csv`` also has ``charts`` (each chart's
path and the digest of its text: an edited chart is a new run).

``advise`` (one concrete position, rule S4): ``game``, ``command``, ``players``, ``rules``,
``policies`` (the seat's shown as ``bayes``, the others' the field), ``seat`` (its position in
the round, 0 acts first), ``role``,
``card`` and ``dealt`` (as players write them; ``dealt`` null without a swap), ``before`` (the
earlier positions' public actions), ``field``, ``situation`` (the position in words),
``p_situation`` (how often a seat at that position meets it, card included, when the others
play the field), ``best`` (the action losing fewer lives; a tie keeps), ``by`` (by how much),
``moves``; each move: ``action`` (``keep``, ``pass`` or ``cut``), ``p_lose`` (its exact
probability of losing the round), ``lives_lost`` (its expected lives lost, what S4 minimises:
``p_lose`` but for a Poroli double loss), ``difference`` (its ``lives_lost`` less the best's).
With ``lives`` also ``lives`` (by seat), ``best_game`` (the action more likely to win the
game), ``by_game``, ``game_differs`` (whether it is not ``best``), and per move ``p_win`` and
``win_difference`` (its ``p_win`` less the best's).

``best_threshold``: ``game``, ``command``, ``rules``, ``players`` (the table sizes),
``lives``, ``policy``, ``field``, ``seed``, ``first_stage``, ``max_games``, ``z_drop``,
``max_iterations``, ``gain_games``, ``min_games``, ``rows``; with a field of the user's, also
``engine`` and ``user_policies`` (a function, S5) or ``charts`` (a chart, S6), as ``games``
shows them. Each row: ``players``, ``field`` (``[T, Td]``; a function's or chart's text, whose
``best_response_path`` then starts with the best response to it), ``best_T``, ``best_Td``,
``win_rate``, ``ci_low``, ``ci_high``, ``games`` (played by the best), ``tied_with``
(``[[T, Td], ...]``: the candidates it cannot be told apart from), ``fair_share`` (1/players),
``candidate_games``, ``stages``, ``equilibrium_T``, ``equilibrium_Td`` (null when not
converged), ``equilibrium_converged``, ``equilibrium_iterations``, ``best_response_path``,
``equilibrium_cycle``,
``equilibrium_best_response``, ``equilibrium_tied_with``, and unless ``gain_games=0``:
``informed_gain``, ``informed_gain_ci``, ``informed_win_rate``, ``threshold_win_rate``,
``gain_games``, and for up to 10 players and a threshold or informed field ``bayes_gain``,
``bayes_gain_ci`` (win rate of ``bayes`` minus the best pair's, on the same games, paired
interval) and ``bayes_win_rate``.
With ``mixed`` (``--mixed``), a row whose best responses cycle also has ``equilibrium_mixed``
(the row :func:`equilibrium` gives from ``start`` = the cycle, with its ``support``,
``exploitability`` and ``start``).

``equilibrium`` with ``exact`` (two players, one round): ``game`` (``"ronco"``), ``command``,
``players``, ``rules``, ``family``, ``payoff``, ``matrix_game`` (``"constant-sum"``, solved by
linear programming made exact, or ``"bimatrix"``, by support enumeration, the equilibrium best
for position 0 printed), ``value`` (per position: ``fraction``, ``decimal``), ``mix`` (per
position: ``T`` or ``Td``, ``probability``, ``decimal``, ``equivalent``: the thresholds that
are the same strategy), ``equilibria_found``, ``strategies`` (distinct pure strategies per
position). With ``family="all"`` (rule E7): ``game``, ``command``, ``players``, ``rules``,
``family`` (``"all"``), ``payoff``, ``round``, ``value`` (per position: ``fraction``,
``decimal``), ``position0`` (per card: ``card``, ``keep``, ``decimal``), ``dealer`` (per
information set: ``after`` = ``kept``, ``swap`` or ``refused``, ``card``, ``gave``, ``keep``,
``decimal``), ``information_sets`` (``position0``, ``dealer``, ``coupled``: the dealer's sets
whose best action depends on position 0's strategy), ``certificate``
(``position0_best_reply``, ``dealer_best_reply``, ``holds``), ``families`` (per family:
``value``, ``decimal``, ``reaches``, ``position0_guarantee``, ``dealer_guarantee``),
``verdict``, and with ``openspiel`` ``openspiel`` (``game``, ``solver``, ``value``,
``agrees``, ``difference``, ``position0`` and ``dealer`` averaged over the suits with
``same_for_every_suit``, ``seconds``; or ``skipped``).

``equilibrium`` with 3 or more players (the mixed symmetric equilibrium of whole games, rules
E5, E6): ``game``, ``command``, ``rules``, ``players``, ``lives``, ``family``, ``start``,
``seed``, ``target`` (the exploitability bound to certify, 0.002), ``rows``; each row:
``players``, ``family``, ``support`` (``T``, ``Td``, ``probability``), ``pure``, ``win_rate``
and ``win_rate_ci`` (a player's win rate when all play it), ``fair_share``,
``exploitability`` (the most win rate any pure grid pair gains against it), its
``exploitability_ci`` (simultaneous over the grid, Bonferroni), ``certified`` (its upper bound
below ``target``), ``most_gain`` and ``best_deviation`` (``T``, ``Td``, ``gain``, ``upper``),
``start``, ``iterations``, ``search_games``, ``certificate_games``, ``certificate_stages``
(per stage: ``games``, ``strategies`` tested, Bonferroni ``z``).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from simcards.core.apiargs import (
    ACTIONS,
    BOOL,
    COUNT,
    INT,
    INTEGERS,
    NUMBER,
    PATH,
    POLICIES_TEXT,
    POLICY_TEXT,
    RUN,
    SIZES,
    TEXT,
    checked,
    run_keywords,
)
from simcards.core.cli_options import (
    DEFAULT_SEED,
    Count,
    check_finite,
    check_seed,
    parse_count,
    parse_int_list,
    parse_range,
)
from simcards.core.engines import COMPILED, PYTHON, engine_for, notice
from simcards.core.errors import UsageError
from simcards.core.policyspec import USER_KIND, flag_message
from simcards.core.results import Result
from simcards.core.runner import check_workers
from simcards.core.switches import HAND, RuleSet
from simcards.core.userpolicy import is_user_spec
from simcards.core.userpolicy import load as load_user
from simcards.ronco.policies import (
    BAYES_TABLE,
    CHART_TABLE,
    DEFAULT_P,
    DEFAULT_T,
    DEFAULT_TD,
    KINDS,
    THRESHOLD_KINDS,
    Policy,
    bounds,
)
from simcards.ronco.rules import RoncoRules, check_players

ROUNDS = Count("--rounds", "1M", 10**12, "Rounds to simulate")
"""How many rounds one ``rounds`` run simulates."""
GAMES = Count("--games", "100k", 10**10, "Games to simulate (default 100k)")
"""How many games one ``games`` run simulates (none with ``--exact``)."""
MAX_RACE_GAMES = 10**9
"""The most games per candidate of ``best-threshold`` (``--first-stage``, ``--max-games``,
``--min-games``, ``--gain-games``): every candidate (up to 169) plays them."""
DEFAULT_FIRST_STAGE = 8192
DEFAULT_MIN_GAMES = 64_000


def rounds_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``rounds`` (Monte Carlo) or ``exact`` (enumeration), one row per position: role,
    policy, P(lose), its 95% interval (Monte Carlo only) and P(double loss)."""
    n = d["players"]
    frame = pd.DataFrame({"position": range(n), "role": [_role(i, n) for i in range(n)],
                          "policy": d["policies"], "p_lose": d["p_lose"]})
    if "ci_low" in d:
        frame["ci_low"] = d["ci_low"]
        frame["ci_high"] = d["ci_high"]
    frame["p_double"] = d["p_double"]
    return frame


def games_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``games``, one row per player: policy, P(win) (with its 95% interval for Monte Carlo)
    and, for Monte Carlo, ``place_k``: the probability of finishing k-th (0 = winner)."""
    n = d["players"]
    frame = pd.DataFrame({"player": range(n), "policy": d["policies"],
                          "win_rate": d["win_rate"]})
    if not d["exact"]:
        frame["win_ci_low"] = d["win_ci_low"]
        frame["win_ci_high"] = d["win_ci_high"]
        for k in range(n):
            frame[f"place_{k}"] = [row[k] for row in d["place_distribution"]]
    return frame


def best_threshold_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``best-threshold``, one row per table size, with the keys of the JSON output's
    ``rows`` as columns."""
    return pd.DataFrame(copy.deepcopy(d["rows"]))


def _role(i: int, n: int) -> str:
    return "dealer" if i == n - 1 else ("first" if i == 0 else "")


ROUND_SWITCHES = RuleSet.of(RoncoRules, HAND)
"""The switches a single round reads (``rounds``, ``exact``)."""
GAME_SWITCHES = RuleSet.of(RoncoRules)
"""Every switch: the commands that play whole games."""


def _given(**flags: Any) -> list[str]:
    """The flags (named as on the command line) whose value was given (not None)."""
    return ["--" + k.replace("_", "-") for k, v in flags.items() if v is not None]


def _refuse_with(flag: str, given: Sequence[str], why: str) -> None:
    if given:
        raise UsageError(f"{given[0]} cannot be used with {flag}: {why}")


def _policy_flags(policy: str, threshold: int | None, dealer_threshold: int | None,
                  keep_prob: float | None, flag: str = "--policy") -> None:
    """Refuse the parameters the chosen policy kind does not read."""
    try:
        KINDS.kind(policy)
    except UsageError as exc:
        raise UsageError(flag_message(flag, str(exc))) from None
    if policy == "random":
        _refuse_with(f"{flag} random", _given(threshold=threshold,
                                              dealer_threshold=dealer_threshold),
                     "the random policy keeps with probability --keep-prob")
    elif keep_prob is not None:
        raise UsageError(f"--keep-prob cannot be used with {flag} {policy}: only the random "
                         "policy reads it")


def round_policies(players: int, policy: str = "threshold", threshold: int | None = None,
                   dealer_threshold: int | None = None,
                   thresholds: str | Sequence[int] | None = None,
                   keep_prob: float | None = None, rules: RoncoRules | None = None,
                   policies: str | None = None) -> list[Policy]:
    """One policy per position from the ``rounds``/``exact`` flags (None: not given);
    ``policies`` gives each position's own, the dealer's last."""
    check_players(players)
    if is_user_spec(policy):  # S5: a function of the user's for every position
        _refuse_with(f"--policy {policy.strip()}",
                     _given(threshold=threshold, dealer_threshold=dealer_threshold,
                            thresholds=thresholds, keep_prob=keep_prob, policies=policies),
                     "the function decides every position")
        return [Policy(USER_KIND, user=load_user(policy, "--policy"))] * players
    if policies is not None:
        if policy != "threshold":
            raise UsageError("--policy cannot be used with --policies: --policies gives every "
                             "position's policy")
        if thresholds is not None:
            raise UsageError("--thresholds cannot be used with --policies: write the "
                             "thresholds into each entry")
        return game_policies(players, policies, None, threshold, dealer_threshold, keep_prob,
                             rules)
    keep_prob = check_finite(keep_prob, "--keep-prob")
    _policy_flags(policy, threshold, dealer_threshold, keep_prob)
    if thresholds is not None:
        if policy == "random":
            raise UsageError("--thresholds cannot be used with --policy random: the random "
                             "policy has no threshold")
        _refuse_with("--thresholds", _given(threshold=threshold,
                                            dealer_threshold=dealer_threshold),
                     "--thresholds sets every position's threshold")
        per_pos = (parse_int_list(thresholds, "--thresholds") if isinstance(thresholds, str)
                   else [int(t) for t in thresholds])
        if len(per_pos) != players:
            raise UsageError(f"--thresholds needs {players} values (one per position, the "
                             f"dealer's last), got {len(per_pos)}")
        policies = [Policy(policy, t, t) for t in per_pos]
    else:
        t = DEFAULT_T if threshold is None else threshold
        td = DEFAULT_TD if dealer_threshold is None else dealer_threshold
        policies = [Policy(policy, t, td, DEFAULT_P if keep_prob is None else keep_prob)] * players
    for pol in policies:
        pol.validate((rules or RoncoRules()).top)
    return policies


def _header(command: str, rules: RoncoRules, policies: Sequence[Policy],
            engine: str | None = None) -> dict[str, Any]:
    """The answer's first keys (and the run's manifest). With a user's function (S5) also the
    engine that played and each function's digest (its file's text and name): editing the file
    makes a new run."""
    out: dict[str, Any] = {
        "game": "ronco",
        "command": command,
        "players": len(policies),
        "rules": rules.summary(),
        "policies": [p.spec() for p in policies],
    }
    users = {p.user.text(): p.user.digest for p in policies if p.user is not None}
    if users or engine == PYTHON:
        out["engine"] = engine
    if users:
        out["user_policies"] = users
    charts = {p.chart.path: p.chart.digest for p in policies if p.chart is not None}
    if charts:
        out["charts"] = charts
    return out


def _no_users(policies: Sequence[Policy], command: str) -> None:
    """Refuse a user's function (S5) or a chart (S6) where only built-in policies are
    evaluated."""
    for p in policies:
        if p.user is not None:
            raise UsageError(f"{command} plays built-in policies only for now; {p.user} is a "
                             "function of yours (rounds plays it)")
        if p.chart is not None:
            raise UsageError(f"{command} plays built-in policies only for now; {p.spec()} is a "
                             "keep chart (rounds plays it)")


def _python_engine(policies: Sequence[Policy], engine: str | None) -> str:
    """The engine of a run that may play on the Python engine (:func:`engine_for`, its notice
    printed): it seats threshold, informed, random and users' functions, not the decision
    tables (``bayes``, a keep chart)."""
    engine, why = engine_for([p.user for p in policies], engine)
    tables = [p.spec() for p in policies if p.declared.needs & {BAYES_TABLE, CHART_TABLE}]
    if engine == PYTHON and tables:
        raise UsageError("the Python engine plays threshold, informed, random and your own "
                         f"functions; {tables[0]} is a decision table (use --engine compiled)")
    notice(why)
    return engine


_POLICY_ARGS = {"players": INT, "policy": POLICY_TEXT, "policies": POLICIES_TEXT.or_none(),
                "threshold": INT.or_none(), "dealer_threshold": INT.or_none(),
                "keep_prob": NUMBER.or_none()}
_ROUND_ARGS = {**_POLICY_ARGS, **ROUND_SWITCHES.args, "thresholds": INTEGERS.or_none()}


@checked(_ROUND_ARGS, rounds=COUNT, engine=TEXT.or_none())
@ROUND_SWITCHES.keywords
@run_keywords()
def rounds(*, players: int = 4, policy: str = "threshold",
           policies: str | Sequence[str] | None = None,
           threshold: int | None = None,
           dealer_threshold: int | None = None, thresholds: str | Sequence[int] | None = None,
           keep_prob: float | None = None, rules: RoncoRules,
           rounds: int | str = ROUNDS.default, engine: str | None = None,
           run: dict[str, Any]) -> Result:
    """Monte Carlo loss rate of every position in one round (``simcards ronco rounds``).

    ``threshold`` and ``dealer_threshold`` default to 5, ``keep_prob`` to 0.5 (random policy
    only); ``thresholds`` gives one threshold per position, the dealer's last. ``rounds`` is at
    most 1e12. ``progress`` shows the command's progress bar and messages on stderr.

    A policy may be a function of yours, ``PATH.py:FUNCTION`` (S5, in ``policy`` for every
    position or as ``policies`` entries). ``engine`` chooses where the rounds are played:
    ``compiled`` (the round kernel; every function must compile with numba) or ``python``
    (the environments' table engine); by default the kernel, unless a function does not
    compile (a line on stderr says so). Both engines play the same deals.
    """
    from simcards.core.montecarlo import monte_carlo
    from simcards.ronco import rounds_batch as ronco_rounds

    policies_list = round_policies(players, policy, threshold, dealer_threshold, thresholds,
                                   keep_prob, rules, policies)
    total = ROUNDS.parse(rounds)
    engine = _python_engine(policies_list, engine)

    def stored(out: dict[str, Any], res: Any) -> pd.DataFrame:
        return pd.DataFrame({"position": range(players), "policy": out["policies"],
                             "lost": res.lost, "double": res.double, "p_lose": out["p_lose"],
                             "ci_low": out["ci_low"], "ci_high": out["ci_high"]})

    return monte_carlo(
        _header("rounds", rules, policies_list, engine),
        {"rounds": total, "chunk_size": ronco_rounds.chunk_plan(engine)[1]},
        lambda **where: ronco_rounds.simulate(rules, policies_list, total, engine=engine,
                                              seed=run["seed"], **where),
        answer=lambda res: res.to_dict(), frame=rounds_frame, stored_frame=stored,
        summary=("p_lose", "p_all_tie", "rounds"), **run)


@checked(_ROUND_ARGS, seed=INT, workers=RUN["workers"], progress=RUN["progress"])
@ROUND_SWITCHES.keywords
def exact(*, players: int = 4, policy: str = "threshold",
          policies: str | Sequence[str] | None = None,
          threshold: int | None = None,
          dealer_threshold: int | None = None, thresholds: str | Sequence[int] | None = None,
          keep_prob: float | None = None, rules: RoncoRules, seed: int = DEFAULT_SEED,
          workers: int | None = None, progress: bool = False) -> Result:
    """Exact loss probability of every position (``simcards ronco exact``): deterministic
    policies only. ``seed`` and ``workers`` are checked and do not change the answer; the
    enumeration runs in pieces, so ``progress`` can show it and Ctrl-C stops it at once."""
    from simcards.ronco import rounds_batch as ronco_rounds

    policies_list = round_policies(players, policy, threshold, dealer_threshold, thresholds,
                                   keep_prob, rules, policies)
    _no_users(policies_list, "exact")
    check_seed(seed)
    check_workers(workers)
    res = ronco_rounds.exact(rules, policies_list, progress=progress)
    out = {
        **_header("exact", rules, policies_list),
        "p_lose": res.p_lose.tolist(),
        "p_double": res.p_double.tolist(),
        "p_all_tie": res.p_all_tie,
        "p_cut": res.p_cut,
        "p_cut_king": res.p_cut_king,
    }
    return Result(out, res, rounds_frame)


def chart_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``chart``, one row per position: how often the policy keeps there (cuts, for the
    dealer: ``p_act``) when the others play the field."""
    return pd.DataFrame(copy.deepcopy(d["positions"]))


@checked({"players": INT, "policy": POLICY_TEXT, "field": TEXT, "out": TEXT,
          "progress": BOOL},
         ROUND_SWITCHES.args)
@ROUND_SWITCHES.keywords
def chart(*, players: int = 4, policy: str = "bayes", field: str = "threshold:5:5",
          out: str = "chart.csv", rules: RoncoRules, progress: bool = False) -> Result:
    """A policy's keep chart (S6, ``simcards ronco chart``): ``out`` (CSV), one row per
    situation of a table of ``players`` and one column per card, and its picture beside it
    (the same name, ``.png``).

    ``policy`` is any deterministic policy, a function of yours included (``PATH.py:FUNCTION``
    or the function itself) or a chart; ``bayes`` replies to ``field`` at the other
    positions. The picture shows each position's most frequent situations when the others
    play ``field`` (a threshold or informed policy), and the answer how often the policy keeps
    at each position then. ``chart:FILE.csv`` plays the chart back, decision for decision.
    """
    from pathlib import Path

    from simcards.core.reports.common import save_figure
    from simcards.ronco import charts

    check_players(players)
    if players > charts.MAX_CHART_PLAYERS:
        raise UsageError(f"--players: a chart is written for at most "
                         f"{charts.MAX_CHART_PLAYERS} players (a position sees 3**position "
                         f"histories), got {players}")
    top = rules.top
    try:
        hero = Policy.from_spec(KINDS.parse(policy, bounds(top)))
    except UsageError as exc:
        raise UsageError(flag_message("--policy", str(exc))) from None
    try:
        others = Policy.from_spec(KINDS.parse(field, bounds(top)))
    except UsageError as exc:
        raise UsageError(flag_message("--field", str(exc))) from None
    if others.kind not in THRESHOLD_KINDS:
        raise UsageError(f"--field must be a threshold or informed policy (the situations' "
                         f"frequencies are computed exactly against it), got {others.spec()}")
    target = Path(out)
    if target.suffix.lower() != ".csv":
        raise UsageError(f"--out must name a .csv file, got {out!r}")
    if not target.parent.is_dir():
        raise UsageError(f"--out: no such directory {str(target.parent)!r}")
    sit, keep = charts.decisions_of(rules, players, hero, others)
    freq = charts.frequencies(rules, players, others, sit)
    target.write_text(charts.to_csv(sit, keep, rules), encoding="utf-8")
    picture = target.with_suffix(".png")
    title = f"Ronco keep chart: {hero.spec()}, {players} players, others {others.spec()}"
    save_figure(charts.draw(sit, keep, freq, rules, title), picture)
    positions = []
    for pos in range(players):
        at = sit.pos == pos
        kept = float(np.sum(freq[at] * keep[at]))
        positions.append({"position": pos, "role": _role(pos, players),
                          "p_keep": round(kept, 12), "situations": int(np.count_nonzero(at))})
    answer = {**_header("chart", rules, [hero] * players), "policy": hero.spec(),
              "field": others.spec(), "chart": str(target), "picture": str(picture),
              "situations": sit.size, "positions": positions}
    return Result(answer, (sit, keep), chart_frame)


def advise_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``advise``, one row per action: ``action``, ``p_lose``, ``lives_lost``, ``difference``
    (and with lives ``p_win``, ``win_difference``)."""
    return pd.DataFrame(copy.deepcopy(d["moves"]))


@checked({"players": INT.or_none(), "seat": INT.or_none(), "card": TEXT.or_none(),
          "before": ACTIONS.or_none(), "dealt": TEXT.or_none(), "field": TEXT.or_none(),
          "lives": INTEGERS.or_none(), "position": PATH.or_none(), "progress": BOOL},
         GAME_SWITCHES.args)
@GAME_SWITCHES.keywords
def advise(*, players: int | None = None, seat: int | None = None, card: str | None = None,
           before: str | Sequence[str] | None = None, dealt: str | None = None,
           field: str | None = None, lives: str | Sequence[int] | None = None,
           position: str | None = None, rules: RoncoRules,
           progress: bool = False) -> Result:
    """The seat's two actions in one concrete position, valued exactly (``simcards ronco
    advise``): keep and pass (the dealer: keep and cut), each with its probability of losing
    the round given the others' policies (S4b, what ``bayes`` weighs) and which is better by
    how much; with ``lives`` (every seat's lives, seat 0's first, the dealer's last) also each
    action's probability of winning the game, from the exact game chain.

    Seats are numbered in the round's order (T2): ``seat`` is the seat's position in the
    round, 0 acts first and ``players - 1`` deals. ``card`` is the card it holds as players
    write it (``4o``, ``12b``: the suit is read and otherwise ignored, C2), ``before`` the
    earlier seats' public actions (``keep``, ``swap``, ``refused``, seat 0's first), ``dealt``
    the card it was dealt when the previous seat swapped with it. ``field`` is the others'
    policy (default ``threshold:5:5``): threshold, informed, ``PATH.py:FUNCTION`` or
    ``chart:FILE.csv``; ``random`` has no exact answer. ``position`` is a JSON or TOML file with
    these fields instead (the flags' names, :func:`~simcards.core.positionfile.position_fields`).
    A position no deal leads to, or none the others' policies lead to, is refused in one line
    naming why. ``absolute_tie`` (G6) matters with ``lives`` only; ``progress`` is accepted as
    every command's and shows nothing (an advice takes a second at most but for the largest
    tables).
    """
    from simcards.core.positionfile import position_fields
    from simcards.ronco import advise_exact as ax
    from simcards.ronco.bayes_exact import MAX_BAYES_PLAYERS
    from simcards.ronco.charts import ACTIONS as ACTION_WORDS
    from simcards.ronco.seat import read_seat

    fields = position_fields(position, {
        "players": players, "seat": seat, "card": card, "before": before, "dealt": dealt,
        "field": field, "lives": lives}, {"players": INT, "seat": INT, "card": TEXT,
                                          "before": ACTIONS, "dealt": TEXT, "field": TEXT,
                                          "lives": INTEGERS})
    players, seat, card = fields["players"], fields["seat"], fields["card"]
    before, dealt = fields["before"], fields["dealt"]
    field, lives = fields["field"], fields["lives"]
    players = 4 if players is None else players
    if seat is None or card is None:
        raise UsageError(f"--{'seat' if seat is None else 'card'} is needed: the seat's "
                         "position in the round (0 acts first) and the card it holds (e.g. 4o)")
    check_players(players)
    at = read_seat(rules, players, seat, card, before, dealt)
    try:
        others = Policy.from_spec(KINDS.parse(field or "threshold:5:5", bounds(rules.top)))
    except UsageError as exc:
        raise UsageError(flag_message("--field", str(exc))) from None
    if not others.deterministic:
        raise UsageError(f"--field {others.spec()}: decides by chance, so no probability here "
                         "is exact; give threshold, informed, PATH.py:FUNCTION or "
                         "chart:FILE.csv")
    if BAYES_TABLE in others.declared.needs:
        raise UsageError("--field bayes: bayes replies to the seat's own policy, which is what "
                         "is asked; give the others' threshold, informed, function or chart")
    lives_list = None
    if lives is not None:
        values = (parse_int_list(lives, "--lives") if isinstance(lives, str)
                  else [int(v) for v in lives])
        lives_list = ax.check_lives(values, players)
        if others.kind not in THRESHOLD_KINDS:
            raise UsageError(f"--lives: the exact game chain plays threshold and informed "
                             f"policies only, and --field is {others.spec()}")
    bayes_path = others.kind in THRESHOLD_KINDS and not rules.poroli and lives_list is None
    limit = MAX_BAYES_PLAYERS if bayes_path else ax.MAX_ENUMERATED_PLAYERS
    if players > limit:
        raise UsageError(f"--players: advice is computed exactly for at most {limit} players "
                         f"{'' if bayes_path else 'with this field, Poroli or --lives '}"
                         f"(the exact computation grows about five-fold per player), got "
                         f"{players}")
    if lives_list is not None:
        ax.check_chain(players, max(lives_list))
    field_policies = [others] * players
    dealer = at.dealer
    names = ("keep", "cut" if dealer else "pass")
    dists = None
    if bayes_path:
        loss_keep, loss_pass, weight = ax.table_losses(rules, at, others)
        p_lose = (loss_keep, loss_pass)
        lives_lost = (loss_keep, loss_pass)
    else:
        decide, reads = ax.field_decider(rules, field_policies)
        dists = []
        weight = 0.0
        for keep in (True, False):
            dist, weight = ax.outcomes(rules, at, keep, decide, reads,
                                       seat_only=lives_list is None)
            dists.append(dist)
        p_lose = tuple(sum(p for (lost, _), p in d.items() if lost[at.position] > 0)
                       for d in dists)
        lives_lost = tuple(ax.seat_loss(d, at.position) for d in dists)
    if weight <= 0:
        raise UsageError(f"{at.text()}: the others' policy {others.spec()} never leads here "
                         "(no deal does when they play it), so it has no probabilities; check "
                         "--before and --dealt, or --field")
    better = 0 if lives_lost[0] <= lives_lost[1] + 1e-12 else 1  # S4b: a tie keeps
    moves = []
    for i, name in enumerate(names):
        moves.append({"action": name, "p_lose": round(p_lose[i], 12),
                      "lives_lost": round(lives_lost[i], 12),
                      "difference": round(lives_lost[i] - lives_lost[better], 12)})
    answer = {**_header("advise", rules, [Policy("bayes") if i == at.position else others
                                          for i in range(players)]),
              "seat": at.position, "role": _role(at.position, players),
              "card": at.card_text, "before": [ACTION_WORDS[d] for d in at.before],
              "dealt": at.dealt_text, "field": others.spec(), "situation": at.text(),
              "p_situation": round(weight, 12), "best": names[better],
              "by": round(abs(lives_lost[0] - lives_lost[1]), 12), "moves": moves}
    if lives_list is not None:
        assert dists is not None
        wins = [ax.win_probability(rules, others, at, d, lives_list) for d in dists]
        best_game = 0 if wins[0] >= wins[1] - 1e-12 else 1
        for i, move in enumerate(moves):
            move["p_win"] = round(wins[i], 12)
            move["win_difference"] = round(wins[i] - wins[best_game], 12)
        answer.update({"lives": lives_list, "best_game": names[best_game],
                       "by_game": round(abs(wins[0] - wins[1]), 12),
                       "game_differs": best_game != better})
    return Result(answer, None, advise_frame)


def _entries(spec: str) -> list[tuple[str, int]]:
    """``--policies`` entries as (kind, number of parameters written)."""
    out = []
    for item in spec.split(","):
        if is_user_spec(item):
            out.append((USER_KIND, 0))
        elif item.strip():
            kind, *values = item.strip().split(":")
            out.append((kind.strip().lower(), len(values)))
    return out


def game_policies(players: int, policies: str | None = None, policy: str | None = None,
                  threshold: int | None = None, dealer_threshold: int | None = None,
                  keep_prob: float | None = None, rules: RoncoRules | None = None,
                  ) -> list[Policy]:
    """One policy per player from the ``games`` flags (None: not given)."""
    from simcards.ronco import games_batch as ronco_games

    check_players(players)
    keep_prob = check_finite(keep_prob, "--keep-prob")
    if policies is None and policy is not None and is_user_spec(policy):  # S5, every player
        _refuse_with(f"--policy {policy.strip()}",
                     _given(threshold=threshold, dealer_threshold=dealer_threshold,
                            keep_prob=keep_prob), "the function decides every player's moves")
        return [Policy(USER_KIND, user=load_user(policy, "--policy"))] * players
    if policies is None:
        kind = policy or "threshold"
        _policy_flags(kind, threshold, dealer_threshold, keep_prob)
        default = Policy(kind, DEFAULT_T if threshold is None else threshold,
                         DEFAULT_TD if dealer_threshold is None else dealer_threshold,
                         DEFAULT_P if keep_prob is None else keep_prob)
        result = [default] * players
    else:
        if policy is not None:
            raise UsageError("--policy cannot be used with --policies: --policies gives every "
                             "player's policy")
        default = Policy("threshold", DEFAULT_T if threshold is None else threshold,
                         DEFAULT_TD if dealer_threshold is None else dealer_threshold,
                         DEFAULT_P if keep_prob is None else keep_prob)
        result = ronco_games.player_policies(players, policies, default)
        entries = _entries(policies)
        # a flag is read by an entry whose kind declares its parameter and leaves it out
        params = {"--threshold": "T", "--dealer-threshold": "Td", "--keep-prob": "p"}
        reads = {flag: any(n <= i for k, n in entries
                           for i, p in enumerate(KINDS.kind(k).params) if p.name == name)
                 for flag, name in params.items()}
        for flag in _given(threshold=threshold, dealer_threshold=dealer_threshold,
                           keep_prob=keep_prob):
            if not reads[flag]:
                raise UsageError(f"{flag} cannot be used with --policies {policies.strip()!r}: "
                                 "every entry sets that value itself")
    for pol in result:
        try:
            pol.validate((rules or RoncoRules()).top)
        except UsageError as exc:
            raise UsageError(flag_message("--policy" if policies is None else "--policies",
                                          str(exc))) from None
    return result


@checked(_POLICY_ARGS, GAME_SWITCHES.args, RUN, policy=TEXT.or_none(), lives=INT,
         first_dealer=INT.or_none(), games=COUNT.or_none(), exact=BOOL, engine=TEXT.or_none())
@GAME_SWITCHES.keywords
def games(*, players: int = 4, lives: int = 7, policies: str | Sequence[str] | None = None,
          policy: str | None = None, threshold: int | None = None,
          dealer_threshold: int | None = None, keep_prob: float | None = None,
          rules: RoncoRules, first_dealer: int | None = None,
          games: int | str | None = None, exact: bool = False, seed: int = DEFAULT_SEED,
          workers: int | None = None, scheduler: str | None = None, store: str | None = None,
          progress: bool = False, engine: str | None = None) -> Result:
    """Whole games (``simcards ronco games``): win rate by player, draws, game length and
    elimination order.

    ``policies`` is the ``--policies`` text (one entry per player, or one for all); otherwise
    ``policy`` (default ``"threshold"``) with ``threshold``/``dealer_threshold`` (5) or
    ``keep_prob`` (0.5). ``games`` defaults to 100k, at most 1e10. ``exact=True`` solves small
    tables exactly; ``games``, ``store`` and ``scheduler`` then do not apply and are refused.

    A player may play a function of yours, ``PATH.py:FUNCTION`` or the function itself (S5):
    it reads the seat's ``ronco_game_v0`` observation (``observation_kernel``'s readers read
    it, the lives included) and is asked at every decision. ``engine`` chooses where the games
    are played: ``compiled`` (the game kernel; every function must compile with numba) or
    ``python`` (the environments' table engine, ``GameState``; it seats threshold, informed,
    random and your functions); by default the kernel, unless a function does not compile (a
    line on stderr says so). Both engines play the same games. ``--exact`` takes built-in
    policies only. A keep chart (S6) plays, each round, the rows of that round's
    table size, so it must hold every size from ``players`` down to 2.
    """
    from simcards.ronco import games_batch as ronco_games

    table = game_policies(players, policies, policy, threshold, dealer_threshold, keep_prob,
                          rules)
    ronco_games.check_lives(lives)
    ronco_games.check_first_dealer(first_dealer, players)
    if exact:
        _no_users(table, "games --exact")
        _refuse_with("--exact", _given(engine=engine), "the exact solver simulates nothing")
    users = [p.user for p in table]
    engine = _python_engine(table, engine) if any(users) or engine is not None else None
    header = {**_header("games", rules, table, engine), "lives": lives,
              "first_dealer": first_dealer}
    if exact:
        _refuse_with("--exact", _given(games=games, store=store, scheduler=scheduler),
                     "the exact solver simulates nothing")
        from simcards.ronco.games_exact import exact_game

        check_seed(seed)
        check_workers(workers)
        solved = exact_game(rules, table, lives, first_dealer)
        return Result({**header, "exact": True, **solved.to_dict()}, solved, games_frame)
    total = GAMES.parse(games)
    from simcards.core.montecarlo import monte_carlo

    return monte_carlo(
        header, {"games": total, "chunk_size": ronco_games.GAMES_CHUNK},
        lambda **run: ronco_games.simulate(rules, table, lives, total,
                                           first_dealer=first_dealer, engine=engine or COMPILED,
                                           seed=seed, **run),
        answer=lambda res: res.to_dict(), frame=games_frame, shown_header={**header,
                                                                          "exact": False},
        summary=("win_rate", "draw_rate", "rounds_mean", "games"), seed=seed,
        workers=workers, scheduler=scheduler, store=store, progress=progress)


@checked(GAME_SWITCHES.args, RUN, players=SIZES, lives=INT, policy=TEXT, field=POLICY_TEXT,
         first_stage=COUNT.or_none(), max_games=COUNT, min_games=COUNT.or_none(),
         z_drop=NUMBER, max_iterations=INT, gain_games=COUNT, mixed=BOOL, engine=TEXT.or_none())
@GAME_SWITCHES.keywords
def best_threshold(*, players: int | str | Sequence[int] = "3-10", lives: int = 7,
                   policy: str = "threshold", field: str = "5:5", rules: RoncoRules,
                   first_stage: int | str | None = None,
                   max_games: int | str = "512k", min_games: int | str | None = None,
                   z_drop: float = 3.0, max_iterations: int = 3,
                   gain_games: int | str = "256k", seed: int = DEFAULT_SEED,
                   workers: int | None = None, scheduler: str | None = None,
                   store: str | None = None, progress: bool = False,
                   mixed: bool = False, engine: str | None = None) -> Result:
    """The best (T, Td) against a field, and the symmetric equilibrium, for each table size
    (``simcards ronco best-threshold``). With ``mixed`` (``--mixed``), each row whose best
    responses did not settle also gets ``equilibrium_mixed``: the mixed symmetric equilibrium
    searched next to them, exactly as :func:`equilibrium` with that ``start`` finds it.

    ``players`` is a size, a list of sizes, or the command's text (``"3-10"``, ``"4,6,8"``).
    ``first_stage`` defaults to 8192 and ``min_games`` to 64k, each lowered to ``max_games``
    when that is smaller; given explicitly, they must not exceed it. Budgets are at most 1e9
    games per candidate; ``gain_games=0`` skips the informed-gain comparison.

    ``field`` is the field's thresholds ``"T:Td"`` in the searched family, a threshold or
    informed policy (``"informed:7:4"``), a function of yours (``PATH.py:FUNCTION`` or the
    function itself, S5) or a keep chart (``chart:FILE.csv``, S6), played as ``games`` plays
    them. A function or a chart is no T:Td pair: the row's ``field`` is its text, its
    ``best_response_path`` starts with the best response to it, and the gains compare no
    ``bayes`` (whose exact reply needs a threshold or informed field). ``engine`` chooses where
    the races against a function play, as in ``games``: ``compiled`` (the race kernel) or
    ``python`` (the environments' table engine); by default the kernel, unless the function
    does not compile (a line on stderr says so). Both engines play the same games. The races
    against a built-in field (the equilibrium's iterations) play on the kernel.
    """
    from simcards.core.montecarlo import search_command
    from simcards.ronco import best_threshold_batch as bt
    from simcards.ronco import games_batch as ronco_games

    if isinstance(players, str):
        sizes = parse_range(players, "--players")
    elif isinstance(players, int):
        sizes = [players]
    else:
        sizes = parse_range(",".join(str(int(p)) for p in players), "--players")
    for n in sizes:
        check_players(n)
    if policy not in THRESHOLD_KINDS:
        raise UsageError(f"unknown policy {policy!r} for best-threshold (threshold|informed)")
    ronco_games.check_lives(lives)
    field_policy = _race_field(field, policy, rules, sizes)
    engine = _race_engine(field_policy, engine)
    z_drop = check_finite(z_drop, "--z-drop")
    if z_drop <= 0:
        raise UsageError(f"--z-drop must be positive, got {z_drop}")
    if max_iterations < 0:
        raise UsageError(f"--max-iterations must be at least 0, got {max_iterations}")
    budget = parse_count(max_games, "--max-games", MAX_RACE_GAMES)
    first = _bounded(first_stage, DEFAULT_FIRST_STAGE, budget, "--first-stage")
    floor = _bounded(min_games, DEFAULT_MIN_GAMES, budget, "--min-games")
    gain = 0 if str(gain_games).strip() == "0" else parse_count(gain_games, "--gain-games",
                                                                MAX_RACE_GAMES)
    opts = {"seed": seed, "first_stage": first, "max_games": budget, "z_drop": z_drop,
            "max_iterations": max_iterations, "gain_games": gain, "min_games": floor}
    manifest = {"game": "ronco", "command": "best-threshold", "rules": rules.summary(),
                "players": sizes, "lives": lives, "policy": policy,
                "field": field_policy.spec(), **_field_header(field_policy, engine), **opts}

    def stored(out: dict[str, Any]) -> pd.DataFrame:
        return pd.DataFrame([{k: (str(v) if isinstance(v, list) else v)
                              for k, v in r.items()} for r in out["rows"]])

    result = search_command(
        manifest, lambda **run: bt.search(rules, sizes, lives, policy, field_policy, opts,
                                          engine=engine, **run),
        answer=lambda rows: {"seed": seed, "rows": [bt.row_dict(r) for r in rows]},
        frame=best_threshold_frame, stored_frame=stored,
        summary=lambda out: {"rows": len(out["rows"])}, seed=seed, workers=workers,
        scheduler=scheduler, store=store, progress=progress)
    if not mixed:
        return result
    out = result.to_dict()
    for row in out["rows"]:
        if not row["equilibrium_converged"]:
            row["equilibrium_mixed"] = _mixed_next_to(
                row, policy=policy, lives=lives, **rules.summary(), seed=seed, workers=workers,
                scheduler=scheduler, store=store, progress=progress)
    return Result(out, result.raw, result.frame)


def _race_field(field: str, family: str, rules: RoncoRules, sizes: Sequence[int]) -> Policy:
    """``--field`` of ``best-threshold``, checked before any game: ``T:Td`` (the searched
    ``family``'s), a threshold or informed policy, a function of the user's (S5) or a keep
    chart with rows for every table size a game of ``sizes`` meets (S6)."""
    text = field.strip()
    if not is_user_spec(text) and text.split(":", 1)[0].strip().lower() not in KINDS.names:
        ft = parse_int_list(text.replace(":", ","), "--field")
        if len(ft) != 2:
            raise UsageError(f"--field must be T:Td, got {field!r}")
        return Policy(family, ft[0], ft[1]).validate(rules.top)
    try:
        pol = Policy.from_spec(KINDS.parse(text, bounds(rules.top)))
        if pol.kind not in (*THRESHOLD_KINDS, USER_KIND) and pol.chart is None:
            raise UsageError(f"{pol.spec()} cannot be the field here: give T:Td, threshold:T:Td, "
                             "informed:T:Td, PATH.py:FUNCTION or chart:FILE.csv")
        if pol.chart is not None:
            from simcards.ronco.bayes_exact import policy_table

            for n in sizes:  # every size from the largest down to 2 (players go out, G3)
                policy_table(rules, [pol] * n, game=True)
    except UsageError as exc:
        raise UsageError(flag_message("--field", str(exc))) from None
    return pol


def _race_engine(field: Policy, engine: str | None) -> str:
    """Where ``best-threshold`` races against ``field``: a function of the user's (S5) as
    :func:`_python_engine` chooses (its notice printed); a built-in field or a chart on the
    kernel, where ``--engine python`` is refused."""
    if field.user is not None:
        return _python_engine([field], engine)
    engine, _ = engine_for([], engine)
    if engine == PYTHON:
        raise UsageError(f"--engine python races against a --field function of yours "
                         f"(PATH.py:FUNCTION); {field.spec()} races on the compiled engine")
    return COMPILED


def _field_header(field: Policy, engine: str = COMPILED) -> dict[str, Any]:
    """What ``best-threshold``'s answer (and run key) adds for a field of the user's: the
    engine and the function's digest (S5), or the chart's (S6), as ``games`` shows them;
    nothing for a built-in field."""
    if field.user is not None:
        return {"engine": engine, "user_policies": {field.user.text(): field.user.digest}}
    if field.chart is not None:
        return {"charts": {field.chart.path: field.chart.digest}}
    return {}


def _mixed_next_to(row: dict[str, Any], *, policy: str, lives: int, progress: bool,
                   **options: Any) -> dict[str, Any]:
    """``mixed``: the mixed symmetric equilibrium of one table size whose best responses did
    not settle, searched next to their cycle (or last steps) exactly as ``equilibrium`` with
    ``start`` searches it, so that both commands give the same row."""
    from simcards.ronco.equilibrium_batch import start_from_race

    start = ",".join(f"{p.T}:{p.Td}" for p in start_from_race(policy, row))
    out = equilibrium(players=row["players"], family=policy, lives=lives, start=start,
                      progress=progress, **options).to_dict()
    (found,) = out["rows"]
    return {**found, "start": start}


def _bounded(value: int | str | None, default: int, budget: int, what: str) -> int:
    """A per-candidate game count that may not exceed ``--max-games``: the default is lowered
    to it, an explicit value above it is refused."""
    if value is None:
        return min(default, budget)
    n = parse_count(value, what, MAX_RACE_GAMES)
    if n > budget:
        raise UsageError(f"{what} ({n:,}) cannot be larger than --max-games ({budget:,})")
    return n


def equilibrium_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``equilibrium --exact`` (the two-player equilibrium of one round), one row per
    (position, strategy) of the printed equilibrium's supports."""
    rows = []
    for pos, mix in enumerate(d["mix"]):
        for m in mix:
            rows.append({"position": pos, "role": _role(pos, 2),
                         "parameter": "T" if pos == 0 else "Td",
                         "strategy": m["T" if pos == 0 else "Td"],
                         "probability": m["probability"], "decimal": m["decimal"],
                         "value": d["value"][pos]["fraction"]})
    return pd.DataFrame(rows)


def behaviour_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``equilibrium --exact --family all`` (every behavioural strategy, rule E7), one row per
    information set: position 0's by card, then the dealer's (after ``kept``, ``swap``: the
    card he gave, or ``refused``), with the optimal keep probability (the dealer: keep rather
    than cut)."""
    rows = [{"position": 0, "role": _role(0, 2), "after": None, "card": m["card"],
             "gave": None, "keep": m["keep"], "decimal": m["decimal"]} for m in d["position0"]]
    rows += [{"position": 1, "role": _role(1, 2), "after": m["after"], "card": m["card"],
              "gave": m.get("gave"), "keep": m["keep"], "decimal": m["decimal"]}
             for m in d["dealer"]]
    return pd.DataFrame(rows)


def mixed_equilibrium_frame(d: dict[str, Any]) -> pd.DataFrame:
    """``equilibrium`` for 3 or more players (the certified mixed symmetric equilibrium of
    whole games, rules E5, E6), one row per (table size, support strategy)."""
    rows = []
    for r in d["rows"]:
        for m in r["support"]:
            rows.append({"players": r["players"], "family": r["family"], "T": m["T"],
                         "Td": m["Td"], "probability": m["probability"],
                         "win_rate": r["win_rate"],
                         "exploitability": r["exploitability"],
                         "exploitability_high": r["exploitability_ci"][1],
                         "certified": r["certified"]})
    return pd.DataFrame(rows)


def _start_policies(start: str | None, family: str, top: int) -> list[Policy]:
    """``--start T:Td,T:Td``: the mixture the search begins from (evenly weighted)."""
    if start is None:
        return []
    if is_user_spec(start) or start.strip().lower().startswith("chart:"):
        raise UsageError(f"--start takes T:Td pairs of the family; {start.strip()} is no point "
                         "of its grid (best-threshold --field races the grid against it)")
    out = []
    for item in start.split(","):
        parts = parse_int_list(item.strip().replace(":", ","), "--start")
        if len(parts) != 2:
            raise UsageError(f"--start takes T:Td pairs separated by commas, got {start!r}")
        policy = Policy(family, parts[0], parts[1]).validate(top)
        if policy in out:
            raise UsageError(f"--start names {parts[0]}:{parts[1]} twice: each pair once")
        out.append(policy)
    if len(out) > 4:
        raise UsageError(f"--start takes at most 4 pairs, got {len(out)}")
    return out


@checked(GAME_SWITCHES.args, RUN, players=SIZES, exact=BOOL, family=TEXT,
         payoff=TEXT.or_none(), lives=INT.or_none(), start=TEXT.or_none(), openspiel=BOOL)
@GAME_SWITCHES.keywords
def equilibrium(*, players: int | str | Sequence[int] = 2, exact: bool = False,
                family: str = "threshold",
                payoff: str | None = None, lives: int | None = None, start: str | None = None,
                rules: RoncoRules, seed: int = DEFAULT_SEED,
                workers: int | None = None, scheduler: str | None = None,
                store: str | None = None, progress: bool = False, openspiel: bool = False,
                ) -> Result:
    """Symmetric equilibria (``simcards ronco equilibrium``).

    ``players=2, exact=True``: the exact equilibrium of a two-player round (rules E1-E4): each
    position's mixed strategy over the ``family``'s thresholds and its exact loss (``payoff``:
    ``lose``, the default, or ``lives``); ``seed`` and ``workers`` are checked and change
    nothing. ``family="all"`` (rule E7, two players and ``exact`` only; constant-sum rules,
    ``ties="first"`` with payoff ``lose``): the exact value over every behavioural strategy,
    both sides' optimal keep probabilities per information set, the exact certificate and
    whether the threshold and informed families reach the value
    (:mod:`simcards.ronco.behaviour_exact`); ``openspiel=True`` solves it a second time with
    OpenSpiel's sequence-form linear program on the registered game ``simcards_ronco_duel``
    (:mod:`simcards.ronco.behaviour_openspiel`, about fifteen seconds; needs the ``rl`` extra,
    ``pip install -e '.[rl]'`` from the clone).

    ``players`` 3 or more (a size or the command's text, ``"3-10"``): the mixed symmetric
    equilibrium of whole games with ``lives`` lives (default 7) over the family's (T, Td)
    grid, found by the search of :mod:`simcards.ronco.equilibrium_batch` from ``start``
    (``"5:5,5:4"``; default: a screen against 5:5) and certified by its exploitability bound
    (rules E5, E6).
    """
    from simcards.ronco import behaviour_exact as beh
    from simcards.ronco import equilibrium_exact as eqm
    from simcards.ronco import games_batch as ronco_games

    sizes = [players] if isinstance(players, int) else parse_range(str(players), "--players")
    for n in sizes:
        check_players(n)
    beh.check_family(family)
    if openspiel and family != beh.FAMILY:
        raise UsageError("--openspiel cross-checks --family all only (rule E7)")
    if openspiel:
        from simcards.ronco import behaviour_openspiel

        behaviour_openspiel.require()  # refused before the solve when OpenSpiel is missing
    if family == beh.FAMILY and (not exact or sizes != [2]):
        raise UsageError("--family all solves one two-player round exactly (--players 2 "
                         "--exact, rule E7); the mixed search takes --family threshold|informed")
    if exact:
        if sizes != [2]:
            raise UsageError("--exact solves two players only (--players 2 --exact); the mixed "
                             "equilibrium for 3-10 players is the search without --exact")
        _refuse_with("--exact", _given(lives=lives, start=start,
                                       store=store, scheduler=scheduler),
                     "the two-player solution is one round, solved exactly")
        if rules.absolute_tie != "void":
            raise UsageError("--absolute-tie cannot be used with --exact: the two-player "
                             "solution is one round")
        payoff = payoff or "lose"
        eqm.check_payoff(payoff)
        check_seed(seed)
        check_workers(workers)
        if family == beh.FAMILY:
            every = beh.solve(rules, payoff)
            out = {"game": "ronco", "command": "equilibrium", "players": 2,
                   "rules": rules.summary(), **every.to_dict()}
            if openspiel:
                from simcards.ronco import behaviour_openspiel

                out["openspiel"] = behaviour_openspiel.solve(rules, every.value)
            return Result(out, every, behaviour_frame)
        sol = eqm.solve(rules, family, payoff)
        out = {"game": "ronco", "command": "equilibrium", "players": 2,
               "rules": rules.summary(), **sol.to_dict()}
        return Result(out, sol, equilibrium_frame)
    if 2 in sizes:
        raise UsageError("the two-player solution is --exact (--players 2 --exact); the mixed "
                         "search takes 3 or more players")
    if payoff is not None:
        raise UsageError("--payoff applies to the two-player --exact solution only; the mixed "
                         "equilibrium's payoff is the probability of winning the game (E5)")
    lives = 7 if lives is None else lives
    ronco_games.check_lives(lives)
    starts = _start_policies(start, family, rules.top)
    from simcards.core.montecarlo import search_command
    from simcards.ronco import equilibrium_batch

    manifest = {"game": "ronco", "command": "equilibrium", "rules": rules.summary(),
                "players": sizes, "lives": lives, "family": family,
                "start": [[p.T, p.Td] for p in starts], "seed": seed}
    return search_command(
        manifest, lambda **run: equilibrium_batch.search(
            rules, [(n, family, starts) for n in sizes], lives, seed=seed, near=bool(starts),
            **run),
        answer=lambda rows: {"target": equilibrium_batch.TARGET,
                             "rows": [r.to_dict() for r in rows]},
        frame=mixed_equilibrium_frame, summary=lambda out: {"rows": len(out["rows"])},
        seed=seed, workers=workers, scheduler=scheduler, store=store, progress=progress)
