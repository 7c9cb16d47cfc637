"""Report: which Römi policy to play, whether waiting for a one-turn Römi pays, and what opening
threshold is best.

Every policy is measured against a field of ``greedy`` players (Q2) with
:mod:`simcards.romi.compare_batch`: the same decks and dealers with the policy in each seat in turn,
so that the luck of the deal cancels from the paired differences. The page opens with a
Bradley-Terry ladder per table size (:func:`simcards.core.ladder.rate_runs`), fitted to those
runs and to one more run for every pair of the other policies (one A among Bs, as ``simcards
romi ladder`` pairs them), so that the ratings rest on a round robin and not only on each
policy's distance to greedy. A mixed-table games run (``simcards romi games``) shows the
policies against one another at one table. Default rules (``open_min`` 51,
``ace_low_value`` 1), games of 7 rounds.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from simcards.core import ladder as lad
from simcards.core.policyspec import PolicySpec
from simcards.core.reports.common import out_dir, quick_banner, save_figure, write_page
from simcards.core.runner import Batch, run_batches
from simcards.core.store import batch_set_store
from simcards.romi import api
from simcards.romi import compare_batch as RC
from simcards.romi import rounds_batch as R
from simcards.romi.policies import (
    KINDS,
    SEARCH_KERNEL,
    TABLE_ENGINE,
    policy_arrays,
    searching,
)
from simcards.romi.rules import HAND_SIZE, PLAYERS, RomiRules

STUDY = "romi-policies"
BASE = "greedy"
"""The field every policy is measured against (Q2)."""
PREFERRED = {"rummy": "rummy:4", "threshold": "threshold:70"}
"""The tournament's entry for a policy kind; a kind not named here enters with its default
parameters, so every kind the registry has plays."""
SWEEP_PLAYERS = 4
RUMMY_K = (0, 2, 4, 6, 8, 10, 14)
THRESHOLD_X = (51, 52, 55, 60, 70, 80, 90, 100, 120)
"""The threshold sweep; 52 and 55 look closely at the values next to greedy's 51."""


def field() -> list[str]:
    """The tournament's policies: ``greedy`` first, then one entry per other registered kind
    but the searching ones (Q7, Q8: some ten rounds a second, where the page's budget plays
    thousands; they have their own page, :mod:`simcards.romi.reports.search`) and ``random``
    (Q6: played on the table engine, a few hundred rounds a second)."""
    out = [BASE]
    for name in KINDS.names:
        if name != BASE and not KINDS.kind(name).needs & {SEARCH_KERNEL, TABLE_ENGINE}:
            default = KINDS.parse(name, {"open_min": RomiRules().open_min}).text()
            out.append(PREFERRED.get(name, default))
    return out


def mixed_seats(players: int) -> list[str]:
    """The mixed table's seats: the field in turn from ``greedy`` (from the second entry at a
    table too small for the whole field, whose pairings with greedy the compares give)."""
    f = field()
    off = max(0, len(f) - players)
    return [f[off + i % (len(f) - off)] for i in range(players)]


FOUR_PLAYER_SETS = 400
"""Deal sets of every comparison at 4 players, the table of the sweeps and the headline: at
120 sets the widest 4-player interval was +-1.64 points per round (``rummy:0``); intervals
shrink as one over the square root of the sets, so 400 bring every one within +-1."""


def sizes(quick: bool) -> tuple[dict[int, int], int]:
    """(deal sets per comparison by table size, games per mixed table). A deal set of 4
    players is 28 rounds, about 15 ms on one core with greedy seats and a little more with an
    `expert` one. 120 sets per comparison at 2, 3 and 5 players (intervals of one to two
    points per round), :data:`FOUR_PLAYER_SETS` at 4 and 400 games per mixed table keep the
    study to a few minutes on two workers."""
    if quick:
        return dict.fromkeys(PLAYERS, 2), 4
    return {n: FOUR_PLAYER_SETS if n == SWEEP_PLAYERS else 120 for n in PLAYERS}, 400


LADDER_SETS = 120
"""Deal sets of each pair of the ladder between two policies other than greedy, at 2, 3 and 5
players: the ratings' intervals come from the whole fit, and each policy's headline run against
greedy keeps its own count (:func:`sizes`). With 3 or 5 players a pair plays both orders (one A
among Bs, one B among As, as ``simcards romi ladder`` pairs them) on half of these each, the
same work as one order on all of them; each order's interval is then about 1.4 times as wide as
one run's on the whole count would be. At 4 players, the page's headline table, every run of
the ladder, in either order, takes :data:`FOUR_PLAYER_SETS` like every other comparison there:
at 120 sets ``expert`` among ``threshold:70`` players was measured to +-1.32 points a round,
and 400 bring every 4-player run within +-1."""


def ladder_sets(players: int, quick: bool) -> int:
    """Deal sets of one ladder run at ``players`` (:data:`LADDER_SETS`): all of them with two
    players, half for each order with 3 or 5, and :data:`FOUR_PLAYER_SETS` for each order at
    4; the ladder's run of ``greedy`` among another policy's players takes the same."""
    if quick:
        return 2
    if players == SWEEP_PLAYERS:
        return FOUR_PLAYER_SETS
    return LADDER_SETS if players == 2 else LADDER_SETS // 2


@dataclass(frozen=True)
class Job:
    """One paired comparison: one ``a`` among ``b`` players (greedy's field unless said),
    at ``players``."""

    players: int
    a: str
    b: str = BASE


def jobs() -> list[Job]:
    """Every comparison, once: the tournament at 2-5 players and the two sweeps at 4."""
    out: list[Job] = []
    for n in PLAYERS:
        out += [Job(n, a) for a in field() if a != BASE]
    out += [Job(SWEEP_PLAYERS, f"rummy:{k}") for k in RUMMY_K]
    out += [Job(SWEEP_PLAYERS, f"threshold:{x}") for x in THRESHOLD_X]
    return list(dict.fromkeys(out))


def ladder_jobs() -> list[Job]:
    """The ladder's runs beside the tournament's (each policy among greedy players): every
    pair of the tournament's other policies at every table size, the later one in
    :func:`field` (``expert`` last) in one seat among the earlier; with 3 or more players also
    the other order, one of the earlier among the later, and one ``greedy`` among each other
    policy's players, so that every pair of the ladder is measured in both orders (one A among
    Bs and one B among As answer different questions, :mod:`simcards.core.ladder`)."""
    others = [p for p in field() if p != BASE]
    out = []
    for n in PLAYERS:
        for i, j in lad.pairs(len(others)):
            out.append(Job(n, others[j], others[i]))
            if n > 2:
                out.append(Job(n, others[i], others[j]))
        if n > 2:
            out += [Job(n, BASE, p) for p in others]
    return out


def _spec(text: str, rules: RomiRules) -> PolicySpec:
    return KINDS.parse(text, {"open_min": rules.open_min})


def compare_batch(job: Job, seed: int, deal_sets: int) -> Batch:
    """The batch ``simcards romi compare A B --players n --deals N --seed S`` runs, cut into
    the command's chunks (one deal set each with a searching seat, Q7, Q8: the chunks' streams
    depend on their size, so a page's command gives the page's figures)."""
    rules = RomiRules.make(players=job.players)
    cfg = api.config_for(rules, _spec(job.a, rules), _spec(job.b, rules), None)
    size = RC.chunk_size(rules.players, rules.rounds, searching(cfg.rotations[0].kinds))
    return Batch(RC.compare_chunk, cfg, seed, deal_sets, size, RC.STREAM)


def games_batch(players: int, seed: int, games: int) -> Batch:
    """The batch ``simcards romi games --players n --policies ... --games G --seed S`` runs."""
    rules = RomiRules.make(players=players)
    seats = policy_arrays([_spec(s, rules) for s in mixed_seats(players)], rules)
    cfg = R.RoundConfig(rules.kernel, seats, rules.players, rules.rounds, -1)
    return Batch(R.games_chunk, cfg, seed, games, R.GAMES_CHUNK, R.STREAM_GAMES)


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    deal_sets, games = sizes(quick)
    todo = jobs()
    batches = [compare_batch(j, seed, deal_sets[j.players]) for j in todo]
    batches += [games_batch(n, seed, games) for n in PLAYERS]
    cross = ladder_jobs()
    batches += [compare_batch(j, seed, ladder_sets(j.players, quick)) for j in cross]
    stats = run_batches(batches, workers=workers, executor=executor, progress=progress,
                        label="Römi policies report",
                        store=batch_set_store(store, "romi", "report-policies"))
    n_todo = len(todo)
    df = _frame(todo, stats[:n_todo], [deal_sets[j.players] for j in todo])
    mixed = _mixed(stats[n_todo:n_todo + len(PLAYERS)], games)
    pairs = _frame(cross, stats[n_todo + len(PLAYERS):],
                   [ladder_sets(j.players, quick) for j in cross])
    out = out_dir(root, "romi")
    df.to_csv(out / "policy_compare.csv", index=False)
    mixed.to_csv(out / "mixed_tables.csv", index=False)
    pairs.to_csv(out / "ladder_pairings.csv", index=False)
    figs = {"tournament": _tournament_figure(df, out / "tournament.png"),
            "rummy": _sweep_figure(_sweep(df, "rummy"), "K", "rummy:K against greedy: is "
                                   "waiting for a one-turn Römi worth it? (4 players)",
                                   out / "rummy_sweep.png"),
            "threshold": _sweep_figure(_sweep(df, "threshold"), "X", "threshold:X against "
                                       "greedy: the opening threshold (4 players)",
                                       out / "threshold_sweep.png")}
    page = out / "policies.md"
    _page(page, df, mixed, pairs, figs, seed=seed, quick=quick, deal_sets=deal_sets,
          games=games)
    return page


def _frame(todo: list[Job], stats: list[dict], sets: list[int]) -> pd.DataFrame:
    """One row per comparison (:func:`_row`) from its batch's statistics."""
    rounds = RomiRules().rounds
    return pd.DataFrame([_row(job, n, RC.summarise(s, job.players, rounds))
                         for job, s, n in zip(todo, stats, sets, strict=True)])


def _row(job: Job, deal_sets: int, out: dict) -> dict[str, object]:
    row: dict[str, object] = {"players": job.players, "a": job.a, "b": job.b,
                              "deal_sets": deal_sets}
    for key, stem in (("score_diff", "score_diff"), ("win_rate_diff", "win_diff")):
        row[stem] = out[key]["mean"]
        row[f"{stem}_lo"], row[f"{stem}_hi"] = out[key]["ci"]
    for side in ("a", "b"):
        for key, stem in (("score_mean", "score"), ("win_rate", "win")):
            d = out[key][side]
            row[f"{stem}_{side}"] = d["mean"]
            row[f"{stem}_{side}_lo"], row[f"{stem}_{side}_hi"] = d["ci"]
        for key in ("go_out_rate", "rummy_rate", "never_opened_rate"):
            row[f"{key}_{side}"] = out[key][side]
    row["stalled_rate"] = out["stalled_rate"]
    row["turns_mean"] = out["turns_mean"]
    return row


def _mixed(stats: list[dict], games: int) -> pd.DataFrame:
    rows = []
    for n, s in zip(PLAYERS, stats, strict=True):
        g = R.summarise_games(s)
        r = R.summarise_rounds(s)
        for p, policy in enumerate(mixed_seats(n)):
            rows.append({"players": n, "seat": p, "policy": policy, "games": games,
                         "score": r["score_mean"][p], "score_lo": r["score_ci"][p][0],
                         "score_hi": r["score_ci"][p][1], "win": g["win_rate"][p],
                         "win_lo": g["win_ci"][p][0], "win_hi": g["win_ci"][p][1],
                         "rummy_rate": r["rummy_rate"][p],
                         "never_opened_rate": r["never_opened_rate"][p]})
    return pd.DataFrame(rows)


def _sweep(df: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The sweep's rows at 4 players, by parameter value."""
    values = RUMMY_K if kind == "rummy" else THRESHOLD_X
    sub = df[df.players == SWEEP_PLAYERS].set_index("a")
    out = sub.loc[[f"{kind}:{v}" for v in values]].reset_index()
    out.insert(0, "value", list(values))
    return out


# ---------------------------------------------------------------- figures


def _errorbar(ax, x, d: pd.DataFrame, stem: str, **kw) -> None:
    ax.errorbar(x, d[stem], yerr=[d[stem] - d[f"{stem}_lo"], d[f"{stem}_hi"] - d[stem]],
                marker="o", capsize=3, **kw)


def _tournament_figure(df: pd.DataFrame, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 5), layout="constrained")
    for k, a in enumerate(p for p in field() if p != BASE):
        sub = df[df.a == a].sort_values("players")
        x = sub.players.to_numpy() + (k - 0.5) * 0.08
        _errorbar(axes[0], x, sub, "score_diff", label=a)
        _errorbar(axes[1], x, sub, "win_diff", label=a)
    for ax, label in zip(axes, ("score per round, policy minus greedy (lower is better)",
                                "game win rate per seat, policy minus greedy"), strict=True):
        ax.axhline(0, color="black", lw=1)
        ax.set_xticks(PLAYERS)
        ax.set_xlabel("players")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("Römi: each policy against a greedy field, paired over the same deals "
                 "(95% CI)")
    return save_figure(fig, path)


def _sweep_figure(sw: pd.DataFrame, name: str, title: str, path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 5), layout="constrained")
    _errorbar(axes[0], sw.value, sw, "score_diff", color="tab:blue")
    _errorbar(axes[1], sw.value, sw, "win_diff", color="tab:orange")
    for ax, label in zip(axes, ("score per round, minus greedy's (lower is better)",
                                "game win rate per seat, minus greedy's"), strict=True):
        ax.axhline(0, color="black", lw=1)
        ax.set_xticks(sw.value)
        ax.set_xlabel(name)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    fig.suptitle(title + ", 95% CI")
    return save_figure(fig, path)


# ---------------------------------------------------------------- page


def _ci(row: pd.Series, stem: str, digits: int = 2, signed: bool = True) -> str:
    s = "+" if signed else ""
    v, lo, hi = row[stem], row[f"{stem}_lo"], row[f"{stem}_hi"]
    if pd.isna(lo):
        return f"{v:{s}.{digits}f}"
    return f"{v:{s}.{digits}f} [{lo:{s}.{digits}f}, {hi:{s}.{digits}f}]"


def _sign(lo: float, hi: float) -> int:
    """-1 or +1 when the interval lies below or above 0, 0 when it covers 0 (not separated)."""
    return -1 if hi < 0 else (1 if lo > 0 else 0)


def verdict(row: pd.Series) -> str:
    """How the row's policy stands against greedy, per measure: points conceded (lower is
    better) and game win rate, each "not separated" where its interval covers 0."""
    pts = {-1: "concedes fewer points than greedy", 1: "concedes more points than greedy",
           0: "is not separated from greedy in points"}[_sign(row.score_diff_lo,
                                                               row.score_diff_hi)]
    win_sign = _sign(row.win_diff_lo, row.win_diff_hi)
    if win_sign == 0:
        if pts.startswith("is not separated"):
            return "is not separated from greedy in points or in win rate"
        return pts + "; its win rate is not separated from greedy's"
    win = "wins more often" if win_sign > 0 else "wins less often"
    if pts.startswith("is not separated"):
        return f"{pts}; it {win}"
    return f"{pts} and {win}"


def points_phrase(row: pd.Series) -> str:
    """The score difference in words, without a double negative: "7.18 [5.33, 9.04] points a
    round fewer than greedy"."""
    v, lo, hi = row.score_diff, row.score_diff_lo, row.score_diff_hi
    if _sign(lo, hi) == 0:
        return f"{v:+.2f} [{lo:+.2f}, {hi:+.2f}] points a round against greedy (not separated)"
    if v < 0:
        return f"{-v:.2f} [{-hi:.2f}, {-lo:.2f}] points a round fewer than greedy"
    return f"{v:.2f} [{lo:.2f}, {hi:.2f}] points a round more than greedy"


def win_phrase(row: pd.Series) -> str:
    """The win-rate difference in words, "not separated" where its interval covers 0."""
    text = f"{row.win_diff:+.3f} [{row.win_diff_lo:+.3f}, {row.win_diff_hi:+.3f}]"
    return text + (" (not separated)" if _sign(row.win_diff_lo, row.win_diff_hi) == 0 else "")


def min_opening_cards(open_min: int) -> int:
    """The fewest cards a lay-down worth ``open_min`` (O1, M6) can hold: its melds are sets of
    at most 4 cards worth at most 10 each (M1) and runs whose best places are the As above the
    King, K, Q, J, 10 (10 each), then 9, 8, ... (M2); two decks give every meld twice."""
    c = 1
    while best_cards_value(c) < open_min and c < 16:
        c += 1
    return c


def best_cards_value(cards: int) -> int:
    """The most a lay-down of exactly ``cards`` cards can be worth (M6; -1 when no lay-down
    has that many cards)."""
    run = [10, 10, 10, 10, 10, 9, 8, 7, 6, 5, 4, 3, 2]

    def best(size: int) -> int:
        v = sum(run[:size]) if size <= len(run) else -1
        return max(v, 10 * size if size <= 4 else -1)

    top = {0: 0}
    for c in range(1, cards + 1):
        top[c] = max((top[c - s] + best(s) for s in range(3, c + 1)
                      if top[c - s] >= 0 and best(s) > 0), default=-1)
    return top[cards]


def unreachable_counts(open_min: int = 51) -> tuple[int, int]:
    """The card counts no player holds at the start of another player's turn: a player holds
    14 until he opens (D4, T1: one card drawn, one discarded; the starter's 15th goes with his
    first discard) and at most 15 - min_opening_cards - 1 after his opening turn."""
    from simcards.romi.rules import HAND_SIZE

    return HAND_SIZE + 1 - min_opening_cards(open_min), HAND_SIZE - 1


def unreachable_sentence(open_min: int = 51) -> str:
    """Why ``rummy:K`` for K in the unreachable counts, and K = 14, play as they do."""
    lo, hi = unreachable_counts(open_min)
    c = min_opening_cards(open_min)
    return (f"An opening worth {open_min} lays at least {c} cards ({c - 1} cards are worth "
            f"{best_cards_value(c - 1)} at most, M6), so after his opening turn (14 cards, one "
            f"drawn, at least {c} laid, one discarded) a player holds at most {lo - 1} "
            f"cards, and before it 14: no opponent ever holds {lo} to {hi} cards at the start "
            f"of a turn. Every K from {lo - 1} to {hi} therefore stops waiting at the same "
            "moment, when an opponent first opens, and plays the same rounds; K = 14 never "
            "waits (every opponent holds 14 cards or fewer), so it is greedy exactly")


def best_and_tied(sw: pd.DataFrame) -> tuple[pd.Series, list[int]]:
    """The sweep's best value (lowest score difference) and every value whose interval
    overlaps the best's (the best included)."""
    best = sw.loc[sw.score_diff.idxmin()]
    tied = [int(r.value) for _, r in sw.iterrows()
            if r.score_diff_lo <= best.score_diff_hi and r.score_diff_hi >= best.score_diff_lo]
    return best, tied


def _listing(values: list) -> str:
    """``2``, ``2 and 3``, ``2, 3 and 5``."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _set(values) -> str:
    """``{0, 2, 4}``."""
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


def best_at(df: pd.DataFrame, players: int) -> pd.Series | None:
    """The comparison at ``players`` that concedes the fewest points against greedy by an
    interval below zero, or None when none does (greedy is then the answer)."""
    better = df[(df.players == players) & (df.score_diff_hi < 0)]
    return None if better.empty else better.loc[better.score_diff.idxmin()]


def _ci_text(r: pd.Series, stem: str, digits: int) -> str:
    return (f"{r[stem]:+.{digits}f} [{r[f'{stem}_lo']:+.{digits}f}, "
            f"{r[f'{stem}_hi']:+.{digits}f}]")


def _wait_sentence(rummy: pd.DataFrame) -> str:
    """Q3's sweep in words, per measure: which K concede fewer or more points than greedy,
    which are not separated, and the same for the win rate."""
    wins = rummy[rummy.score_diff_hi < 0]
    worse = rummy[rummy.score_diff_lo > 0]
    same = rummy[(rummy.score_diff_hi >= 0) & (rummy.score_diff_lo <= 0)]
    if len(wins):
        best = wins.loc[wins.score_diff.idxmin()]
        text = (f"yes for K in {_set(wins.value)}: the best, "
                f"`rummy:{int(best.value)}`, concedes {points_phrase(best)}")
    else:
        text = "no: no `rummy:K` concedes fewer points per round than greedy"
    if len(worse):
        text += (f"; K in {_set(worse.value)} concede more, from "
                 f"{worse.score_diff.min():+.2f} to {worse.score_diff.max():+.2f} points per "
                 "round")
    if len(same):
        text += (f"; K in {_set(same.value)} are not separated from greedy in points"
                 + _same_rounds(rummy, same))
    wl = rummy[rummy.win_diff_hi < 0]
    wm = rummy[rummy.win_diff_lo > 0]
    ws = rummy[(rummy.win_diff_hi >= 0) & (rummy.win_diff_lo <= 0)]
    parts = ([f"K in {_set(wm.value)} win more often"] if len(wm) else []) + \
        ([f"K in {_set(wl.value)} win less often"] if len(wl) else []) + \
        ([f"K in {_set(ws.value)} are not separated from greedy"] if len(ws) else [])
    return text + "; in game win rate, " + ", ".join(parts)


def threshold_sentence(thr: pd.DataFrame, tried: tuple[int, ...] = THRESHOLD_X) -> str:
    """The threshold sweep in words: the best X measured, which X are not separated from it,
    and what the grid leaves untried next to it."""
    top, tied = best_and_tied(thr)
    best = int(top.value)
    others = [v for v in tied if v != best]
    worse = thr[thr.score_diff_lo > top.score_diff_hi]
    greedy = int(RomiRules().open_min)
    text = f"The best opening threshold measured at {SWEEP_PLAYERS} players is X = {best}"
    if best == greedy:
        text += (f", and `threshold:{greedy}` is greedy itself (`open_min` {greedy}: its "
                 "difference is exactly 0)")
    else:
        text += f" ({points_phrase(top)})"
    if others:
        text += f"; not separated from it in points: X in {_set(others)}"
    above = [v for v in tried if v > best]
    if len(worse) and best == greedy and len(worse) == len(above):
        text += (f"; every X tried above {greedy} concedes more, from "
                 f"{worse.score_diff.min():+.2f} to {worse.score_diff.max():+.2f} points a "
                 "round")
    elif len(worse):
        text += (f"; X in {_set(worse.value)} concede more (up to "
                 f"{worse.score_diff.max():+.2f} points a round)")
    if above:
        nxt = min(above)
        text += (f". Between {best} and {nxt} nothing was tried" if nxt > best + 1 else
                 f". {nxt}, the next integer, was tried")
        below = [v for v in tried if v < best]
        if below and min(below, key=lambda v: best - v) < best - 1:
            text += f", nor between {max(below)} and {best}"
    return text


def _answer(df: pd.DataFrame) -> list[str]:
    best = {n: best_at(df[df.a.isin(field()) | (df.players == SWEEP_PLAYERS)], n)
            for n in PLAYERS}
    greedy_ns = [n for n in PLAYERS if best[n] is None]
    lines = ["## The answer", ""]
    head = []
    if greedy_ns:
        head.append(f"**Play `greedy`, opening as soon as you can, at {_listing(greedy_ns)} "
                    "players**: no other policy measured there concedes fewer points a round "
                    "by an interval that excludes zero.")
    for n in PLAYERS:
        r = best[n]
        if r is not None:
            head.append(f"**At {n} players play `{r.a}`**: against a greedy field it "
                        f"concedes {points_phrase(r)}, and its game win rate per seat differs "
                        f"from greedy's by {win_phrase(r)}.")
    r = best[SWEEP_PLAYERS]
    if r is not None:
        head.append(f"At {SWEEP_PLAYERS} players `{r.a}` is left never opened (100 points, "
                    f"G5) in {r.never_opened_rate_a:.1%} of its rounds against greedy's "
                    f"{r.never_opened_rate_b:.1%}, and goes out in {r.go_out_rate_a:.1%} against "
                    f"{r.go_out_rate_b:.1%} (rounds of about "
                    f"{r.turns_mean / SWEEP_PLAYERS:.0f} turns a player). These are shares of "
                    "rounds; which of its choices gains the points is not measured here.")
    lines += [" ".join(head), "",
              "Against a field of greedy players, on the same deals (score: points conceded "
              "per round, the policy's minus greedy's, so negative is better; win rate: per "
              "seat, the policy's minus greedy's; 95% intervals over deal sets):", ""]
    for n in PLAYERS:
        parts = []
        for _, r in df[(df.players == n) & df.a.isin(field())].iterrows():
            parts.append(f"`{r.a}` {verdict(r)} (score {_ci_text(r, 'score_diff', 2)}, "
                         f"win rate {_ci_text(r, 'win_diff', 3)})")
        lines.append(f"- {n} players: " + "; ".join(parts) + ".")
    lines.append(f"- Is waiting for a one-turn Römi (-20) worth it? At {SWEEP_PLAYERS} players, "
                 f"{_wait_sentence(_sweep(df, 'rummy'))}.")
    lines.append("- " + threshold_sentence(_sweep(df, "threshold")) + ".")
    lines.append("")
    return lines


IDENTICAL_COLUMNS = ("score_a", "win_a", "go_out_rate_a", "rummy_rate_a", "never_opened_rate_a",
                     "score_diff", "win_diff")
"""The columns of a sweep row that two ``rummy:K`` playing the same rounds share exactly."""


def identical_ks(rummy: pd.DataFrame) -> list[int]:
    """The K of the sweep, from the largest count a hand holds after an opening turn to the
    largest it never holds (:func:`unreachable_counts`), whose rows are identical: they stop
    waiting at the same moment and play the same rounds. Empty unless two or more are."""
    lo, hi = unreachable_counts(RomiRules().open_min)
    same = rummy[(rummy.value >= lo - 1) & (rummy.value <= hi)]
    cols = list(IDENTICAL_COLUMNS)
    if len(same) > 1 and bool((same[cols].nunique() == 1).all()):
        return [int(v) for v in same.value]
    return []


def _same_rounds(rummy: pd.DataFrame, shown: pd.DataFrame) -> str:
    """What the sweep's unseparated K have in common, where it is exact: the K that play the
    same rounds (identical rows) and K = 14, which never waits and is greedy. Nothing is said
    of a trend in K: between K = 8 and 13 there is none."""
    parts = []
    ks = [k for k in identical_ks(rummy) if k in set(shown.value)]
    if len(ks) > 1:
        lo, hi = unreachable_counts(RomiRules().open_min)
        parts.append(f"{_listing([f'K = {k}' for k in ks])} play the same rounds, their rows "
                     f"identical, since no opponent holds {lo} to {hi} cards at the start "
                     "of a turn")
    top = shown[(shown.value >= HAND_SIZE) & (shown.score_diff == 0) & (shown.win_diff == 0)]
    if len(top):
        parts.append(f"K = {int(top.value.iloc[0])} never waits and is greedy exactly")
    return f" ({'; '.join(parts)})" if parts else ""


def _identical_note(rummy: pd.DataFrame) -> str:
    """Why some K rows are equal (and K = 14 is greedy), with a check that they are."""
    lo, hi = unreachable_counts(RomiRules().open_min)
    same = rummy[(rummy.value >= lo - 1) & (rummy.value <= hi)]
    equal = bool(identical_ks(rummy))
    ks = _listing([f"K = {int(v)}" for v in same.value])
    text = unreachable_sentence(RomiRules().open_min) + "."
    if len(same) > 1:
        text += (f" Here {ks} give " + ("identical rows, as they must." if equal else
                                         "rows that are not identical: a bug to look into."))
    top = rummy[rummy.value >= hi + 1]
    if len(top):
        r = top.iloc[0]
        exact = r.score_diff == 0 and r.win_diff == 0
        text += (f" K = {int(r.value)} " + ("equals greedy exactly." if exact else
                                            "differs from greedy: a bug to look into."))
    return text


def _compare_table(rows: pd.DataFrame, first: str) -> list[str]:
    lines = [f"| {first} | score/round, minus greedy | win rate per seat, minus greedy | "
             "score/round | greedy's score/round | win rate per seat | went out | -20 | "
             "never opened |", "|---" * 9 + "|"]
    for _, r in rows.iterrows():
        label = r["label"]
        lines.append(f"| {label} | {_ci(r, 'score_diff')} | {_ci(r, 'win_diff', 3)} | "
                     f"{_ci(r, 'score_a', 2, False)} | {_ci(r, 'score_b', 2, False)} | "
                     f"{_ci(r, 'win_a', 3, False)} | {r.go_out_rate_a:.3f} | "
                     f"{r.rummy_rate_a:.3f} | {r.never_opened_rate_a:.3f} |")
    return lines


def _usual_sets(deal_sets: dict[int, int]) -> tuple[int, list[str]]:
    """The most common count of deal sets by table size, and the exceptions in words
    (``400 at 4 players``)."""
    usual = max(set(deal_sets.values()), key=list(deal_sets.values()).count)
    return usual, [f"{v:,} at {n} players" for n, v in deal_sets.items() if v != usual]


def _sets_text(deal_sets: dict[int, int]) -> str:
    """``120 deal sets (400 at 4 players)``: the usual count and the exceptions."""
    usual, other = _usual_sets(deal_sets)
    return f"{usual:,} deal sets" + (f" ({', '.join(other)})" if other else "")


def table_ladder(df: pd.DataFrame, pairs: pd.DataFrame, players: int) -> dict:
    """One table size's Bradley-Terry ladder (:func:`simcards.core.ladder.rate_runs`) from the
    tournament's runs against greedy and the ladder's runs between the other policies, rated
    on the paired game win rate per seat (as ``simcards romi ladder``); ``greedy`` is the
    anchor at 0."""
    sub = pd.concat([df[(df.players == players) & df.a.isin(field())],
                     pairs[pairs.players == players]])
    runs = [{"a": r.a, "b": r.b, "d": float(r.win_diff),
             "ci": [float(r.win_diff_lo), float(r.win_diff_hi)], "sides": players,
             "deal_sets": int(r.deal_sets)} for _, r in sub.iterrows()]
    return lad.rate_runs(field(), runs)


def ladder_sentence(df: pd.DataFrame, players: int, rated: dict) -> str:
    """The plain answer of one table's ladder: the best-rated policy and what it gains on
    ``greedy`` (one seat of it among greedy players), then the pairs that do not separate."""
    best = rated["order"][0]
    table = f"{players} players"
    if best == BASE:
        head = f"**{table}: play `greedy`**: no policy rates above it."
    else:
        r = df[(df.players == players) & (df.a == best)].iloc[0]
        win = _ci_text(r, "win_diff", 3)
        what = (f"its game win rate is {win} above `greedy`'s" if players == 2 else
                f"one `{best}` among `greedy` players has a game win rate per seat {win} "
                "above theirs")
        head = (f"**{table}: play `{best}`**: {what}, and it concedes {points_phrase(r)} "
                f"({int(r.deal_sets):,} deal sets).")
    return f"{head} {lad.unseparated_sentence(rated, field())}"


def _ladder(df: pd.DataFrame, pairs: pd.DataFrame) -> list[str]:
    """The page's opening: one ladder per table size, each with its sentence."""
    usual, other = _usual_sets({int(n): int(k) for n, k in
                                pairs.groupby("players").deal_sets.first().items()})
    sets = f"{usual:,} deal sets each" + "".join(f", {o}" for o in other)
    lines = ["## The ladder", "",
             "Every policy's rating per table size, fitted by Bradley-Terry (Luce's model "
             "with 3 or more players) to the paired game win rate per seat of every run "
             "between two policies: each policy's runs against greedy below, and one run for "
             "every other pair, one A among Bs on the same deals with the seats rotated; with "
             "3 or more players every pair in both orders, one A among Bs and one B among As "
             "(one `greedy` among each other policy's players too), each order on half a "
             "pair's deal sets at 3 and 5 players and on all of them at 4, the headline "
             f"table ({sets}; `ladder_pairings.csv`). `simcards romi ladder` makes "
             "the same fit from its own runs. Ratings are on the Elo scale: 400 points "
             "between two policies mean the better one would win 10 of 11 two-player games; "
             "`greedy` is the anchor at 0. The searching players, `search:16` and the "
             "all-seeing bound `seeing:16`, play some ten rounds a second, too slow for this "
             "page's runs: they are measured against `expert` on their own page, "
             "[search.md](search.md), a long study.", ""]
    for n in PLAYERS:
        rated = table_ladder(df, pairs, n)
        lines += [f"### {n} players", "", ladder_sentence(df, n, rated), "",
                  *lad.rating_lines(rated, BASE), ""]
    return lines


def _page(path: Path, df: pd.DataFrame, mixed: pd.DataFrame, pairs: pd.DataFrame,
          figs: dict[str, str], *, seed: int, quick: bool, deal_sets: dict[int, int],
          games: int) -> None:
    lines = ["# Römi: which policy to play", "", *quick_banner(quick)]
    lines += _ladder(df, pairs)
    lines += _answer(df)
    policies = [p for p in field() if p != BASE]
    lines += [
        "## How it is measured", "",
        f"Policies (rules Q2-Q5 of `seeds/romi.md`): {', '.join(f'`{p}`' for p in field())}; "
        f"the sweeps add `rummy:K` for K in {{{', '.join(map(str, RUMMY_K))}}} and "
        f"`threshold:X` for X in {{{', '.join(map(str, THRESHOLD_X))}}}. Each is compared with "
        f"greedy by `simcards romi compare POLICY greedy`: {_sets_text(deal_sets)}, each one "
        "7-round game played on the same decks and dealers once per seat, the policy in that "
        "seat and greedy in all the others. Scores are points against a player (lower is "
        "better): a negative score difference means the policy concedes fewer points than "
        "greedy. The win rate is per seat (a fair share is 1/players; shared wins split). "
        "Intervals are 95%, normal, over deal sets; a game win rate difference at a bound (A "
        "wins every game, or none) has Wilson's on the deal sets, where a normal one would "
        "have width zero.", "",
        f"Seed {seed}; default rules (`open_min` 51, `ace_low_value` 1), 7 rounds a game.", "",
        "## The tournament", "", f"![tournament]({figs['tournament']})", ""]
    for n in PLAYERS:
        rows = df[(df.players == n) & df.a.isin(policies)].copy()
        rows["label"] = [f"`{a}`" for a in rows.a]
        lines += [f"### {n} players", "", *_compare_table(rows, "policy"), ""]
        sub = mixed[mixed.players == n]
        lines += [f"Mixed table, {games:,} games (`simcards romi games`), seats "
                  f"{', '.join(f'`{p}`' for p in sub.policy)}:", "",
                  "| seat | policy | score/round | win rate | -20 | never opened |",
                  "|---|---|---|---|---|---|"]
        for _, r in sub.iterrows():
            lines.append(f"| {r.seat} | `{r.policy}` | {_ci(r, 'score', 2, False)} | "
                         f"{_ci(r, 'win', 3, False)} | {r.rummy_rate:.3f} | "
                         f"{r.never_opened_rate:.3f} |")
        lines.append("")
    rummy = _sweep(df, "rummy")
    rummy["label"] = [f"K = {int(v)}" for v in rummy.value]
    lines += ["## Is waiting for a one-turn Römi worth it?", "",
              f"![rummy sweep]({figs['rummy']})", "",
              "`rummy:K` (Q3) holds its cards to open and go out in one turn for -20 while "
              "every opponent holds more than K cards, then plays as greedy; `rummy:0` never "
              "stops waiting. 4 players, against a greedy field:", "",
              *_compare_table(rummy, "K"), "", _identical_note(rummy), ""]
    thr = _sweep(df, "threshold")
    best, _ = best_and_tied(thr)
    thr["label"] = [f"X = {int(v)}" + (" (best)" if int(v) == int(best.value) else "")
                    for v in thr.value]
    lines += ["## What opening threshold is best?", "",
              f"![threshold sweep]({figs['threshold']})", "",
              "`threshold:X` (Q4) plays as greedy but opens only with X points or more. 4 "
              "players, against a greedy field. " + threshold_sentence(thr) + ".", "",
              *_compare_table(thr, "X"), ""]
    stalled = float(df.stalled_rate.max())
    lines += [f"Largest share of stalled rounds (T9) in any comparison: {stalled:.5f}.", "",
              "Data: `policy_compare.csv` (one row per comparison), `mixed_tables.csv`.", "",
              "## Reproducing a number", "",
              "Every comparison is one `simcards romi compare` run with the same seed, and "
              "every mixed table one `simcards romi games` run, so these commands give the "
              "rows' numbers exactly (`score_diff`, `win_rate_diff`, `score_mean`, "
              "`win_rate`); for example the 4-player `rummy:4` row, the best threshold and "
              "the 4-player mixed table:", "", "```",
              f"simcards romi compare rummy:4 greedy --players 4 --deals {deal_sets[4]} "
              f"--seed {seed} --json",
              f"simcards romi compare threshold:{int(best.value)} greedy --players 4 --deals "
              f"{deal_sets[4]} --seed {seed} --json",
              f"simcards romi games --players 4 --policies {','.join(mixed_seats(4))} "
              f"--games {games} --seed {seed} --json", "```", "",
              "and a ladder pairing between two other policies (a row of "
              "`ladder_pairings.csv`):", "", "```",
              *[f"simcards romi compare {r.a} {r.b} --players {r.players} --deals "
                f"{int(r.deal_sets)} --seed {seed} --json"
                for _, r in pairs[pairs.players == SWEEP_PLAYERS].head(1).iterrows()], "```"]
    write_page(path, lines, STUDY, seed, quick)

