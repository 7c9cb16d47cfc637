"""``simcards ronco ...`` commands."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from simcards.cli_common import (
    DEFAULT_SEED,
    JsonOpt,
    SeedOpt,
    WorkersOpt,
    emit_json,
    parse_count,
    parse_int_list,
)
from simcards.errors import UsageError
from simcards.ronco import rounds as ronco_rounds
from simcards.ronco.policies import KIND_CODE, Policy
from simcards.ronco.rules import RoncoRules, check_players
from simcards.runner import check_workers

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
RoundsOpt = Annotated[str, typer.Option("--rounds", help="Rounds to simulate (1000000, 1e6, 1M).")]


def _setup(players: int, policy: str, threshold: int, dealer_threshold: int,
           thresholds: str | None, keep_prob: float, deck: str, cut_king: str | None,
           ties: str, poroli: bool) -> tuple[RoncoRules, list[Policy]]:
    check_players(players)
    if policy not in KIND_CODE:
        raise UsageError(f"unknown policy {policy!r} (expected threshold|informed|random)")
    rules = RoncoRules.make(deck=deck, cut_king=cut_king, ties=ties, poroli=poroli)
    per_pos = parse_int_list(thresholds, "--thresholds") if thresholds is not None else None
    policies = ronco_rounds.table_policies(players, policy, threshold, dealer_threshold,
                                           per_pos, keep_prob)
    for pol in policies:
        pol.validate(rules.top)
    return rules, policies


def _header(rules: RoncoRules, policies: list[Policy]) -> dict[str, object]:
    return {
        "game": "ronco",
        "players": len(policies),
        "rules": rules.summary(),
        "policies": [p.spec() for p in policies],
    }


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
    as_json: JsonOpt = False,
) -> None:
    """Monte Carlo loss rate of every position in one round."""
    rules, policies = _setup(players, policy, threshold, dealer_threshold, thresholds,
                             keep_prob, deck, cut_king, ties, poroli)
    total = parse_count(n_rounds, "--rounds")
    workers = check_workers(workers)
    res = ronco_rounds.simulate(rules, policies, total, seed=seed, workers=workers,
                                progress=not as_json)
    out = {**_header(rules, policies), "seed": seed, **res.to_dict()}
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
                  f"cut-king: {out['p_cut_king']:.4f}   rules: {rules.summary()}")


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
    rules, policies = _setup(players, policy, threshold, dealer_threshold, thresholds,
                             keep_prob, deck, cut_king, ties, poroli)
    check_workers(workers)
    res = ronco_rounds.exact(rules, policies)
    out = {
        **_header(rules, policies),
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
                  f"cut-king: {res.p_cut_king:.6f}   rules: {rules.summary()}")
