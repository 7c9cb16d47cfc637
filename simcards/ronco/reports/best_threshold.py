"""Report: which keep threshold wins Ronco games, 3-10 players, 7 lives.

Three pieces, all on common random numbers:

* win rate of a hero playing (T, Td = T) against a field at (5, 5), every table size;
* the whole (T, Td) win-rate map of a hero at a 7-player table;
* ``simcards ronco best-threshold --players 3-10 --lives 7``: best response, equilibrium, and
  the gain of the informed policy, computed by the very code of that command;
* ``simcards ronco equilibrium --players 3-10``: for both families, the symmetric equilibrium
  as a mixed strategy (pure where one exists), started from what the best-threshold races
  found (the converged pair, or the cycle) and certified by its exploitability (rules E5, E6).
"""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path

import numpy as np
import pandas as pd

from simcards.core.plans import Plan, StageRequest, run_searches
from simcards.core.reports.common import fmt_p, out_dir, quick_banner, save_figure, write_page
from simcards.core.runner import Batch
from simcards.core.stats import Z95, wilson
from simcards.core.store import describe_batch
from simcards.ronco import best_threshold_batch as bt
from simcards.ronco import equilibrium_batch
from simcards.ronco.policies import Policy
from simcards.ronco.reports import bayes as bayes_page
from simcards.ronco.rules import RoncoRules

PLAYERS = list(range(3, 11))
LIVES = 7
FIELD = Policy("threshold", 5, 5)
INFORMED_FIELD = Policy("informed", 5, 5)
HEATMAP_PLAYERS = 7


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    rules = RoncoRules.make()
    values = sorted({int(v) for v in rules.deck_obj.values})
    diag = [Policy("threshold", t, t) for t in values]
    full = bt.grid(rules, "threshold")
    curve_games = 8_192 if quick else 32_768
    map_games = 4_096 if quick else 16_384
    opts = {"seed": seed, "first_stage": 8192, "max_games": 262_144, "min_games": 32_768,
            "z_drop": 3.0, "max_iterations": 3, "gain_games": 262_144}
    sizes = PLAYERS
    budget = equilibrium_batch.Budget()
    if quick:
        opts.update(first_stage=1024, max_games=4096, min_games=2048, gain_games=2048,
                    max_iterations=1)
        sizes = [3, 4]
        budget = equilibrium_batch.Budget(solve_games=2048, final_games=4096, max_iterations=1,
                              cert_games=(1024, 4096))
    # The informed family's table is the secondary answer: half the budget per race.
    informed_opts = {**opts, "gain_games": 0, "max_games": opts["max_games"] // 2,
                     "min_games": opts["min_games"] // 2}
    races, budgets = bt.race_plans(rules, sizes, LIVES, "threshold", FIELD, opts)
    informed_races, informed_budgets = bt.race_plans(rules, sizes, LIVES, "informed",
                                                     INFORMED_FIELD, informed_opts)
    budgets += informed_budgets

    def curve_request(n: int, td: int) -> StageRequest:
        """Two curves for one table size: T = Td, and T against the best Td the search
        found (the best answers often lie off the diagonal), on the same common games."""
        lines = [("T = Td", p) for p in diag] + [(f"Td = {td}", Policy("threshold", t, td))
                                                   for t in values]
        lines_of[n] = lines
        return _request(Batch(bt.race_chunk,
                              bt._config(rules, n, LIVES, FIELD, [p for _, p in lines]),
                              seed, curve_games, bt.RACE_CHUNK,
                              stream="ronco.report.threshold-curves"))

    def mixed(n: int, kind: str, row: bt.Row) -> Plan:
        """The mixed equilibrium of one family, searched next to what its races found."""
        start = equilibrium_batch.start_from_race(kind, bt.row_dict(row))
        return equilibrium_batch.plan(rules, n, LIVES, kind, start, seed=seed, budget=budget,
                                      near=True)

    def threshold_size(n: int, race: Plan) -> Plan:
        row = yield from race
        curve = yield curve_request(n, bt.row_dict(row)["best_Td"])
        return row, curve, (yield from mixed(n, "threshold", row))

    def informed_size(n: int, race: Plan) -> Plan:
        row = yield from race
        return row, (yield from mixed(n, "informed", row))

    def single(request: StageRequest) -> Plan:
        return (yield request)

    # Every piece starts as soon as what it needs is known (one size's curves and equilibrium
    # after that size's races), all on one pool: no piece waits for another size's.
    lines_of: dict[int, list[tuple[str, Policy]]] = {}
    plans: list[Plan] = [threshold_size(n, race) for n, race in zip(sizes, races, strict=True)]
    plans += [informed_size(n, race) for n, race in zip(sizes, informed_races, strict=True)]
    plans += [single(curve_request(n, FIELD.Td)) for n in PLAYERS if n not in sizes]
    plans.append(single(_request(Batch(bt.race_chunk,
                                       bt._config(rules, HEATMAP_PLAYERS, LIVES, FIELD, full),
                                       seed, map_games, bt.RACE_CHUNK,
                                       stream="ronco.report.heatmap"))))
    answers, _, _ = run_searches(
        plans, label=lambda: "best thresholds: races, equilibria and curves (games)",
        progress=progress, root=store, executor=executor, workers=workers or 1,
        still_to_ask=lambda: sum(b.remaining() for b in budgets))
    k = len(sizes)
    rows = [a[0] for a in answers[:k]]
    informed_rows = [a[0] for a in answers[k:2 * k]]
    eq_rows = [a[2] for a in answers[:k]] + [a[1] for a in answers[k:2 * k]]
    curve_of = {n: a[1] for n, a in zip(sizes, answers[:k], strict=True)}
    curve_of.update({n: a for n, a in zip([n for n in PLAYERS if n not in sizes],
                                          answers[2 * k:-1], strict=True)})
    stats = [curve_of[n] for n in PLAYERS] + [answers[-1]]
    out = out_dir(root, "ronco")
    curve = []
    for n, s in zip(PLAYERS, stats[:-1], strict=True):
        wins, games = s["wins"], s["games"]
        lo, hi = wilson(wins, games[0])
        for i, (line, pol) in enumerate(lines_of[n]):
            curve.append({"players": n, "line": line, "T": pol.T, "Td": pol.Td,
                          "win_rate": wins[i] / games[0], "ci_low": lo[i], "ci_high": hi[i],
                          "games": int(games[0])})
    curve_df = pd.DataFrame(curve)
    curve_df.to_csv(out / "win_rate_by_threshold.csv", index=False)
    wins, games = stats[-1]["wins"], stats[-1]["games"]
    heat = np.array(wins / games[0]).reshape(len(values), len(values))
    table = [bt.row_dict(r) for r in rows]
    informed = [bt.row_dict(r) for r in informed_rows]
    _csv(table).to_csv(out / "best_threshold.csv", index=False)
    _csv(informed).to_csv(out / "best_threshold_informed.csv", index=False)
    equilibria = [r.to_dict() for r in eq_rows]
    _equilibrium_csv(equilibria).to_csv(out / "best_threshold_equilibrium.csv", index=False)
    mixed_of = {(e["family"], e["players"]): e for e in equilibria}
    f1 = _curve_figure(curve_df, values, out / "win_rate_by_threshold.png")
    seven = next((r for r in table if r["players"] == HEATMAP_PLAYERS), None)
    f2 = _heatmap(heat, values, int(games[0]), seven, out / "win_rate_heatmap_7p.png")
    page = out / "best_threshold.md"
    _page(page, curve_df, heat, values, table, informed, mixed_of, f1, f2, seed=seed,
          quick=quick, opts=opts, map_games=int(games[0]))
    bayes_page.write(out, rules, FIELD, table, seed=seed, quick=quick,
                     command=_command(seed, opts))
    return page


def _request(batch: Batch) -> StageRequest:
    """A figure's batch as a stage of its own run in the report's store."""
    return StageRequest(batch, {"game": "ronco", "command": "report-curves",
                                "batch": describe_batch(batch)})


def _command(seed: int, opts: dict) -> str:
    """The command that reproduces the best-threshold table."""
    return (f"simcards ronco best-threshold --players 3-10 --lives {LIVES} --seed {seed} "
            f"--first-stage {opts['first_stage']} --max-games {opts['max_games']} "
            f"--min-games {opts['min_games']} --gain-games {opts['gain_games']}")


def _gain_cell(r: dict, name: str) -> str:
    if name not in r:
        return "-"
    lo, hi = r[f"{name}_ci"]
    return f"{r[name]:+.4f} [{lo:+.4f}, {hi:+.4f}]"


def _csv(rows: list[dict]) -> pd.DataFrame:
    """The table as flat columns that any CSV reader parses: intervals as two columns,
    pairs as ``T:Td`` text, missing thresholds as empty integer cells."""
    frame = pd.DataFrame(rows)
    for name in ("informed_gain_ci", "bayes_gain_ci"):
        if name in frame:
            ci = frame.pop(name)
            frame[f"{name}_low"] = [c[0] if isinstance(c, list) else None for c in ci]
            frame[f"{name}_high"] = [c[1] if isinstance(c, list) else None for c in ci]
    for col in ("equilibrium_T", "equilibrium_Td"):
        frame[col] = frame[col].astype("Int64")
    for col in frame.columns:
        if frame[col].map(lambda v: isinstance(v, list)).any():
            frame[col] = frame[col].map(_pairs_text)
    return frame


def _equilibrium_csv(rows: list[dict]) -> pd.DataFrame:
    """One row per (family, table size): the support as ``T:Td=probability`` text, intervals
    as two columns."""
    out = []
    for e in rows:
        gain, dev = e["most_gain"], e["best_deviation"]
        out.append({
            "family": e["family"], "players": e["players"],
            "support": " ".join(f"{m['T']}:{m['Td']}={m['probability']:.4f}"
                                for m in e["support"]),
            "pure": e["pure"], "win_rate": e["win_rate"],
            "win_rate_ci_low": e["win_rate_ci"][0], "win_rate_ci_high": e["win_rate_ci"][1],
            "exploitability": e["exploitability"],
            "exploitability_ci_low": e["exploitability_ci"][0],
            "exploitability_ci_high": e["exploitability_ci"][1],
            "certified": e["certified"],
            "most_gain": f"{gain['T']}:{gain['Td']}", "most_gain_gain": gain["gain"],
            "best_deviation": f"{dev['T']}:{dev['Td']}" if dev else "",
            "best_deviation_gain": dev["gain"] if dev else np.nan,
            "start": _pairs_text(e["start"]), "search_games": e["search_games"],
            "certificate_games": e["certificate_games"]})
    return pd.DataFrame(out)


def _mixed_cell(e: dict | None) -> str:
    """The equilibrium as the page shows it: the pair (pure) or the pairs with their
    probabilities, then the exploitability and its 95% upper bound."""
    if e is None:
        return "-"
    sup = ", ".join(f"{m['T']}:{m['Td']}" + ("" if e["pure"] else f" {m['probability']:.0%}")
                    for m in sorted(e["support"], key=lambda m: -m["probability"]))
    kind = "pure" if e["pure"] else "mixed"
    text = f"{kind} {sup}; {e['exploitability']:.4f} [≤ {e['exploitability_ci'][1]:.4f}]"
    return text if e["certified"] else text + " (not certified)"


def _pairs_text(v: list) -> str:
    """``[5, 4]`` -> ``5:4``; ``[[5, 4], [6, 6]]`` -> ``5:4 6:6``."""
    if v and isinstance(v[0], list):
        return " ".join(":".join(str(x) for x in p) for p in v)
    return ":".join(str(x) for x in v)


def _curve_figure(df: pd.DataFrame, values: list[int], path: Path) -> str:
    """Thresholds are card ranks with gaps (no 8 or 9 in the 40-card deck), so the x axis is
    categorical: one slot per rank, no line drawn across a missing rank."""
    import matplotlib.pyplot as plt

    slot = {v: i for i, v in enumerate(values)}
    fig, axes = plt.subplots(2, 4, figsize=(18, 8.5), sharex=True, layout="constrained")
    colors = {"T = Td": "tab:blue"}
    for ax, n in zip(axes.flat, PLAYERS, strict=True):
        s = df[df.players == n]
        for line, part in s.groupby("line", sort=False):
            part = part.sort_values("T")
            x = part["T"].map(slot).to_numpy()
            color = colors.get(line, "tab:orange")
            ax.errorbar(x, part.win_rate, yerr=[part.win_rate - part.ci_low,
                                                part.ci_high - part.win_rate],
                        marker="o", ms=4, capsize=3, color=color, label=f"hero, {line}")
            ax.fill_between(x, part.ci_low, part.ci_high, color=color, alpha=0.35)
        base = s[(s.line == "T = Td") & (s["T"] == FIELD.T)].win_rate.iloc[0]
        ax.axhline(base, color="grey", ls="--", lw=1, label="hero = field (5:5)")
        ax.set_title(f"{n} players, {LIVES} lives")
        ax.set_xticks(range(len(values)), [str(v) for v in values])
        ax.set_xlabel("hero's threshold T (card rank)")
        ax.set_ylabel("P(hero wins the game)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Ronco: hero's win rate against a field playing T=5, Td=5; error bars and "
                 "bands are 95% intervals (all points of a panel share their games)")
    return save_figure(fig, path)


def _heatmap(heat: np.ndarray, values: list[int], games: int, seven: dict | None,
             path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 6.5), layout="constrained")
    im = ax.imshow(heat, origin="lower", cmap="viridis")
    ax.set_xticks(range(len(values)), values)
    ax.set_yticks(range(len(values)), values)
    ax.set_xlabel("hero's dealer threshold Td (cut below)")
    ax.set_ylabel("hero's threshold T (keep at or above)")
    from matplotlib.patches import Rectangle

    best = np.unravel_index(np.argmax(heat), heat.shape)
    ax.add_patch(Rectangle((best[1] - 0.5, best[0] - 0.5), 1, 1, fill=False, ec="red", lw=2.5,
                           label="highest cell of this map"))
    if seven is not None and seven["best_T"] in values and seven["best_Td"] in values:
        ax.add_patch(Rectangle((values.index(seven["best_Td"]) - 0.42,
                                values.index(seven["best_T"]) - 0.42), 0.84, 0.84, fill=False,
                               ec="white", lw=2, ls="--",
                               label="best response in the table (its own, larger race)"))
    for i in range(len(values)):
        for j in range(len(values)):
            ax.text(j, i, f"{heat[i, j]:.3f}", ha="center", va="center", fontsize=7.5,
                    color="white" if heat[i, j] < heat.max() * 0.8 else "black")
    fig.colorbar(im, label="P(hero wins)")
    half = Z95 * np.sqrt(heat.max() * (1 - heat.max()) / games)
    ax.set_title(f"{HEATMAP_PLAYERS} players, {LIVES} lives, field 5:5; {games:,} common games "
                 f"per cell\nhighest cell {values[best[0]]}:{values[best[1]]}: "
                 f"{heat.max():.4f} ± {half:.4f} (95%)", fontsize=10)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2,
              facecolor="lightgrey")
    return save_figure(fig, path)


def _equilibrium_cell(r: dict) -> str:
    if r["equilibrium_converged"]:
        return f"{r['equilibrium_T']}:{r['equilibrium_Td']}"
    cycle = r["equilibrium_cycle"]
    if not cycle:
        return "not settled within the iterations"
    return "none: best responses cycle " + " → ".join(f"{t}:{d}" for t, d in cycle + cycle[:1])


def _recommendation(r: dict, curve: pd.DataFrame, e: dict | None = None) -> str:
    """One plain sentence for one table size, then its numbers."""
    n = r["players"]
    like_field = curve[(curve.players == n) & (curve.line == "T = Td")
                       & (curve["T"] == FIELD.T)]
    text = (f"- **With {n} players, keep {r['best_T']} or better and, as dealer, cut below "
            f"{r['best_Td']}**: you win {fmt_p(r['win_rate'], r['ci_low'], r['ci_high'])} of "
            f"games")
    if len(like_field):
        text += f", against {like_field.win_rate.iloc[0]:.4f} for playing like the table"
    text += "."
    if r["tied_with"]:
        text += " Just as good within the statistics: " + ", ".join(
            f"{t}:{d}" for t, d in r["tied_with"]) + "."
    if r["equilibrium_converged"]:
        text += (f" If everyone adapts, {r['equilibrium_T']}:{r['equilibrium_Td']} is a "
                 "best response to itself (a symmetric equilibrium).")
    elif r["equilibrium_cycle"]:
        text += " If everyone adapts, best responses cycle: no pure equilibrium on the grid."
    else:
        text += " If everyone adapts: no pure equilibrium found within the iterations allowed."
    if e is not None and not e["pure"] and not r["equilibrium_converged"]:
        text += " The symmetric equilibrium is mixed: " + ", ".join(
            f"{m['T']}:{m['Td']} {m['probability']:.0%}"
            for m in sorted(e["support"], key=lambda m: -m["probability"])) + " of games."
    return text


def _mixed_section(mixed_of: dict[tuple[str, int], dict]) -> list[str]:
    """The equilibria of both families in detail, and how they were found and certified."""
    lines = [
        "## Mixed equilibria, certified",
        "",
        "| family | players | equilibrium (probability) | P(win) [95% CI] | fair share | "
        "exploitability [95% CI] | gains most | games (search + certificate) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (family, n), e in sorted(mixed_of.items(), key=lambda kv: (kv[0][0] != "threshold",
                                                                   kv[0][1])):
        sup = ", ".join(f"{m['T']}:{m['Td']} ({m['probability']:.3f})"
                        for m in sorted(e["support"], key=lambda m: -m["probability"]))
        lo, hi = e["win_rate_ci"]
        elo, ehi = e["exploitability_ci"]
        g = e["most_gain"] if not e["pure"] or not e["best_deviation"] else e["best_deviation"]
        lines.append(
            f"| {family} | {n} | {sup} | {fmt_p(e['win_rate'], lo, hi)} | {1 / n:.4f} | "
            f"{e['exploitability']:.4f} [{elo:.4f}, {ehi:.4f}]"
            f"{'' if e['certified'] else ' not certified'} | {g['T']}:{g['Td']} "
            f"({g['gain']:+.4f}) | {e['search_games'] / 1e6:.1f}M + "
            f"{e['certificate_games'] / 1e6:.1f}M |")
    lines += [
        "",
        "- *Equilibrium*: each player draws his T:Td from these probabilities at the start of "
        "every game (rule E5); a single pair is a pure equilibrium. *P(win)* is a player's "
        "win rate when everyone plays it (below the fair share because some games have no "
        "winner, rule G6).",
        "- *Exploitability*: the largest gain in win rate that any of the 100 grid pairs, "
        "played by one player against a field playing the equilibrium, has over the "
        "equilibrium itself (rule E6), measured on fresh common games (paired per-game "
        "differences) that the search never used. The 95% intervals hold for all 100 pairs "
        "at once (Bonferroni within each stage of the certificate, the stages' levels "
        "summing to 5%); an equilibrium is *certified* when the upper bound is below 0.002. "
        "*Gains most*: the pair with the largest estimated gain (for a pure equilibrium, the "
        "best other pair: a negative gain means every deviation loses).",
        "- *Search*: from the pair or the best-response cycle of the tables above, a double "
        "oracle over that start and its grid neighbours: each batch of games draws the field "
        "from a mixture over the current support and records wins by the field's "
        "composition, which gives every candidate's win rate against every mixture of the "
        "support; the restricted equilibrium is solved on those tables and the best outside "
        "reply joins the support while it gains more than 0.002.",
    ]
    return lines


def _page(path: Path, curve: pd.DataFrame, heat: np.ndarray, values: list[int],
          table: list[dict], informed: list[dict], mixed_of: dict[tuple[str, int], dict],
          f1: str, f2: str, *, seed: int,
          quick: bool, opts: dict, map_games: int) -> None:
    half = Z95 * np.sqrt(heat.max() * (1 - heat.max()) / map_games)
    bi = np.unravel_index(np.argmax(heat), heat.shape)
    lines = [
        "# Ronco: the best keep threshold",
        "",
        "**Question.** With 3 to 10 players and 7 lives, which thresholds should a player use "
        "(keep at or above T; as dealer, cut below Td) to win the game most often, when the "
        "others keep at 5 and cut below 5? And which thresholds are a best response to "
        "themselves (a symmetric equilibrium)?",
        "",
        "## The answer",
        "",
        "Against a table where everyone else keeps 5 or better and, as dealer, cuts below 5:",
        "",
        *[_recommendation(r, curve, mixed_of.get(("threshold", r["players"]))) for r in table],
        "",
        f"![win rate by threshold]({f1})",
        "",
        "## The best response, the equilibrium, and what information is worth",
        "",
        "| players | best T:Td | P(win) [95% CI] | fair share | tied with | equilibrium | "
        "informed gain [95% CI] | bayes gain [95% CI] | equilibrium, pure or mixed; "
        "exploitability [95% upper] |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table:
        eq = _equilibrium_cell(r)
        tied = ", ".join(f"{t}:{d}" for t, d in r["tied_with"]) or "none"
        lines.append(
            f"| {r['players']} | {r['best_T']}:{r['best_Td']} | "
            f"{fmt_p(r['win_rate'], r['ci_low'], r['ci_high'])} | {r['fair_share']:.4f} | "
            f"{tied} | {eq} | {_gain_cell(r, 'informed_gain')} | "
            f"{_gain_cell(r, 'bayes_gain')} | "
            f"{_mixed_cell(mixed_of.get(('threshold', r['players'])))} |")
    lines += [
        "",
        "- *Best T:Td* is the hero's best pair against the 5:5 field; every other candidate "
        "of the 10×10 grid was beaten by it in a paired test on common games (|z| ≥ 1.96), "
        "except those listed under *tied with*. *Fair share* is 1/players; a player who "
        "plays like the field wins less than that, because some games end with no winner "
        "(rule G6).",
        "- *Equilibrium*: thresholds that are a best response to a field playing them "
        "(best-response iteration from the best response above). Where the iteration cycles, "
        "no pure symmetric equilibrium exists on the grid at this precision; the cycle is "
        "shown.",
        "- *Equilibrium, pure or mixed*: the symmetric equilibrium when each player draws his "
        "T:Td at the start of a game from the same distribution (rule E5; percentages are "
        "the probabilities), searched next to the pair or the cycle of the previous column; "
        "then its *exploitability*: the most win rate any of the 100 grid pairs gains "
        "against a field playing it, and that gain's 95% upper bound (rule E6; see below).",
        "- *Informed gain*: win rate of `informed:T:Td` minus `threshold:T:Td` at the best "
        "T:Td, same field, same deals, paired 95% interval.",
        "- *Bayes gain*: win rate of `bayes` (rule S4: the exact best reply, for each round, "
        "to the field) minus `threshold:T:Td` at the best T:Td, on the same games, paired 95% "
        "interval; its round-by-round analysis is on [the optimal keep rule](bayes.md).",
        "",
        "## The same question for the informed policy",
        "",
        "Hero and field both play `informed` (thresholds overridden by certainty, rule S2); "
        "the field plays `informed:5:5`.",
        "",
        "| players | best T:Td | P(win) [95% CI] | tied with | equilibrium | "
        "equilibrium, pure or mixed; exploitability [95% upper] |",
        "|---|---|---|---|---|---|",
        *[f"| {r['players']} | {r['best_T']}:{r['best_Td']} | "
          f"{fmt_p(r['win_rate'], r['ci_low'], r['ci_high'])} | "
          f"{', '.join(f'{t}:{d}' for t, d in r['tied_with']) or 'none'} | "
          f"{_equilibrium_cell(r)} | {_mixed_cell(mixed_of.get(('informed', r['players'])))} |"
          for r in informed],
        "",
        *_mixed_section(mixed_of),
        "",
        "## The whole strategy map at 7 players",
        "",
        f"![heatmap]({f2})",
        "",
        f"Highest cell: T={values[bi[0]]}, Td={values[bi[1]]}, P(win) = {heat.max():.4f} "
        f"(± {half:.4f} for one cell; neighbouring cells share deals, so their differences "
        "are much sharper than that). The map is a sample of its own, smaller than the "
        "race behind the table above, and its highest cell is the maximum of 100 noisy "
        "estimates, which runs high: read the table's interval for the best pair, and the "
        "map for the shape of the landscape (the square marks the table's best response).",
        "",
        "Data: `win_rate_by_threshold.csv`, `best_threshold.csv`, "
        "`best_threshold_informed.csv`, `best_threshold_equilibrium.csv`.",
    ]
    cmd = _command(seed, opts)
    lines += ["", "The tables alone, reproduced by (for the informed one add `--policy informed "
              f"--field 5:5 --gain-games 0` and halve `--max-games` to {opts['max_games'] // 2} "
              f"and `--min-games` to {opts['min_games'] // 2}):", "", f"```\n{cmd}\n```", "",
              "and each equilibrium by `simcards ronco equilibrium --players N --family F "
              f"--lives {LIVES} --seed {seed} --start S` with S the start of its row in "
              "`best_threshold_equilibrium.csv` (pairs joined by commas)."]
    lines[2:2] = quick_banner(quick)
    write_page(path, [*lines, ""], "ronco-best", seed, quick)  # a blank line before the footer
