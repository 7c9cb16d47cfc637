"""Report: which Ronda capture policy to use, and by how much it wins.

Every pair of policies plays in duplicate (:mod:`simcards.ronda.compare_batch`): the same decks and
dealers with the seats swapped (two sides), or with policy A in each seat in turn against B
everywhere else (3 and 4 players alone), so that the luck of the deal cancels from the paired
difference. With two sides one run answers both ways round; with 3 or 4 players alone "one A
among Bs" and "one B among As" are different questions, so every ordered pair is its own run and
each cell of the page's table is the ``win_rate_a`` of the run its caption names. Matches are to
21 (S4), default rules otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from simcards.core import ladder as lad
from simcards.core.reports.common import out_dir, quick_banner, save_figure, write_page
from simcards.core.runner import Batch, run_batches
from simcards.core.store import batch_set_store
from simcards.ronda import compare_batch, summaries
from simcards.ronda.policies import KINDS
from simcards.ronda.reports import lookahead_replies as replies
from simcards.ronda.rules import RondaRules
from simcards.ronda.summaries import Estimate

POLICIES = ("random", "greedy", "lookahead:1", "rollout:32")
"""The round robin's field, weakest first as the rules describe them (Q2-Q5)."""
SEARCH = ("ismcts:1000",)
"""Search players (Q8) that join the ladder without a full round robin: each costs about 50
times a ``rollout:32`` seat, so each plays one run against every policy of
:data:`SEARCH_OPPONENTS` per table (with 3 or 4 players alone, one search seat among them)."""
SEARCH_OPPONENTS = ("greedy", "rollout:32")
SEARCH_SETS = 200
"""Deal sets of a search player's run: an interval of about 0.05 either side."""
BOUND = "seeing:1000"
"""The all-seeing bound (Q9): not a legal player (it sees every hand and the stock order). It
plays one run against ``greedy`` per table, so that the ladder can say how much hidden
information is worth and what share of the distance from ``greedy`` to the bound each legal
player closes."""
BOUND_SETS = 100
"""Deal sets of the bound's run: it wins nearly every match, so 100 sets give an interval of
about 0.02 either side."""
LADDER = ("greedy", "random", "lookahead:1", "rollout:32", *SEARCH, BOUND)
"""Every rated policy, the anchor ``greedy`` first."""
TABLES = (("2 players", {"players": 2}), ("3 players", {"players": 3}),
          ("4 players", {"players": 4}), ("teams (2 v 2)", {"players": 4, "teams": "on"}))
STUDY = "ronda-policies"


@dataclass(frozen=True)
class Pairing:
    """One duplicate comparison of the round robin: A against B at one table (with 3 or 4
    players alone A holds one seat, B every other)."""

    table: str
    a: str
    b: str
    rules: RondaRules

    @property
    def label(self) -> str:
        return f"{self.a} v {self.b}"


def deal_sets(pairing: Pairing, quick: bool) -> int:
    """Deal sets per pairing: 1,000, at every table size, since every table size gets its own
    answer. Two exceptions, both for ``rollout:32``, whose seat costs about 10 times a
    ``lookahead:1`` seat per hand. Against ``lookahead:1`` at two players it gets 2,000: the two
    are close, and 2,000 sets narrow the interval to about 0.025 either side. With 3 or 4 players
    a set is 3 or 4 matches and a pairing seats up to three ``rollout:32`` players, so its
    pairings there get 300 sets, which keeps the study to a few minutes on two cores.

    ``--quick``: 8 sets a pairing, 2 for the search player's and the bound's (each of their
    seats costs some 50 times a ``rollout:32`` seat), enough to draw every table and figure."""
    if quick:
        return 2 if pairing.a in (*SEARCH, BOUND) else 8
    if pairing.a in SEARCH:
        return SEARCH_SETS
    if pairing.a == BOUND:
        return BOUND_SETS
    if "rollout" in pairing.a + pairing.b:
        if pairing.rules.players == 2:
            return 2_000 if "lookahead" in pairing.a + pairing.b else 1_000
        return 300
    return 1_000


def ordered(rules: RondaRules) -> bool:
    """Whether a table needs both orders of every pair (3 or 4 players alone), see the module
    docstring."""
    return rules.n_sides > 2


def pairings() -> list[Pairing]:
    """Every pair of :data:`POLICIES` at every table: with two sides once (A the later,
    stronger-looking policy), with 3 or 4 players alone in both orders; then each of
    :data:`SEARCH` against each of :data:`SEARCH_OPPONENTS`, once, and :data:`BOUND` against
    ``greedy``."""
    out = []
    for table, options in TABLES:
        rules = RondaRules.make(**options)
        for b, a in combinations(POLICIES, 2):
            out.append(Pairing(table, a, b, rules))
            if ordered(rules):
                out.append(Pairing(table, b, a, rules))
        out += [Pairing(table, a, b, rules) for a in SEARCH for b in SEARCH_OPPONENTS]
        out.append(Pairing(table, BOUND, "greedy", rules))
    return out


def pairing_batches(jobs: list[Pairing], *, seed: int, quick: bool,
                    sets: Callable[[Pairing, bool], int] | None = None) -> list[Batch]:
    """One ``compare`` batch per pairing (the same seed and stream as the command), of
    ``sets(pairing, quick)`` deal sets (default :func:`deal_sets`, this page's sizes)."""
    sets = sets or deal_sets
    batches = []
    for job in jobs:
        a, b = KINDS.parse(job.a), KINDS.parse(job.b)
        cfg = compare_batch.DuplicateConfig.build(job.rules, a, b, None)
        batches.append(Batch(compare_batch.duplicate_chunk, cfg, seed, sets(job, quick),
                             compare_batch.chunk_for(job.rules, a, b), compare_batch.STREAM))
    return batches


def pairing_rows(jobs: list[Pairing], batches: list[Batch], stats: list) -> pd.DataFrame:
    """The rows of ``policies_round_robin.csv`` from the pairings' merged statistics."""
    rows = []
    for job, batch, s in zip(jobs, batches, stats, strict=True):
        a_rate, b_rate = summaries.duplicate_win_rates(s)
        diff = summaries.win_rate_difference(s)
        pts = summaries.points_per_hand_difference(s)
        rows.append({"table": job.table, "players": job.rules.players,
                     "teams": job.rules.n_sides == 2 and job.rules.players == 4,
                     "a": job.a, "b": job.b, "deal_sets": batch.total,
                     "a_win": a_rate.value, "a_win_lo": a_rate.low, "a_win_hi": a_rate.high,
                     "b_win": b_rate.value, "b_win_lo": b_rate.low, "b_win_hi": b_rate.high,
                     "win_diff": diff.value, "win_diff_lo": diff.low, "win_diff_hi": diff.high,
                     "points_diff": pts.value, "points_diff_lo": pts.low,
                     "points_diff_hi": pts.high, "unfinished": int(s["unfinished"][0]),
                     "violations": int(s["violations"][0])})
    return pd.DataFrame(rows)


def run_pairings(jobs: list[Pairing], *, seed: int, workers: int | None,
                 progress: bool = False, quick: bool = False, executor: Executor | None = None,
                 store: Path | None = None) -> pd.DataFrame:
    """One ``compare`` run per pairing, as the rows of ``policies_round_robin.csv``."""
    batches = pairing_batches(jobs, seed=seed, quick=quick)
    stats = run_batches(batches, workers=workers, executor=executor, progress=progress,
                        label="Ronda policies report",
                        store=batch_set_store(store, "ronda", "report-policies"))
    return pairing_rows(jobs, batches, stats)


def replies_sizes(quick: bool) -> tuple[dict[int, int], int]:
    """Hands of the lookahead study: reference-engine hands per table size (the three-player
    count first sized to give some hundreds of declined captures in about a minute of one
    core), and numba hands per points-by-source run."""
    if quick:
        return {2: 4, 3: 8, 4: 4}, 400
    return {2: 200, 3: 400, 4: 200}, replies.SOURCE_HANDS


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    jobs = pairings()
    batches = pairing_batches(jobs, seed=seed, quick=quick)
    reply_hands, source_hands = replies_sizes(quick)
    extra = replies.batches(seed, reply_hands) + replies.source_batches(seed, 3, source_hands)
    stats = run_batches(batches + extra, workers=workers, executor=executor,
                        progress=progress, label="Ronda policies report",
                        store=batch_set_store(store, "ronda", "report-policies"))
    df = pairing_rows(jobs, batches, stats[:len(batches)])
    rest = stats[len(batches):]
    tables = [replies.summary(n, h, s) for (n, h), s in zip(reply_hands.items(),
                                                              rest[:len(reply_hands)],
                                                              strict=True)]
    looked, plain = rest[len(reply_hands):]
    sources = replies.source_rows(source_hands, looked, plain)
    out = out_dir(root, "ronda")
    df.to_csv(out / "policies_round_robin.csv", index=False)
    fig = _figure(df, out / "policies_round_robin.png")
    page = out / "policies.md"
    _page(page, df, fig, seed=seed, quick=quick,
          replies_lines=replies.page_lines(tables, sources, source_hands))
    return page


def _est(row: pd.Series, stem: str) -> Estimate:
    return Estimate(float(row[stem]), float(row[f"{stem}_lo"]), float(row[f"{stem}_hi"]))


def _fmt(e: Estimate, digits: int = 3, signed: bool = True) -> str:
    s = "+" if signed else ""
    return f"{e.value:{s}.{digits}f} [{e.low:{s}.{digits}f}, {e.high:{s}.{digits}f}]"


def _verdict(d: Estimate) -> str:
    """``beats``, ``loses to`` or ``is not separated from``: a difference counts only when its
    95% interval excludes zero."""
    return "beats" if d.low > 0 else "loses to" if d.high < 0 else "is not separated from"


VERDICT_COLORS = {"beats": "tab:green", "loses to": "tab:red",
                  "is not separated from": "tab:grey"}
VERDICT_LEGEND = {"beats": "first policy better (95% CI above 0)",
                  "loses to": "first policy worse (95% CI below 0)",
                  "is not separated from": "not separated (95% CI covers 0)"}


def _figure(df: pd.DataFrame, path: Path) -> str:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    tables = [t for t, _ in TABLES]
    fig, axes = plt.subplots(1, len(tables), figsize=(20, 7), layout="constrained",
                             sharex=True)
    for ax, table in zip(axes, tables, strict=True):
        sub = df[df.table == table]
        y = np.arange(len(sub))
        err = [sub.win_diff - sub.win_diff_lo, sub.win_diff_hi - sub.win_diff]
        colors = [VERDICT_COLORS[_verdict(_est(r, "win_diff"))] for _, r in sub.iterrows()]
        ax.barh(y, sub.win_diff, xerr=err, color=colors, capsize=3)
        one = "one " if len(sub) and _alone(sub.iloc[0]) else ""
        ax.set_yticks(y, [f"{one}{a} v {b}" for a, b in zip(sub.a, sub.b, strict=True)],
                      fontsize=8)
        ax.invert_yaxis()
        ax.axvline(0, color="black", lw=1)
        ax.set_title(table)
        ax.set_xlabel("match win rate, first minus second (95% CI)")
        ax.grid(alpha=0.3, axis="x")
    fig.legend(handles=[Patch(color=VERDICT_COLORS[k], label=VERDICT_LEGEND[k])
                        for k in VERDICT_COLORS], loc="outside lower center", ncols=3)
    fig.suptitle("Ronda round robin in duplicate, matches to 21: paired differences in win rate "
                 "(3 and 4 players: the first policy holds one seat, the second every other)")
    return save_figure(fig, path)


def _alone(r: pd.Series) -> bool:
    """Whether a row's table has 3 or 4 players alone (one seat against every other)."""
    return bool(r.players > 2 and not r.teams)


def _run(sub: pd.DataFrame, a: str, b: str) -> pd.Series | None:
    hit = sub[(sub.a == a) & (sub.b == b)]
    return hit.iloc[0] if len(hit) else None


def cell(df: pd.DataFrame, table: str, row_p: str, col_p: str) -> Estimate:
    """The row policy's match win rate against the column policy: ``win_rate_a`` of the run
    ``compare ROW COLUMN`` where it exists (every cell with 3 or 4 players alone); with two
    sides the pair's one run gives the other cell as its ``win_rate_b``."""
    sub = df[df.table == table]
    hit = _run(sub, row_p, col_p)
    if hit is not None:
        return _est(hit, "a_win")
    r = _run(sub, col_p, row_p)
    if r is None or _alone(r):
        raise ValueError(f"{table}: no run gives {row_p} v {col_p}")
    return _est(r, "b_win")


def _matrix(df: pd.DataFrame, table: str) -> list[str]:
    """The round-robin table of one table size (:func:`cell` for every ordered pair)."""
    head = "| policy | " + " | ".join(f"v {p}" for p in POLICIES) + " |"
    lines = [head, "|---" * (len(POLICIES) + 1) + "|"]
    for row_p in POLICIES:
        cells = []
        for col_p in POLICIES:
            if row_p == col_p:
                cells.append("—")
                continue
            cells.append(_fmt(cell(df, table, row_p, col_p), signed=False))
        lines.append(f"| `{row_p}` | " + " | ".join(cells) + " |")
    return lines


def _run_line(r: pd.Series, alone: bool) -> str:
    d = _est(r, "win_diff")
    verdict = _verdict(d)
    if alone:
        who = f"One `{r.a}` among `{r.b}` players {verdict} them"
        share = f"it takes {r.a_win:.1%} of the matches (a fair share is 1/{int(r.players)})"
    else:
        who = f"`{r.a}` {verdict} `{r.b}`"
        share = f"it takes {r.a_win:.1%} of the matches"
    return (f"- {who}: {share}; win-rate difference {_fmt(d)}, "
            f"{r.points_diff:+.2f} points per hand "
            f"[{r.points_diff_lo:+.2f}, {r.points_diff_hi:+.2f}] ({int(r.deal_sets):,} deal "
            "sets).")


def table_answer(sub: pd.DataFrame, table: str) -> list[str]:
    """What the round robin's runs say at one table, restricted to :data:`POLICIES` and said
    to be: the policies that no run among them shows worse than another (a separated
    difference), the verdict of every run among the policies that are not ``random``, and one
    line for ``random``. The page's one answer per table is its ladder (:func:`_ladder`), which
    rates the search players and the bound too; this head names no policy to play, so that
    the page does not give two answers."""
    alone = bool(len(sub)) and _alone(sub.iloc[0])
    worse: dict[str, set[str]] = {p: set() for p in POLICIES}
    for _, r in sub.iterrows():
        v = _verdict(_est(r, "win_diff"))
        if v == "beats":
            worse[r.b].add(r.a)
        elif v == "loses to":
            worse[r.a].add(r.b)
    top = [p for p in POLICIES if not worse[p]]
    quoted = [f"`{p}`" for p in top]
    names = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
    where = f"**{table}, the round robin's {len(POLICIES)} policies alone:**"
    if len(top) == 1:
        head = (f"{where} no run among them shows {names} measurably worse than another of "
                "them.")
    elif top:
        head = (f"{where} no run among them shows {names} measurably worse than another of "
                f"them; of these, `{top[0]}` costs the least to compute (Q2-Q5).")
    else:
        head = (f"{where} each of them does measurably worse than another in some run "
                "below.")
    lines = [head, ""]
    rest = sub[(sub.a != "random") & (sub.b != "random")]
    for _, r in rest.iterrows():
        lines.append(_run_line(r, alone))
    rnd = sub[(sub.a == "random") | (sub.b == "random")]
    random_worse = all(
        _verdict(_est(r, "win_diff")) == ("loses to" if r.a == "random" else "beats")
        for _, r in rnd.iterrows())
    if random_worse:
        rates = [r.a_win if r.a == "random" else r.b_win for _, r in rnd.iterrows()]
        lines.append(f"- `random` does measurably worse than every other policy in every run; "
                     f"it takes {min(rates):.1%} to {max(rates):.1%} of the matches (per seat).")
    else:
        for _, r in rnd.iterrows():
            lines.append(_run_line(r, alone))
    lines.append("")
    return lines


def _sides(r: pd.Series) -> int:
    """The number of sides of a row's table: 2 for two players or teams, else the players."""
    return int(r.players) if _alone(r) else 2


def table_ladder(sub: pd.DataFrame) -> dict:
    """One table's Bradley-Terry ladder (:func:`simcards.core.ladder.rate_runs`) from its
    runs, ``greedy`` the anchor at 0; every policy of :data:`LADDER` that played is rated."""
    present = set(sub.a) | set(sub.b)
    names = [p for p in LADDER if p in present]
    runs = [{"a": r.a, "b": r.b, "d": float(r.win_diff), "ci": [float(r.win_diff_lo),
             float(r.win_diff_hi)], "sides": _sides(r), "deal_sets": int(r.deal_sets)}
            for _, r in sub.iterrows()]
    return lad.rate_runs(names, runs)


def ladder_sentence(sub: pd.DataFrame, table: str, rated: dict) -> str:
    """The plain answer of one table's ladder: the best-rated policy and what it wins against
    ``greedy`` (one seat of it among ``greedy`` players, with 3 or 4 alone), then the pairs
    that do not separate."""
    best = next(p for p in rated["order"] if p != BOUND)
    if best == "greedy":
        head = f"**{table}: play `greedy`**: no policy rates above it."
    else:
        r = _run(sub, best, "greedy")
        sign = 1
        if r is None:
            r, sign = _run(sub, "greedy", best), -1
        d = _est(r, "win_diff")
        lo, hi = sorted((sign * d.low, sign * d.high))
        diff = f"{sign * d.value:+.3f} [{lo:+.3f}, {hi:+.3f}]"
        if _alone(r):
            what = (f"one `{best}` among `greedy` players wins {diff} of the matches more "
                    "per seat than they do")
        else:
            what = f"its match win rate is {diff} above `greedy`'s"
        head = f"**{table}: play `{best}`**: {what} ({int(r.deal_sets):,} deal sets)."
    return f"{head} {lad.unseparated_sentence(rated, LADDER)}"


def bound_sentence(rated: dict) -> str:
    """What the all-seeing bound says about one table: its rating (what seeing the hidden
    cards is worth), its margin over the best legal player, and each legal player's share of
    the distance from ``greedy`` (0) to the bound. Empty where the bound did not play."""
    by = {r["policy"]: r for r in rated["ratings"]}
    if BOUND not in by:
        return ""
    bound = by[BOUND]
    top = bound["rating"]
    best = next(p for p in rated["order"] if p != BOUND)
    lo, hi = bound["ci95"]
    shares = ", ".join(f"`{p}` {by[p]['rating'] / top:.0%}" for p in rated["order"]
                       if p not in (BOUND, "greedy"))
    return (f"The all-seeing bound `{BOUND}` (Q9: it sees every hand and the stock order, so "
            f"it is no legal player and `simcards ronda play` refuses it) rates {top:+.0f} "
            f"[{lo:+.0f}, {hi:+.0f}], {top - by[best]['rating']:.0f} above the best legal "
            f"player `{best}`: that is what the hidden cards are worth. Share of the distance "
            f"from `greedy` to the bound that each legal player covers: {shares}.")


def _ladder(df: pd.DataFrame) -> list[str]:
    """The page's opening: one ladder per table size, each with its sentence."""
    lines = ["## The ladder", "",
             "Every policy's rating per table size, fitted by Bradley-Terry (Luce's model with "
             "3 or 4 players alone) to every duplicate run below: the round robin's, the "
             "search players' and the all-seeing bound's "
             "(`simcards ronda ladder` makes the same fit from its own runs). Ratings are on "
             "the Elo scale: 400 points between two policies mean the better one would win "
             "10 of 11 two-sided matches; `greedy` is the anchor at 0. The two strongest legal "
             "players, `ismcts:1000` and `rollout:32`, are measured against each other on "
             "enough deal sets for a ±0.03 interval in the long study [search.md](search.md).",
             ""]
    for table, _ in TABLES:
        sub = df[df.table == table]
        rated = table_ladder(sub)
        ratings = [line.replace(f"`{BOUND}` |", f"`{BOUND}` (all-seeing bound) |")
                   for line in lad.rating_lines(rated, "greedy")]
        bound = bound_sentence(rated)
        lines += [f"### {table}", "", ladder_sentence(sub, table, rated), "",
                  *([bound, ""] if bound else []), *ratings, ""]
    return lines


def _answer(df: pd.DataFrame) -> list[str]:
    names = ", ".join(f"`{p}`" for p in POLICIES)
    lines = ["## The runs behind the ladder", "",
             "The answer per table is the ladder's above, which fits every run at once. This "
             f"section reads the runs one by one, and its first line per table is restricted "
             f"to the round robin's policies ({names}): the search players and the "
             "all-seeing bound, listed after it, are left out of that line. Matches to 21 are "
             "played in duplicate so that both policies get the same cards. A policy counts "
             "as better in a run only when the 95% interval of its paired win-rate difference "
             "(over deal sets) excludes zero; with 3 or 4 players alone each run seats one "
             "policy against the other in every other seat, and both orders are run, so a "
             "policy the ladder rates below another can still be unbeaten in their runs: the "
             "ratings weigh both orders and every other run together.", ""]
    for table, _ in TABLES:
        sub = df[df.table == table]
        field = sub.a.isin(POLICIES) & sub.b.isin(POLICIES)
        lines += table_answer(sub[field], table)
        if (~field).any():
            lines[-1:] = ["Search players (Q8) and the all-seeing bound (Q9, not a legal "
                          "player), each in one run:", ""]
            alone = _alone(sub.iloc[0])
            lines += [_run_line(r, alone) for _, r in sub[~field].iterrows()]
            lines.append("")
    lines.append(
        "In the last deal `lookahead:1` and `rollout:32` both play exactly (Q7), so the "
        "differences between these two come from the deals before it.")
    lines.append("")
    return lines


def cli_flags(options: dict) -> str:
    """The command-line flags of a table's rule options (``{"players": 4, "teams": "on"}``
    gives ``--players 4 --teams on``)."""
    return " ".join(f"--{k.replace('_', '-')} {v}" for k, v in options.items())


def command(r: pd.Series, seed: int) -> str:
    """The ``simcards ronda compare`` command that gives a row's numbers exactly."""
    options = dict(TABLES)[r.table]
    return (f"simcards ronda compare {r.a} {r.b} {cli_flags(options)} "
            f"--deals {int(r.deal_sets)} --seed {seed} --json")


def _page(path: Path, df: pd.DataFrame, fig: str, *, seed: int, quick: bool,
          replies_lines: list[str]) -> None:
    lines = ["# Ronda: which capture policy to use", "", *quick_banner(quick)]
    lines += _ladder(df)
    lines += _answer(df)
    lines += [
        "## The round robin",
        "",
        f"Policies (rules Q2-Q5 of `seeds/ronda.md`): {', '.join(f'`{p}`' for p in POLICIES)}; "
        f"the search players {', '.join(f'`{p}`' for p in SEARCH)} (Q8) play one run against "
        f"each of {', '.join(f'`{p}`' for p in SEARCH_OPPONENTS)} per table (listed in the "
        "runs behind the ladder and the paired differences, not in these tables). "
        "Each cell is the row policy's match win rate against the column policy, with its 95% "
        "Wilson interval. With two sides (two players, or two teams) the row policy holds one "
        "side and the column policy the other, a fair match is 0.5, and one run gives both "
        "cells of a pair: the cell of the pairing's first policy is `win_rate_a` of "
        "`simcards ronda compare FIRST SECOND`, the other cell its `win_rate_b`. With 3 or 4 "
        "players alone the row policy holds one seat against the column policy in every other "
        "seat, a fair share is 1/3 or 1/4, and every cell is `win_rate_a` of its own run, "
        "`simcards ronda compare ROW COLUMN` (the two cells of a pair answer different "
        "questions and need not add up to anything). Duplicate format: every deal set is one "
        "match played on the same decks and dealers in every seating (each policy on each "
        "side; with 3 or 4 players alone the run's first policy in each seat in turn).",
        "",
        f"Seed {seed}; default rules (`derba_chain=flat`, `announce=first_deal`, "
        "`announce_conflict=text`), matches to 21 checked at the end of each hand.",
        "",
    ]
    for table, _ in TABLES:
        sub = df[df.table == table]
        lo, hi = int(sub.deal_sets.min()), int(sub.deal_sets.max())
        span = f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"
        lines += [f"### {table} ({span} deal sets per pairing)", "", *_matrix(df, table), ""]
    lines += [f"![paired differences]({fig})", "",
              "## Paired differences", "",
              "Win-rate difference: the first policy's match win rate minus the second's (the "
              "mean over its seats), paired by deal set; points per hand: the first policy's "
              "side minus the second's. Both with 95% intervals over deal sets. With 3 or 4 "
              "players alone the first policy holds one seat and the second every other.", "",
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
              "Every pairing is one `simcards ronda compare FIRST SECOND` run with the table's "
              "flags, the pairing's deal sets and the same seed, so the command gives the row's "
              "numbers exactly (its `win_rate_a`, `win_rate_b`, `win_rate_diff`, "
              "`points_diff`); for example the two-player and team rows of `lookahead:1` "
              "against `greedy`, and the three-player cells `greedy` v `lookahead:1` and "
              "`lookahead:1` v `greedy`:", "", "```"]
    examples = [("2 players", "lookahead:1", "greedy"), ("teams (2 v 2)", "lookahead:1", "greedy"),
                ("3 players", "greedy", "lookahead:1"), ("3 players", "lookahead:1", "greedy")]
    for table, a, b in examples:
        lines.append(command(_run(df[df.table == table], a, b), seed))
    lines += ["```", "", *replies_lines]
    write_page(path, lines, STUDY, seed, quick)
