"""Report: questions a Römi player asks, answered from greedy rounds at 4 players.

The rounds are exactly those of ``simcards romi rounds --players 4 --policies greedy --dealer 0
--rounds N --seed S`` (the same batch stream, chunks and kernel calls, so the same decks and
scores); :func:`question_rounds` plays them as :func:`simcards.romi.round_kernel.play_round` does
and also notes, per round and player, what that command only sums: whether the cut card (T5) ended
the round, each dealt hand's ``best_value`` (V1) and jokers, the draw at which each player
opened (O1), his draws from the discard pile (T3, T4), and whether the round's -20 would change
under the other reading of G3 (``RomiRules.swap_keeps_romi``). For the joker's worth every
round is played a second time from a changed deck: one seat, drawn for the round, loses one of
its dealt jokers to a random non-joker card dealt elsewhere (or, holding none, gets one in
exchange for a random card of its hand); the stock reshuffles (T8) come from the same stream, so
the two plays differ only by that exchange and what follows from it.
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simcards.core.reports.common import out_dir, quick_banner, save_figure, write_page
from simcards.core.runner import Batch, run_batches
from simcards.core.stats import mean_ci, wilson
from simcards.core.store import batch_set_store
from simcards.romi import codes
from simcards.romi import rounds_batch as R
from simcards.romi.kernel_state import KernelRules, Seats
from simcards.romi.policies import policy_arrays
from simcards.romi.question_kernel import question_rounds
from simcards.romi.rules import RomiRules

STUDY = "romi-questions"
PLAYERS = 4
POLICY = "greedy"
DEALER = 0
"""The dealer of every round (``--dealer 0``): seat k is then k places after the dealer."""
VMAX = 200
"""Dealt ``best_value`` is binned 0 .. VMAX (15 cards are worth at most 150)."""
DMAX = 40
"""Draws at opening are counted 1 .. DMAX (more are counted as DMAX); 0 is never opened."""
WITHIN = (1, 2, 3, 4, 6, 8)
"""The k of "opens within k draws" on the page."""
BANDS = ((0, 30), (31, 50), (51, VMAX))
"""Dealt-value bands for the discard comparison (51 = ``open_min``)."""


# ---------------------------------------------------------------- chunks


@dataclass(frozen=True)
class QuestionConfig:
    """What :func:`questions_chunk` needs (pickled to workers)."""

    rules: KernelRules
    seats: Seats
    players: int
    dealer: int


def empty(n: int) -> dict[str, np.ndarray]:
    """A chunk's sums, all int64 (they merge by addition, exactly)."""
    return {
        "rounds": np.zeros(1, np.int64),
        "cut_out": np.zeros(1, np.int64),
        "went_out": np.zeros(1, np.int64),
        "romi": np.zeros(1, np.int64),
        "romi_alt": np.zeros(1, np.int64),
        # by seat (dealer 0): score sum and square, and seat minus dealer, sum and square
        "seat_score": np.zeros(n, np.int64),
        "seat_score_sq": np.zeros(n, np.int64),
        "seat_diff": np.zeros(n, np.int64),
        "seat_diff_sq": np.zeros(n, np.int64),
        # [starter or not, dealt value, draw at opening (0 never)]: hands
        "open_hist": np.zeros((2, VMAX + 1, DMAX + 1), np.int64),
        # [starter or not, dealt value]: score sum and square
        "value_score": np.zeros((2, VMAX + 1), np.int64),
        "value_score_sq": np.zeros((2, VMAX + 1), np.int64),
        # [band, took the first discard]: players, score sum, square, never opened, opened by
        # the 4th draw
        "disc_n": np.zeros((len(BANDS), 2), np.int64),
        "disc_score": np.zeros((len(BANDS), 2), np.int64),
        "disc_score_sq": np.zeros((len(BANDS), 2), np.int64),
        "disc_never": np.zeros((len(BANDS), 2), np.int64),
        # later discard draws (T4): players with none / some, score sums
        "later_n": np.zeros(2, np.int64),
        "later_score": np.zeros(2, np.int64),
        "later_score_sq": np.zeros(2, np.int64),
        # joker exchange, [taken away, given]: pairs, sum and square of (with - without)
        "joker_n": np.zeros(2, np.int64),
        "joker_diff": np.zeros(2, np.int64),
        "joker_diff_sq": np.zeros(2, np.int64),
        # dealt jokers 0 .. 4: hands, score sum and square
        "jokers_n": np.zeros(5, np.int64),
        "jokers_score": np.zeros(5, np.int64),
        "jokers_score_sq": np.zeros(5, np.int64),
    }


def _band(v: int) -> int:
    return next(i for i, (lo, hi) in enumerate(BANDS) if lo <= v <= hi)


def add_rounds(acc: dict[str, np.ndarray], out: tuple, dealer: int) -> None:
    """Sum :func:`question_rounds`' per-round arrays into ``acc``."""
    (scores, went_out, value, jokers, open_draw, first_disc, later_disc, draws, flags, focus,
     sign, alt_score) = out
    r, n = scores.shape
    acc["rounds"][0] += r
    acc["cut_out"][0] += int(flags[:, 0].sum())
    acc["went_out"][0] += int((went_out >= 0).sum())
    acc["romi"][0] += int(sum(scores[i, went_out[i]] == codes.ROMI for i in range(r)
                              if went_out[i] >= 0))
    acc["romi_alt"][0] += int(flags[:, 1].sum())
    acc["seat_score"] += scores.sum(axis=0)
    acc["seat_score_sq"] += (scores * scores).sum(axis=0)
    diff = scores - scores[:, [dealer]]
    acc["seat_diff"] += diff.sum(axis=0)
    acc["seat_diff_sq"] += (diff * diff).sum(axis=0)
    starter = (dealer + 1) % n
    for i in range(r):
        for p in range(n):
            s = 1 if p == starter else 0
            v = min(int(value[i, p]), VMAX)
            sc = int(scores[i, p])
            acc["open_hist"][s, v, min(int(open_draw[i, p]), DMAX)] += 1
            acc["value_score"][s, v] += sc
            acc["value_score_sq"][s, v] += sc * sc
            if draws[i, p] > 0:
                b, t = _band(v), int(first_disc[i, p])
                acc["disc_n"][b, t] += 1
                acc["disc_score"][b, t] += sc
                acc["disc_score_sq"][b, t] += sc * sc
                acc["disc_never"][b, t] += int(open_draw[i, p] == 0)
                k = 1 if later_disc[i, p] > 0 else 0
                acc["later_n"][k] += 1
                acc["later_score"][k] += sc
                acc["later_score_sq"][k] += sc * sc
            j = int(jokers[i, p])
            acc["jokers_n"][j] += 1
            acc["jokers_score"][j] += sc
            acc["jokers_score_sq"][j] += sc * sc
        f = int(focus[i])
        if sign[i] < 0:
            d, k = int(scores[i, f] - alt_score[i]), 0
        else:
            d, k = int(alt_score[i] - scores[i, f]), 1
        acc["joker_n"][k] += 1
        acc["joker_diff"][k] += d
        acc["joker_diff_sq"][k] += d * d


def questions_chunk(state: np.ndarray, size: int, cfg: QuestionConfig) -> dict[str, np.ndarray]:
    """One chunk of rounds (runs in a worker)."""
    acc = empty(cfg.players)
    add_rounds(acc, question_rounds(state, size, cfg.rules, cfg.seats, cfg.dealer),
               cfg.dealer)
    return acc


def sizes(quick: bool) -> int:
    """Rounds: each is played twice (the joker exchange); 16,384 four-player greedy rounds take
    about a minute on two workers."""
    return 64 if quick else 16_384


def questions_batch(seed: int, rounds: int) -> Batch:
    """The rounds of ``simcards romi rounds --players 4 --policies greedy --dealer 0`` (the
    same stream and chunks)."""
    rules = RomiRules.make(players=PLAYERS)
    cfg = QuestionConfig(rules.kernel, policy_arrays([POLICY] * PLAYERS, rules), PLAYERS, DEALER)
    return Batch(questions_chunk, cfg, seed, rounds, R.ROUNDS_CHUNK, R.STREAM_ROUNDS)


# ---------------------------------------------------------------- summaries


def _mean(total: float, total_sq: float, n: int) -> tuple[float, float, float]:
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    return mean_ci(float(total), float(total_sq), int(n))


def _rate(k: int, n: int) -> tuple[float, float, float]:
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    lo, hi = wilson(k, n)
    return k / n, float(lo), float(hi)


def _diff(m1: tuple, n1: int, s1: float, m2: tuple, n2: int, s2: float
          ) -> tuple[float, float, float]:
    """Difference of two independent means, normal interval from each mean's own half-width."""
    d = m1[0] - m2[0]
    half = np.hypot(m1[2] - m1[0], m2[2] - m2[0])
    return d, d - half, d + half


def answers(s: dict[str, np.ndarray]) -> dict[str, pd.DataFrame]:
    """The study's tables from the summed chunks."""
    r = int(s["rounds"][0])
    out: dict[str, pd.DataFrame] = {}
    rows = [("cut card ended the round (T5)", *_rate(int(s["cut_out"][0]), r), r),
            ("a player went out (G1)", *_rate(int(s["went_out"][0]), r), r),
            ("the round ended in a -20 (G3)", *_rate(int(s["romi"][0]), r), r),
            ("a -20 under the other G3 reading", *_rate(int(s["romi_alt"][0]), r), r)]
    out["endings"] = pd.DataFrame(rows, columns=["what", "rate", "lo", "hi", "rounds"])
    n = s["seat_score"].shape[0]
    seat = []
    for p in range(n):
        m = _mean(s["seat_score"][p], s["seat_score_sq"][p], r)
        d = _mean(s["seat_diff"][p], s["seat_diff_sq"][p], r)
        seat.append((p, (p - DEALER) % n, *m, *d))
    out["seats"] = pd.DataFrame(seat, columns=["seat", "after_dealer", "score", "score_lo",
                                               "score_hi", "minus_dealer", "minus_dealer_lo",
                                               "minus_dealer_hi"])
    hist = s["open_hist"]
    rows = []
    for st_, label in ((0, "14"), (1, "15")):
        for lo, hi in ((0, 30), (31, 40), (41, 50), (51, 60), (61, 70), (71, VMAX)):
            h = hist[st_, lo:hi + 1].sum(axis=0)
            total = int(h.sum())
            row: dict[str, object] = {"cards": label, "value_lo": lo, "value_hi": hi,
                                      "hands": total,
                                      "share": total / max(int(hist[st_].sum()), 1)}
            for k in WITHIN:
                row[f"within_{k}"], row[f"within_{k}_lo"], row[f"within_{k}_hi"] = _rate(
                    int(h[1:k + 1].sum()), total)
            row["never"], row["never_lo"], row["never_hi"] = _rate(int(h[0]), total)
            sc = _mean(s["value_score"][st_, lo:hi + 1].sum(),
                       s["value_score_sq"][st_, lo:hi + 1].sum(), total)
            row["score"], row["score_lo"], row["score_hi"] = sc
            rows.append(row)
    out["opening"] = pd.DataFrame(rows)
    dist = []
    for st_, label in ((0, "14"), (1, "15")):
        tot = int(hist[st_].sum())
        k = int(hist[st_, 51:].sum())
        dist.append((label, tot, *_rate(k, tot)))
    out["hold51"] = pd.DataFrame(dist, columns=["cards", "hands", "rate", "lo", "hi"])
    rows = []
    for b, (lo, hi) in enumerate(BANDS):
        ms = []
        for t in (1, 0):
            k = int(s["disc_n"][b, t])
            m = _mean(s["disc_score"][b, t], s["disc_score_sq"][b, t], k)
            nv = _rate(int(s["disc_never"][b, t]), k)
            ms.append((k, m, nv))
        d = _diff(ms[0][1], ms[0][0], 0, ms[1][1], ms[1][0], 0)
        rows.append({"value_lo": lo, "value_hi": hi,
                     "took_n": ms[0][0], "took_score": ms[0][1][0],
                     "took_score_lo": ms[0][1][1], "took_score_hi": ms[0][1][2],
                     "took_never": ms[0][2][0], "took_never_lo": ms[0][2][1],
                     "took_never_hi": ms[0][2][2],
                     "not_n": ms[1][0], "not_score": ms[1][1][0],
                     "not_score_lo": ms[1][1][1], "not_score_hi": ms[1][1][2],
                     "not_never": ms[1][2][0], "not_never_lo": ms[1][2][1],
                     "not_never_hi": ms[1][2][2],
                     "diff": d[0], "diff_lo": d[1], "diff_hi": d[2]})
    out["discard"] = pd.DataFrame(rows)
    rows = []
    for k, label in ((1, "one or more later discard draws (T4)"), (0, "none")):
        m = _mean(s["later_score"][k], s["later_score_sq"][k], int(s["later_n"][k]))
        rows.append((label, int(s["later_n"][k]), *m))
    out["later"] = pd.DataFrame(rows, columns=["players", "n", "score", "score_lo",
                                               "score_hi"])
    rows = []
    for k, label in ((0, "took a joker away (hand dealt one or more)"),
                     (1, "gave a joker (hand dealt none)")):
        m = _mean(s["joker_diff"][k], s["joker_diff_sq"][k], int(s["joker_n"][k]))
        rows.append((label, int(s["joker_n"][k]), *m))
    jn = int(s["joker_n"].sum())
    m = _mean(s["joker_diff"].sum(), s["joker_diff_sq"].sum(), jn)
    rows.append(("both together", jn, *m))
    out["joker"] = pd.DataFrame(rows, columns=["exchange", "pairs", "worth", "worth_lo",
                                               "worth_hi"])
    rows = []
    for j in range(5):
        k = int(s["jokers_n"][j])
        if k:
            rows.append((j, k, *_mean(s["jokers_score"][j], s["jokers_score_sq"][j], k)))
    out["jokers_dealt"] = pd.DataFrame(rows, columns=["jokers", "hands", "score", "score_lo",
                                                      "score_hi"])
    curve = []
    for st_, label in ((0, "14"), (1, "15")):
        for v in range(VMAX + 1):
            h = hist[st_, v]
            total = int(h.sum())
            if total:
                curve.append((label, v, total, int(h[1:5].sum()), int(h[0])))
    out["by_value"] = pd.DataFrame(curve, columns=["cards", "value", "hands", "within_4",
                                                   "never"])
    return out


# ---------------------------------------------------------------- report


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    n_rounds = sizes(quick)
    (s,) = run_batches([questions_batch(seed, n_rounds)], workers=workers, executor=executor,
                       progress=progress, label="Römi questions report",
                       store=batch_set_store(store, "romi", "report-questions"))
    tabs = answers(s)
    out = out_dir(root, "romi")
    for name in ("endings", "seats", "opening", "discard", "later", "joker", "by_value"):
        tabs[name].to_csv(out / f"questions_{name}.csv", index=False)
    fig = _figure(tabs, out / "questions.png")
    page = out / "questions.md"
    write_page(page, page_lines(tabs, fig, seed=seed, quick=quick, n_rounds=n_rounds), STUDY,
               seed, quick)
    return page


def _figure(tabs: dict[str, pd.DataFrame], path: Path) -> str:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 5), layout="constrained")
    bv = tabs["by_value"]
    ax = axes[0]
    for label, colour in (("14", "tab:blue"), ("15", "tab:orange")):
        sub = bv[bv.cards == label].copy()
        sub["bin"] = (sub.value // 5) * 5
        g = sub.groupby("bin")[["hands", "within_4"]].sum()
        g = g[g.hands >= 30]
        p = g.within_4 / g.hands
        lo, hi = wilson(g.within_4.to_numpy(), g.hands.to_numpy())
        ax.plot(g.index + 2, p, marker="o", ms=3, color=colour,
                label=f"{label}-card hands" + (" (the starter)" if label == "15" else ""))
        ax.fill_between(g.index + 2, lo, hi, color=colour, alpha=0.2)
    ax.axvline(51, color="black", lw=1, ls="--")
    ax.set_xlabel("best_value (V1) of the dealt hand, bins of 5")
    ax.set_ylabel("share that opens within its first 4 draws (95% CI)")
    ax.set_title("How strong a dealt hand opens soon")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax = axes[1]
    j = tabs["joker"]
    y = np.arange(len(j))
    ax.errorbar(j.worth, y, xerr=[j.worth - j.worth_lo, j.worth_hi - j.worth], fmt="o",
                capsize=4)
    ax.set_yticks(y, j.exchange)
    ax.axvline(0, color="black", lw=1)
    ax.set_xlabel("score with one joker more minus without (points a round; negative: "
                  "the joker helps)")
    ax.set_title("What one dealt joker is worth (paired deals, 95% CI)")
    ax.grid(alpha=0.3)
    fig.suptitle("Römi, 4 greedy players")
    return save_figure(fig, path)


def _ci(v: float, lo: float, hi: float, digits: int = 2, signed: bool = False) -> str:
    s = "+" if signed else ""
    if np.isnan(lo):
        return f"{v:{s}.{digits}f} [n/a]"
    return f"{v:{s}.{digits}f} [{lo:{s}.{digits}f}, {hi:{s}.{digits}f}]"


def _pct(v: float, lo: float, hi: float, digits: int = 1) -> str:
    if np.isnan(v):
        return "n/a"
    return f"{v:.{digits}%} [{lo:.{digits}%}, {hi:.{digits}%}]"


def separated(lo: float, hi: float) -> bool:
    """Whether an interval excludes zero."""
    return bool(lo > 0 or hi < 0)


def seat_sentence(seats: pd.DataFrame) -> str:
    """The seat effect in words: every seat's score with its interval, then each seat against
    the dealer, "not separated" where the paired interval covers 0."""
    n = len(seats)
    names = {0: "the dealer", 1: "the starter: 15 cards, plays first"}
    parts = []
    for _, r in seats.iterrows():
        who = names.get(int(r.after_dealer), f"{int(r.after_dealer)} places after the dealer")
        parts.append(f"seat {int(r.seat)} ({who}) {_ci(r.score, r.score_lo, r.score_hi)}")
    text = "Points a round by seat: " + "; ".join(parts) + ". Against the dealer, paired by "
    cmp = []
    for _, r in seats[seats.after_dealer != 0].iterrows():
        word = ("not separated" if not separated(r.minus_dealer_lo, r.minus_dealer_hi)
                else ("fewer" if r.minus_dealer_hi < 0 else "more"))
        diff = _ci(r.minus_dealer, r.minus_dealer_lo, r.minus_dealer_hi, signed=True)
        cmp.append(f"seat {int(r.seat)} {diff} ({word})")
    return text + f"round ({n} players): " + "; ".join(cmp) + "."


def joker_sentence(j: pd.Series) -> str:
    """One joker's worth in words, "not separated from 0" where the interval covers 0."""
    if not separated(j.worth_lo, j.worth_hi):
        worth = _ci(j.worth, j.worth_lo, j.worth_hi, signed=True)
        return f"one dealt joker changes the score by {worth} points a round: not separated from 0"
    word = "fewer" if j.worth < 0 else "more"
    return (f"one dealt joker more means {abs(j.worth):.2f} points {word} a round "
            f"({_ci(j.worth, j.worth_lo, j.worth_hi, signed=True)})")


def page_lines(tabs: dict[str, pd.DataFrame], fig: str, *, seed: int, quick: bool,
               n_rounds: int) -> list[str]:
    """The page (a function of the tables alone, so that its sentences can be tested)."""
    e = tabs["endings"].set_index("what")
    cut = e.loc["cut card ended the round (T5)"]
    romi = e.loc["the round ended in a -20 (G3)"]
    alt = e.loc["a -20 under the other G3 reading"]
    h51 = tabs["hold51"].set_index("cards")
    op = tabs["opening"]
    joker = tabs["joker"].set_index("exchange")
    both = joker.loc["both together"]
    cmd = (f"simcards romi rounds --players {PLAYERS} --policies {POLICY} --dealer {DEALER} "
           f"--rounds {n_rounds} --seed {seed} --json")
    lines = ["# Römi: questions a player asks", "", *quick_banner(quick),
             f"Every answer below comes from the same {n_rounds:,} rounds of 4 `greedy` "
             "players (Q2), default rules, seat 0 dealing every round: the rounds of", "",
             "```", cmd, "```", "",
             "which gives the same scores by seat (`score_mean`) and the same -20 rate "
             "(`rummy_rate`). The study plays them in `simcards.romi.reports.questions` and "
             "notes what that command only sums (see the module's docstring). Every number "
             "carries its 95% interval: Wilson for shares, normal for means (paired where "
             "said).", ""]
    # 1 cut card
    lines += ["## How often does the cut card end the round?", "",
              f"In {_pct(cut.rate, cut.lo, cut.hi)} of rounds the player who went out took "
              "the cut card (T5) for his last draw. The cut card is offered only to a player "
              "who can go out with it, so this is the share of rounds whose last draw was the "
              "cut card rather than the stock or the discard pile.", ""]
    # 2 opening
    lines += ["## How strong must a dealt hand be to open soon?", "",
              "The exact solver's `best_value` (V1) of each dealt hand, its 14 cards or the "
              "starter's 15, against the draw at which the player opened (O1; his k-th draw "
              "of the round; the starter's first turn is a discard without a draw, so he can "
              "open at his first draw, everyone else from his second, O2). "
              f"{_pct(h51.loc['15'].rate, h51.loc['15'].lo, h51.loc['15'].hi)} of 15-card "
              f"hands and {_pct(h51.loc['14'].rate, h51.loc['14'].lo, h51.loc['14'].hi)} of "
              "14-card hands are dealt a lay-down worth 51 or more (`open_min`).", "",
              f"![questions]({fig})", "",
              "| cards | dealt best_value | share of hands | "
              + " | ".join(f"opened within {k} draws" for k in WITHIN)
              + " | never opened | score/round |", "|---" * (5 + len(WITHIN)) + "|"]
    for _, r in op.iterrows():
        lines.append(f"| {r.cards} | {r.value_lo}-{r.value_hi} | {r.share:.3f} | "
                     + " | ".join(_pct(r[f"within_{k}"], r[f"within_{k}_lo"],
                                       r[f"within_{k}_hi"]) for k in WITHIN)
                     + f" | {_pct(r.never, r.never_lo, r.never_hi)} | "
                     f"{_ci(r.score, r.score_lo, r.score_hi)} |")
    lines += ["", first_chance_sentence(op), ""]
    # 3 joker
    lines += ["## What is a joker worth?", "",
              "Method: each round is played twice. One seat, drawn for the round, has one "
              "joker more in the second play than in the first: a hand dealt a joker loses "
              "one of them to a random non-joker card dealt elsewhere (another hand, the "
              "stock or the cut card), a hand dealt none gets one in exchange for a random "
              "card of its own. Everything else (the other cards' places, the dealer, the "
              "reshuffles' random stream) is the same, so the paired difference, score with "
              "the joker minus score without, measures the joker and what follows from it "
              "(the other seats' hands change by the one exchanged card too).", "",
              f"Answer: {joker_sentence(both)}.", "",
              "| exchange | pairs | with minus without, points a round |", "|---|---|---|"]
    for name, r in joker.iterrows():
        lines.append(f"| {name} | {int(r.pairs):,} | "
                     f"{_ci(r.worth, r.worth_lo, r.worth_hi, signed=True)} |")
    jd = tabs["jokers_dealt"]
    lines += ["", "Unpaired, for comparison: mean score a round by jokers dealt: "
              + "; ".join(f"{int(r.jokers)} jokers {_ci(r.score, r.score_lo, r.score_hi)} "
                          f"({int(r.hands):,} hands)" for _, r in jd.iterrows()) + ".", ""]
    # 4 discard
    d = tabs["discard"]
    lines += ["## When does taking the discard pay?", "",
              "What is measured: greedy takes the top discard at its first draw (T3) only when "
              "that raises its hand's `best_value` (Q2), so the players who took it and those "
              "who did not hold different hands; the table compares them within bands of the "
              "dealt `best_value`. It is an association, not the effect of taking the card "
              "(that would need the same hand played both ways). The difference is the "
              "took-minus-did-not score (normal interval from two independent means; players "
              "of one round are treated as independent).", "",
              "| dealt best_value | took the first discard: players | score/round | never "
              "opened | did not: players | score/round | never opened | took minus did "
              "not |", "|---|---|---|---|---|---|---|---|"]
    for _, r in d.iterrows():
        lines.append(f"| {int(r.value_lo)}-{int(r.value_hi)} | {int(r.took_n):,} | "
                     f"{_ci(r.took_score, r.took_score_lo, r.took_score_hi)} | "
                     f"{_pct(r.took_never, r.took_never_lo, r.took_never_hi)} | "
                     f"{int(r.not_n):,} | {_ci(r.not_score, r.not_score_lo, r.not_score_hi)} | "
                     f"{_pct(r.not_never, r.not_never_lo, r.not_never_hi)} | "
                     f"{_ci(r['diff'], r.diff_lo, r.diff_hi, signed=True)} "
                     f"({discard_word(r)}) |")
    lat = tabs["later"]
    lines += ["", "Later draws from the discard pile (T4: the card must be melded that turn, so "
              "only an opened player or one opening with it takes it): "
              + "; ".join(f"players with {r.players}: {int(r.n):,}, "
                          f"{_ci(r.score, r.score_lo, r.score_hi)} points a round"
                          for _, r in lat.iterrows()) + ". Again an association: such a "
              "player has opened, which most of the score difference reflects.", ""]
    # 5 seats
    lines += ["## Does the seat matter?", "", seat_sentence(tabs["seats"]), "",
              "Seat 1 is the starter: 15 cards and the first discard (D4). The differences "
              "are paired by round (the same deal), so their intervals are narrower than the "
              "two seats' own.", ""]
    # G3
    lines += ["## The two readings of G3", "",
              f"{_pct(romi.rate, romi.lo, romi.hi, 2)} of these rounds end in a -20 as G3 is "
              "implemented (a joker swap cancels it); under the other reading "
              "(`--swap-keeps-romi`: a swap whose joker goes into the player's own new "
              f"melds keeps it) {_pct(alt.rate, alt.lo, alt.hi, 2)} would. Play is the same "
              "under both (no policy's choice depends on the reading), so only the -20s "
              "differ.", "",
              "Data: " + ", ".join(f"`questions_{n}.csv`" for n in
                                   ("endings", "seats", "opening", "discard", "later",
                                    "joker", "by_value")) + "."]
    return lines


def first_chance_sentence(op: pd.DataFrame) -> str:
    """How often a hand dealt ``open_min`` or more opens at its first chance (O2: the
    starter's first draw, everyone else's second), from the opening table."""
    parts = []
    for cards, k, who in (("15", 1, "15-card hands (the starter) at their first draw"),
                          ("14", 2, "14-card hands at their second")):
        rows = op[(op.cards == cards) & (op.value_lo >= 51)]
        n = int(rows.hands.sum())
        if n == 0:
            continue
        hits = round(float((rows[f"within_{k}"] * rows.hands).sum()))
        parts.append(f"{who}: {_pct(*_rate(hits, n))} of {n:,}")
        never = round(float((rows.never * rows.hands).sum()))
        parts[-1] += f", never opened {_pct(*_rate(never, n))}"
    return ("Hands dealt 51 or more open at the first chance O2 gives them: "
            + "; ".join(parts) + ". (A 14-card hand cannot open at its first draw, O2.)")


def discard_word(r: pd.Series) -> str:
    """"fewer points", "more points" or "not separated" for a discard row."""
    if not separated(r.diff_lo, r.diff_hi):
        return "not separated"
    return "fewer points" if r.diff_hi < 0 else "more points"
