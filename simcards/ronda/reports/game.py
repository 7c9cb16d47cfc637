"""Report: the game of Ronda itself: where the points come from, how long a match lasts, what
the first seat is worth, and how the answers move with the rule options.

Points and match lengths are measured with every seat playing ``greedy`` (Q3); the option study
repeats the page's key comparison, ``lookahead:1`` against ``greedy`` in duplicate, under each
option value, at two players only. The points are measured with the last seat dealing every
hand (D3), so that seat 0's side is the first player's and the last seat's the dealer's: the
roles, not the seat numbers, are what differ between sides.
"""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path

import numpy as np
import pandas as pd

from simcards.core.reports.common import out_dir, quick_banner, save_figure, write_page
from simcards.core.runner import Batch, run_batches
from simcards.core.store import batch_set_store
from simcards.ronda import compare_batch, hands_batch, matches_batch, summaries
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


def dealer_seat(rules: RondaRules) -> int:
    """The seat that deals every hand of the points sample: the last, so that seat 0 plays
    first (D3)."""
    return rules.players - 1


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
        batches.append(Batch(hands_batch.hands_chunk,
                             hands_batch.HandConfig.build(rules, specs, dealer_seat(rules)),
                             seed, n_hands, hands_batch.chunk_size(specs), hands_batch.STREAM))
        keys.append(("hands", table, None))
        for target in TARGETS:
            r = RondaRules.make(**options, target=target)
            batches.append(Batch(matches_batch.matches_chunk,
                                 matches_batch.MatchConfig.build(r, specs, None), seed, n_matches,
                                 matches_batch.match_chunk_size(r, specs), matches_batch.STREAM))
            keys.append(("matches", table, target))
    for name, options in OPTIONS:
        rules = RondaRules.make(players=2, **options)
        batches.append(Batch(compare_batch.duplicate_chunk,
                             compare_batch.DuplicateConfig.build(rules, challenger, greedy, None),
                             seed, n_sets, compare_batch.chunk_for(rules, challenger, greedy),
                             compare_batch.STREAM))
        keys.append(("options", name, None))
        specs = [greedy, greedy]
        batches.append(Batch(matches_batch.matches_chunk,
                             matches_batch.MatchConfig.build(rules, specs, None), seed, n_matches,
                             matches_batch.match_chunk_size(rules, specs), matches_batch.STREAM))
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
    for table, options in TABLES:
        rules = RondaRules.make(**options)
        dealer_side = rules.side_of(dealer_seat(rules))
        s = res[("hands", table, None)]
        d = hands_batch.HandsResult(n, s).to_dict()
        for side in range(len(d["points_mean"])):
            role = ("first player" if side == 0 else "dealer" if side == dealer_side
                    else f"seat {side}")
            row = {"table": table, "side": side, "role": role,
                   "points_mean": d["points_mean"][side],
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
            rows.append({"table": table, "target": target, "sides": len(wins),
                         "matches": int(s["matches"][0]),
                         "hands_mean": length["mean"].value,
                         "hands_lo": length["mean"].low, "hands_hi": length["mean"].high,
                         **{f"q{int(q * 100)}": v for q, v in length["quantiles"].items()},
                         "first_adv": adv.value, "first_adv_lo": adv.low,
                         "first_adv_hi": adv.high,
                         "seat_win_rates": " ".join(f"{w.value:.4f}" for w in wins),
                         "seat_win_lo": " ".join(f"{w.low:.4f}" for w in wins),
                         "seat_win_hi": " ".join(f"{w.high:.4f}" for w in wins),
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
    labels = [f"{t}\nside {s}: {r}" for t, s, r in zip(df.table, df.side, df.role, strict=True)]
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
    ax.set_title("Where the points come from (everyone greedy, default rules, the last seat "
                 "dealing every hand)")
    ax.legend(fontsize=8, ncols=4)
    ax.grid(alpha=0.3, axis="y")
    return save_figure(fig, path)


MIN_HANDS = 1
"""The shortest possible match: one hand (S4, S5: a match ends in its first hand at the
earliest, and a hand that S5 cuts short still counts)."""


def length_series(length_hist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The match-length distribution to plot, ``(hands, share of matches)``, from the shortest
    possible match (:data:`MIN_HANDS`) to the longest seen: a match of 0 hands cannot happen,
    so no point is drawn there."""
    hist = np.asarray(length_hist, float)
    top = int(np.nonzero(hist)[0].max()) + 1
    x = np.arange(MIN_HANDS, top)
    return x, hist[MIN_HANDS:top] / hist.sum()


def _lengths_figure(res: dict, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(TARGETS), figsize=(16, 5), layout="constrained")
    for ax, target in zip(axes, TARGETS, strict=True):
        for table, _ in TABLES:
            s = res[("matches", table, target)]
            x, pmf = length_series(s["length_hist"])
            ax.plot(x, pmf, marker="o", ms=3, label=table)
        ax.set_xlabel("hands in the match")
        ax.set_ylabel("share of matches")
        ax.set_title(f"Matches to {target}")
        ax.set_xlim(MIN_HANDS - 0.5, None)
        ax.xaxis.get_major_locator().set_params(integer=True)
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


OPTIONS_SCOPE = ("The option study is two-player only; how the policies compare at 3 and 4 "
                 "players is in `policies.md`.")


def options_sentence(options: pd.DataFrame) -> str:
    """The option study's verdict, said for what it measured: two-player matches."""
    ahead = options[options.win_diff_lo > 0]
    behind = options[options.win_diff_hi < 0]
    if len(ahead) == len(options):
        return (f"- In two-player matches `{CHALLENGER}` beats `{GREEDY}` under every option "
                f"value measured, by {options.win_diff.min():+.3f} to "
                f"{options.win_diff.max():+.3f} in match win rate (table below). "
                + OPTIONS_SCOPE)
    parts = [f"under {len(ahead)} of {len(options)} option values"]
    if len(behind):
        parts.append("loses to it under " + ", ".join(f"`{o}`" for o in behind.option))
    even = options[(options.win_diff_lo <= 0) & (options.win_diff_hi >= 0)]
    if len(even):
        parts.append("is not separated from it under " + ", ".join(f"`{o}`" for o in even.option))
    return (f"- In two-player matches `{CHALLENGER}` beats `{GREEDY}` by an interval that "
            f"excludes zero {'; it '.join(parts)}. " + OPTIONS_SCOPE)


SOURCE_GAP = 0.05
"""Per-source differences smaller than this (points per hand) are not given a reason."""


def seat_paragraph(sources: pd.DataFrame) -> str:
    """Why playing first is worth less, from the points sample with a fixed dealer: the
    dealer's side against the first player's, source by source, with the rules that make each
    source favour the last player."""
    two = sources[sources.table == "2 players"].set_index("role")
    first, dealer = two.loc["first player"], two.loc["dealer"]
    gaps = {src: float(dealer[src] - first[src]) for src in SOURCES}
    why = {"cards": "S1 card points: the dealer captures "
                    f"{dealer.cards_mean:.2f} cards a hand to {first.cards_mean:.2f}, "
                    "Ultima included (U1 gives the cards left on the table to the side that "
                    "captured last, and the dealer makes the hand's last play, D3)",
           "derba": "Derbas (X1, X6): the hand starts on an empty table (D4), so its first "
                    "play, the first player's, lays a card that the dealer may Derba, and can "
                    "never be a Derba itself (X2a)",
           "missa": "Missas (M1)",
           "last_card": "the dealer's last card (L1-L3: an As, or a Rey that captures nothing, "
                        "gives +10 to each other side; a Rey that captures gives the dealer "
                        "+10)",
           "ronda": "announcements (A2)", "tringla": "announcements (A3)"}
    pro = sorted((k for k in SOURCES if gaps[k] >= SOURCE_GAP), key=lambda k: -gaps[k])
    con = sorted((k for k in SOURCES if gaps[k] <= -SOURCE_GAP), key=lambda k: gaps[k])
    small = [k for k in SOURCES if abs(gaps[k]) < SOURCE_GAP]
    ahead = dealer.points_lo > first.points_hi
    lead = ("Why playing first is worth less" if ahead
            else "Playing first and dealing, not separated in points per hand")
    text = (f"{lead}: in a two-player hand between greedy players the "
            f"dealer's side scores {_ci(dealer.points_mean, dealer.points_lo, dealer.points_hi, 2)}"
            f" points to {_ci(first.points_mean, first.points_lo, first.points_hi, 2)} for the "
            f"first player's (95% CI), and wins {dealer.hand_win_rate:.1%} of the hands to "
            f"{first.hand_win_rate:.1%}. The dealer's gain comes from "
            + "; ".join(f"{why[k]}, {gaps[k]:+.2f} points" for k in pro) + ".")
    if con:
        text += (" Going the other way: "
                 + "; ".join(f"{why[k]}, {gaps[k]:+.2f} points" for k in con)
                 + " for the dealer.")
    if small:
        text += (" " + ", ".join(f"`{k}`" for k in small) + f" differ by less than "
                 f"{SOURCE_GAP} points.")
    text += (" The table below (everyone greedy, the first dealer drawn at random, D3) gives "
             "the match-level effect: the side of the player who plays first in the first "
             "hand, against a fair share (1/2 with two sides, 1/3, 1/4). The deal then passes "
             "to the first player of the hand just played (D3), so with two sides the first "
             "dealer deals hands 1, 3, 5, ..., at least half of every match.")
    return text


def first_player_sentence(r: pd.Series) -> str:
    """The match-level first-seat effect of a two-player match to 21, said as measured."""
    ci = f"95% CI [{r.first_adv_lo:+.3f}, {r.first_adv_hi:+.3f}]"
    if r.first_adv_hi < 0:
        return (f"- In that match, playing first in the first hand is worth {r.first_adv:+.3f} "
                f"in match win rate ({ci}): the dealer plays last (see the seat section).")
    if r.first_adv_lo > 0:
        return (f"- In that match, playing first in the first hand is worth {r.first_adv:+.3f} "
                f"in match win rate ({ci}).")
    return (f"- In that match, playing first in the first hand is not separated from a fair "
            f"start: {r.first_adv:+.3f} in match win rate ({ci}).")


def seat_check(lengths: pd.DataFrame) -> str:
    """What the seat win rates say, with how many of their intervals miss a fair share."""
    n_seats = 0
    missing = 0
    for _, r in lengths.iterrows():
        fair = 1.0 / r.sides
        for lo, hi in zip(r.seat_win_lo.split(), r.seat_win_hi.split(), strict=True):
            n_seats += 1
            missing += not (float(lo) <= fair <= float(hi))
    return (f"Win rates by seat (with their 95% Wilson intervals) are for the seats in a fixed "
            f"numbering with the first dealer drawn at random (D3), so the rules treat every "
            f"seat alike and any difference from a fair share is sampling noise or a bias in "
            f"that draw: {missing} of {n_seats} seat intervals exclude the fair share, against "
            f"about {0.05 * n_seats:.1f} expected at 95% when every seat is fair.")


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
        first_player_sentence(len21),
        options_sentence(options),
        "",
        f"Seed {seed}; {n_hands:,} hands per table for the points (the last seat deals "
        f"every hand), {n_matches:,} matches per "
        f"table and target for lengths and seats, {n_sets:,} duplicate deal sets per option "
        "value. Every seat greedy unless said.",
        "",
        "## Where the points come from", "",
        f"![points by source]({figs['sources']})", "",
        "Mean points per hand by source (rules S1, X6, M1, A2-A4, L1-L5), every seat greedy, "
        "the last seat dealing every hand, so side 0 is the first player's (with teams, his "
        "team's) and the last side the dealer's (D3):",
        "",
        "| table | side | role | total (95% CI) | " + " | ".join(SOURCES) + " | cards held | "
        "hand win rate |",
        "|---" * (len(SOURCES) + 6) + "|",
    ]
    for _, r in sources.iterrows():
        lines.append(f"| {r.table} | {r.side} | {r.role} | "
                     f"{_ci(r.points_mean, r.points_lo, r.points_hi, 2)}"
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
              seat_paragraph(sources), "", seat_check(lengths), "",
              "| table | target | first player's advantage (95% CI) | "
              "win rate by seat (95% CI) |",
              "|---|---|---|---|"]
    for _, r in lengths.iterrows():
        seats = ", ".join(f"{v} [{lo}, {hi}]" for v, lo, hi in zip(
            r.seat_win_rates.split(), r.seat_win_lo.split(), r.seat_win_hi.split(), strict=True))
        lines.append(f"| {r.table} | {r.target} | "
                     f"{_ci(r.first_adv, r.first_adv_lo, r.first_adv_hi, 4, True)} | "
                     f"{seats} |")
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
              "Every number comes from one run of a command with the same seed, which gives "
              "it exactly; for example the two-player points, the two-player match lengths to 21 "
              "and the `derba_chain=tiers` comparison:", "", "```",
              f"simcards ronda hands --players 2 --policies greedy,greedy --dealer 1 "
              f"--hands {n_hands} --seed {seed} --json",
              f"simcards ronda matches --players 2 --policies greedy,greedy --target 21 "
              f"--matches {n_matches} --seed {seed} --json",
              f"simcards ronda compare {CHALLENGER} {GREEDY} --players 2 --derba-chain tiers "
              f"--deals {n_sets} --seed {seed} --json", "```"]
    write_page(path, lines, STUDY, seed, quick)

