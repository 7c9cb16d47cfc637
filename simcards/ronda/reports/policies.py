"""Report: which Ronda capture policy to use, and by how much it wins.

Every pair of policies plays in duplicate (:mod:`simcards.ronda.compare`): the same decks and
dealers with the seats swapped (two sides), or with the stronger policy in each seat in turn
against the other everywhere else (3 and 4 players alone), so that the luck of the deal cancels
from the paired difference. Matches are to 21 (S4), default rules otherwise.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from simcards.core.reports.common import out_dir, page_footer, quick_banner, save_figure
from simcards.core.runner import Batch, run_batches
from simcards.core.store import batch_set_store
from simcards.ronda import compare, summaries
from simcards.ronda.policies import KINDS
from simcards.ronda.rules import RondaRules
from simcards.ronda.summaries import Estimate

POLICIES = ("random", "greedy", "lookahead:1", "rollout:32")
"""The field, weakest first as the rules describe them (Q2-Q5)."""
TABLES = (("2 players", {"players": 2}), ("3 players", {"players": 3}),
          ("4 players", {"players": 4}), ("teams (2 v 2)", {"players": 4, "teams": "on"}))
STUDY = "ronda-policies"


@dataclass(frozen=True)
class Pairing:
    """One duplicate comparison of the round robin: A (the later, stronger-looking policy)
    against B at one table."""

    table: str
    a: str
    b: str
    rules: RondaRules

    @property
    def label(self) -> str:
        return f"{self.a} v {self.b}"


def deal_sets(pairing: Pairing, quick: bool) -> int:
    """Deal sets per pairing. Two-player pairings get the most, since they carry the page's
    answer, and ``rollout:32`` against ``lookahead:1`` the most of all: the two are close, and
    2,000 sets narrow its interval to about 0.025 either side. A ``rollout:32`` seat costs
    about 10 times a ``lookahead:1`` seat per hand, so its other pairings get fewer."""
    if quick:
        return 8
    two = pairing.rules.players == 2
    if "rollout" in pairing.a + pairing.b:
        if two:
            return 2_000 if "lookahead" in pairing.a + pairing.b else 1_000
        return 150
    return 1_000 if two else 300


def pairings() -> list[Pairing]:
    out = []
    for table, options in TABLES:
        rules = RondaRules.make(**options)
        for b, a in combinations(POLICIES, 2):
            out.append(Pairing(table, a, b, rules))
    return out


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    jobs = pairings()
    batches = []
    for job in jobs:
        a, b = KINDS.parse(job.a), KINDS.parse(job.b)
        cfg = compare.DuplicateConfig.build(job.rules, a, b, None)
        batches.append(Batch(compare.duplicate_chunk, cfg, seed, deal_sets(job, quick),
                             compare.chunk_for(job.rules, a, b), compare.STREAM))
    stats = run_batches(batches, workers=workers, executor=executor, progress=progress,
                        label="Ronda policies report",
                        store=batch_set_store(store, "ronda", "report-policies"))
    rows = []
    for job, batch, s in zip(jobs, batches, stats, strict=True):
        a_rate, b_rate = summaries.duplicate_win_rates(s)
        diff = summaries.win_rate_difference(s)
        pts = summaries.points_per_hand_difference(s)
        rows.append({"table": job.table, "a": job.a, "b": job.b, "deal_sets": batch.total,
                     "a_win": a_rate.value, "a_win_lo": a_rate.low, "a_win_hi": a_rate.high,
                     "b_win": b_rate.value, "b_win_lo": b_rate.low, "b_win_hi": b_rate.high,
                     "win_diff": diff.value, "win_diff_lo": diff.low, "win_diff_hi": diff.high,
                     "points_diff": pts.value, "points_diff_lo": pts.low,
                     "points_diff_hi": pts.high, "unfinished": int(s["unfinished"][0]),
                     "violations": int(s["violations"][0])})
    df = pd.DataFrame(rows)
    out = out_dir(root, "ronda")
    df.to_csv(out / "policies_round_robin.csv", index=False)
    fig = _figure(df, out / "policies_round_robin.png")
    page = out / "policies.md"
    _page(page, df, fig, seed=seed, quick=quick)
    return page


def _est(row: pd.Series, stem: str) -> Estimate:
    return Estimate(float(row[stem]), float(row[f"{stem}_lo"]), float(row[f"{stem}_hi"]))


def _fmt(e: Estimate, digits: int = 3, signed: bool = True) -> str:
    s = "+" if signed else ""
    return f"{e.value:{s}.{digits}f} [{e.low:{s}.{digits}f}, {e.high:{s}.{digits}f}]"


def _figure(df: pd.DataFrame, path: Path) -> str:
    import matplotlib.pyplot as plt

    tables = [t for t, _ in TABLES]
    fig, axes = plt.subplots(1, len(tables), figsize=(18, 5.5), layout="constrained",
                             sharey=True)
    for ax, table in zip(axes, tables, strict=True):
        sub = df[df.table == table]
        y = np.arange(len(sub))
        err = [sub.win_diff - sub.win_diff_lo, sub.win_diff_hi - sub.win_diff]
        colors = ["tab:green" if lo > 0 else ("tab:red" if hi < 0 else "tab:grey")
                  for lo, hi in zip(sub.win_diff_lo, sub.win_diff_hi, strict=True)]
        ax.barh(y, sub.win_diff, xerr=err, color=colors, capsize=3)
        ax.set_yticks(y, [f"{a} v {b}" for a, b in zip(sub.a, sub.b, strict=True)])
        ax.axvline(0, color="black", lw=1)
        ax.set_title(table)
        ax.set_xlabel("match win rate, first minus second (95% CI)")
        ax.grid(alpha=0.3, axis="x")
    fig.suptitle("Ronda round robin in duplicate, matches to 21: paired differences in win rate")
    return save_figure(fig, path)


def _matrix(df: pd.DataFrame, table: str) -> list[str]:
    """A's win rate against B, row A, column B (duplicate plays)."""
    sub = df[df.table == table]
    head = "| policy | " + " | ".join(f"v {p}" for p in POLICIES) + " |"
    lines = [head, "|---" * (len(POLICIES) + 1) + "|"]
    for row_p in POLICIES:
        cells = []
        for col_p in POLICIES:
            if row_p == col_p:
                cells.append("—")
                continue
            hit = sub[(sub.a == row_p) & (sub.b == col_p)]
            if len(hit):
                cells.append(_fmt(_est(hit.iloc[0], "a_win"), signed=False))
            else:
                r = sub[(sub.a == col_p) & (sub.b == row_p)].iloc[0]
                cells.append(_fmt(_est(r, "b_win"), signed=False))
        lines.append(f"| `{row_p}` | " + " | ".join(cells) + " |")
    return lines


def _answer(df: pd.DataFrame) -> list[str]:
    two = df[df.table == "2 players"]

    def pair(a: str, b: str) -> pd.Series:
        return two[(two.a == a) & (two.b == b)].iloc[0]

    steps = [("greedy", "random"), ("lookahead:1", "greedy"), ("rollout:32", "lookahead:1"),
             ("rollout:32", "greedy")]
    lines = ["## The answer", ""]
    best = POLICIES[0]
    for a, b in steps[:3]:
        r = pair(a, b)
        if r.win_diff_lo > 0:
            best = a
    lines.append(
        f"**Play `{best}`.** In two-player matches to 21, played in duplicate so that both "
        "policies get the same cards:")
    lines.append("")
    for a, b in steps:
        r = pair(a, b)
        d = _est(r, "win_diff")
        verdict = ("beats" if d.low > 0 else "loses to" if d.high < 0
                   else "cannot be told apart from")
        lines.append(
            f"- `{a}` {verdict} `{b}`: it takes {r.a_win:.1%} of the matches "
            f"(win-rate difference {_fmt(d)}; {r.points_diff:+.2f} points per hand, "
            f"95% CI [{r.points_diff_lo:+.2f}, {r.points_diff_hi:+.2f}]).")
    lines.append("")
    lines.append(
        "Each line is a paired comparison over the same deals (95% intervals over deal sets); "
        "a policy counts as better only when its interval excludes zero. In the last deal both "
        "searching policies play exactly (Q7), so their differences come from the deals "
        "before it. The tables below give the same comparisons for 3 and 4 players and for "
        "teams, where the order can differ.")
    lines.append("")
    return lines


def cli_flags(options: dict) -> str:
    """The command-line flags of a table's rule options (``{"players": 4, "teams": "on"}``
    gives ``--players 4 --teams on``)."""
    return " ".join(f"--{k.replace('_', '-')} {v}" for k, v in options.items())


def _page(path: Path, df: pd.DataFrame, fig: str, *, seed: int, quick: bool) -> None:
    lines = ["# Ronda: which capture policy to use", "", *quick_banner(quick)]
    lines += _answer(df)
    lines += [
        "## The round robin",
        "",
        f"Policies (rules Q2-Q5 of `seeds/ronda.md`): {', '.join(f'`{p}`' for p in POLICIES)}. "
        "Each cell is the row policy's match win rate against the column policy, with its 95% "
        "Wilson interval. With two sides (two players, or two teams) a fair match is 0.5; with "
        "3 or 4 players alone the row policy holds one seat against the column policy in every "
        "other seat, so a fair share is 1/3 or 1/4. Duplicate format: every deal set is played "
        "with each policy in each seating on the same decks.",
        "",
        f"Seed {seed}; default rules (`derba_chain=flat`, `announce=first_deal`, "
        "`announce_conflict=text`), matches to 21 checked at the end of each hand.",
        "",
    ]
    for table, _ in TABLES:
        sub = df[df.table == table]
        lines += [f"### {table} ({int(sub.deal_sets.min()):,}–{int(sub.deal_sets.max()):,} "
                  "deal sets per pairing)", "", *_matrix(df, table), ""]
    lines += [f"![paired differences]({fig})", "",
              "## Paired differences", "",
              "Win-rate difference: the first policy's match win rate minus the second's (the "
              "mean over its seats), paired by deal set; points per hand: the first policy's "
              "side minus the second's. Both with 95% intervals over deal sets.", "",
              "| table | pairing | deal sets | win-rate difference | points per hand |",
              "|---|---|---|---|---|"]
    for _, r in df.iterrows():
        lines.append(f"| {r.table} | `{r.a}` v `{r.b}` | {int(r.deal_sets):,} | "
                     f"{_fmt(_est(r, 'win_diff'))} | {_fmt(_est(r, 'points_diff'), 2)} |")
    bad = int(df.violations.sum())
    unfinished = int(df.unfinished.sum())
    lines += ["", f"Broken invariants over every hand played: {bad}. Matches stopped "
              f"unfinished: {unfinished}.", "",
              "Data: `policies_round_robin.csv`.", "",
              "## Reproducing a number", "",
              "Every pairing is one `simcards ronda compare` run with the same seed, so the "
              "command gives the row's numbers exactly (its `win_rate_a`, `win_rate_diff`, "
              "`points_diff`); for example the two-player and the team rows of "
              "`lookahead:1` against `greedy`:", "", "```"]
    for table, options in (TABLES[0], TABLES[3]):
        row = df[(df.table == table) & (df.a == "lookahead:1") & (df.b == "greedy")].iloc[0]
        lines.append(f"simcards ronda compare lookahead:1 greedy {cli_flags(options)} "
                     f"--deals {int(row.deal_sets)} --seed {seed} --json")
    lines += ["```"]
    path.write_text("\n".join(lines) + page_footer(STUDY, seed, quick))
