"""Report (long study): Ronda's search player against the strongest rule-based one, to +-0.03.

``ismcts:1000`` (Q8 of ``seeds/ronda.md``) and ``rollout:32`` (Q5) are the two strongest legal
players the project fields. The policies page (:mod:`simcards.ronda.reports.policies`) plays
them against each other on 200 deal sets a table, which leaves intervals of 0.03 to 0.08 either
side: at most tables it cannot say which of the two to play. Here each table plays them on
enough deal sets that the paired match win-rate difference has a 95% interval of +-0.03 or
narrower (:func:`sets`), with 3 or 4 players alone in both orders (one A among Bs, and one B
among As, are different questions). The all-seeing bound ``seeing:1000`` (Q9) plays each of the
two, so that the page says directly, in matches, what the hidden cards are worth over the best
legal player.

A deal set with these seats costs 0.05-0.3 s of one core (every seat searches), so the study
takes about six minutes on two cores and is not part of ``make report``: it is a long study
(``simcards report --long``, ``make report-long``), its page kept beside the others until the
study is run again. Every run is one ``simcards ronda compare`` run with the same seed, chunked
as the command chunks it, so the command on the page reproduces its row.
"""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path

import pandas as pd

from simcards.core.reports.common import out_dir, quick_banner, write_page, write_search_study
from simcards.core.runner import run_batches
from simcards.core.store import batch_set_store
from simcards.ronda.reports.policies import (
    TABLES,
    Pairing,
    _alone,
    _est,
    _fmt,
    _run,
    _run_line,
    _verdict,
    command,
    pairing_batches,
    pairing_rows,
)
from simcards.ronda.rules import RondaRules

STUDY = "ronda-search"
SEARCH = "ismcts:1000"
"""The information-set search (Q8) at its defaults."""
ROLLOUT = "rollout:32"
"""The strongest rule-based player (Q5) at its default."""
BOUND = "seeing:1000"
"""The all-seeing bound (Q9): Q8's search on the true position, no legal player."""
WIN_HALF_WIDTH = 0.03
"""The match win-rate interval (half-width, 95%) the search-against-rollout runs are sized for
(:func:`sets`)."""
BOUND_SETS = 200
"""Deal sets of each of the bound's runs: it wins most matches against either player, so its
margin needs no +-0.03 to be read (about +-0.05 or better)."""

# Deal sets of the runs between the two legal players, by table and order (A, B). Sized from
# the SD of a deal set's win-rate difference measured at the report seed on 100-200 sets
# (two players 0.56, three 0.34 and 0.31, four 0.22 and 0.25, teams 0.60): n = (1.96 SD /
# 0.03)^2 is 1,353, 503 and 410, 214 and 264, 1,536, each taken about a quarter higher so that
# the SD's own noise on a short pilot still leaves the interval inside +-0.03.
_SIZES = {("2 players", SEARCH, ROLLOUT): 1_700,
          ("3 players", SEARCH, ROLLOUT): 650, ("3 players", ROLLOUT, SEARCH): 550,
          ("4 players", SEARCH, ROLLOUT): 320, ("4 players", ROLLOUT, SEARCH): 360,
          ("teams (2 v 2)", SEARCH, ROLLOUT): 1_900}


def sets(job: Pairing, quick: bool) -> int:
    """Deal sets of one run: :data:`_SIZES` between the two legal players (each sized for a
    match win-rate interval of +-0.03 or narrower), :data:`BOUND_SETS` for the bound's runs;
    ``--quick``: 2, to draw the page."""
    if quick:
        return 2
    if job.a == BOUND:
        return BOUND_SETS
    return _SIZES[(job.table, job.a, job.b)]


def jobs() -> list[Pairing]:
    """Every run, table by table: ``ismcts:1000`` against ``rollout:32`` (with 3 or 4 players
    alone, also one ``rollout:32`` among ``ismcts:1000`` players), then the bound against
    each of the two."""
    out = []
    for table, options in TABLES:
        rules = RondaRules.make(**options)
        out.append(Pairing(table, SEARCH, ROLLOUT, rules))
        if rules.n_sides > 2:
            out.append(Pairing(table, ROLLOUT, SEARCH, rules))
        out += [Pairing(table, BOUND, ROLLOUT, rules), Pairing(table, BOUND, SEARCH, rules)]
    return out


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    todo = jobs()
    batches = pairing_batches(todo, seed=seed, quick=quick, sets=sets)
    stats = run_batches(batches, workers=workers, executor=executor, progress=progress,
                        label="Ronda search report",
                        store=batch_set_store(store, "ronda", "report-search"))
    df = pairing_rows(todo, batches, stats)
    return write_search_study(out_dir(root, "ronda"), df, _page, seed=seed, quick=quick)


def page_from_csv(root: Path, *, seed: int) -> Path:
    """The page again from the study's own ``search_compare.csv``, without playing its
    minutes of searches: for a change in how the page is written, not in what was played."""
    out = out_dir(root, "ronda")
    df = pd.read_csv(out / "search_compare.csv")
    page = out / "search.md"
    _page(page, df, seed=seed, quick=False)
    return page


def wide(df: pd.DataFrame) -> list[str]:
    """The runs between the two legal players whose interval is wider than
    :data:`WIN_HALF_WIDTH` either side, in words (the page names them)."""
    legal = df[df.a != BOUND]
    rows = legal[(legal.win_diff_hi - legal.win_diff_lo) / 2 > WIN_HALF_WIDTH]
    return [f"`{r.a}` v `{r.b}` ({r.table})" for _, r in rows.iterrows()]


def best_legal(sub: pd.DataFrame) -> list[str]:
    """The legal players to play at one table: the one that does measurably better than the
    other in some run and worse in none; both (the search first) when neither does."""
    better = {SEARCH: False, ROLLOUT: False}
    worse = {SEARCH: False, ROLLOUT: False}
    for _, r in sub[sub.a != BOUND].iterrows():
        v = _verdict(_est(r, "win_diff"))
        if v == "beats":
            better[r.a] = worse[r.b] = True
        elif v == "loses to":
            worse[r.a] = better[r.b] = True
    ahead = [p for p in (SEARCH, ROLLOUT) if better[p] and not worse[p]]
    return ahead if len(ahead) == 1 else [SEARCH, ROLLOUT]


def _diff_words(r: pd.Series) -> str:
    """One run's paired match win-rate difference, in words, with its deal sets: A wins more,
    fewer, or is not separated (the interval covers 0)."""
    d = _est(r, "win_diff")
    alone = _alone(r)
    who = f"one `{r.a}` among `{r.b}` players" if alone else f"`{r.a}`"
    than = "per seat than they do" if alone else f"than `{r.b}`"
    verdict = _verdict(d)
    if verdict == "is not separated from":
        what = (f"{who} is not separated from {'them' if alone else f'`{r.b}`'}: win-rate "
                f"difference {_fmt(d)}")
    else:
        sign = 1 if verdict == "beats" else -1
        more = "more" if sign > 0 else "fewer"
        lo, hi = sorted((sign * d.low, sign * d.high))
        what = (f"{who} wins {sign * d.value:.3f} [{lo:.3f}, {hi:.3f}] {more} of the matches "
                f"{than}")
    return f"{what} on {int(r.deal_sets):,} deal sets"


def _favours(r: pd.Series) -> str | None:
    """The legal player a run between the two shows better (one A among Bs that wins more, or
    loses), or None where its interval covers 0."""
    verdict = _verdict(_est(r, "win_diff"))
    if verdict == "is not separated from":
        return None
    return r.a if verdict == "beats" else r.b


def _lead(runs: pd.DataFrame, table: str) -> str:
    """Which legal player to play at one table, from what each run between the two measured
    and only as far as its interval supports: with 3 or 4 players alone each order is its own
    question (one A among Bs, one B among As), so a player is named outright only where every
    order favours it, and for one field only where one order does and the other does not
    separate them."""
    legal = "; ".join(_diff_words(r) for _, r in runs.iterrows())
    favoured = [_favours(r) for _, r in runs.iterrows()]
    named = {f for f in favoured if f is not None}
    cheap = f"`{ROLLOUT}` costs far less to compute"
    if len(named) == 1 and None not in favoured:
        (pick,) = named
        other = ROLLOUT if pick == SEARCH else SEARCH
        return (f"**{table}: play `{pick}`**, which does measurably better than `{other}`: "
                f"{legal}.")
    if not named:
        return (f"**{table}: `{SEARCH}` and `{ROLLOUT}` are not separated**: {legal}. Either "
                f"may be played; {cheap}.")
    if len(named) == 1:
        (pick,) = named
        sep = next(r for (_, r), f in zip(runs.iterrows(), favoured, strict=True) if f)
        open_ = next(r for (_, r), f in zip(runs.iterrows(), favoured, strict=True) if not f)
        return (f"**{table}: play `{pick}` among `{sep.b}` players**: {_diff_words(sep)}. "
                f"Among `{open_.b}` players the runs do not separate the two: "
                f"{_diff_words(open_)}; there either may be played, and {cheap}.")
    return (f"**{table}: neither `{SEARCH}` nor `{ROLLOUT}` does better in both orders**: "
            f"{legal}. The lone player does better either way; {cheap}.")


def sentence(sub: pd.DataFrame, table: str) -> str:
    """The page's plain answer at one table: which legal player to play, by how much
    (:func:`_lead`), and what the all-seeing bound wins over the best legal play measured."""
    picks = best_legal(sub)
    lead = _lead(sub[sub.a != BOUND], table)
    bound = "; ".join(_diff_words(_run(sub, BOUND, p)) for p in picks)
    return (f"{lead} The all-seeing bound: {bound}. That is what the hidden cards are worth "
            "to Q8's search over the best legal play measured.")


def _page(path: Path, df: pd.DataFrame, *, seed: int, quick: bool) -> None:
    missed = wide(df)
    short = f" (not reached by {', '.join(missed)})" if missed else ""
    lines = ["# Ronda: the search player against the best rule-based player", "",
             *quick_banner(quick),
             f"`{SEARCH}` (Q8, information-set Monte Carlo tree search) against `{ROLLOUT}` "
             "(Q5, the strongest rule-based player), matches to 21 in duplicate: the same decks "
             "and dealers in every seating, so the luck of the deal cancels from the paired "
             "differences. With two sides (two players, or teams) A holds one side and B the "
             "other, then the sides swap; with 3 or 4 players alone A holds one seat against B "
             "in every other seat, A in each seat in turn, and both orders are run. The runs "
             "between the two legal players are sized for a 95% interval of "
             f"±{WIN_HALF_WIDTH} or narrower on the match win-rate difference{short}; the "
             f"all-seeing bound `{BOUND}` (Q9) plays each of them.", ""]
    for table, _ in TABLES:
        lines += [sentence(df[df.table == table], table), ""]
    lines += ["Every run (win-rate difference: A's match win rate minus B's, the mean over "
              "A's seats; points per hand: A's side minus B's; 95% intervals over deal sets):",
              ""]
    for table, _ in TABLES:
        sub = df[df.table == table]
        lines += [f"**{table}**", "", *[_run_line(r, _alone(r)) for _, r in sub.iterrows()],
                  ""]
    bad = int(df.violations.sum())
    unfinished = int(df.unfinished.sum())
    example = df[df.a == SEARCH].iloc[0]
    lines += [f"Broken invariants over every hand played: {bad}. Matches stopped unfinished: "
              f"{unfinished}.", "",
              "## What the players are", "",
              f"`{ROLLOUT}` (Q5) weighs each card of its hand on 32 samples of the cards it has "
              "not seen, each card played and the hand finished by `greedy` for every seat, and "
              "solves the last deal exactly (Q7). "
              f"`{SEARCH}` (Q8) grows one tree over the sequences of values played from the "
              "decision, drawing a fresh sample of the unseen cards at each of its 1,000 "
              "iterations, choosing among the values the mover holds in that sample by UCB "
              "(C = 0.5 on values scaled to [0, 1]) and finishing the hand with `greedy`; it "
              "plays the most visited card. "
              f"`{BOUND}` (Q9) is Q8's search on the true position, every hand and the stock "
              "order in view: no legal player (`simcards ronda play` and the table "
              "environments refuse it); it says what seeing the hidden cards is worth to that "
              "search.", "",
              "The policies page ([policies.md](policies.md)) rates every player on one "
              "ladder per table, the bound included, from shorter runs. This is a long study: "
              "every seat of these runs searches, so it is not part of `make report` and runs "
              "with `make report-long` (about six minutes on two cores, resumable). "
              f"Seed {seed}; default rules (`derba_chain=flat`, `announce=first_deal`, "
              "`announce_conflict=text`), matches to 21 checked at the end of each hand; every "
              "run is in `search_compare.csv`. One of them again:", "", "```",
              command(example, seed), "```", ""]
    write_page(path, lines, STUDY, seed, quick)
