"""Report (long study): how far Römi's players are from the best the project fields.

``search:N`` (Q7 of ``seeds/romi.md``) is the strongest legal player measured, at its default
N = 16 and at N = 48 (Q7's margin shrinks as one over the square root of N, so a larger N
departs from ``expert`` more often); ``seeing:16`` (Q8) is the same search on the true state,
every hand and the stock order in view: no legal player, but the bound on what this search
could gain from the hidden cards. Each, and ``greedy``, is measured against ``expert`` in duplicate
(:mod:`simcards.romi.compare_batch`: one A among ``expert`` players, the same decks and dealers
with A in each seat in turn), at 2 and 4 players, and the page says what share of the distance
from ``greedy`` to the bound each legal player covers.

A searching seat plays some ten rounds a second where an engine table plays thousands, so this
study takes about an hour on two cores and is not part of ``make report``: it is a long study
(``simcards report --long``, ``make report-long``), its page kept beside the others until the
study is run again. Its chunks are one deal set each, so an interrupted run resumes.
"""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path

import pandas as pd

from simcards.core.reports.common import out_dir, quick_banner, write_page, write_search_study
from simcards.core.runner import run_batches
from simcards.core.store import batch_set_store
from simcards.romi.reports.policies import Job, _ci_text, _frame, compare_batch

STUDY = "romi-search"
BASE = "expert"
"""The field every player here is measured against (Q5, the best engine player)."""
SEARCHES = ("search:16", "search:48")
"""The legal searching players: Q7's default, and three times its samples."""
BOUND = "seeing:16"
FLOOR = "greedy"
WIN_HALF_WIDTH = 0.03
"""The game-win interval (half-width, 95%) the searches' runs are sized for (:func:`sets`)."""
PLAYERS = (2, 4)
"""The table sizes measured: two players (where the hidden cards are one hand and the stock)
and four."""


def sets(quick: bool) -> dict[tuple[int, str], int]:
    """Deal sets per run. The searches are sized so that the game win rate per seat, A minus
    ``expert``, has a 95% interval of +-0.03 or narrower, fine enough to tell a search from
    ``expert`` by three games in a hundred: a deal set's win difference has an SD of about
    0.38 (``search:16``) and 0.42 (``search:48``) with two players and 0.16-0.19 with four
    (measured at the report seed), so 700 and 800 sets with two players, 130 and 200 with
    four. The bound's margin is some 10-25 points, and 100 or 50 sets measure it to +-1.5;
    ``greedy`` plays thousands of rounds a second, so its runs take 400 sets at no cost."""
    if quick:
        return {(n, a): 2 for n in PLAYERS for a in (*SEARCHES, BOUND, FLOOR)}
    return {(2, SEARCHES[0]): 700, (2, SEARCHES[1]): 800, (2, BOUND): 100, (2, FLOOR): 400,
            (4, SEARCHES[0]): 130, (4, SEARCHES[1]): 200, (4, BOUND): 50, (4, FLOOR): 400}


def jobs() -> list[Job]:
    """Every run: the searches, the bound and greedy, one in a field of ``expert``."""
    return [Job(n, a, BASE) for n in PLAYERS for a in (*SEARCHES, BOUND, FLOOR)]


def build(root: Path, *, seed: int, workers: int | None, progress: bool = True,
          quick: bool = False, executor: Executor | None = None,
          store: Path | None = None) -> Path:
    size = sets(quick)
    todo = jobs()
    counts = [size[(j.players, j.a)] for j in todo]
    stats = run_batches([compare_batch(j, seed, k) for j, k in zip(todo, counts, strict=True)],
                        workers=workers, executor=executor, progress=progress,
                        label="Römi search report",
                        store=batch_set_store(store, "romi", "report-search"))
    df = _frame(todo, stats, counts)
    return write_search_study(out_dir(root, "romi"), df, _page, seed=seed, quick=quick)


def page_from_csv(root: Path, *, seed: int) -> Path:
    """The page again from the study's own ``search_compare.csv``, without playing its hour of
    searches: for a change in how the page or an interval is written, not in what was played.
    A game win-rate difference at a bound (every set won by A, or by none of A's seats) takes
    the interval the study gives it now (:func:`simcards.romi.compare_batch.summarise`: Wilson's
    on the sets, from the same mean and count the CSV keeps), and the CSV is written back."""
    from simcards.core.stats import bound_interval

    out = out_dir(root, "romi")
    df = pd.read_csv(out / "search_compare.csv")
    for i, r in df.iterrows():
        at = bound_interval(float(r.win_diff), int(r.deal_sets), -1.0 / (int(r.players) - 1),
                            1.0)
        if at is not None:
            df.loc[i, ["win_diff_lo", "win_diff_hi"]] = at
    return write_search_study(out, df, _page, seed=seed, quick=False)


def shares(df: pd.DataFrame, players: int) -> dict[str, float]:
    """Each legal player's share of the distance from ``greedy`` to the bound, in points a
    round at ``players``: ``expert`` is 0 on this scale (every run is against it), so greedy
    sits at its score difference g and the bound at b, and a player at d covers (g - d) /
    (g - b). Each of the three is its own run, so the shares carry the three runs' noise."""
    sub = df[df.players == players].set_index("a")
    g = float(sub.loc[FLOOR, "score_diff"])
    b = float(sub.loc[BOUND, "score_diff"])
    out = {BASE: g / (g - b)}
    for a in SEARCHES:
        out[a] = (g - float(sub.loc[a, "score_diff"])) / (g - b)
    return out


def wide(df: pd.DataFrame) -> list[str]:
    """The searching runs whose game-win interval is wider than :data:`WIN_HALF_WIDTH` either
    side, in words (the page names them beside the precision it was sized for)."""
    rows = df[df.a.isin(SEARCHES)
              & ((df.win_diff_hi - df.win_diff_lo) / 2 > WIN_HALF_WIDTH)]
    return [f"`{r.a}` with {r.players} players" for _, r in rows.iterrows()]


def _separated(r: pd.Series, stem: str) -> bool:
    return r[f"{stem}_lo"] > 0 or r[f"{stem}_hi"] < 0


def _gain(r: pd.Series) -> str:
    """A searching player's run against expert, in words."""
    if _separated(r, "score_diff") and r.score_diff < 0:
        points = (f"concedes {-r.score_diff:.2f} [{-r.score_diff_hi:.2f}, "
                  f"{-r.score_diff_lo:.2f}] points a round fewer than `{BASE}`")
    elif _separated(r, "score_diff"):
        points = (f"concedes {r.score_diff:.2f} [{r.score_diff_lo:.2f}, "
                  f"{r.score_diff_hi:.2f}] points a round more than `{BASE}`")
    else:
        points = (f"is not separated from `{BASE}` in points "
                  f"({_ci_text(r, 'score_diff', 2)} a round)")
    win = ("its game win rate per seat is not separated from expert's"
           if not _separated(r, "win_diff") else
           "its game win rate per seat differs from expert's by "
           f"{_ci_text(r, 'win_diff', 3)}")
    return f"{points}, and {win} ({int(r.deal_sets):,} deal sets)"


def best(df: pd.DataFrame, players: int) -> list[str]:
    """The searching players to play at ``players``: the one that concedes fewest points among
    those that concede fewer than ``expert`` (interval below 0), with every other such one
    whose interval overlaps its own (separate runs: which of them is better is not measured);
    empty when none concedes fewer."""
    sub = df[(df.players == players) & df.a.isin(SEARCHES)]
    ahead = sub[sub.score_diff_hi < 0].sort_values("score_diff")
    if ahead.empty:
        return []
    top = ahead.iloc[0]
    return [str(r.a) for _, r in ahead.iterrows() if r.score_diff_lo <= top.score_diff_hi]


def sentence(df: pd.DataFrame, players: int) -> str:
    """The page's plain answer at one table size."""
    sub = df[df.players == players].set_index("a")
    b = sub.loc[BOUND]
    sh = shares(df, players)
    picks = best(df, players)
    if not picks:
        lead = f"**{players} players: no search separates from `{BASE}`**"
    elif len(picks) == 1:
        lead = f"**{players} players: play `{picks[0]}`**"
    else:
        lead = (f"**{players} players: play {' or '.join(f'`{a}`' for a in picks)}** (their "
                "intervals overlap: which of them is better is not measured here)")
    runs = "; ".join(f"`{a}` {_gain(sub.loc[a])}" for a in SEARCHES)
    covered = ", ".join(f"`{a}` {sh[a]:.0%}" for a in SEARCHES)
    return (f"{lead}. {runs}. The all-seeing bound concedes {-b.score_diff:.2f} points a round "
            f"fewer than `{BASE}`: that is what the hidden cards are worth to this search. Of "
            f"the distance from `greedy` to the bound, `{BASE}` covers {sh[BASE]:.0%}, "
            f"{covered}.")


def _page(path: Path, df: pd.DataFrame, *, seed: int, quick: bool) -> None:
    missed = wide(df)
    short = f" (not reached by {' and '.join(missed)})" if missed else ""
    lines = ["# Römi: how far from the best player", "", *quick_banner(quick),
             "Each player against a field of `expert` players (Q5) on the same deals, in "
             "duplicate: one A among `expert` players, the same decks and dealers with A in each "
             "seat in turn (`simcards romi compare A expert`), so the luck of the deal cancels "
             "from the paired differences. Points a round are points conceded, A minus "
             "`expert` (negative: A concedes fewer); the game win rate is per seat, A minus "
             "`expert`. Intervals are 95%, normal, over deal sets (Wilson's on the deal sets for a "
             "game win rate at a bound, every set won: a normal one would have width zero); "
             "the searches' runs are sized "
             f"for a game-win interval of ±{WIN_HALF_WIDTH} or narrower{short}.", ""]
    for n in PLAYERS:
        lines += [sentence(df, n), ""]
    lines += ["| players | A | deal sets | points a round, A minus `expert` | "
              "game win rate per seat, A minus `expert` |", "|---|---|---|---|---|"]
    for _, r in df.iterrows():
        label = f"`{r.a}` (bound)" if r.a == BOUND else f"`{r.a}`"
        lines.append(f"| {r.players} | {label} | {int(r.deal_sets):,} | "
                     f"{_ci_text(r, 'score_diff', 2)} | {_ci_text(r, 'win_diff', 3)} |")
    n = PLAYERS[-1]
    deals = int(df[(df.players == n) & (df.a == SEARCHES[-1])].deal_sets.iloc[0])
    lines += ["", "## What the players are", "",
              "`search:N` (Q7 of `seeds/romi.md`) plays `expert`'s turns unless a search finds "
              "a clearly better one. Each turn it weighs `expert`'s draw against the stock (and, "
              "at a first draw, the top discard), then `expert`'s melding and discard against "
              "the same melding with each other card of the hand discarded and, before opening, "
              "against holding the opening back. Every candidate is played out by `greedy` "
              "seats on the same N deals of the cards the player has not seen; a candidate "
              "whose mean gain falls 1 standard error below 0 is dropped from the second sample "
              "on, and one replaces `expert`'s choice only when its mean gain is 2.5 standard "
              "errors above 0. That margin shrinks as one over the square root of N, so a "
              "larger N finds more of the turns better than `expert`'s, at a cost in time that "
              "grows with N (`python scripts/bench_romi.py --players 2,4 --policy expert "
              "--search 16,48` times both).", "",
              f"`{BOUND}` (Q8) is the same search on the true state: it sees every hand and the "
              "order of the stock. It is no legal player (`simcards romi` refuses it in the table "
              "environments); it measures what the hidden cards are worth to this search, and "
              "so how much of the way from `greedy` to it each legal player has come (each "
              "share divides two differences of separate runs and carries their noise).", "",
              "This is a long study: a searching seat plays some ten rounds a second, so it is "
              "not part of `make report` and runs with `make report-long` (about an hour on two "
              "cores, resumable). "
              f"Seed {seed}; default rules (`open_min` 51, `ace_low_value` 1), 7 rounds a game; "
              "every run is in `search_compare.csv`. One of them again:", "", "```",
              f"simcards romi compare {SEARCHES[-1]} {BASE} --players {n} --deals {deals} "
              f"--seed {seed}", "```", ""]
    write_page(path, lines, STUDY, seed, quick)
