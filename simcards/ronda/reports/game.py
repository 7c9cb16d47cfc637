"""Report: the game of Ronda itself: where the points come from, how long a match lasts, what
the first seat is worth, and how the answers move with the rule options.

Points and match lengths are measured with every seat playing ``greedy`` (Q3); the option study
repeats the page's key comparison, ``lookahead:1`` against ``greedy`` in duplicate, under each
option value.
"""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path

import numpy as np
import pandas as pd

from simcards.core.reports.common import out_dir, page_footer, quick_banner, save_figure
from simcards.core.runner import Batch, run_batches
from simcards.core.store import batch_set_store
from simcards.ronda import compare, hands, matchplay, summaries
from simcards.ronda.policies import KINDS
from simcards.ronda.rules import RondaRules

STUDY = "ronda-game"
TABLES = (("2 players", {"players": 2}), ("3 players", {"players": 3}),
          ("4 players", {"players": 4}), ("teams (2 v 2)", {"players": 4, "teams": "on"}))
TARGETS = (11, 21, 41)
SOURCES = ("cards", "derba", "missa", "ronda", "tringla", "last_card")
OPTIONS = (
    ("default", {}),
    ("derba_chain=tiers", {"derba_chain": "tiers"}),
    ("announce=every_deal", {"announce": "every_deal"}),
    ("announce_conflict=highest_takes_all", {"announce_conflict": "highest_takes_all"}),
    ("target=11", {"target": 11}),
    ("target=41", {"target": 41}),
    ("target_check=immediate", {"target_check": "immediate"}),
)
GREEDY = "greedy"
CHALLENGER = "lookahead:1"


def _sizes(quick: bool) -> tuple[int, int, int]:
    """(hands per table, matches per table and target, deal sets per option)."""
    return (2_000, 500, 8) if quick else (50_000, 10_000, 600)


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    n_hands, n_matches, n_sets = _sizes(quick)
    greedy = KINDS.parse(GREEDY)
    challenger = KINDS.parse(CHALLENGER)
    batches: list[Batch] = []
    keys: list[tuple] = []
    for table, options in TABLES:
        rules = RondaRules.make(**options)
        specs = [greedy] * rules.players
        batches.append(Batch(hands.hands_chunk, hands.HandConfig.build(rules, specs, None),
                             seed, n_hands, hands.chunk_size(specs), hands.STREAM))
        keys.append(("hands", table, None))
        for target in TARGETS:
            r = RondaRules.make(**options, target=target)
            batches.append(Batch(matchplay.matches_chunk,
                                 matchplay.MatchConfig.build(r, specs, None), seed, n_matches,
                                 matchplay.match_chunk_size(r, specs), matchplay.STREAM))
            keys.append(("matches", table, target))
    for name, options in OPTIONS:
        rules = RondaRules.make(players=2, **options)
        batches.append(Batch(compare.duplicate_chunk,
                             compare.DuplicateConfig.build(rules, challenger, greedy, None),
                             seed, n_sets, compare.chunk_for(rules, challenger, greedy),
                             compare.STREAM))
        keys.append(("options", name, None))
        specs = [greedy, greedy]
        batches.append(Batch(matchplay.matches_chunk,
                             matchplay.MatchConfig.build(rules, specs, None), seed, n_matches,
                             matchplay.match_chunk_size(rules, specs), matchplay.STREAM))
        keys.append(("option-matches", name, None))
    stats = run_batches(batches, workers=workers, executor=executor, progress=progress,
                        label="Ronda game report",
                        store=batch_set_store(store, "ronda", "report-game"))
    res = dict(zip(keys, stats, strict=True))
    out = out_dir(root, "ronda")
    sources = _sources_frame(res, n_hands)
    sources.to_csv(out / "points_by_source.csv", index=False)
    lengths = _lengths_frame(res)
    lengths.to_csv(out / "match_length.csv", index=False)
    options = _options_frame(res)
    options.to_csv(out / "options.csv", index=False)
    figs = {
        "sources": _sources_figure(sources, out / "points_by_source.png"),
        "lengths": _lengths_figure(res, out / "match_length.png"),
        "seats": _seats_figure(lengths, out / "first_player_advantage.png"),
        "options": _options_figure(options, out / "options.png"),
    }
    page = out / "game.md"
    _page(page, sources, lengths, options, figs, seed=seed, quick=quick,
          sizes=(n_hands, n_matches, n_sets))
    return page


# ---------------------------------------------------------------- tables


def _sources_frame(res: dict, n: int) -> pd.DataFrame:
    rows = []
    for table, _ in TABLES:
        s = res[("hands", table, None)]
        d = hands.HandsResult(n, s).to_dict()
        for side in range(len(d["points_mean"])):
            row = {"table": table, "side": side, "points_mean": d["points_mean"][side],
                   "points_lo": d["points_ci"][side][0], "points_hi": d["points_ci"][side][1],
                   "cards_mean": d["cards_mean"][side],
                   "hand_win_rate": d["hand_win_rate"][side]}
            for src in SOURCES:
                row[src] = d["points_by_source"][src][side]
            rows.append(row)
    return pd.DataFrame(rows)


def _lengths_frame(res: dict) -> pd.DataFrame:
    rows = []
    for table, _ in TABLES:
        for target in TARGETS:
            s = res[("matches", table, target)]
            length = summaries.match_length(s)
            adv = summaries.first_player_advantage(s)
            wins = summaries.win_rates(s)
            rows.append({"table": table, "target": target,
                         "matches": int(s["matches"][0]),
                         "hands_mean": length["mean"].value,
                         "hands_lo": length["mean"].low, "hands_hi": length["mean"].high,
                         **{f"q{int(q * 100)}": v for q, v in length["quantiles"].items()},
                         "first_adv": adv.value, "first_adv_lo": adv.low,
                         "first_adv_hi": adv.high,
                         "seat_win_rates": " ".join(f"{w.value:.4f}" for w in wins),
                         "unfinished": length["unfinished"]})
    return pd.DataFrame(rows)


def _options_frame(res: dict) -> pd.DataFrame:
    rows = []
    for name, _ in OPTIONS:
        s = res[("options", name, None)]
        d = summaries.win_rate_difference(s)
        p = summaries.points_per_hand_difference(s)
        a, _ = summaries.duplicate_win_rates(s)
        m = res[("option-matches", name, None)]
        length = summaries.match_length(m)
        adv = summaries.first_player_advantage(m)
        rows.append({"option": name, "deal_sets": int(s["deal_sets"][0]),
                     "win_rate": a.value, "win_diff": d.value, "win_diff_lo": d.low,
                     "win_diff_hi": d.high, "points_diff": p.value, "points_diff_lo": p.low,
                     "points_diff_hi": p.high, "greedy_hands_mean": length["mean"].value,
                     "greedy_first_adv": adv.value, "greedy_first_adv_lo": adv.low,
                     "greedy_first_adv_hi": adv.high})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- figures


def _sources_figure(df: pd.DataFrame, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(12, 5.5), layout="constrained")
    labels = [f"{t}\nside {s}" for t, s in zip(df.table, df.side, strict=True)]
    x = np.arange(len(df))
    bottom_pos = np.zeros(len(df))
    bottom_neg = np.zeros(len(df))
    cmap = plt.get_cmap("tab10")
    for i, src in enumerate(SOURCES):
        v = df[src].to_numpy()
        base = np.where(v >= 0, bottom_pos, bottom_neg)
        ax.bar(x, v, bottom=base, color=cmap(i), label=src)
        bottom_pos += np.where(v >= 0, v, 0)
        bottom_neg += np.where(v < 0, v, 0)
    ax.errorbar(x, df.points_mean, yerr=[df.points_mean - df.points_lo,
                                         df.points_hi - df.points_mean],
                fmt="o", color="black", ms=3, capsize=3, label="total (95% CI)")
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("mean points per hand")
    ax.set_title("Where the points come from (everyone greedy, default rules)")
    ax.legend(fontsize=8, ncols=4)
    ax.grid(alpha=0.3, axis="y")
    return save_figure(fig, path)


def _lengths_figure(res: dict, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(TARGETS), figsize=(16, 5), layout="constrained")
    for ax, target in zip(axes, TARGETS, strict=True):
        for table, _ in TABLES:
            s = res[("matches", table, target)]
            hist = np.asarray(s["length_hist"], float)
            pmf = hist / hist.sum()
            top = int(np.nonzero(hist)[0].max()) + 1
            ax.plot(np.arange(top), pmf[:top], marker="o", ms=3, label=table)
        ax.set_xlabel("hands in the match")
        ax.set_ylabel("share of matches")
        ax.set_title(f"Matches to {target}")
        ax.set_xlim(0, None)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Match length (everyone greedy)")
    return save_figure(fig, path)


def _seats_figure(df: pd.DataFrame, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5), layout="constrained")
    for k, (table, _) in enumerate(TABLES):
        sub = df[df.table == table]
        x = np.arange(len(TARGETS)) + (k - 1.5) * 0.08
        ax.errorbar(x, sub.first_adv, yerr=[sub.first_adv - sub.first_adv_lo,
                                            sub.first_adv_hi - sub.first_adv],
                    marker="o", capsize=3, label=table)
    ax.axhline(0, color="black", lw=1)
    ax.set_xticks(range(len(TARGETS)), [f"to {t}" for t in TARGETS])
    ax.set_ylabel("first player's side: win rate minus a fair share (95% CI)")
    ax.set_title("What playing first in the first hand is worth (everyone greedy)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return save_figure(fig, path)


def _options_figure(df: pd.DataFrame, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5), layout="constrained")
    y = np.arange(len(df))
    ax.barh(y, df.win_diff, xerr=[df.win_diff - df.win_diff_lo, df.win_diff_hi - df.win_diff],
            color="tab:blue", capsize=3)
    ax.set_yticks(y, df.option)
    ax.axvline(0, color="black", lw=1)
    ax.set_xlabel(f"{CHALLENGER} minus {GREEDY}: match win rate (95% CI)")
    ax.set_title(f"How the {CHALLENGER} edge moves with the rules (2 players, duplicate)")
    ax.grid(alpha=0.3, axis="x")
    return save_figure(fig, path)


# ---------------------------------------------------------------- page


def _ci(v: float, lo: float, hi: float, digits: int = 3, signed: bool = False) -> str:
    s = "+" if signed else ""
    return f"{v:{s}.{digits}f} [{lo:{s}.{digits}f}, {hi:{s}.{digits}f}]"


def _options_sentence(options: pd.DataFrame) -> str:
    ahead = options[options.win_diff_lo > 0]
    if len(ahead) == len(options):
        return (f"- `{CHALLENGER}` beats `{GREEDY}` under every option value measured, by "
                f"{options.win_diff.min():+.3f} to {options.win_diff.max():+.3f} in match win "
                "rate (table below).")
    rest = ", ".join(f"`{o}`" for o in options[options.win_diff_lo <= 0].option)
    return (f"- `{CHALLENGER}` beats `{GREEDY}` by an interval that excludes zero under "
            f"{len(ahead)} of {len(options)} option values; not under {rest}.")


def _page(path: Path, sources: pd.DataFrame, lengths: pd.DataFrame, options: pd.DataFrame,
          figs: dict[str, str], *, seed: int, quick: bool, sizes: tuple[int, int, int]) -> None:
    n_hands, n_matches, n_sets = sizes
    two = sources[sources.table == "2 players"]
    share = {src: float(two[src].sum()) for src in SOURCES}
    total = sum(max(v, 0.0) for v in share.values())
    main_src = max(share, key=lambda k: share[k])
    len21 = lengths[(lengths.table == "2 players") & (lengths.target == 21)].iloc[0]
    lines = ["# Ronda: where the points come from, match length, seats and options", "",
             *quick_banner(quick)]
    lines += [
        "## In short", "",
        f"- In a two-player hand between greedy players, {share[main_src] / total:.0%} of the "
        f"points come from `{main_src}`; then "
        + ", ".join(f"`{k}` {share[k] / total:.0%}" for k in sorted(
            (k for k in SOURCES if k != main_src), key=lambda k: -share[k])) + ".",
        f"- A two-player match to 21 lasts {len21.hands_mean:.2f} hands on average "
        f"(median {int(len21.q50)}, 95% of matches within {int(len21.q95)}).",
        f"- Playing first in the first hand is worth {len21.first_adv:+.3f} in match win rate "
        f"(95% CI [{len21.first_adv_lo:+.3f}, {len21.first_adv_hi:+.3f}]) in that match.",
        _options_sentence(options),
        "",
        f"Seed {seed}; {n_hands:,} hands per table for the points, {n_matches:,} matches per "
        f"table and target for lengths and seats, {n_sets:,} duplicate deal sets per option "
        "value. Every seat greedy unless said.",
        "",
        "## Where the points come from", "",
        f"![points by source]({figs['sources']})", "",
        "Mean points per hand by source (rules S1, X6, M1, A2-A4, L1-L5), every seat greedy:",
        "",
        "| table | side | total (95% CI) | " + " | ".join(SOURCES) + " | cards held | "
        "hand win rate |",
        "|---" * (len(SOURCES) + 5) + "|",
    ]
    for _, r in sources.iterrows():
        lines.append(f"| {r.table} | {r.side} | {_ci(r.points_mean, r.points_lo, r.points_hi, 2)}"
                     " | " + " | ".join(f"{r[s]:.3f}" for s in SOURCES)
                     + f" | {r.cards_mean:.2f} | {r.hand_win_rate:.4f} |")
    lines += ["", "## Match length", "", f"![match length]({figs['lengths']})", "",
              "| table | target | matches | hands, mean (95% CI) | 5% | 25% | 50% | 75% | 95% |",
              "|---|---|---|---|---|---|---|---|---|"]
    for _, r in lengths.iterrows():
        lines.append(f"| {r.table} | {r.target} | {r.matches:,} | "
                     f"{_ci(r.hands_mean, r.hands_lo, r.hands_hi, 2)} | {r.q5} | {r.q25} | "
                     f"{r.q50} | {r.q75} | {r.q95} |")
    lines += ["", "## Seat advantage", "", f"![first player]({figs['seats']})", "",
              "The first dealer is drawn at random (D3); the side of the player after him, who "
              "plays first in the first hand, wins this much more often than a fair share "
              "(1/2 with two sides, 1/3, 1/4). Win rates by seat are for seats in a fixed "
              "numbering with a random first dealer, so they are all fair by symmetry; they "
              "are listed as a check.", "",
              "| table | target | first player's advantage (95% CI) | win rate by seat |",
              "|---|---|---|---|"]
    for _, r in lengths.iterrows():
        lines.append(f"| {r.table} | {r.target} | "
                     f"{_ci(r.first_adv, r.first_adv_lo, r.first_adv_hi, 4, True)} | "
                     f"{r.seat_win_rates} |")
    lines += ["", "## How the answers move with the options", "",
              f"![options]({figs['options']})", "",
              f"Two players. `{CHALLENGER}` against `{GREEDY}` in duplicate (same decks, seats "
              f"swapped), and {n_matches:,} greedy-only matches for length and the first seat.",
              "", f"| option | {CHALLENGER} win rate | win-rate difference | points per hand "
              "difference | greedy match length | greedy first player's advantage |",
              "|---|---|---|---|---|---|"]
    for _, r in options.iterrows():
        lines.append(
            f"| `{r.option}` | {r.win_rate:.3f} | "
            f"{_ci(r.win_diff, r.win_diff_lo, r.win_diff_hi, 3, True)} | "
            f"{_ci(r.points_diff, r.points_diff_lo, r.points_diff_hi, 2, True)} | "
            f"{r.greedy_hands_mean:.2f} | "
            f"{_ci(r.greedy_first_adv, r.greedy_first_adv_lo, r.greedy_first_adv_hi, 3, True)} |")
    lines += ["", "Data: `points_by_source.csv`, `match_length.csv`, `options.csv`.", "",
              "## Reproducing a number", "",
              "Each row is one run of a command with the same seed, which gives its numbers "
              "exactly; for example the two-player points, the two-player match lengths to 21 "
              "and the `derba_chain=tiers` comparison:", "", "```",
              f"simcards ronda hands --players 2 --policies greedy,greedy --hands {n_hands} "
              f"--seed {seed} --json",
              f"simcards ronda matches --players 2 --policies greedy,greedy --target 21 "
              f"--matches {n_matches} --seed {seed} --json",
              f"simcards ronda compare {CHALLENGER} {GREEDY} --players 2 --derba-chain tiers "
              f"--deals {n_sets} --seed {seed} --json", "```"]
    path.write_text("\n".join(lines) + page_footer(STUDY, seed, quick))

