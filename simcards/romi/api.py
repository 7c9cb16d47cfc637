"""Römi's Python API: ``simcards romi rounds``, ``games`` and ``compare`` as functions.

::

    import simcards.romi.api as romi

    romi.rounds(players=4, policies="greedy,rummy:4,threshold:70,greedy", rounds="20k")
    romi.compare("rummy:4", "greedy", players=4, deals="2k")["score_diff"]

Keyword arguments are named after the commands' flags, with the same defaults, checks and seed;
the answer is the command's JSON object as a dict. Bad arguments raise
:class:`~simcards.core.errors.UsageError` naming the flag before anything is computed. Runs are
kept in the run store and may run on a dask cluster (``store``, ``scheduler``) as the commands'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from simcards.core.cli_options import DEFAULT_SEED, check_seed, parse_count, rule_integer
from simcards.core.errors import UsageError
from simcards.core.policyspec import PolicySpec
from simcards.core.runner import check_workers, run_batch
from simcards.core.spawnsafe import main_not_reimported
from simcards.romi import compare_batch as RC
from simcards.romi import rounds_batch as R
from simcards.romi.policies import KINDS, policy_arrays
from simcards.romi.records import rules_array
from simcards.romi.rules import RomiRules

MAX_ROUNDS = 10**9
"""The most rounds one ``rounds`` run may simulate."""
MAX_GAMES = 10**8
"""The most games one ``games`` run may simulate."""
MAX_DEALS = 10**8
"""The most deal sets one ``compare`` run may play (each is one game per seat rotation)."""


def seat_policies(rules: RomiRules, policies: str | Sequence[str | PolicySpec] | None
                  ) -> list[PolicySpec]:
    """Q6: one policy per seat from ``--policies`` (one entry for every seat, or one per seat
    in seat order; default ``greedy``), each checked against the rules (Q4's X >= open_min)."""
    bound = {"open_min": rules.open_min}
    if policies is None:
        return [KINDS.parse("greedy", bound)] * rules.players
    items = [s.strip() for s in policies.split(",")] \
        if isinstance(policies, str) else list(policies)
    if not items or items == [""]:
        raise UsageError("--policies is empty")
    if any(isinstance(s, str) and not s.strip() for s in items):
        raise UsageError(f"--policies {policies!r} has an empty entry (two commas in a row, or "
                         "one at an end)")
    try:
        specs = [KINDS.check(s, bound) if isinstance(s, PolicySpec) else KINDS.parse(str(s), bound)
                 for s in items]
    except UsageError as exc:
        raise UsageError(f"--policies: {exc}") from None
    if len(specs) == 1:
        return specs * rules.players
    if len(specs) != rules.players:
        raise UsageError(f"--policies needs 1 or {rules.players} entries (one per player), got "
                         f"{len(specs)}")
    return specs


def _config(rules: RomiRules, specs: Sequence[PolicySpec], dealer: int | None) -> R.RoundConfig:
    kinds, params = policy_arrays(specs, rules)
    return R.RoundConfig(rules_array(rules), kinds, params, rules.players, rules.rounds,
                         -1 if dealer is None else dealer)


def _dealer(dealer: int | None, players: int) -> int | None:
    if dealer is None:
        return None
    d = rule_integer("--dealer", dealer)
    if not 0 <= d < players:
        raise UsageError(f"--dealer must be a seat 0..{players - 1}, got {d}")
    return d


def _frame(out: dict[str, Any]) -> pd.DataFrame:
    keys = [k for k, v in out.items() if isinstance(v, list) and len(v) == out["players"]
            and not isinstance(v[0], list)]
    frame = pd.DataFrame({"player": range(out["players"]), "policy": out["policies"]})
    for k in keys:
        if k != "policies":
            frame[k] = out[k]
    return frame


def _run(command: str, players: int, policies, open_min, ace_low_value, rounds_per_game,
         count: int | str, dealer, seed: int, workers, scheduler, store, progress,
         swap_keeps_romi: bool = False) -> dict[str, Any]:
    from simcards.core.montecarlo import batch_run

    rules = RomiRules.make(players=players, rounds=rounds_per_game, open_min=open_min,
                           ace_low_value=ace_low_value, swap_keeps_romi=swap_keeps_romi)
    specs = seat_policies(rules, policies)
    dealer = _dealer(dealer, rules.players) if command == "rounds" else None
    total = parse_count(count, f"--{command}", MAX_ROUNDS if command == "rounds" else MAX_GAMES)
    check_seed(seed)
    cap, workers = workers, check_workers(workers)
    summary = {"players": rules.players, "open_min": rules.open_min,
               "ace_low_value": rules.ace_low_value, "swap_keeps_romi": rules.swap_keeps_romi}
    if command == "games":
        summary["rounds"] = rules.rounds
    header: dict[str, Any] = {"game": "romi", "command": command, "players": rules.players,
                              "rules": summary, "policies": [s.text() for s in specs]}
    if command == "rounds":
        header["dealer"] = dealer
    chunk = R.ROUNDS_CHUNK if command == "rounds" else R.GAMES_CHUNK
    fn = R.rounds_chunk if command == "rounds" else R.games_chunk
    stream = R.STREAM_ROUNDS if command == "rounds" else R.STREAM_GAMES
    manifest = {**header, "seed": seed, command: total, "chunk_size": chunk}
    cfg = _config(rules, specs, dealer)
    label = f"Römi {command}"
    with main_not_reimported(), batch_run(scheduler, cap, store, manifest, not progress) as run:
        stats = run_batch(fn, cfg, seed=seed, total=total, chunk_size=chunk, stream=stream,
                          workers=workers, progress=progress, label=label, **run.options())
    out = {**header, "seed": seed, command: total}
    if command == "games":
        out.update(R.summarise_games(stats))
    out.update(R.summarise_rounds(stats))
    out["rounds_played"] = int(stats["rounds"][0])
    out.update(run.cluster_json())
    if run.store is not None:
        run.store.finish(_frame(out), {k: out[k] for k in ("score_mean", command)})
    return out


def rounds(*, players: int = 4, policies: str | Sequence[str] | None = None,
           open_min: int | str = 51, ace_low_value: int | str = 1, rounds: int | str = "10k",
           dealer: int | None = None, seed: int = DEFAULT_SEED, workers: int | None = None,
           scheduler: str | None = None, store: str | None = None,
           progress: bool = False, swap_keeps_romi: bool = False) -> dict[str, Any]:
    """Monte Carlo single rounds (``simcards romi rounds``): score by player, going out, Römi
    (-20) finishes, never opened, round length and stalls. ``dealer`` fixes the dealer
    (default: drawn for every round, D3). ``swap_keeps_romi`` reads G3 the other way
    (:class:`~simcards.romi.rules.RomiRules`)."""
    return _run("rounds", players, policies, open_min, ace_low_value, 7, rounds, dealer, seed,
                workers, scheduler, store, progress, swap_keeps_romi)


def games(*, players: int = 4, policies: str | Sequence[str] | None = None,
          open_min: int | str = 51, ace_low_value: int | str = 1, rounds: int | str = 7,
          games: int | str = "2k", seed: int = DEFAULT_SEED, workers: int | None = None,
          scheduler: str | None = None, store: str | None = None,
          progress: bool = False, swap_keeps_romi: bool = False) -> dict[str, Any]:
    """Monte Carlo games of ``rounds`` rounds (``simcards romi games``, D5, G6): game score and
    win rate by player (shared wins split), and every per-round figure of :func:`rounds`."""
    return _run("games", players, policies, open_min, ace_low_value, rounds, games, None, seed,
                workers, scheduler, store, progress, swap_keeps_romi)


def compare_policy(spec: str | PolicySpec, flag: str, rules: RomiRules) -> PolicySpec:
    """One policy for ``compare`` (Q2-Q5), checked against the rules (Q4's X >= open_min); a
    list of seats is refused: A and B each take every seat the rotation gives them."""
    if isinstance(spec, str) and "," in spec:
        raise UsageError(f"{flag} must be one policy (it takes every seat the rotation gives "
                         f"it), got {spec.strip()!r}")
    bound = {"open_min": rules.open_min}
    try:
        return KINDS.check(spec, bound) if isinstance(spec, PolicySpec) \
            else KINDS.parse(str(spec), bound)
    except UsageError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def compare(a: str | PolicySpec, b: str | PolicySpec, *, players: int = 4,
            open_min: int | str = 51, ace_low_value: int | str = 1, rounds: int | str = 7,
            deals: int | str = "1k", dealer: int | None = None, seed: int = DEFAULT_SEED,
            workers: int | None = None, scheduler: str | None = None, store: str | None = None,
            progress: bool = False, swap_keeps_romi: bool = False) -> dict[str, Any]:
    """Policy A against policy B on the same deals with the seats rotated (``simcards romi
    compare A B``, :mod:`simcards.romi.compare_batch`): every deal set is one game of ``rounds``
    rounds played on the same decks and dealers once with A in each seat and B in all the
    others. ``score_diff`` (A minus B, points per round; negative: A concedes fewer points, A
    is better) and ``win_rate_diff`` are paired over deal sets. ``dealer`` fixes the first
    dealer of every set (default: drawn for each set)."""
    from simcards.core.montecarlo import batch_run

    rules = RomiRules.make(players=players, rounds=rounds, open_min=open_min,
                           ace_low_value=ace_low_value, swap_keeps_romi=swap_keeps_romi)
    spec_a = compare_policy(a, "policy A", rules)
    spec_b = compare_policy(b, "policy B", rules)
    dealer = _dealer(dealer, rules.players)
    total = parse_count(deals, "--deals", MAX_DEALS)
    check_seed(seed)
    cap, workers = workers, check_workers(workers)
    header: dict[str, Any] = {
        "game": "romi", "command": "compare", "players": rules.players,
        "rules": {"players": rules.players, "open_min": rules.open_min,
                  "ace_low_value": rules.ace_low_value, "rounds": rules.rounds,
                  "swap_keeps_romi": rules.swap_keeps_romi},
        "a": spec_a.text(), "b": spec_b.text(), "dealer": dealer}
    size = RC.chunk_size(rules.players, rules.rounds)
    manifest = {**header, "seed": seed, "deals": total, "chunk_size": size}
    cfg = config_for(rules, spec_a, spec_b, dealer)
    with main_not_reimported(), batch_run(scheduler, cap, store, manifest, not progress) as run:
        stats = run_batch(RC.compare_chunk, cfg, seed=seed, total=total, chunk_size=size,
                          stream=RC.STREAM, workers=workers, progress=progress,
                          label="Römi deal sets", **run.options())
    out = {**header, "seed": seed, "deal_sets": total,
           **RC.summarise(stats, rules.players, rules.rounds), **run.cluster_json()}
    if run.store is not None:
        run.store.finish(compare_frame(out), {k: out[k] for k in (
            "score_diff", "win_rate_diff", "deal_sets")})
    return out


def config_for(rules: RomiRules, a: PolicySpec, b: PolicySpec, dealer: int | None
               ) -> RC.CompareConfig:
    """The compare chunks' configuration for A and B under ``rules`` (also used by the report
    studies, so that their batches are the command's)."""
    kinds, params = policy_arrays([a, b] + [b] * (rules.players - 2), rules)
    return RC.build_config(rules_array(rules), int(kinds[0]), int(params[0]), int(kinds[1]),
                          int(params[1]), rules.players, rules.rounds, dealer)


def compare_frame(out: dict[str, Any]) -> pd.DataFrame:
    """One row per policy: its mean score per round and game win rate with their intervals;
    the paired differences (A minus B) in the first row, their opposites in the second."""
    rows = []
    for side, sign in (("a", 1), ("b", -1)):
        score, win = out["score_mean"][side], out["win_rate"][side]
        rows.append({"policy": out[side], "score_mean": score["mean"],
                     "score_ci_low": score["ci"][0], "score_ci_high": score["ci"][1],
                     "win_rate": win["mean"], "win_ci_low": win["ci"][0],
                     "win_ci_high": win["ci"][1],
                     "score_diff": sign * out["score_diff"]["mean"],
                     "win_rate_diff": sign * out["win_rate_diff"]["mean"]})
    return pd.DataFrame(rows)
