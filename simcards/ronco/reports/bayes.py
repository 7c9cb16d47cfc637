"""Report page: the optimal keep rule (``bayes``, rule S4) against the 5:5 field, 3-10 players.

Written by the best-threshold study, whose races already play ``bayes`` beside the best pair on
common games (the game win-rate gains, with paired intervals). Everything else on the page is
exact, read from the decision tables themselves: the round loss of ``bayes`` and of every
threshold pair at every position (each table row holds the exact loss of keeping and of
passing in one information state, and the states' probabilities do not depend on the player's
own rule), and the situations where the optimal rule is not a threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simcards.core.reports.common import page_footer, quick_banner
from simcards.ronco import bayes_exact
from simcards.ronco.kernel_state import Decision, Seats
from simcards.ronco.policies import Policy
from simcards.ronco.round_kernel import field_keeps
from simcards.ronco.rules import RoncoRules

SITUATION_PLAYERS = (5, 7)
SITUATIONS = 8
SITUATION_ROWS = 200
"""States kept per table size in ``bayes_situations.csv`` (the page shows the first few)."""
_ACTIONS = ("keep", "swap", "refused")
TIMINGS = "bayes_timings.csv"
"""The seconds each decision table took to compute: a timing, so not part of the results that a
run with the same seed reproduces (the README's figures are written from it)."""


def _rows_of(table: bayes_exact.BayesTable, k: int) -> dict[str, np.ndarray]:
    m = table.k == k
    return {f: getattr(table, f)[m] for f in ("pos", "hist", "card", "dealt", "weight",
                                              "loss_keep", "loss_pass")} | {"keep": table.keep[m]}


def pair_keeps(rows: dict[str, np.ndarray], k: int, t: int, td: int) -> np.ndarray:
    """S1 at every state: keep at or above T, the dealer at or above Td."""
    thr = np.where(rows["pos"] == k - 1, td, t)
    return rows["card"] >= thr


def round_loss(rows: dict[str, np.ndarray], k: int, keeps: np.ndarray) -> float:
    """Expected lives lost per round by a player who meets every position equally often (as
    in a game, where the deal moves round), playing ``keeps`` in every state."""
    loss = np.where(keeps, rows["loss_keep"], rows["loss_pass"])
    return float(np.sum(rows["weight"] * loss) / k)


def best_round_pair(rows: dict[str, np.ndarray], k: int,
                    values: list[int]) -> tuple[int, int, float]:
    """The threshold pair with the least exact round loss averaged over positions."""
    best = (0, 0, np.inf)
    for t in values:
        for td in values:
            loss = round_loss(rows, k, pair_keeps(rows, k, t, td))
            if loss < best[2] - 1e-15:
                best = (t, td, loss)
    return best


def history_text(pos: int, hist: int) -> str:
    """The earlier positions' public actions, position 0 first."""
    digits = []
    for _ in range(pos):
        hist, r = divmod(hist, 3)
        digits.append(_ACTIONS[r])
    return ", ".join(reversed(digits)) or "none (acts first)"


def informed_keeps(rows: dict[str, np.ndarray], k: int, t: int, td: int,
                   rules: RoncoRules) -> np.ndarray:
    """S2 (informed at the pair) at every state."""
    ra = rules.kernel
    one = Seats.from_policies([Policy("informed", t, td)])
    return np.array([field_keeps(one, 0, Decision(int(c), int(p), int(p) == k - 1, int(d) >= 0,
                                                  int(d), 0), ra)
                     for c, p, d in zip(rows["card"], rows["pos"], rows["dealt"], strict=True)],
                    dtype=bool)


def situations(rows: dict[str, np.ndarray], k: int, pair: np.ndarray,
               informed: np.ndarray) -> pd.DataFrame:
    """The information states where ``bayes`` and the pair (its decisions ``pair``) act
    differently, by what the difference is worth per round (probability of the state times
    the loss saved), with what informed play at the same pair (``informed``) does there."""
    differ = np.flatnonzero(pair != rows["keep"])
    saved = np.abs(rows["loss_keep"] - rows["loss_pass"])[differ] * rows["weight"][differ]
    order = differ[np.argsort(-saved, kind="stable")][:SITUATION_ROWS]
    out = []
    for i in order:
        pos = int(rows["pos"][i])
        dealer = pos == k - 1
        keep = bool(rows["keep"][i])
        out.append({
            "players": k,
            "position": pos,
            "role": "dealer" if dealer else f"position {pos}",
            "history": history_text(pos, int(rows["hist"][i])),
            "card": int(rows["card"][i]),
            "dealt": int(rows["dealt"][i]) if rows["dealt"][i] >= 0 else None,
            "bayes": ("keeps" if keep else ("cuts" if dealer else "passes")),
            "pair": ("keeps" if not keep else ("cuts" if dealer else "passes")),
            "informed_agrees": bool(informed[i] == keep),
            "p_state": float(rows["weight"][i]),
            "loss_keep": float(rows["loss_keep"][i]),
            "loss_pass": float(rows["loss_pass"][i]),
            "saved_per_round": float(abs(rows["loss_keep"][i] - rows["loss_pass"][i])
                                     * rows["weight"][i] / k),
        })
    return pd.DataFrame(out)


def _informed_share(rows: dict[str, np.ndarray], pair: np.ndarray,
                    informed: np.ndarray) -> float:
    """The share of bayes' round gain over the pair (its decisions ``pair``) earned in states
    where informed play at the same pair (``informed``) already acts like bayes (what
    certainty alone is worth)."""
    differ = pair != rows["keep"]
    saved = np.abs(rows["loss_keep"] - rows["loss_pass"]) * rows["weight"] * differ
    total = float(np.sum(saved))
    agree = informed == rows["keep"]
    return float(np.sum(saved * agree)) / total if total > 0 else 0.0


def write(out: Path, rules: RoncoRules, field: Policy, rows: list[dict[str, Any]], *,
          seed: int, quick: bool, command: str) -> Path:
    """``bayes.md`` and ``bayes.csv`` (by table size) and ``bayes_situations.csv``, which
    reproduce exactly, and :data:`TIMINGS` (the seconds each decision table took to compute),
    which does not."""
    values = sorted({int(v) for v in rules.deck_obj.values})
    by_n = {r["players"]: r for r in rows if "bayes_gain" in r}
    table_rows = []
    timings: list[dict[str, Any]] = []
    sit_frames = []
    for n in sorted(by_n):
        r = by_n[n]
        full = bayes_exact.game_table(rules, n, field)
        cur = _rows_of(full, n)
        bayes_loss = round_loss(cur, n, cur["keep"])
        game_pair = (r["best_T"], r["best_Td"])
        game_pair_loss = round_loss(cur, n, pair_keeps(cur, n, *game_pair))
        rt, rtd, rloss = best_round_pair(cur, n, values)
        pair = pair_keeps(cur, n, rt, rtd)
        informed = informed_keeps(cur, n, rt, rtd, rules)
        lo, hi = r["bayes_gain_ci"]
        table_rows.append({
            "players": n, "bayes_round_loss": bayes_loss, "round_best_T": rt,
            "round_best_Td": rtd, "round_best_loss": rloss,
            "round_gain": rloss - bayes_loss, "game_best_T": game_pair[0],
            "game_best_Td": game_pair[1], "game_best_round_loss": game_pair_loss,
            "bayes_win_rate": r["bayes_win_rate"], "threshold_win_rate":
                r["threshold_win_rate"], "bayes_gain": r["bayes_gain"],
            "bayes_gain_ci_low": lo, "bayes_gain_ci_high": hi, "gain_games": r["gain_games"],
            "table_states": int(full.size),
            "differs_from_round_pair": float(np.sum(cur["weight"][pair != cur["keep"]]) / n),
            "round_gain_informed_share": _informed_share(cur, pair, informed),
        })
        timings.append({"players": n, "table_states": int(full.size),
                        "table_seconds": float(full.seconds)})
        if n in SITUATION_PLAYERS or (n == max(by_n) and not set(SITUATION_PLAYERS) & set(by_n)):
            sit_frames.append(situations(cur, n, pair, informed))
    frame = pd.DataFrame(table_rows)
    frame.to_csv(out / "bayes.csv", index=False)
    # Seconds depend on the machine and its load, not on the seed: kept apart from the results
    # (which reproduce bit for bit) in a file of their own, which does not.
    pd.DataFrame(timings).to_csv(out / TIMINGS, index=False)
    sits = pd.concat(sit_frames, ignore_index=True) if sit_frames else pd.DataFrame()
    sits.to_csv(out / "bayes_situations.csv", index=False)
    race = {n: (r["win_rate"], r["ci_low"], r["ci_high"], r["games"]) for n, r in by_n.items()
            if "win_rate" in r}
    charts = _charts(out, rules, field)
    page = out / "bayes.md"
    page.write_text(_page(frame, sits, field, seed=seed, quick=quick, command=command,
                          race=race, charts=charts))
    return page


CHART_PLAYERS = (4, 6)
"""The table sizes whose ``bayes`` keep chart (S6) the page shows as a picture."""


def _charts(out: Path, rules: RoncoRules, field: Policy) -> list[str]:
    """``bayes_chart_<n>p.csv`` and ``.png`` for :data:`CHART_PLAYERS` (what ``simcards ronco
    chart --players n`` writes), and the page's lines that show them."""
    from simcards.core.reports.common import save_figure
    from simcards.ronco import charts

    lines = []
    for n in CHART_PLAYERS:
        sit, keep = charts.decisions_of(rules, n, Policy("bayes"), field)
        freq = charts.frequencies(rules, n, field, sit)
        name = f"bayes_chart_{n}p"
        (out / f"{name}.csv").write_text(charts.to_csv(sit, keep, rules), encoding="utf-8")
        title = f"bayes at {n} players, the others {field.spec()}"
        png = save_figure(charts.draw(sit, keep, freq, rules, title), out / f"{name}.png")
        lines += [f"![{title}]({png})", ""]
    return lines


def _race_cell(race: tuple[float, float, float, int] | None) -> str:
    """The best pair's win rate in the race, with its interval and games."""
    if race is None:
        return "-"
    rate, lo, hi, games = race
    return f"{rate:.4f} [{lo:.4f}, {hi:.4f}] ({int(games):,} games)"


def _situation_table(sits: pd.DataFrame) -> list[str]:
    lines = ["| players | who | earlier players | card | dealt to him | bayes | pair | "
             "informed at the pair | P(state) | loss if keep | loss if pass/cut |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in sits.itertuples():
        dealt = "-" if pd.isna(s.dealt) else str(int(s.dealt))
        lines.append(
            f"| {s.players} | {s.role} | {s.history} | {s.card} | {dealt} | {s.bayes} | "
            f"{s.pair} | {'same as bayes' if s.informed_agrees else 'same as the pair'} "
            f"| {s.p_state:.4f} | {s.loss_keep:.4f} | {s.loss_pass:.4f} |")
    return lines


def _page(frame: pd.DataFrame, sits: pd.DataFrame, field: Policy, *, seed: int, quick: bool,
          charts: Sequence[str] = (),
          command: str, race: dict[int, tuple[float, float, float, int]]) -> str:
    """The page. ``race`` holds, by table size, the best pair's win rate in the best-threshold
    race (rate, interval, games): a different sample from the games it shares with ``bayes``
    here, so the page gives both and says which is which."""
    f = f"{field.T}:{field.Td}"
    lines = [
        "# Ronco: the optimal keep rule",
        *quick_banner(quick),
        "",
        f"**Question.** Against a table where everyone else keeps {field.T} or better and, as "
        f"dealer, cuts below {field.Td}, what is the best possible way to play a round, and "
        "how much more does it win than the best keep threshold?",
        "",
        "**The rule.** `bayes` (rule S4) looks at everything a player knows when he acts: his "
        "card, a swap with the previous player and both its cards, and what every earlier "
        "player did (kept, passed, or was refused by a Rey). It keeps when keeping loses this "
        "round less often than passing (the dealer: than cutting), exactly, over every deal "
        "that fits what he saw and the others' known thresholds. No rule of any kind loses "
        "fewer rounds from the same seat against the same players.",
        "",
        "## The answer",
        "",
        "| players | round loss: bayes | best pair for rounds | its round loss | round gain | "
        "games won: bayes | best pair for games | its games won | game gain [95% CI] | "
        "its games won in the race [95% CI] |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in frame.itertuples():
        lines.append(
            f"| {r.players} | {r.bayes_round_loss:.4f} | {r.round_best_T}:{r.round_best_Td} | "
            f"{r.round_best_loss:.4f} | {r.round_gain:+.4f} | {r.bayes_win_rate:.4f} | "
            f"{r.game_best_T}:{r.game_best_Td} | {r.threshold_win_rate:.4f} | "
            f"{r.bayes_gain:+.4f} [{r.bayes_gain_ci_low:+.4f}, {r.bayes_gain_ci_high:+.4f}] | "
            + _race_cell(race.get(int(r.players))) + " |")
    lines += [
        "",
        "- *Round loss*: expected lives lost per round, exact, for a player who sits at every "
        "position equally often (the deal moves round the table), the others all playing "
        f"{f}. *Best pair for rounds*: the threshold pair with the least exact round loss "
        "(every pair of the grid evaluated exactly). *Round gain*: its loss minus bayes'.",
        "- *Games won*: the share of 7-life games won against the same field, `bayes` and the "
        "best pair of the best-threshold race on the same games; *game gain* is the "
        "difference with its paired 95% interval (one game counts once, the pair of results "
        "being compared within it). *Its games won in the race*: the same pair's win rate as "
        "[the best keep threshold](best_threshold.md) gives it, from the race's own games: a "
        "different sample from the games it shares with `bayes` here (the column before the "
        "gain), so the two differ by sampling alone; the gain is read on the shared games.",
        "- `bayes` minimises the loss of each round; it does not look at lives left, so in "
        "games it is not proven optimal, only the best single-round rule.",
        "",
        "## Where the optimal rule is not a threshold",
        "",
        "The information states in which `bayes` acts against the best pair for rounds, "
        "largest difference per round first. *P(state)* is the chance of being in that state "
        "at that position; the two losses are the exact expected lives lost by keeping and by "
        "passing (cutting) there.",
        "",
    ]
    if len(sits):
        lines += _situation_table(sits.groupby("players").head(SITUATIONS))
        lines += ["", "The same, leaving out the states where informed play at the pair already "
                  "acts like `bayes`: what only the whole history and the position reveal.", ""]
        lines += _situation_table(
            sits[~sits.informed_agrees].groupby("players").head(SITUATIONS))
    lines += [
        "",
        "Reading them: one pair of thresholds serves every position, while the best card to "
        "keep changes with the position (the first player keeps lower cards: more players "
        "after him may end up lower). After a swap a player knows the card he was dealt, now "
        "held for good by the player before him: when it is lower than his own he cannot lose "
        "and keeps anything (informed play does this too, rule S2a). And the history counts: "
        "every pass was made with a card below the field's threshold, and a pass refused by "
        "a Rey leaves that card with the passer for good, so after it a middling card is safe "
        "to keep; passes that went through and keeps tell, in the same way, how many low "
        "cards are still out. Share of "
        "bayes' round gain over the best pair that informed play at that pair already "
        "earns, by table size: "
        + ", ".join(f"{r.players} players {r.round_gain_informed_share:.0%}"
                    for r in frame.itertuples()) + ".",
        "",
        "## The chart to take to the table",
        "",
        "What `bayes` does in the situations a player meets most often, at 4 and at 6 players "
        f"against the {field.spec()} field: each row is what the player has seen before acting "
        "(his position, the earlier players' keeps, swaps and refusals, and the card he was "
        "dealt when the player before him swapped with him), with how often he meets it. The "
        "whole charts, every situation, are `bayes_chart_4p.csv` and `bayes_chart_6p.csv`: "
        "`--policy chart:FILE.csv` plays one back exactly as `bayes` plays (rule S6), and "
        "`simcards ronco chart` writes the chart of any policy, yours included.",
        "",
        *charts,
        "## The decision tables",
        "",
        "| players | information states (tables 2..n) | share of decisions unlike the best "
        "pair |",
        "|---|---|---|",
        *[f"| {r.players} | {r.table_states:,} | {r.differs_from_round_pair:.3f} |"
          for r in frame.itertuples()],
        "",
        "Computed once per rules, field and table size, and kept on disk beside numba's cache. "
        f"The seconds each took to compute are in `{TIMINGS}` (those of the computation, not of "
        "reading it back): they depend on the machine and its load, so unlike everything "
        "else here a run with the same seed does not reproduce them.",
        "",
        "Data: `bayes.csv`, `bayes_situations.csv`. The game gains come from:",
        "",
        f"```\n{command}\n```",
    ]
    return "\n".join(lines) + "\n" + page_footer("ronco-best", seed, quick)
