"""``simcards ronda ...`` commands: hands, matches, compare, ladder, play.

Each command reads its flags and calls the function of the same name in
:mod:`simcards.ronda.api`, which checks them and computes; this module only prints.

Options shared with other commands are declared once and written into each signature: the
rule switches of :class:`~simcards.ronda.rules.RondaRules` and the run options.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from simcards.core.cli_options import check_seat, run_options
from simcards.core.commands import GameApi, add_compare, add_ladder, add_run, show_ladder
from simcards.core.console import table_console
from simcards.ronda import api
from simcards.ronda.policies import KINDS, check_legal

app = typer.Typer(help="Ronda, the Spanish-deck capture game.", no_args_is_help=True)

_API = GameApi("simcards.ronda.api")
_POLICIES = ("One policy per player in seat order, e.g. greedy,lookahead:2, or one for all "
             "(default greedy). Syntax: " + KINDS.help() + ".")
_SET_DEALER = "The first dealer's seat (default: drawn for every deal set, rule D3)."


def _console() -> Console:
    """Tables as wide as they need: a terminal's own width, else 120 columns; data printed
    as it is, never read as markup or emoji codes."""
    return table_console()


def _ci(x: float | None, ci: list[float] | None, digits: int) -> str:
    """A value and its 95% interval; "n/a" for what the data cannot give (JSON null: the
    interval of a mean over one hand, one match or one deal set)."""
    value = "n/a" if x is None else f"{x:.{digits}f}"
    if ci is None:
        return f"{value} [n/a]"
    return f"{value} [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _classic(out: dict[str, Any]) -> bool:
    """C1: in classic mode nothing scores, so the tables show cards and hand wins instead."""
    return out["rules"]["mode"] == "classic"


def _side_names(out: dict[str, Any]) -> list[str]:
    return ["+".join(str(p) for p in s) for s in out["sides"]]


def _side_policies(out: dict[str, Any]) -> list[str]:
    return [",".join(out["policies"][p] for p in s) for s in out["sides"]]


def _rules_line(out: dict[str, Any]) -> str:
    """The rules the run played by; in classic mode without the switches it ignores (C3:
    they stay at their defaults, the only values the commands accept there)."""
    ignored = {flag[2:].replace("-", "_") for flag in api.CLASSIC_IGNORES} if _classic(out) \
        else set()
    return "rules: " + ", ".join(f"{k}={v}" for k, v in out["rules"].items()
                                 if k not in ignored)


def _footer(console: Console, violations: int, out: dict[str, Any]) -> None:
    """Every table's last lines: the invariant violations (in red; none expected) and the
    rules the run played by."""
    if violations:
        console.print(f"invariant violations: {violations}", style="red")
    console.print(_rules_line(out))


def _print_hands(out: dict[str, Any]) -> None:
    dealer = "drawn" if out["dealer"] is None else str(out["dealer"])
    classic = _classic(out)
    table = Table(title=f"Ronda hands{' (classic: nothing scores, C1)' if classic else ''}: "
                  f"{out['players']} players, {out['hands']:,} hands, dealer {dealer}, "
                  f"seed {out['seed']}")
    win = "P(win hand: most cards) [95% CI]" if classic else "P(win hand) [95% CI]"
    for col in ("side", "policies", *(() if classic else ("points [95% CI]",)),
                "cards [95% CI]", win):
        table.add_column(col)
    names = _side_names(out)
    for t, (name, pol) in enumerate(zip(names, _side_policies(out), strict=True)):
        points = () if classic else (_ci(out["points_mean"][t], out["points_ci"][t], 3),)
        table.add_row(name, pol, *points, _ci(out["cards_mean"][t], out["cards_ci"][t], 3),
                      _ci(out["hand_win_rate"][t], out["hand_win_ci"][t], 4))
    by_source = {} if classic else out["points_by_source"]
    sources = Table(title="Derbas, re-hits and Missas per hand" if classic
                    else "Points per hand by source")
    for col in ("side", *by_source, "Derbas", "re-hits", "Missas"):
        sources.add_column(col)
    for t, name in enumerate(names):
        sources.add_row(name, *(f"{v[t]:.3f}" for v in by_source.values()),
                        *(f"{out[k][t]:.3f}" for k in ("derbas_mean", "rehits_mean",
                                                       "missas_mean")))
    held = " (held; classic announces nothing)" if classic else ""
    console = _console()
    console.print(table)
    console.print(sources)
    console.print(f"no hand winner: {_ci(out['hand_tie_rate'], out['hand_tie_ci'], 4)}\n"
                  f"Rondas per 4-card holding{held}: "
                  f"{_ci(out['ronda_rate'], out['ronda_ci'], 5)}\n"
                  f"Tringlas per 4-card holding{held}: "
                  f"{_ci(out['tringla_rate'], out['tringla_ci'], 5)}\n"
                  "(95% intervals; hand wins Wilson; n/a: one hand gives no interval)")
    _footer(console, out["violations"], out)


def _print_matches(out: dict[str, Any]) -> None:
    dealer = "drawn" if out["dealer"] is None else str(out["dealer"])
    rules = out["rules"]
    classic = _classic(out)
    goal = (f"first to {rules['hands_to_win']} hand wins (classic)" if classic
            else f"to {rules['target']} points")
    table = Table(title=f"Ronda matches {goal}: {out['players']} players, {out['matches']:,} "
                  f"matches, first dealer {dealer}, seed {out['seed']}")
    cols = (("hands won per match", "cards per hand") if classic
            else ("final score [95% CI]", "points per hand"))
    for col in ("side", "policies", "P(win) [95% CI]", *cols):
        table.add_column(col)
    for t, (name, pol) in enumerate(zip(_side_names(out), _side_policies(out), strict=True)):
        cells = ((f"{out['hand_wins_per_match'][t]:.3f}", f"{out['cards_per_hand'][t]:.3f}")
                 if classic else (_ci(out["score_mean"][t], out["score_ci"][t], 2),
                                  f"{out['points_per_hand'][t]:.3f}"))
        table.add_row(name, pol, _ci(out["win_rate"][t], out["win_ci"][t], 4), *cells)
    console = _console()
    console.print(table)
    q = out["hands_quantiles"]
    console.print(f"hands per match: mean {_ci(out['hands_mean'], out['hands_ci'], 3)}, "
                  "quantiles " + ", ".join(f"{k} {v}" for k, v in q.items()) + "\n"
                  "first player's side: P(win) "
                  f"{_ci(out['first_player_win_rate'], out['first_player_win_ci'], 4)}, "
                  "advantage "
                  f"{_ci(out['first_player_advantage'], out['first_player_advantage_ci'], 4)}\n"
                  f"unfinished after {out['max_hands']} hands: {out['unfinished']}\n"
                  "(95% intervals; win rates Wilson; n/a: one match gives no interval)")
    _footer(console, out["violations"], out)


def _print_compare(out: dict[str, Any]) -> None:
    table = Table(title=f"Ronda duplicate: {out['policy_a']} (A) against {out['policy_b']} (B), "
                  f"{out['players']} players, {out['deals']:,} deal sets ({out['plays']:,} "
                  f"matches), seed {out['seed']}")
    for col in ("", "A", "B", "A - B [95% CI]"):
        table.add_column(col)
    table.add_row("P(win match)", _ci(out["win_rate_a"], out["win_ci_a"], 4),
                  _ci(out["win_rate_b"], out["win_ci_b"], 4),
                  _ci(out["win_rate_diff"], out["win_rate_diff_ci"], 4))
    if not _classic(out):  # C1: classic mode scores nothing; it plays for cards (C2)
        table.add_row("points per hand", "", "",
                      _ci(out["points_diff"], out["points_diff_ci"], 3))
    table.add_row("cards per hand", "", "", _ci(out["cards_diff"], out["cards_diff_ci"], 3))
    console = _console()
    console.print(table)
    console.print(f"hands per match: {out['hands_mean']:.3f}; unfinished after "
                  f"{out['max_hands']} hands: {out['unfinished']}\n"
                  "(paired 95% intervals over deal sets; win rates Wilson; n/a: one deal set "
                  "gives no interval)")
    _footer(console, out["violations"], out)


def _print_ladder(out: dict[str, Any]) -> None:
    console = _console()

    def title(t: dict[str, Any]) -> str:
        teams = " in two teams" if t["rules"]["teams"] == "on" else ""
        return (f"Ronda ladder: {t['players']} players{teams}, {out['deals']:,} deal sets per "
                f"pairing, seed {out['seed']}")

    def cells(t: dict[str, Any], q: dict[str, Any]) -> list[str]:
        return [_ci(q["win_rate_diff"], q["win_rate_diff_ci"], 4),
                "" if _classic(t) else _ci(q["points_diff"], q["points_diff_ci"], 3),
                _ci(q["p_a"], q["p_a_ci"], 4), f"{q['p_a_fit']:.4f}", f"{q['n_eff']:,.0f}"]

    def columns(t: dict[str, Any]) -> tuple[str, ...]:
        seat = "" if len(t["sides"]) == 2 else " (B's per seat)"
        return (f"P(win match) A - B{seat} [95% CI]", "points per hand A - B [95% CI]",
                "P(A beats B) [95% CI]", "fitted", "n_eff")

    show_ladder(
        out, console, title=title, rating=lambda r: _ci(r["rating"], r["ci95"], 0),
        columns=columns, cells=cells,
        footer=lambda t: _footer(console, sum(q["violations"] for q in t["pairings"]), t))


add_run(app, _API, "hands", switches=api.HAND_SWITCHES, count=api.HANDS,
        policies_help=_POLICIES,
        dealer_help="The dealer's seat (default: drawn at random for every hand, rule D3).",
        doc="Single hands: points by side and by source, cards, hand wins, Rondas and "
        "Tringlas.", show=_print_hands, engine=("hands", "the hand kernel"))
add_run(app, _API, "matches", switches=api.MATCH_SWITCHES, count=api.MATCHES,
        policies_help=_POLICIES,
        dealer_help="The first dealer's seat (default: drawn at random for every match, rule "
        "D3).",
        doc="Whole matches: win rate by side, match length, first-player advantage.",
        show=_print_matches, engine=("matches", "the match kernel"))
add_compare(app, _API, switches=api.MATCH_SWITCHES, deals=api.DEALS,
            a_help=f"Policy A, e.g. lookahead:2: {KINDS.kinds_help()}.",
            b_help="Policy B, e.g. greedy.", dealer_help=_SET_DEALER,
            doc="Policy A against policy B in duplicate: same deals, seats swapped; paired "
            "differences.", show=_print_compare, engine=("deal sets", "the match kernel"))
add_ladder(app, _API, switches=api.LADDER_SWITCHES, deals=api.DEALS,
           policies_help="The policies to rank, at least two, each once, e.g. "
           "greedy,lookahead:1,rollout:32,random; the first is the anchor, rated 0. Syntax: "
           + KINDS.help() + ".",
           players_help="Players at the table: 2, 3 or 4 (rule D2), or several table sizes, "
           "e.g. 2,3 (each ranked apart).", players_default="2", dealer_help=_SET_DEALER,
           doc="""Every policy against every other in duplicate (compare), ranked by Elo ratings.

    Each pairing is compare A B with a seed of its own (with 3 or 4 players alone also compare
    B A, each on half the deal sets); a Bradley-Terry fit gives the ratings,
    on the Elo scale with the first listed policy at 0, with 95% intervals from the inverse
    Fisher information.""", show=_print_ladder)


@app.command()
@api.MATCH_SWITCHES.options
def play(
    switches: dict[str, Any],
    policies: Annotated[str | None, typer.Option(
        "--policies", help="The other seats' policies, one per player in seat order (your "
        "seat's entry is not used; it may be 'human') or one for all (default greedy). Syntax: "
        + KINDS.help() + ".")] = None,
    seat: Annotated[int, typer.Option("--seat", help="Your seat, 0 .. players-1 (the first "
                                      "dealer is drawn unless --dealer is given).")] = 0,
    seed: Annotated[int | None, typer.Option(
        "--seed", help="Random seed, 0 .. 2**63-1 (default: a fresh one, printed so that the "
        "game can be replayed).")] = None,
    dealer: Annotated[int | None, typer.Option(
        "--dealer", help="The first dealer's seat (default: drawn at random, rule D3).")
    ] = None,
    match: Annotated[bool, typer.Option("--match", help="Play a whole match (to --target, or "
                                        "--hands-to-win hands in classic mode) instead of one "
                                        "hand.")] = False,
) -> None:
    """Play Ronda at the terminal against the chosen policies."""
    import secrets

    from simcards.core.cli_options import check_seed
    from simcards.core.errors import UsageError

    rules = api.make_rules(**switches, match=match)
    check_seat(seat, rules.players, "--seat")
    items = [s.strip() for s in (policies or "").split(",")]
    if len(items) == rules.players and items[seat].lower() == "human":
        items[seat] = "greedy"  # the person's entry is not used; "human" may stand there
        policies = ",".join(items)
    specs = api.seat_policies(rules.players, policies)
    for spec in specs:
        check_legal(spec)  # Q9: a policy that sees hidden cards is no player
    dealer = check_seat(dealer, rules.players)
    if seed is None:
        seed = secrets.randbits(63)
        typer.echo(f"seed {seed}", err=True)
    check_seed(seed)
    try:
        from simcards.ronda.terminal import run_play
    except ModuleNotFoundError as exc:
        if exc.name != "simcards.ronda.terminal":
            raise
        raise UsageError("ronda play is not available in this build (simcards.ronda.terminal "
                         "is missing)") from None
    run_play(rules, specs, seat=seat, seed=seed, dealer=dealer, match=match)


def _cards_opt(flag: str, help: str) -> Any:
    return Annotated[str | None, typer.Option(flag, help=help)]


@app.command()
@api.MATCH_SWITCHES.options
@run_options("as_json")
def advise(
    hand: _cards_opt("--hand", "Your hand, e.g. '1o 7c 12e' (cards as ronda play shows them).")
    = None,
    table: _cards_opt("--table", "The cards on the table.") = None,
    pile: _cards_opt("--pile", "An open pile in play, bottom first (X3); its last hitter is "
                     "the previous player.") = None,
    previous: _cards_opt("--previous", "The card the previous play laid on the table, if it "
                         "laid one (a Derba takes it, X1).") = None,
    captured: _cards_opt("--captured", "Each side's captured cards, sides apart by ';', e.g. "
                         "'2o 2c; 6b' (default: none yet).") = None,
    face_up: _cards_opt("--face-up", "Three players: the card turned face up at the deal "
                        "(D5).") = None,
    announcements: Annotated[str | None, typer.Option(
        "--announcements", help="The announcements of the deal in progress, SEAT:KIND VALUE "
        "apart by ';', e.g. '1:ronda 7; 0:tringla 12' ('' for none made): the samples are held "
        "to them (A2). Not given: not stated, and the samples are held to none.")] = None,
    deal_plays: _cards_opt("--deal-plays", "The cards played since the deal in progress, in "
                           "play order (needed with --announcements once someone has played)."
                           ) = None,
    scores: Annotated[str | None, typer.Option(
        "--scores", help="In a match: each side's score now, e.g. '12,17' (this hand's points "
        "so far included): each card also gets its side's match win probability (to "
        "--target).")] = None,
    hands_won: Annotated[str | None, typer.Option(
        "--hands-won", help="In a classic match (--mode classic): the hands each side has won "
        "so far, e.g. '1,0': each card also gets its side's match win probability (to "
        "--hands-to-win).")] = None,
    last_capturer: Annotated[int | None, typer.Option(
        "--last-capturer", help="The seat that captured last (U1: the table left at the end "
        "is his).")] = None,
    seat: Annotated[int | None, typer.Option("--seat", help="Your seat, the one to play "
                                             "(default 0).")] = None,
    dealer: Annotated[int | None, typer.Option(
        "--dealer", help="The dealer's seat (default: the seat on your right, so that you "
        "play first in the round).")] = None,
    position: Annotated[str | None, typer.Option(
        "--position", help="A JSON or TOML file with the position's fields instead (hand, "
        "table, pile, previous, captured, face_up, last_capturer, seat, dealer, "
        "announcements, deal_plays, scores, hands_won), as ronda play's 's' key writes it.")
    ] = None,
    iterations: Annotated[int, typer.Option(
        "--iterations", help="The search's iterations (ismcts:N, Q8) where something is "
        "hidden.")] = 1000,
    budget: Annotated[int | None, typer.Option(
        "--budget", help="Double the iterations, up to this many, until the best two cards' "
        "intervals part (default: no doubling).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="The search's random seed.")] = 0,
    *, switches: dict[str, Any], run: dict[str, Any],
) -> None:
    """What to play here: every card of your hand ranked by its expected point margin over
    the rest of the hand, exact where nothing is hidden (two players, last deal), else from
    the ismcts search with 95% intervals; with --scores (--hands-won in classic mode), its
    match win probability too."""
    _API.call("advise", hand=hand, table=table, pile=pile, previous=previous,
              captured=captured, face_up=face_up, announcements=announcements,
              deal_plays=deal_plays, scores=scores, hands_won=hands_won,
              last_capturer=last_capturer, seat=seat, dealer=dealer, position=position,
              iterations=iterations, budget=budget, seed=seed, **switches, run=run,
              show=_print_advice)


def _print_advice(out: dict[str, Any]) -> None:
    pos = out["position"]
    console = _console()
    console.print(f"Ronda, {out['players']} players: seat {pos['seat']} to play, dealer "
                  f"{pos['dealer']}, deal {pos['deal'] + 1}, {pos['stock']} cards in the "
                  f"stock; hand {pos['hand']}, table {pos['table'] or '(empty)'}")
    if pos["announcements"] is not None:
        said = ", ".join(pos["announcements"]) or "none"
        points = pos["announcement_points"]
        console.print(f"Announcements of this deal: {said}"
                      + (f" (points by side: {', '.join(map(str, points))})" if points else ""))
    if pos["scores"] is not None:
        console.print(f"Scores now: {', '.join(map(str, pos['scores']))} (match to "
                      f"{out['rules']['target']})")
    if pos.get("hands_won") is not None:
        console.print(f"Hands won: {', '.join(map(str, pos['hands_won']))} (match to "
                      f"{out['rules']['hands_to_win']} hands won)")
    from simcards.ronda.terminal import advice_table

    console.print(advice_table(out))
    if not out["exact"]:
        parted = ("the best two cards' intervals part" if out["separated"] else
                  "the best two cards' intervals overlap: --budget searches longer")
        console.print(f"The search plays {out['choice']}; {parted}.")
    if out.get("match_method"):
        console.print(f"Match win probability: {out['match_method']}.")
        best = out["moves"][0]["card"]
        if out["match_best"] not in (None, best):
            console.print(f"For the match, {out['match_best']} is best; for the hand's "
                          f"margin, {best}.")
