"""Report: Ronco loss probability by position against the table's threshold, 3-8 players.

Every point is one ``simcards ronco rounds`` batch with the same seed, so a point can be
reproduced from its command alone, and all thresholds of one table size play the same deals
(common random numbers), which makes the curves' differences sharper than their bands suggest.
For up to 6 players the exact solver is run on every point as a check, and the page says how far
the Monte Carlo strayed from it.
"""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path

import numpy as np
import pandas as pd

from simcards.core.reports.common import fmt_p, out_dir, quick_banner, save_figure, write_page
from simcards.core.runner import Batch, run_batches
from simcards.core.stats import wilson
from simcards.core.store import batch_set_store
from simcards.ronco import rounds_batch as ronco_rounds
from simcards.ronco.policies import Policy
from simcards.ronco.rules import RoncoRules

PLAYERS = range(3, 9)
EXACT_MAX_PLAYERS = 6


def thresholds(rules: RoncoRules) -> list[int]:
    """One threshold per distinct card value: thresholds between values behave alike."""
    return sorted({int(v) for v in rules.deck_obj.values})


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    rounds = 20_000 if quick else 1_000_000
    rules = RoncoRules.make()
    ts = thresholds(rules)
    points = [(n, t) for n in PLAYERS for t in ts]
    batches = [
        Batch(ronco_rounds.rounds_chunk,
              ronco_rounds.KernelConfig.build(rules, [Policy("threshold", t, t)] * n),
              seed, rounds, ronco_rounds.ROUNDS_CHUNK, ronco_rounds.STREAM)
        for n, t in points
    ]
    stats = run_batches(batches, workers=workers, executor=executor, progress=progress,
                        label="Ronco rounds report",
                        store=batch_set_store(store, "ronco", "report-rounds"))
    rows = []
    for (n, t), s in zip(points, stats, strict=True):
        lost = s["lost"]
        lo, hi = wilson(lost, rounds)
        ex = (ronco_rounds.exact(rules, [Policy("threshold", t, t)] * n).p_lose
              if n <= EXACT_MAX_PLAYERS else np.full(n, np.nan))
        for pos in range(n):
            rows.append({"players": n, "threshold": t, "position": pos,
                         "p_lose": lost[pos] / rounds, "ci_low": lo[pos], "ci_high": hi[pos],
                         "exact": ex[pos], "rounds": rounds})
    df = pd.DataFrame(rows)
    out = out_dir(root, "ronco")
    df.to_csv(out / "rounds_by_threshold.csv", index=False)
    fig_name = _figure(df, out / "rounds_by_threshold.png")
    _page(df, out / "rounds.md", fig_name, seed=seed, rounds=rounds, quick=quick)
    return out / "rounds.md"


def _figure(df: pd.DataFrame, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5), sharey=True, layout="constrained")
    for ax, n in zip(axes.flat, PLAYERS, strict=True):
        sub = df[df.players == n]
        cmap = plt.get_cmap("viridis", n)
        for pos in range(n):
            s = sub[sub.position == pos].sort_values("threshold")
            label = "dealer" if pos == n - 1 else f"position {pos}"
            ax.plot(s.threshold, s.p_lose, marker="o", ms=3, color=cmap(pos), label=label)
            ax.fill_between(s.threshold, s.ci_low, s.ci_high, color=cmap(pos), alpha=0.3)
            if s.exact.notna().all():
                ax.plot(s.threshold, s.exact, ls="none", marker="x", ms=4, color="black")
        ax.set_title(f"{n} players")
        ax.set_xlabel("table threshold T = T_d (keep at or above T)")
        ax.set_ylabel("P(lose the round)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    fig.suptitle("Ronco, one round: loss probability by position (95% Wilson bands; "
                 "x = exact solver)")
    return save_figure(fig, path)


def _value(row: pd.Series) -> str:
    """A point as the findings quote it: exact where known, else the estimate and interval."""
    if not np.isnan(row.exact):
        return f"{row.exact:.5f} (exact)"
    return fmt_p(row.p_lose, row.ci_low, row.ci_high)


def _finding(sub: pd.DataFrame, n: int) -> str:
    """What a table of n players learns from its curves: the threshold that protects the first
    position best, how much more the dealer loses at the common T=5, and whether the risk
    grows with the position at every threshold."""
    est = sub.exact.where(sub.exact.notna(), sub.p_lose)
    sub = sub.assign(est=est)
    first = sub[sub.position == 0].set_index("threshold")
    t_best = int(first.est.idxmin())
    best = first.loc[t_best]
    runner_up = first.drop(index=t_best).est.idxmin()
    text = (f"- **{n} players.** Position 0 loses least when the whole table plays "
            f"T={t_best}: {_value(best)}; next best T={int(runner_up)}: "
            f"{_value(first.loc[runner_up])}.")
    if best.exact != best.exact:  # no exact value: say which thresholds are not separated
        tied = [int(t) for t, r in first.iterrows()
                if t != t_best and r.ci_low <= best.ci_high and best.ci_low <= r.ci_high]
        if tied:
            text += f" Not separated from T={t_best} at this sample size: " + ", ".join(
                f"T={t}" for t in tied) + "."
    at5 = sub[sub.threshold == 5].set_index("position").est
    text += (f" At T=5 the dealer loses {at5[n - 1]:.4f} against {at5[0]:.4f} for position 0, "
             f"{at5[n - 1] / at5[0]:.2f} times as often.")
    monotone = sum(bool(np.all(np.diff(g.sort_values("position").est.to_numpy()) > 0))
                   for _, g in sub.groupby("threshold"))
    total = sub.threshold.nunique()
    text += (f" The risk grows with every step towards the dealer at {monotone} of {total} "
             "thresholds.")
    return text


def _page(df: pd.DataFrame, path: Path, fig_name: str, *, seed: int, rounds: int,
          quick: bool) -> None:
    lines = [
        "# Ronco rounds: who loses, by position and threshold",
        "",
        *quick_banner(quick),
        "**Question.** In one round of Ronco (default rules: `spanish40`, `cut_king=loses`, "
        "`ties=all`), how likely is each position to lose when every player keeps at or above "
        "the same threshold T and the dealer cuts below the same T?",
        "",
        f"Each point: {rounds:,} rounds, seed {seed}; all thresholds of a table size play the "
        "same deals. Bands are 95% Wilson intervals; crosses are the exact enumeration "
        f"(up to {EXACT_MAX_PLAYERS} players).",
        "",
        f"![loss probability by position]({fig_name})",
        "",
        "## Findings",
        "",
    ]
    checked = df.dropna(subset=["exact"])
    se = np.sqrt(checked.exact * (1 - checked.exact) / checked.rounds)
    z = ((checked.p_lose - checked.exact) / se).abs()
    lines += [_finding(df[df.players == n], n) for n in PLAYERS]
    lines += [
        "",
        "Where the exact value exists (up to 6 players) the findings use it; above that they "
        "use the Monte Carlo estimate and name every threshold whose interval overlaps the "
        "best one's, since those cannot be told apart at this sample size.",
    ]
    lines += [
        "",
        f"Monte Carlo against exact, {len(checked):,} position-points (3-{EXACT_MAX_PLAYERS} "
        f"players): largest deviation {z.max():.2f} standard errors, "
        f"{int((z > 3).sum())} beyond 3.",
        "",
        "## Table at T = 5",
        "",
        "| players | position | P(lose) [95% CI] | exact |",
        "|---|---|---|---|",
    ]
    for r in df[df.threshold == 5].itertuples():
        ex = "" if np.isnan(r.exact) else f"{r.exact:.4f}"
        lines.append(f"| {r.players} | {r.position} | "
                     f"{fmt_p(r.p_lose, r.ci_low, r.ci_high)} | {ex} |")
    lines += [
        "",
        "Data: `rounds_by_threshold.csv`. One point by hand, e.g. 5 players at T=5:",
        "",
        f"```\nsimcards ronco rounds --players 5 --threshold 5 --dealer-threshold 5 "
        f"--rounds {rounds} --seed {seed}\n```",
    ]
    write_page(path, [*lines, ""], "ronco-rounds", seed, quick)  # a blank line before the footer
