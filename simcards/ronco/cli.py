"""``simcards ronco ...`` commands: rounds, exact, games, best-threshold."""

from __future__ import annotations

import time
from typing import Annotated

import pandas as pd
import typer
from rich.console import Console
from rich.table import Table

from simcards.core.cli_options import (
    DEFAULT_SEED,
    JsonOpt,
    SchedulerOpt,
    SeedOpt,
    StoreOpt,
    WorkersOpt,
    emit_json,
    parse_count,
    parse_int_list,
)
from simcards.core.errors import UsageError
from simcards.core.montecarlo import batch_run, cluster_info, executor_for
from simcards.core.runner import check_workers
from simcards.ronco import games as ronco_games
from simcards.ronco import rounds as ronco_rounds
from simcards.ronco.games_exact import exact_game
from simcards.ronco.policies import KINDS, Policy
from simcards.ronco.rules import RoncoRules, check_players

app = typer.Typer(help="Ronco and its Poroli variant.", no_args_is_help=True)

PlayersOpt = Annotated[int, typer.Option("--players", help="Players at the table (2-20).")]
PolicyOpt = Annotated[str, typer.Option("--policy", help="threshold | informed | random.")]
ThresholdOpt = Annotated[int, typer.Option("--threshold", help="Non-dealers keep at or above T.")]
DealerOpt = Annotated[int, typer.Option("--dealer-threshold", help="The dealer cuts below TD.")]
ThresholdsOpt = Annotated[str | None, typer.Option(
    "--thresholds", help="T0,T1,...,TD: one per position, the dealer's last (overrides the two "
    "above).")]
KeepProbOpt = Annotated[float, typer.Option("--keep-prob", help="random policy: keep "
                                            "probability.")]
DeckOpt = Annotated[str, typer.Option("--deck", help="spanish40 | spanish48 | french52.")]
CutKingOpt = Annotated[str | None, typer.Option(
    "--cut-king", help="loses | blocked | none (default: loses; none with --poroli).")]
TiesOpt = Annotated[str, typer.Option("--ties", help="all | first.")]
PoroliOpt = Annotated[bool, typer.Option("--poroli", help="Poroli variant preset (rule P1).")]
AbsTieOpt = Annotated[str, typer.Option("--absolute-tie", help="void | replay (rule G6).")]
RoundsOpt = Annotated[str, typer.Option("--rounds", help="Rounds to simulate (1000000, 1e6, "
                                        "1M).")]
GamesOpt = Annotated[str, typer.Option("--games", help="Games to simulate (100000, 1e5, 100k).")]
LivesOpt = Annotated[int, typer.Option("--lives", help="Lives (or chips) per player.")]
PoliciesOpt = Annotated[str | None, typer.Option(
    "--policies", help="One policy per player, e.g. threshold:5:4,informed:5:5,random:0.5 "
    "(default: --policy with its thresholds). " + KINDS.help())]
FirstDealerOpt = Annotated[int | None, typer.Option(
    "--first-dealer", help="Player who deals first (default: drawn at random, rule G4).")]


def _rules(deck: str, cut_king: str | None, ties: str, poroli: bool,
           absolute_tie: str = "void") -> RoncoRules:
    return RoncoRules.make(deck=deck, cut_king=cut_king, ties=ties, poroli=poroli,
                           absolute_tie=absolute_tie)


def _check_kind(policy: str) -> None:
    KINDS.kind(policy)


def _round_setup(players: int, policy: str, threshold: int, dealer_threshold: int,
                 thresholds: str | None, keep_prob: float, rules: RoncoRules) -> list[Policy]:
    check_players(players)
    _check_kind(policy)
    per_pos = parse_int_list(thresholds, "--thresholds") if thresholds is not None else None
    policies = ronco_rounds.table_policies(players, policy, threshold, dealer_threshold,
                                           per_pos, keep_prob)
    for pol in policies:
        pol.validate(rules.top)
    return policies


def _header(command: str, rules: RoncoRules, policies: list[Policy]) -> dict[str, object]:
    return {
        "game": "ronco",
        "command": command,
        "players": len(policies),
        "rules": rules.summary(),
        "policies": [p.spec() for p in policies],
    }


def _rules_line(rules: RoncoRules) -> str:
    return "rules: " + ", ".join(f"{k}={v}" for k, v in rules.summary().items())


def _role(i: int, n: int) -> str:
    return "dealer" if i == n - 1 else ("first" if i == 0 else "")


@app.command()
def rounds(
    players: PlayersOpt = 4,
    policy: PolicyOpt = "threshold",
    threshold: ThresholdOpt = 5,
    dealer_threshold: DealerOpt = 5,
    thresholds: ThresholdsOpt = None,
    keep_prob: KeepProbOpt = 0.5,
    deck: DeckOpt = "spanish40",
    cut_king: CutKingOpt = None,
    ties: TiesOpt = "all",
    poroli: PoroliOpt = False,
    n_rounds: RoundsOpt = "1M",
    seed: SeedOpt = DEFAULT_SEED,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Monte Carlo loss rate of every position in one round."""
    rules = _rules(deck, cut_king, ties, poroli)
    policies = _round_setup(players, policy, threshold, dealer_threshold, thresholds,
                            keep_prob, rules)
    total = parse_count(n_rounds, "--rounds")
    workers = check_workers(workers)
    header = _header("rounds", rules, policies)
    manifest = {**header, "seed": seed, "rounds": total, "chunk_size": ronco_rounds.ROUNDS_CHUNK}
    with batch_run(scheduler, workers, store, manifest, as_json) as run:
        res = ronco_rounds.simulate(rules, policies, total, seed=seed, workers=workers,
                                    progress=not as_json, **run.options())
    out = {**header, "seed": seed, **res.to_dict(), **run.cluster_json()}
    if run.store is not None:
        run.store.finish(
            pd.DataFrame({"position": range(players), "policy": out["policies"],
                          "lost": res.lost, "double": res.double, "p_lose": out["p_lose"],
                          "ci_low": out["ci_low"], "ci_high": out["ci_high"]}),
            {k: out[k] for k in ("p_lose", "p_all_tie", "rounds")})
    if as_json:
        emit_json(out)
        return
    table = Table(title=f"Ronco rounds: {players} players, {total:,} rounds, seed {seed}")
    for col in ("position", "role", "policy", "P(lose)", "95% CI"):
        table.add_column(col)
    for i, pol in enumerate(policies):
        table.add_row(str(i), _role(i, players), pol.spec(), f"{out['p_lose'][i]:.5f}",
                      f"[{out['ci_low'][i]:.5f}, {out['ci_high'][i]:.5f}]")
    console = Console()
    console.print(table)
    console.print(f"absolute tie: {out['p_all_tie']:.6f}   dealer cuts: {out['p_cut']:.4f}   "
                  f"cut-king: {out['p_cut_king']:.4f}")
    console.print(_rules_line(rules))


@app.command()
def exact(
    players: PlayersOpt = 4,
    policy: PolicyOpt = "threshold",
    threshold: ThresholdOpt = 5,
    dealer_threshold: DealerOpt = 5,
    thresholds: ThresholdsOpt = None,
    keep_prob: KeepProbOpt = 0.5,
    deck: DeckOpt = "spanish40",
    cut_king: CutKingOpt = None,
    ties: TiesOpt = "all",
    poroli: PoroliOpt = False,
    seed: SeedOpt = DEFAULT_SEED,
    workers: WorkersOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Exact loss probability of every position, by enumerating every deal.

    Needs deterministic policies. The enumeration runs in one process; --seed and --workers are
    accepted for uniformity and do not change the (exact) answer.
    """
    rules = _rules(deck, cut_king, ties, poroli)
    policies = _round_setup(players, policy, threshold, dealer_threshold, thresholds,
                            keep_prob, rules)
    check_workers(workers)
    res = ronco_rounds.exact(rules, policies, progress=not as_json)
    out = {
        **_header("exact", rules, policies),
        "p_lose": res.p_lose.tolist(),
        "p_double": res.p_double.tolist(),
        "p_all_tie": res.p_all_tie,
        "p_cut": res.p_cut,
        "p_cut_king": res.p_cut_king,
    }
    if as_json:
        emit_json(out)
        return
    table = Table(title=f"Ronco rounds, exact: {players} players")
    for col in ("position", "role", "policy", "P(lose)"):
        table.add_column(col)
    for i, pol in enumerate(policies):
        table.add_row(str(i), _role(i, players), pol.spec(), f"{out['p_lose'][i]:.8f}")
    console = Console()
    console.print(table)
    console.print(f"absolute tie: {res.p_all_tie:.8f}   dealer cuts: {res.p_cut:.6f}   "
                  f"cut-king: {res.p_cut_king:.6f}")
    console.print(_rules_line(rules))


@app.command()
def games(
    players: PlayersOpt = 4,
    lives: LivesOpt = 7,
    policies_spec: PoliciesOpt = None,
    policy: PolicyOpt = "threshold",
    threshold: ThresholdOpt = 5,
    dealer_threshold: DealerOpt = 5,
    keep_prob: KeepProbOpt = 0.5,
    deck: DeckOpt = "spanish40",
    cut_king: CutKingOpt = None,
    ties: TiesOpt = "all",
    poroli: PoroliOpt = False,
    absolute_tie: AbsTieOpt = "void",
    first_dealer: FirstDealerOpt = None,
    n_games: GamesOpt = "100k",
    exact_solve: Annotated[bool, typer.Option("--exact", help="Solve the game exactly (small "
                                              "tables, deterministic policies).")] = False,
    seed: SeedOpt = DEFAULT_SEED,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Whole games: win rate by player, draws, game length and elimination order."""
    rules = _rules(deck, cut_king, ties, poroli, absolute_tie)
    _check_kind(policy)
    default = Policy(policy, threshold, dealer_threshold, keep_prob)
    policies = ronco_games.player_policies(players, policies_spec, default)
    for pol in policies:
        pol.validate(rules.top)
    ronco_games.check_lives(lives)
    ronco_games.check_first_dealer(first_dealer, players)
    workers = check_workers(workers)
    header = {**_header("games", rules, policies), "lives": lives, "first_dealer": first_dealer}
    if exact_solve:
        out = {**header, "exact": True, **exact_game(rules, policies, lives,
                                                     first_dealer).to_dict()}
    else:
        total = parse_count(n_games, "--games")
        manifest = {**header, "seed": seed, "games": total,
                    "chunk_size": ronco_games.GAMES_CHUNK}
        with batch_run(scheduler, workers, store, manifest, as_json) as run:
            res = ronco_games.simulate(rules, policies, lives, total, first_dealer=first_dealer,
                                       seed=seed, workers=workers, progress=not as_json,
                                       **run.options())
        out = {**header, "exact": False, "seed": seed, **res.to_dict(), **run.cluster_json()}
        if run.store is not None:
            run.store.finish(_games_frame(out), {k: out[k] for k in (
                "win_rate", "draw_rate", "rounds_mean", "games")})
    if as_json:
        emit_json(out)
        return
    _print_games(out)


def _games_frame(out: dict) -> pd.DataFrame:
    n = out["players"]
    frame = pd.DataFrame({"player": range(n), "policy": out["policies"],
                          "win_rate": out["win_rate"], "win_ci_low": out["win_ci_low"],
                          "win_ci_high": out["win_ci_high"]})
    for k in range(n):
        frame[f"place_{k}"] = [row[k] for row in out["place_distribution"]]
    return frame


def _print_games(out: dict) -> None:
    n = out["players"]
    kind = "exact" if out["exact"] else f"{out['games']:,} games, seed {out['seed']}"
    table = Table(title=f"Ronco games: {n} players, {out['lives']} lives, {kind}")
    cols = ["player", "policy", "P(win)"] + ([] if out["exact"] else ["95% CI", "P(first out)"])
    for col in cols:
        table.add_column(col)
    for i in range(n):
        row = [str(i), out["policies"][i], f"{out['win_rate'][i]:.5f}"]
        if not out["exact"]:
            row += [f"[{out['win_ci_low'][i]:.5f}, {out['win_ci_high'][i]:.5f}]",
                    f"{out['place_distribution'][i][n - 1]:.4f}"]
        table.add_row(*row)
    console = Console()
    console.print(table)
    q = out["rounds_quantiles"]
    console.print(f"no winner: {out['draw_rate']:.5f}   rounds: mean {out['rounds_mean']:.3f}, "
                  f"quantiles " + ", ".join(f"{k} {v}" for k, v in q.items()))
    console.print("rules: " + ", ".join(f"{k}={v}" for k, v in out["rules"].items()))


@app.command("best-threshold")
def best_threshold(
    players: Annotated[str, typer.Option("--players",
                                         help="Table sizes: 3-10, or 4,6,8.")] = "3-10",
    lives: LivesOpt = 7,
    policy: Annotated[str, typer.Option("--policy", help="threshold | informed: the family "
                                        "searched, for the hero and the field.")] = "threshold",
    field_spec: Annotated[str, typer.Option("--field", help="The field's thresholds T:Td for "
                                            "the best response.")] = "5:5",
    deck: DeckOpt = "spanish40",
    cut_king: CutKingOpt = None,
    ties: TiesOpt = "all",
    poroli: PoroliOpt = False,
    absolute_tie: AbsTieOpt = "void",
    first_stage: Annotated[str, typer.Option("--first-stage", help="Games per candidate in the "
                                             "first stage (doubling after).")] = "8192",
    max_games: Annotated[str, typer.Option("--max-games", help="Budget of games per "
                                           "candidate.")] = "512k",
    min_games: Annotated[str, typer.Option("--min-games", help="Games the best must have "
                                           "played before the search may stop.")] = "64k",
    z_drop: Annotated[float, typer.Option("--z-drop", help="Drop a candidate once the best "
                                          "beats it by this paired z.")] = 3.0,
    max_iterations: Annotated[int, typer.Option("--max-iterations", help="Best-response "
                                                "iterations towards the equilibrium.")] = 3,
    gain_games: Annotated[str, typer.Option("--gain-games", help="Games for the informed-vs-"
                                            "threshold comparison (0 skips it).")] = "256k",
    seed: SeedOpt = DEFAULT_SEED,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    store: StoreOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Best (T, Td) against a field, and the symmetric equilibrium, for each table size."""
    from simcards.core.cli_options import parse_range
    from simcards.core.store import RunStore, store_root
    from simcards.ronco import best_threshold as bt

    sizes = parse_range(players, "--players")
    for n in sizes:
        check_players(n)
    if policy not in ("threshold", "informed"):
        raise UsageError(f"unknown policy {policy!r} for best-threshold (threshold|informed)")
    rules = _rules(deck, cut_king, ties, poroli, absolute_tie)
    ronco_games.check_lives(lives)
    ft = parse_int_list(field_spec.replace(":", ","), "--field")
    if len(ft) != 2:
        raise UsageError(f"--field must be T:Td, got {field_spec!r}")
    field_policy = Policy(policy, ft[0], ft[1]).validate(rules.top)
    if z_drop <= 0:
        raise UsageError(f"--z-drop must be positive, got {z_drop}")
    if max_iterations < 0:
        raise UsageError(f"--max-iterations must be at least 0, got {max_iterations}")
    first = parse_count(first_stage, "--first-stage")
    budget = parse_count(max_games, "--max-games")
    floor = parse_count(min_games, "--min-games")
    gain = 0 if gain_games.strip() == "0" else parse_count(gain_games, "--gain-games")
    workers = check_workers(workers)
    root = store_root(store)
    opts = {"seed": seed, "first_stage": first, "max_games": max(budget, first),
            "z_drop": z_drop, "max_iterations": max_iterations, "gain_games": gain,
            "min_games": min(floor, max(budget, first))}
    manifest = {"game": "ronco", "command": "best-threshold", "rules": rules.summary(),
                "players": sizes, "lives": lives, "policy": policy,
                "field": field_policy.spec(), **opts}
    top = RunStore(root, manifest) if root is not None else None
    if top is not None:
        top.create()  # the search's stages are kept inside its own folder
    with executor_for(scheduler, workers, as_json) as ex:
        t0 = time.perf_counter()
        rows, resumed, computed = bt.search(rules, sizes, lives, policy, field_policy, opts,
                                            workers=workers,
                                            root=top.path / "stages" if top else None,
                                            progress=not as_json, executor=ex)
        seconds = time.perf_counter() - t0
    out = {**manifest, "seed": seed, "rows": [bt.row_dict(r) for r in rows],
           **cluster_info(ex, seconds)}
    if top is not None:
        top.resumed, top.computed = resumed, computed
        frame = pd.DataFrame([{k: (str(v) if isinstance(v, list) else v)
                               for k, v in r.items()} for r in out["rows"]])
        top.finish(frame, {"rows": len(rows)})
    if as_json:
        emit_json(out)
        return
    _print_best(out)


def _print_best(out: dict) -> None:
    table = Table(title=f"Ronco best thresholds ({out['policy']}), {out['lives']} lives, field "
                  f"{out['field']}")
    for col in ("players", "best T:Td", "P(win) [95% CI]", "tied with", "equilibrium",
                "informed gain [95% CI]"):
        table.add_column(col)
    for r in out["rows"]:
        eq = (f"{r['equilibrium_T']}:{r['equilibrium_Td']}" if r["equilibrium_converged"]
              else "not converged")
        gain = (f"{r['informed_gain']:+.4f} [{r['informed_gain_ci'][0]:+.4f}, "
                f"{r['informed_gain_ci'][1]:+.4f}]" if "informed_gain" in r else "")
        table.add_row(str(r["players"]), f"{r['best_T']}:{r['best_Td']}",
                      f"{r['win_rate']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}]",
                      " ".join(f"{t}:{d}" for t, d in r["tied_with"]) or "-", eq, gain)
    Console().print(table)
