"""Report: Ronco games: how long they last, who goes out first, seat effects, and Poroli.

Every table plays the symmetric 5:5 threshold policy; the questions are about the game itself.
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
from simcards.ronco import games_batch as ronco_games
from simcards.ronco.games_batch import GameConfig, GamesResult
from simcards.ronco.policies import Policy
from simcards.ronco.rules import RoncoRules

PLAYERS = list(range(3, 11))
LIVES = [3, 5, 7, 10]
SEAT_PLAYERS = list(range(3, 9))
PLACE_PLAYERS = 6
POLICY = Policy("threshold", 5, 5)


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    g = 4_096 if quick else 262_144
    ronco, poroli = RoncoRules.make(), RoncoRules.make(poroli=True)
    jobs: list[tuple[str, RoncoRules, int, int, int | None]] = []
    jobs += [("length_by_players", ronco, n, 7, None) for n in PLAYERS]
    jobs += [("length_by_lives", ronco, PLACE_PLAYERS, lives, None) for lives in LIVES]
    jobs += [("seats", ronco, n, 7, 0) for n in SEAT_PLAYERS]
    jobs += [("poroli", poroli, n, 7, None) for n in PLAYERS]
    batches = [Batch(ronco_games.games_chunk, GameConfig.build(rules, [POLICY] * n, lives, fd),
                     seed, g, ronco_games.GAMES_CHUNK, ronco_games.STREAM)
               for _, rules, n, lives, fd in jobs]
    stats = run_batches(batches, workers=workers, executor=executor, progress=progress,
                        label="Ronco games report",
                        store=batch_set_store(store, "ronco", "report-games"))
    res = {(name, rules.poroli, n, lives): GamesResult.from_stats(g, s)
           for (name, rules, n, lives, _), s in zip(jobs, stats, strict=True)}
    out = out_dir(root, "ronco")
    figs = {
        "length": _length_figure(res, out / "game_length.png"),
        "places": _places_figure(res[("seats", False, PLACE_PLAYERS, 7)],
                                 out / "elimination_order_6p.png"),
        "seats": _seat_figure(res, out / "seat_effects.png"),
        "poroli": _poroli_figure(res, out / "poroli_vs_ronco.png"),
    }
    rows = []
    for (name, por, n, lives), r in res.items():
        q = r.rounds_quantiles()
        rows.append({"study": name, "poroli": por, "players": n, "lives": lives,
                     "games": r.games, "rounds_mean": r.rounds_mean, "rounds_sd": r.rounds_sd,
                     **{f"q{k[:-1]}": v for k, v in q.items()},
                     "draw_rate": r.draws / r.games})
    pd.DataFrame(rows).to_csv(out / "games_summary.csv", index=False)
    page = out / "games.md"
    _page(page, res, figs, seed=seed, games=g, quick=quick)
    return page


def _pmf(r: GamesResult) -> np.ndarray:
    return r.hist / r.games


def _length_figure(res, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(15, 5.5), layout="constrained")
    cmap = plt.get_cmap("viridis", len(PLAYERS))
    for i, n in enumerate(PLAYERS):
        p = _pmf(res[("length_by_players", False, n, 7)])
        a.plot(np.arange(len(p)), p, color=cmap(i), label=f"{n} players")
    a.set_xlabel("rounds until the game ends")
    a.set_ylabel("probability")
    a.set_title("Game length by table size (7 lives)")
    a.set_xlim(0, 80)
    a.legend(fontsize=8)
    a.grid(alpha=0.3)
    cmap = plt.get_cmap("plasma", len(LIVES) + 1)
    for i, lives in enumerate(LIVES):
        p = _pmf(res[("length_by_lives", False, PLACE_PLAYERS, lives)])
        b.plot(np.arange(len(p)), p, color=cmap(i), label=f"{lives} lives")
    b.set_xlabel("rounds until the game ends")
    b.set_ylabel("probability")
    b.set_title(f"Game length by lives ({PLACE_PLAYERS} players)")
    b.set_xlim(0, 70)
    b.legend(fontsize=8)
    b.grid(alpha=0.3)
    fig.suptitle("Ronco game length distributions (policy 5:5 everywhere)")
    return save_figure(fig, path)


def _places_figure(r: GamesResult, path: Path) -> str:
    import matplotlib.pyplot as plt

    n = r.places.shape[0]
    share = r.places / r.games
    won = r.wins / r.games
    # place 0 counts everyone still standing when the game ended: the winner, and the players
    # left when a game was voided (G6) or all went out at once (G7). Those are not wins.
    standing = share[:, 0] - won
    lo, hi = wilson(r.wins, r.games)
    fig, ax = plt.subplots(figsize=(9, 5.5), layout="constrained")
    cmap = plt.get_cmap("RdYlGn_r", n)
    x = np.arange(n)
    ax.bar(x, won, color=cmap(0), label="won the game")
    ax.errorbar(x, won, yerr=[won - lo, hi - won], fmt="none", ecolor="black", capsize=3,
                lw=1, label="95% interval of the win rate")
    bottom = won.copy()
    ax.bar(x, standing, bottom=bottom, color="lightgrey", hatch="//", edgecolor="grey",
           label="still standing when the game ended without a winner")
    bottom += standing
    for k in range(1, n):
        ax.bar(x, share[:, k], bottom=bottom, color=cmap(k), label=f"place {k + 1}")
        bottom += share[:, k]
    ax.set_xticks(range(n), ["0 (first dealer)"] + [f"{i}" for i in range(1, n)])
    ax.set_xlabel("player (1 acts first in round 1)")
    ax.set_ylabel("share of games")
    ax.set_title(f"Elimination order, {n} players, 7 lives, first dealer = player 0")
    ax.legend(fontsize=7, bbox_to_anchor=(1.01, 1), loc="upper left")
    return save_figure(fig, path)


def _seat_figure(res, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 5.5), layout="constrained")
    for n in SEAT_PLAYERS:
        r = res[("seats", False, n, 7)]
        lo, hi = wilson(r.wins, r.games)
        x = np.arange(n)
        ax.errorbar(x + (n - 5.5) * 0.04, r.win_rate / r.win_rate.mean(),
                    yerr=[(r.win_rate - lo) / r.win_rate.mean(),
                          (hi - r.win_rate) / r.win_rate.mean()],
                    marker="o", capsize=2, label=f"{n} players")
    ax.axhline(1.0, color="grey", lw=1, ls="--")
    ax.set_xlabel("player (0 deals the first round, 1 acts first)")
    ax.set_ylabel("win rate / table average (95% CI)")
    ax.set_title("Seat and first-dealer effect, 7 lives, everyone 5:5")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return save_figure(fig, path)


def _poroli_figure(res, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 5), layout="constrained")
    for por, label, color in ((False, "Ronco", "tab:blue"), (True, "Poroli", "tab:red")):
        key = "length_by_players" if not por else "poroli"
        rs = [res[(key, por, n, 7)] for n in PLAYERS]
        mean = [r.rounds_mean for r in rs]
        se = [1.96 * r.rounds_sd / np.sqrt(r.games) for r in rs]
        a.errorbar(PLAYERS, mean, yerr=se, marker="o", color=color, label=label, capsize=2)
        d = np.array([r.draws for r in rs])
        lo, hi = wilson(d, rs[0].games)
        b.plot(PLAYERS, d / rs[0].games, marker="o", color=color, label=label)
        b.fill_between(PLAYERS, lo, hi, color=color, alpha=0.25)
    a.set_xlabel("players")
    a.set_ylabel("mean rounds per game (95% CI)")
    a.set_title("Game length, 7 lives")
    b.set_xlabel("players")
    b.set_ylabel("P(game ends with no winner)")
    b.set_title("Games without a winner (absolute ties, rule G6)")
    for ax in (a, b):
        ax.legend()
        ax.grid(alpha=0.3)
    fig.suptitle("Poroli beside plain Ronco (everyone 5:5)")
    return save_figure(fig, path)


def _mean_ci(r: GamesResult) -> str:
    half = 1.96 * r.rounds_sd / np.sqrt(r.games)
    return f"{r.rounds_mean:.2f} [{r.rounds_mean - half:.2f}, {r.rounds_mean + half:.2f}]"


def _draws_ci(r: GamesResult) -> str:
    lo, hi = wilson(r.draws, r.games)
    return fmt_p(r.draws / r.games, float(lo), float(hi))


def _page(path: Path, res, figs: dict[str, str], *, seed: int, games: int,
          quick: bool) -> None:
    lines = ["# Ronco games: length, elimination order, seats, and Poroli", "",
             *quick_banner(quick)]
    lines += [
        "**Questions.** How many rounds does a game of Ronco last? Who goes out first? Does "
        "the seat, or dealing first, matter? What does the Poroli variant change?",
        "",
        f"Every table: policy `threshold:5:5` for everyone, {games:,} games per table, seed "
        f"{seed}; default rules (`spanish40`, `cut_king=loses`, `ties=all`, "
        "`absolute_tie=void`).",
        "",
        f"![game length]({figs['length']})",
        "",
        "| players | lives | mean rounds [95% CI] | 5% | 50% | 95% | no winner [95% CI] |",
        "|---|---|---|---|---|---|---|",
    ]
    keys = [("length_by_players", False, n, 7) for n in PLAYERS]
    keys += [("length_by_lives", False, PLACE_PLAYERS, lv) for lv in LIVES if lv != 7]
    for key in keys:
        r = res[key]
        q = r.rounds_quantiles()
        lines.append(f"| {key[2]} | {key[3]} | {_mean_ci(r)} | {q['5%']} | {q['50%']} | "
                     f"{q['95%']} | {_draws_ci(r)} |")
    seat = res[("seats", False, PLACE_PLAYERS, 7)]
    first_out = seat.places[:, PLACE_PLAYERS - 1]
    fo_lo, fo_hi = wilson(first_out, seat.games)
    lines += [
        "",
        "Games end without a winner mostly at the end: two players left tie with probability "
        "3/39 = 0.077 per round (rule R9), and under the default `absolute_tie=void` that "
        "voids the game.",
        "",
        "## Elimination order",
        "",
        f"![elimination order]({figs['places']})",
        "",
        f"With {PLACE_PLAYERS} players and player 0 dealing first, the chance of being the "
        "first out (alone or with others) by player, with 95% intervals: "
        + ", ".join(f"{i}: {fmt_p(k / seat.games, fo_lo[i], fo_hi[i])}"
                    for i, k in enumerate(first_out)) + ". "
        "In the figure, games that ended without a winner are a segment of their own: the "
        "players still standing then did not win.",
        "",
        "## Seat and first-dealer effects",
        "",
        f"![seat effects]({figs['seats']})",
        "",
        "| players | win rate by player, player 0 deals first (95% CI) |",
        "|---|---|",
    ]
    for n in SEAT_PLAYERS:
        r = res[("seats", False, n, 7)]
        lo, hi = wilson(r.wins, r.games)
        cells = ", ".join(f"{i}: {fmt_p(r.win_rate[i], lo[i], hi[i])}" for i in range(n))
        lines.append(f"| {n} | {cells} |")
    lines += [
        "",
        "## Poroli beside plain Ronco",
        "",
        f"![poroli]({figs['poroli']})",
        "",
        "| players | Ronco mean rounds [95% CI] | Poroli mean rounds [95% CI] | "
        "Ronco no winner [95% CI] | Poroli no winner [95% CI] |",
        "|---|---|---|---|---|",
    ]
    for n in PLAYERS:
        a, b = res[("length_by_players", False, n, 7)], res[("poroli", True, n, 7)]
        lines.append(f"| {n} | {_mean_ci(a)} | {_mean_ci(b)} | {_draws_ci(a)} | "
                     f"{_draws_ci(b)} |")
    shorter = sum(res[("poroli", True, n, 7)].rounds_mean
                  < res[("length_by_players", False, n, 7)].rounds_mean for n in PLAYERS)
    more = sum(res[("poroli", True, n, 7)].draws
               > res[("length_by_players", False, n, 7)].draws for n in PLAYERS)
    lines += [
        "",
        f"Poroli games are shorter at {shorter} of {len(PLAYERS)} table sizes (whoever is "
        "left holding the Poroli loses two lives at once, and there is no cut-king rule), "
        f"and end without a winner more often at {more} of {len(PLAYERS)} (compare the "
        "intervals in the figure before reading much into small differences).",
        "",
        "Data: `games_summary.csv`. One table by hand, e.g. 6 players, first dealer 0:",
        "",
        f"```\nsimcards ronco games --players 6 --lives 7 --first-dealer 0 --games {games} "
        f"--seed {seed}\n```",
    ]
    write_page(path, [*lines, ""], "ronco-games", seed, quick)  # a blank line before the footer
