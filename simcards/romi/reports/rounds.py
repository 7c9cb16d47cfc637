"""Report: how long a Römi round lasts and how it ends, for 2 to 5 greedy players.

Each table size is one ``simcards romi rounds`` batch with every seat ``greedy`` (Q2), default
rules, the dealer drawn for every round (D3). A round ends when a player goes out (G1: -10, or
-20 for a Römi, G3) or is stopped unfinished (T8's empty stock and pile, T9's 1,000 turns).
"""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path

import numpy as np
import pandas as pd

from simcards.core.reports.common import out_dir, quick_banner, save_figure, write_page
from simcards.core.runner import Batch, run_batches
from simcards.core.stats import wilson
from simcards.core.store import batch_set_store
from simcards.romi import rounds_batch as R
from simcards.romi.policies import policy_arrays
from simcards.romi.rules import PLAYERS, RomiRules

STUDY = "romi-rounds"
POLICY = "greedy"
ENDINGS = (("out", "went out, -10 (G2)"), ("romi", "Römi, -20 (G3)"),
           ("stalled", "stopped unfinished (T8, T9)"))


def sizes(quick: bool) -> int:
    """Rounds per table size (10,000 greedy rounds of 4 players: about 15 s on one core)."""
    return 64 if quick else 10_000


def rounds_batch(players: int, seed: int, rounds: int) -> Batch:
    """The batch ``simcards romi rounds --players n --rounds N --seed S`` runs (every seat
    greedy, the dealer drawn)."""
    rules = RomiRules.make(players=players)
    cfg = R.RoundConfig(rules.kernel, policy_arrays([POLICY] * players, rules), rules.players,
                        rules.rounds, -1)
    return Batch(R.rounds_chunk, cfg, seed, rounds, R.ROUNDS_CHUNK, R.STREAM_ROUNDS)


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    n_rounds = sizes(quick)
    batches = [rounds_batch(n, seed, n_rounds) for n in PLAYERS]
    stats = run_batches(batches, workers=workers, executor=executor, progress=progress,
                        label="Römi rounds report",
                        store=batch_set_store(store, "romi", "report-rounds"))
    df = pd.DataFrame([_row(n, s) for n, s in zip(PLAYERS, stats, strict=True)])
    hist = pd.DataFrame({f"{n} players": s["turns_hist"] for n, s in zip(PLAYERS, stats,
                                                                          strict=True)})
    hist.index.name = "turns"
    out = out_dir(root, "romi")
    df.to_csv(out / "round_length.csv", index=False)
    hist[hist.sum(axis=1) > 0].to_csv(out / "round_length_histogram.csv")
    figs = {"length": _length_figure(hist, out / "round_length.png"),
            "endings": _endings_figure(df, out / "round_endings.png")}
    page = out / "rounds.md"
    _page(page, df, figs, seed=seed, quick=quick, n_rounds=n_rounds)
    return page


def _row(players: int, s: dict[str, np.ndarray]) -> dict[str, object]:
    out = R.summarise_rounds(s)
    r = int(s["rounds"][0])
    row: dict[str, object] = {"players": players, "rounds": r, "turns_mean": out["turns_mean"],
                              "turns_lo": out["turns_ci"][0], "turns_hi": out["turns_ci"][1]}
    for q, v in out["turns_quantiles"].items():
        row[f"q{q.rstrip('%')}"] = v
    counts = {"romi": int(s["romi"].sum()), "stalled": int(s["stalled"][0])}
    counts["out"] = int(s["went_out"].sum()) - counts["romi"]
    for key, _ in ENDINGS:
        lo, hi = wilson(counts[key], r)
        row[key], row[f"{key}_lo"], row[f"{key}_hi"] = counts[key] / r, float(lo), float(hi)
    row["never_opened"] = float(np.mean(out["never_opened_rate"]))
    row["score_mean"] = float(np.mean(out["score_mean"]))
    return row


def _length_figure(hist: pd.DataFrame, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5), layout="constrained")
    top = int(np.nonzero(hist.sum(axis=1).to_numpy())[0].max()) + 1
    top = min(top, int(np.searchsorted(hist.sum(axis=1).cumsum().to_numpy(),
                                       0.999 * hist.to_numpy().sum())) + 2)
    for col in hist.columns:
        h = hist[col].to_numpy().astype(float)
        ax.plot(np.arange(top), h[:top] / h.sum(), marker="o", ms=2, label=col)
    ax.set_xlabel("turns in the round (every turn counted, the starter's first discard "
                  "included)")
    ax.set_ylabel("share of rounds")
    ax.set_title("Römi round length, every seat greedy")
    ax.grid(alpha=0.3)
    ax.legend()
    return save_figure(fig, path)


def _endings_figure(df: pd.DataFrame, path: Path) -> str:
    """Grouped bars on a log scale with Wilson intervals, so the -20 and stopped shares (one
    round in a hundred or fewer) are as readable as the -10 majority; the legend sits below the
    axes, clear of every bar. A share of 0 is drawn at the axis floor with its upper bound."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5.5), layout="constrained")
    x = np.arange(len(df))
    width = 0.26
    floor = 1e-5
    for i, (key, label) in enumerate(ENDINGS):
        v = df[key].to_numpy()
        lo, hi = df[f"{key}_lo"].to_numpy(), df[f"{key}_hi"].to_numpy()
        shown = np.maximum(v, floor)
        xs = x + (i - 1) * width
        ax.bar(xs, shown, width, label=label, color=f"C{i}")
        ax.errorbar(xs, shown, yerr=[shown - np.maximum(lo, floor), np.maximum(hi, floor)
                                     - shown], fmt="none", ecolor="black", capsize=3, lw=1)
        for xi, vi in zip(xs, v, strict=True):
            text = "none" if vi == 0 else (f"{vi:.2%}" if vi >= 0.001 else f"{vi:.3%}")
            ax.annotate(text, (xi, max(vi, floor)),
                        textcoords="offset points", xytext=(0, 4), ha="center", fontsize=7)
    ax.set_yscale("log")
    ax.set_ylim(floor, 2.0)
    ax.set_xticks(x, [f"{n} players" for n in df.players])
    ax.set_ylabel("share of rounds (log scale, 95% Wilson interval)")
    ax.set_title("How a Römi round ends, every seat greedy")
    ax.grid(alpha=0.3, axis="y", which="both")
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=3)
    return save_figure(fig, path)


def _ci(v: float, lo: float, hi: float, digits: int) -> str:
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _page(path: Path, df: pd.DataFrame, figs: dict[str, str], *, seed: int, quick: bool,
          n_rounds: int) -> None:
    four = df[df.players == 4].iloc[0]
    short = df.loc[df.turns_mean.idxmin()]
    long = df.loc[df.turns_mean.idxmax()]
    lines = ["# Römi rounds: how long they last and how they end", "", *quick_banner(quick),
             "## In short", "",
             f"- A 4-player round between greedy players lasts {four.turns_mean:.1f} turns on "
             f"average (median {int(four.q50)}, 95% of rounds within {int(four.q95)}), about "
             f"{four.turns_mean / 4:.1f} turns per player.",
             f"- Rounds are shortest at {int(short.players)} players ({short.turns_mean:.1f} "
             f"turns, {short.turns_mean / short.players:.1f} per player) and longest at "
             f"{int(long.players)} ({long.turns_mean:.1f} turns, "
             f"{long.turns_mean / long.players:.1f} per player).",
             f"- At 4 players {four.out:.1%} of rounds end with a player going out for -10, "
             f"{four.romi:.1%} with a Römi for -20, and {four.stalled:.2%} are stopped "
             f"unfinished; a player is still unopened when the round ends (100 points, G5) "
             f"in {four.never_opened:.1%} of his rounds.", "",
             f"Seed {seed}; {n_rounds:,} rounds per table size, every seat `greedy` (Q2), "
             "default rules, the dealer drawn for every round. Intervals are 95% (normal for "
             "means, Wilson for shares).", "",
             "## Round length", "", f"![round length]({figs['length']})", "",
             "Turns per round: every turn counts, the starter's first discard included (T9).",
             "", "| players | rounds | mean (95% CI) | 5% | 25% | 50% | 75% | 95% |",
             "|---|---|---|---|---|---|---|---|"]
    for _, r in df.iterrows():
        lines.append(f"| {int(r.players)} | {int(r.rounds):,} | "
                     f"{_ci(r.turns_mean, r.turns_lo, r.turns_hi, 2)} | "
                     + " | ".join(str(int(r[f"q{q}"])) for q in (5, 25, 50, 75, 95)) + " |")
    lines += ["", "## How rounds end", "", f"![round endings]({figs['endings']})", "",
              "| players | " + " | ".join(label for _, label in ENDINGS)
              + " | never opened (per player) | mean score per player and round |",
              "|---|---|---|---|---|---|"]
    for _, r in df.iterrows():
        lines.append(f"| {int(r.players)} | "
                     + " | ".join(_ci(r[k], r[f"{k}_lo"], r[f"{k}_hi"], 4) for k, _ in ENDINGS)
                     + f" | {r.never_opened:.4f} | {r.score_mean:.2f} |")
    lines += ["", "Data: `round_length.csv`, `round_length_histogram.csv` (rounds by length).",
              "", "## Reproducing a number", "",
              "Each table size is one `simcards romi rounds` run with the same seed, which "
              "gives its numbers exactly (`turns_mean`, `turns_quantiles`, `go_out_rate`, "
              "`rummy_rate`, `stalled_rate`); for example 4 and 2 players:", "", "```"]
    for n in (4, 2):
        lines.append(f"simcards romi rounds --players {n} --policies {POLICY} --rounds "
                     f"{n_rounds} --seed {seed} --json")
    lines += ["```"]
    write_page(path, lines, STUDY, seed, quick)
