"""``simcards romi ...`` commands: ``melds``, the exact meld solver's answers (V1-V4 of
``seeds/romi.md``; V5 with ``--table``) for one hand or a file of hands; ``rounds`` and
``games``, Monte Carlo rounds and games under chosen policies; ``compare``, two policies on the
same deals with the seats rotated; ``ladder``, every listed policy against every other by
``compare``, ranked by Bradley-Terry ratings.

The commands only read their flags, call :mod:`simcards.romi.api` (which checks them and
computes) and print; the same functions serve Python callers.

Options shared with other commands are declared once and written into each signature: the
rule switches of :class:`~simcards.romi.rules.RomiRules` and the run options.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from simcards.core.cli_options import JsonOpt, api_run, emit_json, run_options
from simcards.core.console import make_console, table_console
from simcards.romi import table_batch as TB
from simcards.romi.policies import KINDS, SEEING_NOTE
from simcards.romi.rules import GAME_SWITCHES, LADDER_SWITCHES, MELDS_SWITCHES, ROUND_SWITCHES

app = typer.Typer(help="Römi húngaro, the two-deck rummy with jokers.", no_args_is_help=True)

HandOpt = Annotated[str | None, typer.Option(
    "--hand", help="One hand, e.g. \"Ah 2h 3h 7c 7d 7s X\": rank (A 2..9 T J Q K, 10 also) and "
    "suit (s h d c), either case; X a joker; at most 16 cards (rule D1).")]
FileOpt = Annotated[str | None, typer.Option(
    "--file", help="A text file (UTF-8) with one hand a line (blank lines and lines starting "
    "with # are skipped).")]
TableOpt = Annotated[str | None, typer.Option(
    "--table", help="Melds on the table, separated by ';', e.g. \"5h X 7h; 7c 7d 7s X; Qh Kh "
    "X=Ah\" (X=card: what a joker stands for, needed at the end of a run). Answers V5 for a "
    "player who has opened, for --hand or every line of --file. JSON then adds 'table' and, "
    "per hand, 'additions' ({card, meld, place}: what each table meld takes on its own, place "
    "low/high/set) and 'swaps' ({meld, card, joker_as}: the table jokers the hand can take); "
    "'melds' becomes the lay-down as moves in playing order: {action: add, card, meld, place}, "
    "{action: swap, card, meld, joker_as, joker_to} and {action: lay, meld, cards}, new melds "
    "numbered after the table's.")]


@app.command()
@MELDS_SWITCHES.options
def melds(hand: HandOpt = None, file: FileOpt = None, *, switches: dict[str, Any],
          table: TableOpt = None, json: JsonOpt = False) -> None:
    """The exact meld solver: each hand's best lay-down and what it leaves (rules V1-V5).

    For every hand: the best lay-down value, the least penalty left, whether the hand can go
    out, and one best lay-down (V1-V4); with --table, the same given the melds on the table
    (V5), with the additions and joker swaps the hand allows."""
    from simcards.romi import api

    # .data, not .to_dict(): the command only reads the answer, so a file of 20,000 hands
    # is not copied before it prints
    out = api.melds(hand=hand, file=file, **switches, table=table).data
    if json:
        emit_json(out)
        return
    with_table = table is not None
    title = ("Römi meld solver (rule V5, table: "
             + " | ".join(f"{i}: {m}" for i, m in enumerate(out["table"])) + ")"
             if with_table else "Römi meld solver (rules V1-V4)")
    cols = ["hand", "best_value", "min_penalty", "can_go_out", "melds"]
    if with_table:
        cols += ["additions", "swaps"]
    rows = []
    for r in out["hands"]:
        row = [r["hand"], str(r["best_value"]), str(r["min_penalty"]),
               "yes" if r["can_go_out"] else "no"]
        if with_table:
            row += ["; ".join(api.step_text(s) for s in r["melds"]) or "-",
                    "; ".join(f"{x['card']} to {x['meld']} ({x['place']})"
                              for x in r["additions"]) or "-",
                    "; ".join(f"{x['card']} for X in {x['meld']}" for x in r["swaps"]) or "-"]
        else:
            row.append(" | ".join(r["melds"]) or "-")
        rows.append(row)
    typer.echo(_plain_table(title, cols, rows, right={"best_value", "min_penalty"}))


def _plain_table(title: str, cols: list[str], rows: list[list[str]], right: set[str]) -> str:
    """A table as plain aligned lines, one per row, headings whole: a file of 20,000 hands
    prints in a blink, where a laid-out terminal table measures and wraps every cell (and cut
    the headings short in a narrow terminal). The last column is not padded."""
    widths = [max([len(c), *(len(r[i]) for r in rows)]) for i, c in enumerate(cols)]

    def line(cells: list[str]) -> str:
        parts = [cell.rjust(w) if col in right else cell.ljust(w)
                 for col, cell, w in zip(cols[:-1], cells[:-1], widths[:-1], strict=True)]
        return "  ".join([*parts, cells[-1]]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([title, line(cols), rule, *(line(r) for r in rows)])


_COUNTS = "k = 1,000, M = 1,000,000"

def _kinds_help() -> str:
    """The policy kinds with their parameters' ranges and defaults, from their declaration."""
    k = KINDS.kind("rummy").params[0]
    x = KINDS.kind("threshold").params[0]
    n = KINDS.kind("search").params[0]
    return (f"greedy (Q2), rummy:K (Q3: plays for a one-turn Römi until an opponent holds K "
            f"cards or fewer; K {k.low} to {k.high}, plain rummy is rummy:{k.default}), "
            f"threshold:X (Q4: opens only with X points or more; X from --open-min to {x.high}, "
            f"plain threshold is threshold:{x.default}), expert (Q5), search:N (Q7: expert's "
            f"turns weighed against their alternatives by N determinized play-outs each; N "
            f"{n.low} to {n.high}, plain search is search:{n.default}; about 3 rounds a "
            f"second at N = 16), seeing:N (Q8: {SEEING_NOTE}) or random (Q6: uniform over "
            f"the legal moves, one move at a time; the compiled engine decides whole turns and "
            f"has no such player, so a run with a random seat plays every seat on the table "
            f"engine of the environments, about {TB.ROUNDS_PER_SECOND[2]} rounds a second at "
            f"2 players, and seats no search or seeing with it)")


PoliciesOpt = Annotated[str | None, typer.Option(
    "--policies", help="One policy per player in seat order, e.g. greedy,rummy:4,threshold:70,"
    f"expert, or one for all (default greedy): {_kinds_help()}.")]
def _ci(x: float, ci: list, digits: int) -> str:
    if ci[0] is None:
        return f"{x:.{digits}f}"
    return f"{x:.{digits}f} [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _print(out: dict[str, Any]) -> None:
    title = (f"Römi {out['command']}: {out['players']} players, "
             f"{out[out['command']]:,} {out['command']}, seed {out['seed']}")
    table = Table(title=title)
    cols = ["player", "policy", "score/round [95% CI]", "went out", "-20", "never opened"]
    if out["command"] == "games":
        cols[2:2] = ["P(win) [95% CI]", "score/game [95% CI]"]
    for col in cols:
        table.add_column(col)
    for p in range(out["players"]):
        row = [str(p), out["policies"][p]]
        if out["command"] == "games":
            row += [_ci(out["win_rate"][p], out["win_ci"][p], 4),
                    _ci(out["game_score_mean"][p], out["game_score_ci"][p], 1)]
        row += [_ci(out["score_mean"][p], out["score_ci"][p], 2),
                f"{out['go_out_rate'][p]:.4f}", f"{out['rummy_rate'][p]:.4f}",
                f"{out['never_opened_rate'][p]:.4f}"]
        table.add_row(*row)
    console = make_console()
    console.print(table)
    q = out["turns_quantiles"]
    console.print(f"turns per round: mean {_ci(out['turns_mean'], out['turns_ci'], 2)}, "
                  "quantiles " + ", ".join(f"{k} {v}" for k, v in q.items())
                  + f"\nstalled rounds (T9): {out['stalled_rate']:.5f}\n(95% intervals)")


@app.command()
@ROUND_SWITCHES.options
@run_options()
def rounds(
    switches: dict[str, Any],
    policies: PoliciesOpt = None,
    n_rounds: Annotated[str, typer.Option(
        "--rounds", help=f"Rounds to simulate: 10000, 1e4 or 10k ({_COUNTS}); at most 1e9.")
    ] = "10k",
    dealer: Annotated[int | None, typer.Option(
        "--dealer", help="The dealer's seat (default: drawn for every round, rule D3).")] = None,
    *,
    run: dict[str, Any],
) -> None:
    """Single rounds: score by player, going out, Römi (-20), never opened, round length."""
    from simcards.romi import api

    out = api.rounds(**switches, policies=policies, rounds=n_rounds, dealer=dealer,
                     **api_run(run)).data
    if run["as_json"]:
        emit_json(out)
        return
    _print(out)


@app.command()
@GAME_SWITCHES.options
@run_options()
def games(
    switches: dict[str, Any],
    policies: PoliciesOpt = None,
    n_games: Annotated[str, typer.Option(
        "--games", help=f"Games to simulate: 2000, 2e3 or 2k ({_COUNTS}); at most 1e8.")
    ] = "2k",
    *,
    run: dict[str, Any],
) -> None:
    """Whole games: win rate by player (shared wins split), game and round scores."""
    from simcards.romi import api

    out = api.games(**switches, policies=policies, games=n_games,
                    **api_run(run)).data
    if run["as_json"]:
        emit_json(out)
        return
    _print(out)


def _mean_ci(d: dict[str, Any], digits: int, signed: bool = False) -> str:
    s = "+" if signed else ""
    lo, hi = d["ci"]
    if lo is None:
        return f"{d['mean']:{s}.{digits}f}"
    return f"{d['mean']:{s}.{digits}f} [{lo:{s}.{digits}f}, {hi:{s}.{digits}f}]"


def _print_compare(out: dict[str, Any]) -> None:
    n = out["players"]
    table = Table(title=f"Römi compare: {out['a']} (A) v {out['b']} (B), {n} players, "
                        f"{out['deal_sets']:,} deal sets of {out['rules']['rounds']} rounds, "
                        f"seed {out['seed']}")
    for col in ("policy", "score/round [95% CI]", f"P(win) per seat [95% CI] (fair 1/{n})",
                "went out", "-20", "never opened"):
        table.add_column(col)
    for side in ("a", "b"):
        table.add_row(f"{side.upper()}: {out[side]}", _mean_ci(out["score_mean"][side], 2),
                      _mean_ci(out["win_rate"][side], 4), f"{out['go_out_rate'][side]:.4f}",
                      f"{out['rummy_rate'][side]:.4f}", f"{out['never_opened_rate'][side]:.4f}")
    console = make_console()
    console.print(table)
    console.print(f"A minus B, paired over deal sets: score per round "
                  f"{_mean_ci(out['score_diff'], 3, True)} (negative: A concedes fewer points, "
                  f"A is better); game win rate {_mean_ci(out['win_rate_diff'], 4, True)}\n"
                  f"{out['rounds_played']:,} rounds played, stalled (T9) "
                  f"{out['stalled_rate']:.5f} (95% intervals)")


@app.command()
@GAME_SWITCHES.options
@run_options()
def compare(
    policy_a: Annotated[str, typer.Argument(
        metavar="A", help=f"Policy A: {_kinds_help()}.")],
    policy_b: Annotated[str, typer.Argument(metavar="B", help="Policy B, e.g. greedy.")],
    switches: dict[str, Any],
    n_deals: Annotated[str, typer.Option(
        "--deals", help=f"Deal sets, each one game per seat rotation of A (A in one seat, B in "
        f"the others), all on the same decks: 1000, 1e3 or 1k ({_COUNTS}); at most 1e8.")
    ] = "1k",
    dealer: Annotated[int | None, typer.Option(
        "--dealer", help="The first dealer's seat in every deal set (default: drawn for every "
        "set, rule D3).")] = None,
    *,
    run: dict[str, Any],
) -> None:
    """Policy A against policy B on the same deals, seats rotated: paired differences.

    The differences A minus B in score per round (NEGATIVE means A concedes fewer points: A is
    better) and in game win rate, paired over deal sets, with 95% intervals."""
    from simcards.romi import api

    out = api.compare(policy_a, policy_b, **switches, deals=n_deals,
                      dealer=dealer, **api_run(run)).data
    if run["as_json"]:
        emit_json(out)
        return
    _print_compare(out)


@app.command()
@LADDER_SWITCHES.options
@run_options()
def ladder(
    policies: Annotated[str | None, typer.Option(
        "--policies", help="The policies to rank, at least two, each once, e.g. "
        f"greedy,expert,rummy:4,threshold:70; the first is the anchor, rated 0: "
        f"{_kinds_help()}.")] = None,
    players: Annotated[str, typer.Option(
        "--players", help="Players: 2 to 5 (rule D2), or several table sizes, e.g. 2,4 (each "
        "ranked apart).")] = "4",
    *,
    switches: dict[str, Any],
    n_deals: Annotated[str, typer.Option(
        "--deals", help=f"Deal sets per pairing, as in compare: 1000, 1e3 or 1k ({_COUNTS}); at "
        "most 1e8.")] = "1k",
    dealer: Annotated[int | None, typer.Option(
        "--dealer", help="The first dealer's seat in every deal set (default: drawn for every "
        "set, rule D3).")] = None,
    run: dict[str, Any],
) -> None:
    """Every policy against every other (compare), ranked by Bradley-Terry (Elo) ratings.

    Each pairing is compare A B with a seed of its own (with 3 or more players also compare
    B A, each on half the deal sets); the ratings, on the Elo scale with the
    first listed policy at 0, have 95% intervals from the inverse Fisher information."""
    from simcards.romi import api

    out = api.ladder(policies=policies, players=players, **switches, deals=n_deals,
                     dealer=dealer, **api_run(run)).data
    if run["as_json"]:
        emit_json(out)
        return
    _print_ladder(out)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _print_ladder(out: dict[str, Any]) -> None:
    from simcards.core.ladder import fit_sentence

    console = table_console()  # a terminal's own width, else 120 columns: intervals whole
    for t in out["tables"]:
        n = t["players"]
        ratings = Table(title=f"Römi ladder: {n} players, {out['deals']:,} deal sets of "
                        f"{t['rules']['rounds']} rounds per pairing, seed {out['seed']}")
        for col in ("rank", "policy", "Elo rating [95% CI]"):
            ratings.add_column(col)
        by_name = {r["policy"]: r for r in t["ratings"]}
        for rank, name in enumerate(t["order"], 1):
            r = by_name[name]
            rating = ("0 (anchor)" if name == out["anchor"] else
                      _mean_ci({"mean": r["rating"], "ci": r["ci95"]}, 0))
            ratings.add_row(str(rank), name, rating)
        pairings = Table(title="Pairings (each is compare A B with its seed, in the JSON)")
        for col in ("A", "B", "P(win) per seat A - B [95% CI]", "score/round A - B [95% CI]",
                    "P(A beats B) [95% CI]", "fitted", "n_eff"):
            pairings.add_column(col)
        for q in t["pairings"]:
            p_ci = q["p_a_ci"] or [None, None]
            pairings.add_row(q["a"], q["b"], _mean_ci(q["win_rate_diff"], 4, True),
                             _mean_ci(q["score_diff"], 2, True),
                             _mean_ci({"mean": q["p_a"], "ci": p_ci}, 4),
                             f"{q['p_a_fit']:.4f}", f"{q['n_eff']:,.0f}")
        console.print(ratings)
        console.print(pairings)
        console.print(f"{_sentence(t['summary'])}\n{_sentence(t['separation'])}\n"
                      + fit_sentence(t["fit"], out["anchor"]) + "\n(score/round: points "
                      "against A minus against B; negative: A concedes fewer points, A is "
                      "better)")
        console.print("rules: " + ", ".join(f"{k}={v}" for k, v in t["rules"].items()))
