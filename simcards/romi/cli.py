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

from typing import Any

import typer
from rich.table import Table

from simcards.core.cli_options import JsonOpt, emit_json, option
from simcards.core.commands import GameApi, add_compare, add_ladder, add_run, show_ladder
from simcards.core.console import make_console, table_console
from simcards.romi import rules as R
from simcards.romi import table_batch as TB
from simcards.romi.policies import KINDS

app = typer.Typer(help="Römi húngaro, the two-deck rummy with jokers.", no_args_is_help=True)

HandOpt = option(
    "--hand", "One hand, e.g. \"Ah 2h 3h 7c 7d 7s X\": rank (A 2..9 T J Q K, 10 also) and "
    "suit (s h d c), either case; X a joker; at most 16 cards (rule D1).")
FileOpt = option(
    "--file", "A text file (UTF-8) with one hand a line (blank lines and lines starting "
    "with # are skipped).")
TableOpt = option(
    "--table", "Melds on the table, separated by ';', e.g. \"5h X 7h; 7c 7d 7s X; Qh Kh "
    "X=Ah\" (X=card: what a joker stands for, needed at the end of a run). Answers V5 for a "
    "player who has opened, for --hand or every line of --file. JSON then adds 'table' and, "
    "per hand, 'additions' ({card, meld, place}: what each table meld takes on its own, place "
    "low/high/set) and 'swaps' ({meld, card, joker_as}: the table jokers the hand can take); "
    "'melds' becomes the lay-down as moves in playing order: {action: add, card, meld, place}, "
    "{action: swap, card, meld, joker_as, joker_to} and {action: lay, meld, cards}, new melds "
    "numbered after the table's.")


@app.command()
@R.MELDS_SWITCHES.options
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


PosHandOpt = option(
    "--hand", "The seat's hand before its draw, as for melds --hand, e.g. \"Ah 2h 3h 7c 7d 7s X "
    "...\" (14 cards before opening, 15 for the starter's first turn).")
PosTableOpt = option(
    "--table", "Melds on the table, as for melds --table (';' between melds).")
DiscardOpt = option("--discard", "The top card of the discard pile, e.g. Qd (none if empty).")
CutOpt = option("--cut", "The cut card beside the stock, e.g. 7c (rule D3; none if taken).")
OpenedOpt = option("--opened/--not-opened", "Whether the seat has opened (rule O1).",
                   bool | None)
OthersOpt = option(
    "--others", "The other players' hand sizes, in playing order from the seat's left, e.g. "
    "14,14,13 (2 to 5 players in all, rule D2).")
OthersOpenedOpt = option(
    "--others-opened", "Whether each other player has opened, in the order of --others, e.g. "
    "no,yes,no.")
TurnOpt = option(
    "--turn", "The round's turn being played: 1 for the starter's first (a discard only, "
    "D4), then one more for every player's turn.", int | None)
PositionFileOpt = option(
    "--position", "A .json or .toml file with the position instead of the flags: keys "
    "hand, table, discard, cut, opened, others, others_opened, turn, drawn.")
DrawnOpt = option(
    "--drawn", "The card you have drawn from the stock this turn, e.g. 5h: the moves are then "
    "the rest of the turn (rule Q10; --hand is the hand before it).")
SamplesOpt = option(
    "--samples", "Play-outs of the search player per move (rule Q10; 0: the exact answers "
    "only).", int)
BudgetOpt = option(
    "--budget", "Double the samples, up to this many, until the best two moves' intervals "
    "part (default: no doubling).", int | None)
SeedOpt = option("--seed", "The play-outs' random seed.", int)


@app.command()
@R.ADVISE_SWITCHES.options
def advise(hand: PosHandOpt = None, table: PosTableOpt = None, discard: DiscardOpt = None,
           cut: CutOpt = None, opened: OpenedOpt = None, others: OthersOpt = None,
           others_opened: OthersOpenedOpt = None, turn: TurnOpt = None,
           position: PositionFileOpt = None, drawn: DrawnOpt = None,
           samples: SamplesOpt = 100, budget: BudgetOpt = None, seed: SeedOpt = 0, *,
           switches: dict[str, Any], json: JsonOpt = False) -> None:
    """What to play from one position: best lay-down, draws, every move's expected penalty.

    The exact part of the advice: the best arrangement of the hand by the meld solver (V1-V5)
    and whether it opens (O1, O2); each source of the draw, whether it is legal (T3-T5) and
    the score of going out this turn with it (G2, G3); for the stock, the chance of a card
    that lets the seat go out. Then every move (a draw, expert's or the holding plan, a
    discard; closing now among them) ranked by the seat's expected round score from the
    search player's play-outs, with 95% intervals (Q10). An impossible position is refused
    in one line."""
    from simcards.romi import api

    out = api.advise(hand=hand, table=table, discard=discard, cut=cut, opened=opened,
                     others=others, others_opened=others_opened, turn=turn,
                     position=position, drawn=drawn, samples=samples, budget=budget,
                     seed=seed, **switches).data
    if json:
        emit_json(out)
        return
    pos, arr = out["position"], out["arrangement"]
    lines = [f"Römi advice: turn {pos['turn']}, {pos['players']} players, hand {pos['hand']}"
             + (" (opened)" if pos["opened"] else " (not opened)")]
    if pos["table"]:
        lines.append("table: " + " | ".join(f"{i}: {m}" for i, m in enumerate(pos["table"])))
    steps = [api.step_text(s) if isinstance(s, dict) else s for s in arr["melds"]]
    lines.append(f"best lay-down (V1-V5): {' | '.join(steps) or '-'}; value {arr['value']}, "
                 f"{arr['min_penalty']} left in hand"
                 + ("" if arr["opens"] is None else
                    f"; opens at {out['rules']['open_min']} (O1, O2): "
                    + ("yes" if arr["opens"] else "no")))
    if not out["draws"]:
        lines.append("the starter's first turn: a discard only (D4)")
    for d in out["draws"]:
        name = d["source"] + (f" {d['card']}" if d["card"] else "")
        if not d["legal"]:
            lines.append(f"draw {name}: not legal ({d['rule']})")
            continue
        how = (f"goes out with {d['go_out_chance']:.3f} of the unseen cards"
               if d["source"] == "stock" and d["card"] is None else
               f"goes out for {d['go_out']}" if d["go_out"] is not None else "does not go out")
        lines.append(f"draw {name} ({d['rule']}): {how}")
    close = out["close_now"]
    drawn = out["position"].get("drawn")
    lines.append("close now: " + ("no" if close is None else
                                  f"go out with the {drawn} drawn for {close['score']} (G2, G3)"
                                  if drawn else
                                  f"take the {close['source']} and go out for {close['score']} "
                                  "(G2, G3)"))
    if "moves" in out:
        lines += ["", _moves_table(out)]
    typer.echo("\n".join(lines))


def _moves_table(out: dict[str, Any]) -> str:
    """Q10's ranked moves as plain lines, best first, with the search that valued them."""
    search = out["search"]
    rows = []
    for i, m in enumerate(out["moves"], 1):
        draw = "-" if m["draw"] is None else m["draw"] + (f" {m['card']}" if m["card"] else "")
        throw = "go out" if m["closes"] else "(plan's)" if m["discard"] is None else \
            m["discard"]
        if m["closes"]:
            throw += f", discard {m['discard']}"
        ci = m["penalty_ci"]
        rows.append([str(i), draw, m["plan"], throw, f"{m['penalty']:.2f}",
                     "-" if ci is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]"])
    text = _plain_table(f"moves by expected penalty, lower is better ({search['method']})",
                        ["#", "draw", "plan", "discard", "penalty", "95% CI"], rows,
                        right={"#", "penalty"})
    tail = ("the best two moves' intervals part" if search["separated"] else
            "the best two moves' intervals overlap: --budget plays more samples")
    return "\n".join([text, tail, *out["notes"]])


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


_API = GameApi("simcards.romi.api")
_KINDS = (KINDS.kinds_help(docs=True) + ". search:16 plays about 3 rounds a second. The "
          "compiled engine decides whole turns and has no random player, so a run with a "
          "random seat or a function of yours plays every seat on the table engine of the "
          "environments, about "
          f"{TB.ROUNDS_PER_SECOND[2]} rounds a second at 2 players, and seats no search or "
          "seeing with it")
_SET_DEALER = "The first dealer's seat in every deal set (default: drawn for every set, rule D3)."


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


def _print_ladder(out: dict[str, Any]) -> None:
    console = table_console()  # a terminal's own width, else 120 columns: intervals whole

    def cells(t: dict[str, Any], q: dict[str, Any]) -> list[str]:
        p_ci = q["p_a_ci"] or [None, None]
        return [_mean_ci(q["win_rate_diff"], 4, True), _mean_ci(q["score_diff"], 2, True),
                _mean_ci({"mean": q["p_a"], "ci": p_ci}, 4), f"{q['p_a_fit']:.4f}",
                f"{q['n_eff']:,.0f}"]

    show_ladder(
        out, console,
        title=lambda t: (f"Römi ladder: {t['players']} players, {out['deals']:,} deal sets of "
                         f"{t['rules']['rounds']} rounds per pairing, seed {out['seed']}"),
        rating=lambda r: _mean_ci({"mean": r["rating"], "ci": r["ci95"]}, 0),
        columns=lambda t: ("P(win) per seat A - B [95% CI]", "score/round A - B [95% CI]",
                           "P(A beats B) [95% CI]", "fitted", "n_eff"), cells=cells,
        note="\n(score/round: points against A minus against B; negative: A concedes fewer "
        "points, A is better)",
        footer=lambda t: console.print("rules: " + ", ".join(f"{k}={v}"
                                                             for k, v in t["rules"].items())))


add_run(app, _API, "rounds", switches=R.ROUND_SWITCHES, count=R.ROUNDS,
        policies_help="One policy per player in seat order, e.g. greedy,rummy:4,threshold:70,"
        f"expert, or one for all (default greedy). Kinds: {_KINDS}.",
        dealer_help="The dealer's seat (default: drawn for every round, rule D3).",
        doc="Single rounds: score by player, going out, Römi (-20), never opened, round "
        "length.", show=_print)
add_run(app, _API, "games", switches=R.GAME_SWITCHES, count=R.GAMES,
        policies_help="One policy per player in seat order, e.g. greedy,rummy:4,threshold:70,"
        f"expert, or one for all (default greedy). Kinds: {_KINDS}.", dealer_help=None,
        doc="Whole games: win rate by player (shared wins split), game and round scores.",
        show=_print)
add_compare(app, _API, switches=R.GAME_SWITCHES, deals=R.DEALS,
            a_help=f"Policy A, e.g. expert: {_KINDS}.", b_help="Policy B, e.g. greedy.",
            dealer_help=_SET_DEALER, show=_print_compare,
            doc="""Policy A against policy B on the same deals, seats rotated: paired differences.

    The differences A minus B in score per round (NEGATIVE means A concedes fewer points: A is
    better) and in game win rate, paired over deal sets, with 95% intervals.""")
add_ladder(app, _API, switches=R.LADDER_SWITCHES, deals=R.DEALS,
           policies_help="The policies to rank, at least two, each once, e.g. "
           f"greedy,expert,rummy:4,threshold:70; the first is the anchor, rated 0. Kinds: "
           f"{_KINDS}.",
           players_help="Players: 2 to 5 (rule D2), or several table sizes, e.g. 2,4 (each "
           "ranked apart).", players_default="4", dealer_help=_SET_DEALER, show=_print_ladder,
           doc="""Every policy against every other (compare), ranked by Bradley-Terry (Elo) ratings.

    Each pairing is compare A B with a seed of its own (with 3 or more players also compare
    B A, each on half the deal sets); the ratings, on the Elo scale with the
    first listed policy at 0, have 95% intervals from the inverse Fisher information.""")
