"""``simcards ronco ...`` commands: rounds, exact, chart, advise, games, best-threshold,
equilibrium.

Each command reads its flags and calls the function of the same name in
:mod:`simcards.ronco.api`, which checks them and computes; this module only prints.

Options shared with other commands are declared once and written into each signature: the
rule switches of :class:`~simcards.ronco.rules.RoncoRules` and the run options.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from simcards.core.cli_options import (
    engine_option,
    finite_float,
    inject_options,
    option,
    parameter,
    run_options,
)
from simcards.core.commands import GameApi
from simcards.core.console import table_console
from simcards.core.policyspec import USER_KIND
from simcards.ronco import api
from simcards.ronco.policies import KINDS

app = typer.Typer(help="Ronco and its Poroli variant.", no_args_is_help=True)
_API = GameApi("simcards.ronco.api")

_KIND_DOCS = " | ".join(f"{k.syntax() if k.name == USER_KIND else k.name} ({k.doc})"
                        for k in KINDS.kinds.values())
PlayersOpt = option("--players", "Players at the table (2-20).", int)
PolicyOpt = option("--policy", _KIND_DOCS + ".", str)
ThresholdOpt = option("--threshold", "Non-dealers keep at or above T (default 5; not with "
                      "--policy random).", int | None)
DealerOpt = option("--dealer-threshold", "The dealer cuts below TD (default 5; not with "
                   "--policy random).", int | None)
ThresholdsOpt = option("--thresholds", "T0,T1,...,TD: one per position, the dealer's last "
                       "(instead of --threshold and --dealer-threshold).")
KeepProbOpt = Annotated[float | None, finite_float(
    "--keep-prob", help="Keep probability of the random policy (default 0.5; only with "
    "--policy random).")]
_COUNTS = "k = 1,000, M = 1,000,000, G = 1,000,000,000"
RoundsOpt = Annotated[str, typer.Option("--rounds", help=api.ROUNDS.help())]
GamesOpt = Annotated[str | None, typer.Option(
    "--games", help=api.GAMES.help() + " Not with --exact.")]
LivesOpt = Annotated[int, typer.Option("--lives", help="Lives (or chips) per player.")]
EngineOpt = engine_option("rounds", "the round kernel")
GameEngineOpt = engine_option("games", "the game kernel")
RaceEngineOpt = engine_option("races against a function of yours", "the race kernel")
PoliciesOpt = option(
    "--policies", "One policy per player, e.g. threshold:5:4,informed:5:5,random:0.5 (instead "
    "of --policy; --threshold, --dealer-threshold and --keep-prob fill the values an entry "
    "leaves out). Syntax: " + KINDS.help() + "; max_threshold is the deck's top rank + 1.")
ROUND_POLICY_OPTIONS = [
    parameter("players", PlayersOpt, 4), parameter("policy", PolicyOpt, "threshold"),
    parameter("policies", PoliciesOpt, None), parameter("threshold", ThresholdOpt, None),
    parameter("dealer_threshold", DealerOpt, None),
    parameter("thresholds", ThresholdsOpt, None), parameter("keep_prob", KeepProbOpt, None)]
"""The options that set the seats' policies in one round (``rounds``, ``exact``), as the API
takes them."""
FirstDealerOpt = Annotated[int | None, typer.Option(
    "--first-dealer", help="Player who deals first (default: drawn at random, rule G4).")]
_RACE_MAX = "at most 1e9"


def _console() -> Console:
    """Tables as wide as they need: a terminal's own width, else 120 columns (a pipe or a log
    file would otherwise cut every interval in two at 80); data printed as it is, never read
    as markup or emoji codes."""
    return table_console()


def _ci(p: float, ci: list[float], digits: int) -> str:
    return f"{p:.{digits}f} [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _print_rounds(out: dict, exact: bool) -> None:
    n = out["players"]
    title = (f"Ronco rounds, exact: {n} players" if exact else
             f"Ronco rounds: {n} players, {out['rounds']:,} rounds, seed {out['seed']}")
    table = Table(title=title)
    cols = ("position", "role", "policy", "P(lose)") + (() if exact else ("95% CI",))
    for col in cols:
        table.add_column(col)
    digits = 8 if exact else 5
    for i, spec in enumerate(out["policies"]):
        row = [str(i), api._role(i, n), spec, f"{out['p_lose'][i]:.{digits}f}"]
        if not exact:
            row.append(f"[{out['ci_low'][i]:.5f}, {out['ci_high'][i]:.5f}]")
        table.add_row(*row)
    console = _console()
    console.print(table)
    if exact:
        console.print(f"absolute tie: {out['p_all_tie']:.8f}   dealer cuts: "
                      f"{out['p_cut']:.6f}   cut-king: {out['p_cut_king']:.6f}")
    else:
        console.print(f"absolute tie: {_ci(out['p_all_tie'], out['p_all_tie_ci'], 6)}\n"
                      f"dealer cuts: {_ci(out['p_cut'], out['p_cut_ci'], 4)}\n"
                      f"cut-king: {_ci(out['p_cut_king'], out['p_cut_king_ci'], 4)}\n"
                      "(95% Wilson intervals)")
    console.print("rules: " + ", ".join(f"{k}={v}" for k, v in out["rules"].items()))


@app.command()
@api.ROUND_SWITCHES.options
@run_options()
@inject_options("seats", ROUND_POLICY_OPTIONS)
def rounds(seats: dict[str, Any], *, switches: dict[str, Any],
           n_rounds: RoundsOpt = api.ROUNDS.default, engine: EngineOpt = None,
           run: dict[str, Any]) -> None:
    """Monte Carlo loss rate of every position in one round."""
    _API.call("rounds", **seats, **switches, rounds=n_rounds, engine=engine, run=run,
              show=lambda out: _print_rounds(out, exact=False))


@app.command()
@api.ROUND_SWITCHES.options
@run_options("seed", "workers", "as_json")
@inject_options("seats", ROUND_POLICY_OPTIONS)
def exact(seats: dict[str, Any], *, switches: dict[str, Any], run: dict[str, Any]) -> None:
    """Exact loss probability of every position, by enumerating every deal.

    Needs deterministic policies. The enumeration runs in one process; --seed and --workers are
    accepted (and checked) for uniformity and do not change the (exact) answer.
    """
    _API.call("exact", **seats, **switches, run=run,
              show=lambda out: _print_rounds(out, exact=True))


@app.command()
@api.ROUND_SWITCHES.options
@run_options("as_json")
def chart(
    players: PlayersOpt = 4,
    policy: Annotated[str, typer.Option(
        "--policy", help="The policy charted: bayes (default), threshold:T:Td, informed:T:Td, "
        "PATH.py:FUNCTION (yours) or chart:FILE.csv; not random.")] = "bayes",
    field_spec: Annotated[str, typer.Option(
        "--field", help="The other positions' policy, threshold:T:Td or informed:T:Td: bayes "
        "replies to it, and the picture shows the situations it leads to most often.")
    ] = "threshold:5:5",
    out: Annotated[str, typer.Option(
        "--out", help="The chart's CSV file; its picture is written beside it (.png).")
    ] = "chart.csv",
    *, switches: dict[str, Any], run: dict[str, Any],
) -> None:
    """Write a policy's keep chart: what it does in every situation, as a CSV to edit and play
    back (--policy chart:FILE.csv) and a picture to take to the table (rule S6)."""
    _API.call("chart", players=players, policy=policy, field=field_spec, out=out,
              **switches, run=run, show=_print_chart)


def _print_chart(out: dict) -> None:
    table = Table(title=f"Ronco keep chart of {out['policy']}, {out['players']} players, others "
                        f"{out['field']}")
    for col in ("position", "role", "situations", "keeps (dealer: no cut)"):
        table.add_column(col)
    for row in out["positions"]:
        table.add_row(str(row["position"]), row["role"], str(row["situations"]),
                      f"{row['p_keep']:.4f}")
    console = _console()
    console.print(table)
    console.print(f"wrote {out['chart']} ({out['situations']:,} situations) and "
                  f"{out['picture']}")


@app.command()
@api.GAME_SWITCHES.options
@run_options("as_json")
def advise(
    players: Annotated[int | None, typer.Option(
        "--players", help="Players at the table (2-10; 2-8 with a function, a chart, "
        "--poroli or --lives; default 4).")] = None,
    seat: Annotated[int | None, typer.Option(
        "--seat", help="Your seat, numbered in the round's order: 0 acts first, players-1 "
        "deals.")] = None,
    card: Annotated[str | None, typer.Option(
        "--card", help="The card you hold, value and suit letter: 4o, 10e, 12b (suits "
        "do not rank; the suit names the Poroli card).")] = None,
    before: Annotated[str | None, typer.Option(
        "--before", help="The earlier seats' public actions, seat 0's first: keep, swap or "
        "refused, e.g. keep,swap.")] = None,
    dealt: Annotated[str | None, typer.Option(
        "--dealt", help="The card you were dealt, when the previous seat swapped with "
        "you.")] = None,
    field_spec: Annotated[str | None, typer.Option(
        "--field", help="The others' policy: threshold:T:Td (default threshold:5:5), "
        "informed:T:Td, PATH.py:FUNCTION or chart:FILE.csv; not random.")] = None,
    lives: Annotated[str | None, typer.Option(
        "--lives", help="Every seat's lives, seat 0's first and the dealer's last, e.g. "
        "3,1,2,2: advise for the game (threshold or informed field).")] = None,
    position: Annotated[str | None, typer.Option(
        "--position", help="A JSON or TOML file with the position's fields instead (players, "
        "seat, card, before, dealt, field, lives).")] = None,
    *, switches: dict[str, Any], run: dict[str, Any],
) -> None:
    """Advise one concrete position: keep or pass (the dealer: keep or cut), each with its
    exact probability of losing the round given the others' policies (rule S4), and with
    --lives each one's probability of winning the game."""
    _API.call("advise", players=players, seat=seat, card=card, before=before,
              dealt=dealt, field=field_spec, lives=lives, position=position,
              **switches, run=run, show=_print_advice)


def _print_advice(out: dict) -> None:
    game = "lives" in out
    table = Table(title=f"Ronco advice: {out['situation']}; others {out['field']}")
    cols = ["action", "P(lose round)"] + (["lives lost"] if out["rules"]["poroli"] else [])
    cols += ["worse by"] + (["P(win game)", "worse by (game)"] if game else [])
    for col in cols:
        table.add_column(col)
    for m in out["moves"]:
        row = [m["action"], f"{m['p_lose']:.6f}"]
        row += [f"{m['lives_lost']:.6f}"] if out["rules"]["poroli"] else []
        row += [f"{m['difference']:.6f}"]
        row += [f"{m['p_win']:.6f}", f"{abs(m['win_difference']):.6f}"] if game else []
        table.add_row(*row)
    console = _console()
    console.print(table)
    console.print(f"round: {out['best']} is better by {out['by']:.6f} "
                  f"(the position occurs with probability {out['p_situation']:.6f})")
    if game:
        lives = ",".join(str(v) for v in out["lives"])
        if out["game_differs"]:
            console.print(f"game (lives {lives}): {out['best_game']} is better by "
                          f"{out['by_game']:.6f}, unlike the round's advice")
        else:
            console.print(f"game (lives {lives}): {out['best_game']} too, by "
                          f"{out['by_game']:.6f}")


@app.command()
@api.GAME_SWITCHES.options
@run_options()
def games(
    players: PlayersOpt = 4,
    lives: LivesOpt = 7,
    policies_spec: PoliciesOpt = None,
    policy: Annotated[str | None, typer.Option(
        "--policy", help=_KIND_DOCS + " (default threshold; not with --policies).")] = None,
    threshold: ThresholdOpt = None,
    dealer_threshold: DealerOpt = None,
    keep_prob: KeepProbOpt = None,
    *,
    switches: dict[str, Any],
    first_dealer: FirstDealerOpt = None,
    n_games: GamesOpt = None,
    exact_solve: Annotated[bool, typer.Option(
        "--exact", help="Solve the game exactly (small tables, deterministic "
        "policies; not with --games, --store or --scheduler).")] = False,
    engine: GameEngineOpt = None,
    run: dict[str, Any],
) -> None:
    """Whole games: win rate by player, draws, game length and elimination order.

    A player may play a function of yours, PATH.py:FUNCTION (S5): it sees the seat's
    ronco_game_v0 observation (the round, then every seat's lives, who is in and the dealer)
    and is asked at every decision, in the game kernel, or on the environments' table engine
    when numba cannot compile it (or --engine python). A keep chart, chart:FILE.csv (S6),
    plays in each round the rows of that round's table size: it needs rows for every size from
    --players down to 2.
    """
    _API.call("games", players=players, lives=lives, policies=policies_spec, policy=policy,
              threshold=threshold, dealer_threshold=dealer_threshold, keep_prob=keep_prob,
              **switches, first_dealer=first_dealer, games=n_games, exact=exact_solve,
              engine=engine, run=run, show=_print_games)


def _print_games(out: dict) -> None:
    n = out["players"]
    kind = "exact" if out["exact"] else f"{out['games']:,} games, seed {out['seed']}"
    table = Table(title=f"Ronco games: {n} players, {out['lives']} lives, {kind}")
    cols = ["player", "policy", "P(win)"] + ([] if out["exact"] else
                                             ["95% CI", "P(first out) [95% CI]"])
    for col in cols:
        table.add_column(col)
    for i in range(n):
        row = [str(i), out["policies"][i], f"{out['win_rate'][i]:.5f}"]
        if not out["exact"]:
            row += [f"[{out['win_ci_low'][i]:.5f}, {out['win_ci_high'][i]:.5f}]",
                    _ci(out["place_distribution"][i][n - 1], out["first_out_ci"][i], 4)]
        table.add_row(*row)
    console = _console()
    console.print(table)
    q = out["rounds_quantiles"]
    if out["exact"]:
        console.print(f"no winner: {out['draw_rate']:.5f}   rounds: mean "
                      f"{out['rounds_mean']:.3f}, quantiles "
                      + ", ".join(f"{k} {v}" for k, v in q.items()))
    else:
        half = 1.959963984540054 * out["rounds_mean_se"]
        console.print(f"no winner: {_ci(out['draw_rate'], out['draw_ci'], 5)}\n"
                      f"rounds: mean {out['rounds_mean']:.3f} [{out['rounds_mean'] - half:.3f}, "
                      f"{out['rounds_mean'] + half:.3f}], quantiles "
                      + ", ".join(f"{k} {v}" for k, v in q.items()) + "\n(95% intervals)")
    console.print("rules: " + ", ".join(f"{k}={v}" for k, v in out["rules"].items()))


@app.command("best-threshold")
@api.GAME_SWITCHES.options
@run_options()
def best_threshold(
    players: Annotated[str, typer.Option("--players",
                                         help="Table sizes: 3-10, or 4,6,8.")] = "3-10",
    lives: LivesOpt = 7,
    policy: Annotated[str, typer.Option("--policy", help="threshold | informed: the family "
                                        "searched, for the hero and the field.")] = "threshold",
    field_spec: Annotated[str, typer.Option(
        "--field", help="The field the best response answers: T:Td (of the searched family), "
        "threshold:T:Td, informed:T:Td, a function of yours PATH.py:FUNCTION (S5) or a keep "
        "chart chart:FILE.csv with rows for every table size down to 2 (S6), played as in "
        "games.")] = "5:5",
    *,
    switches: dict[str, Any],
    first_stage: Annotated[str | None, typer.Option(
        "--first-stage", help="Games per candidate in the first stage, doubling after (default "
        f"8192, or --max-games if smaller; {_RACE_MAX}).")] = None,
    max_games: Annotated[str, typer.Option(
        "--max-games", help=f"Budget of games per candidate ({_COUNTS}; {_RACE_MAX}).")
    ] = "512k",
    min_games: Annotated[str | None, typer.Option(
        "--min-games", help="Games the best must have played before the search may stop "
        "(default 64k, or --max-games if smaller).")] = None,
    z_drop: Annotated[float, finite_float("--z-drop", help="Drop a candidate once the best "
                                          "beats it by this paired z (positive).")] = 3.0,
    max_iterations: Annotated[int, typer.Option("--max-iterations", help="Best-response "
                                                "iterations towards the equilibrium.")] = 3,
    gain_games: Annotated[str, typer.Option(
        "--gain-games", help="Games for the informed-vs-threshold comparison (0 skips it; "
        f"{_RACE_MAX}).")] = "256k",
    mixed: Annotated[bool, typer.Option(
        "--mixed", help="Where best responses cycle (no pure equilibrium), also search the "
        "mixed symmetric equilibrium next to the cycle, as ronco equilibrium --start does "
        "(rules E5, E6); adds equilibrium_mixed to those rows.")] = False,
    engine: RaceEngineOpt = None,
    run: dict[str, Any],
) -> None:
    """Best (T, Td) against a field, and the symmetric equilibrium, for each table size."""
    _API.call("best_threshold", players=players, lives=lives, policy=policy, field=field_spec,
              **switches, first_stage=first_stage, max_games=max_games, min_games=min_games,
              z_drop=z_drop, max_iterations=max_iterations, gain_games=gain_games, mixed=mixed,
              engine=engine, run=run, show=_print_best)


def _equilibrium_cell(r: dict) -> str:
    """The pure equilibrium; where best responses cycle, the cycle (and with ``--mixed`` the
    mixed equilibrium next to it), as the report's page shows them."""
    if r["equilibrium_converged"]:
        return f"{r['equilibrium_T']}:{r['equilibrium_Td']}"
    cycle = r["equilibrium_cycle"]
    if cycle:
        text = "none: best responses cycle " + " → ".join(f"{t}:{d}"
                                                          for t, d in cycle + cycle[:1])
    else:
        steps = " → ".join(f"{t}:{d}" for t, d in r["best_response_path"])
        text = (f"not converged in {r['equilibrium_iterations']} iterations (best responses "
                f"{steps})")
    e = r.get("equilibrium_mixed")
    if e is not None:
        sup = ", ".join(f"{m['T']}:{m['Td']} {m['probability']:.0%}"
                        for m in sorted(e["support"], key=lambda m: -m["probability"]))
        text += (f"; {'pure' if len(e['support']) == 1 else 'mixed'} {sup}, exploitability "
                 f"{e['exploitability']:.4f} [≤ {e['exploitability_ci'][1]:.4f}]"
                 + ("" if e["certified"] else " (not certified)"))
    return text


def _print_best(out: dict) -> None:
    table = Table(title=f"Ronco best thresholds ({out['policy']}), {out['lives']} lives, field "
                  f"{out['field']}")
    for col in ("players", "best T:Td", "P(win) [95% CI]", "tied with", "equilibrium",
                "informed gain [95% CI]", "bayes gain [95% CI]"):
        table.add_column(col)

    def gain(r: dict, name: str) -> str:
        if name not in r:
            return ""
        lo, hi = r[f"{name}_ci"]
        return f"{r[name]:+.4f} [{lo:+.4f}, {hi:+.4f}]"

    for r in out["rows"]:
        table.add_row(str(r["players"]), f"{r['best_T']}:{r['best_Td']}",
                      f"{r['win_rate']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}]",
                      " ".join(f"{t}:{d}" for t, d in r["tied_with"]) or "-",
                      _equilibrium_cell(r), gain(r, "informed_gain"), gain(r, "bayes_gain"))
    console = _console()
    console.print(table)
    unsettled = [r for r in out["rows"]
                 if not r["equilibrium_converged"] and "equilibrium_mixed" not in r]
    if unsettled:
        console.print("where best responses do not settle there is no pure equilibrium on the "
                      "grid: --mixed searches the mixed one next to them (rules E5, E6)")


@app.command()
@api.GAME_SWITCHES.options
@run_options()
def equilibrium(
    players: Annotated[str, typer.Option(
        "--players", help="Table sizes: 2 (with --exact), or 3-10, 4,6,8 or one size of 3 or "
        "more (the mixed equilibrium of whole games, rules E5-E6).")] = "2",
    exact_solve: Annotated[bool, typer.Option(
        "--exact", help="Solve one two-player round exactly (rules E1-E4; --players 2 "
        "only).")] = False,
    family: Annotated[str, typer.Option(
        "--family", help="threshold | informed | all: the policy family whose thresholds are "
        "the pure strategies (two players: position 0's T, the dealer's Td, rule E1; 3 or more: "
        "the (T, Td) grid, rule E5); all (with --players 2 --exact, constant-sum rules: --ties "
        "first, --payoff lose): every behavioural strategy, a keep probability per information "
        "set, solved exactly (rule E7).")] = "threshold",
    payoff: Annotated[str | None, typer.Option(
        "--payoff", help="With --exact: lose (probability of losing the round, default) | lives "
        "(expected lives lost: 2 for a Poroli double loss, 0 in an absolute tie); rule E2.")
    ] = None,
    lives: Annotated[int | None, typer.Option(
        "--lives", help="Lives per player of the whole games (default 7; not with "
        "--exact).")] = None,
    start: Annotated[str | None, typer.Option(
        "--start", help="T:Td pairs the search starts from and searches next to, e.g. "
        "5:5,5:4,4:4 (default: a screen of the whole grid against 5:5; not with --exact).")
    ] = None,
    openspiel: Annotated[bool, typer.Option(
        "--openspiel", help="With --family all: solve the round a second time with OpenSpiel's "
        "sequence-form linear program on the registered game simcards_ronco_duel and compare "
        "(about fifteen seconds; needs pip install -e '.[rl]' from the clone).")] = False,
    *,
    switches: dict[str, Any],
    run: dict[str, Any],
) -> None:
    """Symmetric equilibria over a policy family's thresholds.

    --players 2 --exact: the exact equilibrium of one two-player round, each position's mixed
    strategy and loss (--seed and --workers are checked and change nothing); with --family all,
    over every behavioural strategy: the value, each side's keep probability per information
    set, the exact certificate and whether a threshold family reaches the value. 3 or more
    players: the mixed symmetric equilibrium of whole games (each player draws his T:Td from the
    same distribution at the start of a game), searched on common random numbers and certified by
    its exploitability: the most any pure grid strategy gains against it, with a simultaneous
    95% interval whose upper bound must be below 0.002.
    """
    def show(out: dict[str, Any]) -> None:
        if exact_solve and out["family"] == "all":
            _print_behaviour(out)
        elif exact_solve:
            _print_equilibrium(out)
        else:
            _print_mixed(out)

    _API.call("equilibrium", players=players, exact=exact_solve, family=family, payoff=payoff,
              lives=lives, start=start, **switches, openspiel=openspiel, run=run, show=show)


def _print_mixed(out: dict) -> None:
    table = Table(title=f"Ronco mixed symmetric equilibria ({out['family']}), {out['lives']} "
                  f"lives, seed {out['seed']}")
    for col in ("players", "support T:Td (probability)", "P(win) [95% CI]",
                "exploitability [95% CI]", "gains most", "certified", "games"):
        table.add_column(col)
    for r in out["rows"]:
        sup = ", ".join(f"{m['T']}:{m['Td']} ({m['probability']:.3f})" for m in r["support"])
        lo, hi = r["exploitability_ci"]
        g = r["most_gain"]
        table.add_row(str(r["players"]), sup, _ci(r["win_rate"], r["win_rate_ci"], 4),
                      f"{r['exploitability']:.4f} [{lo:.4f}, {hi:.4f}]",
                      f"{g['T']}:{g['Td']} ({g['gain']:+.4f})",
                      "yes" if r["certified"] else "no",
                      f"{r['search_games'] + r['certificate_games']:,}")
    console = _console()
    console.print(table)
    console.print("exploitability: the largest gain in win rate of a pure grid strategy against "
                  "the equilibrium field; intervals simultaneous over the grid (Bonferroni), "
                  "on games the search never saw")


def _print_equilibrium(out: dict) -> None:
    console = _console()
    console.print(f"Ronco equilibrium, 2 players, exact: {out['matrix_game']} game, family "
                  f"{out['family']}, payoff {out['payoff']}")
    table = Table(title="Mixed strategies")
    for col in ("position", "role", "strategy", "probability", "decimal", "same as"):
        table.add_column(col)
    for pos, mix in enumerate(out["mix"]):
        name = "T" if pos == 0 else "Td"
        for m in mix:
            table.add_row(str(pos), api._role(pos, 2), f"{name}={m[name]}", m["probability"],
                          f"{m['decimal']:.10f}",
                          ", ".join(f"{name}={v}" for v in m["equivalent"]) or "-")
    console.print(table)
    loss = "P(lose)" if out["payoff"] == "lose" else "E[lives lost]"
    for pos, v in enumerate(out["value"]):
        console.print(f"position {pos} ({api._role(pos, 2)}): {loss} = {v['fraction']} = "
                      f"{v['decimal']:.10f}")
    console.print(f"equilibria found: {out['equilibria_found']}   pure strategies after merging "
                  f"identical ones: {out['strategies'][0]} x {out['strategies'][1]}")
    console.print("rules: " + ", ".join(f"{k}={v}" for k, v in out["rules"].items()))


def _print_behaviour(out: dict) -> None:
    """``--family all`` (rule E7): the value, position 0's keep probability by card, the
    dealer's after a keep or a refusal by card and after a swap as a grid (his card by the card
    he gave: a swap set per cell, so 90 of them fit on one screen), then the certificate and
    the families' verdict."""
    console = _console()
    sets = out["information_sets"]
    console.print(f"Ronco equilibrium, 2 players, exact: {out['round']} round, family all "
                  f"(every behavioural strategy), payoff {out['payoff']}; information sets: "
                  f"position 0 {sets['position0']}, dealer {sets['dealer']} ({sets['coupled']} "
                  "coupled to position 0's strategy)")
    loss = "P(lose)" if out["payoff"] == "lose" else "E[lives lost]"
    for pos, v in enumerate(out["value"]):
        console.print(f"position {pos} ({api._role(pos, 2)}): {loss} = {v['fraction']} = "
                      f"{v['decimal']:.10f}")
    table = Table(title="Keep probability (the dealer: keep rather than cut)")
    for col in ("card", "position 0 keeps", "dealer after a keep", "dealer after a refusal"):
        table.add_column(col)
    kept = {m["card"]: m["keep"] for m in out["dealer"] if m["after"] == "kept"}
    refused = {m["card"]: m["keep"] for m in out["dealer"] if m["after"] == "refused"}
    for m in out["position0"]:
        c = m["card"]
        table.add_row(str(c), m["keep"], kept.get(c, "-"), refused.get(c, "-"))
    console.print(table)
    swaps = [m for m in out["dealer"] if m["after"] == "swap"]
    gave = sorted({m["gave"] for m in swaps})
    grid = Table(title="Dealer after a swap: keep probability by his card (rows) and the card "
                 "he gave (columns)")
    grid.add_column("card")
    for g in gave:
        grid.add_column(str(g))
    cell = {(m["card"], m["gave"]): m["keep"] for m in swaps}
    for c in sorted({m["card"] for m in swaps}):
        grid.add_row(str(c), *[cell.get((c, g), "") for g in gave])
    console.print(grid)
    cert = out["certificate"]
    console.print(f"certificate ({'holds' if cert['holds'] else 'FAILS'}): position 0's best "
                  f"pure reply loses {cert['position0_best_reply']['fraction']}; against the "
                  "dealer's best pure reply position 0 loses "
                  f"{cert['dealer_best_reply']['fraction']}")
    for fam, c in out["families"].items():
        console.print(f"family {fam}: value {c['value']} = {c['decimal']:.10f} "
                      f"({'reaches' if c['reaches'] else 'does not reach'} it); against every "
                      f"strategy its optimal mixes hold position 0's {loss} to at most "
                      f"{c['position0_guarantee']['fraction']} (position 0's mix) and at "
                      f"least {c['dealer_guarantee']['fraction']} (the dealer's)")
    console.print(out["verdict"])
    spiel = out.get("openspiel")
    if spiel is not None:
        console.print(f"OpenSpiel's sequence-form LP on {spiel['game']}: position 0's "
                      f"P(lose) = {spiel['value']:.10f}, "
                      f"{'agrees' if spiel['agrees'] else 'DISAGREES'} with the exact value "
                      f"(difference {spiel['difference']:.1e}; {spiel['seconds']} s)")
    console.print("rules: " + ", ".join(f"{k}={v}" for k, v in out["rules"].items()))
